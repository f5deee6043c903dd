/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive WQEs as the responder consumes them (receive lock and qp->lock
 * held): the next one from the QP's receive queue or its SRQ (an XRC target
 * QP's: the SRQ its request names), its scatter list held for a message,
 * and the error completion when it cannot be used.
 */
#include <endian.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

struct emu_srq *engine_recv_srq(const struct emu_qp *qp)
{
    return qp->p.xrcd != NULL ? qp->rx_srq : qp->p.srq;
}

struct emu_pd *engine_qp_pd(const struct emu_qp *qp)
{
    return qp->p.xrcd != NULL ? qp->rx_srq->p.pd : qp->p.pd;
}

/* The next receive WQE (RQ or SRQ) copied into wqe; its index, or -1 when none is posted. */
int64_t engine_recv_take(struct emu_qp *qp, uint8_t *wqe, uint32_t *first_seg)
{
    uint32_t stride = emu_qp_rq_stride(qp);
    struct emu_srq *srq = engine_recv_srq(qp);

    if (srq != NULL) {
        *first_seg = 16; /* after the SRQ next segment */
        return emu_srq_take(srq, wqe);
    }
    *first_seg = 0;
    if (qp->p.rq_size_zero || ((engine_rq_posted(qp) - qp->rq_consumer) & 0xffff) == 0)
        return -1;
    emu_mem_read(qp->p.wq_gpu,
                 qp->p.wq + (uintptr_t)(qp->rq_consumer & ((1u << qp->p.log_rq_size) - 1)) * stride,
                 wqe, stride);
    return qp->rq_consumer++ & 0xffff;
}

void engine_recv_untake(struct emu_qp *qp, uint32_t index)
{
    struct emu_srq *srq = engine_recv_srq(qp);

    if (srq != NULL)
        emu_srq_untake(srq, index);
    else if (((qp->rq_consumer - 1) & 0xffff) == index)
        qp->rq_consumer--;
}

uint32_t engine_recv_stride(const struct emu_qp *qp)
{
    const struct emu_srq *srq = engine_recv_srq(qp);

    return srq != NULL ? (16u << srq->p.log_stride) : emu_qp_rq_stride(qp);
}

/* A SEND or WRITE_IMM's receive WQE: scatter list held for len bytes. Returns 0 or a syndrome. */
uint8_t engine_recv_scatter(struct emu_qp *qp, const uint8_t *wqe, uint32_t first, uint32_t len,
                            struct engine_sgl *t)
{
    uint32_t stride = engine_recv_stride(qp);
    uint32_t left = len;

    for (uint32_t off = first; off + 16 <= stride && left > 0; off += 16) {
        const struct prm_wqe_data_seg *d = (const void *)(wqe + off);
        uint32_t bc = be32toh(d->byte_count), take;

        /* mlx5's terminator; key 0x100 itself can be a real key, so the length decides too. */
        if (be32toh(d->lkey) == PRM_WQE_LKEY_END && bc == 0)
            break;
        take = bc < left ? bc : left;
        if (take == 0)
            continue;
        if (engine_sgl_hold(t, qp, be32toh(d->lkey), be64toh(d->addr), take,
                            IBV_ACCESS_LOCAL_WRITE) != EMU_MR_OK)
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        left -= take;
    }
    return left == 0 ? 0 : PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
}

/* The responder side of a receive-consuming request failed: error CQE, QP to ERR. */
void engine_recv_fail(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome)
{
    engine_cqe_resp_err(qp, wqe_index, syndrome);
    engine_qp_fail(qp, 0);
}
