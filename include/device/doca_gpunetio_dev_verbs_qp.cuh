/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, low level: ring slots, WQE preparation,
 * doorbells and submission, with DOCA's names, template parameters and
 * argument orders, over the C data-path core (gdaki_verbs_sq.h,
 * gdaki_verbs_wqe.h). Memory keys are big-endian (DOCA_GPUNETIO_VERBS_MKEY_SWAPPED).
 *
 * Completions are matched to WQEs by their WQE counter, and slot reuse
 * waits on them: on a CQ that is not collapsed every WQE must ask for a CQE
 * (DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE; doca_gpu_dev_verbs_cqe_ctrl_flags
 * says which may not).
 *
 * Fences: a sync_scope template argument is honoured where it is at least
 * as wide as the QP's NIC scope (sq_nic_scope: what the NIC needs to see
 * the WQEs), and widened to it otherwise; SYS is always SYS.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_QP_H
#define DOCA_GPUNETIO_DEV_VERBS_QP_H

#include "doca_gpunetio_dev_verbs_cq.cuh"

/* ---- Slots ---- */

/* Stores one 16-byte segment of a WQE (val[0], val[1]), streamed: the GPU does not read it back. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_store_wqe_seg(uint64_t *ptr,
                                                                        uint64_t *val)
{
    gdaki_store_wqe_seg(ptr, val);
}

__device__ static __forceinline__ struct doca_gpu_dev_verbs_wqe *
doca_gpu_dev_verbs_get_wqe_ptr(struct doca_gpu_dev_verbs_qp *qp, uint16_t wqe_idx)
{
    return gdaki_wqe_ptr(qp, wqe_idx);
}

/*
 * Slot slot_idx of the per-slot ready flags DOCA's free-flow proxy reads
 * through sq_db. This library's free-flow proxy reads the published
 * producer index instead (mark_wqes_ready publishes it): its sq_db is NULL
 * and the pointer is not to be dereferenced.
 */
/* Receive slot wqe_idx of the QP's receive queue (the index wraps). */
__device__ static __forceinline__ struct doca_gpunetio_ib_mlx5_wqe_data_seg *
doca_gpu_dev_verbs_get_rwqe_ptr(struct doca_gpu_dev_verbs_qp *qp, uint16_t wqe_idx)
{
    return gdaki_rwqe_ptr(qp, wqe_idx);
}

__device__ static __forceinline__ uint64_t *
doca_gpu_dev_verbs_get_proxy_ready_ptr(struct doca_gpu_dev_verbs_qp *qp, uint16_t slot_idx)
{
    uint64_t *flags = (uint64_t *)gdaki_ro_ptr((void *const *)&qp->sq_db);

    return flags + (slot_idx & gdaki_ro_u32(&qp->sq_wqe_mask));
}

/*
 * Waits until slot wqe_idx (and every slot before it) may be written: the
 * WQE that last used it has completed, in error or not. qp_type: the send
 * or the receive queue. cq_type is accepted for DOCA: the CQ's kind is read
 * from its descriptor.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_64B>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_wait_until_slot_available(struct doca_gpu_dev_verbs_qp *qp, uint64_t wqe_idx)
{
    if (qp_type == DOCA_GPUNETIO_VERBS_QP_RQ)
        gdaki_rq_wait_slots(qp, wqe_idx, 1);
    else
        gdaki_sq_wait_slots(qp, wqe_idx, 1);
}

/*
 * Reserves count slots of the qp_type queue; returns the first.
 * SKIP_AVAILABILITY_CHECK: without waiting for them.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_64B>
__device__ static __forceinline__ uint64_t
doca_gpu_dev_verbs_reserve_wq_slots(struct doca_gpu_dev_verbs_qp *qp, uint32_t count,
                                    uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    if (qp_type == DOCA_GPUNETIO_VERBS_QP_RQ)
        return gdaki_rq_reserve(qp, count, resource_sharing_mode, code_opt);
    return gdaki_sq_reserve(qp, count, resource_sharing_mode, code_opt);
}

/*
 * The completion flags of a WQE posted with code_opt on a CQ of kind
 * cq_type: always a CQE on a CQ that is not collapsed (64B, and UNKNOWN,
 * which is not resolved here); none for a WQE posted with SKIP_DB_RINGING
 * on a collapsed CQ, `requested` otherwise (gdaki_wqe_cqe_flags).
 */
