/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completer (receive side, receive lock held): responses complete the
 * requests they answer. ACKs are cumulative, NAKs fail a request (or make
 * the requester wait out an RNR timer, or resend it with its bytes instead
 * of a GPU reference), read and atomic responses are
 * scattered into the WQE's local buffers, a large read response over as
 * many readiness events as it takes. Also the requester's timers: a request
 * unanswered within its period is resent, then fails with retry-exceeded.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/config.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/mlx5_cqe.h"
#include "prm/prm_qp_transport.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

/* The local buffers of a read or atomic WQE, held for len bytes; 0 or a PRM syndrome. */
static uint8_t completer_local(struct emu_qp *qp, const struct emu_pending *e, uint32_t len,
                               struct engine_sgl *l)
{
    struct engine_wqe w;
    uint32_t off = engine_wqe_remote_off(qp) + sizeof(struct prm_wqe_raddr_seg);
    uint32_t end, left = len;

    memset(l, 0, sizeof(*l));
    if (engine_wqe_fetch(qp, e->wqe_index, e->next_index - e->wqe_index, false, &w) != 0)
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    end = w.ds * PRM_WQE_DS_SIZE;
    if (e->opcode != PRM_WQE_OPCODE_RDMA_READ)
        off += engine_atomic_seg_bytes(e->opcode, w.opmod);
    for (; off + 16 <= end && left > 0; off += 16) {
        const struct prm_wqe_data_seg *d = (const void *)(w.buf + off);
        uint32_t take = be32toh(d->byte_count);

        take = take < left ? take : left;
        if (take == 0)
            continue;
        /* Checked at execution; checked again, as it may have been deregistered since. */
        if (engine_sgl_hold(l, qp, be32toh(d->lkey), be64toh(d->addr), take,
                            IBV_ACCESS_LOCAL_WRITE) != EMU_MR_OK)
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        left -= take;
    }
    return 0;
}

/* A read or atomic is answered (qp->lock held): done, with syndrome when its data went nowhere. */
/*
 * The retry counters start again only when the oldest request is answered:
 * answers to later ones alone (a responder acknowledging writes behind a
 * read or atomic it does not answer) must not keep that one retrying forever.
 */
static void completer_progress(struct emu_qp *qp)
{
    if (qp->pending_head == qp->pending_tail ||
        qp->pending[qp->pending_head & (qp->pending_size - 1)].done) {
        qp->rnr_retries_left = qp->attr.rnr_retry;
        qp->retries_left = qp->attr.retry_count;
    }
}

static void completer_answered(struct emu_qp *qp, struct emu_pending *e, uint8_t syndrome)
{
    e->done = true;
    e->syndrome = syndrome;
    qp->reads_in_flight--;
    completer_progress(qp);
}

/* A NAK ends request e with syndrome. */
static void completer_nak_fail(struct emu_qp *qp, struct emu_pending *e, uint8_t syndrome)
{
    e->done = true;
    e->syndrome = syndrome;
    if (e->needs_response)
        qp->reads_in_flight--;
}

