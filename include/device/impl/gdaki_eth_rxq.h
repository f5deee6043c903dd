/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet receive of the data-path core, over a cyclic receive queue
 * (gdaki_eth_desc.h): the NIC fills packet slot i for WQE i and writes one
 * CQE a packet, in order; CQE number k describes packet number k (k counts
 * from 0 over the queue's life, its slot is the CQE's wqe_counter modulo the
 * ring). A receive polls the CQ from the queue's consumer index for up to
 * max packets or until timeout_ns has passed, returns the first packet's
 * slot and the count (the packets of a batch are consecutive slots, modulo
 * the ring) and gives the CQEs back (CQ doorbell record = CQEs consumed).
 * The WQEs of those packets go back to the NIC at the start of the next
 * receive (RQ doorbell record = WQEs posted), so a packet stays valid until
 * the next receive on its queue and the NIC has then filled the rest of the
 * ring: at least DOCA's guarantee (valid until wqe_num more packets), and an
 * answer built in place and sent (and completed) before the next receive is
 * never overwritten.
 *
 * One receiver at a time per queue (DOCA's rule: a thread, a warp or a
 * block owns an rxq): the receiver's state is written without atomics.
 *
 * The calls a CPU thread (--exec cpu) makes:
 *   gdaki_eth_rx_recv()      receive, thread scope;
 *   gdaki_eth_rx_pkt_addr()  where packet slot idx is;
 *   gdaki_eth_rx_counters()  packets, bytes, CQEs, error CQEs so far.
 * The warp and block forms (doca_gpunetio_dev_eth_rxq.cuh) are built of
 * gdaki_eth_rx_release() (the leader, first), gdaki_eth_rx_cqe() (one CQE,
 * one lane) and gdaki_eth_rx_commit() (the leader, then a barrier).
 *
 * An error CQE (RESP_ERR: the RQ went to error) ends a receive with
 * DOCA_ERROR_DRIVER: the packets before it are returned and consumed, the
 * error CQE is not, so every later receive on the queue fails the same way
 * (it never recovers without the host resetting the queue). The first one is
 * recorded in rxq->err and counted in counters.errors.
 */
#ifndef DOCA_GPUNETIO_IMPL_ETH_RXQ_H
#define DOCA_GPUNETIO_IMPL_ETH_RXQ_H

#include <stdint.h>

#include "gdaki_eth_common.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* The address of packet slot idx (any index: the ring wraps), as the executing processor sees it.
 */
GDAKI_INLINE uint64_t gdaki_eth_rx_pkt_addr(const struct doca_gpu_eth_rxq *rxq, uint64_t idx)
{
    uint8_t *base = (uint8_t *)gdaki_ro_ptr((void *const *)&rxq->pkt_daddr);

    return (uint64_t)(uintptr_t)base +
           (idx & gdaki_ro_u32(&rxq->wqe_mask)) * (uint64_t)gdaki_ro_u32(&rxq->pkt_stride);
}

/* The counters of rxq (a snapshot; a receive may be moving them). */
GDAKI_INLINE struct gdaki_eth_counters gdaki_eth_rx_counters(const struct doca_gpu_eth_rxq *rxq)
{
    struct gdaki_eth_counters c;

    c.pkts = gdaki_load_volatile_u64(&rxq->counters.pkts);
    c.bytes = gdaki_load_volatile_u64(&rxq->counters.bytes);
    c.completions = gdaki_load_volatile_u64(&rxq->counters.completions);
    c.errors = gdaki_load_volatile_u64(&rxq->counters.errors);
    return c;
}

/*
 * Reads CQE number k of rxq without waiting: GDAKI_ETH_CQE_NONE (not there
 * yet), GDAKI_ETH_CQE_OK (*slot the packet's slot, *bytes its length, *ts
 * its timestamp in ns), or GDAKI_ETH_CQE_ERR (recorded and counted the first
 * time). The packet's bytes are ordered after the CQE.
 */
GDAKI_INLINE int gdaki_eth_rx_cqe(struct doca_gpu_eth_rxq *rxq, uint64_t k, uint32_t *slot,
                                  uint32_t *bytes, uint64_t *ts)
{
    const uint8_t *ring = (const uint8_t *)gdaki_ro_ptr((void *const *)&rxq->cqe_daddr);
    const uint32_t mask = gdaki_ro_u32(&rxq->cqe_mask);
    const uint8_t *cqe = gdaki_eth_cqe_at(ring, mask, k);
    const struct prm_cqe64 *c = (const struct prm_cqe64 *)(const void *)cqe;
    uint16_t counter = 0;
    int st = gdaki_eth_cqe_peek(ring, mask, gdaki_ro_u32(&rxq->cqe_log_num), k, &counter);

    if (st == GDAKI_ETH_CQE_OK) {
        *slot = counter & gdaki_ro_u32(&rxq->wqe_mask);
        *bytes = gdaki_be32toh(gdaki_load_volatile_u32(&c->byte_cnt));
        *ts = gdaki_eth_ts_ns(gdaki_be64toh(gdaki_load_volatile_u64(&c->timestamp)));
    } else if (st == GDAKI_ETH_CQE_ERR) {
        if (gdaki_eth_record_error(&rxq->err, cqe, counter))
            gdaki_eth_count(&rxq->counters.errors, 1,
                            DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE);
    }
    return st;
}

