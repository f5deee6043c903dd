/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, common helpers: fences of a chosen scope, the
 * lane id, byte swaps and the GPU timer, with DOCA's names and template
 * parameters, over the C data-path core (gdaki_*.h).
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_COMMON_CUH
#define DOCA_GPUNETIO_DEV_VERBS_COMMON_CUH

#include "doca_gpunetio_verbs_def.h"
#include "impl/gdaki_verbs.h"

/* Orders earlier stores before later ones for observers in sync_scope (THREAD: none). */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence_release()
{
    gdaki_fence_release(sync_scope);
}

/* Orders earlier accesses before later ones for observers in sync_scope (a full fence). */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence_acquire()
{
    gdaki_fence(sync_scope);
}

/*
 * A relaxed read of a counter (the QP's producer index, say) that other
 * threads of the sharing mode may be changing: a volatile load, a plain one
 * when the thread owns the resource.
 */
template <typename T, enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ T doca_gpu_dev_verbs_atomic_read(T *ptr)
{
    if (resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        return *ptr;
    return READ_ONCE(*ptr);
}

__device__ static __forceinline__ uint32_t doca_gpu_dev_verbs_get_lane_id()
{
    return gdaki_lane_id();
}

__device__ static __forceinline__ uint16_t doca_gpu_dev_verbs_bswap16(uint16_t v)
{
    return gdaki_bswap16(v);
}

__device__ static __forceinline__ uint32_t doca_gpu_dev_verbs_bswap32(uint32_t v)
{
    return gdaki_bswap32(v);
}

__device__ static __forceinline__ uint64_t doca_gpu_dev_verbs_bswap64(uint64_t v)
{
    return gdaki_bswap64(v);
}

/* The GPU's global nanosecond timer. */
__device__ static __forceinline__ uint64_t doca_gpu_dev_verbs_query_globaltimer()
{
    uint64_t t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_COMMON_CUH */
