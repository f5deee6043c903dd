/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_DCT / DESTROY_DCT / QUERY_DCT (prm/prm_dct.h): DC targets over
 * DevX. A DCT is the device's QP of service type DCT (engine/dc.c), made
 * active at once (RST, INIT, RTR with the context's access flags, RNR
 * timer, MTU and port), with no work queues: its receives come from the SRQ
 * srqn_xrqn (an RMP or a standard-verbs SRQ of the device) and complete on
 * CQ cqn. DRAIN_DCT and ARM_DCT_FOR_KEY_VIOLATION are not implemented.
 */
#include <stdlib.h>
#include <string.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "engine/engine.h"
#include "nic/cq.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "nic/table.h"
#include "prm/prm_cmd.h"
#include "prm/prm_dct.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

/* The engine reads a QP's doorbell record and rings; a DCT has none it uses. */
#define DEVX_DCT_SCRATCH 128

struct devx_dct {
    struct emu_qp *qp;
    uint32_t pdn, cqn, user_index;
    uint8_t scratch[DEVX_DCT_SCRATCH] __attribute__((aligned(64)));
};

static struct devx_dct *devx_dct_find(struct devx_dev *d, uint32_t dctn)
{
    struct devx_dct *dd = devx_map_get(&d->dcts, dctn & EMU_OBJ_INDEX_MASK);

    return dd != NULL && dd->qp->qpn == dctn ? dd : NULL;
}

/* The context's PD, CQ and SRQ, and its port and MTU; fills p. */
static uint8_t devx_dct_check(struct devx_cmd *c, const void *dctc, struct emu_qp_params *p)
{
    struct emu_nic *nic = c->nic;
    uint32_t srqn = (uint32_t)PRM_GET(dctc, PRM_DCTC_SRQN_XRQN);
    uint32_t port = (uint32_t)PRM_GET(dctc, PRM_DCTC_PORT);
    uint32_t mtu = (uint32_t)PRM_GET(dctc, PRM_DCTC_MTU);

    if (PRM_GET(dctc, PRM_DCTC_STATE) != PRM_DCTC_STATE_ACTIVE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_DCT_STATE,
                         "state: a DCT is created active");
    if (port < 1 || port > (uint32_t)nic->port_count)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_DCT_PORT,
                         "port names no port of the device");
    if (mtu < 1 || mtu > 5)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_DCT_MTU,
                         "mtu: 1 (256 bytes) to 5 (4096 bytes)");
    pthread_mutex_lock(&nic->lock);
    p->pd = emu_table_get(&nic->pds, (uint32_t)PRM_GET(dctc, PRM_DCTC_PD));
    p->recv_cq = emu_cq_lookup(nic, (uint32_t)PRM_GET(dctc, PRM_DCTC_CQN));
    p->srq = emu_table_get(&nic->srqs, srqn & EMU_OBJ_INDEX_MASK);
    if (p->srq != NULL && p->srq->srqn != srqn)
        p->srq = NULL;
    pthread_mutex_unlock(&nic->lock);
    if (p->pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_DCT_PD,
                         "pd names no protection domain");
    if (p->recv_cq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_DCT_CQN, "cqn names no CQ");
    if (p->srq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_DCT_SRQ,
                         "srqn_xrqn names no SRQ of the device");
    p->send_cq = p->recv_cq;
    p->st = PRM_QP_ST_DCT;
    p->rq_size_zero = true;
    p->user_index = (uint32_t)PRM_GET(dctc, PRM_DCTC_USER_INDEX);
    return PRM_CMD_STAT_OK;
}

/* The DCT becomes active: RST -> INIT -> RTR with the context's attributes. */
static int devx_dct_activate(struct emu_qp *qp, const void *dctc)
{
    struct emu_qp_attr a = {0};

    a.port = (uint8_t)PRM_GET(dctc, PRM_DCTC_PORT);
    a.pkey_index = (uint16_t)PRM_GET(dctc, PRM_DCTC_PKEY_INDEX);
    a.remote_read = PRM_GET(dctc, PRM_DCTC_RRE) != 0;
    a.remote_write = PRM_GET(dctc, PRM_DCTC_RWE) != 0;
    a.remote_atomic = PRM_GET(dctc, PRM_DCTC_RAE) != 0;
    a.path_mtu = (uint8_t)PRM_GET(dctc, PRM_DCTC_MTU);
    a.min_rnr_timer = (uint8_t)PRM_GET(dctc, PRM_DCTC_MIN_RNR_NAK);
    a.hop_limit = (uint8_t)PRM_GET(dctc, PRM_DCTC_HOP_LIMIT);
    a.traffic_class = (uint8_t)PRM_GET(dctc, PRM_DCTC_TCLASS);
    qp->dc.key = PRM_GET(dctc, PRM_DCTC_DC_ACCESS_KEY);
    if (emu_engine_qp_modify(qp, PRM_QP_STATE_RST, PRM_QP_STATE_INIT, &a) != 0)
        return -1;
    return emu_engine_qp_modify(qp, PRM_QP_STATE_INIT, PRM_QP_STATE_RTR, &a);
}

