/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of doca_gpunetio_dev_verbs_qp.cuh called as DOCA's
 * headers (onesided, counter) and kernels call it: explicit template
 * arguments in DOCA's order, defaults left out and given, DOCA's argument
 * types (uint16_t WQE indexes, integer addresses, 12-argument atomics, ...).
 * A signature that is not DOCA's fails the build. Compiled only.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_verbs_qp.cuh"

#define RSM_EXCL   DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define RSM_CTA    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define RSM_GPU    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define SCOPE_THR  DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD
#define SCOPE_GPU  DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU
#define SCOPE_SYS  DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS
#define QP_SQ      DOCA_GPUNETIO_VERBS_QP_SQ
#define CQ_64B     DOCA_GPUNETIO_VERBS_CQ_64B
#define CQ_COLL    DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED
#define CQ_UNKNOWN DOCA_GPUNETIO_VERBS_CQ_UNKNOWN
#define CQE_ALWAYS DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE
#define SKIP_DB    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING

__global__ void doca_api_qp_slots(struct doca_gpu_dev_verbs_qp *qp, uint64_t *out)
{
    uint64_t idx = 0, v = 0;
    uint64_t seg[2] = {1, 2};
    uint64_t ready = 0;

    idx += doca_gpu_dev_verbs_reserve_wq_slots(qp, 1);
    idx += doca_gpu_dev_verbs_reserve_wq_slots<RSM_GPU>(qp, 2, SKIP_DB);
    idx += doca_gpu_dev_verbs_reserve_wq_slots<RSM_CTA, QP_SQ>(qp, 3);
    idx += doca_gpu_dev_verbs_reserve_wq_slots<RSM_EXCL, QP_SQ, CQ_COLL>(
            qp, 1, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK);
    doca_gpu_dev_verbs_wait_until_slot_available(qp, idx);
    doca_gpu_dev_verbs_wait_until_slot_available<RSM_GPU, QP_SQ, CQ_64B>(qp, idx);
    doca_gpu_dev_verbs_store_wqe_seg((uint64_t *)&doca_gpu_dev_verbs_get_wqe_ptr(qp, idx)->dseg0,
                                     seg);
    v += (uint64_t)(uintptr_t)doca_gpu_dev_verbs_get_proxy_ready_ptr(qp, (uint16_t)idx);
    v += doca_gpu_dev_verbs_cqe_ctrl_flags(0);
    v += doca_gpu_dev_verbs_cqe_ctrl_flags<CQ_COLL>(SKIP_DB);
    v += doca_gpu_dev_verbs_cqe_ctrl_flags<CQ_UNKNOWN>(SKIP_DB, CQE_ALWAYS);
    doca_gpu_dev_common_mark_wqes_ready(qp->sq_ready_index, idx, idx);
    doca_gpu_dev_common_mark_wqes_ready<RSM_CTA>(ready, 0, 0);
    doca_gpu_dev_common_mark_wqes_ready<RSM_GPU, DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST>(ready, 1, 1);
    doca_gpu_dev_common_mark_wqes_ready<RSM_EXCL, DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS>(ready,
                                                                                             2, 2);
    doca_gpu_dev_verbs_mark_wqes_ready_free_flow(qp, idx, idx);
    doca_gpu_dev_verbs_mark_wqes_ready_free_flow(qp, idx, idx, SKIP_DB);
    doca_gpu_dev_verbs_mark_wqes_ready(qp, idx, idx);
    doca_gpu_dev_verbs_mark_wqes_ready<RSM_GPU>(qp, idx, idx, SKIP_DB);
    doca_gpu_dev_verbs_mark_wqes_ready<RSM_CTA, QP_SQ, DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT>(
            qp, idx, idx);
    doca_gpu_dev_verbs_mark_wqes_ready<RSM_GPU, QP_SQ, DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS,
                                       DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW>(qp, idx,
                                                                                            idx, 0);
    *out = idx + v + ready;
}

