/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs as the engine drives them: creation and destruction, the
 * state machine (legality from prm_qp_transition.h), the error state with
 * its flushes, and the in-order completion of executed send WQEs.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/config.h"
#include "nic/cq.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "nic/uar.h"
#include "prm/mlx5_cqe.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"
#include "prm/prm_qp_transition.h"
#include "wire/wire.h"
#include "nic/async_event.h"

int emu_engine_qp_create(struct emu_nic *nic, const struct emu_qp_params *p, struct emu_qp **qp_out)
{
    int err = emu_qp_create(nic, p, qp_out);

    /* Its doorbells are rung on a UAR page: the loop polls while such QPs exist. */
    if (err == 0 && p->uar != NULL) {
        __atomic_add_fetch(&nic->engine->uar_watchers, 1, __ATOMIC_RELAXED);
        engine_kick(nic->engine);
    }
    return err;
}

/* Drops outstanding work without completions and forgets the queues' progress (both locks). */
static void qp_reset(struct emu_qp *qp)
{
    engine_inflight(qp->nic->engine, -(int)(qp->pending_tail - qp->pending_head));
    qp->pending_head = qp->pending_tail = 0;
    qp->reads_in_flight = 0;
    qp->rnr_resume_ns = 0;
    qp->resp_discard = false;
    qp->last_atomic.valid = false;
    qp->comm_est = false;
    qp->dc.valid = false; /* a DCI connects again with its next request */
    engine_wait_arm(qp, false);
    if (qp->tx_stalled) {
        qp->tx_stalled = false;
        __atomic_sub_fetch(&qp->nic->engine->tx_stalled, 1, __ATOMIC_RELAXED);
    }
    if (qp->rq_err_watch) {
        qp->rq_err_watch = false;
        __atomic_sub_fetch(&qp->nic->engine->err_rqs, 1, __ATOMIC_RELAXED);
    }
    qp->sq_posted = qp->sq_consumer = 0;
    qp->sq_ahead.count = 0; /* software writes the ring anew */
    qp->resending = false;
    qp->rq_consumer = 0;
}

int emu_engine_qp_destroy(struct emu_qp *qp)
{
    struct emu_nic *nic = qp->nic;
    struct emu_engine *e = nic->engine;

    emu_qp_unlist(qp);
    /*
     * The receive side may be working on the QP it looked up before: wait it
     * out. The ACKs the QP holds back leave now, as a NIC would have sent
     * them already: a peer must not take the QP's end (a process that exits
     * after its last receive) for a lost connection with work outstanding.
     */
    pthread_mutex_lock(&e->rx_lock);
    engine_gpu_settle(e); /* copies of writes it took may still be running */
    if (qp->peer != NULL)
        engine_ack_flush(qp->peer);
    pthread_mutex_unlock(&e->rx_lock);
    /* A requester running in another thread finishes first. */
    pthread_mutex_lock(&qp->sq_lock);
    pthread_mutex_lock(&qp->lock);
    qp_reset(qp);
    pthread_mutex_unlock(&qp->lock);
    pthread_mutex_unlock(&qp->sq_lock);
    if (qp->peer != NULL) {
        emu_conn_put(qp->peer);
        engine_peered(e, -1);
    }
    if (qp->p.uar != NULL)
        __atomic_sub_fetch(&e->uar_watchers, 1, __ATOMIC_RELAXED);
    engine_direct_revoke_qp(qp);
    emu_qp_free(qp);
    return 0;
}

int emu_engine_srq_destroy(struct emu_srq *srq)
{
    struct emu_engine *e = srq->nic->engine;
    int err = emu_srq_unlist(srq);

    if (err != 0)
        return err;
    if (e != NULL) {
        /* The receive side may be working with the SRQ it looked up before: wait it out. */
        pthread_mutex_lock(&e->rx_lock);
        pthread_mutex_unlock(&e->rx_lock);
    }
    emu_srq_free(srq);
    return 0;
}

uint32_t engine_gid_ipv4(const uint8_t gid[16])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    if (memcmp(gid, mapped, sizeof(mapped)) != 0)
        return 0;
    return ((uint32_t)gid[12] << 24) | ((uint32_t)gid[13] << 16) | ((uint32_t)gid[14] << 8) |
           gid[15];
}

/* The remote device's address from the address vector: IPv4-mapped GID, or this host. */
static uint32_t qp_remote_ipv4(const struct emu_qp_attr *a)
{
    return a->grh ? engine_gid_ipv4(a->rgid) : 0;
}

