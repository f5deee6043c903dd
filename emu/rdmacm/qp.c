/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QPs and SRQs of rdma_cm_ids: rdma_create_qp(_ex) makes an RC QP through
 * softmlx5's libibverbs (with CQs and completion channels of its own when
 * the program gives none, and the device's default PD when it gives no PD)
 * and moves it to INIT; the connection moves it to RTR and RTS with the
 * peer's QP number, PSN and GID from the handshake (rdma_init_qp_attr gives
 * the same attributes to programs that move their own QPs), and to ERR on
 * disconnect and reject. rdma_destroy_qp, rdma_create_srq(_ex),
 * rdma_destroy_srq.
 */
#include <errno.h>
#include <string.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

#define CM_MIN_RNR_TIMER   12
#define CM_DEFAULT_TIMEOUT 14
#define CM_HOP_LIMIT       64

void cm_peer_ah_attr(const struct cm_id *id, struct ibv_ah_attr *ah)
{
    memset(ah, 0, sizeof(*ah));
    ah->port_num = id->pub.port_num;
    ah->dlid = id->peer.lid;
    if (id->local.link_layer != IBV_LINK_LAYER_INFINIBAND) {
        ah->is_global = 1;
        ah->grh.dgid = id->peer.gid;
        ah->grh.sgid_index = 0;
        ah->grh.hop_limit = CM_HOP_LIMIT;
        ah->grh.traffic_class = id->tos;
    }
}

/* A UD QP's attributes: no peer, the port space's Q_Key (RDMA_UDP_QKEY), as librdmacm. */
static int cm_qp_attr_ud(struct cm_id *id, struct ibv_qp_attr *a, int *mask, const char *call)
{
    switch (a->qp_state) {
    case IBV_QPS_INIT:
        a->pkey_index = 0;
        a->port_num = id->pub.port_num;
        a->qkey = RDMA_UDP_QKEY;
        *mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
        return 0;
    case IBV_QPS_RTR:
        *mask = IBV_QP_STATE;
        return 0;
    case IBV_QPS_RTS:
        a->sq_psn = id->local.psn;
        *mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
        return 0;
    default:
        return CM_REFUSE_AS(call, EINVAL,
                            "QP state %d: only INIT, RTR and RTS attributes are given",
                            a->qp_state);
    }
}

static int cm_qp_attr(struct cm_id *id, struct ibv_qp_attr *a, int *mask, const char *call)
{
    enum ibv_qp_state state = a->qp_state;

    if (id->dev == NULL)
        return CM_REFUSE_AS(call, EINVAL,
                            "the id has no device yet (bind or resolve an address first)");
    memset(a, 0, sizeof(*a));
    a->qp_state = state;
    if (cm_is_ud(id))
        return cm_qp_attr_ud(id, a, mask, call);
    switch (state) {
    case IBV_QPS_INIT:
        a->pkey_index = 0;
        a->port_num = id->pub.port_num;
        a->qp_access_flags =
                IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
        *mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
        return 0;
    case IBV_QPS_RTR:
        if (!id->peer_known)
            return CM_REFUSE_AS(call, EINVAL, "the peer's QP is not known yet");
        a->path_mtu = (enum ibv_mtu)(id->local.mtu < id->peer.mtu ? id->local.mtu : id->peer.mtu);
        a->dest_qp_num = id->peer.qpn;
        a->rq_psn = id->peer.psn;
        a->max_dest_rd_atomic = id->local.responder_resources;
        a->min_rnr_timer = CM_MIN_RNR_TIMER;
        cm_peer_ah_attr(id, &a->ah_attr);
        *mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        return 0;
    case IBV_QPS_RTS:
        if (!id->peer_known)
            return CM_REFUSE_AS(call, EINVAL, "the peer's QP is not known yet");
        a->timeout = id->ack_timeout ? id->ack_timeout : CM_DEFAULT_TIMEOUT;
        a->retry_cnt = id->local.retry_count;
        a->rnr_retry = id->peer.rnr_retry_count;
        a->sq_psn = id->local.psn;
        a->max_rd_atomic = id->local.initiator_depth;
        *mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
        return 0;
    default:
        return CM_REFUSE_AS(call, EINVAL,
                            "QP state %d: only INIT, RTR and RTS attributes are given", state);
    }
}

