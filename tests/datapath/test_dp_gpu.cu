/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path run by CUDA kernels on softmlx5, across two processes: the
 * requester's QP is exported to the GPU and driven by the same workloads
 * (dp_ops.h) the CPU test runs, compiled as device code, plus warp-scope
 * ones through the DOCA template API. Checked byte for byte by the
 * responder process.
 *
 * Usage: test_dp_gpu ops HANDLER gpu|host       every operation, one thread
 *        test_dp_gpu share RSM BLOCKS THREADS   BLOCKS x THREADS threads on one QP
 *        test_dp_gpu warp WARPS HANDLER         WARPS warps, warp scope, one QP
 *        test_dp_gpu error                      a wrong key: -EIO, the syndrome, and
 *                                               the host's net event naming the QP
 * gpu|host: where the QP's rings are. Prints "skipped: no CUDA device" and
 * exits 77 where no GPU can be used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "doca_gpunetio_dev_verbs.cuh"
#include "dp_harness.h"
#include "dp_ops.h"

#define AUTO DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO

__global__ void k_ops(struct doca_gpu_dev_verbs_qp *qp, struct dp_plan p, int *out)
{
    *out = dp_ops(qp, &p, AUTO);
}

__global__ void k_share(struct doca_gpu_dev_verbs_qp *qp, struct dp_plan p, int *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;

    if (dp_share(qp, &p, t, AUTO) != 0)
        atomicAdd(out, 1);
}

__global__ void k_error(struct doca_gpu_dev_verbs_qp *qp, struct dp_plan p, int *out,
                        unsigned long long *ticket)
{
    uint64_t t = 0;

    *out = dp_error(qp, &p, AUTO, &t);
    *ticket = t;
}

/*
 * Warp scope through DOCA's templates: each lane's puts but the last with
 * put (warp), the last with put_signal (warp: one signal per warp), then a
 * signal per lane, a get per lane with a dump, and a wait.
 */
__global__ void k_warp(struct doca_gpu_dev_verbs_qp *qp, struct dp_plan p, int *out)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t w = t / DOCA_GPUNETIO_VERBS_WARP_SIZE;
    const uint32_t lane = t % DOCA_GPUNETIO_VERBS_WARP_SIZE;
    doca_gpu_dev_verbs_ticket_t ticket;
    int rc;

    for (uint32_t k = 0; k < DP_SHARE_PUTS; k++) {
        uint64_t off = DP_SHARE_OFF + ((uint64_t)t * DP_SHARE_PUTS + k) * 64;

        if (k + 1 < DP_SHARE_PUTS)
            doca_gpu_dev_verbs_put<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, AUTO,
                                   DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(qp, DP_R(&p, off),
                                                                        DP_L(&p, off), 64, &ticket);
        else
            doca_gpu_dev_verbs_put_signal<DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD,
                                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, AUTO,
                                          DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(
                    qp, DP_R(&p, off), DP_L(&p, off), 64, DP_R(&p, DP_SHARE_SIG_OFF),
                    DP_L(&p, DP_SHARE_RET_OFF + 8 * (DP_SHARE_MAX_THR + w)), 1, &ticket);
    }
    doca_gpu_dev_verbs_signal<DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD,
                              DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, AUTO,
                              DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(
            qp, DP_R(&p, DP_SHARE_SIG_OFF), DP_L(&p, DP_SHARE_RET_OFF + 8 * t), 1, &ticket);
    rc = doca_gpu_dev_verbs_get<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, AUTO,
                                DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP,
                                DOCA_GPUNETIO_VERBS_MCST_ENABLED,
                                DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED>(
            qp, DP_R(&p, DP_GET_OFF + lane * 16), DP_L(&p, DP_GET_OFF + lane * 16), 16,
            DP_L(&p, DP_DUMP_OFF), &ticket);
    if (rc != 0 || doca_gpu_dev_verbs_wait<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>(qp) != 0)
        atomicAdd(out, 1);
}

/* Runs kernel launch() on a non-blocking stream while a proxy thread serves CPU_PROXY QPs. */
template <typename Launch> static int run_kernel(struct dp_side *s, Launch launch)
{
    struct dp_proxy px;
    cudaStream_t stream;
    int *out = NULL, result = -1;
    cudaError_t e;

    /* Non-blocking: softmlx5's copies to and from GPU memory never queue behind the kernel. */
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMallocManaged(&out, sizeof(*out)) != cudaSuccess)
        return -1;
    *out = 0;
    dp_proxy_start(&px, s);
    launch(stream, out);
    e = cudaStreamSynchronize(stream);
    dp_proxy_stop(&px);
    if (e == cudaSuccess)
        result = *out;
    else
        fprintf(stderr, "FAIL: kernel: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    cudaStreamDestroy(stream);
    return result;
}