/* INIT2RTR: a connection to the remote QP's endpoint (remote_qpn >> 16); NULL when unreachable. */
static int qp_connect(struct emu_qp *qp, const struct emu_qp_attr *a, struct emu_conn **conn)
{
    uint32_t ep = a->remote_qpn >> EMU_OBJ_INDEX_BITS;

    *conn = NULL;
    if (ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS) {
        EMU_LOG_ERR("QP 0x%x: remote QPN 0x%x names no endpoint (1..%d in bits 23:16)", qp->qpn,
                    a->remote_qpn, EMU_WIRE_MAX_ENDPOINTS);
        return EINVAL;
    }
    /* Unreachable is logged there; its requests then complete with retry-exceeded errors. */
    emu_wire_connect(qp->nic->engine->wire, qp_remote_ipv4(a), (uint16_t)ep, conn);
    return 0;
}

static void qp_refused(const struct emu_qp *qp, uint8_t from, uint8_t to)
{
    char legal[256];

    EMU_LOG_ERR("QP 0x%x: transition %s->%s refused (QP is in state %s; legal: %s)", qp->qpn,
                prm_qp_state_name(from), prm_qp_state_name(to), prm_qp_state_name(qp->state),
                prm_qp_transition_list(legal, sizeof(legal)));
}

int emu_engine_qp_modify(struct emu_qp *qp, uint8_t from, uint8_t to,
                         const struct emu_qp_attr *attr)
{
    struct emu_qp_attr a = attr != NULL ? *attr : qp->attr;
    struct emu_conn *conn = NULL;
    bool run = false;

    if (prm_qp_transition_find(from, to) == NULL) {
        qp_refused(qp, from, to);
        return EINVAL;
    }
    /* Connecting may block: done before the locks, checked against the state after. */
    if (from == PRM_QP_STATE_INIT && to == PRM_QP_STATE_RTR && qp->tp->connected &&
        qp->tp->dc == PRM_QP_DC_NONE && qp_connect(qp, &a, &conn) != 0)
        return EINVAL;
    /* Reset waits out a requester that runs (its lock first, as the requester takes them). */
    if (to == PRM_QP_STATE_RST)
        pthread_mutex_lock(&qp->sq_lock);
    pthread_mutex_lock(&qp->lock);
    if (qp->state != from) {
        qp_refused(qp, from, to);
        pthread_mutex_unlock(&qp->lock);
        if (to == PRM_QP_STATE_RST)
            pthread_mutex_unlock(&qp->sq_lock);
        if (conn != NULL)
            emu_conn_put(conn);
        return EINVAL;
    }
    if (from == PRM_QP_STATE_INIT && to == PRM_QP_STATE_RTR) {
        int delta = (conn != NULL) - (qp->peer != NULL);

        if (qp->peer != NULL)
            emu_conn_put(qp->peer);
        qp->peer = conn;
        engine_peered(qp->nic->engine, delta);
        qp->expected_psn = a.rq_psn;
    }
    if (from == PRM_QP_STATE_RTR && to == PRM_QP_STATE_RTS) {
        qp->next_psn = a.sq_psn;
        qp->rnr_retries_left = a.rnr_retry;
        qp->retries_left = a.retry_count;
    }
    /* A DCI's remote QP is the DCT it is connected to (dc.c), whatever the command says. */
    if (qp->tp->dc == PRM_QP_DC_DCI)
        a.remote_qpn = qp->attr.remote_qpn;
    qp->attr = a;
    if (to == PRM_QP_STATE_ERR) {
        engine_qp_fail(qp, 0);
        run = true;
    } else if (to == PRM_QP_STATE_RST) {
        qp_reset(qp);
        qp->state = to;
    } else {
        qp->state = to;
        run = to == PRM_QP_STATE_RTS;
    }
    pthread_mutex_unlock(&qp->lock);
    /*
     * Whatever changed (state, access), peers' direct writes end before the
     * caller goes on (entering ERR, engine_qp_fail ended them).
     */
    if (to != PRM_QP_STATE_ERR)
        engine_direct_revoke_qp(qp);
    if (to == PRM_QP_STATE_RST) {
        pthread_mutex_unlock(&qp->sq_lock);
        /* Outside the QP's locks: the UAR watcher takes its own lock, then the QP's. */
        if (qp->p.uar != NULL)
            emu_uar_qp_reset(qp);
    }
    if (run)
        engine_sq_run(qp);
    return 0;
}

uint64_t engine_retry_period_ns(const struct emu_qp *qp)
{
    /* The retry timeout covers the first attempt and every retry. */
    return (uint64_t)emu_config_get()->retry_timeout_ms * 1000000ull / (qp->attr.retry_count + 1u);
}

