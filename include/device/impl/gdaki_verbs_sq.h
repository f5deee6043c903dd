/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send-queue protocol of the data-path core: reserve ring slots, mark the
 * WQEs written there ready, submit them to the NIC. Threads sharing a QP
 * (sharing mode CTA or GPU) may do each step concurrently:
 *
 *   reserve  an atomic add on sq_rsvd_index hands out slots; unless told to
 *            skip it, the caller then waits until the WQE that last used the
 *            slots has completed (its CQE), so a slot is never overwritten
 *            while the NIC may still read it;
 *   ready    sq_ready_index moves past a thread's WQEs only once every
 *            earlier WQE is ready: each thread waits for its turn (ready ==
 *            its first slot), then publishes its last slot + 1 with release
 *            order, so a reader of the index sees the WQEs below it;
 *   submit   a thread whose WQEs are already below sq_wqe_pi is done: a
 *            doorbell covering them was rung. Otherwise, under sq_lock, the
 *            producer index published to the NIC (or to the CPU proxy) is
 *            raised to sq_ready_index, so it never goes backwards and one
 *            doorbell covers every thread that was ready by then.
 *
 * The counters are synchronised at the scope of the sharing mode (CTA or
 * GPU); the doorbell is ordered at the QP's NIC scope (sq_nic_scope).
 *
 * With EXCLUSIVE sharing one thread owns the QP: the same steps without
 * atomics, lock or waiting for a turn.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_SQ_H
#define DOCA_GPUNETIO_IMPL_VERBS_SQ_H

#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "gdaki_verbs_cq.h"
#include "gdaki_verbs_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* Waits until the n slots from base are free (the WQEs they held before have completed). */
GDAKI_INLINE void gdaki_sq_wait_slots(struct doca_gpu_dev_verbs_qp *qp, uint64_t base, uint32_t n)
{
    uint64_t end = base + n;
    uint32_t num = gdaki_ro_u32(&qp->sq_wqe_num);

    /* An error completion frees the slot too: the NIC is done with the WQE either way. */
    if (end > num)
        while (gdaki_cq_poll_one_at(&qp->cq_sq, end - 1 - num) == EBUSY)
            gdaki_spin_pause();
}

/* Hands out n consecutive slots; returns the index of the first. */
GDAKI_INLINE uint64_t gdaki_sq_reserve(struct doca_gpu_dev_verbs_qp *qp, uint32_t n,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                       uint32_t code_opt)
{
    uint64_t base = gdaki_atomic_add_u64(&qp->sq_rsvd_index, n, rsm);

    if ((code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK) == 0)
        gdaki_sq_wait_slots(qp, base, n);
    return base;
}

/* Publishes WQEs [from, to] as written, after every earlier WQE. */
GDAKI_INLINE void gdaki_sq_mark_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from, uint64_t to,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        qp->sq_ready_index = to + 1;
        return;
    }
    while (gdaki_load_acquire_u64(&qp->sq_ready_index, rsm) != from)
        gdaki_spin_pause();
    /* Release: the WQE stores above are visible to whoever reads the new index. */
    gdaki_store_release_u64(&qp->sq_ready_index, to + 1, rsm);
}

/*
 * The 64-bit doorbell for producer index prod, in the shape of a control
 * segment's first 8 bytes: the NIC looks only at the QP number and the WQE
 * index, which a doorbell sets to the producer index (the count of WQEs
 * posted); the DS count is 0.
 */
GDAKI_INLINE uint64_t gdaki_sq_db_value(const struct doca_gpu_dev_verbs_qp *qp, uint64_t prod)
{
    uint32_t idx_opcode = gdaki_htobe32((uint32_t)(prod & 0xffff) << PRM_WQE_IDX_SHIFT);

    return ((uint64_t)gdaki_ro_u32(&qp->sq_num_shift8_be) << 32) | idx_opcode;
}

/*
 * gdaki_sq_ring with the fence scope known when it is compiled. The values
 * stored are computed before the first fence: after a fence, each store
 * waits for the fence alone, not for arithmetic.
 */
GDAKI_INLINE void gdaki_sq_ring_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                   uint32_t handler, enum doca_gpu_dev_verbs_sync_scope scope,
                                   const void *bf_wqe)
{
    gdaki_be32_t *dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&qp->sq_dbrec);
    uint64_t *db = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->sq_db);
    const uint32_t dbrec_val = gdaki_htobe32((uint32_t)prod & 0xffff);
    const uint64_t db_val = gdaki_sq_db_value(qp, prod);

    gdaki_fence_release(scope);
    if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) {
        gdaki_store_volatile_u64(gdaki_ro_ptr((void *const *)&qp->cpu_proxy_pi), prod);
        return;
    }
    if ((handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) == 0) {
        gdaki_store_volatile_u32(dbrec, dbrec_val);
        /* The doorbell record before the doorbell: the NIC reads the record when rung. */
        gdaki_fence_release(scope);
    }
    if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_BF) {
        /*
         * BlueFlame: the last WQE itself into the register, 8 bytes at a
         * time (from bf_wqe, a copy of it, when given). All of it is loaded
         * first: the register's stores are volatile, and loads between them
         * would each wait for the last.
         */
        const uint64_t *wqe =
                (const uint64_t *)(bf_wqe != NULL ? bf_wqe : gdaki_wqe_ptr(qp, prod - 1));
        uint64_t w[8];

        for (int i = 0; i < 8; i++)
            w[i] = wqe[i];
        for (int i = 0; i < 8; i++)
            gdaki_store_volatile_u64(db + i, w[i]);
    } else {
        gdaki_store_volatile_u64(db, db_val);
    }
}

