/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion polling of the data-path core. CQE number i completes WQE
 * number i (every WQE asks for a CQE and takes one basic block), so the
 * completion of WQE idx is looked for in entry cqe_base + idx of the ring
 * (entry 0 of a collapsed CQ) and recognised by its wqe_counter: a valid
 * CQE whose counter is idx or later (as a signed 16-bit difference) means
 * WQE idx is done, because an RC queue completes in order. That holds when
 * the NIC overruns the CQ too, which is why the ring is not consumed in
 * order. A NIC writes the CQE's last byte (op_own) after the rest, so a
 * load may see the new wqe_counter with the old op_own: the owner bit,
 * which flips every lap of the ring, tells a CQE of idx's lap from the one
 * of the lap before, whose counter is idx's minus the ring size; a CQE of
 * another lap counts only when its counter is ahead of idx (a later lap)
 * or it is an error (the QP was in error when idx was posted).
 *
 * cq->cqe_ci is DOCA's consumer index: a successful poll raises it (atomic
 * max, at the scope of the sharing mode) to one past the WQE whose CQE it
 * saw, and a poll for a WQE below it succeeds even when no CQE says so
 * anymore. Only success raises it, and a successful CQE means every earlier
 * WQE succeeded too.
 *
 * An error CQE puts the QP in error: the WQE it names and every later one
 * fail. So a poll returns -EIO when it meets one, and also, instead of
 * waiting, when the CQ has recorded one already (cq->err) and its WQE's
 * completion is not there: it never will be. No wait spins on a dead QP.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_CQ_H
#define DOCA_GPUNETIO_IMPL_VERBS_CQ_H

#include <errno.h>
#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "prm/mlx5_cqe.h"

#if DOCA_GPUNETIO_VERBS_ENABLE_DEBUG == 1
#include <stdio.h>
#endif

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* Byte offsets in a CQE64: the error syndromes word and the wqe_counter/signature/op_own word. */
#define GDAKI_CQE_SYNDROMES_OFF 52
#define GDAKI_CQE_TAIL_OFF      60

/*
 * The acquire after a completion is seen: what the caller reads next (the
 * data a read or atomic returned) is ordered after the CQE, or after the
 * cqe_ci another poller raised once it had seen one. DOCA's
 * fence_acquire_nvidia_nic: CTA scope unless the user sets
 * DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA to 0, as an NVIDIA NIC
 * writes a CQE only after the data it completes.
 */
GDAKI_INLINE void gdaki_cq_acquire(void)
{
    gdaki_fence_acquire(DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA
                                ? DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA
                                : DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* cqe_ci as the threads of the sharing mode see it. */
GDAKI_INLINE uint64_t gdaki_cq_ci_load(const struct doca_gpu_dev_verbs_cq *cq,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        return cq->cqe_ci;
#if defined(__CUDA_ARCH__)
    return gdaki_load_volatile_u64(&cq->cqe_ci);
#else
    return __atomic_load_n(&cq->cqe_ci, __ATOMIC_ACQUIRE);
#endif
}

/* Raises cqe_ci to ci unless it is past it already (atomic max at the sharing mode's scope). */
GDAKI_INLINE void gdaki_cq_ci_raise(struct doca_gpu_dev_verbs_cq *cq, uint64_t ci,
                                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        if (cq->cqe_ci < ci)
            cq->cqe_ci = ci;
        return;
    }
#if defined(__CUDA_ARCH__)
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA)
        atomicMax_block((unsigned long long *)&cq->cqe_ci, (unsigned long long)ci);
    else
        atomicMax((unsigned long long *)&cq->cqe_ci, (unsigned long long)ci);
#else
    /* Release: a poller that takes the shortcut on cqe_ci sees what this one acquired. */
    uint64_t old = __atomic_load_n(&cq->cqe_ci, __ATOMIC_RELAXED);

    while (old < ci && !__atomic_compare_exchange_n(&cq->cqe_ci, &old, ci, 1, __ATOMIC_ACQ_REL,
                                                    __ATOMIC_RELAXED))
        ;
#endif
}

#if DOCA_GPUNETIO_VERBS_ENABLE_DEBUG == 1
/* Prints an error CQE's syndromes and WQE (DOCA_GPUNETIO_VERBS_ENABLE_DEBUG builds). */
GDAKI_INLINE void gdaki_cq_print_err(const void *cqe)
{
    const struct prm_cqe64_err *e = (const struct prm_cqe64_err *)cqe;

    printf("error completion of WQE %u: syndrome 0x%x, vendor syndrome 0x%x, hardware syndrome "
           "0x%x (type 0x%x)\n",
           (unsigned int)gdaki_be16toh(e->wqe_counter), e->syndrome, e->vendor_err_synd,
           e->hw_err_synd, e->hw_synd_type);
}
#endif

