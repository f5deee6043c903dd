/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lets one C data-path core compile both as CUDA device code and as
 * host C: the function qualifier and byte-order helpers. No host-only header
 * (rdma-core, cuda.h) may be included from the device headers.
 */
#ifndef GDAKI_PLATFORM_H
#define GDAKI_PLATFORM_H

#include <stdint.h>

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

/* Big-endian (wire and PRM) values. The types document byte order; they do not enforce it. */
typedef uint16_t gdaki_be16_t;
typedef uint32_t gdaki_be32_t;
typedef uint64_t gdaki_be64_t;

GDAKI_INLINE uint16_t gdaki_bswap16(uint16_t v)
{
    return (uint16_t)((v >> 8) | (v << 8));
}

GDAKI_INLINE uint32_t gdaki_bswap32(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(v, 0, 0x0123);
#else
    return __builtin_bswap32(v);
#endif
}

GDAKI_INLINE uint64_t gdaki_bswap64(uint64_t v)
{
#if defined(__CUDA_ARCH__)
    uint32_t lo = (uint32_t)v;
    uint32_t hi = (uint32_t)(v >> 32);
    return ((uint64_t)__byte_perm(lo, 0, 0x0123) << 32) | __byte_perm(hi, 0, 0x0123);
#else
    return __builtin_bswap64(v);
#endif
}

/* Every supported host and GPU is little-endian. */
#define gdaki_htobe16(v) gdaki_bswap16(v)
#define gdaki_htobe32(v) gdaki_bswap32(v)
#define gdaki_htobe64(v) gdaki_bswap64(v)
#define gdaki_be16toh(v) gdaki_bswap16(v)
#define gdaki_be32toh(v) gdaki_bswap32(v)
#define gdaki_be64toh(v) gdaki_bswap64(v)

#endif /* GDAKI_PLATFORM_H */
