/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs of the standard verbs (RC, UC, UD, XRC; DCI and DCT for
 * mlx5dv_create_qp): the work-queue buffer laid out as libmlx5 does (RQ,
 * then SQ of 64-byte basic blocks) and a doorbell record. An XRC initiator
 * (IBV_QPT_XRC_SEND) has a send queue only; an XRC target
 * (IBV_QPT_XRC_RECV) neither queue, nor PD or CQs: it belongs to an XRC
 * domain, whose SRQs take its messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "abi/context.h"
#include "abi/verbs_int.h"
#include "abi/verbs_qp_ex.h"
#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

#define EMU_EXPORT __attribute__((visibility("default")))

static uint32_t qp_log2_ceil(uint32_t v)
{
    uint32_t log = 0;

    while ((1u << log) < v)
        log++;
    return log;
}

/* The ibv QP types and the PRM service type each is. */
static const struct {
    enum ibv_qp_type ibv;
    uint8_t st;
} qp_types[] = {
        {IBV_QPT_RC, PRM_QP_ST_RC},        {IBV_QPT_UC, PRM_QP_ST_UC},
        {IBV_QPT_UD, PRM_QP_ST_UD},        {IBV_QPT_XRC_SEND, PRM_QP_ST_XRC},
        {IBV_QPT_XRC_RECV, PRM_QP_ST_XRC},
};

/* PRM_QP_ST_* of an ibv QP type; false when the device has no such QPs. */
static bool qp_type_st(enum ibv_qp_type type, uint8_t *st)
{
    for (size_t i = 0; i < sizeof(qp_types) / sizeof(qp_types[0]); i++) {
        if (qp_types[i].ibv == type) {
            *st = qp_types[i].st;
            return true;
        }
    }
    return false;
}

/* Bytes of a send WQE before its data: control, XRC, and remote-address or datagram segment. */
static uint32_t qp_wqe_header(const struct prm_qp_transport *tp)
{
    /* A DCI's WQE has both: its destination (datagram), then the remote address. */
    return (uint32_t)sizeof(struct prm_wqe_ctrl_seg) +
           (tp->xrc ? (uint32_t)sizeof(struct prm_wqe_xrc_seg) : 0) +
           (uint32_t)(tp->dc == PRM_QP_DC_DCI ? sizeof(struct prm_wqe_datagram_seg) : 0) +
           (uint32_t)(tp->connected ? sizeof(struct prm_wqe_raddr_seg)
                                    : sizeof(struct prm_wqe_datagram_seg));
}

/* Basic blocks of the largest WQE the QP's limits allow. */
static uint32_t qp_wqe_bbs(const struct prm_qp_transport *tp, uint32_t max_sge, uint32_t max_inline)
{
    uint32_t data = max_sge * (uint32_t)sizeof(struct prm_wqe_data_seg);
    uint32_t inl = (uint32_t)sizeof(struct prm_wqe_inline_seg) + max_inline;
    uint32_t atomic = sizeof(struct prm_wqe_atomic_seg) + sizeof(struct prm_wqe_data_seg);

    if (inl > data)
        data = inl;
    if (prm_qp_transport_allows(tp, PRM_WQE_OPCODE_ATOMIC_CS) && atomic > data)
        data = atomic;
    return prm_wqe_bb_count(prm_wqe_ds_count(qp_wqe_header(tp) + data));
}

/*
 * What the QP type requires of the attributes: an XRC target an XRC domain
 * of this context (no PD, CQs or SRQ), every other type a PD and a send CQ,
 * and a receive CQ except an XRC initiator (which receives nothing). 0 or
 * EINVAL, logged.
 */
static int qp_check_objects(struct ibv_context *context, const struct ibv_qp_init_attr_ex *a)
{
    const uint32_t known =
            IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_XRCD;

    if (a->comp_mask & ~known) {
        EMU_LOG_ERR("ibv_create_qp: comp_mask 0x%x has bits this device does not take (0x%x)",
                    a->comp_mask, a->comp_mask & ~known);
        return EINVAL;
    }
    if (a->qp_type == IBV_QPT_XRC_RECV) {
        if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || a->xrcd == NULL ||
            a->xrcd->context != context) {
            EMU_LOG_ERR("ibv_create_qp_ex: an XRC target QP needs an XRC domain of this context "
                        "(IBV_QP_INIT_ATTR_XRCD)");
            return EINVAL;
        }
        return 0;
    }
    if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || a->pd == NULL || a->send_cq == NULL ||
        (a->recv_cq == NULL && a->qp_type != IBV_QPT_XRC_SEND)) {
        EMU_LOG_ERR("ibv_create_qp: a PD, a send CQ and a receive CQ are required (comp_mask "
                    "0x%x)",
                    a->comp_mask);
        return EINVAL;
    }
    if (a->qp_type == IBV_QPT_XRC_SEND && a->srq != NULL) {
        EMU_LOG_ERR("ibv_create_qp: an XRC initiator QP receives nothing and takes no SRQ");
        return EINVAL;
    }
    return 0;
}

