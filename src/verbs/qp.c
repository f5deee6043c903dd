/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC QPs made with CREATE_QP. The work queue buffer holds the RQ (stride 16
 * bytes times the receive SGEs rounded up to a power of two) followed by the
 * SQ (64-byte basic blocks); the doorbell record holds the receive counter
 * then the send counter. Both live in a caller's UMEMs or in page-aligned
 * host memory the QP allocates and registers.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "verbs_internal.h"

#define VERBS_WQE_CTRL_RADDR     32u /* control and remote-address segments */
#define VERBS_WQE_ATOMIC_PAYLOAD 32u /* atomic segment and one data segment */
#define VERBS_INLINE_HDR         4u
#define VERBS_LOG_RQ_STRIDE_MAX  7u  /* log_rq_stride: 3 bits, in 16-byte units */
#define VERBS_LOG_WQ_SIZE_MAX    15u /* log_sq_size / log_rq_size: 4 bits */

/* Sizes of the queues, checked against the device. */
static doca_error_t verbs_qp_shape(const doca_dev_t *dev, const doca_verbs_qp_init_attr_t *a,
                                   doca_verbs_qp_t *qp)
{
    const struct verbs_caps *c = &dev->caps;
    uint32_t payload = a->send_max_sges * 16u;
    uint32_t inl = (uint32_t)verbs_align_up(VERBS_INLINE_HDR + a->max_inline_data, 16);
    uint32_t wqe_bytes, bbs, log_max = c->log_max_qp_sz;
    struct verbs_qp_layout *l = &qp->layout;

    if (log_max > VERBS_LOG_WQ_SIZE_MAX)
        log_max = VERBS_LOG_WQ_SIZE_MAX;
    if (a->sq_wr == 0) {
        DOCA_LOG_ERR("sq_wr is not set: call doca_verbs_qp_init_attr_set_sq_wr()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    payload = payload > inl ? payload : inl;
    payload = payload > VERBS_WQE_ATOMIC_PAYLOAD ? payload : VERBS_WQE_ATOMIC_PAYLOAD;
    wqe_bytes = (uint32_t)verbs_align_up(VERBS_WQE_CTRL_RADDR + payload, VERBS_SQ_STRIDE);
    if (wqe_bytes > c->max_wqe_sz_sq) {
        DOCA_LOG_ERR("send_max_sges %u / max_inline_data %u make %u-byte send WQEs; the device "
                     "takes %u",
                     a->send_max_sges, a->max_inline_data, wqe_bytes, c->max_wqe_sz_sq);
        return DOCA_ERROR_INVALID_VALUE;
    }
    bbs = wqe_bytes / VERBS_SQ_STRIDE;
    qp->log_sq_size = verbs_log2_ceil((uint64_t)a->sq_wr * bbs);
    if (qp->log_sq_size > log_max) {
        DOCA_LOG_ERR("sq_wr %u (%u basic blocks each) needs 2^%u basic blocks; the device "
                     "takes 2^%u",
                     a->sq_wr, bbs, qp->log_sq_size, log_max);
        return DOCA_ERROR_INVALID_VALUE;
    }
    l->sq_wqebb_cnt = 1u << qp->log_sq_size;
    l->sq_bytes = (size_t)VERBS_SQ_STRIDE << qp->log_sq_size;
    if (a->srq != NULL || a->rq_wr == 0)
        return DOCA_SUCCESS; /* no receive queue of its own */
    l->rq_stride = VERBS_RQ_UNIT << verbs_log2_ceil(a->receive_max_sges);
    if (verbs_log2_ceil(a->receive_max_sges) > VERBS_LOG_RQ_STRIDE_MAX ||
        l->rq_stride > c->max_wqe_sz_rq) {
        DOCA_LOG_ERR("receive_max_sges %u makes %u-byte receive WQEs; the device takes %u",
                     a->receive_max_sges, l->rq_stride, c->max_wqe_sz_rq);
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp->log_rq_size = verbs_log2_ceil(a->rq_wr);
    /* Keep the SQ on a 64-byte boundary: the RQ spans at least one basic block. */
    while (((size_t)l->rq_stride << qp->log_rq_size) < VERBS_SQ_STRIDE)
        qp->log_rq_size++;
    if (qp->log_rq_size > log_max) {
        DOCA_LOG_ERR("rq_wr %u is above the device's maximum of %u", a->rq_wr, 1u << log_max);
        return DOCA_ERROR_INVALID_VALUE;
    }
    l->rq_wqe_cnt = 1u << qp->log_rq_size;
    l->rq_bytes = (size_t)l->rq_stride << qp->log_rq_size;
    return DOCA_SUCCESS;
}

/* Refusals that need no memory: references, pairing, modes. */
static doca_error_t verbs_qp_check(const doca_dev_t *dev, const doca_verbs_qp_init_attr_t *a)
{
    if (a->pd_dev != NULL && a->pd_dev->pd != dev->pd) {
        DOCA_LOG_ERR("the init attributes name the PD of another device object than net_dev");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (a->qp_type != DOCA_VERBS_QP_TYPE_RC) {
        DOCA_LOG_ERR("qp_type %u: only RC QPs are implemented", a->qp_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (a->send_cq == NULL || a->receive_cq == NULL) {
        DOCA_LOG_ERR("the %s CQ is not set: call doca_verbs_qp_init_attr_set_%s()",
                     a->send_cq == NULL ? "send" : "receive",
                     a->send_cq == NULL ? "send_cq" : "receive_cq");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (a->send_cq->dev->ctx != dev->ctx || a->receive_cq->dev->ctx != dev->ctx ||
        (a->srq != NULL && a->srq->ctx != dev->ctx) ||
        (a->umem != NULL && a->umem->dev->ctx != dev->ctx) ||
        (a->dbr_umem != NULL && a->dbr_umem->dev->ctx != dev->ctx)) {
        DOCA_LOG_ERR("a CQ, SRQ or UMEM of the init attributes belongs to another device context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((a->umem == NULL) != (a->dbr_umem == NULL)) {
        DOCA_LOG_ERR(
                "only the %s UMEM is set: set both doca_verbs_qp_init_attr_set_external_umem() "
                "and doca_verbs_qp_init_attr_set_external_umem_dbr(), or neither",
                a->umem != NULL ? "work queue" : "doorbell record");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (a->core_direct_master) {
        DOCA_LOG_ERR("core_direct_master: the device does not report core-direct support");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (a->send_dbr_mode == DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT && !dev->caps.no_dbr_ext &&
        !a->emulate_no_dbr_ext) {
        DOCA_LOG_ERR("send_dbr_mode NO_DBR_EXT: the device has no send queues without doorbell "
                     "record; set emulate_no_dbr_ext to emulate them");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

static doca_error_t verbs_qp_memory(doca_dev_t *dev, const doca_verbs_qp_init_attr_t *a,
                                    doca_verbs_qp_t *qp)
{
    size_t wq_bytes = qp->layout.rq_bytes + qp->layout.sq_bytes;
    uint8_t zero_dbr[8] = {0};
    doca_error_t err;

    if (a->umem == NULL) {
        err = verbs_buf_alloc(dev, wq_bytes + VERBS_DBR_SIZE, &qp->wq);
        if (err != DOCA_SUCCESS)
            return err;
        atomic_fetch_add(&qp->wq.umem->users, 1);
        qp->dbr.umem = qp->wq.umem;
        qp->dbr.offset = wq_bytes;
        qp->dbr.internal = false;
    } else {
        err = verbs_buf_external(a->umem, a->umem_offset, wq_bytes, VERBS_SQ_STRIDE,
                                 "the QP work queue", &qp->wq);
        if (err != DOCA_SUCCESS)
            return err;
        err = verbs_buf_external(a->dbr_umem, a->dbr_umem_offset, 8, 8, "the QP doorbell record",
                                 &qp->dbr);
        if (err != DOCA_SUCCESS) {
            verbs_buf_release(&qp->wq);
            return err;
        }
    }
    err = verbs_buf_write(&qp->dbr, 0, zero_dbr, sizeof(zero_dbr));
    if (err != DOCA_SUCCESS) {
        verbs_buf_release(&qp->dbr);
        verbs_buf_release(&qp->wq);
    }
    return err;
}

static doca_error_t verbs_qp_command(doca_dev_t *dev, const doca_verbs_qp_init_attr_t *a,
                                     doca_verbs_qp_t *qp)
{
    uint8_t in[PRM_CREATE_QP_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_QP_OUT_SIZE];
    void *qpc = PRM_AT(in, PRM_CREATE_QP_IN_QPC);
    uint32_t rq_type = a->srq != NULL  ? PRM_QP_RQ_TYPE_SRQ
                       : a->rq_wr == 0 ? PRM_QP_RQ_TYPE_ZERO_SIZE
                                       : PRM_QP_RQ_TYPE_REGULAR;
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_QP);
    PRM_SET(qpc, PRM_QPC_ST, PRM_QP_ST_RC);
    PRM_SET(qpc, PRM_QPC_PM_STATE, PRM_QP_PM_STATE_MIGRATED);
    PRM_SET(qpc, PRM_QPC_PD, dev->pdn);
    PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, dev->caps.log_max_msg);
    if (rq_type == PRM_QP_RQ_TYPE_REGULAR) {
        PRM_SET(qpc, PRM_QPC_LOG_RQ_SIZE, qp->log_rq_size);
        PRM_SET(qpc, PRM_QPC_LOG_RQ_STRIDE, verbs_log2_ceil(qp->layout.rq_stride / VERBS_RQ_UNIT));
    }
    PRM_SET(qpc, PRM_QPC_RQ_TYPE, rq_type);
    if (a->srq != NULL)
        PRM_SET(qpc, PRM_QPC_SRQN_RMPN_XRQN, verbs_srq_number(a->srq));
    PRM_SET(qpc, PRM_QPC_LOG_SQ_SIZE, qp->log_sq_size);
    PRM_SET(qpc, PRM_QPC_UAR_PAGE, qp->uar->uar->page_id);
    PRM_SET(qpc, PRM_QPC_USER_INDEX, a->user_index);
    PRM_SET(qpc, PRM_QPC_SEND_DBR_MODE,
            qp->no_dbr ? PRM_QP_SEND_DBR_MODE_NO_DBR_EXT : PRM_QP_SEND_DBR_MODE_DBR_VALID);
    PRM_SET(qpc, PRM_QPC_LOG_PAGE_SIZE, 0); /* 4 KiB pages */
    PRM_SET(qpc, PRM_QPC_CQN_SND, a->send_cq->cqn);
    PRM_SET(qpc, PRM_QPC_CQN_RCV, a->receive_cq->cqn);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_VALID, 1);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_ID, qp->dbr.umem->umem->umem_id);
    PRM_SET(qpc, PRM_QPC_DBR_ADDR, qp->dbr.offset);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_ID, qp->wq.umem->umem->umem_id);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_OFFSET, qp->wq.offset);
    err = verbs_devx_create(dev->ctx, in, sizeof(in), out, sizeof(out), &qp->obj);
    if (err == DOCA_SUCCESS)
        qp->qpn = (uint32_t)PRM_GET(out, PRM_CREATE_QP_OUT_QPN);
    return err;
}

/* Takes (delta 1) or drops (delta -1) the QP's uses of its CQs and SRQ. */
static void verbs_qp_hold_refs(doca_verbs_qp_t *qp, int delta)
{
    atomic_fetch_add(&qp->init.send_cq->users, delta);
    atomic_fetch_add(&qp->init.receive_cq->users, delta);
    if (qp->init.srq != NULL) {
        if (delta > 0)
            verbs_srq_hold(qp->init.srq);
        else
            verbs_srq_put(qp->init.srq);
    }
}

static void verbs_qp_fill_layout(doca_verbs_qp_t *qp)
{
    struct verbs_qp_layout *l = &qp->layout;

    l->wq = verbs_buf_addr(&qp->wq);
    l->rq = l->wq;
    l->sq = (uint8_t *)l->wq + l->rq_bytes;
    l->dbr = verbs_buf_addr(&qp->dbr);
    l->uar_reg = qp->uar->uar->reg_addr;
    l->uar_page_id = qp->uar->uar->page_id;
    l->gpu = qp->wq.umem->gpu;
}

doca_error_t doca_verbs_qp_create(doca_dev_t *net_dev, doca_verbs_qp_init_attr_t *qp_init_attr,
                                  doca_verbs_qp_t **verbs_qp)
{
    DGN_SDK_ROUTE(doca_verbs_qp_create, (net_dev, qp_init_attr, verbs_qp),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_qp_t *qp;
    doca_error_t err;

    if (net_dev == NULL || qp_init_attr == NULL || verbs_qp == NULL) {
        DOCA_LOG_ERR("net_dev (%p), qp_init_attr (%p) and verbs_qp (%p) must not be NULL",
                     (void *)net_dev, (void *)qp_init_attr, (void *)verbs_qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_qp_check(net_dev, qp_init_attr);
    if (err != DOCA_SUCCESS)
        return err;
    qp = calloc(1, sizeof(*qp));
    if (qp == NULL) {
        DOCA_LOG_ERR("out of memory for a QP object");
        return DOCA_ERROR_NO_MEMORY;
    }
    qp->dev = net_dev;
    atomic_init(&qp->users, 0);
    qp->init = *qp_init_attr;
    qp->init.pd_dev = net_dev;
    qp->state = DOCA_VERBS_QP_STATE_RST;
    qp->port_num = 1;
    if (qp_init_attr->send_dbr_mode == DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT) {
        qp->no_dbr = net_dev->caps.no_dbr_ext;
        qp->emulated = !net_dev->caps.no_dbr_ext;
    }
    err = verbs_qp_shape(net_dev, qp_init_attr, qp);
    if (err != DOCA_SUCCESS)
        goto free_qp;
    err = verbs_qp_memory(net_dev, qp_init_attr, qp);
    if (err != DOCA_SUCCESS)
        goto free_qp;
    err = verbs_uar_take(net_dev, qp_init_attr->uar, &qp->uar, &qp->internal_uar);
    if (err != DOCA_SUCCESS)
        goto release_memory;
    err = verbs_qp_command(net_dev, qp_init_attr, qp);
    if (err != DOCA_SUCCESS)
        goto drop_uar;
    verbs_qp_fill_layout(qp);
    verbs_qp_hold_refs(qp, 1);
    verbs_dev_hold(net_dev);
    DOCA_LOG_DBG("QP 0x%x: SQ %u basic blocks, RQ %u x %u bytes at %p (%s memory), UAR page %u",
                 qp->qpn, qp->layout.sq_wqebb_cnt, qp->layout.rq_wqe_cnt, qp->layout.rq_stride,
                 qp->layout.wq, qp->layout.gpu ? "GPU" : "host", qp->layout.uar_page_id);
    *verbs_qp = qp;
    return DOCA_SUCCESS;

drop_uar:
    verbs_uar_drop(qp->uar, qp->internal_uar);
release_memory:
    verbs_buf_release(&qp->dbr);
    verbs_buf_release(&qp->wq);
free_qp:
    free(qp);
    return err;
}

doca_error_t doca_verbs_qp_destroy(doca_verbs_qp_t *verbs_qp)
{
    DGN_SDK_ROUTE(doca_verbs_qp_destroy, (verbs_qp), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (verbs_qp == NULL) {
        DOCA_LOG_ERR("verbs_qp is NULL: pass the QP doca_verbs_qp_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (atomic_load(&verbs_qp->users) != 0) {
        DOCA_LOG_ERR("QP 0x%x is exported to the data path; doca_gpu_verbs_unexport_qp() it first",
                     verbs_qp->qpn);
        return DOCA_ERROR_IN_USE;
    }
    err = verbs_devx_destroy(verbs_qp->obj, "QP", verbs_qp->qpn);
    if (err != DOCA_SUCCESS)
        return err;
    verbs_qp_hold_refs(verbs_qp, -1);
    verbs_uar_drop(verbs_qp->uar, verbs_qp->internal_uar);
    verbs_buf_release(&verbs_qp->dbr);
    verbs_buf_release(&verbs_qp->wq);
    verbs_dev_put(verbs_qp->dev);
    free(verbs_qp);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_get_wq(const doca_verbs_qp_t *verbs_qp, void **sq_buf,
                                  uint32_t *sq_num_entries, void **rq_buf, uint32_t *rq_num_entries,
                                  uint32_t *rwqe_size_bytes)
{
    DGN_SDK_ROUTE(doca_verbs_qp_get_wq,
                  (verbs_qp, sq_buf, sq_num_entries, rq_buf, rq_num_entries, rwqe_size_bytes),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_qp == NULL || sq_buf == NULL || sq_num_entries == NULL || rq_buf == NULL ||
        rq_num_entries == NULL || rwqe_size_bytes == NULL) {
        DOCA_LOG_ERR("verbs_qp and every output (sq_buf, sq_num_entries, rq_buf, "
                     "rq_num_entries, rwqe_size_bytes) must not be NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *sq_buf = verbs_qp->layout.sq;
    *sq_num_entries = verbs_qp->layout.sq_wqebb_cnt;
    *rq_buf = verbs_qp->layout.rq;
    *rq_num_entries = verbs_qp->layout.rq_wqe_cnt;
    *rwqe_size_bytes = verbs_qp->layout.rq_stride;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_get_dbr_addr(const doca_verbs_qp_t *verbs_qp, void **dbr_addr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_get_dbr_addr, (verbs_qp, dbr_addr), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_qp == NULL || dbr_addr == NULL) {
        DOCA_LOG_ERR("verbs_qp (%p) and dbr_addr (%p) must not be NULL", (const void *)verbs_qp,
                     (void *)dbr_addr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *dbr_addr = verbs_qp->layout.dbr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_get_uar_addr(const doca_verbs_qp_t *verbs_qp, void **uar_addr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_get_uar_addr, (verbs_qp, uar_addr), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_qp == NULL || uar_addr == NULL) {
        DOCA_LOG_ERR("verbs_qp (%p) and uar_addr (%p) must not be NULL", (const void *)verbs_qp,
                     (void *)uar_addr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *uar_addr = verbs_qp->layout.uar_reg;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_get_qpn(const doca_verbs_qp_t *verbs_qp, uint32_t *qpn)
{
    DGN_SDK_ROUTE(doca_verbs_qp_get_qpn, (verbs_qp, qpn), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_qp == NULL || qpn == NULL) {
        DOCA_LOG_ERR("verbs_qp (%p) and qpn (%p) must not be NULL", (const void *)verbs_qp,
                     (void *)qpn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *qpn = verbs_qp->qpn;
    return DOCA_SUCCESS;
}

bool doca_verbs_qp_get_emulate_no_dbr_ext(const doca_verbs_qp_t *verbs_qp)
{
    DGN_SDK_ROUTE(doca_verbs_qp_get_emulate_no_dbr_ext, (verbs_qp), false);

    return verbs_qp != NULL && verbs_qp->emulated;
}

bool verbs_qp_get_layout(const doca_verbs_qp_t *qp, struct verbs_qp_layout *layout)
{
    if (qp == NULL || layout == NULL)
        return false;
    *layout = qp->layout;
    return true;
}
