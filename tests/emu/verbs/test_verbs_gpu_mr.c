/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU memory registered with standard verbs. Process A (the GPU's owner)
 * registers a cuMemAlloc'd buffer with ibv_reg_mr (softmlx5 finds out per
 * registration that it is GPU memory) and fills it with a pattern through
 * cuMemcpyHtoD; process B (forked before either opens the device) RDMA-reads
 * it into host memory and checks it, RDMA-writes a new pattern into it,
 * fetch-adds a big-endian counter in it and sends into a receive A posted on
 * it; A copies everything back with cuMemcpyDtoH and checks it byte for
 * byte. Then the same through ibv_reg_dmabuf_mr on a dma-buf from
 * cuMemGetHandleForAddressRange, when the driver exports one (that part is
 * skipped, with a line saying so, when it does not).
 *
 * Skipped (77) without a CUDA device. CUDA is probed in a child process, so
 * that neither worker inherits an initialised driver across fork.
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_cuda_test.h"
#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define GPU_SIZE    (2u << 20)
#define PATTERN_LEN (1u << 20)            /* [0, 1 MiB): the pattern B reads and rewrites */
#define ATOM_OFF    PATTERN_LEN           /* the fetch-add counter */
#define RECV_OFF    (PATTERN_LEN + 4096u) /* A's receive lands here */
#define RECV_LEN    65536u
#define SEND_LEN    5000u
#define ATOM_ADD    23u

/* What A tells B: its QP and the GPU buffer under both registrations. */
struct a_info {
    struct vu_info info; /* addr: the GPU buffer; rkey: the ibv_reg_mr key */
    uint32_t dmabuf_rkey;
    int32_t have_dmabuf;
};

/* One round: which registration, and the pattern seed. */
struct round_msg {
    int32_t variant; /* 0 ibv_reg_mr, 1 ibv_reg_dmabuf_mr; -1 ends */
    uint8_t seed;
};

static void fill(uint8_t *p, uint32_t len, uint8_t seed, uint32_t start)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + (start + i) * 7);
}

static bool check(const uint8_t *p, uint32_t len, uint8_t seed, uint32_t start)
{
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] != (uint8_t)(seed + (start + i) * 7)) {
            fprintf(stderr, "byte %u (of %u from offset %u): 0x%02x, expected 0x%02x\n", i, len,
                    start, p[i], (uint8_t)(seed + (start + i) * 7));
            return false;
        }
    }
    return true;
}

/* Posts one signaled WQE from B and waits for it; the completion status or -1. */
static int b_op(struct vu_end *b, enum ibv_wr_opcode opc, uint32_t off, uint32_t len,
                const struct vu_info *r, uint64_t roff)
{
    struct ibv_wc wc;

    if (vu_post(b, opc, 9, off, len, r, roff, IBV_SEND_SIGNALED) != 0)
        return -1;
    if (vu_wait(b->cq, &wc, 10000) != 1 || wc.wr_id != 9)
        return -1;
    return wc.status;
}