/*
 * The scope at which the packets' bytes are acquired after their CQEs: the
 * GPU's L1 may hold a slot's previous packet, which a CTA-scope acquire (the
 * CQ polling's) leaves in place; GPU scope drops it where rings and packets
 * are in GPU memory, system scope where the NIC writes host memory.
 */
GDAKI_INLINE enum doca_gpu_dev_verbs_sync_scope
gdaki_eth_rx_data_scope(const struct doca_gpu_eth_rxq *rxq)
{
    return gdaki_ro_u32(&rxq->mem_type) == DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU
                   ? DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU
                   : DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
}

/*
 * Gives the NIC back the WQEs of every packet earlier receives returned (RQ
 * doorbell record = packets consumed + wqe_num), after one release fence at
 * the queue's NIC scope (the caller's loads and stores of those packets
 * before the record that lets the NIC overwrite them). A receive calls it
 * first, so a packet stays valid until the next receive on its queue: an
 * answer built in place and sent before that is never overwritten. The
 * receiver only.
 */
GDAKI_INLINE void gdaki_eth_rx_release(struct doca_gpu_eth_rxq *rxq)
{
    gdaki_be32_t *rq_dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&rxq->rq_dbrec);
    const uint64_t pi = rxq->cqe_ci + gdaki_ro_u32(&rxq->wqe_num);

    if (pi == rxq->wqe_pi)
        return;
    rxq->wqe_pi = pi;
    gdaki_fence_release(
            (enum doca_gpu_dev_verbs_sync_scope)gdaki_ro_u32((const uint32_t *)&rxq->nic_scope));
    gdaki_store_volatile_u32(rq_dbrec, gdaki_eth_wq_dbr_value(pi));
}

/*
 * Consumes the next n CQEs of rxq (n packets of `bytes` bytes in all): one
 * acquire at the packets' scope (gdaki_eth_rx_data_scope; the receivers of
 * a warp or block pass a barrier after it), the consumer index and, after a
 * release fence at the queue's NIC scope (the CQE loads before the record
 * that lets the NIC reuse the entries), the CQ doorbell record, then the
 * counters. The WQEs go back at the next receive (gdaki_eth_rx_release).
 * The receiver only.
 */
GDAKI_INLINE void gdaki_eth_rx_commit(struct doca_gpu_eth_rxq *rxq, uint32_t n, uint64_t bytes)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode one =
            DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    gdaki_be32_t *cq_dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&rxq->cq_dbrec);
    const uint64_t ci = rxq->cqe_ci + n;

    if (n == 0)
        return;
    gdaki_fence_acquire(gdaki_eth_rx_data_scope(rxq));
    rxq->cqe_ci = ci;
    gdaki_fence_release(
            (enum doca_gpu_dev_verbs_sync_scope)gdaki_ro_u32((const uint32_t *)&rxq->nic_scope));
    gdaki_store_volatile_u32(cq_dbrec, gdaki_eth_cq_dbr_value(ci));
    gdaki_eth_count(&rxq->counters.pkts, n, one);
    gdaki_eth_count(&rxq->counters.bytes, bytes, one);
    gdaki_eth_count(&rxq->counters.completions, n, one);
}

/* Fills attr (when rx_attr asks) for one packet. */
GDAKI_INLINE void gdaki_eth_rx_attr_set(struct doca_gpu_dev_eth_rxq_attr *attr,
                                        enum doca_gpu_dev_eth_rxq_attr_type rx_attr, uint32_t bytes,
                                        uint64_t ts)
{
    if (attr == 0 || rx_attr == DOCA_GPUNETIO_ETH_RX_ATTR_NONE)
        return;
    attr->timestamp_ns = ts;
    if (rx_attr == DOCA_GPUNETIO_ETH_RX_ATTR_ALL)
        attr->bytes = bytes;
}

/*
 * The most packets one receive returns: max_rx_pkts (0: no limit) and never
 * more than the ring (the WQEs of a batch go back to the NIC only at the next
 * receive).
 */
GDAKI_INLINE uint32_t gdaki_eth_rx_limit(const struct doca_gpu_eth_rxq *rxq, uint32_t max_rx_pkts)
{
    uint32_t ring = gdaki_ro_u32(&rxq->wqe_num);

    return max_rx_pkts != 0 && max_rx_pkts < ring ? max_rx_pkts : ring;
}

