/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_RMP / DESTROY_RMP / QUERY_RMP: shared receive queues over DevX. An
 * RMP is the SRQ of the standard path (nic/srq.h): a ring of receive WQEs at
 * wq_umem_id + wq_umem_offset, and a doorbell record at dbr_addr inside
 * dbr_umem_id (or inside the ring's umem when dbr_umem_valid is 0). QPs take
 * it as rq_type SRQ with its number in srqn_rmpn_xrqn. CREATE_SRQ is not
 * implemented: its ring is a page list, which DevX users cannot give.
 */
#include <stdlib.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "nic/srq.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_srq.h"

#define DEVX_DBREC_SIZE         8
#define DEVX_SRQ_LOG_MIN_STRIDE 4 /* a WQE holds at least its 16-byte next segment */
#define DEVX_SRQ_LOG_MAX_STRIDE 9 /* 512-byte WQEs, as for RQs */

struct devx_srq *devx_srq_find(struct devx_dev *d, uint32_t srqn)
{
    struct devx_srq *ds = devx_map_get(&d->srqs, srqn & EMU_OBJ_INDEX_MASK);

    return ds != NULL && ds->srq->srqn == srqn ? ds : NULL;
}

/* Checks the RMP context; fills the sizes and the PD in p. */
static uint8_t devx_rmp_check(struct devx_cmd *c, const void *rmpc, struct emu_srq_params *p)
{
    const void *wq = (const uint8_t *)rmpc + PRM_RMPC_WQ;
    uint32_t wq_type = (uint32_t)PRM_GET(wq, PRM_WQ_WQ_TYPE);
    uint32_t log_stride = (uint32_t)PRM_GET(wq, PRM_WQ_LOG_WQ_STRIDE);
    struct emu_nic *nic = c->nic;

    if (PRM_GET(rmpc, PRM_RMPC_STATE) != PRM_RMPC_STATE_RDY)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_STATE,
                         "state: an RMP is created ready (RDY)");
    if (wq_type != PRM_WQ_TYPE_LINKED_LIST && wq_type != PRM_WQ_TYPE_CYCLIC)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_WQ_TYPE,
                         "wq_type: linked-list or cyclic receive queues only");
    if (PRM_GET(wq, PRM_WQ_LOG_WQ_SZ) > EMU_LOG_MAX_SRQ_SZ)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_LOG_SIZE,
                         "log_wq_sz above log_max_srq_sz");
    if (log_stride < DEVX_SRQ_LOG_MIN_STRIDE || log_stride > DEVX_SRQ_LOG_MAX_STRIDE)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_STRIDE,
                         "log_wq_stride: receive WQEs of 16 to 512 bytes");
    if (!PRM_GET(wq, PRM_WQ_WQ_UMEM_VALID))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_UMEM_INVALID,
                         "wq_umem_valid is 0: the ring must be in a umem (no page lists)");
    if (PRM_GET(wq, PRM_WQ_DBR_ADDR) % DEVX_DBREC_SIZE != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_DBR_ALIGN,
                         "dbr_addr is not 8-byte aligned");
    pthread_mutex_lock(&nic->lock);
    p->pd = emu_table_get(&nic->pds, (uint32_t)PRM_GET(wq, PRM_WQ_PD));
    pthread_mutex_unlock(&nic->lock);
    if (p->pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_SRQ_PD,
                         "pd names no protection domain");
    p->log_size = (uint32_t)PRM_GET(wq, PRM_WQ_LOG_WQ_SZ);
    p->log_stride = log_stride - DEVX_SRQ_LOG_MIN_STRIDE;
    return PRM_CMD_STAT_OK;
}

static uint8_t devx_rmp_umems(struct devx_cmd *c, const void *wq, struct emu_srq_params *p,
                              struct devx_srq *ds)
{
    uint32_t ring_id = (uint32_t)PRM_GET(wq, PRM_WQ_WQ_UMEM_ID);
    uint64_t ring_off = PRM_GET(wq, PRM_WQ_WQ_UMEM_OFFSET);
    uint64_t ring_len = ((uint64_t)16 << p->log_stride) << p->log_size;
    uint32_t dbr_id = PRM_GET(wq, PRM_WQ_DBR_UMEM_VALID) ? (uint32_t)PRM_GET(wq, PRM_WQ_DBR_UMEM_ID)
                                                         : ring_id;
    uint64_t dbr_off = PRM_GET(wq, PRM_WQ_DBR_ADDR);
    enum emu_umem_check r;

