/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, common helpers, with DOCA's names and template
 * parameters: what the GPU can do (DOCA_GPUNETIO_VERBS_HAS_*), fences of a
 * chosen scope, atomics and locks at the scope of a sharing mode, loads and
 * stores of memory the NIC shares, copies, and small arithmetic; over the
 * C data-path core (impl/gdaki_sync.h).
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_COMMON_H
#define DOCA_GPUNETIO_DEV_VERBS_COMMON_H

#include <limits>

#include "doca_gpunetio_verbs_def.h"
#include "impl/gdaki_verbs.h"

/*
 * What the GPU the code is compiled for has, as DOCA names it:
 *   ASYNC_STORE_RELEASE      release stores that complete asynchronously (sm_100);
 *   TMA_COPY                 the bulk copy engine (sm_90);
 *   STORE_RELAXED_MMIO       st.mmio, the store for device registers (CUDA 12.2);
 *   FENCE_ACQUIRE_RELEASE_PTX  one-sided fences, fence.acquire / fence.release
 *                            (CUDA 12.8, sm_90);
 *   STORE_RELEASE_MMIO       doca_gpu_dev_verbs_store_release_mmio. PTX has no
 *                            single release MMIO store; it is a release fence
 *                            then st.mmio, so it is there with STORE_RELAXED_MMIO.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define DOCA_GPUNETIO_VERBS_HAS_ASYNC_STORE_RELEASE 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define DOCA_GPUNETIO_VERBS_HAS_TMA_COPY 1
#endif
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 2)
#define DOCA_GPUNETIO_VERBS_HAS_STORE_RELAXED_MMIO 1
#define DOCA_GPUNETIO_VERBS_HAS_STORE_RELEASE_MMIO 1
#endif
#if (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8)) && \
        defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define DOCA_GPUNETIO_VERBS_HAS_FENCE_ACQUIRE_RELEASE_PTX 1
#endif

/* ---- Fences ---- */

/*
 * Orders earlier stores before later ones for observers in sync_scope
 * (THREAD: none). DOCA's has no default; SYS here is the safe one.
 */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence_release()
{
    gdaki_fence_release(sync_scope);
}

/* Orders earlier loads before later accesses for observers in sync_scope (THREAD: none). */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence_acquire()
{
    gdaki_fence_acquire(sync_scope);
}

/*
 * The acquire after a completion is seen, before the data it completes is
 * read: CTA-scoped when DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA is 1
 * (the default: an NVIDIA NIC writes a CQE after its data), else SYS.
 */
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence_acquire_nvidia_nic()
{
    gdaki_fence_acquire(DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA
                                ? DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA
                                : DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* ---- Atomics and locks at the scope of a sharing mode (EXCLUSIVE: plain accesses) ---- */

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

/*
 * *ptr = max(*ptr, val); returns the old value. Relaxed, or acquire with
 * need_fence_acquire. T: a 4- or 8-byte integer, compared with its sign.
 */
template <typename T, enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode,
          bool need_fence_acquire = false>
__device__ static __forceinline__ T doca_gpu_dev_verbs_atomic_max(T *ptr, T val)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic_max takes 4- or 8-byte integers");
    const bool cta = resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA;
    const bool sign = std::numeric_limits<T>::is_signed;
    T old;

    if (resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        old = *ptr;
        if (val > old)
            *ptr = val;
        return old;
    }
    if (sizeof(T) == 8 && sign)
        old = (T)(cta ? atomicMax_block((long long *)ptr, (long long)val)
                      : atomicMax((long long *)ptr, (long long)val));
    else if (sizeof(T) == 8)
        old = (T)(cta ? atomicMax_block((unsigned long long *)ptr, (unsigned long long)val)
                      : atomicMax((unsigned long long *)ptr, (unsigned long long)val));
    else if (sign)
        old = (T)(cta ? atomicMax_block((int *)ptr, (int)val) : atomicMax((int *)ptr, (int)val));
    else
        old = (T)(cta ? atomicMax_block((unsigned int *)ptr, (unsigned int)val)
                      : atomicMax((unsigned int *)ptr, (unsigned int)val));
    if (need_fence_acquire)
        gdaki_fence_acquire(gdaki_rsm_scope(resource_sharing_mode));
    return old;
}

/* *ptr += val, relaxed; returns the old value. T: a 4- or 8-byte integer. */
template <typename T, enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ T doca_gpu_dev_verbs_atomic_add(T *ptr, T val)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic_add takes 4- or 8-byte integers");
    const bool cta = resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA;
    T old;

    if (resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        old = *ptr;
        *ptr = old + val;
        return old;
    }
    /* Two's complement: the unsigned add is the signed one. */
    if (sizeof(T) == 8)
        old = (T)(cta ? atomicAdd_block((unsigned long long *)ptr, (unsigned long long)val)
                      : atomicAdd((unsigned long long *)ptr, (unsigned long long)val));
    else
        old = (T)(cta ? atomicAdd_block((unsigned int *)ptr, (unsigned int)val)
                      : atomicAdd((unsigned int *)ptr, (unsigned int)val));
    return old;
}

