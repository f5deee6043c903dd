/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DC (Dynamically Connected). A DCI is a reliable send queue, as RC's, whose
 * send WQEs carry a datagram segment: the DC target's number (dqp_dct), the
 * DC access key (its first 8 bytes) and the address vector. The DCI is
 * connected to one DCT at a time: a WQE for the DCT it is connected to runs
 * at once, one for another DCT waits until every earlier request completed
 * (so order within the DCI holds), then the DCI connects there: it takes a
 * connection to the DCT's device (datagram.c's way of finding it) and sends
 * DC_CONNECT (wire/proto.h) with the key and its next PSN. From then on its
 * requests, ACKs, NAKs, retries and errors are RC's.
 *
 * A DCT keeps, per connection, the state of each DCI that connected to it
 * (expected PSN, the RNR discard flag, the last atomic), loads it into the
 * DCT's responder fields for each request of that DCI and stores it back:
 * the RC responder does the rest. A DC_CONNECT with the wrong key makes
 * every request of that DCI a NAK with a remote access error; one for a QPN
 * that is no DCT, an invalid request error. The DCT itself never fails.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp_transport.h"
#include "wire/wire.h"

/* DCIs one connection may hold state for; the least recently used goes first beyond it. */
#define DC_CTX_MAX 4096u

/* The state of one DCI at one of our DCTs, on the connection the DCI uses. */
struct engine_dc_ctx {
    uint32_t dctn, dci;
    uint32_t expected_psn;
    bool resp_discard;
    uint8_t syndrome; /* refused (wrong key, no such DCT): every request is NAKed with it */
    struct emu_last_atomic last_atomic;
    uint64_t used_ns;
};

