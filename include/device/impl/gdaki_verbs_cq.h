/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion polling of the data-path core. CQE number i completes WQE
 * number i (every WQE asks for a CQE and takes one basic block), so the
 * completion of WQE idx is looked for in entry idx of the ring (entry 0 of
 * a collapsed CQ) and recognised by its wqe_counter: a valid CQE whose
 * counter is idx or later (as a signed 16-bit difference) means WQE idx is
 * done, because an RC send queue completes in order. Pollers share nothing
 * but the CQE memory: many threads may wait on one CQ at once.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_CQ_H
#define DOCA_GPUNETIO_IMPL_VERBS_CQ_H

#include <errno.h>
#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "prm/mlx5_cqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* Byte offsets in a CQE64: the error syndromes word and the wqe_counter/signature/op_own word. */
#define GDAKI_CQE_SYNDROMES_OFF 52
#define GDAKI_CQE_TAIL_OFF      60

/* Records the first error CQE met on cq (the host reads it with query_last_error). */
GDAKI_INLINE void gdaki_cq_record_error(struct doca_gpu_dev_verbs_cq *cq, const uint8_t *cqe,
                                        uint16_t wqe_counter)
{
    uint32_t synd;

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

/*
 * Whether WQE wqe_idx has completed: 0 when it completed successfully,
 * EBUSY while it has not, -EIO when it (or a WQE before it) completed in
 * error (recorded in cq->err). Does not wait.
 */
GDAKI_INLINE int gdaki_cq_poll_one_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    uint64_t slot = gdaki_ro_u32(&cq->collapsed) ? 0 : (wqe_idx & gdaki_ro_u32(&cq->cqe_mask));
    const uint8_t *cqe =
            (const uint8_t *)gdaki_ro_ptr((void *const *)&cq->cqe_daddr) + slot * PRM_CQE_SIZE;
    /* wqe_counter (big-endian), signature, op_own in one load: a consistent view of the three. */
    uint32_t tail = gdaki_load_volatile_u32(cqe + GDAKI_CQE_TAIL_OFF);
    uint8_t op_own = (uint8_t)(tail >> 24);
    uint8_t opcode = (uint8_t)(op_own >> PRM_CQE_OPCODE_SHIFT);
    uint16_t counter = gdaki_be16toh((uint16_t)tail);

    if (opcode == PRM_CQE_OPCODE_INVALID || (int16_t)(uint16_t)(counter - (uint16_t)wqe_idx) < 0)
        return EBUSY;
    /* Acquire: what the caller reads next (the data a read or atomic returned) is after the CQE. */
    gdaki_fence(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
#if GDAKI_TSAN
    /*
     * softmlx5 hands a CQE over with a release store of its op_own byte, and
     * TSan pairs an acquire only with an access to that same byte, not with
     * the 4-byte load above (gdaki_platform.h).
     */
    (void)__atomic_load_n(cqe + GDAKI_CQE_TAIL_OFF + 3, __ATOMIC_ACQUIRE);
#endif
    if (opcode == PRM_CQE_OPCODE_REQ_ERR || opcode == PRM_CQE_OPCODE_RESP_ERR) {
        gdaki_cq_record_error(cq, cqe, counter);
        return -EIO;
    }
    return 0;
}

/* Waits until WQE wqe_idx has completed: 0, or -EIO on an error completion. */
GDAKI_INLINE int gdaki_cq_poll_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    int rc;

    while ((rc = gdaki_cq_poll_one_at(cq, wqe_idx)) == EBUSY)
        gdaki_spin_pause();
    return rc;
}

/*
 * Consumes the next `count` completions in order (one thread per CQ):
 * waits for each, advances cqe_ci and the CQ's consumer doorbell record.
 * 0, or -EIO at the first error completion (those before it are consumed).
 */
GDAKI_INLINE int gdaki_cq_poll(struct doca_gpu_dev_verbs_cq *cq, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        int rc = gdaki_cq_poll_at(cq, cq->cqe_ci);

        if (rc != 0)
            return rc;
        cq->cqe_ci++;
        gdaki_store_volatile_u32(
                cq->dbrec, gdaki_htobe32((uint32_t)cq->cqe_ci & DOCA_GPUNETIO_VERBS_CQE_CI_MASK));
    }
    return 0;
}

#undef GDAKI_CQE_SYNDROMES_OFF
#undef GDAKI_CQE_TAIL_OFF

#endif /* DOCA_GPUNETIO_IMPL_VERBS_CQ_H */
