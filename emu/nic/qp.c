/* SPDX-License-Identifier: BSD-3-Clause */
#include "qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/srq.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

int emu_qp_create(struct emu_nic *nic, const struct emu_qp_params *p, struct emu_qp **qp_out)
{
    struct emu_qp *qp;
    int64_t index;

    if (p->pd == NULL || p->send_cq == NULL || p->recv_cq == NULL || p->wq == 0 || p->dbrec == 0 ||
        p->log_sq_size > EMU_LOG_MAX_QP_SZ || p->log_rq_size > EMU_LOG_MAX_QP_SZ ||
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
    qp->p = *p;
    qp->state = PRM_QP_STATE_RST;
    pthread_mutex_init(&qp->lock, NULL);
    pthread_mutex_init(&qp->sq_lock, NULL);
    pthread_mutex_init(&qp->post_lock, NULL);
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->qps, qp);
    if (index >= 0) {
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
    /* Its doorbells are rung on a UAR page: the progress thread polls while such QPs exist. */
    if (p->uar != NULL)
        emu_wire_uar_watch(nic, 1);
    *qp_out = qp;
    return 0;
}

/* Drops outstanding work without completions and forgets the connection (qp->lock held). */
static void qp_reset(struct emu_qp *qp)
{
    __atomic_sub_fetch(&qp->nic->wire->inflight, (int)(qp->pending_tail - qp->pending_head),
                       __ATOMIC_RELAXED);
    qp->pending_head = qp->pending_tail = 0;
    qp->reads_in_flight = 0;
    qp->rnr_resume_ns = 0;
    qp->resp_discard = false;
    emu_engine_wait_arm(qp, false);
    qp->sq_posted = qp->sq_consumer = 0;
    qp->rq_consumer = 0;
}

int emu_qp_destroy(struct emu_qp *qp)
{
    struct emu_nic *nic = qp->nic;

    pthread_mutex_lock(&nic->lock);
    emu_table_remove(&nic->qps, qp->qpn & EMU_OBJ_INDEX_MASK);
    qp->p.pd->users--;
    qp->p.send_cq->users--;
    qp->p.recv_cq->users--;
    if (qp->p.srq != NULL)
        qp->p.srq->users--;
    pthread_mutex_unlock(&nic->lock);
    /* The progress thread may be working on the QP it looked up before the removal. */
    emu_wire_quiesce(nic);
    /* A requester running in another thread finishes first. */
    pthread_mutex_lock(&qp->sq_lock);
    pthread_mutex_lock(&qp->lock);
    qp_reset(qp);
    pthread_mutex_unlock(&qp->lock);
    pthread_mutex_unlock(&qp->sq_lock);
    if (qp->peer != NULL)
        emu_conn_put(qp->peer);
    if (qp->p.uar != NULL)
        emu_wire_uar_watch(nic, -1);
    pthread_mutex_destroy(&qp->lock);
    pthread_mutex_destroy(&qp->sq_lock);
    pthread_mutex_destroy(&qp->post_lock);
    free(qp->pending);
    free(qp);
    return 0;
}

struct emu_qp *emu_qp_lookup(struct emu_nic *nic, uint32_t qpn)
{
    if ((qpn >> EMU_OBJ_INDEX_BITS) != nic->endpoint_id)
        return NULL;
    return emu_table_get(&nic->qps, qpn & EMU_OBJ_INDEX_MASK);
}

static bool qp_transition_legal(uint8_t from, uint8_t to)
{
    if (to == PRM_QP_STATE_RST || to == PRM_QP_STATE_ERR)
        return true;
    switch (from) {
    case PRM_QP_STATE_RST:
        return to == PRM_QP_STATE_INIT;
    case PRM_QP_STATE_INIT:
        return to == PRM_QP_STATE_INIT || to == PRM_QP_STATE_RTR;
    case PRM_QP_STATE_RTR:
        return to == PRM_QP_STATE_RTS;
    case PRM_QP_STATE_RTS:
        return to == PRM_QP_STATE_RTS || to == PRM_QP_STATE_SQD;
    case PRM_QP_STATE_SQD:
        return to == PRM_QP_STATE_RTS || to == PRM_QP_STATE_SQD;
    case PRM_QP_STATE_SQER:
        return to == PRM_QP_STATE_RTS;
    default:
        return false;
    }
}

/* The remote device's address from the address vector: IPv4-mapped GID, or this host. */
static uint32_t qp_remote_ipv4(const struct emu_qp_attr *a)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    if (!a->grh || memcmp(a->rgid, mapped, sizeof(mapped)) != 0)
        return 0;
    return ((uint32_t)a->rgid[12] << 24) | ((uint32_t)a->rgid[13] << 16) |
           ((uint32_t)a->rgid[14] << 8) | a->rgid[15];
}

