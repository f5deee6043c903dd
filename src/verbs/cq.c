/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues made with CREATE_CQ: a ring of 64-byte CQEs and an
 * 8-byte doorbell record (consumer index, arm), in a caller's UMEMs or in
 * page-aligned host memory the CQ allocates and registers.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "prm/mlx5_cqe.h"
#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "verbs_internal.h"

/* Marks every CQE invalid (opcode 0xf, owner 0) and zeroes the doorbell record. */
doca_error_t verbs_cq_init_memory(doca_verbs_cq_t *cq)
{
    size_t n = (size_t)1 << cq->log_size;
    uint8_t zero_dbr[8] = {0};
    struct prm_cqe64 *ring;
    doca_error_t err;

    if (!cq->ring.umem->gpu) {
        ring = verbs_buf_addr(&cq->ring);
        memset(ring, 0, n * VERBS_CQE_SIZE);
        for (size_t i = 0; i < n; i++)
            ring[i].op_own = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 0);
        return verbs_buf_write(&cq->dbr, 0, zero_dbr, sizeof(zero_dbr));
    }
    /* GPU memory: build the ring on the host and copy it over. */
    ring = calloc(n, VERBS_CQE_SIZE);
    if (ring == NULL) {
        DOCA_LOG_ERR("out of memory staging %zu CQEs for GPU memory", n);
        return DOCA_ERROR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        ring[i].op_own = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 0);
    err = verbs_buf_write(&cq->ring, 0, ring, n * VERBS_CQE_SIZE);
    free(ring);
    if (err == DOCA_SUCCESS)
        err = verbs_buf_write(&cq->dbr, 0, zero_dbr, sizeof(zero_dbr));
    return err;
}

doca_error_t verbs_cq_rebase(doca_verbs_cq_t *cq)
{
    uint32_t n = 1u << cq->log_size, j;
    struct prm_cqe64 *ring;
    uint8_t want;
    doca_error_t err;

    if (cq->collapsed)
        return DOCA_SUCCESS; /* every CQE goes to entry 0 */
    ring = malloc((size_t)n * VERBS_CQE_SIZE);
    if (ring == NULL) {
        DOCA_LOG_ERR("out of memory reading the %u CQEs of CQ 0x%x", n, cq->cqn);
        return DOCA_ERROR_NO_MEMORY;
    }
    err = verbs_buf_read(&cq->ring, 0, ring, (size_t)n * VERBS_CQE_SIZE);
    if (err != DOCA_SUCCESS) {
        free(ring);
        return err;
    }
    /*
     * Since the ring was last marked invalid the NIC wrote k CQEs from
     * dp_base on, its owner bit starting at dp_owner and flipping at every
     * wrap to entry 0. Fewer than a lap (an entry is still invalid): the
     * first invalid one from dp_base is where it writes next. A lap or more:
     * every entry holds the last CQE written there, those before the next
     * one's entry from the current lap and the rest from the lap before, so
     * the owner bit changes there (or nowhere, when the next entry is 0).
     */
    for (j = 0; j < n; j++)
        if (prm_cqe_opcode(&ring[(cq->dp_base + j) & (n - 1)]) == PRM_CQE_OPCODE_INVALID)
            break;
    if (j < n) {
        want = cq->dp_owner ^ (uint8_t)(cq->dp_base + j >= n);
        cq->dp_base = (cq->dp_base + j) & (n - 1);
    } else {
        for (j = 1; j < n; j++)
            if (prm_cqe_owner(&ring[j]) != prm_cqe_owner(&ring[0]))
                break;
        want = prm_cqe_owner(&ring[0]) ^ (uint8_t)(j == n);
        cq->dp_base = j & (n - 1);
    }
    cq->dp_owner = want;
    free(ring);
    return DOCA_SUCCESS;
}

