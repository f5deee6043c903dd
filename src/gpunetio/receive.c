/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side of an exported QP (DOCA 5.0's export_qp cq_rq and
 * dbr_cpu_ptr). Each receive WQE has no scatter entry (its first data
 * segment carries the invalid key that ends the list): an RDMA write with
 * immediate consumes one and completes with its immediate, the data having
 * gone where the write put it. All WQEs are handed to the NIC at export;
 * the service (service.c) consumes the receive CQEs and hands each WQE back
 * by raising the receive counter of the doorbell record.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "gpunetio_qp.h"
#include "gpunetio_signal.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

/* Writes every receive WQE: one empty data segment with the list-ending key. */
static doca_error_t rq_write_wqes(doca_verbs_qp_t *qp)
{
    const struct verbs_qp_layout *l = &qp->layout;
    uint8_t *ring = calloc(1, l->rq_bytes);
    doca_error_t err;

    if (ring == NULL) {
        DOCA_LOG_ERR("out of memory building the receive WQEs of QP 0x%x", qp->qpn);
        return DOCA_ERROR_NO_MEMORY;
    }
    for (uint32_t i = 0; i < l->rq_wqe_cnt; i++)
        prm_wqe_set_data_seg((struct prm_wqe_data_seg *)(ring + (size_t)i * l->rq_stride), 0,
                             PRM_WQE_LKEY_END, 0);
    /* The work queue buffer holds the RQ first. */
    err = verbs_buf_write(&qp->wq, 0, ring, l->rq_bytes);
    free(ring);
    return err;
}

/* Hands the NIC every receive WQE up to rq->posted (a 16-bit counter, big-endian). */
static void rq_publish(struct gpunetio_rq *rq)
{
    /* Release: the CQE consumed before is done with before the NIC may reuse its WQE. */
    __atomic_store_n(rq->dbrec, htobe32(rq->posted & 0xffff), __ATOMIC_RELEASE);
}

static doca_error_t rq_start(struct doca_gpu_verbs_qp *gqp)
{
    doca_error_t err = rq_write_wqes(gqp->qp);

    if (err != DOCA_SUCCESS)
        return err;
    gqp->rq.fatal = false;
    gqp->rq.posted = gqp->qp->layout.rq_wqe_cnt;
    rq_publish(&gqp->rq);
    return DOCA_SUCCESS;
}

