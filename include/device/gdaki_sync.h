/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fences, atomics and ordered loads/stores of the data-path core, for the
 * two processors that run it: a CUDA thread (PTX memory model, scopes CTA,
 * GPU and system) and a CPU thread (C11 memory model; every scope is the
 * whole system). The core never touches memory shared with the NIC or with
 * other threads except through these.
 */
#ifndef GDAKI_SYNC_H
#define GDAKI_SYNC_H

#include <stdint.h>
#if !defined(__CUDA_ARCH__)
#include <sched.h>
#endif

#include "doca_gpunetio_verbs_def.h"
#include "gdaki_platform.h"

#if defined(__CUDA_ARCH__)
#define GDAKI_ON_GPU 1
#else
#define GDAKI_ON_GPU 0
#endif

/*
 * One round of a spin wait. A CPU thread yields its core: the NIC may be a
 * software one (softmlx5) whose progress thread needs it to make the awaited
 * thing happen.
 */
GDAKI_INLINE void gdaki_spin_pause(void)
{
#if !GDAKI_ON_GPU
    sched_yield();
#endif
}

/*
 * A fence of the given scope: every memory access before it is ordered
 * before every access after it, for observers within the scope. SYS is the
 * one the NIC (and a CPU proxy) needs; THREAD is no fence at all.
 */
GDAKI_INLINE void gdaki_fence(enum doca_gpu_dev_verbs_sync_scope scope)
{
#if GDAKI_ON_GPU
    if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)
        __threadfence_system();
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        __threadfence();
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA)
        __threadfence_block();
#else
    if (scope != DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Relaxed atomic add of a 64-bit counter, at the scope of a sharing mode; returns the old value. */
GDAKI_INLINE uint64_t gdaki_atomic_add_u64(uint64_t *p, uint64_t v,
                                           enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        uint64_t old = *p;

        *p = old + v;
        return old;
    }
#if GDAKI_ON_GPU
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA)
        return atomicAdd_block((unsigned long long *)p, (unsigned long long)v);
    return atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* 32-bit compare-and-swap (relaxed, GPU or system scope); returns the old value. */
GDAKI_INLINE uint32_t gdaki_atomic_cas_u32(uint32_t *p, uint32_t expected, uint32_t desired)
{
#if GDAKI_ON_GPU
    return atomicCAS((unsigned int *)p, expected, desired);
#else
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected;
#endif
}

/* A load that later accesses cannot pass (acquire), at GPU scope on the GPU. */
GDAKI_INLINE uint64_t gdaki_load_acquire_u64(const uint64_t *p)
{
#if GDAKI_ON_GPU
    uint64_t v;

    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/* A store that earlier accesses cannot pass (release), at GPU scope on the GPU. */
GDAKI_INLINE void gdaki_store_release_u64(uint64_t *p, uint64_t v)
{
#if GDAKI_ON_GPU
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/* A load that is re-done every time (memory another agent writes: CQEs, the proxy's index). */
GDAKI_INLINE uint32_t gdaki_load_volatile_u32(const void *p)
{
    return *(const volatile uint32_t *)p;
}

GDAKI_INLINE uint64_t gdaki_load_volatile_u64(const void *p)
{
    return *(const volatile uint64_t *)p;
}

/* Stores that reach memory (or the device register) as one access each, in program order. */
GDAKI_INLINE void gdaki_store_volatile_u32(void *p, uint32_t v)
{
    *(volatile uint32_t *)p = v;
}

GDAKI_INLINE void gdaki_store_volatile_u64(void *p, uint64_t v)
{
    *(volatile uint64_t *)p = v;
}

/* Takes / drops a spin lock word (0 free, 1 held) with acquire / release ordering. */
GDAKI_INLINE void gdaki_lock(uint32_t *lock)
{
    while (gdaki_atomic_cas_u32(lock, 0, 1) != 0)
        gdaki_spin_pause();
    /* Acquire: what the previous holder did under the lock is seen after this point. */
    gdaki_fence(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
}

GDAKI_INLINE void gdaki_unlock(uint32_t *lock)
{
    /* Release: everything done under the lock is seen by the next holder. */
    gdaki_fence(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
#if GDAKI_ON_GPU
    atomicExch((unsigned int *)lock, 0u);
#else
    __atomic_store_n(lock, 0u, __ATOMIC_RELEASE);
#endif
}

/* Copies one 64-byte WQE built in registers to its ring slot (16-byte stores on the GPU). */
GDAKI_INLINE void gdaki_store_wqe(void *dst, const struct doca_gpu_dev_verbs_wqe *src)
{
#if GDAKI_ON_GPU
    const uint4 *s = (const uint4 *)(const void *)src;
    uint4 *d = (uint4 *)dst;

    d[0] = s[0];
    d[1] = s[1];
    d[2] = s[2];
    d[3] = s[3];
#else
    __builtin_memcpy(dst, src, sizeof(*src));
#endif
}

#endif /* GDAKI_SYNC_H */
