/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections: rdma_connect, rdma_accept, rdma_reject, rdma_establish,
 * rdma_disconnect and what the peer's messages, the end of the TCP
 * connection and the timers do to an id (cm_lock held throughout).
 *   active:  connect -> REQ ... REP (taken by the program: QP to RTR and RTS,
 *            RTU sent, ESTABLISHED) or REJ (REJECTED)
 *   passive: REQ (CONNECT_REQUEST) ... accept: QP to RTR and RTS, REP ...
 *            RTU (ESTABLISHED)
 *   either:  disconnect: QP to ERR, DREQ ... DREP (DISCONNECTED); a DREQ
 *            received is answered with DREP (DISCONNECTED); TIMEWAIT_EXIT
 *            follows DISCONNECTED after CM_TIMEWAIT_MS.
 * A refused TCP connection is an IB CM "invalid service ID" reject, as a REQ
 * to a port nobody listens on is; no answer within CM_CONNECT_TIMEOUT_MS, or
 * a connection that ends before ESTABLISHED, is UNREACHABLE; one that ends
 * after it is DISCONNECTED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

#define CM_CONNECT_TIMEOUT_MS 5000
#define CM_DREP_TIMEOUT_MS    2000
#define CM_TIMEWAIT_MS        1000

static int cm_conn_send(struct cm_id *id, enum cm_msg_type type, const void *pdata, size_t len,
                        uint8_t reason)
{
    struct cm_msg msg = {
            .magic = CM_MSG_MAGIC,
            .version = CM_MSG_VERSION,
            .type = (uint8_t)type,
            .pdata_len = (uint8_t)len,
            .reason = reason,
            .qpn = id->local.qpn,
            .psn = cm_is_ud(id) ? RDMA_UDP_QKEY : id->local.psn,
            .lid = id->local.lid,
            .link_layer = id->local.link_layer,
            .mtu = id->local.mtu,
            .responder_resources = id->local.responder_resources,
            .initiator_depth = id->local.initiator_depth,
            .retry_count = id->local.retry_count,
            .rnr_retry_count = id->local.rnr_retry_count,
            .flow_control = id->local.flow_control,
            .srq = id->local.srq,
    };
    ssize_t n;

    memcpy(msg.gid, id->local.gid.raw, sizeof(msg.gid));
    if (len > 0)
        memcpy(msg.pdata, pdata, len);
    cm_msg_swap(&msg);
    if (id->sock < 0) {
        errno = ENOTCONN;
        return -1;
    }
    /* A message is the only thing in flight on its connection: the socket takes it whole. */
    n = send(id->sock, &msg, sizeof(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == (ssize_t)sizeof(msg))
        return 0;
    if (n >= 0)
        errno = EIO;
    EMU_LOG_INFO("librdmacm: cannot send %s: %s", cm_msg_name(type), strerror(errno));
    return -1;
}

static void cm_peer_from_msg(struct cm_id *id, const struct cm_msg *msg)
{
    struct cm_side *p = &id->peer;

    p->qpn = msg->qpn & 0xffffff;
    p->psn = msg->psn & 0xffffff;
    p->qkey = msg->psn;
    memcpy(p->gid.raw, msg->gid, sizeof(p->gid.raw));
    p->lid = msg->lid;
    p->link_layer = msg->link_layer;
    p->mtu = msg->mtu;
    p->responder_resources = msg->responder_resources;
    p->initiator_depth = msg->initiator_depth;
    p->retry_count = msg->retry_count;
    p->rnr_retry_count = msg->rnr_retry_count;
    p->flow_control = msg->flow_control;
    p->srq = msg->srq;
    id->peer_known = true;
    id->pub.route.addr.addr.ibaddr.dgid = p->gid;
}

/* The peer's connection parameters as the program sees them in a request or a reply. */
static void cm_event_set_conn(struct cm_event *ev, const struct cm_id *id, const struct cm_msg *msg,
                              size_t pdata_size)
{
    struct rdma_conn_param *c = &ev->pub.param.conn;

    cm_event_set_pdata(ev, msg, pdata_size);
    c->responder_resources = id->peer.initiator_depth;
    c->initiator_depth = id->peer.responder_resources;
    c->flow_control = id->peer.flow_control;
    c->retry_count = id->peer.retry_count;
    c->rnr_retry_count = id->peer.rnr_retry_count;
    c->srq = id->peer.srq;
    c->qp_num = id->peer.qpn;
}

/* A UD peer as the program sees it in a request or a reply: its QP, Q_Key and address. */
static void cm_event_set_ud(struct cm_event *ev, const struct cm_id *id, const struct cm_msg *msg,
                            size_t pdata_size)
{
    struct rdma_ud_param *u = &ev->pub.param.ud;

    cm_event_set_pdata(ev, msg, pdata_size);
    cm_peer_ah_attr(id, &u->ah_attr);
    u->qp_num = id->peer.qpn;
    u->qkey = id->peer.qkey;
}

/* The connection is over: no more messages, and what follows is only the timewait. */
static void cm_conn_close(struct cm_id *id, enum cm_state state)
{
    cm_id_close_socket(id);
    id->state = state;
    cm_id_set_timer(id, CM_TIMER_NONE, 0);
}

static void cm_conn_fail(struct cm_id *id, enum rdma_cm_event_type type, int status)
{
    cm_conn_close(id, CM_CLOSED);
    cm_event_queue(id, type, status);
}

static void cm_conn_disconnected(struct cm_id *id, int status)
{
    cm_conn_close(id, CM_DISCONNECTED);
    if (!id->disconnect_queued) {
        id->disconnect_queued = true;
        cm_event_queue(id, RDMA_CM_EVENT_DISCONNECTED, status);
        cm_id_set_timer(id, CM_TIMER_TIMEWAIT, CM_TIMEWAIT_MS);
    }
}

static void cm_on_req(struct cm_id *id, const struct cm_msg *msg)
{
    struct cm_event *ev;

    cm_peer_from_msg(id, msg);
    id->local.psn = (uint32_t)random() & 0xffffff;
    id->state = CM_REQ_RCVD;
    ev = cm_event_queue(id, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
    if (ev == NULL) {
        cm_id_discard(id);
        return;
    }
    ev->pub.listen_id = &id->listen->pub;
    if (cm_is_ud(id))
        cm_event_set_ud(ev, id, msg, CM_PDATA_SIDR_REQ);
    else
        cm_event_set_conn(ev, id, msg, CM_PDATA_REQ);
}

static void cm_on_rep(struct cm_id *id, const struct cm_msg *msg)
{
    struct cm_event *ev;

    cm_peer_from_msg(id, msg);
    if (cm_is_ud(id)) {
        /* The SIDR REP: the peer's QP is known, and nothing more is to be said. */
        cm_conn_close(id, CM_CLOSED);
        ev = cm_event_queue(id, RDMA_CM_EVENT_ESTABLISHED, 0);
        if (ev != NULL)
            cm_event_set_ud(ev, id, msg, CM_PDATA_SIDR_REP);
        return;
    }
    id->state = CM_REP_RCVD;
    ev = cm_event_queue(id, RDMA_CM_EVENT_ESTABLISHED, 0);
    if (ev == NULL) {
        cm_conn_fail(id, RDMA_CM_EVENT_CONNECT_ERROR, -ENOMEM);
        return;
    }
    ev->reply = true;
    cm_event_set_conn(ev, id, msg, CM_PDATA_REP);
}

static void cm_on_rej(struct cm_id *id, const struct cm_msg *msg)
{
    struct cm_event *ev;

    cm_conn_close(id, CM_CLOSED);
    /* A SIDR REP refusing the request is an unreachable peer to rdma_cm. */
    ev = cm_is_ud(id) ? cm_event_queue(id, RDMA_CM_EVENT_UNREACHABLE, -ECONNREFUSED)
                      : cm_event_queue(id, RDMA_CM_EVENT_REJECTED, msg->reason);
    if (ev == NULL)
        return;
    ev->qp_err = true;
    cm_event_set_pdata(ev, msg, CM_PDATA_REJ);
}

void cm_conn_on_message(struct cm_id *id, const struct cm_msg *msg)
{
    enum cm_state s = id->state;

    if (msg->type == CM_MSG_REQ && s == CM_REQ_WAIT)
        cm_on_req(id, msg);
    else if (msg->type == CM_MSG_REP && s == CM_REQ_SENT)
        cm_on_rep(id, msg);
    else if (msg->type == CM_MSG_RTU && s == CM_REP_SENT) {
        id->state = CM_CONNECTED;
        cm_event_queue(id, RDMA_CM_EVENT_ESTABLISHED, 0);
    } else if (msg->type == CM_MSG_REJ && (s == CM_REQ_SENT || s == CM_REP_SENT))
        cm_on_rej(id, msg);
    else if (msg->type == CM_MSG_DREQ &&
             (s == CM_CONNECTED || s == CM_DREQ_SENT || s == CM_REP_SENT)) {
        cm_conn_send(id, CM_MSG_DREP, NULL, 0, 0);
        cm_conn_disconnected(id, 0);
    } else if (msg->type == CM_MSG_DREP && s == CM_DREQ_SENT)
        cm_conn_disconnected(id, 0);
    else {
        EMU_LOG_ERR("librdmacm: unexpected %s in connection state %d; the connection is dropped",
                    cm_msg_name(msg->type), s);
        cm_conn_on_lost(id, EPROTO);
    }
}

void cm_conn_on_connected(struct cm_id *id, int err)
{
    if (err == 0) {
        if (cm_progress_watch(id, EPOLLIN) != 0 ||
            cm_conn_send(id, CM_MSG_REQ, id->req_pdata, id->req_pdata_len, 0) != 0) {
            cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -errno);
            return;
        }
        id->state = CM_REQ_SENT;
        cm_id_set_timer(id, CM_TIMER_NONE, 0);
        return;
    }
    if (err == ECONNREFUSED && !cm_is_ud(id)) {
        struct cm_msg none = {0};
        struct cm_event *rej;

        cm_conn_close(id, CM_CLOSED);
        rej = cm_event_queue(id, RDMA_CM_EVENT_REJECTED, CM_REJ_INVALID_SERVICE_ID);
        if (rej != NULL) {
            rej->qp_err = true;
            cm_event_set_pdata(rej, &none, CM_PDATA_REJ);
        }
        return;
    }
    cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -err);
}