/* Takes a spin lock word (0 free, 1 held); what the previous holder did is seen after. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ void doca_gpu_dev_verbs_lock(int *lock)
{
    if (resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        *lock = 1;
    else
        while (!gdaki_trylock(lock, resource_sharing_mode))
            ;
}

/* Drops the lock; what was done under it is seen by the next holder. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ void doca_gpu_dev_verbs_unlock(int *lock)
{
    if (resource_sharing_mode == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        *lock = 0;
    else
        gdaki_unlock(lock, resource_sharing_mode);
}

/* ---- Loads and stores of memory the NIC or the CPU shares ---- */

/* Relaxed system-scope loads that skip the L1 (a CQE, a word the CPU writes). */
__device__ static __forceinline__ uint8_t doca_gpu_dev_verbs_load_relaxed_sys_global(uint8_t *ptr)
{
    return gdaki_load_relaxed_sys_u8(ptr);
}

__device__ static __forceinline__ uint32_t doca_gpu_dev_verbs_load_relaxed_sys_global(uint32_t *ptr)
{
    return gdaki_load_relaxed_sys_u32(ptr);
}

__device__ static __forceinline__ uint64_t doca_gpu_dev_verbs_load_relaxed_sys_global(uint64_t *ptr)
{
    return gdaki_load_relaxed_sys_u64(ptr);
}

/* A relaxed load at the scope of the sharing mode (a counter the sharing threads move). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ uint64_t doca_gpu_dev_verbs_load_relaxed(uint64_t *ptr)
{
    return gdaki_load_relaxed_u64(ptr, resource_sharing_mode);
}

/*
 * A descriptor field that does not change while kernels run (set at
 * export), through the read-only path. T: 1, 2, 4 or 8 bytes.
 */
template <typename T>
__device__ static __forceinline__ T doca_gpu_dev_verbs_load_const(const T *ptr)
{
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "load_const reads 1, 2, 4 or 8 bytes");
    uint64_t v;
    T r;

    if (sizeof(T) == 8)
        v = gdaki_ro_u64((const uint64_t *)(const void *)ptr);
    else if (sizeof(T) == 4)
        v = gdaki_ro_u32((const uint32_t *)(const void *)ptr);
    else if (sizeof(T) == 2)
        v = gdaki_ro_u16((const uint16_t *)(const void *)ptr);
    else
        v = gdaki_ro_u8((const uint8_t *)(const void *)ptr);
    /* Little-endian: the value's bytes are the low bytes of v. */
    __builtin_memcpy(&r, &v, sizeof(r));
    return r;
}

