/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_QP / DESTROY_QP / QUERY_QP for RC, UC and UD QPs (qpc.st). The work queue buffer (RQ
 * then SQ) is at wq_umem_id + wq_umem_offset; the doorbell record at
 * dbr_addr inside dbr_umem_id (or inside the work queue's umem when
 * dbr_umem_valid is 0). The QP rings its doorbells on UAR uar_page.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "common/emu_log.h"
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "nic/uar.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

#define DEVX_DBREC_SIZE        8
#define DEVX_LOG_MAX_RQ_STRIDE 5 /* 512-byte receive WQEs: 31 scatter entries and a header */
#define DEVX_RQ_STRIDE_UNIT    16

struct devx_qp *devx_qp_find(struct devx_dev *d, uint32_t qpn)
{
    struct devx_qp *dqp = devx_map_get(&d->qps, qpn & EMU_OBJ_INDEX_MASK);

    return dqp != NULL && dqp->qp->qpn == qpn ? dqp : NULL;
}

/* Sizes, queue types and the doorbell mode of the QP context. */
static uint8_t devx_qp_check_shape(struct devx_cmd *c, const void *qpc, struct emu_qp_params *p)
{
    uint32_t rq_type = (uint32_t)PRM_GET(qpc, PRM_QPC_RQ_TYPE);
    uint32_t dbr_mode = (uint32_t)PRM_GET(qpc, PRM_QPC_SEND_DBR_MODE);
    const struct prm_qp_transport *tp = prm_qp_transport_of((uint8_t)PRM_GET(qpc, PRM_QPC_ST));

    /* A DCT is no QP in the PRM: CREATE_DCT makes it (dct.c). */
    if (tp == NULL || tp->dc == PRM_QP_DC_DCT) {
        char types[64];

        EMU_LOG_ERR("CREATE_QP: st 0x%x; the device implements %s (a DCT through CREATE_DCT)",
                    (unsigned)PRM_GET(qpc, PRM_QPC_ST),
                    prm_qp_transport_list(types, sizeof(types)));
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_TYPE,
                         "st: the device implements RC, UC, UD, XRC and DCI QPs only");
    }
    /* XRC target QPs need XRC domains and XRC SRQs, which only the standard verbs make. */
    if (PRM_GET(qpc, PRM_QPC_ST) == PRM_QP_ST_XRC && rq_type != PRM_QP_RQ_TYPE_ZERO_SIZE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_TYPE,
                         "st XRC: DevX makes XRC initiator QPs (zero-size receive queue) only; "
                         "target QPs come from ibv_create_qp_ex");
    if (PRM_GET(qpc, PRM_QPC_LOG_SQ_SIZE) > EMU_LOG_MAX_QP_SZ)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_LOG_SQ_SIZE,
                         "log_sq_size above log_max_qp_sz");
    if (rq_type == PRM_QP_RQ_TYPE_REGULAR) {
        if (PRM_GET(qpc, PRM_QPC_LOG_RQ_SIZE) > EMU_LOG_MAX_QP_SZ)
            return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_LOG_RQ_SIZE,
                             "log_rq_size above log_max_qp_sz");
        if (PRM_GET(qpc, PRM_QPC_LOG_RQ_STRIDE) > DEVX_LOG_MAX_RQ_STRIDE)
            return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_RQ_STRIDE,
                             "log_rq_stride above max_wqe_sz_rq");
    } else if (rq_type != PRM_QP_RQ_TYPE_ZERO_SIZE && rq_type != PRM_QP_RQ_TYPE_SRQ) {
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_RQ_TYPE,
                         "rq_type: regular, SRQ (an RMP) or zero-size receive queues only");
    }
    if (dbr_mode != PRM_QP_SEND_DBR_MODE_DBR_VALID &&
        (dbr_mode != PRM_QP_SEND_DBR_MODE_NO_DBR_EXT || !emu_devx_no_dbr_supported()))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_DBR_MODE,
                         "send_dbr_mode: the device does not advertise this mode "
                         "(no-DBR needs SOFTMLX5_NO_DBR=1)");
    p->st = (uint8_t)PRM_GET(qpc, PRM_QPC_ST);
    p->log_sq_size = PRM_GET(qpc, PRM_QPC_NO_SQ) ? 0 : (uint32_t)PRM_GET(qpc, PRM_QPC_LOG_SQ_SIZE);
    /* A QP on an SRQ has no receive queue of its own. */
    p->rq_size_zero = rq_type != PRM_QP_RQ_TYPE_REGULAR;
    p->log_rq_size = p->rq_size_zero ? 0 : (uint32_t)PRM_GET(qpc, PRM_QPC_LOG_RQ_SIZE);
    p->log_rq_stride = p->rq_size_zero ? 0 : (uint32_t)PRM_GET(qpc, PRM_QPC_LOG_RQ_STRIDE);
    p->no_dbr = dbr_mode != PRM_QP_SEND_DBR_MODE_DBR_VALID;
    p->user_index = (uint32_t)PRM_GET(qpc, PRM_QPC_USER_INDEX);
    return PRM_CMD_STAT_OK;
}