template <enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_64B>
__device__ static __forceinline__ enum doca_gpu_dev_verbs_wqe_ctrl_flags
doca_gpu_dev_verbs_cqe_ctrl_flags(
        uint32_t code_opt,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags requested = DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE)
{
    return (enum doca_gpu_dev_verbs_wqe_ctrl_flags)gdaki_wqe_cqe_flags(cq_type, code_opt,
                                                                       (uint8_t)requested);
}

/*
 * Moves ready_index past WQEs [from_wqe_idx, to_wqe_idx] once it reaches
 * from_wqe_idx (every earlier range is ready), with release order. ready_mode:
 * how the turn is waited for (gdaki_ready_advance).
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_ready_mode ready_mode = DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT>
__device__ static __forceinline__ void doca_gpu_dev_common_mark_wqes_ready(uint64_t &ready_index,
                                                                           uint64_t from_wqe_idx,
                                                                           uint64_t to_wqe_idx)
{
    gdaki_ready_advance(&ready_index, from_wqe_idx, to_wqe_idx, resource_sharing_mode, ready_mode);
}

/*
 * mark_wqes_ready for a QP rung by the free-flow proxy: the WQEs become
 * ready in order (GPU-wide) and are published to the proxy.
 */
__device__ static __forceinline__ void doca_gpu_dev_verbs_mark_wqes_ready_free_flow(
        struct doca_gpu_dev_verbs_qp *qp, uint64_t from_wqe_idx, uint64_t to_wqe_idx,
        uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_ready(qp, from_wqe_idx, to_wqe_idx, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                   DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT,
                   DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW, code_opt);
}

/*
 * Marks WQEs [from_wqe_idx, to_wqe_idx] of the qp_type queue as written,
 * after every earlier WQE; on the send queue of a free-flow QP
 * (nic_handler, or the QP's for AUTO) also publishes them, which is all
 * such a QP needs (gdaki_sq_ready).
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_qp_ready_mode ready_mode =
                  DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS,
          enum doca_gpu_dev_verbs_nic_handler nic_handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_mark_wqes_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from_wqe_idx,
                                   uint64_t to_wqe_idx,
                                   uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    if (qp_type == DOCA_GPUNETIO_VERBS_QP_RQ)
        gdaki_rq_ready(qp, from_wqe_idx, to_wqe_idx, resource_sharing_mode, ready_mode);
    else
        gdaki_sq_ready(qp, from_wqe_idx, to_wqe_idx, resource_sharing_mode, ready_mode, nic_handler,
                       code_opt);
}

/* ---- Doorbell record and doorbell ---- */

/* The doorbell record value for prod_index: its low 16 bits, big-endian. */
__device__ static __forceinline__ __be32 doca_gpu_dev_verbs_prepare_dbr(uint32_t prod_index)
{
    return gdaki_sq_dbr_value(prod_index);
}

/* Stores the doorbell record for prod_index at dbrec (relaxed, system scope; no fence). */
__device__ static __forceinline__ void doca_gpu_dev_common_update_dbr(uint32_t *dbrec,
                                                                      uint32_t prod_index)
{
    gdaki_store_volatile_u32(dbrec, gdaki_sq_dbr_value(prod_index));
}