/* INIT2RTR: connects to the remote QP's endpoint (remote_qpn >> 16). */
static int qp_connect(struct emu_qp *qp, const struct emu_qp_attr *a)
{
    uint32_t ep = a->remote_qpn >> EMU_OBJ_INDEX_BITS;
    struct emu_conn *conn;
    int err;

    if (ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS) {
        EMU_LOG_ERR("QP 0x%x: remote QPN 0x%x names no endpoint (1..%d in bits 23:16)", qp->qpn,
                    a->remote_qpn, EMU_WIRE_MAX_ENDPOINTS);
        return EINVAL;
    }
    err = emu_wire_connect(qp->nic, qp_remote_ipv4(a), (uint16_t)ep, &conn);
    if (err != 0)
        return 0; /* logged; requests complete with retry-exceeded errors */
    if (qp->peer != NULL)
        emu_conn_put(qp->peer);
    qp->peer = conn;
    return 0;
}

int emu_qp_transition(struct emu_qp *qp, uint8_t from, uint8_t to, const struct emu_qp_attr *attr)
{
    struct emu_qp_attr a = attr != NULL ? *attr : qp->attr;
    int err = 0;
    bool run = false;

    pthread_mutex_lock(&qp->lock);
    if (qp->state != from || !qp_transition_legal(from, to)) {
        EMU_LOG_ERR("QP 0x%x: transition %u->%u refused (QP is in state %u)", qp->qpn, from, to,
                    qp->state);
        pthread_mutex_unlock(&qp->lock);
        return EINVAL;
    }
    if (from == PRM_QP_STATE_INIT && to == PRM_QP_STATE_RTR) {
        pthread_mutex_unlock(&qp->lock);
        err = qp_connect(qp, &a); /* may block on connect: outside the lock */
        pthread_mutex_lock(&qp->lock);
        if (err != 0) {
            pthread_mutex_unlock(&qp->lock);
            return err;
        }
        qp->expected_psn = a.rq_psn;
    }
    if (from == PRM_QP_STATE_RTR && to == PRM_QP_STATE_RTS) {
        qp->next_psn = a.sq_psn;
        qp->rnr_retries_left = a.rnr_retry;
        qp->retries_left = a.retry_count;
    }
    qp->attr = a;
    if (to == PRM_QP_STATE_ERR) {
        emu_engine_qp_fail(qp, 0);
        run = true;
    } else if (to == PRM_QP_STATE_RST) {
        qp_reset(qp);
        qp->state = to;
    } else {
        qp->state = to;
        run = to == PRM_QP_STATE_RTS;
    }
    pthread_mutex_unlock(&qp->lock);
    if (to == PRM_QP_STATE_RST) {
        /* Wait out a requester still running, then start from empty queues. */
        pthread_mutex_lock(&qp->sq_lock);
        pthread_mutex_lock(&qp->lock);
        qp_reset(qp);
        pthread_mutex_unlock(&qp->lock);
        pthread_mutex_unlock(&qp->sq_lock);
    }
    if (run)
        emu_engine_sq_run(qp);
    return 0;
}

void emu_qp_sq_doorbell(struct emu_qp *qp, uint32_t producer)
{
    pthread_mutex_lock(&qp->lock);
    qp->sq_posted += (producer - qp->sq_posted) & 0xffff;
    pthread_mutex_unlock(&qp->lock);
    emu_engine_sq_run(qp);
}
