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
 * GPU); the doorbell is ordered at the QP's NIC scope (sq_nic_scope), or
 * wider when the post asks.
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

/*
 * Moves a ready index from `from` to `to` + 1 once every earlier range is
 * ready: waits until it is `from`, then publishes with release order, so
 * that a reader of the index sees the WQEs below it. mode is DOCA's ready
 * mode, how the turn is waited for: ATOMIC_CAS retries a compare-and-swap
 * from `from`; LD_ST loads until it is `from`, then stores; DEFAULT is
 * LD_ST within a CTA, ATOMIC_CAS GPU-wide. The index may be in any memory.
 */
GDAKI_INLINE void gdaki_ready_advance(uint64_t *ready, uint64_t from, uint64_t to,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                      enum doca_gpu_dev_verbs_qp_ready_mode mode)
{
    const enum doca_gpu_dev_verbs_sync_scope scope = gdaki_rsm_scope(rsm);

    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        *ready = to + 1;
        return;
    }
    if (mode == DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT)
        mode = rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
                       ? DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST
                       : DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS;
    if (mode == DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS) {
        /* Release: this thread's WQE stores before the index that publishes them. */
        gdaki_fence_release(scope);
        while (gdaki_atomic_cas_u64(ready, from, to + 1, rsm) != from)
            gdaki_spin_pause();
        /* Acquire: what the threads before did is seen by what this one does next (submit). */
        gdaki_fence_acquire(scope);
        return;
    }
    while (gdaki_load_acquire_u64(ready, rsm) != from)
        gdaki_spin_pause();
    gdaki_store_release_u64(ready, to + 1, rsm);
}

/* Publishes WQEs [from, to] as written, after every earlier WQE. */
GDAKI_INLINE void gdaki_sq_mark_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from, uint64_t to,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    gdaki_ready_advance(&qp->sq_ready_index, from, to, rsm, DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST);
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

/* The doorbell record's send counter for producer index prod: its low 16 bits, big-endian. */
GDAKI_INLINE gdaki_be32_t gdaki_sq_dbr_value(uint64_t prod)
{
    return gdaki_htobe32((uint32_t)prod & 0xffff);
}

/*
 * Stores a doorbell record value, after a release fence of scope (the WQEs
 * it publishes before it); with ASYNC_STORE_RELEASE in code_opt, one
 * asynchronous release store instead, where the GPU has it.
 */
GDAKI_INLINE void gdaki_dbr_write(gdaki_be32_t *dbrec, gdaki_be32_t val,
                                  enum doca_gpu_dev_verbs_sync_scope scope, uint32_t code_opt)
{
    if ((code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE) &&
        gdaki_store_async_release_u32(dbrec, val))
        return;
    gdaki_fence_release(scope);
    gdaki_store_volatile_u32(dbrec, val);
}

/*
 * Writes a doorbell register, after a release fence of scope (or as one
 * asynchronous release store, as gdaki_dbr_write), and pushes it out of a
 * CPU's write-combining buffers.
 */
GDAKI_INLINE void gdaki_db_write(uint64_t *db, uint64_t val,
                                 enum doca_gpu_dev_verbs_sync_scope scope, uint32_t code_opt)
{
    if (!(code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE) ||
        !gdaki_store_async_release_u64(db, val)) {
        gdaki_fence_release(scope);
        gdaki_store_mmio_u64(db, val);
    }
    gdaki_mmio_flush();
}

/*
 * The BlueFlame buffer qp's next BlueFlame write goes to. sq_bf_next is
 * the QP's own state: read and flipped under sq_lock, or by the one thread
 * of an EXCLUSIVE QP.
 */
GDAKI_INLINE uint64_t *gdaki_sq_bf_reg(const struct doca_gpu_dev_verbs_qp *qp)
{
    uint64_t *db = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->sq_db);

    return db + qp->sq_bf_next * (PRM_WQE_BF_BUF_SIZE / sizeof(uint64_t));
}

GDAKI_INLINE void gdaki_sq_bf_flip(struct doca_gpu_dev_verbs_qp *qp)
{
    qp->sq_bf_next ^= 1;
}