void cm_conn_on_lost(struct cm_id *id, int err)
{
    switch (id->state) {
    case CM_REQ_WAIT:
        cm_id_discard(id);
        return;
    case CM_CONNECTING:
    case CM_REQ_SENT:
    case CM_REQ_RCVD:
    case CM_REP_SENT:
        cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -err);
        return;
    case CM_CONNECTED:
    case CM_DREQ_SENT:
        cm_conn_disconnected(id, 0);
        return;
    default: /* a REP the program has not taken yet finds the socket closed */
        cm_id_close_socket(id);
        return;
    }
}

void cm_conn_on_timer(struct cm_id *id)
{
    enum cm_timer timer = id->timer;

    cm_id_set_timer(id, CM_TIMER_NONE, 0);
    if (timer == CM_TIMER_CONNECT && id->state == CM_CONNECTING)
        cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
    else if (timer == CM_TIMER_DREP && id->state == CM_DREQ_SENT)
        cm_conn_disconnected(id, -ETIMEDOUT);
    else if (timer == CM_TIMER_TIMEWAIT)
        cm_event_queue(id, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
}

int cm_conn_take_reply(struct cm_event *ev)
{
    struct cm_id *id = ev->owner;

    if (id->sock < 0) {
        ev->pub.event = RDMA_CM_EVENT_UNREACHABLE;
        ev->pub.status = -ECONNRESET;
        id->state = CM_CLOSED;
        return -1;
    }
    if (id->pub.qp == NULL) {
        ev->pub.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
        return 0;
    }
    if (cm_qp_modify(id, IBV_QPS_RTR, "rdma_get_cm_event") != 0 ||
        cm_qp_modify(id, IBV_QPS_RTS, "rdma_get_cm_event") != 0) {
        ev->pub.event = RDMA_CM_EVENT_CONNECT_ERROR;
        ev->pub.status = -errno;
        cm_conn_send(id, CM_MSG_REJ, NULL, 0, CM_REJ_CONSUMER_DEFINED);
        cm_conn_close(id, CM_CLOSED);
        return -1;
    }
    if (cm_conn_send(id, CM_MSG_RTU, NULL, 0, 0) != 0) {
        ev->pub.event = RDMA_CM_EVENT_UNREACHABLE;
        ev->pub.status = -ECONNRESET;
        cm_conn_close(id, CM_CLOSED);
        return -1;
    }
    id->state = CM_CONNECTED;
    return 0;
}

/* Checks the private data of a call that sends some: 0, or -1 with the log line. */
static int cm_check_pdata(const void *pdata, size_t len, size_t limit, const char *call)
{
    if (len > limit)
        return CM_REFUSE_AS(call, EINVAL, "%zu bytes of private data; at most %zu", len, limit);
    if (len > 0 && pdata == NULL)
        return CM_REFUSE_AS(call, EINVAL, "no private data buffer for %zu bytes", len);
    return 0;
}

/* A requested depth: RDMA_MAX_* means the device's limit, more than the limit is refused. */
static int cm_depth(uint8_t want, uint8_t max, uint8_t *out, const char *call)
{
    if (want == 0xff)
        want = max;
    if (want > max)
        return CM_REFUSE_AS(call, EINVAL, "%u outstanding reads asked; the device allows %u", want,
                            max);
    *out = want;
    return 0;
}

/* This side's parameters from the program's (NULL: rdma_cm's defaults). */
static int cm_set_params(struct cm_id *id, const struct rdma_conn_param *p, bool passive,
                         const char *call)
{
    struct cm_side *l = &id->local;
    uint8_t peer_init = id->peer.initiator_depth, peer_resp = id->peer.responder_resources;

    if (p == NULL) {
        if (id->pub.qp == NULL)
            return CM_REFUSE_AS(call, EINVAL, "no QP on the id and no conn_param with its qp_num");
        l->responder_resources = id->dev->max_dest_rd_atomic;
        l->initiator_depth = id->dev->max_rd_atomic;
        if (passive) {
            l->responder_resources =
                    peer_init < l->responder_resources ? peer_init : l->responder_resources;
            l->initiator_depth = peer_resp < l->initiator_depth ? peer_resp : l->initiator_depth;
        }
        l->retry_count = 7;
        l->rnr_retry_count = 7;
    } else {
        if (cm_depth(p->responder_resources, id->dev->max_dest_rd_atomic, &l->responder_resources,
                     call) != 0 ||
            cm_depth(p->initiator_depth, id->dev->max_rd_atomic, &l->initiator_depth, call) != 0)
            return -1;
        l->retry_count = p->retry_count > 7 ? 7 : p->retry_count;
        l->rnr_retry_count = p->rnr_retry_count > 7 ? 7 : p->rnr_retry_count;
        l->flow_control = p->flow_control;
        l->srq = p->srq;
    }
    if (passive)
        l->retry_count = id->peer.retry_count; /* the requester's count, as the IB CM does */
    if (id->pub.qp != NULL) {
        l->qpn = id->pub.qp->qp_num;
        l->srq = id->pub.qp->srq != NULL;
    } else {
        l->qpn = p->qp_num & 0xffffff;
    }
    return 0;
}

/* Looks up an id for a call (cm_lock taken; NULL and the log line when it is not usable). */
static struct cm_id *cm_conn_id(struct rdma_cm_id *pub, enum cm_state want, const char *call)
{
    struct cm_id *id;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id != NULL && id->state == want)
        return id;
    pthread_mutex_unlock(&cm_lock);
    CM_REFUSE_AS(call, EINVAL, "%s",
                 id == NULL ? "no id" : "the id is not in the state this call needs");
    return NULL;
}

