/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What raw Ethernet SQs and RQs share (their PRM wq context): the ring and doorbell record in
 * umems, the checks, decoding and QUERY encoding of the context, the state transitions, and the
 * lookup of a queue under the eth lock.
 */
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

#define DEVX_DBREC_SIZE 8

uint8_t devx_eth_wq_umems(struct devx_cmd *c, const void *wq, uint64_t ring_len,
                          struct emu_eth_ring *r, struct emu_umem **ring_umem,
                          struct emu_umem **dbr_umem)
{
    uint32_t ring_id = (uint32_t)PRM_GET(wq, PRM_WQ_WQ_UMEM_ID);
    uint64_t ring_off = PRM_GET(wq, PRM_WQ_WQ_UMEM_OFFSET);
    uint32_t dbr_id = PRM_GET(wq, PRM_WQ_DBR_UMEM_VALID) ? (uint32_t)PRM_GET(wq, PRM_WQ_DBR_UMEM_ID)
                                                         : ring_id;
    uint64_t dbr_off = PRM_GET(wq, PRM_WQ_DBR_ADDR);
    enum emu_umem_check k;

    if (!PRM_GET(wq, PRM_WQ_WQ_UMEM_VALID))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_UMEM_INVALID,
                         "wq_umem_valid is 0: the ring must be in a umem (no page lists)");
    if (dbr_off % DEVX_DBREC_SIZE != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_DBR_ALIGN,
                         "dbr_addr is not 8-byte aligned");
    k = emu_umem_get(c->nic, ring_id, ring_off, ring_len, &r->ring, &r->ring_gpu, ring_umem);
    if (k == EMU_UMEM_BAD_ID)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_UMEM_ID,
                         "wq_umem_id names no registered umem");
    if (k != EMU_UMEM_OK)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_UMEM_RANGE,
                         "the ring (wq_umem_offset + stride << log_wq_sz) overflows its umem");
    k = emu_umem_get(c->nic, dbr_id, dbr_off, DEVX_DBREC_SIZE, &r->dbrec, &r->dbrec_gpu, dbr_umem);
    if (k != EMU_UMEM_OK) {
        emu_umem_put(*ring_umem);
        if (k == EMU_UMEM_BAD_ID)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_DBR_UMEM_ID,
                             "dbr_umem_id names no registered umem");
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_DBR_RANGE,
                         "the doorbell record (dbr_addr + 8) overflows its umem");
    }
    return PRM_CMD_STAT_OK;
}

bool devx_eth_wq_transition_ok(uint8_t from, uint8_t to)
{
    if (to == PRM_WQ_STATE_RST || to == PRM_WQ_STATE_ERR)
        return from == PRM_WQ_STATE_RST || from == PRM_WQ_STATE_RDY || from == PRM_WQ_STATE_ERR;
    return to == PRM_WQ_STATE_RDY && (from == PRM_WQ_STATE_RST || from == PRM_WQ_STATE_RDY);
}

uint8_t devx_eth_wq_check_cq(struct devx_cmd *c, const void *wq, uint32_t cqn, struct devx_cq **dcq)
{
    if (PRM_GET(wq, PRM_WQ_LOG_WQ_SZ) > EMU_LOG_MAX_QP_SZ)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_LOG_SIZE,
                         "log_wq_sz above log_max_wq_sz");
    *dcq = devx_cq_find(devx_dev_of(c->nic), cqn);
    if (*dcq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_CQN,
                         "cqn names no CQ made by CREATE_CQ");
    return PRM_CMD_STAT_OK;
}

uint8_t devx_eth_wq_check_pd(struct devx_cmd *c, const void *wq)
{
    struct emu_nic *nic = c->nic;
    void *pd;

    pthread_mutex_lock(&nic->lock);
    pd = emu_table_get(&nic->pds, (uint32_t)PRM_GET(wq, PRM_WQ_PD));
    pthread_mutex_unlock(&nic->lock);
    if (pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_PD,
                         "pd names no protection domain");
    return PRM_CMD_STAT_OK;
}

void devx_eth_wq_decode(const void *wq, uint32_t log_stride, struct emu_eth_wqc *w,
                        struct emu_eth_ring *r)
{
    w->pdn = (uint32_t)PRM_GET(wq, PRM_WQ_PD);
    r->log_size = (uint32_t)PRM_GET(wq, PRM_WQ_LOG_WQ_SZ);
    r->log_stride = log_stride;
    w->dbr_offset = PRM_GET(wq, PRM_WQ_DBR_ADDR);
    w->wq_umem_id = (uint32_t)PRM_GET(wq, PRM_WQ_WQ_UMEM_ID);
    w->wq_offset = PRM_GET(wq, PRM_WQ_WQ_UMEM_OFFSET);
    w->dbr_umem_id = PRM_GET(wq, PRM_WQ_DBR_UMEM_VALID) ? (uint32_t)PRM_GET(wq, PRM_WQ_DBR_UMEM_ID)
                                                        : w->wq_umem_id;
}

void devx_eth_wq_encode(void *wq, const struct emu_eth_wqc *w, const struct emu_eth_ring *r,
                        uint32_t hw_counter, uint32_t sw_counter)
{
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, w->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, w->dbr_offset);
    PRM_SET(wq, PRM_WQ_HW_COUNTER, hw_counter);
    PRM_SET(wq, PRM_WQ_SW_COUNTER, sw_counter);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, r->log_stride);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, r->log_size);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, w->dbr_umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, w->wq_umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, w->wq_offset);
}

void *devx_eth_wq_lock(struct devx_cmd *c, struct eth_dev *d, uint32_t n, bool sq, uint8_t *status)
{
    void *q;

    if (d == NULL) {
        *status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&d->lock);
    q = sq ? (void *)emu_eth_sq_find(d, c->nic, n) : (void *)emu_eth_rq_find(d, c->nic, n);
    if (q == NULL) {
        pthread_mutex_unlock(&d->lock);
        *status = sq ? devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_SQ_UNKNOWN,
                                 "no SQ with this number was made by CREATE_SQ")
                     : devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_RQ_UNKNOWN,
                                 "no RQ with this number was made by CREATE_RQ");
    }
    return q;
}
