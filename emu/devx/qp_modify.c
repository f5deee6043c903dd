/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state transition commands (which exist, and which state each starts
 * from, is the PRM table's: prm_qp_transition.h). Each maps the QP context
 * fields it carries (mandatory ones, and the optional ones its
 * opt_param_mask selects) onto struct emu_qp_attr and asks the device for
 * the transition. A QP in another state than the command's source answers
 * BAD_RES_STATE. A UD QP has no path: its INIT2RTR carries only optional
 * fields, and its Q_Key comes with RST2INIT (or, optionally, later).
 */
#include <string.h>

#include "engine/engine.h"
#include "common/emu_log.h"
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transition.h"
#include "prm/prm_qp_transport.h"
#include "prm/prm_status.h"

/* Port and P_Key index of the primary path (RST2INIT, or optional elsewhere). */
static uint8_t devx_apply_port(struct devx_cmd *c, const void *ads, struct emu_qp_attr *a)
{
    uint32_t port = (uint32_t)PRM_GET(ads, PRM_ADS_VHCA_PORT_NUM);

    if (port == 0)
        port = 1; /* a zero port number means the function's own port */
    if ((int)port > c->nic->port_count)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_PORT,
                         "vhca_port_num names no port of the device");
    if (PRM_GET(ads, PRM_ADS_PKEY_INDEX) >= EMU_MAX_PKEYS)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_ATTR,
                         "pkey_index outside the P_Key table");
    a->port = (uint8_t)port;
    a->pkey_index = (uint16_t)PRM_GET(ads, PRM_ADS_PKEY_INDEX);
    return PRM_CMD_STAT_OK;
}

/* UD's Q_Key: mandatory at RST2INIT (all), optional (Q_KEY in the mask) elsewhere. */
static void devx_apply_qkey(const struct emu_qp *qp, const void *qpc, uint32_t mask, bool all,
                            struct emu_qp_attr *a)
{
    if (!qp->tp->connected && (all || (mask & PRM_QP_OPTPAR_Q_KEY)))
        a->qkey = (uint32_t)PRM_GET(qpc, PRM_QPC_Q_KEY);
}

static void devx_apply_access(const void *qpc, uint32_t mask, bool all, struct emu_qp_attr *a)
{
    if (all || (mask & PRM_QP_OPTPAR_RRE))
        a->remote_read = PRM_GET(qpc, PRM_QPC_RRE) != 0;
    if (all || (mask & PRM_QP_OPTPAR_RWE))
        a->remote_write = PRM_GET(qpc, PRM_QPC_RWE) != 0;
    if (all || (mask & PRM_QP_OPTPAR_RAE))
        a->remote_atomic = PRM_GET(qpc, PRM_QPC_RAE) != 0;
}

/* INIT2RTR: the responder side and the path to the remote QP. */
static uint8_t devx_apply_rtr(struct devx_cmd *c, const void *qpc, const void *ads,
                              struct emu_qp_attr *a)
{
    uint32_t mtu = (uint32_t)PRM_GET(qpc, PRM_QPC_MTU);
    uint32_t log_rra = (uint32_t)PRM_GET(qpc, PRM_QPC_LOG_RRA_MAX);

    if (mtu < PRM_QP_MTU_256 || mtu > PRM_QP_MTU_4K)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_MTU,
                         "mtu: 256 to 4096 bytes (1..5) on an RC QP");
    if (log_rra > EMU_LOG_MAX_RA_QP)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_RA,
                         "log_rra_max above log_max_ra_res_qp");
    a->path_mtu = (uint8_t)mtu;
    a->max_dest_rd_atomic = (uint8_t)(1u << log_rra);
    a->remote_qpn = (uint32_t)PRM_GET(qpc, PRM_QPC_REMOTE_QPN);
    a->rq_psn = (uint32_t)PRM_GET(qpc, PRM_QPC_NEXT_RCV_PSN);
    a->min_rnr_timer = (uint8_t)PRM_GET(qpc, PRM_QPC_MIN_RNR_NAK);
    a->grh = PRM_GET(ads, PRM_ADS_GRH) != 0;
    memcpy(a->rgid, (const uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP), PRM_ADS_RGID_RIP_LEN);
    a->rlid = (uint16_t)PRM_GET(ads, PRM_ADS_RLID);
    a->sgid_index = (uint8_t)PRM_GET(ads, PRM_ADS_SRC_ADDR_INDEX);
    a->hop_limit = (uint8_t)PRM_GET(ads, PRM_ADS_HOP_LIMIT);
    a->traffic_class = (uint8_t)PRM_GET(ads, PRM_ADS_TCLASS);
    a->sl = (uint8_t)PRM_GET(ads, PRM_ADS_SL);
    return PRM_CMD_STAT_OK;
}

/* RTR2RTS: the requester side. */
static uint8_t devx_apply_rts(struct devx_cmd *c, const void *qpc, const void *ads,
                              struct emu_qp_attr *a)
{
    uint32_t log_sra = (uint32_t)PRM_GET(qpc, PRM_QPC_LOG_SRA_MAX);

    if (log_sra > EMU_LOG_MAX_RA_QP)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_RA,
                         "log_sra_max above log_max_ra_req_qp");
    a->max_rd_atomic = (uint8_t)(1u << log_sra);
    a->sq_psn = (uint32_t)PRM_GET(qpc, PRM_QPC_NEXT_SEND_PSN);
    a->ack_timeout = (uint8_t)PRM_GET(ads, PRM_ADS_ACK_TIMEOUT);
    a->retry_count = (uint8_t)PRM_GET(qpc, PRM_QPC_RETRY_COUNT);
    a->rnr_retry = (uint8_t)PRM_GET(qpc, PRM_QPC_RNR_RETRY);
    return PRM_CMD_STAT_OK;
}