/*
 * BlueFlame: a whole WQE into the register, which is the doorbell, after
 * a release fence of scope; the next one goes to the other buffer. 8 bytes
 * at a time, all loaded first: the register's stores are volatile, and
 * loads between them would each wait for the last.
 */
GDAKI_INLINE void gdaki_sq_bf_write(struct doca_gpu_dev_verbs_qp *qp, const void *wqe,
                                    enum doca_gpu_dev_verbs_sync_scope scope)
{
    const uint64_t *src = (const uint64_t *)wqe;
    uint64_t *reg = gdaki_sq_bf_reg(qp);
    uint64_t w[8];

    for (int i = 0; i < 8; i++)
        w[i] = src[i];
    gdaki_fence_release(scope);
    for (int i = 0; i < 8; i++)
        gdaki_store_volatile_u64(reg + i, w[i]);
    gdaki_mmio_flush();
    gdaki_sq_bf_flip(qp);
}

/*
 * gdaki_sq_ring with the fence scope known when it is compiled. The values
 * stored are computed before the first fence: after a fence, each store
 * waits for the fence alone, not for arithmetic.
 */
GDAKI_INLINE void gdaki_sq_ring_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                   uint32_t handler, enum doca_gpu_dev_verbs_sync_scope scope,
                                   uint32_t code_opt, const void *bf_wqe)
{
    gdaki_be32_t *dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&qp->sq_dbrec);
    uint64_t *db = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->sq_db);
    const gdaki_be32_t dbrec_val = gdaki_sq_dbr_value(prod);
    const uint64_t db_val = gdaki_sq_db_value(qp, prod);

    if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) {
        gdaki_fence_release(scope);
        gdaki_store_volatile_u64(gdaki_ro_ptr((void *const *)&qp->cpu_proxy_pi), prod);
        return;
    }
    /* The doorbell record before the doorbell: the NIC reads the record when rung. */
    if ((handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) == 0)
        gdaki_dbr_write(dbrec, dbrec_val, scope, code_opt);
    if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_BF)
        gdaki_sq_bf_write(qp, bf_wqe != NULL ? bf_wqe : gdaki_wqe_ptr(qp, prod - 1), scope);
    else
        gdaki_db_write(db, db_val, scope, code_opt);
    /*
     * No-DBR on a QP whose record is emulated (NO_DBR_SW_EMULATED): the NIC
     * acts on the doorbell; a CPU thread of the library copies the index
     * published here into the record, which the NIC only needs to recover.
     */
    if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) {
        uint64_t *emulated = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->cpu_proxy_pi);

        if (emulated != NULL)
            gdaki_store_volatile_u64(emulated, prod);
    }
}

/*
 * A post's handler word: a NIC handler (DOCA's values, or AUTO for the QP's
 * own) in its low byte, with scope flags. GDAKI_NIC_SCOPE_GPU says the QP's
 * NIC scope is GPU where the call is compiled (without it the scope is read
 * from the descriptor at each doorbell); GDAKI_NIC_SCOPE_SYS that the post
 * asked for system scope (DOCA's sync_scope SYS), whatever the QP's.
 */
enum {
    GDAKI_NIC_HANDLER_MASK = 0xff,
    GDAKI_NIC_SCOPE_GPU = 1 << 8,
    GDAKI_NIC_SCOPE_SYS = 1 << 9,
    /* The handler word of the QP export makes most often: the GPU rings, everything in GPU memory.
     */
    GDAKI_NIC_GPU_DB = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB | GDAKI_NIC_SCOPE_GPU,
};

/*
 * The handler word of a post with handler nic and DOCA's sync_scope. The
 * fences are never narrower than the QP's NIC scope, which is what the NIC
 * needs to see the WQEs: a sync_scope of GPU, CTA or THREAD gets the NIC
 * scope, SYS gets SYS.
 */
GDAKI_INLINE uint32_t gdaki_nic_word(uint32_t nic, enum doca_gpu_dev_verbs_sync_scope sync_scope)
{
    return sync_scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS ? nic | GDAKI_NIC_SCOPE_SYS : nic;
}