doca_error_t gpunetio_rq_setup(struct doca_gpu_verbs_qp *gqp, doca_verbs_cq_t *cq_rq,
                               void *dbr_cpu_ptr)
{
    doca_verbs_qp_t *qp = gqp->qp;

    if (cq_rq == NULL || cq_rq != qp->init.receive_cq) {
        DOCA_LOG_ERR("QP 0x%x: dbr_cpu_ptr asks for a service's receive side, which needs cq_rq, "
                     "the QP's receive CQ (without dbr_cpu_ptr, cq_rq gives the data path the "
                     "receive queue)",
                     qp->qpn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (qp->layout.rq_wqe_cnt == 0 || qp->init.srq != NULL) {
        DOCA_LOG_ERR("QP 0x%x has no receive queue of its own (rq_wr 0, or an SRQ): export it "
                     "with cq_rq NULL",
                     qp->qpn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (cq_rq->ring.umem->gpu || cq_rq->dbr.umem->gpu || cq_rq->collapsed) {
        DOCA_LOG_ERR("QP 0x%x: the receive CQ 0x%x must be a regular CQ in host memory: a "
                     "service thread polls it",
                     qp->qpn, cq_rq->cqn);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (qp->dbr.umem->gpu || dbr_cpu_ptr != (void *)qp->layout.dbr) {
        DOCA_LOG_ERR("QP 0x%x: dbr_cpu_ptr %p must be the QP's doorbell record in host memory "
                     "(%p%s): the service raises its receive counter from the CPU",
                     qp->qpn, dbr_cpu_ptr, (void *)qp->layout.dbr,
                     qp->dbr.umem->gpu ? ", which is in GPU memory: that needs GDRCopy" : "");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    gqp->rq.cq = cq_rq;
    gqp->rq.dbrec = qp->layout.dbr;
    gqp->rq.ci = 0;
    return rq_start(gqp);
}

/* Publishes the receive CQ's consumer index: the consumed CQEs' entries back to the NIC. */
static void rq_cq_publish(struct gpunetio_rq *rq)
{
    __atomic_store_n((uint32_t *)verbs_buf_addr(&rq->cq->dbr), htobe32(rq->ci & 0xffffff),
                     __ATOMIC_RELEASE);
}

/* Whether the receive CQ's entry at the consumer index holds a CQE not yet consumed. */
static bool rq_cqe_ready(const struct gpunetio_rq *rq, const struct prm_cqe64 **cqe)
{
    const struct prm_cqe64 *ring = verbs_buf_addr(&rq->cq->ring);

    *cqe = &ring[rq->ci & ((1u << rq->cq->log_size) - 1)];
    return prm_cqe_op_own_sw_owned(__atomic_load_n(&(*cqe)->op_own, __ATOMIC_ACQUIRE), rq->ci,
                                   rq->cq->log_size);
}

/*
 * The CQ is not reset with the QP: the NIC's producer goes on where it
 * was. So the old incarnation's CQEs still there (its flushed receives) are
 * consumed and the consumer index is kept; then every receive WQE is handed
 * to the NIC again (its receive counter restarted with the QP).
 */
doca_error_t gpunetio_rq_reset(struct doca_gpu_verbs_qp *gqp)
{
    const struct prm_cqe64 *cqe;

    if (gqp->rq.cq == NULL)
        return DOCA_SUCCESS;
    while (rq_cqe_ready(&gqp->rq, &cqe))
        gqp->rq.ci++;
    rq_cq_publish(&gqp->rq);
    return rq_start(gqp);
}

/* One line per QP for what the service cannot use (later ones are dropped silently). */
static void rq_note(struct doca_gpu_verbs_qp *gqp, const char *what, uint32_t value)
{
    if (gqp->rq.logged)
        return;
    gqp->rq.logged = true;
    DOCA_LOG_ERR("QP 0x%x: %s 0x%x; later ones are dropped without a line", gqp->qp->qpn, what,
                 value);
}

bool gpunetio_rq_drain(struct doca_gpu_verbs_qp *gqp, struct doca_gpu_verbs_signal_map *map,
                       unsigned int budget)
{
    struct gpunetio_rq *rq = &gqp->rq;
    const struct prm_cqe64 *cqe;
    unsigned int done = 0;

    if (rq->cq == NULL || rq->fatal)
        return false;
    while (done < budget && rq_cqe_ready(rq, &cqe)) {
        struct prm_cqe64 c;

        memcpy(&c, cqe, sizeof(c));
        rq->ci++;
        done++;
        if (prm_cqe_is_error(&c)) {
            rq->fatal = true;
            DOCA_LOG_ERR("QP 0x%x: receive CQE error, syndrome 0x%x: no more signals are "
                         "delivered on this QP",
                         gqp->qp->qpn, prm_cqe_syndrome(&c));
            break;
        }
        if (prm_cqe_opcode(&c) == PRM_CQE_OPCODE_RESP_WR_IMM ||
            prm_cqe_opcode(&c) == PRM_CQE_OPCODE_RESP_SEND_IMM) {
            if (map != NULL)
                gpunetio_signal_apply(map, be32toh(prm_cqe_imm(&c)));
            else
                rq_note(gqp, "an immediate arrived with no signal map on the service",
                        be32toh(prm_cqe_imm(&c)));
        } else {
            rq_note(gqp, "a receive CQE without immediate, opcode", prm_cqe_opcode(&c));
        }
        rq->posted++;
    }
    if (done == 0)
        return false;
    gpunetio_signal_flush(map);
    /* The consumed CQEs' slots back to the NIC, then their receive WQEs. */
    rq_cq_publish(rq);
    rq_publish(rq);
    return true;
}
