/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Ethernet receive and send cores share: the clock a receive's
 * timeout is measured on, reading a CQE of a cyclic CQ without waiting,
 * recording the first error CQE, the CQ and doorbell records, and the
 * per-queue counters. Runs on a CUDA thread and on a CPU thread alike.
 *
 * A CQE is read as the verbs core reads one (gdaki_verbs_cq.h): its last
 * four bytes (wqe_counter, signature, op_own) in one load, the owner bit
 * compared with the lap of the CQE's number, then an acquire before any
 * other field (or the packet the CQE describes) is read.
 */
#ifndef DOCA_GPUNETIO_IMPL_ETH_COMMON_H
#define DOCA_GPUNETIO_IMPL_ETH_COMMON_H

#include <stdint.h>
#if !defined(__CUDA_ARCH__)
#include <time.h>
#endif

#include "../../doca_error.h"
#include "../doca_gpunetio_eth_def.h"
#include "gdaki_eth_desc.h"
#include "gdaki_sync.h"
#include "gdaki_verbs_cq.h"
#include "gdaki_verbs_sq.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* Byte offsets in a CQE64: the error syndromes word, the wqe_counter/signature/op_own word. */
enum {
    GDAKI_ETH_CQE_SYND_OFF = 52,
    GDAKI_ETH_CQE_TAIL_OFF = 60,
};

/* What a CQE says (gdaki_eth_cqe_peek). */
enum {
    GDAKI_ETH_CQE_NONE = 0, /* not written yet (or still the lap before) */
    GDAKI_ETH_CQE_OK = 1,   /* a completion */
    GDAKI_ETH_CQE_ERR = 2,  /* an error completion (REQ_ERR, RESP_ERR) */
};

/* The sharing mode as the synchronisation layer (gdaki_sync.h) spells it: same values. */
GDAKI_INLINE enum doca_gpu_dev_verbs_resource_sharing_mode
gdaki_eth_rsm(enum doca_gpu_dev_eth_resource_sharing_mode rsm)
{
    return (enum doca_gpu_dev_verbs_resource_sharing_mode)(int)rsm;
}

/*
 * Nanoseconds on the clock a timeout is measured on: the GPU's global timer,
 * a CPU thread's monotonic clock.
 */
