/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two-sided operations of the data-path core: send, send with immediate,
 * receive posting and receive completion. A send is one message, one WQE
 * (at most 2^31 - 1 bytes): the peer's next receive WQE takes it, and the
 * peer's receive CQE carries its byte count (and immediate). A receive is
 * one WQE of the receive queue (gdaki_verbs_rq.h); its ticket is its
 * receive index, which gdaki_recv_wait() polls the receive CQ for.
 *
 * Thread scope, on a CUDA thread or a CPU thread alike; on a shared QP the
 * converged lanes of a warp that send together post as one group
 * (gdaki_post_begin). Warp scope (CUDA): each lane brings its own buffer,
 * lane 0 reserves the warp's 32 slots and hands them over at once.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_TWOSIDED_H
#define DOCA_GPUNETIO_IMPL_VERBS_TWOSIDED_H

#include <stddef.h>
#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_verbs_onesided.h"
#include "gdaki_verbs_rq.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/*
 * A send of size bytes at laddr (size 0: no data segment), with immediate
 * imm (host order) when with_imm; returns its ticket (its SQ index).
 */
GDAKI_INLINE uint64_t gdaki_send_msg(struct doca_gpu_dev_verbs_qp *qp,
                                     struct doca_gpu_dev_verbs_addr laddr, uint32_t size,
                                     int with_imm, uint32_t imm,
                                     enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                     uint32_t nic, uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t idx = gdaki_post_begin(&g, qp, 1, rsm, code_opt);
    uint8_t opcode = with_imm ? PRM_WQE_OPCODE_SEND_IMM : PRM_WQE_OPCODE_SEND;
    gdaki_be32_t imm_be = with_imm ? gdaki_htobe32(imm) : 0;

    if (size == 0)
        gdaki_wqe_send_empty(qp, gdaki_wqe_ptr(qp, idx), idx, opcode,
                             DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, imm_be);
    else
        gdaki_wqe_send(qp, gdaki_wqe_ptr(qp, idx), idx, opcode,
                       DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, imm_be, laddr.addr, laddr.key,
                       size);
    return gdaki_post_end(&g, qp, 1, rsm, nic, code_opt);
}

/* One receive of bytes at laddr, reserved, written and handed to the NIC: its receive index. */
GDAKI_INLINE uint64_t gdaki_recv(struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_addr laddr, uint32_t bytes,
                                 enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    uint64_t idx = gdaki_rq_reserve(qp, 1, rsm, 0);

    gdaki_rwqe_prepare(qp, gdaki_rwqe_ptr(qp, idx), laddr.addr, laddr.key, bytes);
    gdaki_rq_ready(qp, idx, idx, rsm, DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT);
    gdaki_rq_submit(qp, idx + 1, rsm, 0, 0);
    return idx;
}

/*
 * Waits for receive `ticket` to complete: 0 with *cqe its CQE (byte count,
 * immediate, opcode), or -EIO on an error completion (or a QP already in
 * error, whose receive will never complete). non_blocking: one look, EBUSY
 * while it has not completed.
 */
GDAKI_INLINE int gdaki_recv_wait(struct doca_gpu_dev_verbs_qp *qp, uint64_t ticket,
                                 enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                 int non_blocking, struct doca_gpunetio_ib_mlx5_cqe64 **cqe)
{
    struct doca_gpu_dev_verbs_cq *cq = &qp->cq_rq;

    if (cqe != NULL)
        *cqe = gdaki_cqe_at(cq, ticket);
    return non_blocking ? gdaki_cq_check(cq, ticket, rsm) : gdaki_cq_wait(cq, ticket, rsm);
}

/* The byte count, immediate (host order) and opcode of a receive CQE. */
GDAKI_INLINE uint32_t gdaki_cqe_bytes(const struct doca_gpunetio_ib_mlx5_cqe64 *cqe)
{
    return gdaki_be32toh(gdaki_load_volatile_u32(&cqe->byte_cnt));
}

GDAKI_INLINE uint32_t gdaki_cqe_imm(const struct doca_gpunetio_ib_mlx5_cqe64 *cqe)
{
    return gdaki_be32toh(gdaki_load_volatile_u32(&cqe->imm_inval_pkey));
}

/* op_own's inline-scatter bits (32 or 64 bytes of data in the CQE): 0 when the data is in memory.
 */
GDAKI_INLINE uint32_t gdaki_cqe_inline_scatter(const struct doca_gpunetio_ib_mlx5_cqe64 *cqe)
{
    return (gdaki_load_volatile_u32(&cqe->wqe_counter_sig_op_own_raw) >> 24) & 0x0cu;
}

GDAKI_INLINE uint8_t gdaki_cqe_opcode(const struct doca_gpunetio_ib_mlx5_cqe64 *cqe)
{
    /* op_own is the last byte of the little-endian load of the CQE's last word. */
    return (uint8_t)(gdaki_load_volatile_u32(&cqe->wqe_counter_sig_op_own_raw) >>
                     (24 + PRM_CQE_OPCODE_SHIFT));
}

#if defined(__CUDACC__)
/* One send per lane of a converged warp (gdaki_send_msg's arguments, per lane). */
__device__ static __forceinline__ uint64_t
gdaki_send_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                uint32_t size, int with_imm, uint32_t imm,
                enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic, uint32_t code_opt)
{
    uint64_t base = gdaki_warp_reserve(qp, 1, rsm, code_opt);
    uint64_t idx = base + gdaki_lane_id();
    uint8_t opcode = with_imm ? PRM_WQE_OPCODE_SEND_IMM : PRM_WQE_OPCODE_SEND;
    gdaki_be32_t imm_be = with_imm ? gdaki_htobe32(imm) : 0;

    if (size == 0)
        gdaki_wqe_send_empty(qp, gdaki_wqe_ptr(qp, idx), idx, opcode,
                             DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, imm_be);
    else
        gdaki_wqe_send(qp, gdaki_wqe_ptr(qp, idx), idx, opcode,
                       DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, imm_be, laddr.addr, laddr.key,
                       size);
    gdaki_warp_commit(qp, base, DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, nic, code_opt);
    return idx;
}

/* One receive per lane of a converged warp; lane i's receive index is returned to it. */
__device__ static __forceinline__ uint64_t
gdaki_recv_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr laddr,
                uint32_t bytes, enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    uint64_t base = 0;
    uint64_t idx;

    if (gdaki_lane_id() == 0)
        base = gdaki_rq_reserve(qp, DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, 0);
    base = __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, base, 0);
    idx = base + gdaki_lane_id();
    gdaki_rwqe_prepare(qp, gdaki_rwqe_ptr(qp, idx), laddr.addr, laddr.key, bytes);
    /* Every lane's WQE stores before lane 0's release of the ready index. */
    __syncwarp();
    if (gdaki_lane_id() == 0) {
        gdaki_rq_ready(qp, base, base + DOCA_GPUNETIO_VERBS_WARP_SIZE - 1, rsm,
                       DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT);
        gdaki_rq_submit(qp, base + DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, 0, 0);
    }
    __syncwarp();
    return idx;
}
#endif

#endif /* DOCA_GPUNETIO_IMPL_VERBS_TWOSIDED_H */