/*
 * A post's handler word: a NIC handler (DOCA's values, or AUTO for the QP's
 * own), optionally with GDAKI_NIC_SCOPE_GPU, which says the QP's NIC scope
 * is GPU where the call is compiled. Without it the scope is read from the
 * descriptor at each doorbell.
 */
enum {
    GDAKI_NIC_SCOPE_GPU = 1 << 8,
    /* The handler word of the QP export makes most often: the GPU rings, everything in GPU memory.
     */
    GDAKI_NIC_GPU_DB = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB | GDAKI_NIC_SCOPE_GPU,
};

/* The handler a post with handler word nic rings with: the QP's own for AUTO. */
GDAKI_INLINE uint32_t gdaki_nic_handler(const struct doca_gpu_dev_verbs_qp *qp, uint32_t nic)
{
    return nic == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO ? gdaki_ro_u32(&qp->nic_handler) : nic;
}

/*
 * GDAKI_NIC_GPU_DB when a post of qp with nic would ring as it says, nic
 * otherwise. A caller that branches on it once, before the post, and passes
 * the constant down gets a copy of the post with no handler or scope left
 * to test at run time: on an H200 those tests cost a one-thread put about
 * 20-30 ns of its 0.6 us.
 */
GDAKI_INLINE uint32_t gdaki_nic_resolve(const struct doca_gpu_dev_verbs_qp *qp, uint32_t nic)
{
    if (gdaki_nic_handler(qp, nic) == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB &&
        gdaki_ro_u32(&qp->sq_nic_scope) == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        return GDAKI_NIC_GPU_DB;
    return nic;
}

/*
 * Tells the NIC (or the CPU proxy) that every WQE below prod is ready, with
 * handler word `handler`: the WQEs, then the doorbell record, then the
 * doorbell, each ordered before the next by a release fence of the QP's NIC
 * scope. The scope picks one of two copies: on an H200 a fence whose scope
 * is chosen at run time costs about 120 ns more per doorbell. BlueFlame
 * writes bf_wqe (a copy of WQE prod - 1) or, when NULL, the ring's WQE.
 */
GDAKI_INLINE void gdaki_sq_ring_wqe(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                    uint32_t handler, const void *bf_wqe)
{
    if ((handler & GDAKI_NIC_SCOPE_GPU) ||
        gdaki_ro_u32(&qp->sq_nic_scope) == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        gdaki_sq_ring_at(qp, prod, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, bf_wqe);
    else
        gdaki_sq_ring_at(qp, prod, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, bf_wqe);
}

GDAKI_INLINE void gdaki_sq_ring(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod, uint32_t handler)
{
    gdaki_sq_ring_wqe(qp, prod, handler, NULL);
}

/*
 * Submits every WQE below prod_idx (as DOCA: the caller wrote them; marking
 * them ready is needed only for the ready index to move), with handler word
 * nic: AUTO uses the handler the QP was exported with. The producer index
 * published goes up to prod_idx, or further when sq_ready_index is further
 * (WQEs other threads marked ready are covered by the same doorbell), and
 * never back. bf_wqe: with BlueFlame, a copy of WQE prod_idx - 1 to write
 * (NULL: the ring's).
 */
GDAKI_INLINE void gdaki_sq_submit_wqe(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                      uint32_t nic, uint32_t code_opt, const void *bf_wqe)
{
    const uint32_t handler = gdaki_nic_handler(qp, nic);
    uint64_t ready;

    if (code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING)
        return;
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        /* Stored before ringing: no store trails the doorbell into the next post's fence. */
        qp->sq_wqe_pi = prod_idx;
        gdaki_sq_ring_wqe(qp, prod_idx, handler, bf_wqe);
        return;
    }
    for (;;) {
        /* Acquire: the doorbell that covered these WQEs was rung before pi moved past them. */
        if (gdaki_load_acquire_u64(&qp->sq_wqe_pi, rsm) >= prod_idx)
            return;
        if (gdaki_trylock(&qp->sq_lock, rsm)) {
            ready = gdaki_load_acquire_u64(&qp->sq_ready_index, rsm);
            if (ready < prod_idx)
                ready = prod_idx;
            if (ready > qp->sq_wqe_pi) {
                gdaki_sq_ring_wqe(qp, ready, handler, ready == prod_idx ? bf_wqe : NULL);
                gdaki_store_release_u64(&qp->sq_wqe_pi, ready, rsm);
            }
            gdaki_unlock(&qp->sq_lock, rsm);
            return;
        }
        gdaki_spin_pause();
    }
}

GDAKI_INLINE void gdaki_sq_submit(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                  uint32_t code_opt)
{
    gdaki_sq_submit_wqe(qp, prod_idx, rsm, nic, code_opt, NULL);
}

#endif /* DOCA_GPUNETIO_IMPL_VERBS_SQ_H */
