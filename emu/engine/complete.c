/* SPDX-License-Identifier: BSD-3-Clause */
/* Completions: CQE64s for send and receive work, the error state and its flushes. */
#include <endian.h>
#include <pthread.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/cq.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

static pthread_mutex_t engine_atomic_mutex = PTHREAD_MUTEX_INITIALIZER;

void emu_engine_atomic_lock(void)
{
    pthread_mutex_lock(&engine_atomic_mutex);
}

void emu_engine_atomic_unlock(void)
{
    pthread_mutex_unlock(&engine_atomic_mutex);
}

void emu_engine_cqe_req(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint32_t byte_cnt)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_req(&cqe, opcode, qp->qpn, (uint16_t)wqe_index, byte_cnt, 0);

    emu_cq_push(qp->p.send_cq, &cqe, op_own, false);
}

void emu_engine_cqe_req_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint8_t syndrome)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_error(&cqe, PRM_CQE_OPCODE_REQ_ERR, syndrome, 0, opcode, qp->qpn,
                                        (uint16_t)wqe_index, 0);

    emu_cq_push(qp->p.send_cq, &cqe, op_own, true);
}

void engine_cqe_resp(struct emu_qp *qp, uint8_t opcode, uint32_t wqe_index, uint32_t byte_cnt,
                     uint32_t imm, uint32_t src_qpn, bool solicited)
{
    struct prm_cqe64 cqe;
    uint8_t op_own =
            prm_cqe_fill_resp(&cqe, opcode, qp->qpn, (uint16_t)wqe_index, byte_cnt, imm, 0);

    cqe.flags_rqpn = htobe32(src_qpn & PRM_CQE_QPN_MASK);
    if (qp->p.srq != NULL)
        cqe.srqn_uidx = htobe32(qp->p.srq->srqn);
    emu_cq_push(qp->p.recv_cq, &cqe, op_own, solicited);
}

void engine_cqe_resp_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_error(&cqe, PRM_CQE_OPCODE_RESP_ERR, syndrome, 0, 0, qp->qpn,
                                        (uint16_t)wqe_index, 0);

    if (qp->p.srq != NULL)
        cqe.srqn_uidx = htobe32(qp->p.srq->srqn);
    emu_cq_push(qp->p.recv_cq, &cqe, op_own, true);
}

/* Receive WQEs software posted (the doorbell record's receive counter). */
uint32_t engine_rq_posted(const struct emu_qp *qp)
{
    uint32_t be = 0;

    if (qp->p.dbrec_gpu)
        emu_mem_read(true, qp->p.dbrec, &be, sizeof(be));
    else /* Acquire: the WQE's contents were written before the counter that publishes it. */
        be = __atomic_load_n((const uint32_t *)qp->p.dbrec, __ATOMIC_ACQUIRE);
    return be32toh(be) & 0xffff;
}

void emu_engine_rq_flush(struct emu_qp *qp)
{
    if (qp->p.srq != NULL || qp->p.rq_size_zero)
        return;
    while (((engine_rq_posted(qp) - qp->rq_consumer) & 0xffff) != 0)
        engine_cqe_resp_err(qp, qp->rq_consumer++, PRM_CQE_SYNDROME_WR_FLUSH_ERR);
}

static void engine_pending_pop(struct emu_qp *qp)
{
    qp->pending_head++;
    __atomic_sub_fetch(&qp->nic->wire->inflight, 1, __ATOMIC_RELAXED);
}

void emu_engine_qp_fail(struct emu_qp *qp, uint8_t syndrome)
{
    bool first = true;

    if (qp->state != PRM_QP_STATE_ERR)
        EMU_LOG_DBG("QP 0x%x enters the error state (syndrome 0x%x)", qp->qpn, syndrome);
    qp->state = PRM_QP_STATE_ERR;
    qp->rnr_resume_ns = 0;
    while (qp->pending_head != qp->pending_tail) {
        struct emu_pending *e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];
        uint8_t s = first && syndrome != 0 ? syndrome : PRM_CQE_SYNDROME_WR_FLUSH_ERR;

        if (e->needs_response && !e->done)
            qp->reads_in_flight--;
        if (e->done && e->syndrome == 0)
            s = 0;
        if (s != 0)
            emu_engine_cqe_req_err(qp, e->wqe_index, e->opcode, s);
        else if (e->signaled)
            emu_engine_cqe_req(qp, e->wqe_index, e->opcode, e->byte_count);
        if (s != 0)
            first = false;
        engine_pending_pop(qp);
    }
    qp->reads_in_flight = 0;
    qp->sq_rerun = true; /* the requester flushes WQEs it has not executed */
    emu_engine_rq_flush(qp);
}

void engine_complete(struct emu_qp *qp)
{
    while (qp->pending_head != qp->pending_tail) {
        struct emu_pending *e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];

        if (!e->done)
            return;
        if (e->syndrome != 0) {
            emu_engine_qp_fail(qp, e->syndrome);
            return;
        }
        if (e->signaled)
            emu_engine_cqe_req(qp, e->wqe_index, e->opcode, e->byte_count);
        engine_pending_pop(qp);
    }
}

struct emu_pending *engine_pending_find(struct emu_qp *qp, uint32_t psn)
{
    for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++) {
        struct emu_pending *e = &qp->pending[i & (qp->pending_size - 1)];

        if (e->psn == psn && !e->done)
            return e;
    }
    return NULL;
}
