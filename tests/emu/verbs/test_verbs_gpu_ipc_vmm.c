/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU to GPU between two processes of one host, from CUDA VMM allocations
 * (cuMemCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, cuMemMap, as
 * NCCL and PyTorch's expandable segments make them). Process B writes and
 * sends from its VMM buffers into process A's VMM buffer: the messages
 * travel as VMM references, which A's device maps (pidfd_getfd of B's
 * descriptor: A, the parent, may trace B) and copies GPU to GPU
 * (emu_gpu_ref_bytes counts them): writes at offsets inside both
 * allocations, from a second allocation, a send into a receive on VMM
 * memory, 32 writes to adjacent slots (deferred and merged copies). A write
 * from a VMM allocation made without the POSIX fd handle type goes as bytes
 * (not counted), and later ones as references again. A checks every byte.
 *
 * Skipped (77) without a CUDA device ("skipped: no CUDA device"), without
 * VMM allocations that have POSIX file descriptors, without pidfd_getfd, or
 * where Yama forbids this process to trace its child. Both processes are
 * forked before either opens the device or initialises CUDA. Also run on the
 * fake CUDA driver (test_verbs_gpu_ipc_vmm_fake_cuda).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_cuda_test.h"
#include "emu_vmm_test.h"
#include "verbs_util.h"

#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define A_SIZE     (4u << 20)
#define B_SIZE     (4u << 20)
#define B2_SIZE    (2u << 20)
#define RECV_OFF   (3u << 20)
#define SEND_LEN   65536u

/* What A tells B. */
struct a_info {
    struct vu_info info; /* addr/rkey: A's VMM buffer */
};

/* B's sources: 1 and 2 exportable VMM allocations, 3 one without the POSIX fd handle type. */
enum source { SRC_VMM = 0, SRC_VMM_SECOND, SRC_VMM_NO_FD, SRC_END };

struct step {
    const char *name;
    enum source src;
    uint32_t src_off, len, dst_off;
    unsigned int count; /* WQEs of len bytes each, at consecutive offsets; the last signaled */
    bool send;
    bool by_reference; /* copied GPU to GPU (counted), or sent as bytes */
};

static const struct step steps[] = {
        {"write 1 MiB from a VMM allocation", SRC_VMM, 0, 1u << 20, 0, 1, false, true},
        {"write at offsets inside both allocations", SRC_VMM, (1u << 20) + 4096 + 5,
         (256u << 10) + 3, (2u << 20) + 7, 1, false, true},
        {"write from a second VMM allocation", SRC_VMM_SECOND, 8192, 64u << 10, 64u << 10, 1, false,
         true},
        {"send into a receive on VMM memory", SRC_VMM, 512u << 10, SEND_LEN, RECV_OFF, 1, true,
         true},
        {"32 writes of 4 KiB to adjacent slots", SRC_VMM, 0, 4096, 1u << 20, 32, false, true},
        {"write from a VMM allocation without a POSIX fd handle type", SRC_VMM_NO_FD, 0, 64u << 10,
         0, 1, false, false},
        {"write from a VMM allocation again", SRC_VMM, 4096, 128u << 10, 0, 1, false, true},
};
#define STEP_COUNT ((int32_t)(sizeof(steps) / sizeof(steps[0])))
#define STEP_END   STEP_COUNT

static uint64_t (*ref_bytes)(struct ibv_device *);

static uint8_t pattern(int step, size_t i)
{
    return (uint8_t)(step * 40 + 3 + i * 13 + (i >> 12));
}

/* GPU memory [at, at + len) filled with step's pattern from byte `from` on, waited for. */
static bool fill(const struct core_cuda_ops *cuda, core_cu_deviceptr at, size_t len, int step,
                 size_t from)
{
    uint8_t *host = malloc(len);
    bool ok = host != NULL;

    for (size_t i = 0; ok && i < len; i++)
        host[i] = pattern(step, from + i);
    ok = ok && cuda->cuMemcpyHtoD(at, host, len) == CORE_CU_SUCCESS &&
         cuda->cuCtxSynchronize() == CORE_CU_SUCCESS;
    free(host);
    return ok;
}

/* Whether GPU memory [at, at + len) holds step's pattern from byte `from` on. */
static bool holds(const struct core_cuda_ops *cuda, core_cu_deviceptr at, size_t len, int step,
                  size_t from)
{
    uint8_t *host = malloc(len);
    bool ok = host != NULL && cuda->cuMemcpyDtoH(host, at, len) == CORE_CU_SUCCESS;

    for (size_t i = 0; ok && i < len; i++) {
        if (host[i] != pattern(step, from + i)) {
            fprintf(stderr, "byte %zu of %zu: 0x%02x, expected 0x%02x\n", i, len, host[i],
                    pattern(step, from + i));
            ok = false;
        }
    }
    free(host);
    return ok;
}