__global__ void doca_api_qp_doorbells(struct doca_gpu_dev_verbs_qp *qp, uint64_t *db,
                                      uint32_t *dbrec, uint64_t *out)
{
    __be32 dbr = doca_gpu_dev_verbs_prepare_dbr(7);
    __be64 dbv = doca_gpu_dev_common_prepare_db(qp->sq_num_shift8_be, 7);

    dbv += doca_gpu_dev_verbs_prepare_db(qp, 7);
    doca_gpu_dev_common_update_dbr(dbrec, 7);
    doca_priv_gpu_dev_verbs_update_dbr(qp, 7);
    doca_priv_gpu_dev_verbs_update_dbr<QP_SQ>(qp, 7);
    doca_gpu_dev_verbs_update_dbr(qp, 7);
    doca_gpu_dev_verbs_update_dbr<SCOPE_SYS>(qp, 7,
                                             DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE);
    doca_gpu_dev_verbs_update_dbr<SCOPE_GPU, QP_SQ>(qp, 7, 0);
    doca_gpu_dev_common_write_db(db, dbv);
    doca_gpu_dev_common_write_db<SCOPE_SYS>(db, dbv, 0);
    doca_gpu_dev_common_ring_db(db, qp->sq_num_shift8_be, 7);
    doca_gpu_dev_common_ring_db<SCOPE_THR>(db, qp->sq_num_shift8_be, 7, 0);
    doca_gpu_dev_verbs_ring_db(qp, 7);
    doca_gpu_dev_verbs_ring_db<SCOPE_SYS>(qp, 7,
                                          DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE);
    doca_gpu_dev_verbs_ring_bf(qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, 6));
    doca_gpu_dev_verbs_ring_bf<SCOPE_SYS>(qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, 6));
    doca_gpu_dev_verbs_ring_bf_warp(qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, 6));
    doca_gpu_dev_verbs_ring_bf_warp<SCOPE_GPU>(qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, 6));
    doca_gpu_dev_verbs_ring_proxy<RSM_EXCL>(qp, 7);
    doca_gpu_dev_verbs_ring_proxy<RSM_GPU>(qp, 7);
    *out = dbr + dbv;
}

/* Every submit as the one-sided and counter headers and the examples write them. */
__global__ void doca_api_qp_submits(struct doca_gpu_dev_verbs_qp *qp)
{
    __shared__ struct doca_gpu_dev_verbs_wqe smem_wqe;
    const uint64_t prod = 9;

    doca_gpu_dev_verbs_submit_db_no_dbr(qp, prod);
    doca_gpu_dev_verbs_submit_db_no_dbr<RSM_GPU, SCOPE_GPU, QP_SQ>(qp, prod, SKIP_DB);
    doca_gpu_dev_verbs_submit_db(qp, prod);
    doca_gpu_dev_verbs_submit_db<RSM_CTA>(qp, prod, 0);
    doca_gpu_dev_verbs_submit_db<RSM_GPU, SCOPE_SYS, QP_SQ>(qp, prod, SKIP_DB);
    doca_gpu_dev_verbs_submit_bf(qp, prod, &smem_wqe);
    doca_gpu_dev_verbs_submit_bf<RSM_EXCL, SCOPE_GPU>(qp, prod, &smem_wqe, 0);
    doca_gpu_dev_verbs_submit_bf_warp(qp, prod, doca_gpu_dev_verbs_get_wqe_ptr(qp, prod - 1));
    doca_gpu_dev_verbs_submit_bf_warp<RSM_GPU, SCOPE_SYS>(
            qp, prod, doca_gpu_dev_verbs_get_wqe_ptr(qp, prod - 1), 0);
    doca_gpu_dev_verbs_submit_proxy(qp, prod);
    doca_gpu_dev_verbs_submit_proxy<RSM_GPU, SCOPE_THR>(
            qp, prod, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI);
    doca_gpu_dev_verbs_submit(qp, prod);
    doca_gpu_dev_verbs_submit<RSM_GPU>(qp, prod,
                                       DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI);
    doca_gpu_dev_verbs_submit<RSM_GPU, SCOPE_THR, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(qp, prod,
                                                                                        0);
    doca_gpu_dev_verbs_submit<RSM_EXCL, SCOPE_GPU, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
                              QP_SQ>(qp, prod);
    doca_gpu_dev_verbs_submit<RSM_CTA, SCOPE_SYS,
                              DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW, QP_SQ>(qp, prod,
                                                                                          SKIP_DB);
}

