/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU to GPU between two processes of one host (CUDA IPC). Process B sends
 * from its GPU buffer into process A's: an RDMA write of 1 MiB and a send of
 * 64 KiB into a receive on A's GPU memory travel as GPU references, which A's
 * device copies GPU to GPU (emu_gpu_ref_bytes counts them). A write from B's
 * GPU into A's host memory cannot be copied so: A's device answers "resend
 * the bytes", the write still lands, and from then on B's device sends the
 * bytes on that connection (a last GPU-to-GPU write lands, not counted). A
 * checks every byte.
 *
 * Skipped (77) without a CUDA device; both processes are forked before
 * either opens the device or initialises CUDA.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_cuda_test.h"
#include "verbs_util.h"

#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define GPU_SIZE   (4u << 20)
#define WRITE_LEN  (1u << 20)
#define SEND_LEN   65536u
#define RECV_OFF   (2u << 20)
#define HOST_LEN   4096u

/* What each side tells the other. */
struct side_info {
    struct vu_info info; /* addr/rkey: the GPU buffer */
    uint64_t host_addr;  /* A: its host buffer */
    uint32_t host_rkey;
};

/* The steps B takes, each answered by A's check. */
enum step { STEP_WRITE, STEP_SEND, STEP_HOST, STEP_WRITE_AGAIN, STEP_END };

static uint64_t (*ref_bytes)(struct ibv_device *);

static void fill(uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + i * 13 + (i >> 12));
}

static bool same(const uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] != (uint8_t)(seed + i * 13 + (i >> 12))) {
            fprintf(stderr, "byte %u of %u: 0x%02x\n", i, len, p[i]);
            return false;
        }
    }
    return true;
}

/* One signaled WQE from B's GPU buffer; the completion status or -1. */
static int b_post(struct vu_end *b, struct ibv_mr *gmr, enum ibv_wr_opcode op, uint32_t len,
                  uint64_t raddr, uint32_t rkey)
{
    struct ibv_sge sge = {(uintptr_t)gmr->addr, len, gmr->lkey};
    struct ibv_send_wr wr, *bad;
    struct ibv_wc wc;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 7;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    if (ibv_post_send(b->qp, &wr, &bad) != 0 || vu_wait(b->cq, &wc, 20000) != 1)
        return -1;
    return wc.status;
}

/* Process B: the sender. */
static void b_steps(const struct core_cuda_ops *cuda, int sock, struct vu_end *b,
                    struct ibv_mr *gmr, const struct side_info *a)
{
    uint8_t *host = malloc(WRITE_LEN);
    core_cu_deviceptr gpu = (uintptr_t)gmr->addr;
    static const char *names[] = {"write GPU to GPU", "send GPU to GPU", "write GPU to host",
                                  "write GPU to GPU again"};
    char go;
    /* A counts from before the first step: it says when it has. */
    bool ready = vu_xfer(sock, &go, 1, false) == 0;

    for (int s = STEP_WRITE; s < STEP_END && host != NULL && ready; s++) {
        uint32_t len = s == STEP_SEND ? SEND_LEN : s == STEP_HOST ? HOST_LEN : WRITE_LEN;
        uint64_t raddr = s == STEP_HOST ? a->host_addr : a->info.addr;
        uint32_t rkey = s == STEP_HOST ? a->host_rkey : a->info.rkey;
        int32_t step = s;
        char ok;

        fill(host, len, (uint8_t)(s * 40 + 3));
        /* A copy from pageable memory may return before its DMA ends: waited for, as a NIC would
         * need. */
        VU_CHECK(cuda->cuMemcpyHtoD(gpu, host, len) == CORE_CU_SUCCESS &&
                         cuda->cuCtxSynchronize() == CORE_CU_SUCCESS,
                 "B: fill for %s", names[s]);
        VU_CHECK(b_post(b, gmr, s == STEP_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, len, raddr,
                        rkey) == IBV_WC_SUCCESS,
                 "B: %s completes", names[s]);
        if (vu_xfer(sock, &step, sizeof(step), true) || vu_xfer(sock, &ok, 1, false))
            break;
    }
    free(host);
}

/* B's end of the run: STEP_END, then its counts. */
static void b_report(int sock)
{
    int32_t step = STEP_END;
    int result[2] = {vu_passed, vu_failed};

    if (vu_xfer(sock, &step, sizeof(step), true) || vu_xfer(sock, result, sizeof(result), true))
        fprintf(stderr, "B: process A is gone\n");
}

/* Process A: the target; checks each step B reports. */
static void a_steps(const struct core_cuda_ops *cuda, int sock, struct vu_ctx *c, struct vu_end *a,
                    struct ibv_mr *gmr)
{
    uint8_t *host = malloc(WRITE_LEN);
    core_cu_deviceptr gpu = (uintptr_t)gmr->addr;
    struct ibv_sge sge = {gpu + RECV_OFF, SEND_LEN, gmr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 5, .sg_list = &sge, .num_sge = 1}, *bad;
    uint64_t before = ref_bytes(c->ctx->device), now;
    struct ibv_wc wc;
    int32_t step;