static doca_error_t verbs_cq_memory(doca_dev_t *dev, const doca_verbs_cq_attr_t *attr,
                                    doca_verbs_cq_t *cq)
{
    size_t ring_bytes = (size_t)VERBS_CQE_SIZE << cq->log_size;
    doca_error_t err;

    if (attr->umem == NULL) {
        err = verbs_buf_alloc(dev, ring_bytes + VERBS_DBR_SIZE, &cq->ring);
        if (err != DOCA_SUCCESS)
            return err;
        /* The doorbell record follows the ring in the same registration. */
        atomic_fetch_add(&cq->ring.umem->users, 1);
        cq->dbr.umem = cq->ring.umem;
        cq->dbr.offset = ring_bytes;
        cq->dbr.internal = false;
        return DOCA_SUCCESS;
    }
    if (attr->umem->dev->ctx != dev->ctx || attr->dbr_umem->dev->ctx != dev->ctx) {
        DOCA_LOG_ERR("the CQ's external UMEMs belong to another device context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_buf_external(attr->umem, attr->umem_offset, ring_bytes, VERBS_CQE_SIZE,
                             "the CQE ring", &cq->ring);
    if (err != DOCA_SUCCESS)
        return err;
    err = verbs_buf_external(attr->dbr_umem, attr->dbr_umem_offset, 8, 8, "the CQ doorbell record",
                             &cq->dbr);
    if (err != DOCA_SUCCESS)
        verbs_buf_release(&cq->ring);
    return err;
}

static doca_error_t verbs_cq_check(const doca_dev_t *dev, const doca_verbs_cq_attr_t *attr)
{
    if (attr->cq_size == 0) {
        DOCA_LOG_ERR("cq_size is not set: call doca_verbs_cq_attr_set_cq_size()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (verbs_log2_ceil(attr->cq_size) > dev->caps.log_max_cq_sz) {
        DOCA_LOG_ERR("cq_size %u is above the device's maximum of %u CQEs", attr->cq_size,
                     1u << dev->caps.log_max_cq_sz);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((attr->umem == NULL) != (attr->dbr_umem == NULL)) {
        DOCA_LOG_ERR("only the %s UMEM is set: set both doca_verbs_cq_attr_set_external_umem() "
                     "and doca_verbs_cq_attr_set_external_dbr_umem(), or neither",
                     attr->umem != NULL ? "ring" : "doorbell record");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (attr->overrun == DOCA_VERBS_CQ_ENABLE_OVERRUN && !dev->caps.cq_oi) {
        DOCA_LOG_ERR("the device cannot ignore CQ overrun (cq_oi is 0)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

/* doca_verbs_cq_state -> cqc.st */
static const uint8_t verbs_cq_st[] = {
        [DOCA_VERBS_CQ_ST_NO_ACTION] = PRM_CQC_ST_NO_ACTION,
        [DOCA_VERBS_CQ_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED] =
                PRM_CQC_ST_SOLICITED_NOTIFICATION_REQ_ARMED,
        [DOCA_VERBS_CQ_ST_NOTIFICATION_REQUEST_ARMED] = PRM_CQC_ST_NOTIFICATION_REQ_ARMED,
        [DOCA_VERBS_CQ_ST_FIRED] = PRM_CQC_ST_FIRED,
};

static doca_error_t verbs_cq_command(doca_dev_t *dev, const doca_verbs_cq_attr_t *attr,
                                     doca_verbs_cq_t *cq)
{
    uint8_t in[PRM_CREATE_CQ_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_CQ_OUT_SIZE];
    void *cqc = PRM_AT(in, PRM_CREATE_CQ_IN_CQC);
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
    PRM_SET(cqc, PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_64);
    PRM_SET(cqc, PRM_CQC_CC, attr->collapsed);
    PRM_SET(cqc, PRM_CQC_OI, attr->overrun == DOCA_VERBS_CQ_ENABLE_OVERRUN);
    PRM_SET(cqc, PRM_CQC_ST, verbs_cq_st[attr->st]);
    PRM_SET(cqc, PRM_CQC_LOG_CQ_SIZE, cq->log_size);
    PRM_SET(cqc, PRM_CQC_UAR_PAGE, cq->uar->uar->page_id);
    PRM_SET(cqc, PRM_CQC_C_EQN, dev->eqn);
    PRM_SET(cqc, PRM_CQC_LOG_PAGE_SIZE, 0); /* 4 KiB pages */
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_VALID, 1);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_ID, cq->dbr.umem->umem->umem_id);
    PRM_SET(cqc, PRM_CQC_DBR_ADDR, cq->dbr.offset);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_ID, cq->ring.umem->umem->umem_id);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET, cq->ring.offset);
    err = verbs_devx_create(dev->ctx, in, sizeof(in), out, sizeof(out), &cq->obj);
    if (err == DOCA_SUCCESS)
        cq->cqn = (uint32_t)PRM_GET(out, PRM_CREATE_CQ_OUT_CQN);
    return err;
}

doca_error_t doca_verbs_cq_create(doca_dev_t *net_dev, doca_verbs_cq_attr_t *cq_attr,
                                  doca_verbs_cq_t **cq_out)
{
    DGN_SDK_ROUTE(doca_verbs_cq_create, (net_dev, cq_attr, cq_out), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_cq_t *cq;
    doca_error_t err;

    if (net_dev == NULL || cq_attr == NULL || cq_out == NULL) {
        DOCA_LOG_ERR("net_dev (%p), cq_attr (%p) and cq (%p) must not be NULL", (void *)net_dev,
                     (void *)cq_attr, (void *)cq_out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_cq_check(net_dev, cq_attr);
    if (err != DOCA_SUCCESS)
        return err;
    cq = calloc(1, sizeof(*cq));
    if (cq == NULL) {
        DOCA_LOG_ERR("out of memory for a CQ object");
        return DOCA_ERROR_NO_MEMORY;
    }
    cq->dev = net_dev;
    cq->log_size = verbs_log2_ceil(cq_attr->cq_size);
    cq->cq_context = cq_attr->cq_context;
    cq->collapsed = cq_attr->collapsed != 0;
    cq->overrun_ignore = cq_attr->overrun == DOCA_VERBS_CQ_ENABLE_OVERRUN;
    atomic_init(&cq->users, 0);
    err = verbs_cq_memory(net_dev, cq_attr, cq);
    if (err != DOCA_SUCCESS)
        goto free_cq;
    err = verbs_cq_init_memory(cq);
    if (err != DOCA_SUCCESS)
        goto release_memory;
    err = verbs_uar_take(net_dev, cq_attr->uar, &cq->uar, &cq->internal_uar);
    if (err != DOCA_SUCCESS)
        goto release_memory;
    err = verbs_cq_command(net_dev, cq_attr, cq);
    if (err != DOCA_SUCCESS)
        goto drop_uar;
    if (cq_attr->comp_channel != NULL) {
        /* Subscribed after CREATE_CQ: an `st` armed at creation fires only on a later CQE. */
        err = verbs_comp_channel_attach(cq_attr->comp_channel, cq);
        if (err != DOCA_SUCCESS)
            goto destroy_obj;
        cq->comp_channel = cq_attr->comp_channel;
    }
    verbs_dev_hold(net_dev);
    DOCA_LOG_DBG("CQ 0x%x: %u CQEs at %p (%s memory), UAR page %u", cq->cqn, 1u << cq->log_size,
                 verbs_buf_addr(&cq->ring), cq->ring.umem->gpu ? "GPU" : "host",
                 cq->uar->uar->page_id);
    *cq_out = cq;
    return DOCA_SUCCESS;

destroy_obj:
    verbs_devx_destroy(cq->obj, "CQ", cq->cqn);
drop_uar:
    verbs_uar_drop(cq->uar, cq->internal_uar);
release_memory:
    verbs_buf_release(&cq->dbr);
    verbs_buf_release(&cq->ring);
free_cq:
    free(cq);
    return err;
}

doca_error_t doca_verbs_cq_destroy(doca_verbs_cq_t *verbs_cq)
{
    DGN_SDK_ROUTE(doca_verbs_cq_destroy, (verbs_cq), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;
    int users;

    if (verbs_cq == NULL) {
        DOCA_LOG_ERR("verbs_cq is NULL: pass the CQ doca_verbs_cq_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    users = atomic_load(&verbs_cq->users);
    if (users != 0) {
        DOCA_LOG_ERR("CQ 0x%x is still used by %d QPs; destroy them first", verbs_cq->cqn, users);
        return DOCA_ERROR_IN_USE;
    }
    users = (int)atomic_load(&verbs_cq->events_unacked);
    if (users != 0) {
        DOCA_LOG_ERR("CQ 0x%x has %d completion events not acknowledged; call "
                     "doca_verbs_ack_cq_events() first",
                     verbs_cq->cqn, users);
        return DOCA_ERROR_IN_USE;
    }
    err = verbs_devx_destroy(verbs_cq->obj, "CQ", verbs_cq->cqn);
    if (err != DOCA_SUCCESS)
        return err;
    if (verbs_cq->comp_channel != NULL)
        verbs_comp_channel_detach(verbs_cq->comp_channel, verbs_cq);
    verbs_uar_drop(verbs_cq->uar, verbs_cq->internal_uar);
    verbs_buf_release(&verbs_cq->dbr);
    verbs_buf_release(&verbs_cq->ring);
    verbs_dev_put(verbs_cq->dev);
    free(verbs_cq);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_get_wq(doca_verbs_cq_t *verbs_cq, void **cq_buf,
                                  uint32_t *cq_num_entries, uint8_t *cq_entry_size)
{
    DGN_SDK_ROUTE(doca_verbs_cq_get_wq, (verbs_cq, cq_buf, cq_num_entries, cq_entry_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_cq == NULL || cq_buf == NULL || cq_num_entries == NULL || cq_entry_size == NULL) {
        DOCA_LOG_ERR("verbs_cq (%p), cq_buf (%p), cq_num_entries (%p) and cq_entry_size (%p) "
                     "must not be NULL",
                     (void *)verbs_cq, (void *)cq_buf, (void *)cq_num_entries,
                     (void *)cq_entry_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *cq_buf = verbs_buf_addr(&verbs_cq->ring);
    *cq_num_entries = 1u << verbs_cq->log_size;
    *cq_entry_size = VERBS_CQE_SIZE;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_get_dbr_addr(doca_verbs_cq_t *verbs_cq, uint64_t **uar_db_reg,
                                        uint32_t **ci_dbr, uint32_t **arm_dbr)
{
    DGN_SDK_ROUTE(doca_verbs_cq_get_dbr_addr, (verbs_cq, uar_db_reg, ci_dbr, arm_dbr),
                  DOCA_ERROR_NOT_SUPPORTED);

    uint32_t *dbr;

    if (verbs_cq == NULL) {
        DOCA_LOG_ERR("verbs_cq is NULL: pass the CQ doca_verbs_cq_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    dbr = verbs_buf_addr(&verbs_cq->dbr);
    if (uar_db_reg != NULL)
        *uar_db_reg = verbs_uar_cq_db(verbs_cq->uar);
    if (ci_dbr != NULL)
        *ci_dbr = dbr;
    if (arm_dbr != NULL)
        *arm_dbr = dbr + 1;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_get_cqn(const doca_verbs_cq_t *verbs_cq, uint32_t *cqn)
{
    DGN_SDK_ROUTE(doca_verbs_cq_get_cqn, (verbs_cq, cqn), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_cq == NULL || cqn == NULL) {
        DOCA_LOG_ERR("verbs_cq (%p) and cqn (%p) must not be NULL", (const void *)verbs_cq,
                     (void *)cqn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *cqn = verbs_cq->cqn;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_get_dbr_db_addr(doca_verbs_cq_t *verbs_cq, uint64_t **uar_db_reg,
                                           uint32_t **ci_dbr, uint32_t **arm_dbr)
{
    DGN_SDK_ROUTE(doca_verbs_cq_get_dbr_db_addr, (verbs_cq, uar_db_reg, ci_dbr, arm_dbr),
                  DOCA_ERROR_NOT_SUPPORTED);

    return doca_verbs_cq_get_dbr_addr(verbs_cq, uar_db_reg, ci_dbr, arm_dbr);
}

doca_error_t doca_verbs_cq_get_cq_num(const doca_verbs_cq_t *verbs_cq, uint32_t *cqn)
{
    DGN_SDK_ROUTE(doca_verbs_cq_get_cq_num, (verbs_cq, cqn), DOCA_ERROR_NOT_SUPPORTED);

    return doca_verbs_cq_get_cqn(verbs_cq, cqn);
}

doca_error_t doca_verbs_cq_set_cq_context(doca_verbs_cq_t *verbs_cq, void *cq_context)
{
    DGN_SDK_ROUTE(doca_verbs_cq_set_cq_context, (verbs_cq, cq_context), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_cq == NULL) {
        DOCA_LOG_ERR("verbs_cq is NULL: pass the CQ doca_verbs_cq_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    __atomic_store_n(&verbs_cq->cq_context, cq_context, __ATOMIC_RELAXED);
    return DOCA_SUCCESS;
}

doca_error_t verbs_cq_arm_solicited(doca_verbs_cq_t *cq)
{
    /* A solicited arm does not depend on the consumer index: it is left 0. */
    uint32_t sn = atomic_fetch_add(&cq->arm_sn, 1) & 0x3;
    uint32_t word = sn << PRM_CQ_DB_SN_SHIFT | PRM_CQ_DB_CMD_REQ_NOT_SOL;
    uint32_t be = htobe32(word);
    doca_error_t err;

    err = verbs_buf_write(&cq->dbr, 4, &be, sizeof(be));
    if (err != DOCA_SUCCESS)
        return err;
    /* Release: the record's arm word is written before the doorbell that makes it count. */
    __atomic_store_n((uint64_t *)verbs_uar_cq_db(cq->uar), htobe64((uint64_t)word << 32 | cq->cqn),
                     __ATOMIC_RELEASE);
    return DOCA_SUCCESS;
}
