/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO Ethernet device API, send (DOCA 3.x's names, template
 * parameters and argument orders), over the C data-path core
 * (impl/gdaki_eth_txq.h), which CPU threads run too.
 *
 * doca_gpu_dev_eth_txq_send<resource_sharing_mode, sync_scope, nic_handler,
 * exec_scope>(txq, addr, mkey, size, flags, &ticket) posts one packet per
 * calling thread (mkey: the lkey, big-endian; flags NOTIFY asks for a CQE);
 * the ticket is its WQE index. THREAD: each thread posts and submits its
 * own; WARP: the 32 lanes of a converged warp call together, lane 0
 * reserves 32 slots and submits them; BLOCK: every thread of a (1D) block
 * calls, thread 0 reserves blockDim.x slots (at most the ring's size) and
 * submits them.
 * doca_gpu_dev_eth_txq_poll_completion<cq_poll, resource_sharing_mode,
 * sync_scope>(txq, num_cqe, wait_mode, &num_completed) consumes CQEs.
 *
 * A full ring (DOCA_ERROR_AGAIN in the C core): DOCA's send returns nothing
 * and reuses slots without looking. Here the send, and reserve_wq_slots,
 * wait until the slots are free, which they become as CQEs of later WQEs
 * arrive (NOTIFY, or an error): send with NOTIFY now and then, as DOCA's
 * samples do (the last packet of a batch), and poll those completions. A
 * kernel that wants AGAIN instead can call the core's gdaki_eth_tx_send().
 *
 * poll_completion returns DOCA_ERROR_UNEXPECTED on an error CQE (DOCA's
 * code; the CQE is consumed, recorded in txq->err and counted) and, when
 * blocking, instead of waiting on a queue already in error.
 *
 * Not provided: the wait-on-time sends (wait_send, wqe_prepare_wait_time,
 * calculate_timestamp), the enhanced multi-packet WQE, two-segment sends.
 */
#ifndef DOCA_GPUNETIO_DEV_ETH_TXQ_CUH
#define DOCA_GPUNETIO_DEV_ETH_TXQ_CUH

#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_dev_eth_common.cuh"
#include "doca_gpunetio_eth_def.h"
#include "impl/gdaki_eth_txq.h"

#define DGN_ETH_RSM_PARAM                                               \
    enum doca_gpu_dev_eth_resource_sharing_mode resource_sharing_mode = \
            DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU
#define DGN_ETH_SYNC_PARAM \
    enum doca_gpu_dev_eth_sync_scope sync_scope = DOCA_GPUNETIO_ETH_SYNC_SCOPE_GPU
#define DGN_ETH_NIC_PARAM \
    enum doca_gpu_dev_eth_nic_handler nic_handler = DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO

/* A send WQE: one 64-byte basic block (control, Ethernet and data segments). */
struct __attribute__((__aligned__(64))) doca_gpu_dev_eth_txq_wqe {
    uint8_t bytes[64];
};

/* ---- low level: slots, WQEs, doorbells ---- */

/* The ring slot of WQE wqe_idx. */
__device__ static __forceinline__ struct doca_gpu_dev_eth_txq_wqe *
doca_gpu_dev_eth_txq_get_wqe_ptr(struct doca_gpu_eth_txq *txq, uint16_t wqe_idx)
{
    return (struct doca_gpu_dev_eth_txq_wqe *)(void *)gdaki_eth_tx_wqe_ptr(txq, wqe_idx);
}

/* Reserves count slots (waiting until they are free); returns the first's WQE index. */
template <DGN_ETH_RSM_PARAM>
__device__ static __forceinline__ uint64_t
doca_gpu_dev_eth_txq_reserve_wq_slots(struct doca_gpu_eth_txq *txq, uint32_t count)
{
    uint64_t base = 0;

    while (gdaki_eth_tx_reserve(txq, count, resource_sharing_mode, &base) == DOCA_ERROR_AGAIN)
        gdaki_spin_pause();
    return base;
}

/* Writes the send WQE of WQE index wqe_idx at wqe_ptr (mkey big-endian). */
__device__ static __forceinline__ doca_error_t doca_gpu_dev_eth_txq_wqe_prepare_send(
        const struct doca_gpu_eth_txq *txq, struct doca_gpu_dev_eth_txq_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint64_t addr, const uint32_t mkey, const uint32_t nbytes,
        const enum doca_gpu_eth_send_flags flags)
{
    gdaki_eth_tx_wqe_send(txq, wqe_ptr->bytes, wqe_idx, addr, mkey, nbytes, (uint32_t)flags);
    return DOCA_SUCCESS;
}

/* WQEs [from_wqe_idx, to_wqe_idx] are written (they become ready after every earlier one). */
template <DGN_ETH_RSM_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_eth_txq_mark_wqes_ready(struct doca_gpu_eth_txq *txq, uint64_t from_wqe_idx,
                                     uint64_t to_wqe_idx)
{
    gdaki_eth_tx_mark_ready(txq, from_wqe_idx, to_wqe_idx, resource_sharing_mode);
}

/* The doorbell record for prod_index, after a release fence of sync_scope. */
template <DGN_ETH_SYNC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_eth_txq_update_dbr(struct doca_gpu_eth_txq *txq,
                                                                       uint32_t prod_index)
{
    gdaki_dbr_write((gdaki_be32_t *)gdaki_ro_ptr((void *const *)&txq->sq_dbrec),
                    gdaki_eth_wq_dbr_value(prod_index),
                    gdaki_eth_nic_scope(gdaki_ro_u32(&txq->nic_scope), sync_scope), 0);
}

/* The UAR doorbell for prod_index (no record), after a release fence of sync_scope. */
template <DGN_ETH_SYNC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_eth_txq_ring_db(struct doca_gpu_eth_txq *txq,
                                                                    uint64_t prod_index)
{
    const uint64_t val = ((uint64_t)gdaki_ro_u32((const uint32_t *)&txq->sq_num_shift8_be) << 32) |
                         gdaki_htobe32((uint32_t)(prod_index & 0xffff) << PRM_WQE_IDX_SHIFT);

    gdaki_db_write((uint64_t *)gdaki_ro_ptr((void *const *)&txq->sq_db), val,
                   gdaki_eth_nic_scope(gdaki_ro_u32(&txq->nic_scope), sync_scope), 0);
}

/* Submits every WQE below prod_index with the handler nic_handler (AUTO: the queue's). */
template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM, DGN_ETH_NIC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_eth_txq_submit(struct doca_gpu_eth_txq *txq,
                                                                   uint64_t prod_index)
{
    gdaki_eth_tx_submit(txq, prod_index, resource_sharing_mode, sync_scope, nic_handler);
}

/* The same, the GPU ringing the doorbell itself. */
template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_eth_txq_submit_db(struct doca_gpu_eth_txq *txq,
                                                                      uint64_t prod_index)
{
    gdaki_eth_tx_submit(txq, prod_index, resource_sharing_mode, sync_scope,
                        DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
}

/* The same, through the CPU proxy. */
template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_eth_txq_submit_proxy(struct doca_gpu_eth_txq *txq, uint64_t prod_index)
{
    gdaki_eth_tx_submit(txq, prod_index, resource_sharing_mode, sync_scope,
                        DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY);
}

/* ---- send ---- */

template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM, DGN_ETH_NIC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_eth_txq_send_thread(
        struct doca_gpu_eth_txq *txq, const uint64_t addr, const uint32_t mkey, const size_t size,
        enum doca_gpu_eth_send_flags flags, doca_gpu_dev_eth_ticket_t *out_ticket)
{
    uint64_t idx = doca_gpu_dev_eth_txq_reserve_wq_slots<resource_sharing_mode>(txq, 1);

    gdaki_eth_tx_wqe_send(txq, gdaki_eth_tx_wqe_ptr(txq, idx), idx, addr, mkey, (uint32_t)size,
                          (uint32_t)flags);
    gdaki_eth_tx_commit(txq, idx, 1, size, resource_sharing_mode, sync_scope, nic_handler);
    *out_ticket = idx;
}

template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM, DGN_ETH_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_eth_txq_send_warp(struct doca_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey,
                               size_t size, enum doca_gpu_eth_send_flags flags,
                               doca_gpu_dev_eth_ticket_t *out_ticket)
{
    const uint32_t lane = doca_gpu_dev_eth_get_lane_id();
    uint64_t base = 0, bytes = 0;

    if (lane == 0)
        base = doca_gpu_dev_eth_txq_reserve_wq_slots<resource_sharing_mode>(
                txq, DOCA_GPUNETIO_ETH_WARP_SIZE);
    base = __shfl_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, base, 0);
    gdaki_eth_tx_wqe_send(txq, gdaki_eth_tx_wqe_ptr(txq, base + lane), base + lane, addr, mkey,
                          (uint32_t)size, (uint32_t)flags);
    for (int l = 0; l < DOCA_GPUNETIO_ETH_WARP_SIZE; l++)
        bytes += __shfl_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, (unsigned long long)size, l);
    /* Every lane's WQE before lane 0 publishes them. */
    __syncwarp();
    if (lane == 0)
        gdaki_eth_tx_commit(txq, base, DOCA_GPUNETIO_ETH_WARP_SIZE, bytes, resource_sharing_mode,
                            sync_scope, nic_handler);
    __syncwarp();
    *out_ticket = base + lane;
}

