/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO Ethernet device API, receive (DOCA 3.x's names, template
 * parameters and argument orders), over the C data-path core
 * (impl/gdaki_eth_rxq.h), which CPU threads run too.
 *
 * doca_gpu_dev_eth_rxq_recv<exec_scope, mcst, nic_handler, rx_attr>(rxq,
 * max_rx_pkts, timeout_ns, &first_pkt_idx, &pkt_num, attr) returns when
 * max_rx_pkts packets are there or timeout_ns has passed (0: no limit for
 * either; with both 0, as soon as at least one packet is there). The packets
 * are pkt_num consecutive slots from first_pkt_idx (modulo the ring:
 * doca_gpu_dev_eth_rxq_get_pkt_addr wraps any index), attr[i] describing
 * packet i when rx_attr asks. Their WQEs go back to the NIC at once: a packet
 * stays valid until the ring wraps back to its slot.
 *
 * Scopes. THREAD: one thread. WARP: the 32 lanes of a converged warp call
 * together; each round every lane reads one CQE, and the run of packets
 * from lane 0 is taken. BLOCK: every thread of the block calls (one block
 * per queue), the same with the block's threads. The outputs are written by
 * lane / thread 0 and seen by every caller when the call returns; the
 * status is the same in every caller. One receiver (thread, warp or block)
 * per queue, as DOCA requires.
 *
 * Differences: mcst (DOCA's Dump WQE for pre-Hopper GPUs) is accepted and
 * ignored; nic_handler is accepted (a receive rings no doorbell); there is no
 * striding RQ. An error CQE returns DOCA_ERROR_DRIVER, with the packets
 * before it, and every later receive returns it too (the RQ is in error).
 */
#ifndef DOCA_GPUNETIO_DEV_ETH_RXQ_CUH
#define DOCA_GPUNETIO_DEV_ETH_RXQ_CUH

#include <stdint.h>

#include "doca_gpunetio_dev_eth_common.cuh"
#include "doca_gpunetio_eth_def.h"
#include "impl/gdaki_eth_rxq.h"

#define DGN_ETH_RX_PARAMS                                                           \
    enum doca_gpu_dev_eth_mcst_mode mcst_mode = DOCA_GPUNETIO_ETH_MCST_DISABLED,    \
                                    enum doca_gpu_dev_eth_nic_handler nic_handler = \
                                            DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO,     \
                                    enum doca_gpu_dev_eth_rxq_attr_type rx_attr =   \
                                            DOCA_GPUNETIO_ETH_RX_ATTR_NONE

/* ---- thread scope ---- */

template <DGN_ETH_RX_PARAMS>
__device__ static __forceinline__ doca_error_t
doca_gpu_dev_eth_rxq_recv_thread(struct doca_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
                                 uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
                                 uint32_t *out_pkt_num, struct doca_gpu_dev_eth_rxq_attr *out_attr)
{
    return gdaki_eth_rx_recv(rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr,
                             rx_attr);
}

/* ---- warp scope ---- */

/* The sum of v over the warp's lanes. */
__device__ static __forceinline__ uint32_t dgn_eth_warp_sum(uint32_t v)
{
    for (int off = DOCA_GPUNETIO_ETH_WARP_SIZE / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, v, off);
    return v;
}

template <DGN_ETH_RX_PARAMS>
__device__ static __forceinline__ doca_error_t
doca_gpu_dev_eth_rxq_recv_warp(struct doca_gpu_eth_rxq *rxq, uint32_t max_rx_pkts,
                               uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
                               uint32_t *out_pkt_num, struct doca_gpu_dev_eth_rxq_attr *out_attr)
{
    const uint32_t lane = doca_gpu_dev_eth_get_lane_id();
    const uint32_t limit = gdaki_eth_rx_limit(rxq, max_rx_pkts);
    const uint64_t ci = DOCA_GPUNETIO_VOLATILE(rxq->cqe_ci);
    const uint64_t start = timeout_ns != 0 ? gdaki_eth_now_ns() : 0;
    uint64_t first = DOCA_GPUNETIO_ETH_RX_NO_PKT;
    uint64_t bytes = 0;
    uint32_t n = 0;
    int error = 0;

    if (lane == 0)
        gdaki_eth_rx_release(rxq);
    for (;;) {
        uint32_t slot = 0, len = 0;
        uint64_t ts = 0;
        int st = GDAKI_ETH_CQE_NONE;
        uint32_t ok, err, take;

        if (n + lane < limit)
            st = gdaki_eth_rx_cqe(rxq, ci + n + lane, &slot, &len, &ts);
        ok = __ballot_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, st == GDAKI_ETH_CQE_OK);
        err = __ballot_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, st == GDAKI_ETH_CQE_ERR);
        /* The run of packets from lane 0. */
        take = ~ok == 0 ? DOCA_GPUNETIO_ETH_WARP_SIZE : (uint32_t)__ffs(~ok) - 1;
        if (lane < take)
            gdaki_eth_rx_attr_set(out_attr != NULL ? &out_attr[n + lane] : NULL, rx_attr, len, ts);
        if (n == 0 && take != 0)
            first = __shfl_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, slot, 0);
        bytes += dgn_eth_warp_sum(lane < take ? len : 0);
        n += take;
        /* An error CQE right after the run ends the receive. */
        if (take < DOCA_GPUNETIO_ETH_WARP_SIZE && (err >> take) & 1) {
            error = 1;
            break;
        }
        if (n >= limit)
            break;
        if (take == DOCA_GPUNETIO_ETH_WARP_SIZE)
            continue;
        if (timeout_ns != 0 && __shfl_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK,
                                           gdaki_eth_now_ns() - start, 0) >= timeout_ns)
            break;
        if (max_rx_pkts == 0 && timeout_ns == 0 && n != 0)
            break;
    }
    if (lane == 0) {
        gdaki_eth_rx_commit(rxq, n, bytes);
        *out_first_pkt_idx = n != 0 ? first : DOCA_GPUNETIO_ETH_RX_NO_PKT;
        *out_pkt_num = n;
    }
    __syncwarp();
    return error ? DOCA_ERROR_DRIVER : DOCA_SUCCESS;
}