uint8_t engine_dci_route(struct emu_qp *qp, const struct engine_wqe *w, bool *stall, bool *switched)
{
    const struct prm_wqe_datagram_seg *av =
            (const void *)(w->buf + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t dctn, ipv4, ep, psn;
    struct emu_conn *conn = NULL, *old;
    struct emu_wire_hdr h;
    uint64_t key;
    int delta;

    if (w->ds * PRM_WQE_DS_SIZE < engine_wqe_remote_off(qp)) {
        EMU_LOG_ERR("QP 0x%x: DCI send WQE of %u DS has no datagram segment", qp->qpn, w->ds);
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
    memcpy(&key, av, sizeof(key));
    key = be64toh(key);
    dctn = be32toh(av->dqp_dct) & PRM_CQE_QPN_MASK;
    ipv4 = (be32toh(av->grh_gid_fl) & PRM_WQE_AV_GRH) ? engine_gid_ipv4(av->rgid) : 0;
    pthread_mutex_lock(&qp->lock);
    if (qp->dc.valid && qp->dc.dctn == dctn && qp->dc.ipv4 == ipv4 && qp->dc.key == key &&
        qp->peer != NULL && !emu_conn_dead(qp->peer)) {
        pthread_mutex_unlock(&qp->lock);
        return 0;
    }
    /* Only the requester (this thread) adds to the ring: once empty, it stays so. */
    if (qp->pending_head != qp->pending_tail) {
        pthread_mutex_unlock(&qp->lock);
        *stall = true;
        return 0;
    }
    pthread_mutex_unlock(&qp->lock);
    ep = dctn >> EMU_OBJ_INDEX_BITS;
    if (ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS) {
        EMU_LOG_ERR("QP 0x%x: DCT number 0x%x names no endpoint (1..%d in bits 23:16)", qp->qpn,
                    dctn, EMU_WIRE_MAX_ENDPOINTS);
        return PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
    }
    /* Unreachable is logged there; the request then fails as RC's would. */
    if (emu_wire_connect(qp->nic->engine->wire, ipv4, (uint16_t)ep, &conn) != 0)
        return PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
    pthread_mutex_lock(&qp->lock);
    psn = qp->next_psn;
    pthread_mutex_unlock(&qp->lock);
    emu_wire_hdr_init(&h, EMU_WIRE_DC_CONNECT, qp->qpn, dctn, psn);
    h.compare = htobe64(key);
    if (emu_conn_send(conn, &h, NULL, 0, NULL, NULL) != 0) {
        emu_conn_put(conn);
        return PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
    }
    pthread_mutex_lock(&qp->lock);
    old = qp->peer;
    delta = 1 - (old != NULL);
    qp->peer = conn;
    qp->attr.remote_qpn = dctn;
    qp->dc.dctn = dctn;
    qp->dc.ipv4 = ipv4;
    qp->dc.key = key;
    qp->dc.valid = true;
    pthread_mutex_unlock(&qp->lock);
    engine_peered(qp->nic->engine, delta);
    if (old != NULL)
        emu_conn_put(old);
    *switched = true;
    return 0;
}

static struct engine_dc_ctx *dc_ctx_find(struct engine_conn *ec, uint32_t dctn, uint32_t dci)
{
    for (uint32_t i = 0; i < ec->dc_count; i++)
        if (ec->dc[i].dctn == dctn && ec->dc[i].dci == dci)
            return &ec->dc[i];
    return NULL;
}

/* A slot for (dctn, dci): its old one, a new one, or the least recently used one. */
static struct engine_dc_ctx *dc_ctx_slot(struct engine_conn *ec, uint32_t dctn, uint32_t dci)
{
    struct engine_dc_ctx *c = dc_ctx_find(ec, dctn, dci);

    if (c != NULL)
        return c;
    if (ec->dc_count == ec->dc_cap && ec->dc_cap < DC_CTX_MAX) {
        uint32_t cap = ec->dc_cap ? ec->dc_cap * 2 : 8;
        struct engine_dc_ctx *n = realloc(ec->dc, cap * sizeof(*n));

        if (n != NULL) {
            ec->dc = n;
            ec->dc_cap = cap;
        }
    }
    if (ec->dc_count < ec->dc_cap)
        return &ec->dc[ec->dc_count++];
    if (ec->dc_count == 0)
        return NULL;
    c = &ec->dc[0];
    for (uint32_t i = 1; i < ec->dc_count; i++)
        if (ec->dc[i].used_ns < c->used_ns)
            c = &ec->dc[i];
    EMU_LOG_INFO("DC: state of DCI 0x%x at DCT 0x%x dropped for DCI 0x%x (%u DCIs on one "
                 "connection at most)",
                 c->dci, c->dctn, dci, ec->dc_count);
    return c;
}

int engine_dc_connect(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    struct engine_conn *ec = engine_conn_of(conn);
    uint32_t dctn = be32toh(h->dst_qpn), dci = be32toh(h->src_qpn);
    struct engine_dc_ctx *c;

    if (ec == NULL || (c = dc_ctx_slot(ec, dctn, dci)) == NULL) {
        emu_wire_reject(conn, "no memory for a DC initiator's state", dci);
        return -1;
    }
    memset(c, 0, sizeof(*c));
    c->dctn = dctn;
    c->dci = dci;
    c->expected_psn = be32toh(h->psn);
    c->used_ns = emu_now_ns();
    if (qp == NULL || qp->tp->dc != PRM_QP_DC_DCT) {
        EMU_LOG_INFO("DCI 0x%x connects to 0x%x, which is no DCT of this device: its requests "
                     "are refused (invalid request)",
                     dci, dctn);
        c->syndrome = PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
    } else if (be64toh(h->compare) != qp->dc.key) {
        EMU_LOG_INFO("DCI 0x%x connects to DCT 0x%x with DC access key 0x%lx, not the DCT's: "
                     "its requests are refused (remote access error)",
                     dci, dctn, (unsigned long)be64toh(h->compare));
        c->syndrome = PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR;
    }
    return 0;
}

/* Refuses a request of a DCI (answers come in request order: owed ACKs first). */
static int dc_nak(struct emu_conn *conn, const struct emu_wire_hdr *req, uint8_t syndrome)
{
    struct emu_wire_hdr h;

    engine_ack_flush(conn);
    emu_wire_hdr_init(&h, EMU_WIRE_NAK, be32toh(req->dst_qpn), be32toh(req->src_qpn),
                      be32toh(req->psn));
    h.syndrome = syndrome;
    emu_conn_send(conn, &h, NULL, 0, NULL, NULL);
    return 0;
}

int engine_dct_request(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                       const uint8_t *payload, struct emu_wire_sink *sink)
{
    struct engine_conn *ec = emu_conn_user(conn);
    struct engine_dc_ctx *c = ec != NULL ? dc_ctx_find(ec, qp->qpn, be32toh(h->src_qpn)) : NULL;
    int rc;

    if (c == NULL) {
        EMU_LOG_INFO("DCT 0x%x: request from QP 0x%x, which did not connect (DC_CONNECT): "
                     "refused",
                     qp->qpn, be32toh(h->src_qpn));
        return dc_nak(conn, h, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    }
    if (c->syndrome != 0)
        return dc_nak(conn, h, c->syndrome);
    c->used_ns = emu_now_ns();
    /* Requests are handled one at a time (the receive lock): the DCT's fields are the DCI's. */
    pthread_mutex_lock(&qp->lock);
    qp->attr.remote_qpn = c->dci;
    qp->expected_psn = c->expected_psn;
    qp->resp_discard = c->resp_discard;
    qp->last_atomic = c->last_atomic;
    pthread_mutex_unlock(&qp->lock);
    rc = engine_resp_connected(qp, conn, h, payload, sink);
    /* The context array may have moved: never within one request, it grows at DC_CONNECT only. */
    pthread_mutex_lock(&qp->lock);
    c->expected_psn = qp->expected_psn;
    c->resp_discard = qp->resp_discard;
    c->last_atomic = qp->last_atomic;
    pthread_mutex_unlock(&qp->lock);
    return rc;
}

bool engine_dc_unknown(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    struct engine_conn *ec = emu_conn_user(conn);
    struct engine_dc_ctx *c =
            ec != NULL ? dc_ctx_find(ec, be32toh(h->dst_qpn), be32toh(h->src_qpn)) : NULL;

    if (c == NULL)
        return false;
    /* Both numbers were reused since, by a connected pair of QPs: the old state goes. */
    if (qp != NULL && qp->tp->connected) {
        bool reused;

        pthread_mutex_lock(&qp->lock);
        reused = qp->attr.remote_qpn == c->dci && qp->peer == conn;
        pthread_mutex_unlock(&qp->lock);
        if (reused) {
            *c = ec->dc[--ec->dc_count];
            return false;
        }
    }
    if (c->syndrome == 0)
        EMU_LOG_INFO("DCT 0x%x is gone: request of DCI 0x%x refused (invalid request)", c->dctn,
                     c->dci);
    dc_nak(conn, h, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    return true;
}

void engine_dc_conn_free(struct engine_conn *ec)
{
    free(ec->dc);
    ec->dc = NULL;
    ec->dc_count = ec->dc_cap = 0;
}