    VU_CHECK(ibv_post_recv(a->qp, &rwr, &bad) == 0, "A: a receive on GPU memory");
    VU_CHECK(vu_xfer(sock, "g", 1, true) == 0, "A: B told to start");
    while (host != NULL && vu_xfer(sock, &step, sizeof(step), false) == 0 && step != STEP_END) {
        uint8_t seed = (uint8_t)(step * 40 + 3);

        now = ref_bytes(c->ctx->device);
        memset(host, 0, WRITE_LEN);
        switch (step) {
        case STEP_WRITE:
        case STEP_WRITE_AGAIN:
            VU_CHECK(cuda->cuMemcpyDtoH(host, gpu, WRITE_LEN) == CORE_CU_SUCCESS &&
                             same(host, WRITE_LEN, seed),
                     "A: the write's 1 MiB in GPU memory (step %d)", step);
            if (step == STEP_WRITE)
                VU_CHECK(now - before == WRITE_LEN, "A: copied GPU to GPU (%llu bytes)",
                         (unsigned long long)(now - before));
            else
                VU_CHECK(now == before, "A: sent as bytes after the refusal (%llu copied)",
                         (unsigned long long)(now - before));
            break;
        case STEP_SEND:
            VU_CHECK(vu_wait(a->cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS &&
                             wc.opcode == IBV_WC_RECV && wc.byte_len == SEND_LEN,
                     "A: the receive on GPU memory completes");
            VU_CHECK(cuda->cuMemcpyDtoH(host, gpu + RECV_OFF, SEND_LEN) == CORE_CU_SUCCESS &&
                             same(host, SEND_LEN, seed),
                     "A: the message in GPU memory");
            VU_CHECK(now - before == SEND_LEN, "A: the send copied GPU to GPU (%llu bytes)",
                     (unsigned long long)(now - before));
            break;
        case STEP_HOST:
            VU_CHECK(same(a->buf, HOST_LEN, seed), "A: the write into host memory");
            VU_CHECK(now == before, "A: host memory is not a GPU copy (%llu bytes)",
                     (unsigned long long)(now - before));
            break;
        default:
            break;
        }
        before = now;
        if (vu_xfer(sock, "k", 1, true))
            break;
    }
    free(host);
}

static int run(int sock, bool is_a, pid_t peer)
{
    const struct core_cuda_ops *cuda = NULL;
    const char *why = emu_cuda_open(&cuda);
    core_cu_deviceptr gpu = 0;
    struct side_info mine, theirs;
    struct ibv_mr *gmr;
    struct vu_ctx c;
    struct vu_end e;
    int result[2], status = 0;
    char ready;

    if (why != NULL) {
        fprintf(stderr, "CUDA: %s\n", why);
        return 2;
    }
    if (vu_open(&c) || vu_end_create(&c, &e, 16, 8, 8, ACCESS_ALL) ||
        cuda->cuMemAlloc(&gpu, GPU_SIZE) != CORE_CU_SUCCESS)
        return 2;
    gmr = ibv_reg_mr(c.pd, (void *)(uintptr_t)gpu, GPU_SIZE, ACCESS_ALL);
    if (gmr == NULL)
        return 2;
    memset(&mine, 0, sizeof(mine));
    vu_info_of(&c, &e, &mine.info);
    mine.info.addr = gpu;
    mine.info.rkey = gmr->rkey;
    mine.host_addr = (uintptr_t)e.buf;
    mine.host_rkey = e.mr->rkey;
    if (vu_xfer(sock, &mine, sizeof(mine), true) || vu_xfer(sock, &theirs, sizeof(theirs), false) ||
        vu_connect(&e, &theirs.info, ACCESS_ALL, 7) || vu_xfer(sock, "r", 1, true) ||
        vu_xfer(sock, &ready, 1, false))
        return 2;
    if (is_a) {
        a_steps(cuda, sock, &c, &e, gmr);
        VU_CHECK(vu_xfer(sock, result, sizeof(result), false) == 0, "process B's results");
        vu_passed += result[0];
        vu_failed += result[1];
        waitpid(peer, &status, 0);
        VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process B exit status 0x%x",
                 status);
    } else {
        b_steps(cuda, sock, &e, gmr, &theirs);
        b_report(sock);
    }
    ibv_dereg_mr(gmr);
    cuda->cuMemFree(gpu);
    vu_end_destroy(&e);
    vu_close(&c);
    return is_a ? vu_summary("test_verbs_gpu_ipc") : 0;
}

static int run_a(int sock, pid_t child)
{
    return run(sock, true, child);
}

static int run_b(int sock)
{
    return run(sock, false, 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!emu_cuda_usable())
        return EMU_CUDA_SKIP;
    ref_bytes = (uint64_t(*)(struct ibv_device *))dlsym(RTLD_DEFAULT, "emu_gpu_ref_bytes");
    if (ref_bytes == NULL) {
        printf("emu_gpu_ref_bytes is not exported: not softmlx5's libibverbs\n");
        return 1;
    }
    return vu_fork_pair(run_a, run_b);
}