/* The handler a post with handler word nic rings with (flags kept): the QP's own for AUTO. */
GDAKI_INLINE uint32_t gdaki_nic_handler(const struct doca_gpu_dev_verbs_qp *qp, uint32_t nic)
{
    if ((nic & GDAKI_NIC_HANDLER_MASK) == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO)
        return gdaki_ro_u32(&qp->nic_handler) | nic;
    return nic;
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

/* Whether the fences of a post with handler word `handler` may be GPU-scoped rather than SYS. */
GDAKI_INLINE int gdaki_sq_gpu_scope(const struct doca_gpu_dev_verbs_qp *qp, uint32_t handler)
{
    return (handler & GDAKI_NIC_SCOPE_SYS) == 0 &&
           ((handler & GDAKI_NIC_SCOPE_GPU) ||
            gdaki_ro_u32(&qp->sq_nic_scope) == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
}

/*
 * Tells the NIC (or the CPU proxy) that every WQE below prod is ready, with
 * handler word `handler`: the WQEs, then the doorbell record, then the
 * doorbell, each ordered before the next by a release fence of the QP's NIC
 * scope (or SYS, when the word asks). The scope picks one of two copies: on
 * an H200 a fence whose scope is chosen at run time costs about 120 ns more
 * per doorbell. BlueFlame writes bf_wqe (a copy of WQE prod - 1) or, when
 * NULL, the ring's WQE.
 */
GDAKI_INLINE void gdaki_sq_ring_wqe(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                    uint32_t handler, uint32_t code_opt, const void *bf_wqe)
{
    if (gdaki_sq_gpu_scope(qp, handler))
        gdaki_sq_ring_at(qp, prod, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, code_opt, bf_wqe);
    else
        gdaki_sq_ring_at(qp, prod, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, code_opt, bf_wqe);
}

GDAKI_INLINE void gdaki_sq_ring(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod, uint32_t handler)
{
    gdaki_sq_ring_wqe(qp, prod, handler, 0, NULL);
}

/* DOCA's update_dbr: the doorbell record for prod, fenced as a post with handler word `handler`. */
GDAKI_INLINE void gdaki_sq_dbr_update(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                      uint32_t handler, uint32_t code_opt)
{
    gdaki_be32_t *dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&qp->sq_dbrec);
    const gdaki_be32_t val = gdaki_sq_dbr_value(prod);

    if (gdaki_sq_gpu_scope(qp, handler))
        gdaki_dbr_write(dbrec, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, code_opt);
    else
        gdaki_dbr_write(dbrec, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, code_opt);
}

/* DOCA's ring_db: the doorbell register for prod (no record), fenced as gdaki_sq_dbr_update. */
GDAKI_INLINE void gdaki_sq_db_ring(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod,
                                   uint32_t handler, uint32_t code_opt)
{
    uint64_t *db = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->sq_db);
    const uint64_t val = gdaki_sq_db_value(qp, prod);

    if (gdaki_sq_gpu_scope(qp, handler))
        gdaki_db_write(db, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, code_opt);
    else
        gdaki_db_write(db, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, code_opt);
}