static void devx_dct_count_cq(struct devx_dev *d, uint32_t cqn, int delta)
{
    struct devx_cq *dcq = devx_cq_find(d, cqn);

    if (dcq != NULL)
        dcq->qps += delta;
}

uint8_t devx_create_dct(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    const void *dctc = devx_in_at(c, PRM_CREATE_DCT_IN_DCTC);
    struct emu_qp_params p = {0};
    struct devx_dct *dd;
    uint8_t status = devx_dct_check(c, dctc, &p);

    if (status != PRM_CMD_STAT_OK)
        return status;
    dd = aligned_alloc(64, sizeof(*dd));
    if (dd == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    memset(dd, 0, sizeof(*dd));
    p.wq = (uintptr_t)dd->scratch;
    p.dbrec = (uintptr_t)dd->scratch + DEVX_DCT_SCRATCH / 2;
    if (emu_engine_qp_create(c->nic, &p, &dd->qp) != 0) {
        free(dd);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free QP for the DCT");
    }
    if (devx_dct_activate(dd->qp, dctc) != 0 ||
        devx_map_set(&d->dcts, dd->qp->qpn & EMU_OBJ_INDEX_MASK, dd) != 0) {
        emu_engine_qp_destroy(dd->qp);
        free(dd);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    }
    dd->pdn = (uint32_t)PRM_GET(dctc, PRM_DCTC_PD);
    dd->cqn = (uint32_t)PRM_GET(dctc, PRM_DCTC_CQN);
    dd->user_index = p.user_index;
    devx_dct_count_cq(d, dd->cqn, 1);
    PRM_SET(c->out, PRM_CREATE_DCT_OUT_DCTN, dd->qp->qpn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_dct(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t dctn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_DCT_IN_DCTN);
    struct devx_dct *dd = devx_dct_find(d, dctn);

    if (dd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_DCT_UNKNOWN,
                         "no DCT with this number was made by CREATE_DCT");
    emu_engine_qp_destroy(dd->qp);
    devx_dct_count_cq(d, dd->cqn, -1);
    devx_map_remove(&d->dcts, dctn & EMU_OBJ_INDEX_MASK);
    free(dd);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_dct(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    struct devx_dct *dd = devx_dct_find(d, (uint32_t)PRM_GET(c->in, PRM_QUERY_DCT_IN_DCTN));
    void *dctc = devx_out_at(c, PRM_QUERY_DCT_OUT_DCTC);
    const struct emu_qp_attr *a;

    if (dd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_DCT_UNKNOWN,
                         "no DCT with this number was made by CREATE_DCT");
    a = &dd->qp->attr;
    PRM_SET(dctc, PRM_DCTC_STATE, PRM_DCTC_STATE_ACTIVE);
    PRM_SET(dctc, PRM_DCTC_USER_INDEX, dd->user_index);
    PRM_SET(dctc, PRM_DCTC_CQN, dd->cqn);
    PRM_SET(dctc, PRM_DCTC_RRE, a->remote_read);
    PRM_SET(dctc, PRM_DCTC_RWE, a->remote_write);
    PRM_SET(dctc, PRM_DCTC_RAE, a->remote_atomic);
    PRM_SET(dctc, PRM_DCTC_MIN_RNR_NAK, a->min_rnr_timer);
    PRM_SET(dctc, PRM_DCTC_SRQN_XRQN, dd->qp->p.srq->srqn);
    PRM_SET(dctc, PRM_DCTC_PD, dd->pdn);
    PRM_SET(dctc, PRM_DCTC_TCLASS, a->traffic_class);
    PRM_SET(dctc, PRM_DCTC_DC_ACCESS_KEY, dd->qp->dc.key);
    PRM_SET(dctc, PRM_DCTC_MTU, a->path_mtu);
    PRM_SET(dctc, PRM_DCTC_PORT, a->port);
    PRM_SET(dctc, PRM_DCTC_PKEY_INDEX, a->pkey_index);
    PRM_SET(dctc, PRM_DCTC_HOP_LIMIT, a->hop_limit);
    return PRM_CMD_STAT_OK;
}
