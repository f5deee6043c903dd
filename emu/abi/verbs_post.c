/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The standard-verbs data path, as libmlx5 does it: work requests become mlx5
 * WQEs in the QP's rings, the doorbell record publishes the producer counter,
 * and the doorbell hands the new WQEs to the device.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "abi/verbs_qp_ex.h"
#include "common/emu_log.h"
#include "engine/engine.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

static int post_opcode(enum ibv_wr_opcode op, uint8_t *out)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
        *out = PRM_WQE_OPCODE_RDMA_WRITE;
        return 0;
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        *out = PRM_WQE_OPCODE_RDMA_WRITE_IMM;
        return 0;
    case IBV_WR_SEND:
        *out = PRM_WQE_OPCODE_SEND;
        return 0;
    case IBV_WR_SEND_WITH_IMM:
        *out = PRM_WQE_OPCODE_SEND_IMM;
        return 0;
    case IBV_WR_RDMA_READ:
        *out = PRM_WQE_OPCODE_RDMA_READ;
        return 0;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
        *out = PRM_WQE_OPCODE_ATOMIC_CS;
        return 0;
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        *out = PRM_WQE_OPCODE_ATOMIC_FA;
        return 0;
    default:
        return EINVAL;
    }
}

/* Builds one WQE into buf (PRM_WQE_MAX_BB basic blocks); returns its DS count, or 0 with a logged
 * reason. */
