/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_RQ / MODIFY_RQ / QUERY_RQ / DESTROY_RQ: raw Ethernet receive
 * queues (nic/eth.h). A cyclic ring of receive WQEs of one 16-byte data
 * segment (log_wq_stride 4) at wq_umem_id + wq_umem_offset, the receive
 * counter in word 0 of the doorbell record; mem_rq_type inline (no RMP);
 * receive CQEs on a DevX CQ; counter_set_id a Q counter (0: none). Frames
 * come from the Ethernet port through steering and a TIR.
 */
#include <stdlib.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

#define DEVX_RQ_LOG_STRIDE 4 /* one data segment per receive WQE */

static uint8_t devx_rq_check(struct devx_cmd *c, struct eth_dev *d, const void *rqc,
                             struct devx_cq **dcq)
{
    const void *wq = (const uint8_t *)rqc + PRM_RQC_WQ;
    uint32_t counter = (uint32_t)PRM_GET(rqc, PRM_RQC_COUNTER_SET_ID);
    uint8_t status;

    if (PRM_GET(rqc, PRM_RQC_STATE) != PRM_WQ_STATE_RST)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_STATE,
                         "state: an RQ is created in RST");
    if (PRM_GET(rqc, PRM_RQC_MEM_RQ_TYPE) != PRM_RQC_MEM_RQ_TYPE_INLINE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_MEM_RQ_TYPE,
                         "mem_rq_type: inline receive queues only (no RMP)");
    if (PRM_GET(wq, PRM_WQ_WQ_TYPE) != PRM_WQ_TYPE_CYCLIC)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_WQ_TYPE,
                         "wq_type: cyclic receive queues only (no linked list, no striding)");
    if (PRM_GET(wq, PRM_WQ_LOG_WQ_STRIDE) != DEVX_RQ_LOG_STRIDE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_STRIDE,
                         "log_wq_stride: 4 (one 16-byte data segment per receive WQE)");
    status = devx_eth_wq_check_cq(c, wq, (uint32_t)PRM_GET(rqc, PRM_RQC_CQN), dcq);
    if (status != PRM_CMD_STAT_OK)
        return status;
    if (counter != 0 && (counter > EMU_ETH_MAX_QCOUNTERS || !d->qcounter_used[counter]))
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_COUNTER,
                         "counter_set_id names no Q counter made by ALLOC_Q_COUNTER");
    return PRM_CMD_STAT_OK;
}

