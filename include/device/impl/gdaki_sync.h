/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fences, atomics and ordered loads/stores of the data-path core, for the
 * two processors that run it: a CUDA thread (PTX memory model, scopes CTA,
 * GPU and system) and a CPU thread (C11 memory model; every scope is the
 * whole system). The core never touches memory shared with the NIC or with
 * other threads except through these.
 */
#ifndef DOCA_GPUNETIO_IMPL_SYNC_H
#define DOCA_GPUNETIO_IMPL_SYNC_H

#include <stdint.h>
#if !defined(__CUDA_ARCH__)
#include <sched.h>
#endif

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_platform.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

#if defined(__CUDA_ARCH__)
#define GDAKI_ON_GPU 1
#else
#define GDAKI_ON_GPU 0
#endif

/*
 * One round of a spin wait. A CPU thread yields its core: the NIC may be a
 * software one (softmlx5) whose event loop needs it to make the awaited
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

/*
 * Whether this nvcc has the release-only fence (PTX 8.6, CUDA 12.8). Unlike
 * fence.acq_rel it has no acquire half, so it does not invalidate the L1:
 * the descriptor loads after it stay cache hits.
 */
#if defined(__CUDACC_VER_MAJOR__) && \
        (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define GDAKI_HAVE_FENCE_RELEASE 1
#else
#define GDAKI_HAVE_FENCE_RELEASE 0
#endif

/*
 * A release fence: every store before it is seen, by observers within the
 * scope, before any store after it. What a WQE needs before its doorbell
 * record, and the record before the doorbell (gdaki_sq_ring). On a CPU
 * thread it is a full fence: the doorbell may be a write-combining mapping.
 */
GDAKI_INLINE void gdaki_fence_release(enum doca_gpu_dev_verbs_sync_scope scope)
{
#if GDAKI_ON_GPU && GDAKI_HAVE_FENCE_RELEASE
    if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)
        asm volatile("fence.release.sys;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        asm volatile("fence.release.gpu;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA)
        asm volatile("fence.release.cta;" ::: "memory");
#elif GDAKI_ON_GPU
    if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)
        asm volatile("fence.acq_rel.sys;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA)
        asm volatile("fence.acq_rel.cta;" ::: "memory");
#else
    gdaki_fence(scope);
#endif
}

/*
 * An acquire fence: every load after it sees what was seen before it, for
 * observers within the scope; what a thread needs after reading a flag
 * another agent released (a lock, a ready index). THREAD is no fence.
 */