static uint32_t post_build(struct emu_qp *qp, const struct ibv_send_wr *wr, uint8_t opcode,
                           uint8_t *buf)
{
    uint32_t off = sizeof(struct prm_wqe_ctrl_seg);
    uint8_t fm_ce_se = 0;
    uint32_t imm = 0;

    if (qp->tp->xrc) {
        struct prm_wqe_xrc_seg *x = (void *)(buf + off);

        /* XRC: the SRQ at the target that takes the message. */
        x->xrc_srqn = htobe32(wr->qp_type.xrc.remote_srqn & 0xffffff);
        off += sizeof(*x);
    }
    if (!qp->tp->connected) {
        struct prm_wqe_datagram_seg *av = (void *)(buf + off);

        /* UD: the destination is the work request's (address handle, QPN, Q_Key). */
        if (emu_verbs_ah_av(qp->ibv.context, wr->wr.ud.ah, av) != 0) {
            EMU_LOG_ERR("ibv_post_send: a UD send needs an address handle of the QP's context");
            return 0;
        }
        av->qkey = htobe32(wr->wr.ud.remote_qkey);
        av->dqp_dct |= htobe32(wr->wr.ud.remote_qpn & 0xffffff);
        off += sizeof(*av);
    } else if (qp->tp->dc == PRM_QP_DC_DCI) {
        if (emu_qp_wr_dc_av(qp, (void *)(buf + off)) != 0)
            return 0;
        off += sizeof(struct prm_wqe_datagram_seg);
    }
    if (opcode == PRM_WQE_OPCODE_RDMA_WRITE || opcode == PRM_WQE_OPCODE_RDMA_WRITE_IMM ||
        opcode == PRM_WQE_OPCODE_RDMA_READ) {
        prm_wqe_set_raddr_seg((void *)(buf + off), wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
        off += sizeof(struct prm_wqe_raddr_seg);
    } else if (opcode == PRM_WQE_OPCODE_ATOMIC_CS || opcode == PRM_WQE_OPCODE_ATOMIC_FA) {
        prm_wqe_set_raddr_seg((void *)(buf + off), wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
        off += sizeof(struct prm_wqe_raddr_seg);
        prm_wqe_set_atomic_seg((void *)(buf + off), wr->wr.atomic.compare_add,
                               opcode == PRM_WQE_OPCODE_ATOMIC_CS ? wr->wr.atomic.compare_add : 0);
        if (opcode == PRM_WQE_OPCODE_ATOMIC_CS)
            prm_wqe_set_atomic_seg((void *)(buf + off), wr->wr.atomic.swap,
                                   wr->wr.atomic.compare_add);
        off += sizeof(struct prm_wqe_atomic_seg);
        if (wr->num_sge != 1 || wr->sg_list[0].length != 8) {
            EMU_LOG_ERR("ibv_post_send: an atomic needs one 8-byte SGE (num_sge %d)", wr->num_sge);
            return 0;
        }
    }
    if ((wr->send_flags & IBV_SEND_INLINE) && opcode != PRM_WQE_OPCODE_RDMA_READ &&
        opcode != PRM_WQE_OPCODE_ATOMIC_CS && opcode != PRM_WQE_OPCODE_ATOMIC_FA) {
        struct prm_wqe_inline_seg *seg = (void *)(buf + off);
        uint8_t *data = prm_wqe_inline_data(seg);
        uint32_t len = 0;

        for (int i = 0; i < wr->num_sge; i++)
            len += wr->sg_list[i].length;
        if (len > qp->max_inline) {
            EMU_LOG_ERR("ibv_post_send: %u inline bytes exceed the QP's max_inline_data %u", len,
                        qp->max_inline);
            return 0;
        }
        for (int i = 0; i < wr->num_sge; i++) {
            memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
            data += wr->sg_list[i].length;
        }
        prm_wqe_set_inline_seg(seg, len);
        off += prm_wqe_inline_ds(len) * PRM_WQE_DS_SIZE;
    } else {
        if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge) {
            EMU_LOG_ERR("ibv_post_send: num_sge %d exceeds the QP's max_send_sge %u", wr->num_sge,
                        qp->max_send_sge);
            return 0;
        }
        for (int i = 0; i < wr->num_sge; i++) {
            prm_wqe_set_data_seg((void *)(buf + off), wr->sg_list[i].length, wr->sg_list[i].lkey,
                                 wr->sg_list[i].addr);
            off += sizeof(struct prm_wqe_data_seg);
        }
    }
    if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
        fm_ce_se |= PRM_WQE_CTRL_CQ_UPDATE;
    if (wr->send_flags & IBV_SEND_SOLICITED)
        fm_ce_se |= PRM_WQE_CTRL_SOLICITED;
    if (wr->send_flags & IBV_SEND_FENCE)
        fm_ce_se |= PRM_WQE_CTRL_FM_SMALL_AND_FENCE;
    if (opcode == PRM_WQE_OPCODE_RDMA_WRITE_IMM || opcode == PRM_WQE_OPCODE_SEND_IMM)
        imm = wr->imm_data;
    if (prm_wqe_ds_count(off) > PRM_WQE_MAX_DS) {
        EMU_LOG_ERR("ibv_post_send: the WQE would take %u DS, more than the %d a WQE holds",
                    prm_wqe_ds_count(off), PRM_WQE_MAX_DS);
        return 0;
    }
    prm_wqe_set_ctrl_seg((void *)buf, (uint16_t)qp->sq_producer, opcode, 0, qp->qpn, fm_ce_se,
                         (uint8_t)prm_wqe_ds_count(off), 0, imm);
    return prm_wqe_ds_count(off);
}

int emu_verbs_sq_ready(struct emu_qp *qp, const char *call)
{
    enum ibv_qp_state state = emu_verbs_qp_state(qp);

    if (qp->p.xrcd != NULL) {
        EMU_LOG_ERR("%s: QP 0x%x is an XRC target QP, which has no send queue", call, qp->qpn);
        return EINVAL;
    }
    /* RESET, INIT and RTR cannot send; in ERR the device flushes what is posted. */
    if (state == IBV_QPS_RESET || state == IBV_QPS_INIT || state == IBV_QPS_RTR) {
        EMU_LOG_ERR("%s: QP 0x%x is not ready to send (state %d; RTS needed)", call, qp->qpn,
                    state);
        return EINVAL;
    }
    return 0;
}

int emu_verbs_sq_put(struct emu_qp *qp, const struct ibv_send_wr *wr)
{
    uint32_t sq_size = 1u << qp->p.log_sq_size;
    uint8_t buf[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE];
    uint8_t opcode;
    uint32_t ds, bbs, idx;

    if (post_opcode(wr->opcode, &opcode) != 0 || !prm_qp_transport_allows(qp->tp, opcode)) {
        EMU_LOG_ERR("ibv_post_send: opcode %d is not supported on %s QPs of this device",
                    wr->opcode, qp->tp->name);
        return EINVAL;
    }
    memset(buf, 0, sizeof(buf));
    ds = post_build(qp, wr, opcode, buf);
    if (ds == 0)
        return EINVAL;
    bbs = prm_wqe_bb_count(ds);
    if (qp->sq_producer + bbs - __atomic_load_n(&qp->sq_tail, __ATOMIC_ACQUIRE) > sq_size)
        return ENOMEM;
    idx = qp->sq_producer & (sq_size - 1);
    for (uint32_t i = 0; i < bbs; i++)
        emu_mem_write(qp->p.wq_gpu,
                      (uintptr_t)prm_wqe_slot((void *)emu_qp_sq_base(qp), qp->sq_producer + i,
                                              qp->p.log_sq_size),
                      buf + i * PRM_WQE_BB_SIZE, PRM_WQE_BB_SIZE);
    qp->sq_wrid[idx] = wr->wr_id;
    qp->sq_wqe_next[idx] = qp->sq_producer + bbs;
    qp->sq_producer += bbs;
    return 0;
}

void emu_verbs_sq_ring(struct emu_qp *qp)
{
    /* Release: the WQEs are in the ring before the doorbell record that publishes them. */
    __atomic_store_n((uint32_t *)qp->p.dbrec + 1, htobe32(qp->sq_producer & 0xffff),
                     __ATOMIC_RELEASE);
    /*
     * The doorbell: no UAR page for standard QPs, the device is told directly.
     * Rung under the lock, as libmlx5 rings: a RESET (which takes it) can
     * then never come between the producer and its doorbell.
     */
    emu_engine_sq_doorbell(qp, qp->sq_producer & 0xffff);
}

int emu_verbs_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    int err;

    if (qp->tp->dc != PRM_QP_DC_NONE) {
        EMU_LOG_ERR("ibv_post_send: QP 0x%x is a %s; DC work requests are posted with ibv_wr_* and "
                    "mlx5dv_wr_set_dc_addr",
                    qp->qpn, qp->tp->name);
        *bad = wr;
        return EINVAL;
    }
    pthread_mutex_lock(&qp->post_lock);
    err = emu_verbs_sq_ready(qp, "ibv_post_send");
    while (err == 0 && wr != NULL) {
        err = emu_verbs_sq_put(qp, wr);
        if (err == 0)
            wr = wr->next;
    }
    if (err != 0)
        *bad = wr;
    emu_verbs_sq_ring(qp);
    pthread_mutex_unlock(&qp->post_lock);
    return err;
}

