/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: a ring of receive WQEs, each a 16-byte next segment
 * and the data segments, and a doorbell record. The SRQ opens its own device
 * object on the PD of its attributes, for its memory.
 *
 * The device object is an RMP (CREATE_RMP), the form of a basic SRQ whose
 * ring and doorbell record can be in umems: CREATE_SRQ takes its ring as a
 * page list only (see prm/prm_srq.h). QPs name it by its RMP number.
 */
#include <stdlib.h>

#include "core/sdk.h"
#include "prm/prm_cmd.h"
#include "prm/prm_srq.h"
#include "verbs_internal.h"

#define VERBS_SRQ_LOG_MAX_STRIDE 7 /* log_rq_stride is 3 bits, in 16-byte units */

#define VERBS_SRQ_ATTR_CHECK(attr)                                                             \
    do {                                                                                       \
        if ((attr) == NULL) {                                                                  \
            DOCA_LOG_ERR(                                                                      \
                    "srq_init_attr is NULL: make one with doca_verbs_srq_init_attr_create()"); \
            return DOCA_ERROR_INVALID_VALUE;                                                   \
        }                                                                                      \
    } while (0)

doca_error_t doca_verbs_srq_init_attr_create(struct doca_verbs_srq_init_attr **verbs_srq_init_attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_create, (verbs_srq_init_attr), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_verbs_srq_init_attr *attr;

    if (verbs_srq_init_attr == NULL) {
        DOCA_LOG_ERR("verbs_srq_init_attr is NULL: pass where to store the new object");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr = calloc(1, sizeof(*attr));
    if (attr == NULL) {
        DOCA_LOG_ERR("out of memory for an SRQ init attribute object");
        return DOCA_ERROR_NO_MEMORY;
    }
    attr->receive_max_sges = 1;
    attr->type = DOCA_VERBS_SRQ_TYPE_LINKED_LIST;
    *verbs_srq_init_attr = attr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_srq_init_attr_destroy(struct doca_verbs_srq_init_attr *verbs_srq_init_attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_destroy, (verbs_srq_init_attr),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(verbs_srq_init_attr);
    free(verbs_srq_init_attr);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_srq_init_attr_set_srq_wr(struct doca_verbs_srq_init_attr *attr,
                                                 uint32_t srq_wr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_set_srq_wr, (attr, srq_wr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(attr);
    if (srq_wr == 0) {
        DOCA_LOG_ERR("srq_wr 0: an SRQ holds at least one receive WQE");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr->srq_wr = srq_wr;
    return DOCA_SUCCESS;
}

uint32_t doca_verbs_srq_init_attr_get_srq_wr(const struct doca_verbs_srq_init_attr *attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_get_srq_wr, (attr), 0);

    return attr != NULL ? attr->srq_wr : 0;
}

doca_error_t doca_verbs_srq_init_attr_set_receive_max_sges(struct doca_verbs_srq_init_attr *attr,
                                                           uint32_t receive_max_sges)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_set_receive_max_sges, (attr, receive_max_sges),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(attr);
    if (receive_max_sges == 0) {
        DOCA_LOG_ERR("receive_max_sges 0: a receive WQE carries at least one SGE");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr->receive_max_sges = receive_max_sges;
    return DOCA_SUCCESS;
}

uint32_t doca_verbs_srq_init_attr_get_receive_max_sges(const struct doca_verbs_srq_init_attr *attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_get_receive_max_sges, (attr), 0);

    return attr != NULL ? attr->receive_max_sges : 0;
}

doca_error_t doca_verbs_srq_init_attr_set_type(struct doca_verbs_srq_init_attr *attr,
                                               enum doca_verbs_srq_type srq_type)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_set_type, (attr, srq_type), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(attr);
    if (srq_type != DOCA_VERBS_SRQ_TYPE_LINKED_LIST && srq_type != DOCA_VERBS_SRQ_TYPE_CONTIGUOUS) {
        DOCA_LOG_ERR("srq_type %d: LINKED_LIST or CONTIGUOUS", (int)srq_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr->type = srq_type;
    return DOCA_SUCCESS;
}

enum doca_verbs_srq_type
doca_verbs_srq_init_attr_get_type(const struct doca_verbs_srq_init_attr *attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_get_type, (attr), (enum doca_verbs_srq_type)0);

    return attr != NULL ? attr->type : DOCA_VERBS_SRQ_TYPE_LINKED_LIST;
}

doca_error_t doca_verbs_srq_init_attr_set_pd(struct doca_verbs_srq_init_attr *attr,
                                             struct ibv_pd *pd)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_set_pd, (attr, pd), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(attr);
    attr->pd = pd;
    return DOCA_SUCCESS;
}

struct ibv_pd *doca_verbs_srq_init_attr_get_pd(const struct doca_verbs_srq_init_attr *attr)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_get_pd, (attr), NULL);

    return attr != NULL ? attr->pd : NULL;
}

