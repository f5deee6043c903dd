/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_SQ / MODIFY_SQ / QUERY_SQ / DESTROY_SQ: raw Ethernet send queues
 * (nic/eth.h). A cyclic ring of 64-byte basic blocks (log_wq_stride 6) at
 * wq_umem_id + wq_umem_offset, its doorbell record at dbr_addr (the send
 * counter in word 1), rung through uar_page; completions on a DevX CQ;
 * frames leave through the device's Ethernet port (engine/eth_port.c).
 * States RST, RDY, ERR: any state to RST or ERR, RST to RDY, RDY to RDY.
 */
#include <stdlib.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "nic/uar.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

#define DEVX_SQ_LOG_STRIDE 6 /* 64-byte basic blocks */

static uint8_t devx_sq_check(struct devx_cmd *c, struct eth_dev *d, const void *sqc,
                             struct devx_cq **dcq)
{
    const void *wq = (const uint8_t *)sqc + PRM_SQC_WQ;
    uint8_t status;

    if (PRM_GET(sqc, PRM_SQC_STATE) != PRM_WQ_STATE_RST)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_STATE,
                         "state: an SQ is created in RST");
    if (PRM_GET(wq, PRM_WQ_WQ_TYPE) != PRM_WQ_TYPE_CYCLIC)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_WQ_TYPE,
                         "wq_type: send queues are cyclic");
    if (PRM_GET(wq, PRM_WQ_LOG_WQ_STRIDE) != DEVX_SQ_LOG_STRIDE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_STRIDE,
                         "log_wq_stride: 6 (64-byte basic blocks)");
    status = devx_eth_wq_check_cq(c, wq, (uint32_t)PRM_GET(sqc, PRM_SQC_CQN), dcq);
    if (status != PRM_CMD_STAT_OK)
        return status;
    if (emu_eth_tis_find(d, (uint32_t)PRM_GET(sqc, PRM_SQC_TIS_NUM_0)) == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TIS,
                         "tis_num_0 names no TIS made by CREATE_TIS");
    return PRM_CMD_STAT_OK;
}

/*
 * The checks made outside the eth lock, after devx_sq_check's: the PD and
 * UAR tables have locks of their own, which the engine takes before the
 * eth lock (the device's start).
 */
static uint8_t devx_sq_check_unlocked(struct devx_cmd *c, const void *sqc)
{
    const void *wq = (const uint8_t *)sqc + PRM_SQC_WQ;
    uint8_t status = devx_eth_wq_check_pd(c, wq);

    if (status != PRM_CMD_STAT_OK)
        return status;
    if (emu_uar_lookup(c->nic, (uint32_t)PRM_GET(wq, PRM_WQ_UAR_PAGE)) == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_UAR,
                         "uar_page is not an allocated UAR");
    return PRM_CMD_STAT_OK;
}

static void devx_sq_fill(struct emu_eth_sq *sq, const void *sqc)
{
    const void *wq = (const uint8_t *)sqc + PRM_SQC_WQ;

    sq->cqn = (uint32_t)PRM_GET(sqc, PRM_SQC_CQN);
    sq->tisn = (uint32_t)PRM_GET(sqc, PRM_SQC_TIS_NUM_0);
    sq->user_index = (uint32_t)PRM_GET(sqc, PRM_SQC_USER_INDEX);
    sq->min_inline_mode = (uint8_t)PRM_GET(sqc, PRM_SQC_MIN_WQE_INLINE_MODE);
    sq->uar_page = (uint32_t)PRM_GET(wq, PRM_WQ_UAR_PAGE);
    devx_eth_wq_decode(wq, DEVX_SQ_LOG_STRIDE, &sq->wqc, &sq->r);
}