/* B: step s's WQEs from source mr, the last signaled; its completion status or -1. */
static int b_post(struct vu_end *b, struct ibv_mr *mr, const struct step *st,
                  const struct a_info *a)
{
    struct ibv_wc wc;

    for (unsigned int k = 0; k < st->count; k++) {
        uint32_t off = st->src_off + k * st->len;
        struct ibv_sge sge = {(uintptr_t)mr->addr + off, st->len, mr->lkey};
        struct ibv_send_wr wr, *bad;

        memset(&wr, 0, sizeof(wr));
        wr.wr_id = k;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = st->send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
        wr.send_flags = k + 1 == st->count ? IBV_SEND_SIGNALED : 0;
        wr.wr.rdma.remote_addr = a->info.addr + st->dst_off + k * st->len;
        wr.wr.rdma.rkey = a->info.rkey;
        if (ibv_post_send(b->qp, &wr, &bad) != 0)
            return -1;
    }
    if (vu_wait(b->cq, &wc, 20000) != 1)
        return -1;
    return wc.status;
}

/* Process B: the sender. */
static void b_steps(const struct core_cuda_ops *cuda, int sock, struct vu_end *b,
                    struct ibv_mr *const mrs[SRC_END], const struct a_info *a)
{
    char go;

    /* A counts from before the first step: it says when it has. */
    if (vu_xfer(sock, &go, 1, false))
        return;
    for (int32_t s = 0; s < STEP_COUNT; s++) {
        const struct step *st = &steps[s];
        struct ibv_mr *mr = mrs[st->src];
        size_t total = (size_t)st->len * st->count;
        char ok;

        VU_CHECK(fill(cuda, (uintptr_t)mr->addr + st->src_off, total, s, st->src_off),
                 "B: fill for %s", st->name);
        VU_CHECK(b_post(b, mr, st, a) == IBV_WC_SUCCESS, "B: %s completes", st->name);
        if (vu_xfer(sock, &s, sizeof(s), true) || vu_xfer(sock, &ok, 1, false))
            break;
    }
}

/* Process A: the target; checks each step B reports. */
static void a_steps(const struct core_cuda_ops *cuda, int sock, struct vu_ctx *c, struct vu_end *a,
                    struct ibv_mr *mr)
{
    core_cu_deviceptr gpu = (uintptr_t)mr->addr;
    struct ibv_sge sge = {gpu + RECV_OFF, SEND_LEN, mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 5, .sg_list = &sge, .num_sge = 1}, *bad;
    uint64_t before = ref_bytes(c->ctx->device), now, all = 0;
    struct ibv_wc wc;
    int32_t s;

