/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion entries: CQE64s for send and receive work (a receive from an
 * XRC SRQ completes on the SRQ's CQ). After each CQE the loop is woken when
 * some send queue waits on a CQ (WAIT WQEs), or when the CQ was in error.
 * Within a batch of the engine's work (one turn of the loop), CQEs for rings
 * in GPU memory are written together at its end: one CUDA copy's wait per
 * CQ and batch (about 7 us on an H200) instead of three per CQE.
 */
#include <endian.h>
#include <errno.h>

#include "engine/engine_int.h"
#include "nic/cq.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_cqe.h"

/* The engine whose batch of work this thread runs, or NULL. */
static __thread struct emu_engine *cqe_batching;

void engine_cqe_batch_begin(struct emu_engine *e)
{
    cqe_batching = e;
}

void engine_cqe_batch_end(struct emu_engine *e)
{
    unsigned int n = e->cq_held_n;

    engine_gpu_settle(e);
    cqe_batching = NULL;
    for (unsigned int i = 0; i < n; i++)
        emu_cq_flush(e->cq_held[i]);
    e->cq_held_n = 0;
    /* A WAIT checked during the batch did not see them: it is checked again. */
    if (n > 0 && __atomic_load_n(&e->waiting, __ATOMIC_SEQ_CST) > 0) {
        __atomic_store_n(&e->wait_signal, 1, __ATOMIC_RELEASE);
        engine_kick(e);
    }
}

/* cq holds CQEs the batch's end writes (rx_lock held). */
static void cqe_held(struct emu_engine *e, struct emu_cq *cq)
{
    for (unsigned int i = 0; i < e->cq_held_n; i++)
        if (e->cq_held[i] == cq)
            return;
    if (e->cq_held_n == ENGINE_CQ_HELD_MAX) {
        /* More CQs than the list holds: the ones so far are written now. */
        for (unsigned int i = 0; i < e->cq_held_n; i++)
            emu_cq_flush(e->cq_held[i]);
        e->cq_held_n = 0;
    }
    e->cq_held[e->cq_held_n++] = cq;
}

static void cqe_push(struct emu_qp *qp, struct emu_cq *cq, const struct prm_cqe64 *cqe,
                     uint8_t op_own, bool solicited)
{
    engine_cqe_push(qp->nic->engine, cq, cqe, op_own, solicited);
}

void engine_cqe_push(struct emu_engine *e, struct emu_cq *cq, const struct prm_cqe64 *cqe,
                     uint8_t op_own, bool solicited)
{
    int r = emu_cq_push(cq, cqe, op_own, solicited, cqe_batching == e && e != NULL);

    if (r == EINPROGRESS)
        cqe_held(e, cq);
    /* The CQ is in error: the loop fails every QP that completes on it (engine_cq_errors). */
    if (r == EOVERFLOW && __atomic_exchange_n(&e->cq_errors, 1, __ATOMIC_ACQ_REL) == 0)
        engine_kick(e);
    /* Sequentially consistent: a WAIT arms itself before it reads the CQ's producer. */
    if (__atomic_load_n(&e->waiting, __ATOMIC_SEQ_CST) > 0) {
        __atomic_store_n(&e->wait_signal, 1, __ATOMIC_RELEASE);
        engine_kick(e);
    }
}

void engine_cqe_req(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint32_t byte_cnt)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_req(&cqe, opcode, qp->qpn, (uint16_t)wqe_index, byte_cnt, 0);

    cqe_push(qp, qp->p.send_cq, &cqe, op_own, false);
}

void engine_cqe_req_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint8_t syndrome)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_error(&cqe, PRM_CQE_OPCODE_REQ_ERR, syndrome, 0, opcode, qp->qpn,
                                        (uint16_t)wqe_index, 0);

    cqe_push(qp, qp->p.send_cq, &cqe, op_own, true);
}

/* A receive CQE's SRQ number, and the CQ it goes to. */
static struct emu_cq *cqe_resp_cq(struct emu_qp *qp, struct prm_cqe64 *cqe)
{
    struct emu_srq *srq = engine_recv_srq(qp);

    if (srq == NULL)
        return qp->p.recv_cq;
    cqe->srqn_uidx = htobe32(srq->srqn);
    return srq->p.cq != NULL ? srq->p.cq : qp->p.recv_cq;
}

void engine_cqe_resp(struct emu_qp *qp, uint8_t opcode, uint32_t wqe_index, uint32_t byte_cnt,
                     uint32_t imm, uint32_t flags_rqpn, uint16_t slid, bool solicited)
{
    struct prm_cqe64 cqe;
    uint8_t op_own =
            prm_cqe_fill_resp(&cqe, opcode, qp->qpn, (uint16_t)wqe_index, byte_cnt, imm, 0);

    cqe.flags_rqpn = htobe32(flags_rqpn);
    cqe.slid = htobe16(slid);
    cqe_push(qp, cqe_resp_cq(qp, &cqe), &cqe, op_own, solicited);
}

void engine_cqe_resp_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_error(&cqe, PRM_CQE_OPCODE_RESP_ERR, syndrome, 0, 0, qp->qpn,
                                        (uint16_t)wqe_index, 0);

    cqe_push(qp, cqe_resp_cq(qp, &cqe), &cqe, op_own, true);
}