#ifdef DOCA_GPUNETIO_VERBS_HAS_STORE_RELAXED_MMIO
/* A relaxed store to a device register (a doorbell): order it with a release fence before. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_store_relaxed_mmio(uint64_t *ptr,
                                                                             uint64_t val)
{
    gdaki_store_mmio_u64(ptr, val);
}
#endif

#ifdef DOCA_GPUNETIO_VERBS_HAS_STORE_RELEASE_MMIO
/* Release stores at system scope: a doorbell record (memory), a doorbell register (MMIO). */
__device__ static __forceinline__ void doca_gpu_dev_verbs_store_release_mmio(uint32_t *ptr,
                                                                             uint32_t val)
{
    gdaki_store_release_sys_u32(ptr, val);
}

__device__ static __forceinline__ void doca_gpu_dev_verbs_store_release_mmio(uint64_t *ptr,
                                                                             uint64_t val)
{
    gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_store_mmio_u64(ptr, val);
}
#endif

#ifdef DOCA_GPUNETIO_VERBS_HAS_ASYNC_STORE_RELEASE
/* Asynchronous release stores at system scope: a doorbell record, a doorbell register. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_async_store_release(uint32_t *ptr,
                                                                              uint32_t val)
{
    (void)gdaki_store_async_release_u32(ptr, val);
}

__device__ static __forceinline__ void doca_gpu_dev_verbs_async_store_release(uint64_t *ptr,
                                                                              uint64_t val)
{
    (void)gdaki_store_async_release_u64(ptr, val);
}
#endif

/* ---- Copies ---- */

__device__ static __forceinline__ bool doca_gpu_dev_verbs_isaligned(void *ptr, size_t alignment)
{
    return ((uintptr_t)ptr & (alignment - 1)) == 0;
}

/* Copies bytes with 4-, then 2-, then 1-byte accesses: dst and src 4-byte aligned. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_memcpy_aligned_data(void *dst, void *src,
                                                                              size_t bytes)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;

    for (; bytes >= 4; bytes -= 4, d += 4, s += 4)
        *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
    if (bytes >= 2) {
        *(uint16_t *)(void *)d = *(const uint16_t *)(const void *)s;
        bytes -= 2;
        d += 2;
        s += 2;
    }
    if (bytes)
        *d = *s;
}

/* Copies bytes, each step as wide (8, 4, 2 or 1 bytes) as both pointers' alignment allows. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_memcpy_data(void *dst, void *src,
                                                                      size_t bytes)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;

    while (bytes > 0) {
        const uintptr_t align = (uintptr_t)d | (uintptr_t)s;
        size_t step = 1;

        if (bytes >= 8 && (align & 7) == 0) {
            *(uint64_t *)(void *)d = *(const uint64_t *)(const void *)s;
            step = 8;
        } else if (bytes >= 4 && (align & 3) == 0) {
            *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
            step = 4;
        } else if (bytes >= 2 && (align & 1) == 0) {
            *(uint16_t *)(void *)d = *(const uint16_t *)(const void *)s;
            step = 2;
        } else {
            *d = *s;
        }
        d += step;
        s += step;
        bytes -= step;
    }
}

/* Copies bytes (a multiple of sizeof(T)) one T at a time: dst and src aligned for T. */
template <typename T>
__device__ static __forceinline__ void doca_gpu_dev_verbs_memcpy_inl_aligned_data(T *dst, T *src,
                                                                                  size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(T); i++)
        dst[i] = src[i];
}

/* ---- Small helpers ---- */

__device__ static __forceinline__ unsigned int doca_gpu_dev_verbs_get_lane_id()
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

/* ceil(x / 2^denominator_shift). */
__device__ static __forceinline__ uint64_t
doca_gpu_dev_verbs_div_ceil_aligned_pow2(uint64_t x, unsigned int denominator_shift)
{
    return (x >> denominator_shift) + ((x & ((1ull << denominator_shift) - 1)) != 0);
}

/* The same when the quotient fits 32 bits (denominator_shift below 32). */
__device__ static __forceinline__ uint32_t
doca_gpu_dev_verbs_div_ceil_aligned_pow2_32bits(uint64_t x, int denominator_shift)
{
    return (uint32_t)(x >> denominator_shift) + ((x & ((1ull << denominator_shift) - 1)) != 0);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_COMMON_H */