GDAKI_INLINE void gdaki_fence_acquire(enum doca_gpu_dev_verbs_sync_scope scope)
{
#if GDAKI_ON_GPU && GDAKI_HAVE_FENCE_RELEASE
    if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)
        asm volatile("fence.acquire.sys;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        asm volatile("fence.acquire.gpu;" ::: "memory");
    else if (scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA)
        asm volatile("fence.acquire.cta;" ::: "memory");
#elif GDAKI_ON_GPU
    gdaki_fence_release(scope); /* fence.acq_rel: both halves */
#else
    if (scope != DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD)
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

/* The scope the threads sharing a resource in mode rsm synchronise at (EXCLUSIVE: none). */
GDAKI_INLINE enum doca_gpu_dev_verbs_sync_scope
gdaki_rsm_scope(enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA;
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
    return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD;
}

/*
 * Loads, stores and locks at the scope of a sharing mode: the threads that
 * share a QP (one CTA, or the whole GPU) synchronise through its counters at
 * that scope and no wider. EXCLUSIVE: one thread, plain accesses.
 */
#if GDAKI_ON_GPU
#define GDAKI_RSM_ASM(rsm, cta_insn, gpu_insn, ...)                 \
    do {                                                            \
        if ((rsm) == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA) \
            asm volatile(cta_insn __VA_ARGS__);                     \
        else                                                        \
            asm volatile(gpu_insn __VA_ARGS__);                     \
    } while (0)
#endif

/* A load later accesses cannot pass (acquire), of any memory: a ready index may be shared. */
GDAKI_INLINE uint64_t gdaki_load_acquire_u64(const uint64_t *p,
                                             enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        return *p;
#if GDAKI_ON_GPU
    uint64_t v;

    GDAKI_RSM_ASM(rsm, "ld.acquire.cta.u64 %0, [%1];", "ld.acquire.gpu.u64 %0, [%1];",
                  : "=l"(v)
                  : "l"(p)
                  : "memory");
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

/* A store that earlier accesses cannot pass (release). */
GDAKI_INLINE void gdaki_store_release_u64(uint64_t *p, uint64_t v,
                                          enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        *p = v;
        return;
    }
#if GDAKI_ON_GPU
    GDAKI_RSM_ASM(rsm, "st.release.cta.u64 [%0], %1;", "st.release.gpu.u64 [%0], %1;", ::"l"(p),
                  "l"(v)
                  : "memory");
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/* A relaxed load of a counter other threads of the sharing mode move. */
GDAKI_INLINE uint64_t gdaki_load_relaxed_u64(const uint64_t *p,
                                             enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        return *p;
#if GDAKI_ON_GPU
    uint64_t v;

    GDAKI_RSM_ASM(rsm, "ld.relaxed.cta.u64 %0, [%1];", "ld.relaxed.gpu.u64 %0, [%1];",
                  : "=l"(v)
                  : "l"(p)
                  : "memory");
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

/*
 * 64-bit compare-and-swap at the scope of a sharing mode; returns the old
 * value. Relaxed on the GPU (callers fence); acquire-release on a CPU
 * thread, which orders the same and is what ThreadSanitizer sees.
 */
GDAKI_INLINE uint64_t gdaki_atomic_cas_u64(uint64_t *p, uint64_t expected, uint64_t desired,
                                           enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        uint64_t old = *p;

        if (old == expected)
            *p = desired;
        return old;
    }
#if GDAKI_ON_GPU
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA)
        return atomicCAS_block((unsigned long long *)p, expected, desired);
    return atomicCAS((unsigned long long *)p, expected, desired);
#else
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return expected;
#endif
}

/*
 * Tries once to take a spin lock word (0 free, 1 held), with acquire order:
 * what the previous holder did under the lock is seen once it is taken.
 */
GDAKI_INLINE int gdaki_trylock(int *lock, enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
#if GDAKI_ON_GPU
    uint32_t old;

    GDAKI_RSM_ASM(rsm, "atom.acquire.cta.cas.b32 %0, [%1], 0, 1;",
                  "atom.acquire.gpu.cas.b32 %0, [%1], 0, 1;",
                  : "=r"(old)
                  : "l"(lock)
                  : "memory");
    return old == 0;
#else
    int expected = 0;

    (void)rsm;
    return __atomic_compare_exchange_n(lock, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
#endif
}

/* Drops the lock with release order: everything done under it is seen by the next holder. */
GDAKI_INLINE void gdaki_unlock(int *lock, enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
#if GDAKI_ON_GPU
    GDAKI_RSM_ASM(rsm, "st.release.cta.u32 [%0], 0;", "st.release.gpu.u32 [%0], 0;", ::"l"(lock)
                  : "memory");
#else
    (void)rsm;
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
#endif
}

/*
 * Loads of descriptor fields that stay the same while kernels run (set at
 * export, before any launch). On the GPU they are read-only-path loads
 * (ld.global.nc) written as plain asm without volatile or memory clobber:
 * the compiler may treat them as values of their address alone, so it keeps
 * them in registers across fences and hoists them out of a caller's loop
 * over the same QP. A loaded value would go stale only if the descriptor
 * changed under a running kernel, which nothing does.
 */
GDAKI_INLINE uint32_t gdaki_ro_u32(const uint32_t *p)
{
#if GDAKI_ON_GPU
    uint32_t v;

    asm("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}

GDAKI_INLINE uint64_t gdaki_ro_u64(const uint64_t *p)
{
#if GDAKI_ON_GPU
    uint64_t v;

    asm("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}

GDAKI_INLINE uint16_t gdaki_ro_u16(const uint16_t *p)
{
#if GDAKI_ON_GPU
    uint16_t v;

    asm("ld.global.nc.u16 %0, [%1];" : "=h"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}

GDAKI_INLINE uint8_t gdaki_ro_u8(const uint8_t *p)
{
#if GDAKI_ON_GPU
    uint16_t v;

    asm("ld.global.nc.u8 %0, [%1];" : "=h"(v) : "l"(p));
    return (uint8_t)v;
#else
    return *p;
#endif
}

GDAKI_INLINE void *gdaki_ro_ptr(void *const *p)
{
    return (void *)(uintptr_t)gdaki_ro_u64((const uint64_t *)(const void *)p);
}

/*
 * A load that is re-done every time (memory another agent writes: CQEs, the
 * proxy's index). Under ThreadSanitizer an acquire load: the ordering the
 * caller's gdaki_fence gives, in a form TSan sees (gdaki_platform.h).
 */
GDAKI_INLINE uint32_t gdaki_load_volatile_u32(const void *p)
{
#if GDAKI_TSAN
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
#else
    return *(const volatile uint32_t *)p;
#endif
}

GDAKI_INLINE uint64_t gdaki_load_volatile_u64(const void *p)
{
#if GDAKI_TSAN
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
#else
    return *(const volatile uint64_t *)p;
#endif
}

/*
 * Stores that reach memory (or the device register) as one access each, in
 * program order. Under ThreadSanitizer release stores, as the loads above.
 */
GDAKI_INLINE void gdaki_store_volatile_u32(void *p, uint32_t v)
{
#if GDAKI_TSAN
    __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE);
#else
    *(volatile uint32_t *)p = v;
#endif
}

GDAKI_INLINE void gdaki_store_volatile_u64(void *p, uint64_t v)
{
#if GDAKI_TSAN
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
#else
    *(volatile uint64_t *)p = v;
#endif
}

/*
 * Relaxed loads at system scope of memory another agent writes (a CQE, a
 * word the CPU updates), not kept in the L1: each one reads the L2 or
 * memory again.
 */
GDAKI_INLINE uint8_t gdaki_load_relaxed_sys_u8(const uint8_t *p)
{
#if GDAKI_ON_GPU
    uint16_t v;

    asm volatile("ld.relaxed.sys.global.L1::no_allocate.b8 %0, [%1];" : "=h"(v) : "l"(p));
    return (uint8_t)v;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

GDAKI_INLINE uint32_t gdaki_load_relaxed_sys_u32(const uint32_t *p)
{
#if GDAKI_ON_GPU
    uint32_t v;

    asm volatile("ld.relaxed.sys.global.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

GDAKI_INLINE uint64_t gdaki_load_relaxed_sys_u64(const uint64_t *p)
{
#if GDAKI_ON_GPU
    uint64_t v;

    asm volatile("ld.relaxed.sys.global.L1::no_allocate.b64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

/*
 * Whether this nvcc has st.mmio (PTX 8.2, CUDA 12.2): the store the PTX
 * memory model defines for device registers, performed exactly once.
 */
#if defined(__CUDACC_VER_MAJOR__) && \
        (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 2))
#define GDAKI_HAVE_STORE_MMIO 1
#else
#define GDAKI_HAVE_STORE_MMIO 0
#endif

/* A relaxed store to a device register (a doorbell). Order it with a release fence before. */
GDAKI_INLINE void gdaki_store_mmio_u64(void *p, uint64_t v)
{
#if GDAKI_ON_GPU && GDAKI_HAVE_STORE_MMIO
    asm volatile("st.mmio.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
    gdaki_store_volatile_u64(p, v);
#endif
}

/* A release store at system scope (a doorbell record, which is memory). */
GDAKI_INLINE void gdaki_store_release_sys_u32(uint32_t *p, uint32_t v)
{
#if GDAKI_ON_GPU
    asm volatile("st.release.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/*
 * Release stores at system scope that complete asynchronously (st.async,
 * sm_100 on): the release fence is part of the store, and the thread does
 * not wait for it. Return 0, storing nothing, where the GPU has none: the
 * caller then fences and stores as usual.
 */
GDAKI_INLINE int gdaki_store_async_release_u32(uint32_t *p, uint32_t v)
{
#if GDAKI_ON_GPU && __CUDA_ARCH__ >= 1000
    asm volatile("st.async.release.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    return 1;
#else
    (void)p;
    (void)v;
    return 0;
#endif
}

GDAKI_INLINE int gdaki_store_async_release_u64(uint64_t *p, uint64_t v)
{
#if GDAKI_ON_GPU && __CUDA_ARCH__ >= 1000
    asm volatile("st.async.mmio.release.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
    return 1;
#else
    (void)p;
    (void)v;
    return 0;
#endif
}

/*
 * Pushes a CPU thread's stores to a write-combining mapping (the UAR's
 * doorbell and BlueFlame registers) out to the device now, instead of when
 * the write-combining buffer is next evicted: rdma-core's
 * mmio_flush_writes(). Nothing on the GPU, whose stores to the UAR are not
 * write-combined.
 */
GDAKI_INLINE void gdaki_mmio_flush(void)
{
#if !GDAKI_ON_GPU && (defined(__x86_64__) || defined(__i386__))
    __asm__ __volatile__("sfence" ::: "memory");
#elif !GDAKI_ON_GPU && defined(__aarch64__)
    __asm__ __volatile__("dsb st" ::: "memory");
#elif !GDAKI_ON_GPU
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* One 16-byte WQE segment, streamed (evict first: the GPU does not read it again). */
GDAKI_INLINE void gdaki_store_wqe_seg(void *dst, const void *src)
{
#if GDAKI_ON_GPU
    const uint64_t *s = (const uint64_t *)src;

    asm volatile("st.weak.cs.v2.b64 [%0], {%1, %2};" ::"l"(dst), "l"(s[0]), "l"(s[1]) : "memory");
#else
    __builtin_memcpy(dst, src, 16);
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

#undef GDAKI_RSM_ASM
#undef GDAKI_HAVE_FENCE_RELEASE
#undef GDAKI_HAVE_STORE_MMIO
#undef GDAKI_ON_GPU

#endif /* DOCA_GPUNETIO_IMPL_SYNC_H */