/* ---- block scope ---- */

template <DGN_ETH_RX_PARAMS>
__device__ static __forceinline__ doca_error_t
doca_gpu_dev_eth_rxq_recv_block(struct doca_gpu_eth_rxq *rxq, const uint32_t max_rx_pkts,
                                const uint64_t timeout_ns, uint64_t *out_first_pkt_idx,
                                uint32_t *out_pkt_num, struct doca_gpu_dev_eth_rxq_attr *out_attr)
{
    __shared__ uint32_t s_bad, s_err, s_exit, s_first;
    __shared__ unsigned long long s_bytes;
    const uint32_t nthreads = blockDim.x * blockDim.y * blockDim.z;
    const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const uint32_t limit = gdaki_eth_rx_limit(rxq, max_rx_pkts);
    const uint64_t ci = DOCA_GPUNETIO_VOLATILE(rxq->cqe_ci);
    uint64_t start = 0;
    uint32_t n = 0;
    int error = 0;

    if (tid == 0) {
        gdaki_eth_rx_release(rxq);
        s_bytes = 0;
        if (timeout_ns != 0)
            start = gdaki_eth_now_ns();
    }
    for (;;) {
        uint32_t slot = 0, len = 0, take;
        uint64_t ts = 0;
        int st = GDAKI_ETH_CQE_NONE;

        if (tid == 0) {
            s_bad = nthreads;
            s_err = nthreads;
        }
        __syncthreads();
        if (n + tid < limit)
            st = gdaki_eth_rx_cqe(rxq, ci + n + tid, &slot, &len, &ts);
        if (st != GDAKI_ETH_CQE_OK)
            atomicMin_block(&s_bad, tid);
        if (st == GDAKI_ETH_CQE_ERR)
            atomicMin_block(&s_err, tid);
        __syncthreads();
        /* The run of packets from thread 0. */
        take = s_bad;
        if (tid < take) {
            gdaki_eth_rx_attr_set(out_attr != NULL ? &out_attr[n + tid] : NULL, rx_attr, len, ts);
            atomicAdd_block(&s_bytes, (unsigned long long)len);
            if (tid == 0 && n == 0)
                s_first = slot;
        }
        error = s_err < nthreads && s_err == take;
        n += take;
        if (tid == 0)
            s_exit = error || n >= limit ||
                     (take < nthreads &&
                      ((timeout_ns != 0 && gdaki_eth_now_ns() - start >= timeout_ns) ||
                       (max_rx_pkts == 0 && timeout_ns == 0 && n != 0)));
        __syncthreads();
        if (s_exit)
            break;
    }
    __syncthreads();
    if (tid == 0) {
        gdaki_eth_rx_commit(rxq, n, s_bytes);
        *out_first_pkt_idx = n != 0 ? s_first : DOCA_GPUNETIO_ETH_RX_NO_PKT;
        *out_pkt_num = n;
    }
    __syncthreads();
    return error ? DOCA_ERROR_DRIVER : DOCA_SUCCESS;
}