CM_EXPORT int rdma_connect(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
    struct cm_id *id = cm_conn_id(pub, CM_ROUTE_RESOLVED, __func__);
    const struct sockaddr *dst;
    bool sync;
    int err = 0;

    if (id == NULL)
        return -1;
    if ((conn_param != NULL &&
         cm_check_pdata(conn_param->private_data, conn_param->private_data_len,
                        cm_is_ud(id) ? CM_PDATA_SIDR_REQ : CM_PDATA_REQ, __func__) != 0) ||
        cm_set_params(id, conn_param, false, __func__) != 0) {
        pthread_mutex_unlock(&cm_lock);
        return -1;
    }
    id->local.psn = (uint32_t)random() & 0xffffff;
    id->req_pdata_len = conn_param != NULL ? conn_param->private_data_len : 0;
    if (id->req_pdata_len > 0)
        memcpy(id->req_pdata, conn_param->private_data, id->req_pdata_len);
    dst = &id->pub.route.addr.dst_addr;
    id->state = CM_CONNECTING;
    if (connect(id->sock, dst, cm_addr_len(dst)) != 0)
        err = errno;
    if (err == EINPROGRESS) {
        if (cm_progress_watch(id, EPOLLOUT) != 0)
            cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -errno);
        else
            cm_id_set_timer(id, CM_TIMER_CONNECT, CM_CONNECT_TIMEOUT_MS);
    } else {
        cm_conn_on_connected(id, err);
    }
    sync = id->sync;
    pthread_mutex_unlock(&cm_lock);
    return sync ? cm_sync_wait(id) : 0;
}