uint8_t devx_create_sq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    const void *sqc = devx_in_at(c, PRM_CREATE_SQ_IN_SQC);
    struct devx_cq *dcq = NULL;
    struct emu_umem *ring_umem, *dbr_umem;
    struct emu_eth_sq *sq;
    struct emu_uar_sq bind;
    uint8_t status;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    status = devx_sq_check(c, d, sqc, &dcq);
    pthread_mutex_unlock(&d->lock);
    if (status == PRM_CMD_STAT_OK)
        status = devx_sq_check_unlocked(c, sqc);
    if (status != PRM_CMD_STAT_OK)
        return status;
    sq = calloc(1, sizeof(*sq));
    if (sq == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    sq->nic = c->nic;
    devx_sq_fill(sq, sqc);
    status = devx_eth_wq_umems(c, (const uint8_t *)sqc + PRM_SQC_WQ, (uint64_t)64 << sq->r.log_size,
                               &sq->r, &ring_umem, &dbr_umem);
    if (status != PRM_CMD_STAT_OK) {
        free(sq);
        return status;
    }
    sq->umem_ring = ring_umem;
    sq->umem_dbr = dbr_umem;
    sq->cq = dcq->cq;
    pthread_mutex_lock(&d->lock);
    sq->sqn = emu_eth_wq_insert(d, c->nic, sq, true);
    if (sq->sqn != 0) {
        emu_eth_tis_find(d, sq->tisn)->refs++;
        d->sqs++;
        sq->next = d->sq_list;
        d->sq_list = sq;
    }
    pthread_mutex_unlock(&d->lock);
    if (sq->sqn == 0) {
        emu_umem_put(dbr_umem);
        emu_umem_put(ring_umem);
        free(sq);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free SQ or RQ number");
    }
    dcq->qps++;
    pthread_mutex_lock(&c->nic->lock);
    sq->cq->users++;
    pthread_mutex_unlock(&c->nic->lock);
    bind = (struct emu_uar_sq){.num = sq->sqn,
                               .dbrec = sq->r.dbrec,
                               .dbrec_gpu = sq->r.dbrec_gpu,
                               .ring = emu_engine_eth_sq_rung,
                               .obj = sq};
    sq->uar_bound = emu_uar_sq_bind(emu_uar_lookup(c->nic, sq->uar_page), &bind) == 0;
    if (sq->uar_bound)
        emu_engine_uar_watch(c->nic, true);
    PRM_SET(c->out, PRM_CREATE_SQ_OUT_SQN, sq->sqn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_modify_sq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t sqn = (uint32_t)PRM_GET(c->in, PRM_MODIFY_SQ_IN_SQN);
    uint8_t from = (uint8_t)PRM_GET(c->in, PRM_MODIFY_SQ_IN_SQ_STATE);
    uint8_t to = (uint8_t)PRM_GET(devx_in_at(c, PRM_MODIFY_SQ_IN_SQC), PRM_SQC_STATE);
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_sq *sq = devx_eth_wq_lock(c, d, sqn, true, &status);
    bool kick = false;

    if (sq == NULL)
        return status;
    if (sq->state != from || !devx_eth_wq_transition_ok(from, to)) {
        pthread_mutex_unlock(&d->lock);
        return devx_fail(c, PRM_CMD_STAT_BAD_RES_STATE, DEVX_SYND_ETH_TRANSITION,
                         "sq_state is not the SQ's state, or no such transition (any to RST or "
                         "ERR, RST to RDY, RDY to RDY)");
    }
    if (to == PRM_WQ_STATE_RST) {
        /* Counters start again from 0, as after a reset of the hardware queue. */
        sq->consumer = 0;
        __atomic_store_n(&sq->posted, 0, __ATOMIC_RELAXED);
        sq->ahead_count = 0;
        sq->stalled = false;
    }
    kick = to == PRM_WQ_STATE_RDY;
    sq->state = to;
    pthread_mutex_unlock(&d->lock);
    if (kick)
        emu_engine_eth_kick(c->nic);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_sq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t sqn = (uint32_t)PRM_GET(c->in, PRM_QUERY_SQ_IN_SQN);
    void *sqc = devx_out_at(c, PRM_QUERY_SQ_OUT_SQC);
    void *wq = (uint8_t *)sqc + PRM_SQC_WQ;
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_sq *sq = devx_eth_wq_lock(c, d, sqn, true, &status);

    if (sq == NULL)
        return status;
    PRM_SET(sqc, PRM_SQC_STATE, sq->state);
    PRM_SET(sqc, PRM_SQC_MIN_WQE_INLINE_MODE, sq->min_inline_mode);
    PRM_SET(sqc, PRM_SQC_USER_INDEX, sq->user_index);
    PRM_SET(sqc, PRM_SQC_CQN, sq->cqn);
    PRM_SET(sqc, PRM_SQC_TIS_LST_SZ, 1);
    PRM_SET(sqc, PRM_SQC_TIS_NUM_0, sq->tisn);
    PRM_SET(wq, PRM_WQ_UAR_PAGE, sq->uar_page);
    devx_eth_wq_encode(wq, &sq->wqc, &sq->r, sq->consumer & 0xffff,
                       __atomic_load_n(&sq->posted, __ATOMIC_RELAXED));
    pthread_mutex_unlock(&d->lock);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_sq(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t sqn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_SQ_IN_SQN);
    uint8_t status = PRM_CMD_STAT_OK;
    struct emu_eth_sq *sq = devx_eth_wq_lock(c, d, sqn, true, &status);
    struct devx_cq *dcq;
    struct emu_eth_tis *tis;

    if (sq == NULL)
        return status;
    pthread_mutex_unlock(&d->lock);
    /* Its doorbells are no longer watched (the UAR lock is not taken under the eth lock). */
    if (sq->uar_bound) {
        emu_uar_sq_unbind(c->nic, sq);
        emu_engine_uar_watch(c->nic, false);
    }
    pthread_mutex_lock(&d->lock);
    emu_eth_wq_remove(d, sqn);
    tis = emu_eth_tis_find(d, sq->tisn);
    if (tis != NULL)
        tis->refs--;
    d->sqs--;
    for (struct emu_eth_sq **at = &d->sq_list; *at != NULL; at = &(*at)->next) {
        if (*at == sq) {
            *at = sq->next;
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
    dcq = devx_cq_find(devx_dev_of(c->nic), sq->cqn);
    if (dcq != NULL)
        dcq->qps--;
    pthread_mutex_lock(&c->nic->lock);
    sq->cq->users--;
    pthread_mutex_unlock(&c->nic->lock);
    emu_umem_put(sq->umem_dbr);
    emu_umem_put(sq->umem_ring);
    free(sq->ahead);
    free(sq);
    return PRM_CMD_STAT_OK;
}
