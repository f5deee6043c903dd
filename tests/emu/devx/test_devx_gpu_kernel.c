/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A GPU kernel drives a softmlx5 QP while it runs (gpu_kernel.cu): the QP's
 * rings and doorbell records are in GPU memory, its UAR page is registered
 * with cuMemHostRegister (DEVICEMAP) and rung from the kernel with 8-byte
 * doorbells and 64-byte BlueFlame writes (first word first, and last), and
 * the kernel spins on the CQ for each completion. The kernel runs on the
 * legacy default stream: softmlx5's copies of WQEs, doorbell records and
 * CQEs must not wait for it (they would until the kernel gave up, after a
 * timeout: the test fails). With SOFTMLX5_NO_DBR=1 the QP is in no-DBR mode.
 * Skipped (77) without a CUDA device.
 */
#include <signal.h>
#include <unistd.h>

#include "devx_dp.h"
#include "emu_cuda_test.h"
#include "gpu_kernel.h"

#define LOG_CQ 2 /* 4 CQEs: the CQ wraps */
#define LOG_SQ 3 /* 8 basic blocks: the SQ wraps */
#define LOG_RQ 2
#define WRITES 48
#define LEN    200
#define STRIDE 256

int main(void)
{
    const struct core_cuda_ops *cuda = NULL;
    const struct dp_mem *gpu;
    const char *why;
    struct dp_dev dev;
    struct dp_qp a, b;
    struct dp_info ia, ib;
    struct gk_args args;
    struct gk_result res;
    core_cu_deviceptr uar_dev = 0;
    core_cu_result rc;

    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    gpu = dp_gpu_mem(&why);
    if (gpu == NULL) {
        printf("skipped: no CUDA device (%s)\n", why);
        return EMU_CUDA_SKIP;
    }
    DT_CHECK(core_cuda_get(&cuda) == DOCA_SUCCESS && cuda != NULL);
    dp_open(&dev);
    if (dp_qp_create(&dev, gpu, &a, LOG_CQ, LOG_SQ, LOG_RQ, dp_no_dbr_mode()) != 0 ||
        dp_qp_create(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return 1;
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DT_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0);

    /* The UAR page is plain host memory: mapped for the GPU as the host library maps it. */
    rc = cuda->cuMemHostRegister(a.uar->base_addr, 4096, CORE_CU_MEMHOSTREGISTER_DEVICEMAP);
    DP_CHECK(rc == CORE_CU_SUCCESS, "cuMemHostRegister of the UAR page: CUDA error %d", rc);
    rc = cuda->cuMemHostGetDevicePointer(&uar_dev, a.uar->base_addr, 0);
    DP_CHECK(rc == CORE_CU_SUCCESS, "cuMemHostGetDevicePointer: CUDA error %d", rc);
    if (rc != CORE_CU_SUCCESS)
        return dp_summary("test_devx_gpu_kernel");

    for (uint32_t i = 0; i < WRITES; i++)
        dp_fill(a.buf + i * STRIDE, LEN, (uint8_t)(i * 3 + 1), 0);
    memset(b.buf, 0, WRITES * STRIDE);
    memset(&args, 0, sizeof(args));
    args.sq = a.ring + a.wq_off + ((size_t)64 << a.log_rq);
    args.cq = a.ring;
    args.qp_dbr = (uint32_t *)(void *)(a.ring + a.qp_dbr_off);
    args.cq_dbr = (uint32_t *)(void *)(a.ring + a.cq_dbr_off);
    args.uar = (uint8_t *)(uintptr_t)uar_dev;
    args.log_sq = a.log_sq;
    args.log_cq = a.log_cq;
    args.qpn = a.qpn;
    args.sq_pi = a.sq_pi;
    args.cq_ci = a.cq_ci;
    args.lkey = a.mr->lkey;
    args.rkey = ib.rkey;
    args.laddr = (uintptr_t)a.buf;
    args.raddr = ib.addr;
    args.len = LEN;
    args.stride = STRIDE;
    args.n = WRITES;
    args.no_dbr = a.no_dbr;
    args.timeout_ns = 5000000000ull;
    memset(&res, 0, sizeof(res));
    DP_CHECK(gk_run(&args, &res) == 0, "the kernel ran");
    DP_CHECK(res.timeouts == 0 && res.completed == WRITES,
             "the kernel saw %u of %u CQEs (timed out at write %u, op_own 0x%x)", res.completed,
             WRITES, res.last_counter, res.last_op_own);
    DP_CHECK(res.bad == 0, "%u bad CQEs (last: op_own 0x%x syndrome 0x%x wqe_counter %u)", res.bad,
             res.last_op_own, res.last_syndrome, res.last_counter);
    for (uint32_t i = 0; i < WRITES; i++)
        DP_CHECK(dp_check_bytes(b.buf + i * STRIDE, LEN, (uint8_t)(i * 3 + 1), 0) &&
                         b.buf[i * STRIDE + LEN] == 0,
                 "write %u from the kernel", i);

    DP_CHECK(cuda->cuMemHostUnregister(a.uar->base_addr) == CORE_CU_SUCCESS, "unregister");
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return dp_summary(dp_no_dbr_mode() ? "test_devx_gpu_kernel, no-DBR" : "test_devx_gpu_kernel");
}