/* The qp_type counter of the QP's doorbell record for prod_index, unordered: the caller fences. */
template <enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_priv_gpu_dev_verbs_update_dbr(struct doca_gpu_dev_verbs_qp *qp, uint32_t prod_index)
{
    doca_gpu_dev_common_update_dbr((uint32_t *)gdaki_ro_ptr(qp_type == DOCA_GPUNETIO_VERBS_QP_RQ
                                                                    ? (void *const *)&qp->rq_dbrec
                                                                    : (void *const *)&qp->sq_dbrec),
                                   prod_index);
}

/*
 * The qp_type counter of the QP's doorbell record for prod_index after a
 * release fence of sync_scope (at least the queue's NIC scope);
 * ASYNC_STORE_RELEASE: one asynchronous release store instead, where the
 * GPU has it. For the receive queue that store is all a post needs.
 */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_update_dbr(struct doca_gpu_dev_verbs_qp *qp, uint32_t prod_index,
                              uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    if (qp_type == DOCA_GPUNETIO_VERBS_QP_RQ)
        gdaki_rq_dbr_update(qp, prod_index, sync_scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS,
                            code_opt);
    else
        gdaki_sq_dbr_update(qp, prod_index,
                            gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, sync_scope),
                            code_opt);
}

/*
 * A doorbell: the first 8 bytes of a control segment naming QP qpn_ds (the
 * big-endian qpn << 8) and WQE index prod_index (its low 16 bits).
 */
__device__ static __forceinline__ __be64 doca_gpu_dev_common_prepare_db(uint32_t qpn_ds,
                                                                        uint64_t prod_index)
{
    return ((uint64_t)qpn_ds << 32) |
           gdaki_htobe32((uint32_t)(prod_index & 0xffff) << DOCA_GPUNETIO_VERBS_WQE_IDX_SHIFT);
}

/*
 * Writes doorbell value db_val to the register at db_ptr, after a release
 * fence of sync_scope (or as one asynchronous release store with
 * ASYNC_STORE_RELEASE, where the GPU has it).
 */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_common_write_db(uint64_t *db_ptr, uint64_t db_val,
                             uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_db_write(db_ptr, db_val, sync_scope, code_opt);
}

template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_common_ring_db(uint64_t *db_ptr, uint32_t qpn_ds, uint64_t prod_index,
                            uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    doca_gpu_dev_common_write_db<sync_scope>(
            db_ptr, doca_gpu_dev_common_prepare_db(qpn_ds, prod_index), code_opt);
}

__device__ static __forceinline__ __be64
doca_gpu_dev_verbs_prepare_db(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index)
{
    return gdaki_sq_db_value(qp, prod_index);
}

/* The QP's doorbell register for prod_index (no record), fenced as update_dbr. */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_ring_db(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                           uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_db_ring(qp, prod_index,
                     gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, sync_scope), code_opt);
}

/*
 * BlueFlame: WQE *wqe_ptr (a copy of the last one posted, in any memory the
 * thread reads) written into the QP's BlueFlame register, which is the
 * doorbell; consecutive writes alternate between its two buffers. Call it
 * holding the QP's sq_lock, or as the QP's only thread, as submit_bf does.
 */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_ring_bf(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr)
{
    gdaki_sq_bf_ring(qp, wqe_ptr,
                     gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, sync_scope));
}

/*
 * The same by a whole warp (every lane calls it, with the same arguments):
 * lane 0 fences and picks the buffer, lanes 0-7 store 8 bytes each.
 */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_ring_bf_warp(struct doca_gpu_dev_verbs_qp *qp,
                                struct doca_gpu_dev_verbs_wqe *wqe_ptr)
{
    const unsigned int lane = gdaki_lane_id();
    uint64_t reg = 0;

    if (lane == 0) {
        reg = (uint64_t)(uintptr_t)gdaki_sq_bf_reg(qp);
        gdaki_sq_fence(qp, gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, sync_scope));
    }
    /* The other lanes' stores come after lane 0's fence. */
    __syncwarp();
    reg = __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, reg, 0);
    if (lane < 8)
        gdaki_store_volatile_u64((uint64_t *)(uintptr_t)reg + lane,
                                 ((const uint64_t *)(const void *)wqe_ptr)[lane]);
    if (lane == 0)
        gdaki_sq_bf_flip(qp);
}