/* The protection domain, completion queues and UAR the context names. */
static uint8_t devx_qp_check_refs(struct devx_cmd *c, const void *qpc, struct emu_qp_params *p)
{
    struct emu_nic *nic = c->nic;
    uint32_t cqn_snd = (uint32_t)PRM_GET(qpc, PRM_QPC_CQN_SND);
    uint32_t cqn_rcv = (uint32_t)PRM_GET(qpc, PRM_QPC_CQN_RCV);

    pthread_mutex_lock(&nic->lock);
    p->pd = emu_table_get(&nic->pds, (uint32_t)PRM_GET(qpc, PRM_QPC_PD));
    p->send_cq = emu_cq_lookup(nic, cqn_snd);
    p->recv_cq = emu_cq_lookup(nic, cqn_rcv);
    pthread_mutex_unlock(&nic->lock);
    if (p->pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_PD,
                         "pd names no protection domain");
    if (p->send_cq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_CQN_SND, "cqn_snd names no CQ");
    if (p->recv_cq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_CQN_RCV, "cqn_rcv names no CQ");
    if (PRM_GET(qpc, PRM_QPC_RQ_TYPE) == PRM_QP_RQ_TYPE_SRQ) {
        struct devx_srq *ds =
                devx_srq_find(devx_dev_of(nic), (uint32_t)PRM_GET(qpc, PRM_QPC_SRQN_RMPN_XRQN));

        if (ds == NULL)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_SRQ,
                             "srqn_rmpn_xrqn names no RMP made by CREATE_RMP");
        p->srq = ds->srq;
    }
    p->uar = emu_uar_lookup(nic, (uint32_t)PRM_GET(qpc, PRM_QPC_UAR_PAGE));
    if (p->uar == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_UAR,
                         "uar_page is not an allocated UAR");
    return PRM_CMD_STAT_OK;
}

static uint8_t devx_qp_umems(struct devx_cmd *c, const void *qpc, struct emu_qp_params *p,
                             struct devx_qp *dqp)
{
    uint32_t wq_id = (uint32_t)PRM_GET(c->in, PRM_CREATE_QP_IN_WQ_UMEM_ID);
    uint64_t wq_off = PRM_GET(c->in, PRM_CREATE_QP_IN_WQ_UMEM_OFFSET);
    uint64_t rq_len = p->rq_size_zero ? 0
                                      : ((uint64_t)DEVX_RQ_STRIDE_UNIT << p->log_rq_stride)
                                                << p->log_rq_size;
    uint64_t sq_len = PRM_GET(qpc, PRM_QPC_NO_SQ) ? 0 : (uint64_t)EMU_SQ_STRIDE << p->log_sq_size;
    uint32_t dbr_id = PRM_GET(qpc, PRM_QPC_DBR_UMEM_VALID)
                              ? (uint32_t)PRM_GET(qpc, PRM_QPC_DBR_UMEM_ID)
                              : wq_id;
    uint64_t dbr_off = PRM_GET(qpc, PRM_QPC_DBR_ADDR);
    enum emu_umem_check r;

    if (!PRM_GET(c->in, PRM_CREATE_QP_IN_WQ_UMEM_VALID))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_UMEM_INVALID,
                         "wq_umem_valid is 0: the work queues must be in a umem (no page lists)");
    if (dbr_off % DEVX_DBREC_SIZE != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_DBR_ALIGN,
                         "dbr_addr is not 8-byte aligned");
    r = emu_umem_get(c->nic, wq_id, wq_off, rq_len + sq_len, &p->wq, &p->wq_gpu, &dqp->wq_umem);
    if (r == EMU_UMEM_BAD_ID)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_UMEM_ID,
                         "wq_umem_id names no registered umem");
    if (r != EMU_UMEM_OK)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_UMEM_RANGE,
                         "the work queues (wq_umem_offset + RQ + SQ bytes) overflow their umem");
    r = emu_umem_get(c->nic, dbr_id, dbr_off, DEVX_DBREC_SIZE, &p->dbrec, &p->dbrec_gpu,
                     &dqp->dbr_umem);
    if (r != EMU_UMEM_OK) {
        emu_umem_put(dqp->wq_umem);
        if (r == EMU_UMEM_BAD_ID)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_DBR_UMEM_ID,
                             "dbr_umem_id names no registered umem");
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_QP_DBR_RANGE,
                         "the doorbell record (dbr_addr + 8) overflows its umem");
    }
    dqp->dbr_umem_id = dbr_id;
    dqp->dbr_offset = dbr_off;
    return PRM_CMD_STAT_OK;
}

