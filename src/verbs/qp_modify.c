/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC QP state machine: which transitions are legal and the PRM command
 * each becomes (the PRM table, prm_qp_transition.h), and which attribute-mask
 * bits each requires and allows (this file). Every refusal is decided, and
 * logged in one line, before anything reaches the device. Also
 * doca_verbs_qp_query (QUERY_QP).
 */
#include <stdio.h>
#include <string.h>

#include "core/sdk.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transition.h"
#include "verbs_internal.h"

#define A(bit) DOCA_VERBS_QP_ATTR_##bit

#define VERBS_QP_ATTR_ALL                                                                          \
    (A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |             \
     A(PORT_NUM) | A(NEXT_STATE) | A(CURRENT_STATE) | A(PATH_MTU) | A(RQ_PSN) | A(SQ_PSN) |        \
     A(DEST_QP_NUM) | A(ACK_TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(AH_ATTR) | A(ATOMIC_MODE) | \
     A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(CC_GROUP) | A(LAG_TX_PORT_AFFINITY))

#define VERBS_ACCESS_BITS (A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) | A(ATOMIC_MODE))

/*
 * The attribute-mask bits each PRM transition command requires and allows
 * through this API (which transitions are legal, and their commands, is the
 * PRM table's: prm_qp_transition.h).
 */
struct verbs_transition_mask {
    uint16_t opcode; /* PRM_CMD_*_QP */
    int required;
    int optional; /* CURRENT_STATE is allowed everywhere */
};

static const struct verbs_transition_mask verbs_transition_masks[] = {
        {PRM_CMD_2RST_QP, A(NEXT_STATE), 0},
        {PRM_CMD_2ERR_QP, A(NEXT_STATE), 0},
        {PRM_CMD_RST2INIT_QP,
         A(NEXT_STATE) | A(PKEY_INDEX) | A(PORT_NUM) | A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ),
         A(ATOMIC_MODE) | A(LAG_TX_PORT_AFFINITY)},
        {PRM_CMD_INIT2INIT_QP, 0, A(NEXT_STATE) | VERBS_ACCESS_BITS | A(PKEY_INDEX) | A(PORT_NUM)},
        {PRM_CMD_INIT2RTR_QP,
         A(NEXT_STATE) | A(RQ_PSN) | A(DEST_QP_NUM) | A(PATH_MTU) | A(AH_ATTR) | A(MIN_RNR_TIMER),
         A(MAX_DEST_RD_ATOMIC) | VERBS_ACCESS_BITS | A(PKEY_INDEX) | A(LAG_TX_PORT_AFFINITY)},
        {PRM_CMD_RTR2RTS_QP,
         A(NEXT_STATE) | A(SQ_PSN) | A(ACK_TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY),
         A(MAX_QP_RD_ATOMIC) | A(MIN_RNR_TIMER) | A(ALLOW_REMOTE_WRITE)},
        {PRM_CMD_RTS2RTS_QP, 0,
         A(NEXT_STATE) | VERBS_ACCESS_BITS | A(MIN_RNR_TIMER) | A(AH_ATTR) |
                 A(LAG_TX_PORT_AFFINITY)},
};

/* A legal transition: the PRM command and this API's mask rules. */
struct verbs_transition {
    const struct prm_qp_transition *prm;
    const struct verbs_transition_mask *mask;
};

static const char *const verbs_attr_bit_names[] = {
        "ALLOW_REMOTE_WRITE",
        "ALLOW_REMOTE_READ",
        "PKEY_INDEX",
        "MIN_RNR_TIMER",
        "PORT_NUM",
        "NEXT_STATE",
        "CURRENT_STATE",
        "PATH_MTU",
        "RQ_PSN",
        "SQ_PSN",
        "DEST_QP_NUM",
        "ACK_TIMEOUT",
        "RETRY_CNT",
        "RNR_RETRY",
        "AH_ATTR",
        "ATOMIC_MODE",
        "MAX_QP_RD_ATOMIC",
        "MAX_DEST_RD_ATOMIC",
        "CC_GROUP",
        "LAG_TX_PORT_AFFINITY",
};

