/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lets one C data-path core compile both as CUDA device code and as
 * host C: the big-endian types and byte-order helpers (the qualifier
 * macros are in gdaki_macros.h). No host-only header
 * (rdma-core, cuda.h) may be included from the device headers.
 */
#ifndef DOCA_GPUNETIO_IMPL_PLATFORM_H
#define DOCA_GPUNETIO_IMPL_PLATFORM_H

#include <stdint.h>

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

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
GDAKI_INLINE uint16_t gdaki_htobe16(uint16_t v)
{
    return gdaki_bswap16(v);
}

GDAKI_INLINE uint32_t gdaki_htobe32(uint32_t v)
{
    return gdaki_bswap32(v);
}

GDAKI_INLINE uint64_t gdaki_htobe64(uint64_t v)
{
    return gdaki_bswap64(v);
}

GDAKI_INLINE uint16_t gdaki_be16toh(uint16_t v)
{
    return gdaki_bswap16(v);
}

GDAKI_INLINE uint32_t gdaki_be32toh(uint32_t v)
{
    return gdaki_bswap32(v);
}

GDAKI_INLINE uint64_t gdaki_be64toh(uint64_t v)
{
    return gdaki_bswap64(v);
}

#endif /* DOCA_GPUNETIO_IMPL_PLATFORM_H */