static void devx_qp_remember(struct devx_qp *dqp, const void *qpc)
{
    dqp->pdn = (uint32_t)PRM_GET(qpc, PRM_QPC_PD);
    dqp->cqn_snd = (uint32_t)PRM_GET(qpc, PRM_QPC_CQN_SND);
    dqp->cqn_rcv = (uint32_t)PRM_GET(qpc, PRM_QPC_CQN_RCV);
    dqp->uar_page = (uint32_t)PRM_GET(qpc, PRM_QPC_UAR_PAGE);
    dqp->send_dbr_mode = (uint8_t)PRM_GET(qpc, PRM_QPC_SEND_DBR_MODE);
    dqp->rq_type = (uint8_t)PRM_GET(qpc, PRM_QPC_RQ_TYPE);
    dqp->no_sq = PRM_GET(qpc, PRM_QPC_NO_SQ) != 0;
    dqp->log_msg_max = (uint8_t)PRM_GET(qpc, PRM_QPC_LOG_MSG_MAX);
}

/* DevX CQs count the DevX QPs on them, so that DESTROY_CQ refuses while in use. */
static void devx_qp_count_cqs(struct devx_dev *d, const struct devx_qp *dqp, int delta)
{
    struct devx_cq *snd = devx_cq_find(d, dqp->cqn_snd);
    struct devx_cq *rcv = devx_cq_find(d, dqp->cqn_rcv);

    if (snd != NULL)
        snd->qps += delta;
    if (rcv != NULL)
        rcv->qps += delta;
}

uint8_t devx_create_qp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    const void *qpc = devx_in_at(c, PRM_CREATE_QP_IN_QPC);
    struct emu_qp_params p = {0};
    struct devx_qp *dqp;
    struct emu_qp *qp;
    uint8_t status;

    status = devx_qp_check_shape(c, qpc, &p);
    if (status == PRM_CMD_STAT_OK)
        status = devx_qp_check_refs(c, qpc, &p);
    if (status != PRM_CMD_STAT_OK)
        return status;
    dqp = calloc(1, sizeof(*dqp));
    if (dqp == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    status = devx_qp_umems(c, qpc, &p, dqp);
    if (status != PRM_CMD_STAT_OK)
        goto free_dqp;
    if (emu_engine_qp_create(c->nic, &p, &qp) != 0) {
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                           "the device has no free QP");
        goto put_umems;
    }
    dqp->qp = qp;
    devx_qp_remember(dqp, qpc);
    if (devx_map_set(&d->qps, qp->qpn & EMU_OBJ_INDEX_MASK, dqp) != 0 ||
        emu_uar_qp_bind(p.uar, qp) != 0) {
        devx_map_remove(&d->qps, qp->qpn & EMU_OBJ_INDEX_MASK);
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
        goto destroy_qp;
    }
    devx_qp_count_cqs(d, dqp, 1);
    PRM_SET(c->out, PRM_CREATE_QP_OUT_QPN, qp->qpn);
    return PRM_CMD_STAT_OK;

destroy_qp:
    emu_engine_qp_destroy(qp);
put_umems:
    emu_umem_put(dqp->dbr_umem);
    emu_umem_put(dqp->wq_umem);
free_dqp:
    free(dqp);
    return status;
}

uint8_t devx_destroy_qp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t qpn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_QP_IN_QPN);
    struct devx_qp *dqp = devx_qp_find(d, qpn);

    if (dqp == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_UNKNOWN,
                         "no QP with this number was made by CREATE_QP");
    emu_uar_qp_unbind(dqp->qp);
    emu_engine_qp_destroy(dqp->qp);
    devx_qp_count_cqs(d, dqp, -1);
    devx_map_remove(&d->qps, qpn & EMU_OBJ_INDEX_MASK);
    emu_umem_put(dqp->dbr_umem);
    emu_umem_put(dqp->wq_umem);
    free(dqp);
    return PRM_CMD_STAT_OK;
}

static unsigned int devx_log2_of(unsigned int v)
{
    unsigned int log = 0;

    while (v > 1) {
        v >>= 1;
        log++;
    }
    return log;
}

