/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DevX data path of test_devx_datapath with the rings in GPU memory: each
 * QP's CQE ring, work queue and doorbell records are in a umem registered on
 * cuMemAlloc'd memory. The test writes WQEs, receive WQEs and doorbell
 * records with cuMemcpyHtoD and reads CQEs with cuMemcpyDtoH (op_own first,
 * then the whole entry); softmlx5 reaches the same memory through the CUDA
 * driver. Two QPs in one process; with SOFTMLX5_NO_DBR=1 the requester's
 * send queue is in no-DBR mode. Skipped (77) without a CUDA device.
 */
#include <signal.h>
#include <unistd.h>

#include "devx_dp.h"
#include "emu_cuda_test.h"

#define LOG_CQ 2 /* 4 CQEs */
#define LOG_SQ 3 /* 8 basic blocks */
#define LOG_RQ 2 /* 4 receive WQEs */

int main(void)
{
    const struct core_cuda_ops *cuda = NULL;
    const struct dp_mem *gpu;
    const char *why;
    struct dp_dev dev;
    struct dp_qp a, b;
    struct dp_info ia, ib;
    struct dp_peer peer = {.local = &b, .sock = -1};
    unsigned int type = 0;

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
        dp_qp_create(&dev, gpu, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return 1;
    /* The rings are device memory, not host memory the GPU can see. */
    DP_CHECK(cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                         (core_cu_deviceptr)(uintptr_t)a.ring) == CORE_CU_SUCCESS &&
                     type == CORE_CU_MEMORYTYPE_DEVICE,
             "the ring at %p is not GPU memory (type %u)", (void *)a.ring, type);
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DT_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0);
    dp_suite(&a, &peer, &ib);
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return dp_summary(dp_no_dbr_mode() ? "test_devx_gpu_rings, no-DBR" : "test_devx_gpu_rings");
}
