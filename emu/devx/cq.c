/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_CQ / DESTROY_CQ / QUERY_CQ. The ring and the doorbell record are in
 * umems: the ring at cq_umem_id + cq_umem_offset, the record at dbr_addr
 * inside dbr_umem_id (or inside the ring's umem when dbr_umem_valid is 0).
 * The CQ is armed through its uar_page's CQ doorbell, or at creation by
 * cqc.st; QUERY_CQ reports st.
 */
#include <stdlib.h>

#include "common/emu_log.h"
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/nic.h"
#include "nic/uar.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"

#define DEVX_DBREC_SIZE 8

/* PRM cqc.st at creation */
#define DEVX_CQ_ST_NOT_ARMED     0x0
#define DEVX_CQ_ST_SOLICITED_ARM 0x6
#define DEVX_CQ_ST_ARMED         0x9
#define DEVX_CQ_ST_FIRED         0xa

struct devx_cq *devx_cq_find(struct devx_dev *d, uint32_t cqn)
{
    struct devx_cq *dcq = devx_map_get(&d->cqs, cqn & EMU_OBJ_INDEX_MASK);

    return dcq != NULL && dcq->cq->cqn == cqn ? dcq : NULL;
}

/* Checks the CQ context; fills the ring and record in p. */
static uint8_t devx_cq_check(struct devx_cmd *c, const void *cqc, struct emu_cq_params *p)
{
    if (PRM_GET(cqc, PRM_CQC_CQE_SZ) != PRM_CQC_CQE_SZ_64)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_CQE_SIZE,
                         "cqe_sz: the device writes 64-byte CQEs only");
    if (PRM_GET(cqc, PRM_CQC_CQE_COMP_EN))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_COMPRESSION,
                         "cqe_comp_en: CQE compression is not supported");
    if (PRM_GET(cqc, PRM_CQC_LOG_CQ_SIZE) > EMU_LOG_MAX_CQ_SZ)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_LOG_SIZE,
                         "log_cq_size above log_max_cq_sz");
    if (PRM_GET(cqc, PRM_CQC_C_EQN) != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_EQN,
                         "c_eqn: the device has one event queue, number 0");
    if (emu_uar_lookup(c->nic, (uint32_t)PRM_GET(cqc, PRM_CQC_UAR_PAGE)) == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_UAR,
                         "uar_page is not an allocated UAR");
    switch (PRM_GET(cqc, PRM_CQC_ST)) {
    case DEVX_CQ_ST_NOT_ARMED:
    case DEVX_CQ_ST_SOLICITED_ARM:
    case DEVX_CQ_ST_ARMED:
    case DEVX_CQ_ST_FIRED:
        break;
    default:
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_ST,
                         "st: 0x0 (not armed), 0x6 (solicited armed), 0x9 (armed) or 0xa (fired)");
    }
    if (!PRM_GET(c->in, PRM_CREATE_CQ_IN_CQ_UMEM_VALID))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_UMEM_INVALID,
                         "cq_umem_valid is 0: the ring must be in a umem (no page lists)");
    p->log_size = (uint32_t)PRM_GET(cqc, PRM_CQC_LOG_CQ_SIZE);
    p->overrun_ignore = PRM_GET(cqc, PRM_CQC_OI) != 0;
    p->collapsed = PRM_GET(cqc, PRM_CQC_CC) != 0;
    p->uar_page = (uint32_t)PRM_GET(cqc, PRM_CQC_UAR_PAGE);
    return PRM_CMD_STAT_OK;
}

static uint8_t devx_cq_umems(struct devx_cmd *c, const void *cqc, struct emu_cq_params *p,
                             struct devx_cq *dcq)
{
    uint32_t ring_id = (uint32_t)PRM_GET(c->in, PRM_CREATE_CQ_IN_CQ_UMEM_ID);
    uint64_t ring_off = PRM_GET(c->in, PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET);
    uint64_t ring_len = ((uint64_t)1 << p->log_size) * EMU_CQE_SIZE;
    uint32_t dbr_id = PRM_GET(cqc, PRM_CQC_DBR_UMEM_VALID)
                              ? (uint32_t)PRM_GET(cqc, PRM_CQC_DBR_UMEM_ID)
                              : ring_id;
    uint64_t dbr_off = PRM_GET(cqc, PRM_CQC_DBR_ADDR);
    enum emu_umem_check r;

    if (dbr_off % DEVX_DBREC_SIZE != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_DBR_ALIGN,
                         "dbr_addr is not 8-byte aligned");
    r = emu_umem_get(c->nic, ring_id, ring_off, ring_len, &p->ring, &p->ring_gpu, &dcq->ring_umem);
    if (r == EMU_UMEM_BAD_ID)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_UMEM_ID,
                         "cq_umem_id names no registered umem");
    if (r != EMU_UMEM_OK)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_UMEM_RANGE,
                         "the CQE ring (cq_umem_offset + 64 << log_cq_size) overflows its umem");
    r = emu_umem_get(c->nic, dbr_id, dbr_off, DEVX_DBREC_SIZE, &p->dbrec, &p->dbrec_gpu,
                     &dcq->dbr_umem);
    if (r != EMU_UMEM_OK) {
        emu_umem_put(dcq->ring_umem);
        if (r == EMU_UMEM_BAD_ID)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_DBR_UMEM_ID,
                             "dbr_umem_id names no registered umem");
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CQ_DBR_RANGE,
                         "the doorbell record (dbr_addr + 8) overflows its umem");
    }
    dcq->dbr_umem_id = dbr_id;
    dcq->dbr_offset = dbr_off;
    return PRM_CMD_STAT_OK;
}