/* Optional fields of INIT2INIT, RTR2RTS, RTS2RTS and SQERR2RTS. */
static uint8_t devx_apply_optional(struct devx_cmd *c, const void *qpc, const void *ads,
                                   uint32_t mask, struct emu_qp_attr *a)
{
    devx_apply_access(qpc, mask, false, a);
    if (mask & PRM_QP_OPTPAR_RNR_TIMEOUT)
        a->min_rnr_timer = (uint8_t)PRM_GET(qpc, PRM_QPC_MIN_RNR_NAK);
    if (mask & PRM_QP_OPTPAR_ACK_TIMEOUT)
        a->ack_timeout = (uint8_t)PRM_GET(ads, PRM_ADS_ACK_TIMEOUT);
    if (mask & PRM_QP_OPTPAR_RETRY_COUNT)
        a->retry_count = (uint8_t)PRM_GET(qpc, PRM_QPC_RETRY_COUNT);
    if (mask & PRM_QP_OPTPAR_RNR_RETRY)
        a->rnr_retry = (uint8_t)PRM_GET(qpc, PRM_QPC_RNR_RETRY);
    if (mask & (PRM_QP_OPTPAR_PKEY_INDEX | PRM_QP_OPTPAR_PRI_PORT))
        return devx_apply_port(c, ads, a);
    return PRM_CMD_STAT_OK;
}

static uint8_t devx_transition_attr(struct devx_cmd *c, const struct prm_qp_transition *t,
                                    const struct emu_qp *qp, struct emu_qp_attr *a)
{
    /* Every transition with a qpc has the same layout (rst2init_qp_in et al.). */
    const void *qpc = devx_in_at(c, PRM_RST2INIT_QP_IN_QPC);
    const void *ads = devx_in_at(c, PRM_RST2INIT_QP_IN_QPC + PRM_QPC_PRIMARY_ADDRESS_PATH);
    uint32_t mask = (uint32_t)PRM_GET(c->in, PRM_RST2INIT_QP_IN_OPT_PARAM_MASK);
    uint8_t status;

    devx_apply_qkey(qp, qpc, mask, t->opcode == PRM_CMD_RST2INIT_QP, a);
    switch (t->opcode) {
    case PRM_CMD_RST2INIT_QP:
        devx_apply_access(qpc, mask, true, a);
        return devx_apply_port(c, ads, a);
    case PRM_CMD_INIT2RTR_QP:
        if (!qp->tp->connected) /* UD: no path, no remote QP */
            return (mask & PRM_QP_OPTPAR_PKEY_INDEX) ? devx_apply_port(c, ads, a) : PRM_CMD_STAT_OK;
        status = devx_apply_rtr(c, qpc, ads, a);
        if (status == PRM_CMD_STAT_OK)
            devx_apply_access(qpc, mask, false, a);
        if (status == PRM_CMD_STAT_OK && (mask & PRM_QP_OPTPAR_PKEY_INDEX))
            status = devx_apply_port(c, ads, a);
        return status;
    case PRM_CMD_RTR2RTS_QP:
        status = devx_apply_rts(c, qpc, ads, a);
        if (status == PRM_CMD_STAT_OK)
            status = devx_apply_optional(c, qpc, ads, mask & ~PRM_QP_OPTPAR_ACK_TIMEOUT, a);
        return status;
    default:
        return devx_apply_optional(c, qpc, ads, mask, a);
    }
}

uint8_t devx_modify_qp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    const struct prm_qp_transition *t = prm_qp_transition_of_cmd(c->opcode);
    uint32_t qpn = (uint32_t)PRM_GET(c->in, PRM_RST2INIT_QP_IN_QPN);
    struct devx_qp *dqp = devx_qp_find(d, qpn);
    struct emu_qp_attr attr;
    uint8_t state, from, status;

    if (t == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_OP, DEVX_SYND_BAD_OPCODE, "not a QP transition");
    if (dqp == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_UNKNOWN,
                         "no QP with this number was made by CREATE_QP");
    for (int attempt = 0;; attempt++) {
        bool moved;

        pthread_mutex_lock(&dqp->qp->lock);
        state = dqp->qp->state;
        attr = dqp->qp->attr;
        pthread_mutex_unlock(&dqp->qp->lock);
        from = t->from == PRM_QP_STATE_ANY ? state : t->from;
        if (state != from) {
            EMU_LOG_INFO("QP 0x%x is in %s; %s needs %s", qpn, prm_qp_state_name(state),
                         prm_cmd_opcode_name(c->opcode), prm_qp_state_name(from));
            return devx_fail(c, PRM_CMD_STAT_BAD_RES_STATE, DEVX_SYND_QP_STATE,
                             "the QP is not in the state this transition starts from");
        }
        if (t->has_qpc) {
            status = devx_transition_attr(c, t, dqp->qp, &attr);
            if (status != PRM_CMD_STAT_OK)
                return status;
        }
        if (emu_engine_qp_modify(dqp->qp, from, t->to, &attr) == 0)
            break;
        /* The device may have moved the QP to ERR meanwhile (an error completion): decide again. */
        pthread_mutex_lock(&dqp->qp->lock);
        moved = dqp->qp->state != from;
        pthread_mutex_unlock(&dqp->qp->lock);
        if (!moved || attempt > 0)
            return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_ATTR,
                             "the device refused the transition's attributes");
    }
    return PRM_CMD_STAT_OK;
}
