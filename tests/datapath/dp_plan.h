/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the data-path tests do and expect: where every operation lands in
 * the responder's buffer, the byte patterns, and the values the remote
 * atomics must leave. Shared by the requester's workloads (dp_ops.h, run by
 * CPU threads or CUDA kernels), the responder's checks and the requester's
 * checks of returned values (dp_harness.c). Compiles as C and CUDA.
 */
#ifndef DP_PLAN_H
#define DP_PLAN_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"
#include "gdaki_platform.h"
/* GDAKI_INLINE; last, as the public header above removes it at its end. */
#include "gdaki_macros.h"

#define DP_BUF_SIZE (4u << 20) /* each side's registered buffer */

/* Puts of these sizes (0 is a NOP), each in its own 128 KiB region. */
#define DP_PUT_SIZES             \
    {                            \
        0, 1, 7, 64, 4096, 65539 \
    }
#define DP_NPUTS       6
#define DP_PUT_OFF(i)  ((uint64_t)(i)*0x20000u)
#define DP_P_OFF       0xc0000u /* p(): u8 at +0, u16 at +8, u32 at +16, u64 at +24 */
#define DP_PSIG_OFF    0xc0020u /* p_signal()'s u32 */
#define DP_PUTSIG_OFF  0xc0100u /* put_signal()'s 256 bytes */
#define DP_PUTSIG_LEN  256u
#define DP_SIG_OFF     0xc1000u /* the 8-byte signal word (big-endian), starts at 0 */
#define DP_GET_OFF     0xc2000u /* 1000 bytes the responder fills for get() */
#define DP_GET_LEN     1000u
#define DP_A32_OFF     0xc3000u /* 4-byte atomics: FA word, then masked-CS word */
#define DP_CS64_OFF    0xc3100u /* 8-byte compare-and-swap word, starts at 100 */
#define DP_COUNTER_OFF 0xc4000u /* the counter the companion QP adds to */
#define DP_RET_OFF     0xf0000u /* requester: where returned values land (8 bytes each) */
#define DP_DUMP_OFF    0xf8000u /* requester: the byte dumps gather */

/*
 * Sharing workload: per thread DP_SHARE_PUTS puts of 64 bytes (1 MiB for
 * the most threads), the last a put_signal carrying the thread's signal.
 * The warp workload adds one signal per warp, whose return value lands
 * after the threads'.
 */
#define DP_SHARE_OFF     0x100000u
#define DP_SHARE_PUTS    64
#define DP_SHARE_MAX_THR 256
#define DP_SHARE_SIG_OFF 0x3ff000u
#define DP_SHARE_RET_OFF 0x3fe000u /* requester: each thread's (then each warp's) signal return */

/* Initial remote values and the operations applied to them. */
#define DP_A32_FA_INIT 10u
#define DP_A32_FA_ADD  5u
#define DP_A32_CS_INIT 0x11223344u
#define DP_A32_CS_SWAP 0xaabbccddu
#define DP_A32_CS_MASK 0x0000ffffu /* only the low half is swapped */
#define DP_CS64_INIT   100u
#define DP_CS64_SWAP   777u
#define DP_SIG_ADDS  \
    {                \
        5, 7, 1, 100 \
    } /* put_signal, put_signal, p_signal, signal */
#define DP_SIG_TOTAL     113u
#define DP_COUNTER_TOTAL 3u /* three counter operations add 1 each */
#define DP_P_U8          0x11u
#define DP_P_U16         0x2233u
#define DP_P_U32         0x44556677u
#define DP_P_U64         0x8899aabbccddeeffull
#define DP_PSIG_U32      0x0badcafeu

/* The byte at offset k of put i (or of any region keyed by i). */
GDAKI_INLINE uint8_t dp_pattern(uint32_t i, uint64_t k)
{
    return (uint8_t)(i * 31u + k * 7u + (k >> 8) + 1u);
}

/* The byte j of put k of sharing thread t. */
GDAKI_INLINE uint8_t dp_share_pattern(uint32_t t, uint32_t k, uint32_t j)
{
    return (uint8_t)(t * 11u + k * 13u + j + 3u);
}

/* What the requester's workloads need: both buffers, keys big-endian, and the QPs. */
struct dp_plan {
    uint64_t remote; /* responder's buffer */
    gdaki_be32_t rkey;
    uint64_t local; /* requester's buffer */
    gdaki_be32_t lkey;
    uint32_t threads;    /* sharing workload: threads on one QP */
    uint32_t rsm;        /* enum doca_gpu_dev_verbs_resource_sharing_mode */
    uint32_t counters;   /* 1: run the counter variants on the companion QP */
    uint32_t iterations; /* wrap workload: puts by one thread */
    struct doca_gpu_dev_verbs_qp *companion;
};

#endif /* DP_PLAN_H */
