/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_modify_qp and ibv_query_qp for RC, UC, UD and XRC QPs. Which transitions
 * are legal, and the PRM command each is, is the PRM table's
 * (prm_qp_transition.h); this file holds what is ibv's alone: the
 * attribute-mask bits each transition requires and allows for each QP type
 * (the IB specification's), and the one mapping between ibv and PRM
 * states. The QP's state is the device's
 * (struct emu_qp.state, under qp->lock), which the device changes by itself
 * (to ERR on an error completion): it is read there every time.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transition.h"
#include "prm/prm_qp_transport.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/*
 * The ibv_modify_qp mask bits each PRM transition requires and allows
 * (besides IBV_QP_STATE), per QP type: RC with its acknowledgement and
 * RDMA-read attributes, UC without them, UD with a Q_Key instead of a path;
 * an XRC initiator (the IB specification's XRC annex) as RC's send side: it
 * needs no responder attributes (minimum RNR timer, responder resources),
 * and an XRC target as RC's receive side: its RTS needs only the timeout
 * and send PSN, and it has no send queue to recover from SQE. Each also
 * takes the other side's RC attributes, which it has no use for (ignored),
 * as ConnectX does: perftest's -c XRC gives every XRC QP all of RC's. DCI
 * and DCT (mlx5dv_create_qp, both IBV_QPT_DRIVER: told apart by their
 * service type) have no remote QP (a DCT stops at RTR).
 */
struct modify_masks {
    enum ibv_qp_type qpt;
    uint8_t st;      /* PRM_QP_ST_* */
    uint16_t opcode; /* PRM_CMD_*_QP */
    int required, optional;
};

#define RC  IBV_QPT_RC, PRM_QP_ST_RC
#define UC  IBV_QPT_UC, PRM_QP_ST_UC
#define UD  IBV_QPT_UD, PRM_QP_ST_UD
#define INI IBV_QPT_XRC_SEND, PRM_QP_ST_XRC
#define TGT IBV_QPT_XRC_RECV, PRM_QP_ST_XRC
#define DCI IBV_QPT_DRIVER, PRM_QP_ST_DCI
#define DCT IBV_QPT_DRIVER, PRM_QP_ST_DCT

static const struct modify_masks modify_masks[] = {
        {RC, PRM_CMD_2RST_QP, 0, 0},
        {RC, PRM_CMD_2ERR_QP, 0, 0},
        {RC, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {RC, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {RC, PRM_CMD_INIT2RTR_QP,
         IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                 IBV_QP_MIN_RNR_TIMER,
         IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
        {RC, PRM_CMD_RTR2RTS_QP,
         IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                 IBV_QP_MAX_QP_RD_ATOMIC,
         IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
                 IBV_QP_PATH_MIG_STATE},
        {RC, PRM_CMD_RTS2RTS_QP, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                 IBV_QP_MIN_RNR_TIMER},
        {RC, PRM_CMD_SQERR2RTS_QP, 0, IBV_QP_CUR_STATE},
        {UC, PRM_CMD_2RST_QP, 0, 0},
        {UC, PRM_CMD_2ERR_QP, 0, 0},
        {UC, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {UC, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {UC, PRM_CMD_INIT2RTR_QP, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
         IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
        {UC, PRM_CMD_RTR2RTS_QP, IBV_QP_SQ_PSN,
         IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE},
        {UC, PRM_CMD_RTS2RTS_QP, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
        {UC, PRM_CMD_SQERR2RTS_QP, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS},
        {UD, PRM_CMD_2RST_QP, 0, 0},
        {UD, PRM_CMD_2ERR_QP, 0, 0},
        {UD, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0},
        {UD, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
        {UD, PRM_CMD_INIT2RTR_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY},
        {UD, PRM_CMD_RTR2RTS_QP, IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY},
        {UD, PRM_CMD_RTS2RTS_QP, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY},
        {UD, PRM_CMD_SQERR2RTS_QP, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY},
        {INI, PRM_CMD_2RST_QP, 0, 0},
        {INI, PRM_CMD_2ERR_QP, 0, 0},
        {INI, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {INI, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {INI, PRM_CMD_INIT2RTR_QP, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
         IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_MAX_DEST_RD_ATOMIC |
                 IBV_QP_MIN_RNR_TIMER},
        {INI, PRM_CMD_RTR2RTS_QP,
         IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                 IBV_QP_MAX_QP_RD_ATOMIC,
         IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE},
        {INI, PRM_CMD_RTS2RTS_QP, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
        {INI, PRM_CMD_SQERR2RTS_QP, 0, IBV_QP_CUR_STATE},
        {TGT, PRM_CMD_2RST_QP, 0, 0},
        {TGT, PRM_CMD_2ERR_QP, 0, 0},
        {TGT, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {TGT, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {TGT, PRM_CMD_INIT2RTR_QP,
         IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                 IBV_QP_MIN_RNR_TIMER,
         IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
        {TGT, PRM_CMD_RTR2RTS_QP, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT,
         IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
                 IBV_QP_PATH_MIG_STATE | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                 IBV_QP_MAX_QP_RD_ATOMIC},
        {TGT, PRM_CMD_RTS2RTS_QP, 0,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                 IBV_QP_MIN_RNR_TIMER},
        /* DC (mlx5dv_create_qp): no remote QP, a DCI's WQEs name the DCT; a DCT never sends. */
        {DCI, PRM_CMD_2RST_QP, 0, 0},
        {DCI, PRM_CMD_2ERR_QP, 0, 0},
        {DCI, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT, IBV_QP_ACCESS_FLAGS},
        {DCI, PRM_CMD_INIT2INIT_QP, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
        {DCI, PRM_CMD_INIT2RTR_QP, IBV_QP_PATH_MTU, IBV_QP_AV | IBV_QP_PKEY_INDEX},
        {DCI, PRM_CMD_RTR2RTS_QP,
         IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                 IBV_QP_MAX_QP_RD_ATOMIC,
         IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER},
        {DCI, PRM_CMD_RTS2RTS_QP, 0, IBV_QP_CUR_STATE | IBV_QP_MIN_RNR_TIMER},
        {DCT, PRM_CMD_2RST_QP, 0, 0},
        {DCT, PRM_CMD_2ERR_QP, 0, 0},
        {DCT, PRM_CMD_RST2INIT_QP, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
        {DCT, PRM_CMD_INIT2RTR_QP, IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER,
         IBV_QP_AV | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS},
};

#undef RC
#undef UC
#undef UD
#undef INI
#undef TGT
#undef DCI
#undef DCT

/* IB: a Q_Key with its high bit set is controlled; only a privileged process may give a QP one. */
#define MODIFY_QKEY_CONTROLLED 0x80000000u

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

/* The one mapping between ibv and PRM states. */
static const struct {
    enum ibv_qp_state ibv;
    uint8_t prm;
    const char *name;
} state_map[] = {
        {IBV_QPS_RESET, PRM_QP_STATE_RST, "RESET"}, {IBV_QPS_INIT, PRM_QP_STATE_INIT, "INIT"},
        {IBV_QPS_RTR, PRM_QP_STATE_RTR, "RTR"},     {IBV_QPS_RTS, PRM_QP_STATE_RTS, "RTS"},
        {IBV_QPS_SQD, PRM_QP_STATE_SQD, "SQD"},     {IBV_QPS_SQE, PRM_QP_STATE_SQER, "SQE"},
        {IBV_QPS_ERR, PRM_QP_STATE_ERR, "ERR"},
};

#define STATE_MAP_LEN (sizeof(state_map) / sizeof(state_map[0]))

enum ibv_qp_state emu_verbs_state_from_prm(uint8_t prm)
{
    for (size_t i = 0; i < STATE_MAP_LEN; i++)
        if (state_map[i].prm == prm)
            return state_map[i].ibv;
    return IBV_QPS_UNKNOWN;
}

/* PRM_QP_STATE_*, or 0xff for a value that is no ibv state. */
static uint8_t state_to_prm(enum ibv_qp_state s)
{
    for (size_t i = 0; i < STATE_MAP_LEN; i++)
        if (state_map[i].ibv == s)
            return state_map[i].prm;
    return 0xff;
}

static const char *state_name(enum ibv_qp_state s)
{
    for (size_t i = 0; i < STATE_MAP_LEN; i++)
        if (state_map[i].ibv == s)
            return state_map[i].name;
    return "an unknown state";
}

enum ibv_qp_state emu_verbs_qp_state(struct emu_qp *qp)
{
    uint8_t prm;

    pthread_mutex_lock(&qp->lock);
    prm = qp->state;
    pthread_mutex_unlock(&qp->lock);
    return emu_verbs_state_from_prm(prm);
}

/*
 * Decides the transition from the device's state `cur` (PRM) that the call
 * asks for and checks its mask; logs one line and returns EINVAL when refused.
 */
static int modify_check(struct emu_qp *qp, uint8_t cur, const struct ibv_qp_attr *attr, int mask,
                        const struct prm_qp_transition **t_out)
{
    enum ibv_qp_state cur_ibv = emu_verbs_state_from_prm(cur);
    enum ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : cur_ibv;
    const struct prm_qp_transition *t = prm_qp_transition_find(cur, state_to_prm(next));
    const struct modify_masks *m = NULL;
    char legal[256];

    if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur_ibv) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x is in %s, not in the cur_qp_state given (%s)", qp->qpn,
                    state_name(cur_ibv), state_name(attr->cur_qp_state));
        return EINVAL;
    }
    for (size_t i = 0; t != NULL && i < sizeof(modify_masks) / sizeof(modify_masks[0]); i++)
        if (modify_masks[i].opcode == t->opcode && modify_masks[i].qpt == qp->ibv.qp_type &&
            modify_masks[i].st == qp->p.st)
            m = &modify_masks[i];
    if (m == NULL && qp->tp->dc == PRM_QP_DC_DCT) {
        EMU_LOG_ERR("ibv_modify_qp: DCT 0x%x cannot go from %s to %s: a DCT only receives, it "
                    "goes RESET -> INIT -> RTR (and to ERR or RESET)",
                    qp->qpn, state_name(cur_ibv), state_name(next));
        return EINVAL;
    }
    if (m == NULL) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x cannot go from %s to %s (a QP goes %s)", qp->qpn,
                    state_name(cur_ibv), state_name(next),
                    prm_qp_transition_list(legal, sizeof(legal)));
        return EINVAL;
    }
    mask &= ~IBV_QP_STATE;
    if ((mask & m->required) != m->required) {
        EMU_LOG_ERR("ibv_modify_qp: %s QP 0x%x %s->%s needs %s in attr_mask", qp->tp->name, qp->qpn,
                    state_name(cur_ibv), state_name(next), mask_name(m->required & ~mask));
        return EINVAL;
    }
    if (mask & ~(m->required | m->optional)) {
        EMU_LOG_ERR("ibv_modify_qp: %s QP 0x%x %s->%s does not take %s", qp->tp->name, qp->qpn,
                    state_name(cur_ibv), state_name(next),
                    mask_name(mask & ~(m->required | m->optional)));
        return EINVAL;
    }
    if ((mask & IBV_QP_QKEY) && (attr->qkey & MODIFY_QKEY_CONTROLLED) && geteuid() != 0) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x: Q_Key 0x%x has its high bit set (a controlled Q_Key), "
                    "which only a privileged process may give a QP",
                    qp->qpn, attr->qkey);
        return EPERM;
    }
    if ((mask & IBV_QP_PORT) && (attr->port_num < 1 || attr->port_num > qp->nic->port_count)) {
        EMU_LOG_ERR("ibv_modify_qp: QP 0x%x: port %u does not exist (the device has %d)", qp->qpn,
                    attr->port_num, qp->nic->port_count);
        return EINVAL;
    }
    *t_out = t;
    return 0;
}

/* The attributes the call gives, onto the device's. */
static void modify_apply(const struct ibv_qp_attr *attr, int mask, struct emu_qp_attr *a)
{
    if (mask & IBV_QP_ACCESS_FLAGS) {
        a->remote_read = attr->qp_access_flags & IBV_ACCESS_REMOTE_READ;
        a->remote_write = attr->qp_access_flags & IBV_ACCESS_REMOTE_WRITE;
        a->remote_atomic = attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC;
    }
    if (mask & IBV_QP_PKEY_INDEX)
        a->pkey_index = attr->pkey_index;
    if (mask & IBV_QP_QKEY)
        a->qkey = attr->qkey;
    if (mask & IBV_QP_PORT)
        a->port = attr->port_num;
    if (mask & IBV_QP_AV) {
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

/* True when the device moved the QP out of state `from` (e.g. to ERR on an error completion). */
static bool modify_state_moved(struct emu_qp *qp, uint8_t from)
{
    bool moved;

    pthread_mutex_lock(&qp->lock);
    moved = qp->state != from;
    pthread_mutex_unlock(&qp->lock);
    return moved;
}

EMU_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    const struct prm_qp_transition *t = NULL;
    int err;

    if (ibqp == NULL || attr == NULL || !emu_context_is_ours(ibqp->context))
        return EINVAL;
    pthread_mutex_lock(&qp->post_lock);
    /* The device may move the QP to ERR between the check and the transition: decide again once. */
    for (int attempt = 0;; attempt++) {
        struct emu_qp_attr a;
        uint8_t cur;

        pthread_mutex_lock(&qp->lock);
        cur = qp->state;
        a = qp->attr;
        pthread_mutex_unlock(&qp->lock);
        err = modify_check(qp, cur, attr, mask, &t);
        if (err != 0)
            break;
        modify_apply(attr, mask, &a);
        err = emu_engine_qp_modify(qp, cur, t->to, &a);
        if (err == 0 || attempt > 0 || !modify_state_moved(qp, cur))
            break;
    }
    if (err == 0) {
        if (t->to == PRM_QP_STATE_RST) {
            /* The device dropped the QP's work: its completions not polled yet go too. */
            if (qp->p.send_cq != NULL)
                emu_verbs_cq_clean(qp->p.send_cq, qp->qpn);
            if (qp->p.recv_cq != qp->p.send_cq)
                emu_verbs_cq_clean(qp->p.recv_cq, qp->qpn);
            qp->sq_producer = qp->sq_tail = 0;
            qp->rq_producer = qp->rq_tail = 0;
            memset((void *)qp->p.dbrec, 0, 8);
        }
        if (mask & IBV_QP_ACCESS_FLAGS)
            qp->ibv_access = (int)attr->qp_access_flags;
        if (mask & IBV_QP_AV)
            qp->ah_attr = attr->ah_attr;
        /* The public field, kept for programs as libibverbs does; softmlx5 never reads it. */
        ibqp->state = emu_verbs_state_from_prm(t->to);
    }
    pthread_mutex_unlock(&qp->post_lock);
    return err;
}

EMU_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
                            struct ibv_qp_init_attr *init)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    struct emu_qp_attr copy, *a = &copy;
    uint8_t state;

    if (ibqp == NULL || attr == NULL || init == NULL || !emu_context_is_ours(ibqp->context))
        return EINVAL;
    memset(attr, 0, sizeof(*attr));
    pthread_mutex_lock(&qp->post_lock);
    pthread_mutex_lock(&qp->lock);
    state = qp->state;
    copy = qp->attr;
    pthread_mutex_unlock(&qp->lock);
    attr->qp_access_flags = (unsigned int)qp->ibv_access;
    attr->ah_attr = qp->ah_attr;
    attr->qp_state = emu_verbs_state_from_prm(state);
    attr->cur_qp_state = attr->qp_state;
    /* The public field, refreshed for programs as libibverbs does. */
    if (mask & IBV_QP_STATE)
        ibqp->state = attr->qp_state;
    pthread_mutex_unlock(&qp->post_lock);
    attr->path_mtu = (enum ibv_mtu)a->path_mtu;
    attr->path_mig_state = IBV_MIG_MIGRATED;
    attr->rq_psn = a->rq_psn;
    attr->sq_psn = a->sq_psn;
    attr->dest_qp_num = a->remote_qpn;
    attr->cap.max_send_wr = qp->max_send_wr;
    attr->cap.max_recv_wr = qp->max_recv_wr;
    attr->cap.max_send_sge = qp->max_send_sge;
    attr->cap.max_recv_sge = qp->max_recv_sge;
    attr->cap.max_inline_data = qp->max_inline;
    attr->pkey_index = a->pkey_index;
    attr->qkey = a->qkey;
    attr->port_num = a->port;
    attr->max_rd_atomic = a->max_rd_atomic;
    attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
    attr->min_rnr_timer = a->min_rnr_timer;
    attr->timeout = a->ack_timeout;
    attr->retry_cnt = a->retry_count;
    attr->rnr_retry = a->rnr_retry;
    memset(init, 0, sizeof(*init));
    init->qp_context = ibqp->qp_context;
    init->send_cq = ibqp->send_cq;
    init->recv_cq = ibqp->recv_cq;
    init->srq = ibqp->srq;
    init->cap = attr->cap;
    init->qp_type = ibqp->qp_type;
    init->sq_sig_all = qp->sq_sig_all;
    return 0;
}