template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM, DGN_ETH_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_eth_txq_send_block(struct doca_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey,
                                size_t size, enum doca_gpu_eth_send_flags flags,
                                doca_gpu_dev_eth_ticket_t *out_ticket)
{
    __shared__ uint64_t s_base;
    __shared__ unsigned long long s_bytes;

    if (threadIdx.x == 0) {
        s_base = doca_gpu_dev_eth_txq_reserve_wq_slots<resource_sharing_mode>(txq, blockDim.x);
        s_bytes = 0;
    }
    __syncthreads();
    gdaki_eth_tx_wqe_send(txq, gdaki_eth_tx_wqe_ptr(txq, s_base + threadIdx.x),
                          s_base + threadIdx.x, addr, mkey, (uint32_t)size, (uint32_t)flags);
    atomicAdd_block(&s_bytes, (unsigned long long)size);
    /* Every thread's WQE before thread 0 publishes them. */
    __syncthreads();
    if (threadIdx.x == 0)
        gdaki_eth_tx_commit(txq, s_base, blockDim.x, s_bytes, resource_sharing_mode, sync_scope,
                            nic_handler);
    *out_ticket = s_base + threadIdx.x;
    __syncthreads();
}

template <DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM, DGN_ETH_NIC_PARAM,
          enum doca_gpu_dev_eth_exec_scope exec_scope = DOCA_GPUNETIO_ETH_EXEC_SCOPE_THREAD>
