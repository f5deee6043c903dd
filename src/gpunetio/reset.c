/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_gpu_verbs_reset_tracking_and_memory: an exported QP started over.
 * After the QP was moved to RESET, the NIC counts its WQEs and CQEs from 0
 * again; the data path must too. So the descriptor's counters and consumer
 * state go back to 0, the first error it recorded is forgotten, the send
 * ring and doorbell records are zeroed and every CQE marked invalid (the
 * data path matches CQEs by wqe_counter, so an old CQE must not match a new
 * WQE), the data path's receive queue and receive CQ alike. The NIC's CQ
 * producer goes on where it was, so CQE number 0 of the new incarnation is
 * looked for where it will write next (verbs_cq_rebase). Then the QP can go through INIT, RTR and
 * RTS again.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"

static void reset_counters(struct doca_gpu_dev_verbs_qp *d)
{
    d->sq_rsvd_index = 0;
    d->sq_ready_index = 0;
    d->sq_wqe_pi = 0;
    d->sq_lock = 0;
    d->cq_sq.cqe_ci = 0;
    memset(&d->cq_sq.err, 0, sizeof(d->cq_sq.err));
    d->rq_rsvd_index = 0;
    d->rq_ready_index = 0;
    d->rq_wqe_pi = 0;
    d->rq_lock = 0;
    d->cq_rq.cqe_ci = 0;
    memset(&d->cq_rq.err, 0, sizeof(d->cq_rq.err));
}

/* Zeroes the QP's work queues (both rings) and its doorbell record. */
static doca_error_t reset_wq(doca_verbs_qp_t *qp)
{
    size_t bytes = qp->layout.rq_bytes + qp->layout.sq_bytes;
    const uint8_t zero_dbr[8] = {0};
    void *zero = calloc(1, bytes);
    doca_error_t err;

    if (zero == NULL) {
        DOCA_LOG_ERR("out of memory zeroing the %zu-byte work queues of QP 0x%x", bytes, qp->qpn);
        return DOCA_ERROR_NO_MEMORY;
    }
    err = verbs_buf_write(&qp->wq, 0, zero, bytes);
    free(zero);
    if (err == DOCA_SUCCESS)
        err = verbs_buf_write(&qp->dbr, 0, zero_dbr, sizeof(zero_dbr));
    return err;
}

/* A CQ's CQEs invalid again, CQE number 0 where the NIC writes next (it does not restart). */
static doca_error_t cq_restart(doca_verbs_cq_t *cq, struct doca_gpu_dev_verbs_cq *d)
{
    doca_error_t err = verbs_cq_rebase(cq);

    if (err == DOCA_SUCCESS)
        err = verbs_cq_init_memory(cq);
    d->cqe_base = cq->dp_base;
    d->cqe_base_owner = cq->dp_owner;
    return err;
}

DOCA_STABLE doca_error_t
doca_gpu_verbs_reset_tracking_and_memory(struct doca_gpu_verbs_qp *qp_gverbs)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_reset_tracking_and_memory, (qp_gverbs), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_qp *g = qp_gverbs;
    doca_error_t err;

    if (g == NULL) {
        DOCA_LOG_ERR("qp_gverbs is NULL: pass what doca_gpu_verbs_export_qp() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (g->qp->state != DOCA_VERBS_QP_STATE_RST) {
        DOCA_LOG_ERR("QP 0x%x is in state %s: move it to RESET with doca_verbs_qp_modify() (and "
                     "let no kernel use it) before resetting its tracking, then to INIT, RTR, RTS",
                     g->qp->qpn, verbs_qp_state_name(g->qp->state));
        return DOCA_ERROR_BAD_STATE;
    }
    if (atomic_load(&g->monitored_by) != NULL) {
        DOCA_LOG_ERR("QP 0x%x is monitored by a service: destroy the service before resetting "
                     "the QP's tracking",
                     g->qp->qpn);
        return DOCA_ERROR_IN_USE;
    }
    err = reset_wq(g->qp);
    if (err == DOCA_SUCCESS)
        err = cq_restart(g->cq, &g->desc.cq_sq);
    if (err == DOCA_SUCCESS && g->cq_rq_dp != NULL)
        err = cq_restart(g->cq_rq_dp, &g->desc.cq_rq);
    if (err == DOCA_SUCCESS)
        err = gpunetio_rq_reset(g);
    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&g->proxy_lock);
    if (g->proxy_pi != NULL)
        *(volatile uint64_t *)g->proxy_pi = 0;
    g->proxy_last = 0;
    reset_counters(&g->host_view);
    g->host_view.cq_sq.cqe_base = g->desc.cq_sq.cqe_base;
    g->host_view.cq_sq.cqe_base_owner = g->desc.cq_sq.cqe_base_owner;
    pthread_mutex_unlock(&g->proxy_lock);
    reset_counters(&g->desc);
    err = gpunetio_qp_write_desc(g);
    if (err == DOCA_SUCCESS)
        DOCA_LOG_INFO("QP 0x%x: data-path tracking and rings reset", g->qp->qpn);
    return err;
}
