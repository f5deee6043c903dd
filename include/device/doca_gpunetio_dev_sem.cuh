/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, semaphores, with DOCA's names: a kernel reads
 * and sets an item's status (system-scope acquire and release, so that the
 * custom info written before a status is seen with it, by the CPU too) and
 * finds an item's custom info. Each returns DOCA_ERROR_INVALID_VALUE for an
 * index past the items (and get_custom_info_addr for a semaphore made
 * without custom info). Over the C core (impl/gdaki_sem.h).
 */
#ifndef DOCA_GPUNETIO_DEV_SEM_CUH
#define DOCA_GPUNETIO_DEV_SEM_CUH

#include "../doca_error.h"
#include "../doca_gpunetio_semaphore.h"
#include "impl/gdaki_sem.h"

__device__ static __forceinline__ doca_error_t
doca_gpu_dev_semaphore_get_status(struct doca_gpu_semaphore_gpu *semaphore_gpu, uint32_t idx,
                                  enum doca_gpu_semaphore_status *status)
{
    uint32_t s;

    if (status == nullptr || gdaki_sem_get_status(semaphore_gpu, idx, &s) != 0)
        return DOCA_ERROR_INVALID_VALUE;
    *status = (enum doca_gpu_semaphore_status)s;
    return DOCA_SUCCESS;
}

__device__ static __forceinline__ doca_error_t
doca_gpu_dev_semaphore_set_status(struct doca_gpu_semaphore_gpu *semaphore_gpu, uint32_t idx,
                                  enum doca_gpu_semaphore_status status)
{
    return gdaki_sem_set_status(semaphore_gpu, idx, (uint32_t)status) == 0
                   ? DOCA_SUCCESS
                   : DOCA_ERROR_INVALID_VALUE;
}

__device__ static __forceinline__ doca_error_t doca_gpu_dev_semaphore_get_custom_info_addr(
        struct doca_gpu_semaphore_gpu *semaphore_gpu, uint32_t idx, void **custom_info)
{
    void *p = gdaki_sem_custom_info(semaphore_gpu, idx);

    if (custom_info == nullptr || p == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    *custom_info = p;
    return DOCA_SUCCESS;
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_SEM_CUH */