CM_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *pub, struct ibv_qp_attr *qp_attr,
                                int *qp_attr_mask)
{
    struct cm_id *id;
    int ret;

    if (qp_attr == NULL || qp_attr_mask == NULL)
        return CM_REFUSE(EINVAL, "no attribute or mask pointer");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    ret = id == NULL ? CM_REFUSE(EINVAL, "no id") : cm_qp_attr(id, qp_attr, qp_attr_mask, __func__);
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

int cm_qp_modify(struct cm_id *id, enum ibv_qp_state state, const char *call)
{
    struct ibv_qp_attr attr = {.qp_state = state};
    int mask, err;

    if (cm_qp_attr(id, &attr, &mask, call) != 0)
        return -1;
    err = ibv_modify_qp(id->pub.qp, &attr, mask);
    if (err != 0)
        return CM_REFUSE_AS(call, err, "the QP cannot be moved to state %d", state);
    return 0;
}

int cm_qp_to_err(struct cm_id *id, const char *call)
{
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
    int err;

    if (id->pub.qp == NULL)
        return 0;
    err = ibv_modify_qp(id->pub.qp, &attr, IBV_QP_STATE);
    return err == 0 ? 0 : CM_REFUSE_AS(call, err, "the QP cannot be moved to ERR");
}

static void cm_destroy_cqs(struct cm_id *id)
{
    struct rdma_cm_id *p = &id->pub;

    if (!id->own_cqs)
        return;
    if (p->send_cq != NULL && p->send_cq != p->recv_cq)
        ibv_destroy_cq(p->send_cq);
    if (p->recv_cq != NULL)
        ibv_destroy_cq(p->recv_cq);
    if (p->send_cq_channel != NULL)
        ibv_destroy_comp_channel(p->send_cq_channel);
    if (p->recv_cq_channel != NULL)
        ibv_destroy_comp_channel(p->recv_cq_channel);
    p->send_cq = p->recv_cq = NULL;
    p->send_cq_channel = p->recv_cq_channel = NULL;
    id->own_cqs = false;
}

static struct ibv_cq *cm_make_cq(struct cm_id *id, uint32_t depth, struct ibv_comp_channel **chan)
{
    struct ibv_cq *cq;

    *chan = ibv_create_comp_channel(id->pub.verbs);
    if (*chan == NULL)
        return NULL;
    cq = ibv_create_cq(id->pub.verbs, depth > 0 ? (int)depth : 1, id, *chan, 0);
    if (cq == NULL) {
        ibv_destroy_comp_channel(*chan);
        *chan = NULL;
    }
    return cq;
}

/* The CQs the program did not give (rdma_cm makes them, with completion channels). */
static int cm_make_cqs(struct cm_id *id, struct ibv_qp_init_attr_ex *a)
{
    struct rdma_cm_id *p = &id->pub;

    if (a->send_cq != NULL && a->recv_cq != NULL)
        return 0;
    id->own_cqs = true;
    if (a->recv_cq == NULL) {
        p->recv_cq = cm_make_cq(id, a->cap.max_recv_wr, &p->recv_cq_channel);
        a->recv_cq = p->recv_cq;
    }
    if (a->send_cq == NULL) {
        p->send_cq = cm_make_cq(id, a->cap.max_send_wr, &p->send_cq_channel);
        a->send_cq = p->send_cq;
    }
    if (a->send_cq == NULL || a->recv_cq == NULL) {
        int err = errno;

        cm_destroy_cqs(id);
        return CM_REFUSE_AS("rdma_create_qp", err, "cannot make the id's CQs");
    }
    return 0;
}

static struct ibv_pd *cm_default_pd(struct cm_device *dev)
{
    if (dev->pd == NULL)
        dev->pd = ibv_alloc_pd(dev->verbs);
    return dev->pd;
}

static int cm_create_qp(struct cm_id *id, struct ibv_qp_init_attr_ex *a)
{
    struct ibv_qp *qp;
    int err;

    if (id->dev == NULL)
        return CM_REFUSE_AS("rdma_create_qp", EINVAL,
                            "the id has no device yet (bind or resolve an address first)");
    if (id->pub.qp != NULL)
        return CM_REFUSE_AS("rdma_create_qp", EINVAL, "the id already has a QP");
    if (a->qp_type != (cm_is_ud(id) ? IBV_QPT_UD : IBV_QPT_RC))
        return CM_REFUSE_AS("rdma_create_qp", EOPNOTSUPP,
                            "QP type %d: the id's port space takes %s QPs", a->qp_type,
                            cm_is_ud(id) ? "UD (RDMA_PS_UDP)" : "RC (RDMA_PS_TCP, RDMA_PS_IB)");
    if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || a->pd == NULL) {
        a->comp_mask |= IBV_QP_INIT_ATTR_PD;
        a->pd = cm_default_pd(id->dev);
        if (a->pd == NULL)
            return CM_REFUSE_AS("rdma_create_qp", errno, "cannot allocate the device's PD");
    }
    if (a->pd->context != id->pub.verbs)
        return CM_REFUSE_AS("rdma_create_qp", EINVAL,
                            "the PD belongs to another device than the id");
    if (a->srq == NULL)
        a->srq = id->pub.srq;
    if (cm_make_cqs(id, a) != 0)
        return -1;
    qp = ibv_create_qp_ex(id->pub.verbs, a);
    if (qp == NULL) {
        err = errno;
        cm_destroy_cqs(id);
        return CM_REFUSE_AS("rdma_create_qp", err, "ibv_create_qp_ex failed");
    }
    id->pub.qp = qp;
    /* A UD QP needs no peer: it is ready to send at once, as librdmacm makes it. */
    if (cm_qp_modify(id, IBV_QPS_INIT, "rdma_create_qp") != 0 ||
        (cm_is_ud(id) && (cm_qp_modify(id, IBV_QPS_RTR, "rdma_create_qp") != 0 ||
                          cm_qp_modify(id, IBV_QPS_RTS, "rdma_create_qp") != 0))) {
        err = errno;
        ibv_destroy_qp(qp);
        id->pub.qp = NULL;
        cm_destroy_cqs(id);
        errno = err;
        return -1;
    }
    id->pub.pd = a->pd;
    return 0;
}

