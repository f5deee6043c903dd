/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, low level: ring slots, WQE preparation,
 * doorbells and submission, with DOCA's names, template parameters and
 * argument orders, over the C data-path core (gdaki_verbs_sq.h,
 * gdaki_verbs_wqe.h). Memory keys are big-endian (DOCA_GPUNETIO_VERBS_MKEY_SWAPPED).
 *
 * Every WQE must ask for a CQE (DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE):
 * completions are matched to WQEs one to one, and slot reuse waits on them.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_QP_CUH
#define DOCA_GPUNETIO_DEV_VERBS_QP_CUH

#include "doca_gpunetio_dev_verbs_cq.cuh"

/* ---- Slots ---- */

__device__ static __forceinline__ struct doca_gpu_dev_verbs_wqe *
doca_gpu_dev_verbs_get_wqe_ptr(struct doca_gpu_dev_verbs_qp *qp, uint64_t wqe_idx)
{
    return gdaki_wqe_ptr(qp, wqe_idx);
}

/* Waits until slot wqe_idx (and every slot before it) may be written. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_wait_until_slot_available(struct doca_gpu_dev_verbs_qp *qp, uint64_t wqe_idx)
{
    gdaki_sq_wait_slots(qp, wqe_idx, 1);
}

/* Reserves count slots; returns the first. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ uint64_t
doca_gpu_dev_verbs_reserve_wq_slots(struct doca_gpu_dev_verbs_qp *qp, uint32_t count,
                                    uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    return gdaki_sq_reserve(qp, count, resource_sharing_mode, code_opt);
}

/* Publishes WQEs [from_wqe_idx, to_wqe_idx] as written (after all earlier ones). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_qp_ready_mode ready_mode =
                  DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_mark_wqes_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from_wqe_idx,
                                   uint64_t to_wqe_idx)
{
    gdaki_sq_mark_ready(qp, from_wqe_idx, to_wqe_idx, resource_sharing_mode);
}

/* ---- WQE preparation ---- */

__device__ static __forceinline__ void
doca_gpu_dev_verbs_wqe_prepare_nop(struct doca_gpu_dev_verbs_qp *qp,
                                   struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                   enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags)
{
    gdaki_wqe_nop(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags);
}

/* RDMA write (opcode RDMA_WRITE, or RDMA_WRITE_IMM with a big-endian immediate) of one buffer. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_write(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        uint32_t opcode, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint32_t immediate,
        uint64_t raddr, uint32_t rkey, uint64_t laddr, uint32_t lkey, uint32_t size)
{
    gdaki_wqe_rdma(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, immediate, raddr,
                   rkey, laddr, lkey, size);
}

/* RDMA write of size (at most DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE) bytes carried in the WQE. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_write_inl(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint64_t raddr, uint32_t rkey,
        const void *data, uint32_t size)
{
    gdaki_wqe_write_inl(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, raddr, rkey, data, size);
}

/* The inline write in two steps: the header (for `size` bytes), then the value. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_header(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint64_t raddr, uint32_t rkey,
        uint32_t size)
{
    uint8_t zeros[DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE] = {0};

    gdaki_wqe_write_inl(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, raddr, rkey, zeros, size);
}

template <typename T>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_data(struct doca_gpu_dev_verbs_qp *qp,
                                                   struct doca_gpu_dev_verbs_wqe *wqe_ptr, T value)
{
    static_assert(sizeof(T) <= DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE,
                  "inline data is 28 bytes at most");
    const uint8_t *src = (const uint8_t *)&value;
    uint8_t *dst = wqe_ptr->inl_data + sizeof(struct prm_wqe_ctrl_seg) +
                   sizeof(struct prm_wqe_raddr_seg) + sizeof(struct prm_wqe_inline_seg);

    (void)qp;
    for (unsigned int i = 0; i < sizeof(T); i++)
        dst[i] = src[i];
}

__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_read(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint64_t raddr, uint32_t rkey,
        uint64_t laddr, uint32_t lkey, uint32_t size)
{
    gdaki_wqe_rdma(qp, wqe_ptr, wqe_idx, PRM_WQE_OPCODE_RDMA_READ, (uint8_t)ctrl_flags, 0, raddr,
                   rkey, laddr, lkey, size);
}

/* 8-byte atomic (ATOMIC_FA or ATOMIC_CS); the old value lands big-endian at laddr. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_atomic(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        uint32_t opcode, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint64_t raddr,
        uint32_t rkey, uint64_t laddr, uint32_t lkey, uint64_t swap_add, uint64_t compare)
{
    gdaki_wqe_atomic(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, raddr, rkey, laddr,
                     lkey, swap_add, compare);
}

/*
 * Extended atomic on 4-byte operands (ATOMIC_MASKED_FA: swap_add is the
 * addend, compare the field boundary; ATOMIC_MASKED_CS: swap under
 * swap_mask if equal under compare_mask). 8-byte operands use
 * doca_gpu_dev_verbs_wqe_prepare_atomic.
 */
