/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPUNetIO semaphores, the data-path side (C core, CUDA or CPU thread): an
 * array of items, each a 32-bit status (enum doca_gpu_semaphore_status) and
 * optionally a block of user bytes (the custom info), through which a
 * persistent kernel hands a finished batch to the CPU or to another kernel.
 * The producer writes the info, then the status with system-scope release;
 * the consumer reads the status with system-scope acquire, then the info.
 * The descriptor is made by doca_gpu_semaphore_start (src/gpunetio/semaphore.c).
 */
#ifndef DOCA_GPUNETIO_IMPL_SEM_H
#define DOCA_GPUNETIO_IMPL_SEM_H

#include <stdint.h>

#include "gdaki_sync.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* What a kernel's semaphore handle points at (in GPU memory). */
struct doca_gpu_semaphore_gpu {
    uint32_t *status;     /* num_items status words */
    uint8_t *custom_info; /* num_items blocks of info_nbytes; NULL when there are none */
    uint32_t num_items;
    uint32_t info_nbytes;
};

/* 0, or -1 for an index past the items. */
GDAKI_INLINE int gdaki_sem_get_status(const struct doca_gpu_semaphore_gpu *sem, uint32_t idx,
                                      uint32_t *status)
{
    if (idx >= sem->num_items)
        return -1;
#if defined(__CUDA_ARCH__)
    *status = *(volatile const uint32_t *)&sem->status[idx];
    gdaki_fence_acquire(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
#else
    *status = __atomic_load_n(&sem->status[idx], __ATOMIC_ACQUIRE);
#endif
    return 0;
}

/* The info written before is seen by whoever sees the status. 0, or -1 past the items. */
GDAKI_INLINE int gdaki_sem_set_status(const struct doca_gpu_semaphore_gpu *sem, uint32_t idx,
                                      uint32_t status)
{
    if (idx >= sem->num_items)
        return -1;
#if defined(__CUDA_ARCH__)
    gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    *(volatile uint32_t *)&sem->status[idx] = status;
#else
    __atomic_store_n(&sem->status[idx], status, __ATOMIC_RELEASE);
#endif
    return 0;
}

/* Item idx's info block; NULL past the items or when the semaphore has no info. */
GDAKI_INLINE void *gdaki_sem_custom_info(const struct doca_gpu_semaphore_gpu *sem, uint32_t idx)
{
    if (idx >= sem->num_items || sem->custom_info == NULL)
        return 0;
    return sem->custom_info + (uint64_t)idx * sem->info_nbytes;
}

#endif /* DOCA_GPUNETIO_IMPL_SEM_H */