__device__ static __forceinline__ void
doca_gpu_dev_eth_txq_send(struct doca_gpu_eth_txq *txq, uint64_t addr, uint32_t mkey, size_t size,
                          enum doca_gpu_eth_send_flags flags, doca_gpu_dev_eth_ticket_t *out_ticket)
{
    if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
        doca_gpu_dev_eth_txq_send_block<resource_sharing_mode, sync_scope, nic_handler>(
                txq, addr, mkey, size, flags, out_ticket);
    else if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP)
        doca_gpu_dev_eth_txq_send_warp<resource_sharing_mode, sync_scope, nic_handler>(
                txq, addr, mkey, size, flags, out_ticket);
    else
        doca_gpu_dev_eth_txq_send_thread<resource_sharing_mode, sync_scope, nic_handler>(
                txq, addr, mkey, size, flags, out_ticket);
}

/* ---- completions ---- */

template <enum doca_gpu_dev_eth_cq_poll_mode cqe_poll = DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
          DGN_ETH_RSM_PARAM, DGN_ETH_SYNC_PARAM>
__device__ static __forceinline__ doca_error_t doca_gpu_dev_eth_txq_poll_completion(
        struct doca_gpu_eth_txq *txq, const uint32_t num_cqe,
        enum doca_gpu_dev_eth_wait_flags wait_mode, uint32_t *num_completed)
{
    return gdaki_eth_tx_poll_completion(txq, num_cqe, cqe_poll, wait_mode, num_completed,
                                        resource_sharing_mode, sync_scope);
}

#undef DGN_ETH_RSM_PARAM
#undef DGN_ETH_SYNC_PARAM
#undef DGN_ETH_NIC_PARAM
#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_ETH_TXQ_CUH */