/* The first GPU's bus id, found in a child so this process forks before CUDA starts. */
static void find_gpu(char *bus_id, size_t len)
{
    int fd[2];
    pid_t pid;
    int status = 0;
    ssize_t n = 0;

    if (pipe(fd) != 0)
        exit(1);
    pid = fork();
    if (pid == 0) {
        int count = 0;
        char id[32] = {0};

        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 &&
            cudaDeviceGetPCIBusId(id, sizeof(id), 0) == cudaSuccess &&
            write(fd[1], id, sizeof(id)) == (ssize_t)sizeof(id))
            _exit(0);
        _exit(1);
    }
    close(fd[1]);
    if (pid > 0)
        n = read(fd[0], bus_id, len);
    close(fd[0]);
    waitpid(pid, &status, 0);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("skipped: no CUDA device\n");
        exit(77);
    }
    bus_id[len - 1] = '\0';
}

static struct dp_cfg cfg_of(const char *bus_id, int handler, bool rings_gpu)
{
    struct dp_cfg c;

    memset(&c, 0, sizeof(c));
    c.gpu_bus_id = bus_id;
    c.use_hl = rings_gpu;
    c.handler = (enum doca_gpu_dev_verbs_nic_handler)handler;
    c.dbr_mode = handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR
                         ? DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW
                         : DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR;
    c.sq_nwqe = 64;
    return c;
}

/*
 * The scope export gave the doorbell fences: GPU only for a QP whose ring
 * and record are in GPU memory (the high-level QPs here) rung by the GPU
 * itself, SYS for host rings, a CPU proxy or DOCA_GPUNETIO_NIC_FENCE_SYS=1.
 */
static void check_nic_scope(const struct dp_side *s, bool rings_gpu)
{
    const char *force = getenv("DOCA_GPUNETIO_NIC_FENCE_SYS");
    struct doca_gpu_dev_verbs_qp d;
    bool sys;

    DP_CHECK(cudaMemcpy(&d, s->dev[0], sizeof(d), cudaMemcpyDeviceToHost) == cudaSuccess,
             "reading the QP descriptor");
    sys = !rings_gpu || (d.nic_handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) ||
          (force != NULL && strcmp(force, "1") == 0);
    DP_CHECK(d.sq_nic_scope == (uint32_t)(sys ? DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS
                                              : DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU),
             "handler %u, rings in %s memory: doorbell fence scope %u", d.nic_handler,
             rings_gpu ? "GPU" : "host", d.sq_nic_scope);
}

static int run_ops(const char *bus, int handler, bool rings_gpu)
{
    struct dp_cfg c = cfg_of(bus, handler, rings_gpu);
    struct dp_side s;
    struct dp_plan p;
    int step;

    c.companion = true;
    dp_start(&s, &c);
    check_nic_scope(&s, rings_gpu);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    p.counters = 1;
    dp_fill_sources(&s);
    step = run_kernel(&s,
                      [&](cudaStream_t st, int *out) { k_ops<<<1, 1, 0, st>>>(s.dev[0], p, out); });
    DP_CHECK(step == 0, "dp_ops failed at step %d", step);
    return dp_finish(&s, DP_CHECK_OPS, 0, true);
}

static int run_share(const char *bus, uint32_t rsm, uint32_t blocks, uint32_t threads)
{
    struct dp_cfg c = cfg_of(bus, AUTO, true);
    struct dp_side s;
    struct dp_plan p;
    int failed;

    if (blocks * threads == 0 || blocks * threads > DP_SHARE_MAX_THR ||
        (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA && blocks != 1) ||
        (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE && blocks * threads != 1)) {
        fprintf(stderr,
                "share: at most %d threads; CTA sharing is one block, exclusive one "
                "thread\n",
                DP_SHARE_MAX_THR);
        return 2;
    }
    c.sq_nwqe = 32; /* far fewer slots than WQEs: the rings wrap */
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = rsm;
    p.threads = blocks * threads;
    dp_fill_sources(&s);
    failed = run_kernel(&s, [&](cudaStream_t st, int *out) {
        k_share<<<blocks, threads, 0, st>>>(s.dev[0], p, out);
    });
    DP_CHECK(failed == 0, "%d threads' signals failed", failed);
    return dp_finish(&s, DP_CHECK_SHARE, blocks * threads, false);
}