struct ibv_qp *emu_verbs_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *a)
{
    uint8_t st;

    if (!qp_type_st(a->qp_type, &st)) {
        EMU_LOG_ERR("ibv_create_qp: QP type %d is not supported; softmlx5 offers RC, UC, UD and "
                    "XRC (and DC through mlx5dv_create_qp)",
                    a->qp_type);
        errno = EOPNOTSUPP;
        return NULL;
    }
    return emu_verbs_create_qp_st(context, a, st);
}

struct ibv_qp *emu_verbs_create_qp_st(struct ibv_context *context, struct ibv_qp_init_attr_ex *a,
                                      uint8_t st)
{
    struct emu_nic *nic = emu_nic_of_ctx(context);
    struct ibv_qp_cap *cap = &a->cap;
    struct emu_qp_params p = {.st = st};
    bool tgt = a->qp_type == IBV_QPT_XRC_RECV, ini = a->qp_type == IBV_QPT_XRC_SEND;
    const struct prm_qp_transport *tp = prm_qp_transport_of(st);
    struct emu_qp *qp;
    uint32_t bbs, sq_bytes, rq_bytes, rq_count = 0, rq_stride = 16;
    void *wq;
    int err;

    if (qp_check_objects(context, a) != 0) {
        errno = EINVAL;
        return NULL;
    }
    if (tgt) {
        /* No queues: the sizes asked for are ignored, as an XRC target has none. */
        memset(cap, 0, sizeof(*cap));
        p.xrcd = emu_verbs_xrcd_of(a->xrcd);
    }
    if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
        emu_verbs_qp_ex_check(a->send_ops_flags, "ibv_create_qp_ex") != 0) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    if (cap->max_send_wr > (1u << EMU_LOG_MAX_QP_SZ) ||
        cap->max_recv_wr > (1u << EMU_LOG_MAX_QP_SZ) || cap->max_send_sge > EMU_MAX_SGE ||
        cap->max_recv_sge > EMU_MAX_SGE || cap->max_inline_data > EMU_MAX_INLINE) {
        EMU_LOG_ERR("ibv_create_qp: capabilities exceed the device's (send_wr %u, recv_wr %u of "
                    "%u; sge %u/%u of %d; inline %u of %d)",
                    cap->max_send_wr, cap->max_recv_wr, 1u << EMU_LOG_MAX_QP_SZ, cap->max_send_sge,
                    cap->max_recv_sge, EMU_MAX_SGE, cap->max_inline_data, EMU_MAX_INLINE);
        errno = EINVAL;
        return NULL;
    }
    bbs = qp_wqe_bbs(tp, cap->max_send_sge ? cap->max_send_sge : 1, cap->max_inline_data);
    p.log_sq_size = qp_log2_ceil((cap->max_send_wr ? cap->max_send_wr : 1) * bbs);
    if (p.log_sq_size > EMU_LOG_MAX_QP_SZ) {
        EMU_LOG_ERR("ibv_create_qp: %u send WRs of %u basic blocks exceed the send queue limit",
                    cap->max_send_wr, bbs);
        errno = EINVAL;
        return NULL;
    }
    if (tgt || ini) {
        p.rq_size_zero = true;
    } else if (a->srq == NULL) {
        rq_stride = 16u << qp_log2_ceil(cap->max_recv_sge ? cap->max_recv_sge : 1);
        rq_count = 1u << qp_log2_ceil(cap->max_recv_wr ? cap->max_recv_wr : 1);
        p.log_rq_size = qp_log2_ceil(rq_count);
        p.log_rq_stride = qp_log2_ceil(rq_stride / 16);
    } else {
        p.rq_size_zero = true;
        p.srq = (struct emu_srq *)a->srq;
    }
    sq_bytes = PRM_WQE_BB_SIZE << p.log_sq_size;
    rq_bytes = rq_count * rq_stride;
    if (posix_memalign(&wq, 4096, sq_bytes + rq_bytes) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    memset(wq, 0, sq_bytes + rq_bytes);
    if (!tgt) {
        p.pd = emu_pd_of(a->pd);
        p.send_cq = (struct emu_cq *)a->send_cq;
        /* An XRC initiator's receive side completes nothing: its CQ is the send CQ. */
        p.recv_cq = (struct emu_cq *)(ini ? a->send_cq : a->recv_cq);
    }
    p.wq = (uintptr_t)wq;
    p.dbrec = (uintptr_t)calloc(1, 64);
    if (p.dbrec == 0) {
        free(wq);
        errno = ENOMEM;
        return NULL;
    }
    err = emu_engine_qp_create(nic, &p, &qp);
    if (err != 0) {
        free((void *)p.dbrec);
        free(wq);
        errno = err;
        return NULL;
    }
    qp->sq_wrid = calloc(1u << p.log_sq_size, sizeof(*qp->sq_wrid));
    qp->sq_wqe_next = calloc(1u << p.log_sq_size, sizeof(*qp->sq_wqe_next));
    qp->rq_wrid = calloc(rq_count ? rq_count : 1, sizeof(*qp->rq_wrid));
    qp->wq_alloc = wq;
    qp->dbrec_alloc = (void *)p.dbrec;
    if (qp->sq_wrid == NULL || qp->sq_wqe_next == NULL || qp->rq_wrid == NULL ||
        ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && emu_verbs_qp_ex_init(qp) != 0)) {
        emu_verbs_qp_ex_free(qp);
        free(qp->sq_wrid);
        free(qp->sq_wqe_next);
        free(qp->rq_wrid);
        emu_engine_qp_destroy(qp);
        free((void *)p.dbrec);
        free(wq);
        errno = ENOMEM;
        return NULL;
    }
    qp->sq_sig_all = a->sq_sig_all != 0;
    qp->max_send_sge = cap->max_send_sge ? cap->max_send_sge : 1;
    qp->max_recv_sge = rq_stride / 16;
    /* What a WQE of bbs basic blocks holds inline, within the 63 DS a WQE can have. */
    qp->max_inline =
            (bbs < PRM_WQE_MAX_BB ? bbs * PRM_WQE_BB_SIZE : PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE) -
            (qp_wqe_header(tp) + (uint32_t)sizeof(struct prm_wqe_inline_seg));
    qp->max_send_wr = (1u << p.log_sq_size) / bbs;
    qp->max_recv_wr = rq_count;
    cap->max_send_wr = qp->max_send_wr;
    cap->max_recv_wr = qp->max_recv_wr;
    cap->max_send_sge = qp->max_send_sge;
    cap->max_recv_sge = a->srq ? cap->max_recv_sge : ini || tgt ? 0 : qp->max_recv_sge;
    cap->max_inline_data = qp->max_inline;
    if (tgt)
        memset(cap, 0, sizeof(*cap));
    qp->ibv.context = context;
    qp->ibv.qp_context = a->qp_context;
    qp->ibv.pd = tgt ? NULL : a->pd;
    qp->ibv.send_cq = tgt ? NULL : a->send_cq;
    qp->ibv.recv_cq = tgt || ini ? NULL : a->recv_cq;
    qp->ibv.srq = tgt || ini ? NULL : a->srq;
    qp->ibv.handle = qp->qpn;
    qp->ibv.qp_num = qp->qpn;
    qp->ibv.state = IBV_QPS_RESET;
    qp->ibv.qp_type = a->qp_type;
    pthread_mutex_init(&qp->ibv.mutex, NULL);
    pthread_cond_init(&qp->ibv.cond, NULL);
    return &qp->ibv;
}