    r = emu_umem_get(c->nic, ring_id, ring_off, ring_len, &p->ring, &p->ring_gpu, &ds->wq_umem);
    if (r == EMU_UMEM_BAD_ID)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_SRQ_UMEM_ID,
                         "wq_umem_id names no registered umem");
    if (r != EMU_UMEM_OK)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_UMEM_RANGE,
                         "the ring (wq_umem_offset + WQEs << log_wq_sz) overflows its umem");
    r = emu_umem_get(c->nic, dbr_id, dbr_off, DEVX_DBREC_SIZE, &p->dbrec, &p->dbrec_gpu,
                     &ds->dbr_umem);
    if (r != EMU_UMEM_OK) {
        emu_umem_put(ds->wq_umem);
        if (r == EMU_UMEM_BAD_ID)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_SRQ_DBR_UMEM_ID,
                             "dbr_umem_id names no registered umem");
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_SRQ_DBR_RANGE,
                         "the doorbell record (dbr_addr + 8) overflows its umem");
    }
    ds->wq_umem_id = ring_id;
    ds->wq_offset = ring_off;
    ds->dbr_umem_id = dbr_id;
    ds->dbr_offset = dbr_off;
    return PRM_CMD_STAT_OK;
}

uint8_t devx_create_rmp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    const void *rmpc = devx_in_at(c, PRM_CREATE_RMP_IN_RMPC);
    const void *wq = devx_in_at(c, PRM_CREATE_RMP_IN_RMPC + PRM_RMPC_WQ);
    struct emu_srq_params p = {0};
    struct devx_srq *ds;
    struct emu_srq *srq;
    uint8_t status;

    status = devx_rmp_check(c, rmpc, &p);
    if (status != PRM_CMD_STAT_OK)
        return status;
    ds = calloc(1, sizeof(*ds));
    if (ds == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    status = devx_rmp_umems(c, wq, &p, ds);
    if (status != PRM_CMD_STAT_OK)
        goto free_ds;
    if (emu_srq_create(c->nic, &p, &srq) != 0) {
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                           "the device has no free SRQ");
        goto put_umems;
    }
    ds->srq = srq;
    ds->pdn = (uint32_t)PRM_GET(wq, PRM_WQ_PD);
    ds->wq_type = (uint8_t)PRM_GET(wq, PRM_WQ_WQ_TYPE);
    if (devx_map_set(&d->srqs, srq->srqn & EMU_OBJ_INDEX_MASK, ds) != 0) {
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
        emu_engine_srq_destroy(srq);
        goto put_umems;
    }
    PRM_SET(c->out, PRM_CREATE_RMP_OUT_RMPN, srq->srqn);
    return PRM_CMD_STAT_OK;

put_umems:
    emu_umem_put(ds->dbr_umem);
    emu_umem_put(ds->wq_umem);
free_ds:
    free(ds);
    return status;
}

uint8_t devx_destroy_rmp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t srqn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_RMP_IN_RMPN);
    struct devx_srq *ds = devx_srq_find(d, srqn);

    if (ds == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_SRQ_UNKNOWN,
                         "no RMP with this number was made by CREATE_RMP");
    if (emu_engine_srq_destroy(ds->srq) != 0)
        return devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_SRQ_BUSY,
                         "QPs still receive through this RMP; destroy them first");
    devx_map_remove(&d->srqs, srqn & EMU_OBJ_INDEX_MASK);
    emu_umem_put(ds->dbr_umem);
    emu_umem_put(ds->wq_umem);
    free(ds);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_rmp(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t srqn = (uint32_t)PRM_GET(c->in, PRM_QUERY_RMP_IN_RMPN);
    struct devx_srq *ds = devx_srq_find(d, srqn);
    void *rmpc = devx_out_at(c, PRM_QUERY_RMP_OUT_RMPC);
    void *wq = devx_out_at(c, PRM_QUERY_RMP_OUT_RMPC + PRM_RMPC_WQ);
    struct emu_srq *srq;
    uint32_t consumer;

    if (ds == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_SRQ_UNKNOWN,
                         "no RMP with this number was made by CREATE_RMP");
    srq = ds->srq;
    pthread_mutex_lock(&srq->lock);
    consumer = srq->consumer;
    pthread_mutex_unlock(&srq->lock);
    PRM_SET(rmpc, PRM_RMPC_STATE, PRM_RMPC_STATE_RDY);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, ds->wq_type);
    PRM_SET(wq, PRM_WQ_PD, ds->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, ds->dbr_offset);
    PRM_SET(wq, PRM_WQ_HW_COUNTER, consumer);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, srq->p.log_stride + DEVX_SRQ_LOG_MIN_STRIDE);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, srq->p.log_size);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, ds->dbr_umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, ds->wq_umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, ds->wq_offset);
    return PRM_CMD_STAT_OK;
}