static int run_warp(const char *bus, uint32_t warps, int handler)
{
    struct dp_cfg c = cfg_of(bus, handler, true);
    struct dp_side s;
    struct dp_plan p;
    int failed;

    if (warps == 0 || warps * DOCA_GPUNETIO_VERBS_WARP_SIZE > DP_SHARE_MAX_THR) {
        fprintf(stderr, "warp: 1..%d warps\n", DP_SHARE_MAX_THR / DOCA_GPUNETIO_VERBS_WARP_SIZE);
        return 2;
    }
    c.sq_nwqe = 128;
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU;
    p.threads = warps * DOCA_GPUNETIO_VERBS_WARP_SIZE;
    dp_fill_sources(&s);
    failed = run_kernel(&s, [&](cudaStream_t st, int *out) {
        k_warp<<<warps, DOCA_GPUNETIO_VERBS_WARP_SIZE, 0, st>>>(s.dev[0], p, out);
    });
    DP_CHECK(failed == 0, "%d lanes failed", failed);
    for (uint32_t k = 0; k < DOCA_GPUNETIO_VERBS_WARP_SIZE * 16; k++)
        if (s.buf[DP_GET_OFF + k] != dp_pattern(40, k)) {
            DP_CHECK(0, "warp get: byte %u differs", k);
            break;
        }
    return dp_finish(&s, DP_CHECK_WARP, p.threads, false);
}

static int run_error(const char *bus)
{
    struct dp_cfg c = cfg_of(bus, AUTO, true);
    struct doca_gpu_verbs_qp_error_info info;
    unsigned long long *ticket = NULL;
    doca_gpu_net_event_t ev = NULL;
    struct doca_gpu_verbs_qp *fired = NULL;
    struct dp_side s;
    struct dp_plan p;
    int rc;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    dp_fill_sources(&s);
    if (cudaMallocManaged(&ticket, sizeof(*ticket)) != cudaSuccess)
        return 1;
    /* The send CQ (in GPU memory) armed through the host: the kernel's error CQE reports. */
    DP_CHECK(doca_gpu_net_event_create(s.d.dev, &ev) == DOCA_SUCCESS &&
                     doca_gpu_net_event_subscribe(ev, s.gqp, 1) == DOCA_SUCCESS,
             "net event subscribe");
    rc = run_kernel(&s, [&](cudaStream_t st, int *out) {
        k_error<<<1, 1, 0, st>>>(s.dev[0], p, out, ticket);
    });
    DP_CHECK(rc == -EIO, "a put with a wrong key completed with %d, expected -EIO", rc);
    DP_CHECK(doca_gpu_verbs_query_last_error(s.gqp[0], &info) == DOCA_SUCCESS, "last error");
    DP_CHECK(info.has_error && info.syndrome == PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR &&
                     info.wqe_counter == (int)(*ticket & 0xffff),
             "last error: has_error %d syndrome 0x%x wqe_counter %d", info.has_error, info.syndrome,
             info.wqe_counter);
    for (int ms = 0; ms < 1000 && fired == NULL; ms++) {
        DP_CHECK(doca_gpu_net_event_get(ev, &fired) == DOCA_SUCCESS, "net_event_get");
        if (fired == NULL)
            usleep(1000);
    }
    DP_CHECK(fired == s.gqp[0], "no net event named the QP whose kernel met the error CQE");
    DP_CHECK(doca_gpu_net_event_destroy(ev) == DOCA_SUCCESS, "net_event_destroy");
    cudaFree(ticket);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char bus[32];
    int rc;

    find_gpu(bus, sizeof(bus));
    if (strcmp(mode, "ops") == 0 && argc > 3)
        rc = run_ops(bus, atoi(argv[2]), strcmp(argv[3], "gpu") == 0);
    else if (strcmp(mode, "share") == 0 && argc > 4)
        rc = run_share(bus, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]),
                       (uint32_t)atoi(argv[4]));
    else if (strcmp(mode, "warp") == 0 && argc > 3)
        rc = run_warp(bus, (uint32_t)atoi(argv[2]), atoi(argv[3]));
    else if (strcmp(mode, "error") == 0)
        rc = run_error(bus);
    else {
        fprintf(stderr, "usage: test_dp_gpu ops HANDLER gpu|host | share RSM BLOCKS THREADS | "
                        "warp WARPS HANDLER | error\n");
        return 2;
    }
    printf("%s: %s (%d failures)\n", mode, rc == 0 ? "passed" : "FAILED", dp_failures);
    return rc;
}