/* Every WQE builder with DOCA's parameter lists (WQE index as uint16_t, addresses as integers). */
__global__ void doca_api_qp_wqes(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr r,
                                 struct doca_gpu_dev_verbs_addr l, uint32_t cq_num)
{
    const uint16_t i = 3;
    struct doca_gpu_dev_verbs_wqe *w = doca_gpu_dev_verbs_get_wqe_ptr(qp, i);
    struct doca_gpu_dev_verbs_wqe *w1 = doca_gpu_dev_verbs_get_wqe_ptr(qp, i + 1);
    const enum doca_gpu_dev_verbs_wqe_ctrl_flags f =
            doca_gpu_dev_verbs_cqe_ctrl_flags<CQ_64B>(0, CQE_ALWAYS);

    doca_gpu_dev_verbs_wqe_prepare_nop(qp, w, i, f);
    doca_gpu_dev_verbs_wqe_prepare_write(qp, w, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE, f, 0,
                                         r.addr, r.key, l.addr, l.key, 64);
    doca_gpu_dev_verbs_wqe_prepare_write(qp, w, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE_IMM, f,
                                         0x1234, r.addr, r.key, l.addr, l.key, 64, l.addr + 64,
                                         l.key, 32);
    doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_header(qp, w, i, f, r.addr, r.key,
                                                         sizeof(uint32_t));
    doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_data<uint32_t>(qp, w, 5u);
    doca_gpu_dev_verbs_prepare_inl_rdma_write_wqe_data(qp, w, (uint64_t)5);
    doca_gpu_dev_verbs_wqe_prepare_write_inl(qp, w, i, f, r.addr, r.key, l.addr, 8);
    doca_gpu_dev_verbs_wqe_prepare_read(qp, w, i, f, r.addr, r.key, l.addr, l.key, 64);
    doca_gpu_dev_verbs_wqe_prepare_read(qp, w, i, f, r.addr, r.key, l.addr, l.key, 64, l.addr + 64,
                                        l.key, 32);
    doca_gpu_dev_verbs_wqe_prepare_atomic(qp, w, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_FA, f,
                                          r.addr, r.key, l.addr, l.key, sizeof(uint64_t), 1, 0);
    doca_gpu_dev_verbs_wqe_prepare_atomic(qp, w, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_CS, f,
                                          r.addr, r.key, l.addr, l.key, 8, 2, 3);
    doca_gpu_dev_verbs_wqe_prepare_atomic_ext(qp, w, nullptr, i,
                                              DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_FA, f,
                                              r.addr, r.key, l.addr, l.key, 1, 0, 0, 0, 0, 0);
    doca_gpu_dev_verbs_wqe_prepare_atomic_ext<DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4>(
            qp, w, w1, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_CS, f, r.addr, r.key, l.addr,
            l.key, 0, 0, 5, 6, UINT32_MAX, UINT32_MAX);
    doca_gpu_dev_verbs_wqe_prepare_atomic_ext<DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_8>(
            qp, w, w1, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_CS, f, r.addr, r.key, l.addr,
            l.key, 0, 0, 5, 0, UINT64_MAX, 0);
    doca_gpu_dev_verbs_wqe_prepare_atomic_ext<DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_8>(
            qp, w, nullptr, i, DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_FA, f, r.addr, r.key,
            l.addr, l.key, 7, UINT64_MAX, 0, 0, 0, 0);
    doca_gpu_dev_verbs_wqe_prepare_wait(qp, w, i, f, 100, cq_num);
    doca_gpu_dev_verbs_wqe_prepare_dump(qp, w, i, DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE_FENCE,
                                        l.addr, l.key, 1);
}
