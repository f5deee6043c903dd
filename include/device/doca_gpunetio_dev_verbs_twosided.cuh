/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, two-sided (the DOCA SDK's names, template
 * parameters and argument orders; the open-source DOCA release has none):
 * send, receive posting and receive completion, over the C data-path core
 * (gdaki_verbs_twosided.h). Needs a QP exported with cq_rq and no
 * dbr_cpu_ptr: the data path owns its receive queue.
 *
 * send posts one RDMA Send of size bytes (at most 2^31 - 1: one message
 * takes one receive at the peer); its ticket is its SQ index, polled on
 * cq_sq. recv posts one receive WQE of size bytes; its ticket is its
 * receive index, which recv_wait (or any poll of cq_rq) waits for; the CQE
 * it gives holds the byte count that arrived (cqe_get_bytes) and, for a
 * send with immediate, the immediate (big-endian, imm_inval_pkey). A send
 * with immediate is posted with the low-level wqe_prepare_send and
 * DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND_IMM.
 *
 * Warp scope: the 32 lanes of a converged warp call together, each with
 * its own buffer; lane 0 reserves and submits for all. Receive WQEs are
 * handed to the NIC through the doorbell record alone, whatever the NIC
 * handler. Waits return 0, or -EIO on an error completion (a receive
 * buffer too small, a QP in error); they never spin on a dead QP. The CQE
 * types are this library's (struct doca_gpunetio_ib_mlx5_cqe64), where the
 * SDK uses rdma-core's struct mlx5_cqe64 of the same layout.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_TWOSIDED_CUH
#define DOCA_GPUNETIO_DEV_VERBS_TWOSIDED_CUH

#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"
#include "impl/gdaki_verbs_twosided.h"

#include "impl/dgn_params.h"

/* ---- send ---- */

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_send_thread(struct doca_gpu_dev_verbs_qp *qp,
                               struct doca_gpu_dev_verbs_addr laddr, size_t size,
                               doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_send_msg(qp, laddr, (uint32_t)size, 0, 0, resource_sharing_mode, nic, 0);
    });
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_send_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                             size_t size, doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_send_warp(qp, laddr, (uint32_t)size, 0, 0, resource_sharing_mode, nic, 0);
    });
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_send(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                        size_t size, doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_send_warp<resource_sharing_mode, nic_handler>(qp, laddr, size,
                                                                         out_ticket);
    else
        doca_gpu_dev_verbs_send_thread<resource_sharing_mode, nic_handler>(qp, laddr, size,
                                                                           out_ticket);
}

/* ---- recv: nic_handler is accepted for DOCA (a receive rings no doorbell) ---- */

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_recv_thread(struct doca_gpu_dev_verbs_qp *qp,
                               struct doca_gpu_dev_verbs_addr laddr, size_t size,
                               doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    *out_ticket = gdaki_recv(qp, laddr, (uint32_t)size, resource_sharing_mode);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_recv_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                             size_t size, doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    *out_ticket = gdaki_recv_warp(qp, laddr, (uint32_t)size, resource_sharing_mode);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_recv(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                        size_t size, doca_gpu_dev_verbs_ticket_t *out_ticket)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_recv_warp<resource_sharing_mode, nic_handler>(qp, laddr, size,
                                                                         out_ticket);
    else
        doca_gpu_dev_verbs_recv_thread<resource_sharing_mode, nic_handler>(qp, laddr, size,
                                                                           out_ticket);
}

/*
 * Waits for receive *ticket and gives its CQE. mcst_mode ENABLED (GPUs
 * older than Hopper): first a Dump WQE on daddr (one registered local
 * byte), waited for, so that the received data is visible to the kernel
 * when the CQE is. blocking_mode DISABLED: one look, EBUSY while the
 * receive has not completed.
 */
template <DGN_RSM_PARAM, DGN_NIC_PARAM,
          enum doca_gpu_dev_verbs_mcst_mode mcst_mode = DOCA_GPUNETIO_VERBS_MCST_DISABLED,
          enum doca_gpu_dev_verbs_blocking_mode blocking_mode =
                  DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_recv_wait(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr daddr,
                             doca_gpu_dev_verbs_ticket_t *ticket,
                             struct doca_gpunetio_ib_mlx5_cqe64 **cqe64)
{
    if (mcst_mode == DOCA_GPUNETIO_VERBS_MCST_ENABLED) {
        int rc = gdaki_wait(qp,
                            gdaki_dump(qp, daddr, resource_sharing_mode, (uint32_t)nic_handler, 0));

        if (rc != 0)
            return rc;
    }
    return gdaki_recv_wait(qp, *ticket, resource_sharing_mode,
                           blocking_mode == DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED, cqe64);
}

/* The same for the last receive posted on the QP (0 at once, CQE NULL, when none was). */
template <DGN_RSM_PARAM, DGN_NIC_PARAM,
          enum doca_gpu_dev_verbs_mcst_mode mcst_mode = DOCA_GPUNETIO_VERBS_MCST_DISABLED,
          enum doca_gpu_dev_verbs_blocking_mode blocking_mode =
                  DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_recv_wait(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr daddr,
                             struct doca_gpunetio_ib_mlx5_cqe64 **cqe64)
{
    doca_gpu_dev_verbs_ticket_t last = gdaki_load_volatile_u64(&qp->rq_rsvd_index);

    if (last == 0) {
        *cqe64 = NULL;
        return 0;
    }
    last--;
    return doca_gpu_dev_verbs_recv_wait<resource_sharing_mode, nic_handler, mcst_mode,
                                        blocking_mode>(qp, daddr, &last, cqe64);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_TWOSIDED_CUH */