/*
 * Raises the producer index the CPU proxy reads to prod_idx (never
 * lowering it). This library's proxy reads cpu_proxy_pi, not sq_db; it is
 * raised under sq_lock together with sq_wqe_pi, which records it.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_ring_proxy(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx)
{
    gdaki_sq_submit(qp, prod_idx, resource_sharing_mode, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY,
                    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
}

/* ---- Submission: the producer index goes to the NIC (or the CPU proxy) ---- */

/*
 * Every submit publishes the WQEs below prod_index, whether or not they
 * were marked ready (as DOCA), and up to sq_ready_index when that is
 * further; sq_wqe_pi records what was published and never goes back
 * (gdaki_sq_submit_wqe). code_opt: SKIP_DB_RINGING publishes nothing,
 * ASYNC_STORE_RELEASE makes the record and doorbell stores asynchronous
 * where the GPU has them; CPU_PROXY_UPDATE_PI is accepted: sq_wqe_pi is
 * always updated, the proxy's submit relies on it.
 */

/* Doorbell record, then doorbell. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_db(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                             uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_index, resource_sharing_mode,
                    gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB, sync_scope),
                    code_opt);
}

/* The doorbell alone (a QP whose NIC reads no doorbell record). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static inline void
doca_gpu_dev_verbs_submit_db_no_dbr(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                                    uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_index, resource_sharing_mode,
                    gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR, sync_scope),
                    code_opt);
}

/*
 * BlueFlame: the doorbell record, then WQE prod_index - 1 written into the
 * register (ring_bf). smem_wqe is a copy of that WQE: DOCA asks for one in
 * shared memory, for the copy engine; any memory the thread reads will do
 * here. The WQE must be in the ring as well. When other threads' WQEs are
 * published with it, the ring's last WQE is written instead.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_bf(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                             struct doca_gpu_dev_verbs_wqe *smem_wqe,
                             uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit_wqe(qp, prod_index, resource_sharing_mode,
                        gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, sync_scope),
                        code_opt, smem_wqe);
}

/* submit_bf by a whole warp (every lane calls it, with the same arguments): ring_bf_warp. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_bf_warp(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                                  struct doca_gpu_dev_verbs_wqe *wqe,
                                  uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    const unsigned int lane = gdaki_lane_id();
    uint64_t pub = 0;

    if (code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING)
        return;
    if (lane == 0)
        pub = gdaki_sq_publish_begin(qp, prod_index, resource_sharing_mode);
    pub = __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, pub, 0);
    if (pub == 0)
        return;
    if (lane == 0)
        gdaki_sq_dbr_update(qp, pub,
                            gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, sync_scope),
                            code_opt);
    doca_gpu_dev_verbs_ring_bf_warp<sync_scope>(qp, pub == prod_index ? wqe
                                                                      : gdaki_wqe_ptr(qp, pub - 1));
    if (lane == 0)
        gdaki_sq_publish_end(qp, pub, resource_sharing_mode);
    __syncwarp();
}

/* To the CPU proxy: the producer index in the word it reads. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_proxy(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                                uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_index, resource_sharing_mode,
                    gdaki_nic_word(DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY, sync_scope),
                    code_opt);
}

/*
 * With nic_handler (AUTO: the QP's). Every handler publishes: GPU_SM_BF
 * writes the ring's WQE prod_index - 1 into the BlueFlame register, and
 * CPU_PROXY_FREE_FLOW publishes to its proxy what mark_wqes_ready has not.
 * qp_type RQ: the receive WQEs below prod_index go to the NIC through the
 * doorbell record's receive counter, whatever the handler (a receive queue
 * has no doorbell, and no proxy is needed to write a record).
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_nic_handler nic_handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index,
                          uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    if (qp_type == DOCA_GPUNETIO_VERBS_QP_RQ)
        gdaki_rq_submit(qp, prod_index, resource_sharing_mode,
                        sync_scope == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, code_opt);
    else
        gdaki_sq_submit(qp, prod_index, resource_sharing_mode,
                        gdaki_nic_word(nic_handler, sync_scope), code_opt);
}

/* ---- WQE preparation: one basic block each, zero-filled (but atomic_ext's 8-byte CS) ---- */