/* Records the first error CQE met on cq (the host reads it with query_last_error). */
GDAKI_INLINE void gdaki_cq_record_error(struct doca_gpu_dev_verbs_cq *cq, const uint8_t *cqe,
                                        uint16_t wqe_counter)
{
    uint32_t synd;

#if DOCA_GPUNETIO_VERBS_ENABLE_DEBUG == 1
    gdaki_cq_print_err(cqe);
#endif
    if (gdaki_atomic_cas_u32(&cq->err.has_error, 0, 2) != 0)
        return; /* another thread recorded (or is recording) the first one */
    /* hw_err_synd, hw_synd_type, vendor_err_synd, syndrome: bytes 52..55, little-endian load. */
    synd = gdaki_load_volatile_u32(cqe + GDAKI_CQE_SYNDROMES_OFF);
    cq->err.hw_err_synd = (uint8_t)synd;
    cq->err.hw_synd_type = (uint8_t)(synd >> 8);
    cq->err.vendor_err_synd = (uint8_t)(synd >> 16);
    cq->err.syndrome = (uint8_t)(synd >> 24);
    cq->err.wqe_counter = wqe_counter;
    /* The fields before the flag that says they are there. */
    gdaki_fence(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_store_volatile_u32(&cq->err.has_error, 1);
}

/* The CQE where WQE (or receive) wqe_idx completes: entry 0 of a collapsed CQ. */
GDAKI_INLINE struct doca_gpunetio_ib_mlx5_cqe64 *gdaki_cqe_at(struct doca_gpu_dev_verbs_cq *cq,
                                                              uint64_t wqe_idx)
{
    uint64_t slot =
            gdaki_ro_u32(&cq->collapsed)
                    ? 0
                    : ((wqe_idx + gdaki_ro_u32(&cq->cqe_base)) & gdaki_ro_u32(&cq->cqe_mask));

    return (struct doca_gpunetio_ib_mlx5_cqe64 *)(void *)((uint8_t *)gdaki_ro_ptr(
                                                                  (void *const *)&cq->cqe_daddr) +
                                                          slot * PRM_CQE_SIZE);
}

/* The owner bit of CQE number wqe_idx: cqe_base_owner, flipped on every lap after cqe_base's. */
GDAKI_INLINE uint32_t gdaki_cqe_owner_of(const struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    uint64_t pos = wqe_idx + gdaki_ro_u32(&cq->cqe_base);

    return gdaki_ro_u32(&cq->cqe_base_owner) ^ ((pos & gdaki_ro_u32(&cq->cqe_num)) != 0);
}

/*
 * What the CQE where WQE wqe_idx completes says, without waiting: 0 when
 * it is a successful completion of that WQE or a later one (*ci: one past
 * that WQE), EBUSY when there is none yet, -EIO when it is an error
 * completion (of an earlier WQE, the QP was in error when wqe_idx was posted).
 */
GDAKI_INLINE int gdaki_cq_read(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx, uint64_t *ci)
{
    const uint8_t *cqe = (const uint8_t *)gdaki_cqe_at(cq, wqe_idx);
    /* wqe_counter (big-endian), signature, op_own in one load: a consistent view of the three. */
    uint32_t tail = gdaki_load_volatile_u32(cqe + GDAKI_CQE_TAIL_OFF);
    uint8_t opcode = (uint8_t)(tail >> (24 + PRM_CQE_OPCODE_SHIFT));
    uint16_t counter = gdaki_be16toh((uint16_t)tail);
    int16_t ahead = (int16_t)(uint16_t)(counter - (uint16_t)wqe_idx);
    int error = opcode == PRM_CQE_OPCODE_REQ_ERR || opcode == PRM_CQE_OPCODE_RESP_ERR;
    uint32_t owner = (tail >> 24) & PRM_CQE_OWNER_MASK;

    if (opcode == PRM_CQE_OPCODE_INVALID || (ahead < 0 && !error))
        return EBUSY;
    /*
     * Another lap's owner bit: the lap before (maybe its op_own under idx's
     * new counter) is no completion of idx, but an error there means the QP
     * was in error when idx was posted.
     */
    if (!gdaki_ro_u32(&cq->collapsed) && owner != gdaki_cqe_owner_of(cq, wqe_idx) && ahead <= 0 &&
        !error)
        return EBUSY;
    gdaki_cq_acquire();
#if GDAKI_TSAN
    /*
     * softmlx5 hands a CQE over with a release store of its op_own byte, and
     * TSan pairs an acquire only with an access to that same byte, not with
     * the 4-byte load above (gdaki_platform.h).
     */
    (void)__atomic_load_n(cqe + GDAKI_CQE_TAIL_OFF + 3, __ATOMIC_ACQUIRE);
#endif
    if (error) {
        gdaki_cq_record_error(cq, cqe, counter);
        return -EIO;
    }
    *ci = wqe_idx + (uint64_t)ahead + 1;
    return 0;
}

/*
 * Whether an error CQE has been recorded on cq; if so, ordered before what
 * the caller reads next, at system scope: the recorder may be anywhere.
 */
GDAKI_INLINE int gdaki_cq_failed(struct doca_gpu_dev_verbs_cq *cq)
{
    if (gdaki_load_volatile_u32(&cq->err.has_error) == 0)
        return 0;
    gdaki_fence_acquire(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    return 1;
}

/*
 * Whether WQE wqe_idx has completed, without waiting: 0 when it completed
 * successfully (cqe_ci raised past it), EBUSY while it has not, -EIO when
 * it completed in error or cannot complete anymore (an error CQE is
 * recorded in cq->err). rsm: the threads that share cq. The CQE is read
 * first: it answers alone, but for a WQE whose entry a much later one has
 * taken (more than 2^15 WQEs on: then cqe_ci says it) and on a dead QP.
 */
GDAKI_INLINE int gdaki_cq_check(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx,
                                enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    uint64_t ci;
    int rc = gdaki_cq_read(cq, wqe_idx, &ci);

    if (rc == EBUSY) {
        if (wqe_idx < gdaki_cq_ci_load(cq, rsm)) {
            gdaki_cq_acquire();
            return 0;
        }
        /* Read again once the error is seen: a completion before it is there by then. */
        if (!gdaki_cq_failed(cq))
            return EBUSY;
        rc = gdaki_cq_read(cq, wqe_idx, &ci);
        if (rc == EBUSY)
            return -EIO;
    }
    if (rc == 0)
        gdaki_cq_ci_raise(cq, ci, rsm);
    return rc;
}

/* Waits until WQE wqe_idx has completed: 0, or -EIO as gdaki_cq_check() says. */
GDAKI_INLINE int gdaki_cq_wait(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx,
                               enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    int rc;

    while ((rc = gdaki_cq_check(cq, wqe_idx, rsm)) == EBUSY)
        gdaki_spin_pause();
    return rc;
}

/* Waits for the next count completions, those of WQEs cqe_ci .. cqe_ci + count - 1. */
GDAKI_INLINE int gdaki_cq_wait_next(struct doca_gpu_dev_verbs_cq *cq, uint32_t count,
                                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (count == 0)
        return 0;
    return gdaki_cq_wait(cq, gdaki_cq_ci_load(cq, rsm) + count - 1, rsm);
}

/* The same three for callers that name no sharing mode: GPU scope, right for every mode. */
GDAKI_INLINE int gdaki_cq_poll_one_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    return gdaki_cq_check(cq, wqe_idx, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU);
}

GDAKI_INLINE int gdaki_cq_poll_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    return gdaki_cq_wait(cq, wqe_idx, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU);
}