CM_EXPORT int rdma_accept(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
    struct cm_id *id = cm_conn_id(pub, CM_REQ_RCVD, __func__);
    const void *pdata = conn_param != NULL ? conn_param->private_data : NULL;
    size_t len = conn_param != NULL ? conn_param->private_data_len : 0;
    bool sync;

    if (id == NULL)
        return -1;
    if (cm_check_pdata(pdata, len, cm_is_ud(id) ? CM_PDATA_SIDR_REP : CM_PDATA_REP, __func__) !=
                0 ||
        cm_set_params(id, conn_param, true, __func__) != 0) {
        pthread_mutex_unlock(&cm_lock);
        return -1;
    }
    if (cm_is_ud(id)) {
        /* The SIDR REP names our QP and Q_Key; no event follows on this side. */
        int ret = cm_conn_send(id, CM_MSG_REP, pdata, len, 0) != 0
                          ? CM_REFUSE(ECONNRESET, "the requester is gone")
                          : 0;

        cm_conn_close(id, CM_CLOSED);
        pthread_mutex_unlock(&cm_lock);
        return ret;
    }
    if (id->pub.qp != NULL && (cm_qp_modify(id, IBV_QPS_RTR, __func__) != 0 ||
                               cm_qp_modify(id, IBV_QPS_RTS, __func__) != 0)) {
        pthread_mutex_unlock(&cm_lock);
        return -1; /* the id still holds the request: the program may reject it */
    }
    if (cm_conn_send(id, CM_MSG_REP, pdata, len, 0) != 0)
        cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -ECONNRESET);
    else
        id->state = CM_REP_SENT;
    sync = id->sync;
    pthread_mutex_unlock(&cm_lock);
    return sync ? cm_sync_wait(id) : 0;
}