template <enum doca_gpu_dev_verbs_atomic_ext_bytes bytes = DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4>
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_atomic_ext(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        uint32_t opcode, enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint64_t raddr,
        uint32_t rkey, uint64_t laddr, uint32_t lkey, uint32_t swap_add, uint32_t compare,
        uint32_t swap_mask = 0xffffffffu, uint32_t compare_mask = 0xffffffffu)
{
    static_assert(bytes == DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4,
                  "8-byte atomics: use doca_gpu_dev_verbs_wqe_prepare_atomic");
    gdaki_wqe_atomic32(qp, wqe_ptr, wqe_idx, (uint8_t)opcode, (uint8_t)ctrl_flags, raddr, rkey,
                       laddr, lkey, swap_add, compare, swap_mask, compare_mask);
}

/* Core-direct WAIT: the SQ stalls until CQ cqn has produced max_index CQEs. */
__device__ static __forceinline__ void doca_gpu_dev_verbs_wqe_prepare_wait(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
        enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags, uint32_t max_index, uint32_t cqn)
{
    gdaki_wqe_wait(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, cqn, max_index);
}

__device__ static __forceinline__ void
doca_gpu_dev_verbs_wqe_prepare_dump(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                    enum doca_gpu_dev_verbs_wqe_ctrl_flags ctrl_flags,
                                    uint64_t addr, uint32_t key, uint32_t size)
{
    gdaki_wqe_dump(qp, wqe_ptr, wqe_idx, (uint8_t)ctrl_flags, addr, key, size);
}

/* ---- Doorbells ---- */

__device__ static __forceinline__ uint32_t doca_gpu_dev_verbs_prepare_dbr(uint32_t prod_index)
{
    return gdaki_htobe32(prod_index & 0xffff);
}

__device__ static __forceinline__ uint64_t
doca_gpu_dev_verbs_prepare_db(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_index)
{
    return gdaki_sq_db_value(qp, prod_index);
}

/* A release fence at sync_scope, then the doorbell record. */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_update_dbr(struct doca_gpu_dev_verbs_qp *qp, uint32_t prod_index)
{
    gdaki_fence_release(sync_scope);
    gdaki_store_volatile_u32(qp->sq_dbrec, doca_gpu_dev_verbs_prepare_dbr(prod_index));
}

/* A release fence at sync_scope, then the doorbell register for prod_index. */
template <enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void doca_gpu_dev_verbs_ring_db(struct doca_gpu_dev_verbs_qp *qp,
                                                                  uint64_t prod_index)
{
    gdaki_fence_release(sync_scope);
    gdaki_store_volatile_u64(qp->sq_db, gdaki_sq_db_value(qp, prod_index));
}

/* ---- Submission: the producer index goes to the NIC (or the CPU proxy) ---- */

/*
 * Submits the WQEs below prod_idx with nic_handler (AUTO: the QP's), as
 * DOCA does whether or not they were marked ready (gdaki_sq_submit_wqe).
 * The fences the NIC needs are always taken, at the QP's NIC scope
 * (sq_nic_scope); sync_scope is accepted for DOCA compatibility.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_nic_handler nic_handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                          uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_idx, resource_sharing_mode, nic_handler, code_opt);
}

template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_db(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                             uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_idx, resource_sharing_mode, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB,
                    code_opt);
}

template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_db_no_dbr(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                    uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_idx, resource_sharing_mode,
                    DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR, code_opt);
}

/*
 * BlueFlame: the last WQE is written into the register, which is the
 * doorbell. smem_wqe is a copy of that WQE (DOCA asks for one in shared
 * memory, for the copy engine; any memory the thread can read will do
 * here), and the WQE must be in the ring as well.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_bf(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                             struct doca_gpu_dev_verbs_wqe *smem_wqe,
                             uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit_wqe(qp, prod_idx, resource_sharing_mode,
                        DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, code_opt, smem_wqe);
}

template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_proxy(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT)
{
    gdaki_sq_submit(qp, prod_idx, resource_sharing_mode, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY,
                    code_opt);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_QP_CUH */
