/* SPDX-License-Identifier: BSD-3-Clause */
#include "qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/srq.h"
#include "nic/xrcd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

int emu_qp_create(struct emu_nic *nic, const struct emu_qp_params *p, struct emu_qp **qp_out)
{
    const struct prm_qp_transport *tp = prm_qp_transport_of(p->st);
    struct emu_qp *qp;
    int64_t index;

    bool tgt = p->xrcd != NULL;

    if (tp == NULL || (tgt && !tp->xrc) ||
        (!tgt && (p->pd == NULL || p->send_cq == NULL || p->recv_cq == NULL)) || p->wq == 0 ||
        p->dbrec == 0 || p->log_sq_size > EMU_LOG_MAX_QP_SZ || p->log_rq_size > EMU_LOG_MAX_QP_SZ ||
        p->log_rq_stride > 9)
        return EINVAL;
    qp = calloc(1, sizeof(*qp));
    if (qp == NULL)
        return ENOMEM;
    qp->pending_size = 1u << p->log_sq_size;
    qp->pending = calloc(qp->pending_size, sizeof(*qp->pending));
    if (qp->pending == NULL) {
        free(qp);
        return ENOMEM;
    }
    qp->nic = nic;
    qp->tp = tp;
    qp->p = *p;
    qp->state = PRM_QP_STATE_RST;
    pthread_mutex_init(&qp->lock, NULL);
    pthread_mutex_init(&qp->sq_lock, NULL);
    pthread_mutex_init(&qp->post_lock, NULL);
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->qps, qp);
    if (index >= 0 && tgt) {
        p->xrcd->users++;
    } else if (index >= 0) {
        p->pd->users++;
        p->send_cq->users++;
        p->recv_cq->users++;
        if (p->srq != NULL)
            p->srq->users++;
    }
    pthread_mutex_unlock(&nic->lock);
    if (index < 0) {
        EMU_LOG_ERR("device %s has no free queue pair number", nic->ibdev.name);
        free(qp->pending);
        free(qp);
        return ENOMEM;
    }
    qp->qpn = emu_nic_obj_num(nic, (uint32_t)index);
    *qp_out = qp;
    return 0;
}

void emu_qp_unlist(struct emu_qp *qp)
{
    struct emu_nic *nic = qp->nic;

    pthread_mutex_lock(&nic->lock);
    emu_table_remove(&nic->qps, qp->qpn & EMU_OBJ_INDEX_MASK);
    if (qp->p.xrcd != NULL) {
        qp->p.xrcd->users--;
    } else {
        qp->p.pd->users--;
        qp->p.send_cq->users--;
        qp->p.recv_cq->users--;
        if (qp->p.srq != NULL)
            qp->p.srq->users--;
    }
    pthread_mutex_unlock(&nic->lock);
}

void emu_qp_free(struct emu_qp *qp)
{
    pthread_mutex_destroy(&qp->lock);
    pthread_mutex_destroy(&qp->sq_lock);
    pthread_mutex_destroy(&qp->post_lock);
    free(qp->pending);
    free(qp->sq_ahead.buf);
    free(qp);
}

struct emu_qp *emu_qp_lookup(struct emu_nic *nic, uint32_t qpn)
{
    if ((qpn >> EMU_OBJ_INDEX_BITS) != nic->endpoint_id)
        return NULL;
    return emu_table_get(&nic->qps, qpn & EMU_OBJ_INDEX_MASK);
}