/* "DOCA_VERBS_QP_ATTR_X | DOCA_VERBS_QP_ATTR_Y" for the bits of mask. */
static void verbs_mask_names(int mask, char *buf, size_t n)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned int bit = 0; bit < 32 && used < n; bit++) {
        if (!((unsigned int)mask & (1u << bit)))
            continue;
        if (bit < sizeof(verbs_attr_bit_names) / sizeof(verbs_attr_bit_names[0]))
            used += (size_t)snprintf(buf + used, n - used, "%sDOCA_VERBS_QP_ATTR_%s",
                                     used != 0 ? " | " : "", verbs_attr_bit_names[bit]);
        else
            used += (size_t)snprintf(buf + used, n - used, "%sbit %u", used != 0 ? " | " : "", bit);
    }
}

/* DOCA Verbs states in the PRM encoding; 0xff for a value that is no state. */
static uint8_t verbs_state_to_prm(enum doca_verbs_qp_state s)
{
    switch (s) {
    case DOCA_VERBS_QP_STATE_RST:
        return PRM_QP_STATE_RST;
    case DOCA_VERBS_QP_STATE_INIT:
        return PRM_QP_STATE_INIT;
    case DOCA_VERBS_QP_STATE_RTR:
        return PRM_QP_STATE_RTR;
    case DOCA_VERBS_QP_STATE_RTS:
        return PRM_QP_STATE_RTS;
    case DOCA_VERBS_QP_STATE_ERR:
        return PRM_QP_STATE_ERR;
    default:
        return 0xff;
    }
}

static enum doca_verbs_qp_state verbs_state_from_prm(uint32_t s)
{
    switch (s) {
    case PRM_QP_STATE_RST:
        return DOCA_VERBS_QP_STATE_RST;
    case PRM_QP_STATE_INIT:
        return DOCA_VERBS_QP_STATE_INIT;
    case PRM_QP_STATE_RTR:
        return DOCA_VERBS_QP_STATE_RTR;
    case PRM_QP_STATE_RTS:
        return DOCA_VERBS_QP_STATE_RTS;
    default:
        return DOCA_VERBS_QP_STATE_ERR; /* SQER, SQD, ERR... */
    }
}

/* The PRM transition from -> to and its mask rules; false when either is missing. */
static bool verbs_transition_find(enum doca_verbs_qp_state from, enum doca_verbs_qp_state to,
                                  struct verbs_transition *t)
{
    t->prm = prm_qp_transition_find(verbs_state_to_prm(from), verbs_state_to_prm(to));
    if (t->prm == NULL)
        return false;
    for (size_t i = 0; i < sizeof(verbs_transition_masks) / sizeof(verbs_transition_masks[0]);
         i++) {
        if (verbs_transition_masks[i].opcode == t->prm->opcode) {
            t->mask = &verbs_transition_masks[i];
            return true;
        }
    }
    return false;
}