/* The release fence of a post with handler word `handler`, on its own. */
GDAKI_INLINE void gdaki_sq_fence(const struct doca_gpu_dev_verbs_qp *qp, uint32_t handler)
{
    if (gdaki_sq_gpu_scope(qp, handler))
        gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
    else
        gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* DOCA's ring_bf: one WQE into the BlueFlame register, fenced as gdaki_sq_dbr_update. */
GDAKI_INLINE void gdaki_sq_bf_ring(struct doca_gpu_dev_verbs_qp *qp, const void *wqe,
                                   uint32_t handler)
{
    if (gdaki_sq_gpu_scope(qp, handler))
        gdaki_sq_bf_write(qp, wqe, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
    else
        gdaki_sq_bf_write(qp, wqe, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/*
 * Starts publishing every WQE below prod_idx of a queue whose published
 * producer index is *pi, guarded by *lock, with WQEs ready below *ready:
 * returns the producer index to publish, or 0 when there is nothing to do
 * (a publication covering them was made already). The index goes up to
 * prod_idx, or further when *ready is further (WQEs other threads marked
 * ready are covered by the same doorbell), and never back. With a shared
 * queue, a non-zero return holds *lock until gdaki_publish_end.
 */
GDAKI_INLINE uint64_t gdaki_publish_begin(uint64_t *pi, int *lock, uint64_t *ready,
                                          uint64_t prod_idx,
                                          enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    uint64_t upto;

    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        if (*pi >= prod_idx)
            return 0;
        /* Stored before ringing: no store trails the doorbell into the next post's fence. */
        *pi = prod_idx;
        return prod_idx;
    }
    for (;;) {
        /* Acquire: the doorbell that covered these WQEs was rung before pi moved past them. */
        if (gdaki_load_acquire_u64(pi, rsm) >= prod_idx)
            return 0;
        if (gdaki_trylock(lock, rsm)) {
            upto = gdaki_load_acquire_u64(ready, rsm);
            if (upto < prod_idx)
                upto = prod_idx;
            if (upto > *pi)
                return upto;
            gdaki_unlock(lock, rsm);
            return 0;
        }
        gdaki_spin_pause();
    }
}

/* Ends what gdaki_publish_begin started: every WQE below pub has been published. */
GDAKI_INLINE void gdaki_publish_end(uint64_t *pi, int *lock, uint64_t pub,
                                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        return;
    gdaki_store_release_u64(pi, pub, rsm);
    gdaki_unlock(lock, rsm);
}

/* gdaki_publish_begin / _end on the send queue. */
GDAKI_INLINE uint64_t gdaki_sq_publish_begin(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                             enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    return gdaki_publish_begin(&qp->sq_wqe_pi, &qp->sq_lock, &qp->sq_ready_index, prod_idx, rsm);
}

GDAKI_INLINE void gdaki_sq_publish_end(struct doca_gpu_dev_verbs_qp *qp, uint64_t pub,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    gdaki_publish_end(&qp->sq_wqe_pi, &qp->sq_lock, pub, rsm);
}

/*
 * Submits every WQE below prod_idx (as DOCA: the caller wrote them; marking
 * them ready is needed only for the ready index to move), with handler word
 * nic: AUTO uses the handler the QP was exported with. What is published
 * is gdaki_sq_publish_begin's. bf_wqe: with BlueFlame, a copy of WQE
 * prod_idx - 1 to write (NULL: the ring's). code_opt: SKIP_DB_RINGING
 * publishes nothing; ASYNC_STORE_RELEASE makes the record and doorbell
 * stores asynchronous release stores where the GPU has them.
 */
GDAKI_INLINE void gdaki_sq_submit_wqe(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                      uint32_t nic, uint32_t code_opt, const void *bf_wqe)
{
    uint64_t pub;

    if (code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING)
        return;
    pub = gdaki_sq_publish_begin(qp, prod_idx, rsm);
    if (pub == 0)
        return;
    gdaki_sq_ring_wqe(qp, pub, gdaki_nic_handler(qp, nic), code_opt,
                      pub == prod_idx ? bf_wqe : NULL);
    gdaki_sq_publish_end(qp, pub, rsm);
}

GDAKI_INLINE void gdaki_sq_submit(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                  uint32_t code_opt)
{
    gdaki_sq_submit_wqe(qp, prod_idx, rsm, nic, code_opt, NULL);
}

/*
 * DOCA's mark_wqes_ready: WQEs [from, to] are ready (gdaki_ready_advance
 * with ready mode `mode`). DOCA's free-flow proxy reads a ready flag per
 * slot and needs no submit; this library's reads the published producer
 * index, so a QP rung with CPU_PROXY_FREE_FLOW (nic, or the QP's for AUTO)
 * has its ready WQEs published here as well, SKIP_DB_RINGING or not, as
 * DOCA's would be seen.
 */
GDAKI_INLINE void gdaki_sq_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from, uint64_t to,
                                 enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                 enum doca_gpu_dev_verbs_qp_ready_mode mode, uint32_t nic,
                                 uint32_t code_opt)
{
    gdaki_ready_advance(&qp->sq_ready_index, from, to, rsm, mode);
    if ((gdaki_nic_handler(qp, nic) & GDAKI_NIC_HANDLER_MASK) ==
        DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW)
        gdaki_sq_submit(qp, to + 1, rsm, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW,
                        code_opt & ~(uint32_t)DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING);
}

#endif /* DOCA_GPUNETIO_IMPL_VERBS_SQ_H */
