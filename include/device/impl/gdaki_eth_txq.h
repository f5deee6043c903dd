/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet send of the data-path core. A packet is one WQE of one basic
 * block: control segment (SEND, 3 DS, a CQE always with
 * DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY, else only on error), Ethernet segment
 * (the queue's checksum offloads in cs_flags, no inline header) and one data
 * segment (address, big-endian lkey, length). Posting follows the verbs
 * send-queue protocol (gdaki_verbs_sq.h): reserve slots, write the WQEs,
 * mark them ready in order, publish the producer index: SQ doorbell record,
 * then the UAR doorbell (GPU_SM_DB), or the index in the CPU proxy's word
 * (CPU_PROXY), each store after a release fence of the queue's NIC scope.
 * A send's ticket is its WQE index.
 *
 * A full ring. Slot s may be written again once the NIC is done with WQE
 * s - wqe_num; the core knows the NIC is done with a WQE from a CQE of it or
 * of a later one (the SQ completes in order). Reserving does not wait: when
 * the slots are not free it looks at the CQEs the NIC wrote past the
 * consumer index (without consuming them: they stay for poll_completion) and
 * returns DOCA_ERROR_AGAIN when that does not free them either: the caller
 * polls completions and retries. Only WQEs that ask for a CQE (NOTIFY) or
 * fail report progress: a sender must ask for one now and then (DOCA's
 * samples: the last packet of each batch) or its ring, once full, stays so.
 * The rule: any wqe_num consecutive WQEs hold one that asks. One sender:
 * ask at least every wqe_num sends. P threads sharing the queue: each asks
 * at least every wqe_num / P of its sends. Looking frees ring slots, not
 * CQ entries: poll the CQEs asked for, or the NIC overruns the CQ.
 * DOCA 3.x's doca_gpu_dev_eth_txq_send() returns nothing and overwrites
 * slots without looking; this library's device form waits for them
 * instead (doca_gpunetio_dev_eth_txq.cuh), and the C calls below return
 * AGAIN.
 *
 * The calls a CPU thread (--exec cpu) makes:
 *   gdaki_eth_tx_send()             one packet, thread scope (AGAIN: full);
 *   gdaki_eth_tx_poll_completion()  consume CQEs (DOCA's poll_completion);
 *   gdaki_eth_tx_counters()         packets, bytes posted, CQEs, errors.
 * Batches (DOCA's warp and block forms): gdaki_eth_tx_reserve(n) ->
 * gdaki_eth_tx_wqe_send() per slot -> gdaki_eth_tx_commit().
 */
#ifndef DOCA_GPUNETIO_IMPL_ETH_TXQ_H
#define DOCA_GPUNETIO_IMPL_ETH_TXQ_H

#include <stdint.h>

#include "gdaki_eth_common.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* The ring slot of WQE idx. */
GDAKI_INLINE uint8_t *gdaki_eth_tx_wqe_ptr(const struct doca_gpu_eth_txq *txq, uint64_t idx)
{
    uint8_t *ring = (uint8_t *)gdaki_ro_ptr((void *const *)&txq->wqe_daddr);

    return ring + ((idx & gdaki_ro_u32(&txq->wqe_mask)) << PRM_WQE_BB_SHIFT);
}

/* The counters of txq (a snapshot). */
GDAKI_INLINE struct gdaki_eth_counters gdaki_eth_tx_counters(const struct doca_gpu_eth_txq *txq)
{
    struct gdaki_eth_counters c;

    c.pkts = gdaki_load_volatile_u64(&txq->pkts);
    c.bytes = gdaki_load_volatile_u64(&txq->bytes);
    c.completions = gdaki_load_volatile_u64(&txq->completions);
    c.errors = gdaki_load_volatile_u64(&txq->errors);
    return c;
}

/*
 * Writes the send WQE of packet (addr, mkey_be = htobe32(lkey), nbytes) in
 * wqe, the slot of WQE idx; flags: enum doca_gpu_eth_send_flags.
 */
GDAKI_INLINE void gdaki_eth_tx_wqe_send(const struct doca_gpu_eth_txq *txq, uint8_t *wqe,
                                        uint64_t idx, uint64_t addr, gdaki_be32_t mkey_be,
                                        uint32_t nbytes, uint32_t flags)
{
    struct prm_wqe_ctrl_seg ctrl;
    struct prm_wqe_data_seg data;
    uint32_t eth[4];

    ctrl.opmod_idx_opcode =
            gdaki_htobe32(((uint32_t)(idx & 0xffff) << PRM_WQE_IDX_SHIFT) | PRM_WQE_OPCODE_SEND);
    ctrl.qpn_ds = gdaki_ro_u32((const uint32_t *)&txq->sq_num_shift8_be_3ds);
    ctrl.signature = 0;
    ctrl.reserved[0] = 0;
    ctrl.reserved[1] = 0;
    ctrl.fm_ce_se = (flags & DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY) ? PRM_WQE_CTRL_CQ_UPDATE
                                                                 : PRM_WQE_CTRL_CE_ERROR_ONLY;
    ctrl.imm = 0;
    /* The Ethernet segment's first 16 bytes: cs_flags is byte 4; no MSS, no inline header. */
    eth[0] = 0;
    eth[1] = gdaki_ro_u32(&txq->cs_flags) & 0xff;
    eth[2] = 0;
    eth[3] = 0;
    data.byte_count = gdaki_htobe32(nbytes);
    data.lkey = mkey_be;
    data.addr = gdaki_htobe64(addr);
    gdaki_store_wqe_seg(wqe, &ctrl);
    gdaki_store_wqe_seg(wqe + 16, eth);
    gdaki_store_wqe_seg(wqe + 32, &data);
}

/*
 * How many WQEs a CQE of WQE counter says are done: one past the last WQE
 * below the reserved index with those low 16 bits. The reserved index is
 * loaded after the CQE was read (with acquire), so it is past that WQE,
 * which was reserved before the NIC could complete it; an index loaded
 * earlier may not be. 0 when the counter names no such WQE.
 */
GDAKI_INLINE uint64_t gdaki_eth_tx_done_of(struct doca_gpu_eth_txq *txq, uint16_t counter,
                                           enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    const uint64_t rsvd = gdaki_load_relaxed_u64(&txq->sq_rsvd_index, rsm);
    const uint16_t behind = (uint16_t)((uint16_t)rsvd - counter);

    if (behind == 0 || behind > rsvd)
        return 0;
    return rsvd - behind + 1;
}

/*
 * Looks at the CQEs past the consumer index without consuming them and
 * raises wqe_done past the last WQE they complete; returns wqe_done.
 */
GDAKI_INLINE uint64_t gdaki_eth_tx_peek_done(struct doca_gpu_eth_txq *txq,
                                             enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    const uint8_t *ring = (const uint8_t *)gdaki_ro_ptr((void *const *)&txq->cqe_daddr);
    const uint32_t mask = gdaki_ro_u32(&txq->cqe_mask);
    const uint32_t log_num = gdaki_ro_u32(&txq->cqe_log_num);
    const uint64_t ci = gdaki_load_relaxed_u64(&txq->cqe_ci, rsm);
    uint64_t done = gdaki_load_relaxed_u64(&txq->wqe_done, rsm);
    uint64_t seen = done;

    for (uint64_t k = ci; k - ci <= mask; k++) {
        uint16_t counter;
        uint64_t d;

        if (gdaki_eth_cqe_peek(ring, mask, log_num, k, &counter) == GDAKI_ETH_CQE_NONE)
            break;
        d = gdaki_eth_tx_done_of(txq, counter, rsm);
        if (d > seen)
            seen = d;
    }
    if (seen > done)
        gdaki_eth_raise(&txq->wqe_done, seen, rsm);
    return seen;
}

/*
 * Reserves n consecutive slots (*base: the first) if they are free now,
 * else DOCA_ERROR_AGAIN (nothing reserved). n at most wqe_num.
 */
GDAKI_INLINE doca_error_t gdaki_eth_tx_reserve(struct doca_gpu_eth_txq *txq, uint32_t n,
                                               enum doca_gpu_dev_eth_resource_sharing_mode rsm,
                                               uint64_t *base)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode vrsm = gdaki_eth_rsm(rsm);
    const uint32_t num = gdaki_ro_u32(&txq->wqe_num);
    uint64_t cur = gdaki_load_relaxed_u64(&txq->sq_rsvd_index, vrsm);

    if (n > num)
        return DOCA_ERROR_INVALID_VALUE;
    for (;;) {
        uint64_t seen;

        /* Acquire: the NIC's reads of the slots' old WQEs before this thread's new ones. */
        if (cur + n > gdaki_load_acquire_u64(&txq->wqe_done, vrsm) + num &&
            cur + n > gdaki_eth_tx_peek_done(txq, vrsm) + num)
            return DOCA_ERROR_AGAIN;
        if (vrsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
            txq->sq_rsvd_index = cur + n;
            break;
        }
        seen = gdaki_atomic_cas_u64(&txq->sq_rsvd_index, cur, cur + n, vrsm);
        if (seen == cur)
            break;
        cur = seen;
    }
    *base = cur;
    return DOCA_SUCCESS;
}

/*
 * Publishes every WQE below prod to the NIC (handler: the resolved
 * DOCA_GPUNETIO_ETH_NIC_HANDLER_*), each store after a release fence of
 * scope: GPU_SM_DB: doorbell record, then the doorbell; CPU_PROXY: the
 * producer index in the proxy's word (the proxy writes record and doorbell).
 */
GDAKI_INLINE void gdaki_eth_tx_ring(struct doca_gpu_eth_txq *txq, uint64_t prod, uint32_t handler,
                                    enum doca_gpu_dev_verbs_sync_scope scope)
{
    if (handler == DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY) {
        gdaki_fence_release(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
        gdaki_store_volatile_u64(gdaki_ro_ptr((void *const *)&txq->cpu_proxy_pi), prod);
        return;
    }
    {
        gdaki_be32_t *dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&txq->sq_dbrec);
        uint64_t *db = (uint64_t *)gdaki_ro_ptr((void *const *)&txq->sq_db);
        const gdaki_be32_t dbrec_val = gdaki_eth_wq_dbr_value(prod);
        const uint64_t db_val =
                ((uint64_t)gdaki_ro_u32((const uint32_t *)&txq->sq_num_shift8_be) << 32) |
                gdaki_htobe32((uint32_t)(prod & 0xffff) << PRM_WQE_IDX_SHIFT);

        /* The record before the doorbell: the NIC reads the record when rung. */
        gdaki_dbr_write(dbrec, dbrec_val, scope, 0);
        gdaki_db_write(db, db_val, scope, 0);
    }
}

/* The handler a call with template handler nic rings with: the queue's own for AUTO. */
GDAKI_INLINE uint32_t gdaki_eth_tx_handler(const struct doca_gpu_eth_txq *txq,
                                           enum doca_gpu_dev_eth_nic_handler nic)
{
    return nic == DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO ? gdaki_ro_u32(&txq->nic_handler)
                                                     : (uint32_t)nic;
}

/*
 * Submits every WQE below prod (DOCA's doca_gpu_dev_eth_txq_submit): the
 * producer index published to the NIC goes up to prod (or to the ready
 * index, when further), never back; one doorbell covers every thread that
 * was ready by then.
 */
GDAKI_INLINE void gdaki_eth_tx_submit(struct doca_gpu_eth_txq *txq, uint64_t prod,
                                      enum doca_gpu_dev_eth_resource_sharing_mode rsm,
                                      enum doca_gpu_dev_eth_sync_scope sync_scope,
                                      enum doca_gpu_dev_eth_nic_handler nic)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode vrsm = gdaki_eth_rsm(rsm);
    const uint32_t handler = gdaki_eth_tx_handler(txq, nic);
    uint64_t pub =
            gdaki_publish_begin(&txq->sq_wqe_pi, &txq->sq_lock, &txq->sq_ready_index, prod, vrsm);

    if (pub == 0)
        return;
    /* One copy per fence scope: a scope chosen at run time costs more than the branch. */
    if (gdaki_eth_nic_scope(gdaki_ro_u32(&txq->nic_scope), sync_scope) ==
        DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        gdaki_eth_tx_ring(txq, pub, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
    else
        gdaki_eth_tx_ring(txq, pub, handler, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_publish_end(&txq->sq_wqe_pi, &txq->sq_lock, pub, vrsm);
}

/* WQEs [from, to] are written: the ready index moves past them after every earlier one. */
GDAKI_INLINE void gdaki_eth_tx_mark_ready(struct doca_gpu_eth_txq *txq, uint64_t from, uint64_t to,
                                          enum doca_gpu_dev_eth_resource_sharing_mode rsm)
{
    gdaki_ready_advance(&txq->sq_ready_index, from, to, gdaki_eth_rsm(rsm),
                        DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT);
}

/*
 * Ends a batch: the n WQEs from base (bytes in all) are written; marks them
 * ready, counts them and submits them.
 */
GDAKI_INLINE void gdaki_eth_tx_commit(struct doca_gpu_eth_txq *txq, uint64_t base, uint32_t n,
                                      uint64_t bytes,
                                      enum doca_gpu_dev_eth_resource_sharing_mode rsm,
                                      enum doca_gpu_dev_eth_sync_scope sync_scope,
                                      enum doca_gpu_dev_eth_nic_handler nic)
{
    if (n == 0)
        return;
    gdaki_eth_tx_mark_ready(txq, base, base + n - 1, rsm);
    gdaki_eth_count(&txq->pkts, n, gdaki_eth_rsm(rsm));
    gdaki_eth_count(&txq->bytes, bytes, gdaki_eth_rsm(rsm));
    gdaki_eth_tx_submit(txq, base + n, rsm, sync_scope, nic);
}

/*
 * Sends one packet, thread scope: addr, mkey_be (htobe32 of the lkey),
 * size, flags (enum doca_gpu_eth_send_flags); *ticket: its WQE index.
 * DOCA_ERROR_AGAIN: the ring is full (nothing posted): poll completions and
 * retry.
 */
GDAKI_INLINE doca_error_t gdaki_eth_tx_send(struct doca_gpu_eth_txq *txq, uint64_t addr,
                                            gdaki_be32_t mkey_be, uint32_t size, uint32_t flags,
                                            uint64_t *ticket,
                                            enum doca_gpu_dev_eth_resource_sharing_mode rsm,
                                            enum doca_gpu_dev_eth_sync_scope sync_scope,
                                            enum doca_gpu_dev_eth_nic_handler nic)
{
    uint64_t idx;
    doca_error_t st = gdaki_eth_tx_reserve(txq, 1, rsm, &idx);

    if (st != DOCA_SUCCESS)
        return st;
    gdaki_eth_tx_wqe_send(txq, gdaki_eth_tx_wqe_ptr(txq, idx), idx, addr, mkey_be, size, flags);
    gdaki_eth_tx_commit(txq, idx, 1, size, rsm, sync_scope, nic);
    *ticket = idx;
    return DOCA_SUCCESS;
}

/*
 * Consumes up to num_cqe CQEs (DOCA's doca_gpu_dev_eth_txq_poll_completion):
 * POLL_ALL reads each, POLL_LAST only the num_cqe-th (it completes every one
 * before it); WAIT_FLAG_B waits for them, WAIT_FLAG_NB takes what is there.
 * *num_completed: CQEs consumed. An error CQE is consumed too, recorded (the
 * first) and counted, and the call returns DOCA_ERROR_UNEXPECTED (DOCA's
 * code); so does a blocking call that would wait on a queue already in
 * error. Pollers of a shared queue take turns (cq_lock).
 */
GDAKI_INLINE doca_error_t gdaki_eth_tx_poll_completion(
        struct doca_gpu_eth_txq *txq, uint32_t num_cqe, enum doca_gpu_dev_eth_cq_poll_mode cq_poll,
        enum doca_gpu_dev_eth_wait_flags wait_mode, uint32_t *num_completed,
        enum doca_gpu_dev_eth_resource_sharing_mode rsm,
        enum doca_gpu_dev_eth_sync_scope sync_scope)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode vrsm = gdaki_eth_rsm(rsm);
    const uint8_t *ring = (const uint8_t *)gdaki_ro_ptr((void *const *)&txq->cqe_daddr);
    const uint32_t mask = gdaki_ro_u32(&txq->cqe_mask);
    const uint32_t log_num = gdaki_ro_u32(&txq->cqe_log_num);
    gdaki_be32_t *cq_dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&txq->cq_dbrec);
    const int shared = vrsm != DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    doca_error_t status = DOCA_SUCCESS;
    uint32_t got = 0, errors = 0;
    uint64_t ci, last = 0;

    *num_completed = 0;
    if (num_cqe == 0)
        return DOCA_SUCCESS;
    if (shared) {
        while (!gdaki_trylock(&txq->cq_lock, vrsm)) {
            if (wait_mode == DOCA_GPUNETIO_ETH_WAIT_FLAG_NB)
                return DOCA_SUCCESS;
            gdaki_spin_pause();
        }
    }
    ci = gdaki_load_relaxed_u64(&txq->cqe_ci, vrsm);
    while (got < num_cqe) {
        /* POLL_LAST: only the last CQE of the range says anything. */
        const uint64_t k = cq_poll == DOCA_GPUNETIO_ETH_CQ_POLL_LAST ? ci + num_cqe - 1 : ci + got;
        uint16_t counter = 0;
        int st = gdaki_eth_cqe_peek(ring, mask, log_num, k, &counter);
        uint64_t d;

        if (st == GDAKI_ETH_CQE_NONE) {
            if (wait_mode == DOCA_GPUNETIO_ETH_WAIT_FLAG_NB)
                break;
            if (gdaki_load_volatile_u32(&txq->err.has_error) != 0) {
                status = DOCA_ERROR_UNEXPECTED;
                break;
            }
            gdaki_spin_pause();
            continue;
        }
        d = gdaki_eth_tx_done_of(txq, counter, vrsm);
        if (d > last)
            last = d;
        got = cq_poll == DOCA_GPUNETIO_ETH_CQ_POLL_LAST ? num_cqe : got + 1;
        if (st == GDAKI_ETH_CQE_ERR) {
            gdaki_eth_record_error(&txq->err, gdaki_eth_cqe_at(ring, mask, k), counter);
            errors++;
            status = DOCA_ERROR_UNEXPECTED;
            break;
        }
    }
    if (got != 0) {
        gdaki_store_release_u64(&txq->cqe_ci, ci + got, vrsm);
        gdaki_fence_release(gdaki_eth_nic_scope(gdaki_ro_u32(&txq->nic_scope), sync_scope));
        gdaki_store_volatile_u32(cq_dbrec, gdaki_eth_cq_dbr_value(ci + got));
        gdaki_eth_count(&txq->completions, got, vrsm);
        if (errors != 0)
            gdaki_eth_count(&txq->errors, errors, vrsm);
    }
    if (last != 0)
        gdaki_eth_raise(&txq->wqe_done, last, vrsm);
    if (shared)
        gdaki_unlock(&txq->cq_lock, vrsm);
    *num_completed = got;
    return status;
}

#endif /* DOCA_GPUNETIO_IMPL_ETH_TXQ_H */