/* Writes one receive WQE's scatter list at dst (stride bytes, terminated when shorter). */
static int post_recv_wqe(uint8_t *dst, uint32_t stride, const struct ibv_recv_wr *wr)
{
    uint32_t nseg = stride / 16;

    if (wr->num_sge < 0 || (uint32_t)wr->num_sge > nseg) {
        EMU_LOG_ERR("ibv_post_recv: num_sge %d exceeds the queue's %u", wr->num_sge, nseg);
        return EINVAL;
    }
    for (int i = 0; i < wr->num_sge; i++)
        prm_wqe_set_data_seg((void *)(dst + 16 * i), wr->sg_list[i].length, wr->sg_list[i].lkey,
                             wr->sg_list[i].addr);
    if ((uint32_t)wr->num_sge < nseg)
        prm_wqe_set_data_seg((void *)(dst + 16 * wr->num_sge), 0, PRM_WQE_LKEY_END, 0);
    return 0;
}

int emu_verbs_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    uint32_t stride = emu_qp_rq_stride(qp), size = 1u << qp->p.log_rq_size;
    int err = 0;

    if (qp->p.srq != NULL || qp->p.rq_size_zero) {
        EMU_LOG_ERR("ibv_post_recv: QP 0x%x has no receive queue (%s)", qp->qpn,
                    qp->p.srq != NULL ? "it receives from an SRQ; post to the SRQ"
                    : qp->tp->xrc     ? "XRC: post to the XRC SRQs"
                                      : "made without one");
        *bad = wr;
        return EINVAL;
    }
    pthread_mutex_lock(&qp->post_lock);
    if (emu_verbs_qp_state(qp) == IBV_QPS_RESET) {
        EMU_LOG_ERR("ibv_post_recv: QP 0x%x is in RESET; move it to INIT first", qp->qpn);
        err = EINVAL;
    }
    for (; err == 0 && wr != NULL; wr = wr->next) {
        uint32_t idx = qp->rq_producer & (size - 1);

        if (qp->rq_producer - __atomic_load_n(&qp->rq_tail, __ATOMIC_ACQUIRE) >= size) {
            err = ENOMEM;
            break;
        }
        err = post_recv_wqe((uint8_t *)qp->p.wq + (size_t)idx * stride, stride, wr);
        if (err != 0)
            break;
        qp->rq_wrid[idx] = wr->wr_id;
        qp->rq_producer++;
    }
    if (err != 0)
        *bad = wr;
    /* Release: the WQEs are written before the counter that hands them to the device. */
    __atomic_store_n((uint32_t *)qp->p.dbrec, htobe32(qp->rq_producer & 0xffff), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&qp->post_lock);
    /*
     * Receives posted to a QP in error (moved there by the program or by the
     * device) are flushed at once, as a ConnectX in ERR flushes what arrives.
     */
    pthread_mutex_lock(&qp->lock);
    if (qp->state == PRM_QP_STATE_ERR)
        emu_engine_rq_flush(qp);
    pthread_mutex_unlock(&qp->lock);
    return err;
}

int emu_verbs_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct emu_srq *srq = (struct emu_srq *)ibsrq;
    uint32_t stride = 16u << srq->p.log_stride, size = 1u << srq->p.log_size;
    int err = 0;

    pthread_mutex_lock(&srq->post_lock);
    for (; wr != NULL; wr = wr->next) {
        uint32_t idx = srq->producer & (size - 1);
        uint8_t *dst = (uint8_t *)srq->p.ring + (size_t)idx * stride;

        if (srq->producer - __atomic_load_n(&srq->tail, __ATOMIC_ACQUIRE) >= size) {
            err = ENOMEM;
            break;
        }
        /* Next segment: the following WQE index, as mlx5 SRQ WQEs link. */
        memset(dst, 0, 16);
        *(uint16_t *)(dst + 2) = htobe16((uint16_t)((idx + 1) & (size - 1)));
        err = post_recv_wqe(dst + 16, stride - 16, wr);
        if (err != 0)
            break;
        srq->wrid[idx] = wr->wr_id;
        srq->producer++;
    }
    if (err != 0)
        *bad = wr;
    /* Release: the WQEs are written before the counter that hands them to the device. */
    __atomic_store_n((uint32_t *)srq->p.dbrec, htobe32(srq->producer & 0xffff), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&srq->post_lock);
    return err;
}