/* B's half of a round on A's GPU buffer, reached with remote key r->rkey. */
static void b_round(struct vu_end *b, const struct vu_info *r, const struct round_msg *m)
{
    static const uint32_t reads[][2] = {
            {0, PATTERN_LEN}, {1, 7}, {4093, 65537}, {PATTERN_LEN - 100, 100}};
    static const uint32_t writes[][2] = {{0, 300000}, {300000, 1}, {300001, PATTERN_LEN - 300001}};
    const char *how = m->variant == 0 ? "ibv_reg_mr" : "ibv_reg_dmabuf_mr";
    uint64_t v;

    for (unsigned int i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        uint32_t off = reads[i][0], len = reads[i][1];

        memset(b->buf, 0, len);
        VU_CHECK(b_op(b, IBV_WR_RDMA_READ, 0, len, r, off) == IBV_WC_SUCCESS,
                 "%s: RDMA read of %u bytes at %u", how, len, off);
        VU_CHECK(check(b->buf, len, m->seed, off), "%s: bytes read from GPU memory (%u at %u)", how,
                 len, off);
    }
    fill(b->buf, PATTERN_LEN, (uint8_t)(m->seed + 1), 0);
    for (unsigned int i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
        VU_CHECK(b_op(b, IBV_WR_RDMA_WRITE, writes[i][0], writes[i][1], r, writes[i][0]) ==
                         IBV_WC_SUCCESS,
                 "%s: RDMA write of %u bytes at %u", how, writes[i][1], writes[i][0]);
    {
        struct ibv_sge sge = {(uintptr_t)b->buf, 8, b->mr->lkey};
        struct ibv_send_wr wr, *bad;
        struct ibv_wc wc;

        memset(&wr, 0, sizeof(wr));
        wr.wr_id = 10;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.atomic.remote_addr = r->addr + ATOM_OFF;
        wr.wr.atomic.rkey = r->rkey;
        wr.wr.atomic.compare_add = ATOM_ADD;
        VU_CHECK(ibv_post_send(b->qp, &wr, &bad) == 0 && vu_wait(b->cq, &wc, 10000) == 1 &&
                         wc.status == IBV_WC_SUCCESS,
                 "%s: fetch-add on GPU memory", how);
        memcpy(&v, b->buf, sizeof(v));
        VU_CHECK(be64toh(v) == 100u + (uint64_t)m->variant, "%s: fetch-add fetched %llu, want %u",
                 how, (unsigned long long)be64toh(v), 100 + m->variant);
    }
    fill(b->buf, SEND_LEN, (uint8_t)(m->seed + 2), 0);
    VU_CHECK(b_op(b, IBV_WR_SEND, 0, SEND_LEN, r, 0) == IBV_WC_SUCCESS,
             "%s: send into a receive on GPU memory", how);
}

static int run_b(int sock)
{
    struct vu_ctx c;
    struct vu_end b;
    struct vu_info ib;
    struct a_info ia;
    struct round_msg m;
    int result[2];

    if (vu_open(&c) || vu_end_create(&c, &b, 16, 16, 4, ACCESS_ALL))
        return 2;
    vu_info_of(&c, &b, &ib);
    if (vu_xfer(sock, &ib, sizeof(ib), true) || vu_xfer(sock, &ia, sizeof(ia), false))
        return 2;
    if (vu_connect(&b, &ia.info, ACCESS_ALL, 7) || vu_xfer(sock, "c", 1, true))
        return 2;
    for (;;) {
        struct vu_info r = ia.info;

        if (vu_xfer(sock, &m, sizeof(m), false))
            return 2;
        if (m.variant < 0)
            break;
        if (m.variant == 1)
            r.rkey = ia.dmabuf_rkey;
        b_round(&b, &r, &m);
        if (vu_xfer(sock, "d", 1, true))
            return 2;
    }
    result[0] = vu_passed;
    result[1] = vu_failed;
    if (vu_xfer(sock, result, sizeof(result), true))
        return 2;
    vu_end_destroy(&b);
    vu_close(&c);
    return 0;
}

/* A's half of a round: fill, post the receive, let B work, check what B left. */
static void a_round(const struct core_cuda_ops *cuda, int sock, struct vu_end *a,
                    core_cu_deviceptr gpu, struct ibv_mr *mr, int variant, uint8_t *host)
{
    const char *how = variant == 0 ? "ibv_reg_mr" : "ibv_reg_dmabuf_mr";
    struct round_msg m = {.variant = variant, .seed = (uint8_t)(variant * 50 + 1)};
    struct ibv_sge sge = {gpu + RECV_OFF, RECV_LEN, mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 100 + (uint64_t)variant, .sg_list = &sge, .num_sge = 1};
    struct ibv_recv_wr *bad;
    struct ibv_wc wc;
    uint64_t v = htobe64(100u + (uint64_t)variant);
    char done;

    fill(host, PATTERN_LEN, m.seed, 0);
    VU_CHECK(cuda->cuMemcpyHtoD(gpu, host, PATTERN_LEN) == CORE_CU_SUCCESS &&
                     cuda->cuMemcpyHtoD(gpu + ATOM_OFF, &v, sizeof(v)) == CORE_CU_SUCCESS,
             "%s: fill the GPU buffer", how);
    memset(host, 0, RECV_LEN);
    VU_CHECK(cuda->cuMemcpyHtoD(gpu + RECV_OFF, host, RECV_LEN) == CORE_CU_SUCCESS,
             "%s: clear the receive area", how);
    VU_CHECK(ibv_post_recv(a->qp, &wr, &bad) == 0, "%s: receive on GPU memory", how);
    if (vu_xfer(sock, &m, sizeof(m), true) || vu_xfer(sock, &done, 1, false)) {
        VU_CHECK(false, "%s: process B is gone", how);
        return;
    }
    VU_CHECK(vu_wait(a->cq, &wc, 10000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     wc.opcode == IBV_WC_RECV && wc.byte_len == SEND_LEN &&
                     wc.wr_id == 100 + (uint64_t)variant,
             "%s: receive completion on GPU memory", how);

    memset(host, 0, PATTERN_LEN);
    VU_CHECK(cuda->cuMemcpyDtoH(host, gpu, PATTERN_LEN) == CORE_CU_SUCCESS &&
                     check(host, PATTERN_LEN, (uint8_t)(m.seed + 1), 0),
             "%s: the pattern B wrote into GPU memory", how);
    VU_CHECK(cuda->cuMemcpyDtoH(&v, gpu + ATOM_OFF, sizeof(v)) == CORE_CU_SUCCESS &&
                     be64toh(v) == 100u + (uint64_t)variant + ATOM_ADD,
             "%s: the counter in GPU memory holds %llu", how, (unsigned long long)be64toh(v));
    memset(host, 0, RECV_LEN);
    VU_CHECK(cuda->cuMemcpyDtoH(host, gpu + RECV_OFF, RECV_LEN) == CORE_CU_SUCCESS &&
                     check(host, SEND_LEN, (uint8_t)(m.seed + 2), 0) && host[SEND_LEN] == 0,
             "%s: the message B sent into GPU memory", how);
}

static int run_a(int sock, pid_t pid)
{
    const struct core_cuda_ops *cuda = NULL;
    const char *why = emu_cuda_open(&cuda);
    struct round_msg end = {.variant = -1};
    struct ibv_mr *mr, *dmr = NULL;
    core_cu_deviceptr gpu = 0;
    core_cu_result rc;
    struct vu_ctx c;
    struct vu_end a;
    struct vu_info ib;
    struct a_info ia;
    uint8_t *host;
    int result[2] = {0, 1}, status = 0, fd = -1;
    char ready;

    if (why != NULL) {
        VU_CHECK(false, "CUDA in process A: %s", why);
        return vu_summary("test_verbs_gpu_mr");
    }
    host = malloc(PATTERN_LEN);
    if (host == NULL || vu_open(&c) || vu_end_create(&c, &a, 16, 4, 4, ACCESS_ALL))
        return 2;
    rc = cuda->cuMemAlloc(&gpu, GPU_SIZE);
    if (rc != CORE_CU_SUCCESS) {
        fprintf(stderr, "cuMemAlloc: CUDA error %d\n", rc);
        return 2;
    }
    mr = ibv_reg_mr(c.pd, (void *)(uintptr_t)gpu, GPU_SIZE, ACCESS_ALL);
    VU_CHECK(mr != NULL, "ibv_reg_mr on GPU memory: errno %d", errno);
    if (mr == NULL)
        return 2;

    rc = cuda->cuMemGetHandleForAddressRange(&fd, gpu, GPU_SIZE,
                                             CORE_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (rc != CORE_CU_SUCCESS || fd < 0) {
        printf("dma-buf part skipped: cuMemGetHandleForAddressRange gave CUDA error %d\n", rc);
        fd = -1;
    } else {
        dmr = ibv_reg_dmabuf_mr(c.pd, 0, GPU_SIZE, gpu, fd, ACCESS_ALL);
        VU_CHECK(dmr != NULL, "ibv_reg_dmabuf_mr on a CUDA dma-buf: errno %d", errno);
    }

    memset(&ia, 0, sizeof(ia));
    vu_info_of(&c, &a, &ia.info);
    ia.info.addr = gpu;
    ia.info.rkey = mr->rkey;
    ia.have_dmabuf = dmr != NULL;
    ia.dmabuf_rkey = dmr != NULL ? dmr->rkey : 0;
    if (vu_xfer(sock, &ib, sizeof(ib), false) || vu_xfer(sock, &ia, sizeof(ia), true))
        return 2;
    if (vu_connect(&a, &ib, ACCESS_ALL, 7) || vu_xfer(sock, &ready, 1, false))
        return 2;

    a_round(cuda, sock, &a, gpu, mr, 0, host);
    if (dmr != NULL)
        a_round(cuda, sock, &a, gpu, dmr, 1, host);

    VU_CHECK(vu_xfer(sock, &end, sizeof(end), true) == 0 &&
                     vu_xfer(sock, result, sizeof(result), false) == 0,
             "process B's results");
    vu_passed += result[0];
    vu_failed += result[1];
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process B exit status 0x%x", status);
    if (dmr != NULL)
        VU_CHECK(ibv_dereg_mr(dmr) == 0, "deregister the dma-buf MR");
    if (fd >= 0)
        close(fd);
    VU_CHECK(ibv_dereg_mr(mr) == 0, "deregister the GPU MR");
    VU_CHECK(cuda->cuMemFree(gpu) == CORE_CU_SUCCESS, "cuMemFree");
    vu_end_destroy(&a);
    vu_close(&c);
    free(host);
    return vu_summary("test_verbs_gpu_mr");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!emu_cuda_usable())
        return EMU_CUDA_SKIP;
    return vu_fork_pair(run_a, run_b);
}
