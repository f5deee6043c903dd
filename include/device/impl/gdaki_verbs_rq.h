/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-queue protocol of the data-path core, the send queue's three
 * steps (gdaki_verbs_sq.h) on the receive side:
 *
 *   reserve  an atomic add on rq_rsvd_index hands out receive WQE slots;
 *            unless told to skip it, the caller then waits until the
 *            receive that last used a slot has completed (its receive CQE:
 *            a message consumed it), so that a slot the NIC may still fill
 *            is never rewritten;
 *   ready    rq_ready_index moves past a thread's receive WQEs once every
 *            earlier one is ready;
 *   submit   under rq_lock, rq_wqe_pi is raised to rq_ready_index and its
 *            low 16 bits are stored in the doorbell record's receive
 *            counter, after a release fence: that store is what hands
 *            receive WQEs to the NIC (a receive queue has no doorbell).
 *
 * The receive CQ (cq_rq) completes receive WQE number i with CQE number i,
 * whose wqe_counter names it: an RC receive queue completes in order, so
 * the send queue's polls (gdaki_verbs_cq.h) serve it unchanged.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_RQ_H
#define DOCA_GPUNETIO_IMPL_VERBS_RQ_H

#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "gdaki_verbs_cq.h"
#include "gdaki_verbs_sq.h"
#include "gdaki_verbs_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/* Waits until the n receive slots from base are free (their last receives have completed). */
GDAKI_INLINE void gdaki_rq_wait_slots(struct doca_gpu_dev_verbs_qp *qp, uint64_t base, uint32_t n)
{
    uint64_t end = base + n;
    uint32_t num = gdaki_ro_u32(&qp->rq_wqe_num);

    /* An error completion frees the slot too, and fails every later one: no spin on a dead QP. */
    if (end > num)
        while (gdaki_cq_poll_one_at(&qp->cq_rq, end - 1 - num) == EBUSY)
            gdaki_spin_pause();
}

/* Hands out n consecutive receive slots; returns the index of the first. */
GDAKI_INLINE uint64_t gdaki_rq_reserve(struct doca_gpu_dev_verbs_qp *qp, uint32_t n,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                       uint32_t code_opt)
{
    uint64_t base = gdaki_atomic_add_u64(&qp->rq_rsvd_index, n, rsm);

    if ((code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK) == 0)
        gdaki_rq_wait_slots(qp, base, n);
    return base;
}

/* Publishes receive WQEs [from, to] as written, after every earlier one (gdaki_ready_advance). */
GDAKI_INLINE void gdaki_rq_ready(struct doca_gpu_dev_verbs_qp *qp, uint64_t from, uint64_t to,
                                 enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                 enum doca_gpu_dev_verbs_qp_ready_mode mode)
{
    gdaki_ready_advance(&qp->rq_ready_index, from, to, rsm, mode);
}

/*
 * The receive counter of the doorbell record for prod (its low 16 bits,
 * big-endian, like the send counter), after a release fence of the
 * receive queue's NIC scope, or SYS when sys is set.
 */
GDAKI_INLINE void gdaki_rq_dbr_update(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod, int sys,
                                      uint32_t code_opt)
{
    gdaki_be32_t *dbrec = (gdaki_be32_t *)gdaki_ro_ptr((void *const *)&qp->rq_dbrec);
    const gdaki_be32_t val = gdaki_sq_dbr_value(prod);

    if (!sys && gdaki_ro_u32(&qp->rq_nic_scope) == DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU)
        gdaki_dbr_write(dbrec, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, code_opt);
    else
        gdaki_dbr_write(dbrec, val, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, code_opt);
}

/*
 * Hands the NIC every receive WQE below prod_idx (and any later one already
 * ready), once: the publication protocol of the send queue on rq_wqe_pi,
 * rq_lock and rq_ready_index. sys: fence at system scope (DOCA's sync_scope
 * SYS). SKIP_DB_RINGING in code_opt publishes nothing.
 */
GDAKI_INLINE void gdaki_rq_submit(struct doca_gpu_dev_verbs_qp *qp, uint64_t prod_idx,
                                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm, int sys,
                                  uint32_t code_opt)
{
    uint64_t pub;

    if (code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING)
        return;
    pub = gdaki_publish_begin(&qp->rq_wqe_pi, &qp->rq_lock, &qp->rq_ready_index, prod_idx, rsm);
    if (pub == 0)
        return;
    gdaki_rq_dbr_update(qp, pub, sys, code_opt);
    gdaki_publish_end(&qp->rq_wqe_pi, &qp->rq_lock, pub, rsm);
}

#endif /* DOCA_GPUNETIO_IMPL_VERBS_RQ_H */