static void completer_nak(struct emu_qp *qp, struct emu_pending *e, const struct emu_wire_hdr *h)
{
    EMU_LOG_DBG("QP 0x%x: NAK syndrome 0x%x for PSN 0x%x (RNR retries left %u)", qp->qpn,
                h->syndrome, e->psn, qp->rnr_retries_left);
    if (h->syndrome == EMU_WIRE_NAK_RESEND) {
        /*
         * The peer cannot open our GPU references: resent at once with the
         * bytes. Asked again once refused (another QP's reference still in
         * flight, or a peer that keeps asking), it costs a retry.
         */
        if (qp->peer != NULL && emu_conn_gpu_refs(qp->peer)) {
            emu_conn_gpu_refused(qp->peer);
        } else if (qp->retries_left > 0) {
            qp->retries_left--;
        } else {
            completer_nak_fail(qp, e, PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
            return;
        }
        qp->rnr_resume_ns = emu_now_ns();
        engine_kick(qp->nic->engine);
        return;
    }
    if (h->syndrome != EMU_WIRE_NAK_RNR) {
        completer_nak_fail(qp, e, h->syndrome);
        return;
    }
    if (qp->attr.rnr_retry != 7 && qp->rnr_retries_left == 0) {
        completer_nak_fail(qp, e, PRM_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
        return;
    }
    if (qp->attr.rnr_retry != 7)
        qp->rnr_retries_left--;
    /* Resend from this request once the responder's timer expired (the requester rewinds). */
    qp->rnr_resume_ns = emu_now_ns() + engine_rnr_delay_ns((uint8_t)be32toh(h->imm));
    for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++)
        qp->pending[i & (qp->pending_size - 1)].deadline_ns =
                qp->rnr_resume_ns + (uint64_t)emu_config_get()->retry_timeout_ms * 1000000ull;
    engine_kick(qp->nic->engine);
}

/* A READ_RESP or ATOMIC_RESP (qp->lock held); a large payload completes in engine_response_done. */
static int completer_data(struct emu_qp *qp, struct emu_conn *conn, struct emu_pending *e,
                          const struct emu_wire_hdr *h, const uint8_t *payload,
                          struct emu_wire_sink *sink)
{
    uint32_t psn = be32toh(h->psn), len = be32toh(h->payload_len);
    struct engine_sgl l;
    uint8_t synd;

    /*
     * A read returns at most what was asked; an atomic exactly its operand
     * size. Another answer (a peer's bug, or a WQE software rewrote before
     * it completed, executed again after a rewind) is a bad response, as
     * IB names it: this QP fails, the connection its peers share lives.
     */
    if (!e->needs_response || len > e->byte_count ||
        (h->type == EMU_WIRE_ATOMIC_RESP && len != e->byte_count) ||
        (h->type == EMU_WIRE_READ_RESP) != (e->opcode == PRM_WQE_OPCODE_RDMA_READ)) {
        EMU_LOG_ERR("QP 0x%x: %u-byte response type %u for PSN 0x%x does not match its request "
                    "(WQE opcode 0x%x, %u bytes): bad response error",
                    qp->qpn, len, h->type, psn, e->opcode, e->byte_count);
        if (e->needs_response && !e->done)
            qp->reads_in_flight--;
        e->done = true;
        e->syndrome = PRM_CQE_SYNDROME_BAD_RESP_ERR;
        return 0; /* the payload, if any is to come, is discarded */
    }
    /* The completion's byte count is what the responder returned (a read may return less). */
    if (h->type == EMU_WIRE_READ_RESP)
        e->byte_count = len;
    synd = completer_local(qp, e, len, &l);
    if (synd != 0) {
        engine_sgl_release(&l);
        completer_answered(qp, e, synd);
        return 0; /* the payload, if any is to come, is discarded */
    }
    if (sink != NULL) {
        struct engine_rx rx = {
                .response = true, .qpn = qp->qpn, .psn = psn, .len = len, .rindex = -1, .sgl = l};

        return engine_rx_start(conn, &rx, sink);
    }
    synd = engine_sgl_scatter(&l, payload, len) == 0 ? 0 : PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
    engine_sgl_release(&l);
    completer_answered(qp, e, synd);
    return 0;
}

int engine_response(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                    const uint8_t *payload, struct emu_wire_sink *sink)
{
    uint32_t psn = be32toh(h->psn);
    struct emu_pending *e;
    int err = 0;

    pthread_mutex_lock(&qp->lock);
    e = engine_pending_find(qp, psn);
    if (e == NULL || be32toh(h->src_qpn) != qp->attr.remote_qpn) {
        /* Stale (flushed, or before a rewind): nothing waits for it; its payload is dropped. */
        EMU_LOG_DBG("QP 0x%x: response type %u for PSN 0x%x matches no request", qp->qpn, h->type,
                    psn);
        pthread_mutex_unlock(&qp->lock);
        return 0;
    }
    switch (h->type) {
    case EMU_WIRE_ACK:
        if (e->needs_response) {
            /*
             * Stale: an ACK from before a reset of either QP that names a
             * PSN a read or atomic now has. Dropped; the connection, which
             * every QP pair of the two devices shares, lives.
             */
            EMU_LOG_DBG("QP 0x%x: ACK for PSN 0x%x, a read or atomic: stale, dropped", qp->qpn,
                        psn);
            break;
        }
        /* Cumulative: every earlier request is acknowledged too. */
        for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++) {
            struct emu_pending *p = &qp->pending[i & (qp->pending_size - 1)];

            if (!p->needs_response && !p->done && (int32_t)(p->psn - psn) <= 0)
                p->done = true;
        }
        completer_progress(qp);
        break;
    case EMU_WIRE_READ_RESP:
    case EMU_WIRE_ATOMIC_RESP:
        err = completer_data(qp, conn, e, h, payload, sink);
        break;
    case EMU_WIRE_NAK:
        completer_nak(qp, e, h);
        break;
    default:
        break;
    }
    engine_complete(qp);
    pthread_mutex_unlock(&qp->lock);
    /* A fence, a read limit or an error may have held WQEs back. */
    engine_sq_run(qp);
    return err;
}