GDAKI_INLINE int gdaki_cq_poll(struct doca_gpu_dev_verbs_cq *cq, uint32_t count)
{
    return gdaki_cq_wait_next(cq, count, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU);
}

/*
 * Whether cq_type names a kind of CQ these polls serve (UNKNOWN: the kind
 * the descriptor records). Every kind is served by the same test: the
 * descriptor says where the CQEs land (entry 0 when collapsed).
 */
GDAKI_INLINE int gdaki_cq_type_known(const struct doca_gpu_dev_verbs_cq *cq, uint32_t cq_type)
{
    if (cq_type == DOCA_GPUNETIO_VERBS_CQ_UNKNOWN)
        cq_type = cq->cq_type; /* set at export, before any launch */
    return cq_type == DOCA_GPUNETIO_VERBS_CQ_64B ||
           cq_type == DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED ||
           cq_type == DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST;
}

/*
 * For a consumer that takes CQEs in order: counts n more consumed in the
 * 24-bit consumer index kept in cqe_ci and, when write_dbrec (a CQ the NIC
 * does not overrun), publishes it in the doorbell record after a GPU-scope
 * release, so that the NIC reuses no entry before it was read. Returns the
 * new index.
 */
GDAKI_INLINE uint32_t gdaki_cq_update_dbrec(struct doca_gpu_dev_verbs_cq *cq, uint32_t n,
                                            int write_dbrec)
{
    uint32_t ci =
            ((uint32_t)gdaki_load_volatile_u64(&cq->cqe_ci) + n) & DOCA_GPUNETIO_VERBS_CQE_CI_MASK;

    if (write_dbrec) {
        gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
        gdaki_store_volatile_u32(cq->dbrec, gdaki_htobe32(ci));
    }
    gdaki_store_volatile_u64(&cq->cqe_ci, ci);
    return ci;
}

#undef GDAKI_CQE_SYNDROMES_OFF
#undef GDAKI_CQE_TAIL_OFF

#endif /* DOCA_GPUNETIO_IMPL_VERBS_CQ_H */