GDAKI_INLINE uint64_t gdaki_eth_now_ns(void)
{
#if defined(__CUDA_ARCH__)
    uint64_t t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#else
    struct timespec ts;

#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* A CQE timestamp in the NIC's real-time format (seconds [63:32], nanoseconds [31:0]) in ns. */
GDAKI_INLINE uint64_t gdaki_eth_ts_ns(uint64_t ts)
{
    return (ts & 0xffffffffull) + (ts >> 32) * 1000000000ull;
}

/* The entry of CQE number k in a ring of mask + 1 CQEs. */
GDAKI_INLINE const uint8_t *gdaki_eth_cqe_at(const uint8_t *ring, uint32_t mask, uint64_t k)
{
    return ring + (k & mask) * PRM_CQE_SIZE;
}

/*
 * What CQE number k of a ring of 2^log_num entries says, without waiting;
 * with OK or ERR, *counter is its wqe_counter and what the caller reads of
 * the CQE (or of the memory it completes) afterwards is ordered after it.
 */
GDAKI_INLINE int gdaki_eth_cqe_peek(const uint8_t *ring, uint32_t mask, uint32_t log_num,
                                    uint64_t k, uint16_t *counter)
{
    const uint8_t *cqe = gdaki_eth_cqe_at(ring, mask, k);
    uint32_t tail = gdaki_load_volatile_u32(cqe + GDAKI_ETH_CQE_TAIL_OFF);
    uint8_t op_own = (uint8_t)(tail >> 24);
    uint8_t opcode = (uint8_t)(op_own >> PRM_CQE_OPCODE_SHIFT);

    if (!prm_cqe_op_own_sw_owned(op_own, k, log_num))
        return GDAKI_ETH_CQE_NONE;
    gdaki_cq_acquire();
#if GDAKI_TSAN
    /* The NIC's release store is of the op_own byte: TSan pairs an acquire with that byte only. */
    (void)__atomic_load_n(cqe + GDAKI_ETH_CQE_TAIL_OFF + 3, __ATOMIC_ACQUIRE);
#endif
    *counter = gdaki_be16toh((uint16_t)tail);
    return opcode == PRM_CQE_OPCODE_REQ_ERR || opcode == PRM_CQE_OPCODE_RESP_ERR ? GDAKI_ETH_CQE_ERR
                                                                                 : GDAKI_ETH_CQE_OK;
}

/*
 * Records the error CQE cqe (of WQE counter) in err unless one is recorded
 * already; returns whether this call recorded it. The host and kernels read
 * err once has_error is 1.
 */
GDAKI_INLINE int gdaki_eth_record_error(struct gdaki_eth_err *err, const uint8_t *cqe,
                                        uint16_t counter)
{
    uint32_t synd;

    if (gdaki_atomic_cas_u32(&err->has_error, 0, 2) != 0)
        return 0;
    /* hw_err_synd, hw_synd_type, vendor_err_synd, syndrome: bytes 52..55. */
    synd = gdaki_load_volatile_u32(cqe + GDAKI_ETH_CQE_SYND_OFF);
    err->hw_err_synd = (uint8_t)synd;
    err->vendor_err_synd = (uint8_t)(synd >> 16);
    err->syndrome = (uint8_t)(synd >> 24);
    err->opcode = (uint8_t)(cqe[GDAKI_ETH_CQE_TAIL_OFF + 3] >> PRM_CQE_OPCODE_SHIFT);
    err->wqe_counter = counter;
    /* The fields before the flag that says they are there. */
    gdaki_fence(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_store_volatile_u32(&err->has_error, 1);
    return 1;
}

/* Adds v to a counter other threads of the sharing mode may add to, and kernels or the host read.
 */
GDAKI_INLINE void gdaki_eth_count(uint64_t *counter, uint64_t v,
                                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        /* One writer: a single store readers never see torn. */
        gdaki_store_volatile_u64(counter, *counter + v);
        return;
    }
    (void)gdaki_atomic_add_u64(counter, v, rsm);
}

/* Raises *p to v unless it is past it already (atomic max at the sharing mode's scope). */
GDAKI_INLINE void gdaki_eth_raise(uint64_t *p, uint64_t v,
                                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    uint64_t old;

    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        if (*p < v)
            *p = v;
        return;
    }
    old = gdaki_load_relaxed_u64(p, rsm);
    while (old < v) {
        uint64_t seen = gdaki_atomic_cas_u64(p, old, v, rsm);

        if (seen == old)
            break;
        old = seen;
    }
}

/* A CQ doorbell record value: the consumer counter's low 24 bits, big-endian. */
GDAKI_INLINE gdaki_be32_t gdaki_eth_cq_dbr_value(uint64_t ci)
{
    return gdaki_htobe32((uint32_t)ci & 0xffffffu);
}

/* A WQ doorbell record value: the producer counter's low 16 bits, big-endian. */
GDAKI_INLINE gdaki_be32_t gdaki_eth_wq_dbr_value(uint64_t pi)
{
    return gdaki_htobe32((uint32_t)pi & 0xffffu);
}

/*
 * The fence scope of a queue's stores for the NIC: SYS when the call asks
 * for it (sync_scope SYS) or the queue needs it (nic_scope), GPU otherwise.
 */
GDAKI_INLINE enum doca_gpu_dev_verbs_sync_scope
gdaki_eth_nic_scope(uint32_t queue_scope, enum doca_gpu_dev_eth_sync_scope sync_scope)
{
    if (sync_scope == DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS ||
        queue_scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
}

#endif /* DOCA_GPUNETIO_IMPL_ETH_COMMON_H */