__device__ static __forceinline__ void
doca_gpu_dev_verbs_wqe_prepare_nop(struct doca_gpu_dev_verbs_qp *qp,
                                   struct doca_gpu_dev_verbs_wqe *wqe_ptr, const uint16_t wqe_idx,
                                   enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags)
{
    gdaki_wqe_nop(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags);
}

/* RDMA write (opcode RDMA_WRITE, or RDMA_WRITE_IMM with a big-endian immediate) of one buffer. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_write(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint32_t immediate,
        const uint64_t raddr, const uint32_t rkey, const uint64_t laddr0, const uint32_t lkey0,
        const uint32_t bytes0)
{
    gdaki_wqe_rdma(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, immediate, raddr,
                   rkey, laddr0, lkey0, bytes0);
}

/* The same gathering two buffers, in order. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_write(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint32_t immediate,
        const uint64_t raddr, const uint32_t rkey, const uint64_t laddr0, const uint32_t lkey0,
        const uint32_t bytes0, const uint64_t laddr1, const uint32_t lkey1, const uint32_t bytes1)
{
    gdaki_wqe_rdma2(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, immediate, raddr,
                    rkey, laddr0, lkey0, bytes0, laddr1, lkey1, bytes1);
}

/*
 * The inline write in two steps: the header (control and remote-address
 * segments, sized for `bytes` of data, at most DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE),
 * then the data (its size is sizeof(T), which must match).
 */
__device__ static __forceinline__ void doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_header(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
        const uint64_t raddr, const uint32_t rkey, const uint32_t bytes)
{
    DOCA_GPUNETIO_VERBS_ASSERT(bytes <= DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE);
    gdaki_wqe_inl_header(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, raddr, rkey, bytes);
}

template <typename T>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_data(struct doca_gpu_dev_verbs_qp *qp,
                                                   struct doca_gpu_dev_verbs_wqe *wqe_ptr, T data)
{
    static_assert(sizeof(T) <= DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE,
                  "inline data is 28 bytes at most");
    (void)qp;
    gdaki_wqe_inl_data(wqe_ptr, &data, sizeof(T));
}

/* RDMA write of `bytes` (at most DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE) from laddr, carried in the
 * WQE. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_write_inl(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
        const uint64_t raddr, const uint32_t rkey, const uint64_t laddr, const uint32_t bytes)
{
    DOCA_GPUNETIO_VERBS_ASSERT(bytes <= DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE);
    gdaki_wqe_write_inl(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, raddr, rkey,
                        (const void *)(uintptr_t)laddr, bytes);
}

/* Send (opcode SEND, or SEND_IMM with a big-endian immediate) of one buffer: 2 DS. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_send(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint32_t immediate,
        const uint64_t laddr, const uint32_t lkey, const uint32_t bytes)
{
    gdaki_wqe_send(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, immediate, laddr,
                   lkey, bytes);
}

/* Send without data (typically SEND_IMM, the immediate being the message): 1 DS. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_send(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint32_t immediate)
{
    gdaki_wqe_send_empty(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, immediate);
}

/*
 * Receive WQE rwqe (get_rwqe_ptr) of one buffer, mkey big-endian; on a
 * receive queue with room for more scatter entries the list is ended after
 * it.
 */
__device__ static __forceinline__ void
doca_gpu_dev_verbs_wqe_prepare_recv(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpunetio_ib_mlx5_wqe_data_seg *rwqe,
                                    const uint64_t addr, const uint32_t mkey, const uint32_t bytes)
{
    gdaki_rwqe_prepare(qp, rwqe, addr, mkey, bytes);
}