doca_error_t doca_verbs_srq_init_attr_set_external_umem(struct doca_verbs_srq_init_attr *attr,
                                                        doca_verbs_umem_t *external_umem,
                                                        uint64_t external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_set_external_umem,
                  (attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_SRQ_ATTR_CHECK(attr);
    attr->umem = external_umem;
    attr->umem_offset = external_umem != NULL ? external_umem_offset : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_srq_init_attr_get_external_umem(const struct doca_verbs_srq_init_attr *attr,
                                                        doca_verbs_umem_t **external_umem,
                                                        uint64_t *external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_srq_init_attr_get_external_umem,
                  (attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    if (attr == NULL || external_umem == NULL || external_umem_offset == NULL) {
        DOCA_LOG_ERR("srq_init_attr (%p), external_umem (%p) and external_umem_offset (%p) must "
                     "not be NULL",
                     (const void *)attr, (void *)external_umem, (void *)external_umem_offset);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *external_umem = attr->umem;
    *external_umem_offset = attr->umem_offset;
    return DOCA_SUCCESS;
}

static doca_error_t verbs_srq_check(struct ibv_context *ctx,
                                    const struct doca_verbs_srq_init_attr *attr,
                                    const doca_dev_t *dev, uint32_t *log_size, uint32_t *stride)
{
    uint32_t log_stride = verbs_log2_ceil(attr->receive_max_sges + 1);

    if (attr->srq_wr == 0) {
        DOCA_LOG_ERR("srq_wr is not set: call doca_verbs_srq_init_attr_set_srq_wr()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (verbs_log2_ceil(attr->srq_wr) > dev->caps.log_max_srq_sz) {
        DOCA_LOG_ERR("srq_wr %u is above the device's maximum of %u", attr->srq_wr,
                     1u << dev->caps.log_max_srq_sz);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (log_stride > VERBS_SRQ_LOG_MAX_STRIDE ||
        (VERBS_RQ_UNIT << log_stride) > dev->caps.max_wqe_sz_rq) {
        DOCA_LOG_ERR("receive_max_sges %u makes %u-byte receive WQEs; the device takes %u",
                     attr->receive_max_sges, VERBS_RQ_UNIT << log_stride, dev->caps.max_wqe_sz_rq);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (attr->umem != NULL && attr->umem->dev->ctx != ctx) {
        DOCA_LOG_ERR("the SRQ's external UMEM belongs to another device context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *log_size = verbs_log2_ceil(attr->srq_wr);
    *stride = VERBS_RQ_UNIT << log_stride;
    return DOCA_SUCCESS;
}

static doca_error_t verbs_srq_command(doca_dev_t *dev, const struct doca_verbs_srq_init_attr *attr,
                                      struct doca_verbs_srq *srq, uint64_t dbr_offset)
{
    uint8_t in[PRM_CREATE_RMP_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_RMP_OUT_SIZE];
    void *rmpc = PRM_AT(in, PRM_CREATE_RMP_IN_RMPC);
    void *wq = PRM_AT(rmpc, PRM_RMPC_WQ);
    uint32_t umem_id = srq->wq.umem->umem->umem_id;
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RMP);
    PRM_SET(rmpc, PRM_RMPC_STATE, PRM_RMPC_STATE_RDY);
    PRM_SET(wq, PRM_WQ_WQ_TYPE,
            attr->type == DOCA_VERBS_SRQ_TYPE_CONTIGUOUS ? PRM_WQ_TYPE_CYCLIC
                                                         : PRM_WQ_TYPE_LINKED_LIST);
    PRM_SET(wq, PRM_WQ_PD, dev->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, dbr_offset);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, verbs_log2_ceil(srq->stride));
    PRM_SET(wq, PRM_WQ_LOG_WQ_PG_SZ, 0); /* 4 KiB pages */
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, srq->log_size);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, umem_id); /* the record follows the ring */
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, srq->wq.offset);
    err = verbs_devx_create(dev->ctx, in, sizeof(in), out, sizeof(out), &srq->obj);
    if (err == DOCA_SUCCESS)
        srq->srqn = (uint32_t)PRM_GET(out, PRM_CREATE_RMP_OUT_RMPN);
    return err;
}

doca_error_t doca_verbs_srq_create(struct ibv_context *verbs_context,
                                   struct doca_verbs_srq_init_attr *verbs_srq_init_attr,
                                   struct doca_verbs_srq **verbs_srq)
{
    DGN_SDK_ROUTE(doca_verbs_srq_create, (verbs_context, verbs_srq_init_attr, verbs_srq),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct doca_verbs_srq_init_attr *attr = verbs_srq_init_attr;
    struct doca_verbs_srq *srq;
    doca_dev_t *dev = NULL;
    size_t ring_bytes;
    uint32_t log_size, stride;
    doca_error_t err;

    if (verbs_context == NULL || attr == NULL || verbs_srq == NULL) {
        DOCA_LOG_ERR("verbs_context (%p), verbs_srq_init_attr (%p) and verbs_srq (%p) must not "
                     "be NULL",
                     (void *)verbs_context, (const void *)attr, (void *)verbs_srq);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (attr->pd == NULL || attr->pd->context != verbs_context) {
        DOCA_LOG_ERR("the SRQ needs a PD of verbs_context: call "
                     "doca_verbs_srq_init_attr_set_pd() with one");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = doca_verbs_dev_open(attr->pd, &dev);
    if (err != DOCA_SUCCESS)
        return err;
    err = verbs_srq_check(verbs_context, attr, dev, &log_size, &stride);
    if (err != DOCA_SUCCESS)
        goto close_dev;
    srq = calloc(1, sizeof(*srq));
    if (srq == NULL) {
        DOCA_LOG_ERR("out of memory for an SRQ object");
        err = DOCA_ERROR_NO_MEMORY;
        goto close_dev;
    }
    srq->ctx = verbs_context;
    srq->log_size = log_size;
    srq->stride = stride;
    atomic_init(&srq->users, 0);
    ring_bytes = (size_t)stride << log_size;
    if (attr->umem != NULL)
        err = verbs_buf_external(attr->umem, attr->umem_offset, ring_bytes + 8, VERBS_RQ_UNIT,
                                 "the SRQ ring and doorbell record", &srq->wq);
    else
        err = verbs_buf_alloc(dev, ring_bytes + VERBS_DBR_SIZE, &srq->wq);
    if (err != DOCA_SUCCESS)
        goto free_srq;
    srq->buf = verbs_buf_addr(&srq->wq);
    srq->dbr = (uint8_t *)srq->buf + ring_bytes;
    srq->dev = dev;
    err = verbs_srq_command(dev, attr, srq, srq->wq.offset + ring_bytes);
    if (err != DOCA_SUCCESS)
        goto release_wq;
    *verbs_srq = srq;
    return DOCA_SUCCESS;

release_wq:
    verbs_buf_release(&srq->wq);
free_srq:
    free(srq);
close_dev:
    doca_verbs_dev_close(dev);
    return err;
}

doca_error_t doca_verbs_srq_destroy(struct doca_verbs_srq *verbs_srq)
{
    DGN_SDK_ROUTE(doca_verbs_srq_destroy, (verbs_srq), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;
    int users;

    if (verbs_srq == NULL) {
        DOCA_LOG_ERR("verbs_srq is NULL: pass the SRQ doca_verbs_srq_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    users = atomic_load(&verbs_srq->users);
    if (users != 0) {
        DOCA_LOG_ERR("SRQ 0x%x still feeds %d QPs; destroy them first", verbs_srq->srqn, users);
        return DOCA_ERROR_IN_USE;
    }
    err = verbs_devx_destroy(verbs_srq->obj, "SRQ", verbs_srq->srqn);
    if (err != DOCA_SUCCESS)
        return err;
    verbs_buf_release(&verbs_srq->wq);
    doca_verbs_dev_close(verbs_srq->dev);
    free(verbs_srq);
    return DOCA_SUCCESS;
}

uint32_t doca_verbs_srq_get_srqn(const struct doca_verbs_srq *verbs_srq)
{
    DGN_SDK_ROUTE(doca_verbs_srq_get_srqn, (verbs_srq), 0);

    return verbs_srq != NULL ? verbs_srq->srqn : 0;
}

void doca_verbs_srq_get_wq(const struct doca_verbs_srq *verbs_srq, void **srq_buf,
                           uint32_t *srq_num_entries, uint32_t *rwqe_size_bytes)
{
    DGN_SDK_ROUTE_VOID(doca_verbs_srq_get_wq,
                       (verbs_srq, srq_buf, srq_num_entries, rwqe_size_bytes));

    if (verbs_srq == NULL) {
        DOCA_LOG_ERR("verbs_srq is NULL: pass the SRQ doca_verbs_srq_create() made");
        return;
    }
    if (srq_buf != NULL)
        *srq_buf = verbs_srq->buf;
    if (srq_num_entries != NULL)
        *srq_num_entries = 1u << verbs_srq->log_size;
    if (rwqe_size_bytes != NULL)
        *rwqe_size_bytes = verbs_srq->stride;
}

void *doca_verbs_srq_get_dbr_addr(const struct doca_verbs_srq *verbs_srq)
{
    DGN_SDK_ROUTE(doca_verbs_srq_get_dbr_addr, (verbs_srq), NULL);

    return verbs_srq != NULL ? verbs_srq->dbr : NULL;
}

void verbs_srq_hold(struct doca_verbs_srq *srq)
{
    atomic_fetch_add(&srq->users, 1);
}

void verbs_srq_put(struct doca_verbs_srq *srq)
{
    atomic_fetch_sub(&srq->users, 1);
}

uint32_t verbs_srq_number(const struct doca_verbs_srq *srq)
{
    return srq->srqn;
}