uint8_t devx_create_cq(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    const void *cqc = devx_in_at(c, PRM_CREATE_CQ_IN_CQC);
    struct emu_cq_params p = {0};
    struct emu_uar *uar;
    struct devx_cq *dcq;
    struct emu_cq *cq;
    uint8_t status;
    int err;

    status = devx_cq_check(c, cqc, &p);
    if (status != PRM_CMD_STAT_OK)
        return status;
    dcq = calloc(1, sizeof(*dcq));
    if (dcq == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    status = devx_cq_umems(c, cqc, &p, dcq);
    if (status != PRM_CMD_STAT_OK)
        goto free_dcq;
    err = emu_cq_create(c->nic, &p, &cq);
    if (err != 0) {
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                           "the device has no free CQ");
        goto put_umems;
    }
    dcq->cq = cq;
    dcq->uar_page = (uint32_t)PRM_GET(cqc, PRM_CQC_UAR_PAGE);
    dcq->eqn = (uint32_t)PRM_GET(cqc, PRM_CQC_C_EQN);
    uar = emu_uar_lookup(c->nic, p.uar_page);
    if (uar == NULL || emu_uar_cq_bind(uar, cq) != 0) {
        status = uar == NULL ? devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_UAR,
                                         "uar_page was freed while the CQ was made")
                             : devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                                         "out of memory");
        goto destroy_cq;
    }
    if (devx_map_set(&d->cqs, cq->cqn & EMU_OBJ_INDEX_MASK, dcq) != 0) {
        status = devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
        goto unbind;
    }
    emu_engine_uar_watch(c->nic, true);
    /* st: armed from the start, with nothing consumed yet. */
    if (PRM_GET(cqc, PRM_CQC_ST) == DEVX_CQ_ST_SOLICITED_ARM ||
        PRM_GET(cqc, PRM_CQC_ST) == DEVX_CQ_ST_ARMED)
        emu_cq_arm(cq, PRM_GET(cqc, PRM_CQC_ST) == DEVX_CQ_ST_SOLICITED_ARM, 0);
    PRM_SET(c->out, PRM_CREATE_CQ_OUT_CQN, cq->cqn);
    return PRM_CMD_STAT_OK;

unbind:
    emu_uar_cq_unbind(cq);
destroy_cq:
    emu_cq_destroy(cq);
put_umems:
    emu_umem_put(dcq->dbr_umem);
    emu_umem_put(dcq->ring_umem);
free_dcq:
    free(dcq);
    return status;
}

uint8_t devx_destroy_cq(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t cqn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_CQ_IN_CQN);
    struct devx_cq *dcq = devx_cq_find(d, cqn);
    int err;

    if (dcq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_UNKNOWN,
                         "no CQ with this number was made by CREATE_CQ");
    if (dcq->qps != 0)
        return devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_CQ_BUSY,
                         "QPs still complete on this CQ; destroy them first");
    /* Its doorbells are no longer watched before it goes. */
    emu_uar_cq_unbind(dcq->cq);
    err = emu_cq_destroy(dcq->cq);
    if (err != 0) {
        struct emu_uar *uar = emu_uar_lookup(c->nic, dcq->uar_page);

        if (uar == NULL || emu_uar_cq_bind(uar, dcq->cq) != 0)
            EMU_LOG_ERR("CQ 0x%x: its arm doorbells are no longer watched (its UAR page is "
                        "gone, or out of memory); arm it with st through a new CQ",
                        cqn);
        return devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_CQ_BUSY,
                         "queues still complete on this CQ; destroy them first");
    }
    emu_engine_uar_watch(c->nic, false);
    devx_map_remove(&d->cqs, cqn & EMU_OBJ_INDEX_MASK);
    emu_umem_put(dcq->dbr_umem);
    emu_umem_put(dcq->ring_umem);
    free(dcq);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_cq(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    uint32_t cqn = (uint32_t)PRM_GET(c->in, PRM_QUERY_CQ_IN_CQN);
    struct devx_cq *dcq = devx_cq_find(d, cqn);
    void *cqc = devx_out_at(c, PRM_QUERY_CQ_OUT_CQC);
    struct emu_cq *cq;

    if (dcq == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_CQ_UNKNOWN,
                         "no CQ with this number was made by CREATE_CQ");
    cq = dcq->cq;
    pthread_mutex_lock(&cq->lock);
    PRM_SET(cqc, PRM_CQC_STATUS, cq->overrun ? PRM_CQC_STATUS_OVERFLOW : PRM_CQC_STATUS_OK);
    PRM_SET(cqc, PRM_CQC_PRODUCER_COUNTER, cq->producer);
    pthread_mutex_unlock(&cq->lock);
    PRM_SET(cqc, PRM_CQC_ST, emu_cq_arm_state(cq));
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_VALID, 1);
    PRM_SET(cqc, PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_64);
    PRM_SET(cqc, PRM_CQC_CC, cq->p.collapsed);
    PRM_SET(cqc, PRM_CQC_OI, cq->p.overrun_ignore);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_ID, dcq->dbr_umem_id);
    PRM_SET(cqc, PRM_CQC_LOG_CQ_SIZE, cq->p.log_size);
    PRM_SET(cqc, PRM_CQC_UAR_PAGE, dcq->uar_page);
    PRM_SET(cqc, PRM_CQC_C_EQN, dcq->eqn);
    PRM_SET(cqc, PRM_CQC_LOG_PAGE_SIZE, 0);
    PRM_SET(cqc, PRM_CQC_DBR_ADDR, dcq->dbr_offset);
    return PRM_CMD_STAT_OK;
}