/* LAG port affinity: the device must have it, at this transition, for this port. */
static doca_error_t verbs_qp_check_lag(const doca_verbs_qp_t *qp, const doca_verbs_qp_attr_t *a,
                                       uint16_t opcode)
{
    const struct verbs_caps *c = &qp->dev->caps;

    if (!c->lag_tx_port_affinity) {
        DOCA_LOG_ERR("QP 0x%x: the device has no LAG port affinity "
                     "(doca_verbs_device_attr_get_is_lag_tx_port_affinity_supported is 0): "
                     "remove DOCA_VERBS_QP_ATTR_LAG_TX_PORT_AFFINITY",
                     qp->qpn);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if ((opcode == PRM_CMD_RST2INIT_QP && !c->init2_lag_tx_port_affinity) ||
        (opcode == PRM_CMD_RTS2RTS_QP && !c->rts2rts_lag_tx_port_affinity)) {
        DOCA_LOG_ERR("QP 0x%x: the device cannot set the LAG port at %s; set it at INIT->RTR",
                     qp->qpn, opcode == PRM_CMD_RST2INIT_QP ? "RST->INIT" : "RTS->RTS");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (a->lag_tx_port_affinity == 0 || a->lag_tx_port_affinity > c->num_lag_ports) {
        DOCA_LOG_ERR("QP 0x%x: lag_tx_port_affinity %u; the device has LAG ports 1..%u", qp->qpn,
                     a->lag_tx_port_affinity, c->num_lag_ports);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* Checks the values against the device's limits. */
static doca_error_t verbs_qp_check_values(const doca_verbs_qp_t *qp, const doca_verbs_qp_attr_t *a,
                                          int mask, uint16_t opcode)
{
    const struct verbs_caps *c = &qp->dev->caps;

    if (mask & A(LAG_TX_PORT_AFFINITY)) {
        doca_error_t err = verbs_qp_check_lag(qp, a, opcode);

        if (err != DOCA_SUCCESS)
            return err;
    }

    if ((mask & A(PORT_NUM)) && (a->port_num == 0 || a->port_num > c->num_ports)) {
        DOCA_LOG_ERR("QP 0x%x: port_num %u; the device has ports 1..%u", qp->qpn, a->port_num,
                     c->num_ports);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((mask & A(PKEY_INDEX)) && a->pkey_index >= c->pkey_table_size) {
        DOCA_LOG_ERR("QP 0x%x: pkey_index %u outside the P_Key table of %u entries", qp->qpn,
                     a->pkey_index, c->pkey_table_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((mask & A(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > (1u << c->log_max_ra_req_qp)) {
        DOCA_LOG_ERR("QP 0x%x: max_rd_atomic %u above the device's %u", qp->qpn, a->max_rd_atomic,
                     1u << c->log_max_ra_req_qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((mask & A(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > (1u << c->log_max_ra_res_qp)) {
        DOCA_LOG_ERR("QP 0x%x: max_dest_rd_atomic %u above the device's %u", qp->qpn,
                     a->max_dest_rd_atomic, 1u << c->log_max_ra_res_qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((mask & A(ATOMIC_MODE)) && a->atomic_mode != DOCA_VERBS_QP_ATOMIC_MODE_NONE && !c->atomic) {
        DOCA_LOG_ERR("QP 0x%x: atomic_mode %d but the device has no atomics", qp->qpn,
                     (int)a->atomic_mode);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

static void verbs_qp_set_path(void *ads, const doca_verbs_qp_t *qp, const doca_verbs_qp_attr_t *a)
{
    const struct doca_verbs_ah_attr_t *ah = &a->ah;

    PRM_SET(ads, PRM_ADS_GRH, ah->addr_type != DOCA_VERBS_ADDR_TYPE_IB_NO_GRH);
    PRM_SET(ads, PRM_ADS_RLID, ah->dlid);
    PRM_SET(ads, PRM_ADS_SRC_ADDR_INDEX, ah->sgid_index);
    PRM_SET(ads, PRM_ADS_STAT_RATE, ah->static_rate);
    PRM_SET(ads, PRM_ADS_HOP_LIMIT, ah->hop_limit);
    PRM_SET(ads, PRM_ADS_TCLASS, ah->traffic_class);
    memcpy((uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP), ah->gid.raw, PRM_ADS_RGID_RIP_LEN);
    PRM_SET(ads, PRM_ADS_SL, ah->sl);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, qp->port_num);
}

static uint32_t verbs_access_optpar(int mask)
{
    uint32_t opt = 0;

    if (mask & A(ALLOW_REMOTE_WRITE))
        opt |= PRM_QP_OPTPAR_RWE;
    if (mask & A(ALLOW_REMOTE_READ))
        opt |= PRM_QP_OPTPAR_RRE;
    if (mask & A(ATOMIC_MODE))
        opt |= PRM_QP_OPTPAR_RAE;
    return opt;
}

/* Fills the QP context and opt_param_mask of a transition carrying one. */
static void verbs_qp_build(const doca_verbs_qp_t *qp, const doca_verbs_qp_attr_t *a, int mask,
                           uint16_t opcode, uint8_t *in)
{
    void *qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    void *ads = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC + PRM_QPC_PRIMARY_ADDRESS_PATH);
    uint32_t opt = verbs_access_optpar(mask);

    PRM_SET(qpc, PRM_QPC_RWE, a->allow_remote_write != 0);
    PRM_SET(qpc, PRM_QPC_RRE, a->allow_remote_read != 0);
    PRM_SET(qpc, PRM_QPC_RAE, a->atomic_mode != DOCA_VERBS_QP_ATOMIC_MODE_NONE);
    PRM_SET(qpc, PRM_QPC_ATOMIC_MODE, a->atomic_mode);
    PRM_SET(ads, PRM_ADS_PKEY_INDEX, a->pkey_index);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, (mask & A(PORT_NUM)) ? a->port_num : qp->port_num);
    if (mask & A(PKEY_INDEX))
        opt |= PRM_QP_OPTPAR_PKEY_INDEX;
    if (mask & A(PORT_NUM))
        opt |= PRM_QP_OPTPAR_PRI_PORT;
    if (mask & A(MIN_RNR_TIMER)) {
        PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, a->min_rnr_timer);
        opt |= PRM_QP_OPTPAR_RNR_TIMEOUT;
    }
    if (mask & A(AH_ATTR)) {
        verbs_qp_set_path(ads, qp, a);
        opt |= PRM_QP_OPTPAR_PRIMARY_ADDR_PATH;
    }
    if (mask & A(LAG_TX_PORT_AFFINITY)) {
        PRM_SET(qpc, PRM_QPC_LAG_TX_PORT_AFFINITY, a->lag_tx_port_affinity);
        opt |= PRM_QP_OPTPAR_LAG_TX_AFF;
    }
    if (a->counter_set_id_set) {
        PRM_SET(qpc, PRM_QPC_COUNTER_SET_ID, a->counter_set_id);
        opt |= PRM_QP_OPTPAR_COUNTER_SET_ID;
    }
    switch (opcode) {
    case PRM_CMD_RST2INIT_QP:
        opt = 0; /* every field of RST2INIT is mandatory */
        break;
    case PRM_CMD_INIT2RTR_QP:
        PRM_SET(qpc, PRM_QPC_MTU, a->path_mtu + PRM_QP_MTU_256);
        PRM_SET(qpc, PRM_QPC_REMOTE_QPN, a->dest_qp_num);
        PRM_SET(qpc, PRM_QPC_NEXT_RCV_PSN, a->rq_psn);
        PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX,
                (mask & A(MAX_DEST_RD_ATOMIC)) ? verbs_log2_ceil(a->max_dest_rd_atomic) : 0);
        opt &= ~(PRM_QP_OPTPAR_RNR_TIMEOUT | PRM_QP_OPTPAR_PRIMARY_ADDR_PATH);
        if (mask & A(MAX_DEST_RD_ATOMIC))
            opt |= PRM_QP_OPTPAR_RRA_MAX;
        break;
    case PRM_CMD_RTR2RTS_QP:
        PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, a->sq_psn);
        PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, a->ack_timeout);
        PRM_SET(qpc, PRM_QPC_RETRY_COUNT, a->retry_cnt);
        PRM_SET(qpc, PRM_QPC_RNR_RETRY, a->rnr_retry);
        PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX,
                (mask & A(MAX_QP_RD_ATOMIC)) ? verbs_log2_ceil(a->max_rd_atomic) : 0);
        if (mask & A(MAX_QP_RD_ATOMIC))
            opt |= PRM_QP_OPTPAR_SRA_MAX;
        break;
    default:
        break;
    }
    PRM_SET(in, PRM_RST2INIT_QP_IN_OPT_PARAM_MASK, opt);
}

/* The state machine's refusals; INVALID_VALUE or BAD_STATE, logged once. */
static doca_error_t verbs_qp_validate(const doca_verbs_qp_t *qp, const doca_verbs_qp_attr_t *a,
                                      int mask, struct verbs_transition *t)
{
    enum doca_verbs_qp_state cur = qp->state;
    enum doca_verbs_qp_state next = (mask & A(NEXT_STATE)) ? a->next_state : cur;
    char names[512];
    int bad;

    if (mask & ~VERBS_QP_ATTR_ALL) {
        verbs_mask_names(mask & ~VERBS_QP_ATTR_ALL, names, sizeof(names));
        DOCA_LOG_ERR("doca_verbs_qp_modify: QP 0x%x: unknown attribute-mask bits (%s)", qp->qpn,
                     names);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mask & A(CC_GROUP)) {
        DOCA_LOG_ERR("doca_verbs_qp_modify: QP 0x%x: DOCA_VERBS_QP_ATTR_CC_GROUP needs the DOCA "
                     "SDK, which this library does not load: remove it from the mask",
                     qp->qpn);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if ((mask & A(CURRENT_STATE)) && a->current_state != cur) {
        DOCA_LOG_ERR("doca_verbs_qp_modify: QP 0x%x is in %s, but current_state says %s; query "
                     "the QP with doca_verbs_qp_query()",
                     qp->qpn, verbs_qp_state_name(cur), verbs_qp_state_name(a->current_state));
        return DOCA_ERROR_BAD_STATE;
    }
    if (!verbs_transition_find(cur, next, t)) {
        DOCA_LOG_ERR("doca_verbs_qp_modify: QP 0x%x: %s->%s is not a legal RC transition (legal: "
                     "%s)",
                     qp->qpn, verbs_qp_state_name(cur), verbs_qp_state_name(next),
                     prm_qp_transition_list(names, sizeof(names)));
        return DOCA_ERROR_INVALID_VALUE;
    }
    bad = t->mask->required & ~mask;
    if (bad != 0) {
        verbs_mask_names(bad, names, sizeof(names));
        DOCA_LOG_ERR("doca_verbs_qp_modify: %s->%s requires %s", verbs_qp_state_name(cur),
                     verbs_qp_state_name(next), names);
        return DOCA_ERROR_INVALID_VALUE;
    }
    bad = mask & ~(t->mask->required | t->mask->optional | A(CURRENT_STATE));
    if (bad != 0) {
        verbs_mask_names(bad, names, sizeof(names));
        DOCA_LOG_ERR("doca_verbs_qp_modify: %s->%s does not take %s; remove it from the mask",
                     verbs_qp_state_name(cur), verbs_qp_state_name(next), names);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_modify(doca_verbs_qp_t *verbs_qp, doca_verbs_qp_attr_t *qp_attr,
                                  int attr_mask)
{
    DGN_SDK_ROUTE(doca_verbs_qp_modify, (verbs_qp, qp_attr, attr_mask), DOCA_ERROR_NOT_SUPPORTED);

    uint8_t in[PRM_RST2INIT_QP_IN_SIZE] = {0};
    uint8_t out[PRM_RST2INIT_QP_OUT_SIZE];
    struct verbs_transition t;
    doca_error_t err;

    if (verbs_qp == NULL || qp_attr == NULL) {
        DOCA_LOG_ERR("doca_verbs_qp_modify: verbs_qp (%p) and qp_attr (%p) must not be NULL",
                     (void *)verbs_qp, (void *)qp_attr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_qp_validate(verbs_qp, qp_attr, attr_mask, &t);
    if (err == DOCA_SUCCESS)
        err = verbs_qp_check_values(verbs_qp, qp_attr, attr_mask, t.prm->opcode);
    if (err != DOCA_SUCCESS)
        return err;
    PRM_SET(in, PRM_CMD_OPCODE, t.prm->opcode);
    PRM_SET(in, PRM_RST2INIT_QP_IN_QPN, verbs_qp->qpn);
    if (t.prm->has_qpc)
        verbs_qp_build(verbs_qp, qp_attr, attr_mask, t.prm->opcode, in);
    err = verbs_devx_modify(verbs_qp->obj, in, t.prm->inlen, out, sizeof(out));
    if (err != DOCA_SUCCESS)
        return err;
    DOCA_LOG_DBG("QP 0x%x: %s->%s", verbs_qp->qpn, verbs_qp_state_name(verbs_qp->state),
                 prm_qp_state_name(t.prm->to));
    verbs_qp->state = verbs_state_from_prm(t.prm->to);
    if (attr_mask & A(PORT_NUM))
        verbs_qp->port_num = (uint8_t)qp_attr->port_num;
    return DOCA_SUCCESS;
}

static void verbs_qp_read_context(const uint8_t *out, doca_verbs_qp_attr_t *a)
{
    const void *qpc = PRM_AT(out, PRM_QUERY_QP_OUT_QPC);
    const void *ads = PRM_AT(out, PRM_QUERY_QP_OUT_QPC + PRM_QPC_PRIMARY_ADDRESS_PATH);
    uint32_t mtu = (uint32_t)PRM_GET(qpc, PRM_QPC_MTU);

    a->current_state = verbs_state_from_prm((uint32_t)PRM_GET(qpc, PRM_QPC_STATE));
    a->next_state = a->current_state;
    a->path_mtu = mtu >= PRM_QP_MTU_256 && mtu <= PRM_QP_MTU_4K
                          ? (enum doca_verbs_mtu_size)(mtu - PRM_QP_MTU_256)
                          : DOCA_VERBS_MTU_SIZE_256_BYTES;
    a->rq_psn = (uint32_t)PRM_GET(qpc, PRM_QPC_NEXT_RCV_PSN);
    a->sq_psn = (uint32_t)PRM_GET(qpc, PRM_QPC_NEXT_SEND_PSN);
    a->dest_qp_num = (uint32_t)PRM_GET(qpc, PRM_QPC_REMOTE_QPN);
    a->allow_remote_write = (int)PRM_GET(qpc, PRM_QPC_RWE);
    a->allow_remote_read = (int)PRM_GET(qpc, PRM_QPC_RRE);
    if (!PRM_GET(qpc, PRM_QPC_RAE))
        a->atomic_mode = DOCA_VERBS_QP_ATOMIC_MODE_NONE;
    else if (PRM_GET(qpc, PRM_QPC_ATOMIC_MODE) != 0)
        a->atomic_mode = (enum doca_verbs_qp_atomic_mode)PRM_GET(qpc, PRM_QPC_ATOMIC_MODE);
    else
        a->atomic_mode = DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC;
    a->min_rnr_timer = (uint16_t)PRM_GET(qpc, PRM_QPC_MIN_RNR_NAK);
    a->retry_cnt = (uint16_t)PRM_GET(qpc, PRM_QPC_RETRY_COUNT);
    a->rnr_retry = (uint16_t)PRM_GET(qpc, PRM_QPC_RNR_RETRY);
    a->max_rd_atomic = (uint8_t)(1u << PRM_GET(qpc, PRM_QPC_LOG_SRA_MAX));
    a->max_dest_rd_atomic = (uint8_t)(1u << PRM_GET(qpc, PRM_QPC_LOG_RRA_MAX));
    a->pkey_index = (uint16_t)PRM_GET(ads, PRM_ADS_PKEY_INDEX);
    a->port_num = (uint16_t)PRM_GET(ads, PRM_ADS_VHCA_PORT_NUM);
    a->ack_timeout = (uint16_t)PRM_GET(ads, PRM_ADS_ACK_TIMEOUT);
    a->ah.addr_type =
            PRM_GET(ads, PRM_ADS_GRH) ? DOCA_VERBS_ADDR_TYPE_IPv6 : DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
    a->ah.dlid = (uint32_t)PRM_GET(ads, PRM_ADS_RLID);
    a->ah.sgid_index = (uint8_t)PRM_GET(ads, PRM_ADS_SRC_ADDR_INDEX);
    a->ah.static_rate = (uint8_t)PRM_GET(ads, PRM_ADS_STAT_RATE);
    a->ah.hop_limit = (uint8_t)PRM_GET(ads, PRM_ADS_HOP_LIMIT);
    a->ah.traffic_class = (uint8_t)PRM_GET(ads, PRM_ADS_TCLASS);
    a->ah.sl = (uint8_t)PRM_GET(ads, PRM_ADS_SL);
    memcpy(a->ah.gid.raw, (const uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP),
           PRM_ADS_RGID_RIP_LEN);
}

doca_error_t doca_verbs_qp_query(doca_verbs_qp_t *verbs_qp, doca_verbs_qp_attr_t *qp_attr,
                                 doca_verbs_qp_init_attr_t *qp_init_attr, int *attr_mask)
{
    DGN_SDK_ROUTE(doca_verbs_qp_query, (verbs_qp, qp_attr, qp_init_attr, attr_mask),
                  DOCA_ERROR_NOT_SUPPORTED);

    uint8_t in[PRM_QUERY_QP_IN_SIZE] = {0};
    uint8_t out[PRM_QUERY_QP_OUT_SIZE];
    doca_error_t err;

    if (verbs_qp == NULL || qp_attr == NULL || qp_init_attr == NULL) {
        DOCA_LOG_ERR("verbs_qp (%p), qp_attr (%p) and qp_init_attr (%p) must not be NULL",
                     (void *)verbs_qp, (void *)qp_attr, (void *)qp_init_attr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_QP);
    PRM_SET(in, PRM_QUERY_QP_IN_QPN, verbs_qp->qpn);
    err = verbs_devx_query(verbs_qp->obj, in, sizeof(in), out, sizeof(out));
    if (err != DOCA_SUCCESS)
        return err;
    verbs_qp_read_context(out, qp_attr);
    /* The device is the authority on the state (a QP moves to ERR by itself on errors). */
    verbs_qp->state = qp_attr->current_state;
    *qp_init_attr = verbs_qp->init;
    if (attr_mask != NULL)
        *attr_mask = VERBS_QP_ATTR_ALL;
    return DOCA_SUCCESS;
}
