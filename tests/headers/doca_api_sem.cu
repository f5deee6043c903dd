/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The semaphore device calls of doca_gpunetio_dev_sem.cuh as DOCA's GPU
 * packet-processing kernels call them: a block's thread 0 waits for a free
 * item, writes its custom info, marks it READY, and stops on EXIT. A
 * signature that is not DOCA's fails the build. Compiled only.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_sem.cuh"

struct doca_api_sem_stats {
    uint32_t packets;
    uint64_t bytes;
};

__global__ void doca_api_sem_handoff(struct doca_gpu_semaphore_gpu *sem, uint32_t items,
                                     uint32_t *exit_cond)
{
    enum doca_gpu_semaphore_status status;
    struct doca_api_sem_stats *stats;
    doca_error_t ret;

    for (uint32_t idx = 0; threadIdx.x == 0 && *(volatile uint32_t *)exit_cond == 0;
         idx = (idx + 1) % items) {
        ret = doca_gpu_dev_semaphore_get_status(sem, idx, &status);
        if (ret != DOCA_SUCCESS || status == DOCA_GPU_SEMAPHORE_STATUS_EXIT)
            break;
        if (status != DOCA_GPU_SEMAPHORE_STATUS_FREE)
            continue;
        ret = doca_gpu_dev_semaphore_get_custom_info_addr(sem, idx, (void **)&stats);
        if (ret != DOCA_SUCCESS)
            break;
        stats->packets = 1;
        stats->bytes = 64;
        doca_gpu_dev_semaphore_set_status(sem, idx, DOCA_GPU_SEMAPHORE_STATUS_READY);
    }
}
