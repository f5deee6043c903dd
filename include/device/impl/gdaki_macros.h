/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few macros the C data-path core is written with: the function
 * qualifier, the ThreadSanitizer switch and a static assertion. Deliberately
 * without an include guard: every core header includes it, and every public
 * header ends with gdaki_macros_end.h, which removes them again, so that a
 * user's code sees none of them.
 */
#ifndef GDAKI_INLINE
#if defined(__CUDACC__)
#define GDAKI_INLINE static __host__ __device__ __forceinline__
#else
#define GDAKI_INLINE static inline __attribute__((always_inline))
#endif

/*
 * GDAKI_TSAN: host code built with ThreadSanitizer (DGN_SANITIZE=thread).
 * TSan does not model standalone fences (gdaki_fence), which is what orders
 * the data path's volatile loads and stores of memory shared with the NIC:
 * under TSan those loads acquire and those stores release (gdaki_sync.h), so
 * that it sees the ordering the fences give. Other builds are unchanged.
 */
#if !defined(__CUDA_ARCH__) && defined(__SANITIZE_THREAD__)
#define GDAKI_TSAN 1
#elif !defined(__CUDA_ARCH__) && defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GDAKI_TSAN 1
#endif
#endif
#ifndef GDAKI_TSAN
#define GDAKI_TSAN 0
#endif

/* Compile-time layout checks usable from C11, C++ and CUDA. */
#ifdef __cplusplus
#define GDAKI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define GDAKI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#endif /* GDAKI_INLINE */