/*
 * Receive, thread scope (DOCA's doca_gpu_dev_eth_rxq_recv_thread): polls
 * until max_rx_pkts packets are there or timeout_ns has passed since the
 * call (whichever first; 0 is no limit for either; with both 0 it returns
 * once at least one packet is there, with every packet there by then).
 * *first_pkt_idx: the first packet's slot (DOCA_GPUNETIO_ETH_RX_NO_PKT when
 * none), *num_pkts: how many, attr[i]: packet i's timestamp and length as
 * rx_attr asks (attr holds max_rx_pkts entries, or the ring's when 0).
 * DOCA_ERROR_DRIVER: an error CQE (the packets before it are returned).
 */
GDAKI_INLINE doca_error_t gdaki_eth_rx_recv(struct doca_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
                                            uint64_t timeout_ns, uint64_t *first_pkt_idx,
                                            uint32_t *num_pkts,
                                            struct doca_gpu_dev_eth_rxq_attr *attr,
                                            enum doca_gpu_dev_eth_rxq_attr_type rx_attr)
{
    const uint32_t limit = gdaki_eth_rx_limit(rxq, max_rx_pkts);
    const uint64_t ci = rxq->cqe_ci;
    const uint64_t start = timeout_ns != 0 ? gdaki_eth_now_ns() : 0;
    doca_error_t status = DOCA_SUCCESS;
    uint64_t first = DOCA_GPUNETIO_ETH_RX_NO_PKT;
    uint64_t bytes = 0;
    uint32_t n = 0;

    gdaki_eth_rx_release(rxq);
    for (;;) {
        while (n < limit) {
            uint32_t slot = 0, len = 0;
            uint64_t ts = 0;
            int st = gdaki_eth_rx_cqe(rxq, ci + n, &slot, &len, &ts);

            if (st == GDAKI_ETH_CQE_NONE)
                break;
            if (st == GDAKI_ETH_CQE_ERR) {
                status = DOCA_ERROR_DRIVER;
                goto out;
            }
            if (n == 0)
                first = slot;
            gdaki_eth_rx_attr_set(attr != 0 ? &attr[n] : attr, rx_attr, len, ts);
            bytes += len;
            n++;
        }
        if (n >= limit)
            break;
        if (timeout_ns != 0 && gdaki_eth_now_ns() - start >= timeout_ns)
            break;
        if (max_rx_pkts == 0 && timeout_ns == 0 && n != 0)
            break;
        gdaki_spin_pause();
    }
out:
    gdaki_eth_rx_commit(rxq, n, bytes);
    *first_pkt_idx = n != 0 ? first : DOCA_GPUNETIO_ETH_RX_NO_PKT;
    *num_pkts = n;
    return status;
}

/* The number of the last packet received in slot idx (below the consumer index). */
GDAKI_INLINE uint64_t gdaki_eth_rx_slot_number(const struct doca_gpu_eth_rxq *rxq, uint64_t idx)
{
    const uint64_t ci = rxq->cqe_ci;
    const uint32_t mask = gdaki_ro_u32(&rxq->wqe_mask);

    /* The packet number below ci whose slot is idx. */
    return ci - 1 - ((ci - 1 - idx) & mask);
}

/*
 * The timestamp (ns) and length of the last packet received in slot idx, read
 * again from its CQE (valid until the NIC writes that CQE entry again).
 */
GDAKI_INLINE uint64_t gdaki_eth_rx_pkt_ts(const struct doca_gpu_eth_rxq *rxq, uint64_t idx)
{
    const uint8_t *ring = (const uint8_t *)gdaki_ro_ptr((void *const *)&rxq->cqe_daddr);
    const struct prm_cqe64 *c = (const struct prm_cqe64 *)(const void *)gdaki_eth_cqe_at(
            ring, gdaki_ro_u32(&rxq->cqe_mask), gdaki_eth_rx_slot_number(rxq, idx));

    return gdaki_eth_ts_ns(gdaki_be64toh(gdaki_load_volatile_u64(&c->timestamp)));
}

GDAKI_INLINE uint32_t gdaki_eth_rx_pkt_bytes(const struct doca_gpu_eth_rxq *rxq, uint64_t idx)
{
    const uint8_t *ring = (const uint8_t *)gdaki_ro_ptr((void *const *)&rxq->cqe_daddr);
    const struct prm_cqe64 *c = (const struct prm_cqe64 *)(const void *)gdaki_eth_cqe_at(
            ring, gdaki_ro_u32(&rxq->cqe_mask), gdaki_eth_rx_slot_number(rxq, idx));

    return gdaki_be32toh(gdaki_load_volatile_u32(&c->byte_cnt));
}

#endif /* DOCA_GPUNETIO_IMPL_ETH_RXQ_H */