    VU_CHECK(ibv_post_recv(a->qp, &rwr, &bad) == 0, "A: a receive on VMM memory");
    if (vu_xfer(sock, "g", 1, true))
        return;
    while (vu_xfer(sock, &s, sizeof(s), false) == 0 && s >= 0 && s < STEP_COUNT) {
        const struct step *st = &steps[s];
        size_t total = (size_t)st->len * st->count;

        if (st->send)
            VU_CHECK(vu_wait(a->cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS &&
                             wc.opcode == IBV_WC_RECV && wc.byte_len == st->len,
                     "A: the receive on VMM memory completes");
        now = ref_bytes(c->ctx->device);
        VU_CHECK(holds(cuda, gpu + st->dst_off, total, s, st->src_off), "A: the bytes of %s",
                 st->name);
        if (st->by_reference)
            VU_CHECK(now - before == total, "A: %s copied GPU to GPU (%llu of %zu bytes)", st->name,
                     (unsigned long long)(now - before), total);
        else
            VU_CHECK(now == before, "A: %s sent as bytes (%llu bytes copied GPU to GPU)", st->name,
                     (unsigned long long)(now - before));
        all += now - before;
        before = now;
        if (vu_xfer(sock, "k", 1, true))
            break;
    }
    printf("A: %llu bytes copied GPU to GPU from CUDA VMM references\n", (unsigned long long)all);
}

/* Each side's VMM buffers, registered. */
struct side {
    struct emu_vmm_buf buf[SRC_END];
    struct ibv_mr *mr[SRC_END];
};

static int side_make(const struct core_cuda_ops *cuda, struct vu_ctx *c, bool is_a, struct side *sd)
{
    static const size_t size[SRC_END] = {B_SIZE, B2_SIZE, B2_SIZE};
    static const int types[SRC_END] = {CORE_CU_MEM_HANDLE_TYPE_POSIX_FD,
                                       CORE_CU_MEM_HANDLE_TYPE_POSIX_FD,
                                       CORE_CU_MEM_HANDLE_TYPE_NONE};

    memset(sd, 0, sizeof(*sd));
    for (int i = 0; i < (is_a ? 1 : SRC_END); i++) {
        core_cu_result rc = emu_vmm_alloc(cuda, is_a ? A_SIZE : size[i], types[i], &sd->buf[i]);

        if (rc != CORE_CU_SUCCESS) {
            fprintf(stderr, "%s: VMM allocation %d: CUDA error %d\n", is_a ? "A" : "B", i, rc);
            return -1;
        }
        sd->mr[i] =
                ibv_reg_mr(c->pd, (void *)(uintptr_t)sd->buf[i].va, sd->buf[i].size, ACCESS_ALL);
        if (sd->mr[i] == NULL) {
            fprintf(stderr, "%s: ibv_reg_mr of VMM memory: %s\n", is_a ? "A" : "B",
                    strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void side_free(const struct core_cuda_ops *cuda, struct side *sd)
{
    for (int i = 0; i < SRC_END; i++) {
        if (sd->mr[i] != NULL)
            ibv_dereg_mr(sd->mr[i]);
        emu_vmm_free(cuda, &sd->buf[i]);
    }
}

static int run(int sock, bool is_a, pid_t peer)
{
    const struct core_cuda_ops *cuda = NULL;
    const char *why = emu_cuda_open(&cuda);
    struct a_info mine, theirs;
    int result[2] = {0, 0}, status = 0;
    struct side sd;
    struct vu_ctx c;
    struct vu_end e;
    char ready;

    if (why != NULL) {
        fprintf(stderr, "CUDA: %s\n", why);
        return 2;
    }
    if (vu_open(&c) || vu_end_create(&c, &e, 64, 64, 8, ACCESS_ALL) ||
        side_make(cuda, &c, is_a, &sd) != 0)
        return 2;
    memset(&mine, 0, sizeof(mine));
    vu_info_of(&c, &e, &mine.info);
    mine.info.addr = sd.buf[0].va;
    mine.info.rkey = sd.mr[0]->rkey;
    if (vu_xfer(sock, &mine, sizeof(mine), true) || vu_xfer(sock, &theirs, sizeof(theirs), false) ||
        vu_connect(&e, &theirs.info, ACCESS_ALL, 7) || vu_xfer(sock, "r", 1, true) ||
        vu_xfer(sock, &ready, 1, false))
        return 2;
    if (is_a) {
        a_steps(cuda, sock, &c, &e, sd.mr[0]);
        VU_CHECK(vu_xfer(sock, result, sizeof(result), false) == 0, "process B's results");
        vu_passed += result[0];
        vu_failed += result[1];
        waitpid(peer, &status, 0);
        VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process B exit status 0x%x",
                 status);
    } else {
        int32_t end = STEP_END;

        b_steps(cuda, sock, &e, sd.mr, &theirs);
        result[0] = vu_passed;
        result[1] = vu_failed;
        if (vu_xfer(sock, &end, sizeof(end), true) || vu_xfer(sock, result, sizeof(result), true))
            fprintf(stderr, "B: process A is gone\n");
    }
    side_free(cuda, &sd);
    vu_end_destroy(&e);
    vu_close(&c);
    return is_a ? vu_summary("test_verbs_gpu_ipc_vmm") : 0;
}

static int run_a(int sock, pid_t child)
{
    return run(sock, true, child);
}

static int run_b(int sock)
{
    return run(sock, false, 0);
}

/* In the probe's child: why this machine cannot run the test (NULL: it can). */
static const char *vmm_probe_child(void)
{
    static char line[160];
    const struct core_cuda_ops *cuda = NULL;
    struct emu_vmm_buf b;
    core_cu_result rc;

    if (emu_cuda_open(&cuda) != NULL || !emu_vmm_calls(cuda))
        return "the CUDA driver has no virtual memory management calls";
    if ((rc = emu_vmm_alloc(cuda, 1, CORE_CU_MEM_HANDLE_TYPE_POSIX_FD, &b)) != 0) {
        snprintf(line, sizeof(line),
                 "no CUDA VMM allocation with a POSIX file descriptor handle (CUDA error %d)", rc);
        return line;
    }
    emu_vmm_free(cuda, &b);
    return NULL;
}

/* Why A (the parent) cannot take B's descriptors here, or NULL. */
static const char *pidfd_probe(void)
{
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), fd = -1, scope = 0;
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

    /* Its own pidfd: a descriptor this process surely has. */
    if (pidfd >= 0)
        fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);
    if (pidfd >= 0)
        close(pidfd);
    if (fd >= 0)
        close(fd);
    if (f != NULL) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    if (fd < 0)
        return "pidfd_open or pidfd_getfd is not available (Linux 5.6 or later)";
    if (scope >= 3 || (scope == 2 && geteuid() != 0))
        return "Yama's ptrace_scope forbids a parent to trace its child here";
    return NULL;
}

int main(void)
{
    const char *why;

    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!emu_cuda_usable())
        return EMU_CUDA_SKIP;
    why = emu_probe_in_child(vmm_probe_child);
    if (why == NULL)
        why = pidfd_probe();
    if (why != NULL) {
        printf("skipped: %s\n", why);
        return EMU_CUDA_SKIP;
    }
    ref_bytes = (uint64_t(*)(struct ibv_device *))dlsym(RTLD_DEFAULT, "emu_gpu_ref_bytes");
    if (ref_bytes == NULL) {
        printf("emu_gpu_ref_bytes is not exported: not softmlx5's libibverbs\n");
        return 1;
    }
    return vu_fork_pair(run_a, run_b);
}