uint8_t devx_create_rq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    const void *rqc = devx_in_at(c, PRM_CREATE_RQ_IN_RQC);
    const void *wq = (const uint8_t *)rqc + PRM_RQC_WQ;
    struct devx_cq *dcq = NULL;
    struct emu_umem *ring_umem, *dbr_umem;
    struct emu_eth_rq *rq;
    uint8_t status;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    status = devx_rq_check(c, d, rqc, &dcq);
    pthread_mutex_unlock(&d->lock);
    /* The PD table's lock is taken outside the eth lock (the engine takes it first). */
    if (status == PRM_CMD_STAT_OK)
        status = devx_eth_wq_check_pd(c, wq);
    if (status != PRM_CMD_STAT_OK)
        return status;
    rq = calloc(1, sizeof(*rq));
    if (rq == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    rq->nic = c->nic;
    rq->cqn = (uint32_t)PRM_GET(rqc, PRM_RQC_CQN);
    rq->user_index = (uint32_t)PRM_GET(rqc, PRM_RQC_USER_INDEX);
    rq->counter_set_id = (uint8_t)PRM_GET(rqc, PRM_RQC_COUNTER_SET_ID);
    rq->vsd = PRM_GET(rqc, PRM_RQC_VSD) != 0;
    devx_eth_wq_decode(wq, DEVX_RQ_LOG_STRIDE, &rq->wqc, &rq->r);
    status =
            devx_eth_wq_umems(c, wq, (uint64_t)16 << rq->r.log_size, &rq->r, &ring_umem, &dbr_umem);
    if (status != PRM_CMD_STAT_OK) {
        free(rq);
        return status;
    }
    rq->umem_ring = ring_umem;
    rq->umem_dbr = dbr_umem;
    rq->cq = dcq->cq;
    pthread_mutex_lock(&d->lock);
    rq->rqn = emu_eth_wq_insert(d, c->nic, rq, false);
    pthread_mutex_unlock(&d->lock);
    if (rq->rqn == 0) {
        emu_umem_put(dbr_umem);
        emu_umem_put(ring_umem);
        free(rq);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free SQ or RQ number");
    }
    dcq->qps++;
    pthread_mutex_lock(&c->nic->lock);
    rq->cq->users++;
    pthread_mutex_unlock(&c->nic->lock);
    PRM_SET(c->out, PRM_CREATE_RQ_OUT_RQN, rq->rqn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_modify_rq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t rqn = (uint32_t)PRM_GET(c->in, PRM_MODIFY_RQ_IN_RQN);
    uint8_t from = (uint8_t)PRM_GET(c->in, PRM_MODIFY_RQ_IN_RQ_STATE);
    const void *rqc = devx_in_at(c, PRM_MODIFY_RQ_IN_RQC);
    uint8_t to = (uint8_t)PRM_GET(rqc, PRM_RQC_STATE);
    uint64_t bitmask = PRM_GET(c->in, PRM_MODIFY_RQ_IN_MODIFY_BITMASK);
    uint32_t counter = (uint32_t)PRM_GET(rqc, PRM_RQC_COUNTER_SET_ID);
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_rq *rq = devx_eth_wq_lock(c, d, rqn, false, &status);

    if (rq == NULL)
        return status;
    if (rq->state != from || !devx_eth_wq_transition_ok(from, to)) {
        pthread_mutex_unlock(&d->lock);
        return devx_fail(c, PRM_CMD_STAT_BAD_RES_STATE, DEVX_SYND_ETH_TRANSITION,
                         "rq_state is not the RQ's state, or no such transition (any to RST or "
                         "ERR, RST to RDY, RDY to RDY)");
    }
    if ((bitmask & PRM_MODIFY_RQ_BITMASK_COUNTER_SET_ID) && counter != 0 &&
        (counter > EMU_ETH_MAX_QCOUNTERS || !d->qcounter_used[counter])) {
        pthread_mutex_unlock(&d->lock);
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_COUNTER,
                         "counter_set_id names no Q counter made by ALLOC_Q_COUNTER");
    }
    if (bitmask & PRM_MODIFY_RQ_BITMASK_COUNTER_SET_ID)
        rq->counter_set_id = (uint8_t)counter;
    if (bitmask & PRM_MODIFY_RQ_BITMASK_VSD)
        rq->vsd = PRM_GET(rqc, PRM_RQC_VSD) != 0;
    if (to == PRM_WQ_STATE_RST) {
        rq->consumer = 0;
        rq->posted = 0;
        rq->ahead_count = 0;
    }
    rq->state = to;
    pthread_mutex_unlock(&d->lock);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_rq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t rqn = (uint32_t)PRM_GET(c->in, PRM_QUERY_RQ_IN_RQN);
    void *rqc = devx_out_at(c, PRM_QUERY_RQ_OUT_RQC);
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_rq *rq = devx_eth_wq_lock(c, d, rqn, false, &status);

    if (rq == NULL)
        return status;
    PRM_SET(rqc, PRM_RQC_VSD, rq->vsd);
    PRM_SET(rqc, PRM_RQC_MEM_RQ_TYPE, PRM_RQC_MEM_RQ_TYPE_INLINE);
    PRM_SET(rqc, PRM_RQC_STATE, rq->state);
    PRM_SET(rqc, PRM_RQC_USER_INDEX, rq->user_index);
    PRM_SET(rqc, PRM_RQC_CQN, rq->cqn);
    PRM_SET(rqc, PRM_RQC_COUNTER_SET_ID, rq->counter_set_id);
    devx_eth_wq_encode((uint8_t *)rqc + PRM_RQC_WQ, &rq->wqc, &rq->r, rq->consumer & 0xffff,
                       rq->posted & 0xffff);
    pthread_mutex_unlock(&d->lock);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_rq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t rqn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_RQ_IN_RQN);
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_rq *rq = devx_eth_wq_lock(c, d, rqn, false, &status);
    struct devx_cq *dcq;

    if (rq == NULL)
        return status;
    if (rq->refs != 0) {
        pthread_mutex_unlock(&d->lock);
        return devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_ETH_BUSY,
                         "TIRs or RQTs still name this RQ; destroy them first");
    }
    emu_eth_wq_remove(d, rqn);
    pthread_mutex_unlock(&d->lock);
    dcq = devx_cq_find(devx_dev_of(c->nic), rq->cqn);
    if (dcq != NULL)
        dcq->qps--;
    pthread_mutex_lock(&c->nic->lock);
    rq->cq->users--;
    pthread_mutex_unlock(&c->nic->lock);
    emu_umem_put(rq->umem_dbr);
    emu_umem_put(rq->umem_ring);
    free(rq->ahead);
    free(rq);
    return PRM_CMD_STAT_OK;
}