__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_read(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
        const uint64_t raddr, const uint32_t rkey, const uint64_t laddr0, const uint32_t lkey0,
        const uint32_t bytes0)
{
    gdaki_wqe_rdma(qp, wqe_ptr, wqe_idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_READ,
                   (uint8_t)ctrl_flags, 0, raddr, rkey, laddr0, lkey0, bytes0);
}

/* The same scattering into two buffers, in order. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_read(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
        const uint64_t raddr, const uint32_t rkey, const uint64_t laddr0, const uint32_t lkey0,
        const uint32_t bytes0, const uint64_t laddr1, const uint32_t lkey1, const uint32_t bytes1)
{
    gdaki_wqe_rdma2(qp, wqe_ptr, wqe_idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_READ,
                    (uint8_t)ctrl_flags, 0, raddr, rkey, laddr0, lkey0, bytes0, laddr1, lkey1,
                    bytes1);
}

/*
 * Atomic (opcode ATOMIC_FA: adds compare_add; ATOMIC_CS: writes swap_add
 * where *raddr == compare_add); `bytes` of the old value land big-endian
 * at laddr.
 */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_atomic(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr,
        const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint64_t raddr,
        const uint32_t rkey, const uint64_t laddr, const uint32_t lkey, const uint32_t bytes,
        const uint64_t compare_add, const uint64_t swap_add)
{
    gdaki_wqe_atomic_n(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, raddr, rkey,
                       laddr, lkey, bytes, compare_add, swap_add);
}

/*
 * Masked atomic on `bytes`-byte operands (gdaki_wqe_atomic_ext): opcode
 * ATOMIC_MASKED_FA takes add_data and field_boundary, ATOMIC_MASKED_CS
 * swap_data, compare_data, swap_mask and compare_mask; each is stored
 * big-endian, as the NIC reads it. The 8-byte compare-swap spans two basic
 * blocks: wqe_ptr1 is the ring's next slot (reserve two); otherwise it is
 * unused.
 */
template <enum doca_gpu_dev_verbs_atomic_ext_bytes bytes = DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4>
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_atomic_ext(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr0,
        struct doca_gpu_dev_verbs_wqe *wqe_ptr1, const uint16_t wqe_idx, const uint32_t opcode,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, const uint64_t raddr,
        const uint32_t rkey, const uint64_t laddr, const uint32_t lkey, const uint64_t add_data,
        const uint64_t field_boundary, const uint64_t swap_data, const uint64_t compare_data,
        const uint64_t swap_mask, const uint64_t compare_mask)
{
    DOCA_GPUNETIO_VERBS_ASSERT(opcode == DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_FA ||
                               opcode == DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_CS);
    gdaki_wqe_atomic_ext(qp, wqe_ptr0, wqe_ptr1, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags,
                         raddr, rkey, laddr, lkey, (uint32_t)bytes, add_data, field_boundary,
                         swap_data, compare_data, swap_mask, compare_mask);
}

/*
 * Core-direct WAIT: the SQ stalls until CQ qpn_cqn has produced max_index
 * CQEs (its low 24 bits, the CQ counter's width).
 */
__device__ static __forceinline__ void
doca_gpu_dev_verbs_wqe_prepare_wait(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint16_t wqe_idx,
                                    enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
                                    const uint32_t max_index, const uint32_t qpn_cqn)
{
    gdaki_wqe_wait(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, qpn_cqn, max_index);
}

/* Dump: the NIC gathers [laddr, laddr + bytes) and sends nothing (after reads: their data is in).
 */
__device__ static inline void
doca_gpu_dev_verbs_wqe_prepare_dump(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_wqe *wqe_ptr, const uint16_t wqe_idx,
                                    enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
                                    const uint64_t laddr, const uint32_t lkey, const uint32_t bytes)
{
    gdaki_wqe_dump(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, laddr, lkey, bytes);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_QP_H */
