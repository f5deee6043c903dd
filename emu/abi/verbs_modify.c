/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_modify_qp and ibv_query_qp for RC QPs: the IB specification's state
 * table with the attributes each transition requires and allows (the same
 * table the kernel's ib_modify_qp_is_ok holds, for RC).
 */
#include <errno.h>
#include <string.h>

#include "abi/context.h"
#include "common/emu_log.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/prm_qp.h"

#define EMU_EXPORT __attribute__((visibility("default")))

struct modify_rule {
    enum ibv_qp_state from, to;
    int required, optional;
};

static const struct modify_rule modify_rules[] = {
        {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {IBV_QPS_INIT, IBV_QPS_RTR,
         IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                 IBV_QP_MIN_RNR_TIMER,
         IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
        {IBV_QPS_RTR, IBV_QPS_RTS,
         IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                 IBV_QP_MAX_QP_RD_ATOMIC,
         IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
                 IBV_QP_PATH_MIG_STATE},
        {IBV_QPS_RTS, IBV_QPS_RTS, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                 IBV_QP_MIN_RNR_TIMER},
        {IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY},
        {IBV_QPS_SQD, IBV_QPS_RTS, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                 IBV_QP_MIN_RNR_TIMER},
};

static const char *const mask_names[] = {
        "IBV_QP_STATE",
        "IBV_QP_CUR_STATE",
        "IBV_QP_EN_SQD_ASYNC_NOTIFY",
        "IBV_QP_ACCESS_FLAGS",
        "IBV_QP_PKEY_INDEX",
        "IBV_QP_PORT",
        "IBV_QP_QKEY",
        "IBV_QP_AV",
        "IBV_QP_PATH_MTU",
        "IBV_QP_TIMEOUT",
        "IBV_QP_RETRY_CNT",
        "IBV_QP_RNR_RETRY",
        "IBV_QP_RQ_PSN",
        "IBV_QP_MAX_QP_RD_ATOMIC",
        "IBV_QP_ALT_PATH",
        "IBV_QP_MIN_RNR_TIMER",
        "IBV_QP_SQ_PSN",
        "IBV_QP_MAX_DEST_RD_ATOMIC",
        "IBV_QP_PATH_MIG_STATE",
        "IBV_QP_CAP",
        "IBV_QP_DEST_QPN",
};

static const char *mask_name(int bits)
{
    for (unsigned int i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++)
        if (bits & (1 << i))
            return mask_names[i];
    return "an unknown attribute bit";
}

static const char *const state_names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

static uint8_t state_to_prm(enum ibv_qp_state s)
{
    static const uint8_t prm[] = {PRM_QP_STATE_RST, PRM_QP_STATE_INIT, PRM_QP_STATE_RTR,
                                  PRM_QP_STATE_RTS, PRM_QP_STATE_SQD,  PRM_QP_STATE_SQER,
                                  PRM_QP_STATE_ERR};

    return prm[s];
}

/* Checks the transition and its mask (as ib_modify_qp_is_ok); logs one line when refused. */
static int modify_check(struct emu_qp *qp, enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
    int required = 0, optional = 0;
    bool found = false;

    if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
        found = true;
    } else {
        for (unsigned int i = 0; i < sizeof(modify_rules) / sizeof(modify_rules[0]); i++) {
            if (modify_rules[i].from == cur && modify_rules[i].to == next) {
                required = modify_rules[i].required;
                optional = modify_rules[i].optional;
                found = true;
            }
        }
    }
    if (!found) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x cannot go from %s to %s", qp->qpn, state_names[cur],
                    state_names[next]);
        return EINVAL;
    }
    mask &= ~IBV_QP_STATE;
    if ((mask & required) != required) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x %s->%s needs %s in attr_mask", qp->qpn,
                    state_names[cur], state_names[next], mask_name(required & ~mask));
        return EINVAL;
    }
    if (mask & ~(required | optional)) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x %s->%s does not take %s", qp->qpn, state_names[cur],
                    state_names[next], mask_name(mask & ~(required | optional)));
        return EINVAL;
    }
    return 0;
}

