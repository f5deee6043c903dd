/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of doca_gpunetio_dev_verbs_common.cuh called as DOCA's
 * headers and kernels call it: explicit template arguments in DOCA's order,
 * defaults left out and given. A signature that is not DOCA's fails the
 * build. Compiled only.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_verbs_common.cuh"

#define RSM_EXCL DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define RSM_CTA  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define RSM_GPU  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU

__global__ void doca_api_common_fences(void)
{
    doca_gpu_dev_verbs_fence_release<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD>();
    doca_gpu_dev_verbs_fence_release<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA>();
    doca_gpu_dev_verbs_fence_release<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>();
    doca_gpu_dev_verbs_fence_release<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>();
    doca_gpu_dev_verbs_fence_acquire<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA>();
    doca_gpu_dev_verbs_fence_acquire<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>();
    doca_gpu_dev_verbs_fence_acquire<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>();
    doca_gpu_dev_verbs_fence_acquire_nvidia_nic();
}

__global__ void doca_api_common_atomics(uint64_t *u64, unsigned long long *ull, uint32_t *u32,
                                        int *i32, long long *i64, int *lock, uint64_t *out)
{
    uint64_t v = 0;

    v += doca_gpu_dev_verbs_atomic_read<uint64_t, RSM_EXCL>(u64);
    v += doca_gpu_dev_verbs_atomic_read<uint64_t, RSM_GPU>(u64);
    v += doca_gpu_dev_verbs_atomic_max<uint64_t, RSM_EXCL>(u64, 5);
    v += doca_gpu_dev_verbs_atomic_max<uint64_t, RSM_CTA, false>(u64, 5);
    v += doca_gpu_dev_verbs_atomic_max<uint64_t, RSM_GPU, true>(u64, 5);
    v += doca_gpu_dev_verbs_atomic_max<unsigned long long, RSM_GPU, true>(ull, 5ull);
    v += doca_gpu_dev_verbs_atomic_max<uint32_t, RSM_GPU>(u32, 5u);
    v += (uint64_t)doca_gpu_dev_verbs_atomic_max<int, RSM_CTA>(i32, -5);
    v += (uint64_t)doca_gpu_dev_verbs_atomic_max<long long, RSM_GPU>(i64, -5ll);
    v += doca_gpu_dev_verbs_atomic_add<uint64_t, RSM_EXCL>(u64, 1);
    v += doca_gpu_dev_verbs_atomic_add<uint64_t, RSM_CTA>(u64, 1);
    v += doca_gpu_dev_verbs_atomic_add<uint64_t, RSM_GPU>(u64, 1);
    v += doca_gpu_dev_verbs_atomic_add<unsigned long long, RSM_GPU>(ull, 1ull);
    v += (uint64_t)doca_gpu_dev_verbs_atomic_add<int, RSM_GPU>(i32, -1);
    doca_gpu_dev_verbs_lock<RSM_EXCL>(lock);
    doca_gpu_dev_verbs_unlock<RSM_EXCL>(lock);
    doca_gpu_dev_verbs_lock<RSM_CTA>(lock);
    doca_gpu_dev_verbs_unlock<RSM_CTA>(lock);
    doca_gpu_dev_verbs_lock<RSM_GPU>(lock);
    doca_gpu_dev_verbs_unlock<RSM_GPU>(lock);
    *out = v;
}

__global__ void doca_api_common_loads_stores(uint8_t *u8, uint32_t *u32, uint64_t *u64,
                                             uint16_t *u16, int *i32, uintptr_t *ptr, uint64_t *out)
{
    uint64_t v = 0;

    v += doca_gpu_dev_verbs_load_relaxed_sys_global(u8);
    v += doca_gpu_dev_verbs_load_relaxed_sys_global(u32);
    v += doca_gpu_dev_verbs_load_relaxed_sys_global(u64);
    v += doca_gpu_dev_verbs_load_relaxed<RSM_EXCL>(u64);
    v += doca_gpu_dev_verbs_load_relaxed<RSM_CTA>(u64);
    v += doca_gpu_dev_verbs_load_relaxed<RSM_GPU>(u64);
    /* load_const as DOCA's headers use it on descriptor fields of every width. */
    v += doca_gpu_dev_verbs_load_const(u8);
    v += doca_gpu_dev_verbs_load_const(u16);
    v += doca_gpu_dev_verbs_load_const(u32);
    v += doca_gpu_dev_verbs_load_const(u64);
    v += (uint64_t)doca_gpu_dev_verbs_load_const(i32);
    v += doca_gpu_dev_verbs_load_const(ptr);
#ifdef DOCA_GPUNETIO_VERBS_HAS_STORE_RELAXED_MMIO
    doca_gpu_dev_verbs_store_relaxed_mmio(u64, v);
#endif
#ifdef DOCA_GPUNETIO_VERBS_HAS_STORE_RELEASE_MMIO
    doca_gpu_dev_verbs_store_release_mmio((__be32 *)u32, (__be32)v);
    doca_gpu_dev_verbs_store_release_mmio(u64, v);
#endif
#ifdef DOCA_GPUNETIO_VERBS_HAS_ASYNC_STORE_RELEASE
    doca_gpu_dev_verbs_async_store_release(u32, (uint32_t)v);
    doca_gpu_dev_verbs_async_store_release(u64, v);
#endif
    *out = v;
}

__global__ void doca_api_common_copies(uint8_t *dst, uint8_t *src, uint64_t *dst64, uint64_t *src64,
                                       uint64_t *out)
{
    uint64_t v = 0;

    v += doca_gpu_dev_verbs_isaligned(dst, 8);
    doca_gpu_dev_verbs_memcpy_aligned_data(dst, src, 7);
    doca_gpu_dev_verbs_memcpy_data(dst + 1, src + 3, 13);
    doca_gpu_dev_verbs_memcpy_inl_aligned_data<uint64_t>(dst64, src64, 16);
    v += doca_gpu_dev_verbs_get_lane_id();
    v += doca_gpu_dev_verbs_bswap16(0x1234);
    v += doca_gpu_dev_verbs_bswap32(0x12345678u);
    v += doca_gpu_dev_verbs_bswap64(0x1234567890abcdefull);
    v += doca_gpu_dev_verbs_query_globaltimer();
    v += doca_gpu_dev_verbs_div_ceil_aligned_pow2(v, DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT);
    v += doca_gpu_dev_verbs_div_ceil_aligned_pow2_32bits(
            v, DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT);
    *out = v;
}

/* What the capability macros promise for the architecture compiled. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(DOCA_GPUNETIO_VERBS_HAS_TMA_COPY)
#error "sm_90 has the copy engine"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000 && \
        defined(DOCA_GPUNETIO_VERBS_HAS_ASYNC_STORE_RELEASE)
#error "asynchronous release stores are sm_100's"
#endif