int engine_response_done(struct emu_conn *conn, const struct emu_wire_hdr *h, int err)
{
    struct engine_conn *ec = emu_conn_user(conn);
    struct emu_nic *nic = emu_wire_user(emu_conn_wire(conn));
    struct emu_pending *e;
    struct emu_qp *qp;
    uint32_t qpn, psn;

    (void)h;
    if (ec == NULL || !ec->rx.active)
        return 0;
    qpn = ec->rx.qpn;
    psn = ec->rx.psn;
    err = engine_rx_finish(&ec->rx, err);
    pthread_mutex_lock(&nic->lock);
    qp = emu_qp_lookup(nic, qpn);
    pthread_mutex_unlock(&nic->lock);
    if (qp == NULL)
        return 0;
    pthread_mutex_lock(&qp->lock);
    e = engine_pending_find(qp, psn);
    if (e != NULL && e->needs_response)
        completer_answered(qp, e, err == 0 ? 0 : PRM_CQE_SYNDROME_LOCAL_PROT_ERR);
    engine_complete(qp);
    pthread_mutex_unlock(&qp->lock);
    engine_sq_run(qp);
    return 0;
}

/* Resends or fails the oldest unanswered request of qp once its time is up. */
static bool engine_timer_check(struct emu_qp *qp, void *arg)
{
    uint64_t now = *(const uint64_t *)arg;
    struct emu_pending *e;

    if (qp->rnr_resume_ns != 0)
        return now >= qp->rnr_resume_ns;
    if (qp->pending_head == qp->pending_tail)
        return false;
    e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];
    if (e->done || now < e->deadline_ns)
        return false;
    if (qp->retries_left > 0) {
        /* A request the responder dropped (not ready yet): resend from it, as IB does. */
        qp->retries_left--;
        EMU_LOG_DBG("QP 0x%x: no response to PSN 0x%x yet: resending (%u retries left)", qp->qpn,
                    e->psn, qp->retries_left);
        qp->rnr_resume_ns = now;
        for (uint32_t j = qp->pending_head; j != qp->pending_tail; j++)
            qp->pending[j & (qp->pending_size - 1)].deadline_ns = now + engine_retry_period_ns(qp);
        return true;
    }
    EMU_LOG_ERR("QP 0x%x: no response to PSN 0x%x within %u ms: transport retry counter exceeded",
                qp->qpn, e->psn, emu_config_get()->retry_timeout_ms);
    engine_qp_fail(qp, PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
    return true;
}

void engine_timers(struct emu_nic *nic, uint64_t now)
{
    engine_each_qp(nic, engine_timer_check, &now);
}

static bool engine_wait_check(struct emu_qp *qp, void *arg)
{
    (void)arg;
    return qp->wait_active;
}

void engine_waits(struct emu_nic *nic)
{
    engine_each_qp(nic, engine_wait_check, NULL);
}

/*
 * The connection qp's outstanding work waited on is lost. UC: nothing waits
 * for an answer, what had not left yet is lost with the link, as a wire
 * loses it, and completes. RC, XRC, DC: the requests stay outstanding, as on
 * a NIC that cannot tell a dead peer from a slow one: their timers resend
 * them, then fail them with retry-exceeded once the QP's retries are spent
 * (engine_timer_check). Either way a peer that exits right after its last
 * receive does not fail our last send while we still take our completions.
 */
static bool engine_conn_lost_check(struct emu_qp *qp, void *arg)
{
    struct emu_conn *conn = arg;

    if (qp->peer != conn || qp->pending_head == qp->pending_tail || qp->state == PRM_QP_STATE_ERR)
        return false;
    if (qp->tp->acked) {
        EMU_LOG_DBG("QP 0x%x: connection to endpoint %u lost with work outstanding: it fails "
                    "once its retries are spent",
                    qp->qpn, emu_conn_peer_ep(conn));
        return false;
    }
    for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++)
        qp->pending[i & (qp->pending_size - 1)].done = true;
    engine_complete(qp);
    return true;
}

void engine_conn_lost(struct emu_nic *nic, struct emu_conn *conn)
{
    engine_each_qp(nic, engine_conn_lost_check, conn);
}