static void modify_apply(struct emu_qp *qp, const struct ibv_qp_attr *attr, int mask,
                         struct emu_qp_attr *a)
{
    if (mask & IBV_QP_ACCESS_FLAGS) {
        qp->ibv_access = (int)attr->qp_access_flags;
        a->remote_read = attr->qp_access_flags & IBV_ACCESS_REMOTE_READ;
        a->remote_write = attr->qp_access_flags & IBV_ACCESS_REMOTE_WRITE;
        a->remote_atomic = attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC;
    }
    if (mask & IBV_QP_PKEY_INDEX)
        a->pkey_index = attr->pkey_index;
    if (mask & IBV_QP_PORT)
        a->port = attr->port_num;
    if (mask & IBV_QP_AV) {
        qp->ah_attr = attr->ah_attr;
        a->grh = attr->ah_attr.is_global;
        memcpy(a->rgid, attr->ah_attr.grh.dgid.raw, 16);
        a->rlid = attr->ah_attr.dlid;
        a->sgid_index = attr->ah_attr.grh.sgid_index;
        a->hop_limit = attr->ah_attr.grh.hop_limit;
        a->traffic_class = attr->ah_attr.grh.traffic_class;
        a->sl = attr->ah_attr.sl;
    }
    if (mask & IBV_QP_PATH_MTU)
        a->path_mtu = (uint8_t)attr->path_mtu;
    if (mask & IBV_QP_DEST_QPN)
        a->remote_qpn = attr->dest_qp_num;
    if (mask & IBV_QP_RQ_PSN)
        a->rq_psn = attr->rq_psn & 0xffffff;
    if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
        a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
    if (mask & IBV_QP_MIN_RNR_TIMER)
        a->min_rnr_timer = attr->min_rnr_timer;
    if (mask & IBV_QP_SQ_PSN)
        a->sq_psn = attr->sq_psn & 0xffffff;
    if (mask & IBV_QP_TIMEOUT)
        a->ack_timeout = attr->timeout;
    if (mask & IBV_QP_RETRY_CNT)
        a->retry_count = attr->retry_cnt;
    if (mask & IBV_QP_RNR_RETRY)
        a->rnr_retry = attr->rnr_retry;
    if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
        a->max_rd_atomic = attr->max_rd_atomic;
}

EMU_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    enum ibv_qp_state cur, next;
    struct emu_qp_attr a;
    int err;

    if (ibqp == NULL || attr == NULL || !emu_context_is_ours(ibqp->context))
        return EINVAL;
    pthread_mutex_lock(&qp->post_lock);
    cur = ibqp->state;
    next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
    if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x is in %s, not in the cur_qp_state given", qp->qpn,
                    state_names[cur]);
        pthread_mutex_unlock(&qp->post_lock);
        return EINVAL;
    }
    if ((unsigned int)next > IBV_QPS_ERR || next == IBV_QPS_SQE) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x: state %d is not a target for RC", qp->qpn, next);
        pthread_mutex_unlock(&qp->post_lock);
        return EINVAL;
    }
    err = modify_check(qp, cur, next, mask);
    if (err == 0) {
        if ((mask & IBV_QP_PORT) && (attr->port_num < 1 || attr->port_num > qp->nic->port_count)) {
            EMU_LOG_ERR("ibv_modify_qp: QP 0x%x: port %u does not exist", qp->qpn, attr->port_num);
            err = EINVAL;
        }
    }
    if (err == 0) {
        a = qp->attr;
        modify_apply(qp, attr, mask, &a);
        err = emu_qp_transition(qp, state_to_prm(cur), state_to_prm(next), &a);
    }
    if (err == 0) {
        if (next == IBV_QPS_RESET) {
            qp->sq_producer = qp->sq_tail = 0;
            qp->rq_producer = qp->rq_tail = 0;
            memset((void *)qp->p.dbrec, 0, 8);
        }
        ibqp->state = next;
        if (mask & IBV_QP_TIMEOUT)
            qp->timeout = attr->timeout;
    }
    pthread_mutex_unlock(&qp->post_lock);
    return err;
}

EMU_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
                            struct ibv_qp_init_attr *init)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    const struct emu_qp_attr *a = &qp->attr;

    (void)mask;
    if (ibqp == NULL || attr == NULL || init == NULL)
        return EINVAL;
    memset(attr, 0, sizeof(*attr));
    attr->qp_state = ibqp->state;
    attr->cur_qp_state = ibqp->state;
    attr->path_mtu = (enum ibv_mtu)a->path_mtu;
    attr->path_mig_state = IBV_MIG_MIGRATED;
    attr->rq_psn = a->rq_psn;
    attr->sq_psn = a->sq_psn;
    attr->dest_qp_num = a->remote_qpn;
    attr->qp_access_flags = (unsigned int)qp->ibv_access;
    attr->cap.max_send_wr = qp->max_send_wr;
    attr->cap.max_recv_wr = qp->max_recv_wr;
    attr->cap.max_send_sge = qp->max_send_sge;
    attr->cap.max_recv_sge = qp->max_recv_sge;
    attr->cap.max_inline_data = qp->max_inline;
    attr->ah_attr = qp->ah_attr;
    attr->pkey_index = a->pkey_index;
    attr->port_num = a->port;
    attr->max_rd_atomic = a->max_rd_atomic;
    attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
    attr->min_rnr_timer = a->min_rnr_timer;
    attr->timeout = qp->timeout;
    attr->retry_cnt = a->retry_count;
    attr->rnr_retry = a->rnr_retry;
    memset(init, 0, sizeof(*init));
    init->qp_context = ibqp->qp_context;
    init->send_cq = ibqp->send_cq;
    init->recv_cq = ibqp->recv_cq;
    init->srq = ibqp->srq;
    init->cap = attr->cap;
    init->qp_type = IBV_QPT_RC;
    init->sq_sig_all = qp->sq_sig_all;
    return 0;
}