CM_EXPORT int rdma_reject(struct rdma_cm_id *pub, const void *private_data,
                          uint8_t private_data_len)
{
    struct cm_id *id;

    if (cm_check_pdata(private_data, private_data_len, CM_PDATA_REJ, __func__) != 0)
        return -1;
    id = cm_conn_id(pub, CM_REQ_RCVD, __func__);
    if (id == NULL)
        return -1;
    cm_conn_send(id, CM_MSG_REJ, private_data, private_data_len, CM_REJ_CONSUMER_DEFINED);
    cm_conn_close(id, CM_CLOSED);
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

CM_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
                              uint8_t private_data_len)
{
    return rdma_reject(id, private_data, private_data_len);
}

CM_EXPORT int rdma_establish(struct rdma_cm_id *pub)
{
    struct cm_id *id = cm_conn_id(pub, CM_REP_RCVD, __func__);
    int ret = 0;

    if (id == NULL)
        return -1;
    if (cm_conn_send(id, CM_MSG_RTU, NULL, 0, 0) != 0) {
        cm_conn_fail(id, RDMA_CM_EVENT_UNREACHABLE, -ECONNRESET);
        ret = CM_REFUSE(ECONNRESET, "the peer is gone");
    } else {
        id->state = CM_CONNECTED;
    }
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

CM_EXPORT int rdma_notify(struct rdma_cm_id *pub, enum ibv_event_type event)
{
    int ret = 0;

    (void)event; /* the RTU always completes the handshake */
    pthread_mutex_lock(&cm_lock);
    if (cm_id_of(pub) == NULL)
        ret = CM_REFUSE(EINVAL, "no id");
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

CM_EXPORT int rdma_disconnect(struct rdma_cm_id *pub)
{
    struct cm_id *id;
    int ret = 0;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL) {
        ret = CM_REFUSE(EINVAL, "no id");
    } else if (cm_is_ud(id)) {
        /* Nothing to end (programs call it on every id, perftest too): said at INFO only. */
        EMU_LOG_INFO("librdmacm: rdma_disconnect: a UD id (RDMA_PS_UDP) has no connection");
        errno = EINVAL;
        ret = -1;
    } else if (id->state == CM_CONNECTED || id->state == CM_REP_SENT) {
        cm_qp_to_err(id, __func__);
        if (cm_conn_send(id, CM_MSG_DREQ, NULL, 0, 0) != 0) {
            cm_conn_disconnected(id, 0);
        } else {
            id->state = CM_DREQ_SENT;
            cm_id_set_timer(id, CM_TIMER_DREP, CM_DREP_TIMEOUT_MS);
        }
    } else if (id->state == CM_DREQ_SENT || id->state == CM_DISCONNECTED) {
        cm_qp_to_err(id, __func__);
    } else {
        ret = CM_REFUSE(EINVAL, "the id is not connected");
    }
    pthread_mutex_unlock(&cm_lock);
    return ret;
}