static void devx_qp_query_path(void *ads, const struct emu_qp_attr *a)
{
    PRM_SET(ads, PRM_ADS_PKEY_INDEX, a->pkey_index);
    PRM_SET(ads, PRM_ADS_GRH, a->grh);
    PRM_SET(ads, PRM_ADS_RLID, a->rlid);
    PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, a->ack_timeout);
    PRM_SET(ads, PRM_ADS_SRC_ADDR_INDEX, a->sgid_index);
    PRM_SET(ads, PRM_ADS_HOP_LIMIT, a->hop_limit);
    PRM_SET(ads, PRM_ADS_TCLASS, a->traffic_class);
    memcpy((uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP), a->rgid, PRM_ADS_RGID_RIP_LEN);
    PRM_SET(ads, PRM_ADS_SL, a->sl);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, a->port);
}

uint8_t devx_query_qp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t qpn = (uint32_t)PRM_GET(c->in, PRM_QUERY_QP_IN_QPN);
    struct devx_qp *dqp = devx_qp_find(d, qpn);
    void *qpc = devx_out_at(c, PRM_QUERY_QP_OUT_QPC);
    const struct emu_qp_attr *a;
    struct emu_qp *qp;

    if (dqp == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_QP_UNKNOWN,
                         "no QP with this number was made by CREATE_QP");
    qp = dqp->qp;
    a = &qp->attr;
    pthread_mutex_lock(&qp->lock);
    PRM_SET(qpc, PRM_QPC_STATE, qp->state);
    PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, qp->next_psn);
    PRM_SET(qpc, PRM_QPC_NEXT_RCV_PSN, qp->expected_psn);
    PRM_SET(qpc, PRM_QPC_HW_SQ_WQEBB_COUNTER, qp->sq_consumer & 0xffff);
    PRM_SET(qpc, PRM_QPC_HW_RQ_COUNTER, qp->rq_consumer);
    pthread_mutex_unlock(&qp->lock);
    PRM_SET(qpc, PRM_QPC_ST, qp->p.st);
    PRM_SET(qpc, PRM_QPC_Q_KEY, a->qkey);
    PRM_SET(qpc, PRM_QPC_PM_STATE, PRM_QP_PM_STATE_MIGRATED);
    PRM_SET(qpc, PRM_QPC_PD, dqp->pdn);
    PRM_SET(qpc, PRM_QPC_MTU, a->path_mtu);
    PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, dqp->log_msg_max);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_SIZE, qp->p.log_rq_size);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_STRIDE, qp->p.log_rq_stride);
    PRM_SET(qpc, PRM_QPC_NO_SQ, dqp->no_sq);
    PRM_SET(qpc, PRM_QPC_LOG_SQ_SIZE, qp->p.log_sq_size);
    PRM_SET(qpc, PRM_QPC_UAR_PAGE, dqp->uar_page);
    PRM_SET(qpc, PRM_QPC_SEND_DBR_MODE, dqp->send_dbr_mode);
    PRM_SET(qpc, PRM_QPC_USER_INDEX, qp->p.user_index);
    PRM_SET(qpc, PRM_QPC_REMOTE_QPN, a->remote_qpn);
    devx_qp_query_path(devx_out_at(c, PRM_QUERY_QP_OUT_QPC + PRM_QPC_PRIMARY_ADDRESS_PATH), a);
    PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX, devx_log2_of(a->max_rd_atomic));
    PRM_SET(qpc, PRM_QPC_RETRY_COUNT, a->retry_count);
    PRM_SET(qpc, PRM_QPC_RNR_RETRY, a->rnr_retry);
    PRM_SET(qpc, PRM_QPC_CQN_SND, dqp->cqn_snd);
    PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX, devx_log2_of(a->max_dest_rd_atomic));
    PRM_SET(qpc, PRM_QPC_RRE, a->remote_read);
    PRM_SET(qpc, PRM_QPC_RWE, a->remote_write);
    PRM_SET(qpc, PRM_QPC_RAE, a->remote_atomic);
    PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, a->min_rnr_timer);
    PRM_SET(qpc, PRM_QPC_CQN_RCV, dqp->cqn_rcv);
    PRM_SET(qpc, PRM_QPC_DBR_ADDR, dqp->dbr_offset);
    PRM_SET(qpc, PRM_QPC_RQ_TYPE, dqp->rq_type);
    if (qp->p.srq != NULL)
        PRM_SET(qpc, PRM_QPC_SRQN_RMPN_XRQN, qp->p.srq->srqn);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_VALID, 1);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_ID, dqp->dbr_umem_id);
    return PRM_CMD_STAT_OK;
}