/* ---- any scope ---- */

template <enum doca_gpu_dev_eth_exec_scope exec_scope = DOCA_GPUNETIO_ETH_EXEC_SCOPE_THREAD,
          DGN_ETH_RX_PARAMS>
__device__ static __forceinline__ doca_error_t
doca_gpu_dev_eth_rxq_recv(struct doca_gpu_eth_rxq *rxq, uint32_t max_rx_pkts, uint64_t timeout_ns,
                          uint64_t *out_first_pkt_idx, uint32_t *out_pkt_num,
                          struct doca_gpu_dev_eth_rxq_attr *out_attr)
{
    if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
        return doca_gpu_dev_eth_rxq_recv_block<mcst_mode, nic_handler, rx_attr>(
                rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr);
    if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP)
        return doca_gpu_dev_eth_rxq_recv_warp<mcst_mode, nic_handler, rx_attr>(
                rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr);
    return doca_gpu_dev_eth_rxq_recv_thread<mcst_mode, nic_handler, rx_attr>(
            rxq, max_rx_pkts, timeout_ns, out_first_pkt_idx, out_pkt_num, out_attr);
}

/* ---- packets ---- */

/* The address of packet packet_idx (a slot, or any index past it: the ring wraps). */
__device__ static __forceinline__ uint64_t
doca_gpu_dev_eth_rxq_get_pkt_addr(struct doca_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
    return gdaki_eth_rx_pkt_addr(rxq, packet_idx);
}

/* The packet buffer's memory key, big-endian (what a send of a received packet passes). */
__device__ static __forceinline__ uint32_t
doca_gpu_dev_eth_rxq_get_pkt_mkey(struct doca_gpu_eth_rxq *rxq)
{
    return gdaki_ro_u32((const uint32_t *)&rxq->pkt_mkey);
}

/*
 * The timestamp (ns) and length of the packet last received in slot
 * packet_idx, read again from its CQE: right only until the NIC writes that
 * CQE entry again (the receive's attr does not go stale).
 */
__device__ static __forceinline__ uint64_t
doca_gpu_dev_eth_rxq_get_pkt_ts(const struct doca_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
    return gdaki_eth_rx_pkt_ts(rxq, packet_idx);
}

__device__ static __forceinline__ uint32_t
doca_gpu_dev_eth_rxq_get_pkt_bytes(const struct doca_gpu_eth_rxq *rxq, uint64_t packet_idx)
{
    return gdaki_eth_rx_pkt_bytes(rxq, packet_idx);
}

#undef DGN_ETH_RX_PARAMS
#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_ETH_RXQ_CUH */