CM_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *pub, struct ibv_qp_init_attr_ex *attr)
{
    struct cm_id *id;
    int ret;

    if (attr == NULL)
        return CM_REFUSE(EINVAL, "no QP attributes");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    ret = id == NULL ? CM_REFUSE(EINVAL, "no id") : cm_create_qp(id, attr);
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

CM_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
                             struct ibv_qp_init_attr *qp_init_attr)
{
    struct ibv_qp_init_attr_ex ex;
    int ret;

    if (qp_init_attr == NULL)
        return CM_REFUSE(EINVAL, "no QP attributes");
    memset(&ex, 0, sizeof(ex));
    ex.qp_context = qp_init_attr->qp_context;
    ex.send_cq = qp_init_attr->send_cq;
    ex.recv_cq = qp_init_attr->recv_cq;
    ex.srq = qp_init_attr->srq;
    ex.cap = qp_init_attr->cap;
    ex.qp_type = qp_init_attr->qp_type;
    ex.sq_sig_all = qp_init_attr->sq_sig_all;
    ex.pd = pd;
    ex.comp_mask = pd != NULL ? IBV_QP_INIT_ATTR_PD : 0;
    ret = rdma_create_qp_ex(id, &ex);
    if (ret == 0)
        qp_init_attr->cap = ex.cap;
    return ret;
}

CM_EXPORT void rdma_destroy_qp(struct rdma_cm_id *pub)
{
    struct cm_id *id;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL) {
        CM_REFUSE(EINVAL, "no id");
    } else if (id->pub.qp != NULL) {
        ibv_destroy_qp(id->pub.qp);
        id->pub.qp = NULL;
        cm_destroy_cqs(id);
    }
    pthread_mutex_unlock(&cm_lock);
}

static int cm_create_srq(struct cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    if (id->dev == NULL)
        return CM_REFUSE_AS("rdma_create_srq", EINVAL,
                            "the id has no device yet (bind or resolve an address first)");
    if (id->pub.srq != NULL)
        return CM_REFUSE_AS("rdma_create_srq", EINVAL, "the id already has an SRQ");
    if (pd == NULL)
        pd = cm_default_pd(id->dev);
    if (pd == NULL || pd->context != id->pub.verbs)
        return CM_REFUSE_AS("rdma_create_srq", EINVAL, "no PD of the id's device");
    id->pub.srq = ibv_create_srq(pd, attr);
    if (id->pub.srq == NULL)
        return CM_REFUSE_AS("rdma_create_srq", errno, "ibv_create_srq failed");
    id->pub.pd = pd;
    return 0;
}

CM_EXPORT int rdma_create_srq(struct rdma_cm_id *pub, struct ibv_pd *pd,
                              struct ibv_srq_init_attr *attr)
{
    struct cm_id *id;
    int ret;

    if (attr == NULL)
        return CM_REFUSE(EINVAL, "no SRQ attributes");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    ret = id == NULL ? CM_REFUSE(EINVAL, "no id") : cm_create_srq(id, pd, attr);
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

CM_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
    struct ibv_srq_init_attr basic;
    uint32_t known = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
    int ret;

    if (attr == NULL)
        return CM_REFUSE(EINVAL, "no SRQ attributes");
    if ((attr->comp_mask & ~known) ||
        ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC))
        return CM_REFUSE(EOPNOTSUPP, "only basic SRQs (no XRC, tag matching or CQ) are supported");
    basic.srq_context = attr->srq_context;
    basic.attr = attr->attr;
    ret = rdma_create_srq(id, (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL, &basic);
    if (ret == 0)
        attr->attr = basic.attr;
    return ret;
}

CM_EXPORT void rdma_destroy_srq(struct rdma_cm_id *pub)
{
    struct cm_id *id;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL) {
        CM_REFUSE(EINVAL, "no id");
    } else if (id->pub.srq != NULL) {
        ibv_destroy_srq(id->pub.srq);
        id->pub.srq = NULL;
    }
    pthread_mutex_unlock(&cm_lock);
}