EMU_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
    struct ibv_qp_init_attr_ex ex;
    struct ibv_qp *qp;

    if (pd == NULL || attr == NULL || !emu_context_is_ours(pd->context)) {
        errno = EINVAL;
        return NULL;
    }
    memset(&ex, 0, sizeof(ex));
    memcpy(&ex, attr, sizeof(*attr));
    ex.comp_mask = IBV_QP_INIT_ATTR_PD;
    ex.pd = pd;
    qp = emu_verbs_create_qp_ex(pd->context, &ex);
    if (qp != NULL)
        attr->cap = ex.cap;
    return qp;
}

EMU_EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    void *wq, *dbrec;
    uint64_t *sq_wrid, *rq_wrid;
    uint32_t *next;
    struct emu_cq *cqs[2];
    struct emu_async_closing closing;
    struct emu_nic *nic;

    if (ibqp == NULL)
        return EINVAL;
    nic = qp->nic;
    emu_verbs_async_quiesce(nic, EMU_ASYNC_QP, qp, &closing);
    wq = qp->wq_alloc;
    dbrec = qp->dbrec_alloc;
    sq_wrid = qp->sq_wrid;
    rq_wrid = qp->rq_wrid;
    next = qp->sq_wqe_next;
    cqs[0] = qp->p.send_cq;
    cqs[1] = qp->p.recv_cq;
    emu_verbs_qp_ex_free(qp);
    emu_engine_qp_destroy(qp);
    emu_async_gone(nic, &closing);
    /* The CQs' pollers cache the last QP they saw (an XRC target has no CQs: none caches it). */
    for (int i = 0; i < 2 && cqs[i] != NULL; i++) {
        pthread_mutex_lock(&cqs[i]->poll_lock);
        if (cqs[i]->last_qp == qp)
            cqs[i]->last_qp = NULL;
        pthread_mutex_unlock(&cqs[i]->poll_lock);
    }
    free(sq_wrid);
    free(rq_wrid);
    free(next);
    free(wq);
    free(dbrec);
    return 0;
}