uint64_t engine_rnr_delay_ns(uint8_t timer)
{
    /* IB RNR NAK timer field, in microseconds (0 means 655.36 ms). */
    static const uint32_t us[32] = {655360, 10,    20,    30,     40,     60,     80,     120,
                                    160,    240,   320,   480,    640,    960,    1280,   1920,
                                    2560,   3840,  5120,  7680,   10240,  15360,  20480,  30720,
                                    40960,  61440, 81920, 122880, 163840, 245760, 327680, 491520};

    return (uint64_t)us[timer & 31] * 1000ull;
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
    engine_inflight(qp->nic->engine, -1);
}

/*
 * Completes every executed WQE (qp->lock held): the first one that failed
 * with its syndrome (unless 0), the rest flushed; the requester then flushes
 * those it has not executed.
 */
static void qp_flush_pending(struct emu_qp *qp, uint8_t syndrome)
{
    bool first = true;

    qp->rnr_resume_ns = 0;
    while (qp->pending_head != qp->pending_tail) {
        struct emu_pending *e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];
        uint8_t s = first && syndrome != 0 ? syndrome : PRM_CQE_SYNDROME_WR_FLUSH_ERR;

        if (e->needs_response && !e->done)
            qp->reads_in_flight--;
        if (e->done && e->syndrome == 0)
            s = 0;
        if (s != 0)
            engine_cqe_req_err(qp, e->wqe_index, e->opcode, s);
        else if (e->signaled)
            engine_cqe_req(qp, e->wqe_index, e->opcode, e->byte_count);
        if (s != 0)
            first = false;
        engine_pending_pop(qp);
    }
    qp->reads_in_flight = 0;
    qp->sq_rerun = true; /* the requester flushes WQEs it has not executed */
}

/*
 * UC and UD (qp->lock held): a send WQE failed. The QP enters the send
 * queue error state (IB's SQE, PRM's SQER): the send queue is flushed, the
 * receive side goes on, SQERR2RTS resumes.
 */
static void qp_sq_fail(struct emu_qp *qp, uint8_t syndrome)
{
    EMU_LOG_DBG("QP 0x%x enters the send queue error state (syndrome 0x%x)", qp->qpn, syndrome);
    qp->state = PRM_QP_STATE_SQER;
    qp_flush_pending(qp, syndrome);
}

void engine_qp_fail(struct emu_qp *qp, uint8_t syndrome)
{
    if (qp->state != PRM_QP_STATE_ERR) {
        EMU_LOG_DBG("QP 0x%x enters the error state (syndrome 0x%x)", qp->qpn, syndrome);
        engine_direct_revoke_qp(qp); /* a QP in ERR is granted nothing */
        /* It takes no more WQEs from its SRQ: the consumer may now drain and destroy it. */
        if (qp->p.srq != NULL)
            emu_async_raise(qp->nic, qp->ibv.context, IBV_EVENT_QP_LAST_WQE_REACHED, &qp->ibv);
    }
    qp->state = PRM_QP_STATE_ERR;
    /* Receives posted from now on are flushed as the loop sees them posted (engine_err_rqs). */
    if (!qp->rq_err_watch && qp->p.srq == NULL && !qp->p.rq_size_zero) {
        qp->rq_err_watch = true;
        if (__atomic_add_fetch(&qp->nic->engine->err_rqs, 1, __ATOMIC_RELAXED) == 1)
            engine_kick(qp->nic->engine);
    }
    qp_flush_pending(qp, syndrome);
    emu_engine_rq_flush(qp);
}

void engine_qp_fatal(struct emu_qp *qp, const char *why, const char *fix)
{
    EMU_LOG_ERR("QP 0x%x: %s; the QP enters the error state (QP_FATAL): %s", qp->qpn, why, fix);
    emu_async_raise(qp->nic, qp->ibv.context, IBV_EVENT_QP_FATAL, &qp->ibv);
    engine_qp_fail(qp, 0);
}

void engine_complete(struct emu_qp *qp)
{
    while (qp->pending_head != qp->pending_tail) {
        struct emu_pending *e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];

        if (!e->done)
            return;
        if (e->syndrome != 0 && qp->tp->acked) {
            engine_qp_fail(qp, e->syndrome);
            return;
        }
        if (e->syndrome != 0) {
            qp_sq_fail(qp, e->syndrome);
            return;
        }
        if (e->signaled)
            engine_cqe_req(qp, e->wqe_index, e->opcode, e->byte_count);
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
