/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every call of the two-sided device API with the DOCA SDK's parameter
 * lists (doca_gpunetio_dev_verbs_twosided.cuh), and the receive-queue forms
 * of the queue calls (qp_type DOCA_GPUNETIO_VERBS_QP_RQ), written as the
 * SDK's users write them: reserve, get_rwqe_ptr, wqe_prepare_recv, mark
 * ready, submit, and the receive CQ's polls. Compiled only;
 * tests/datapath/test_dp_twosided.c checks what the calls do.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_verbs.cuh"

#define RSM_GPU   DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define RSM_CTA   DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define RSM_EXCL  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define NIC_AUTO  DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define QP_RQ     DOCA_GPUNETIO_VERBS_QP_RQ
#define SCOPE_GPU DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU

/* The high-level send / recv / recv_wait, thread and warp, defaults left out and given. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode rsm>
__global__ void doca_api_twosided(struct doca_gpu_dev_verbs_qp *qp,
                                  struct doca_gpu_dev_verbs_addr laddr, size_t size, int *out)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    doca_gpu_dev_verbs_ticket_t t;
    int r = 0;

    doca_gpu_dev_verbs_send(qp, laddr, size, &t);
    doca_gpu_dev_verbs_send<rsm, NIC_AUTO, DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(qp, laddr, size,
                                                                                &t);
    doca_gpu_dev_verbs_send_thread<rsm>(qp, laddr, size, &t);
    doca_gpu_dev_verbs_send_warp<rsm, NIC_AUTO>(qp, laddr, size, &t);
    doca_gpu_dev_verbs_recv(qp, laddr, size, &t);
    doca_gpu_dev_verbs_recv<rsm, NIC_AUTO, DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(qp, laddr, size,
                                                                                &t);
    doca_gpu_dev_verbs_recv_thread<rsm>(qp, laddr, size, &t);
    doca_gpu_dev_verbs_recv_warp<rsm, NIC_AUTO>(qp, laddr, size, &t);
    r |= doca_gpu_dev_verbs_recv_wait(qp, laddr, &t, &cqe);
    r |= doca_gpu_dev_verbs_recv_wait<rsm, NIC_AUTO, DOCA_GPUNETIO_VERBS_MCST_ENABLED,
                                      DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED>(qp, laddr, &t,
                                                                                  &cqe);
    r |= doca_gpu_dev_verbs_recv_wait<rsm>(qp, laddr, &cqe);
    out[0] = r + (int)doca_gpu_dev_verbs_cqe_get_bytes(cqe) +
             (int)doca_gpu_dev_verbs_cqe_is_inline(cqe);
}

/* The low-level receive path and the SEND / SEND_IMM WQEs, as the SDK's users write them. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode rsm>
__global__ void doca_api_twosided_low(struct doca_gpu_dev_verbs_qp *qp, uint64_t addr, uint32_t key,
                                      uint32_t bytes, int *out)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_rq(qp);
    uint64_t r = doca_gpu_dev_verbs_reserve_wq_slots<rsm, QP_RQ>(qp, 1);
    uint64_t s = doca_gpu_dev_verbs_reserve_wq_slots<rsm>(qp, 2);
    struct doca_gpunetio_ib_mlx5_wqe_data_seg *rwqe = doca_gpu_dev_verbs_get_rwqe_ptr(qp, r);
    int rc = 0;

    doca_gpu_dev_verbs_wait_until_slot_available<rsm, QP_RQ>(qp, r);
    doca_gpu_dev_verbs_wqe_prepare_recv(qp, rwqe, addr, key, bytes);
    doca_gpu_dev_verbs_mark_wqes_ready<rsm, QP_RQ>(qp, r, r);
    doca_gpu_dev_verbs_submit<rsm, SCOPE_GPU, NIC_AUTO, QP_RQ>(qp, r + 1);
    doca_gpu_dev_verbs_update_dbr<SCOPE_GPU, QP_RQ>(qp, (uint32_t)(r + 1));
    doca_gpu_dev_verbs_wqe_prepare_send(
            qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, s), s, DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND,
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0, addr, key, bytes);
    doca_gpu_dev_verbs_wqe_prepare_send(qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, s + 1), s + 1,
                                        DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND_IMM,
                                        DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0x01020304u);
    doca_gpu_dev_verbs_mark_wqes_ready<rsm>(qp, s, s + 1);
    doca_gpu_dev_verbs_submit<rsm>(qp, s + 2);
    rc |= doca_gpu_dev_verbs_poll_one_cq_at<rsm, QP_RQ>(cq, r);
    rc |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_RQ>(cq, r);
    rc |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_RQ>(qp, r);
    rc |= doca_gpu_dev_verbs_poll_cq<rsm, QP_RQ>(cq, r, &cqe);
    rc |= doca_gpu_dev_verbs_poll_cq<rsm, QP_RQ, DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED>(cq, r,
                                                                                             &cqe);
    out[0] = rc + (int)(doca_gpu_dev_verbs_qp_get_cq<QP_RQ>(qp) == cq);
}

#define DOCA_API_TWOSIDED(rsm)                                                                    \
    template __global__ void doca_api_twosided<rsm>(                                              \
            struct doca_gpu_dev_verbs_qp *, struct doca_gpu_dev_verbs_addr, size_t, int *);       \
    template __global__ void doca_api_twosided_low<rsm>(struct doca_gpu_dev_verbs_qp *, uint64_t, \
                                                        uint32_t, uint32_t, int *);

DOCA_API_TWOSIDED(RSM_GPU)
DOCA_API_TWOSIDED(RSM_CTA)
DOCA_API_TWOSIDED(RSM_EXCL)
