/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQ events for exported QPs: arming a CQ (doca_gpu_verbs_req_notify_cq)
 * and the net-event object, which subscribes QPs' send CQs to one DOCA
 * Verbs completion channel (src/verbs/comp_channel.c) and answers which QP
 * fired. A GPU kernel meeting an error CQE never calls the library; the
 * armed CQ makes the device tell the host.
 */
#include <pthread.h>
#include <stdlib.h>

#include "core/array.h"
#include "core/log.h"
#include "core/sdk.h"
#include "gpunetio_qp.h"

struct doca_gpu_net_event {
    doca_verbs_comp_channel_t *channel;
    pthread_mutex_t lock; /* qps */
    struct doca_gpu_verbs_qp **qps;
    size_t nqps;
    size_t capacity;
    bool degraded; /* a subscribe failed half-way: only destroy is allowed */
};

doca_error_t doca_gpu_verbs_req_notify_cq(doca_gpu_t *gpu_dev, doca_verbs_cq_t *verbs_cq)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_req_notify_cq, (gpu_dev, verbs_cq), DOCA_ERROR_NOT_SUPPORTED);

    (void)gpu_dev; /* the record's placement is known from its UMEM */
    if (verbs_cq == NULL) {
        DOCA_LOG_ERR("verbs_cq is NULL: pass the CQ to arm");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return verbs_cq_arm_solicited(verbs_cq);
}

doca_error_t doca_gpu_net_event_create(doca_dev_t *net_dev, doca_gpu_net_event_t *out_event)
{
    DGN_SDK_ROUTE(doca_gpu_net_event_create, (net_dev, out_event), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_net_event *ev;
    doca_error_t err;

    if (net_dev == NULL || out_event == NULL) {
        DOCA_LOG_ERR("net_dev (%p) and out_event (%p) must not be NULL", (void *)net_dev,
                     (void *)out_event);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ev = calloc(1, sizeof(*ev));
    if (ev == NULL) {
        DOCA_LOG_ERR("out of memory for a net-event object");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = doca_verbs_comp_channel_create(net_dev, &ev->channel);
    if (err != DOCA_SUCCESS) {
        free(ev);
        return err;
    }
    pthread_mutex_init(&ev->lock, NULL);
    *out_event = ev;
    return DOCA_SUCCESS;
}

/* Index of qp in ev's list, or -1 (caller holds ev->lock). */
static long net_event_find(const struct doca_gpu_net_event *ev, const struct doca_gpu_verbs_qp *qp)
{
    for (size_t i = 0; i < ev->nqps; i++) {
        if (ev->qps[i] == qp)
            return (long)i;
    }
    return -1;
}

/* Subscribes one QP's send CQ and arms it (caller holds ev->lock). */
static doca_error_t net_event_add(struct doca_gpu_net_event *ev, struct doca_gpu_verbs_qp *qp)
{
    doca_verbs_cq_t *cq = qp->cq;
    struct doca_gpu_verbs_qp **qps;
    doca_error_t err;

    if (net_event_find(ev, qp) >= 0)
        return DOCA_SUCCESS;
    if (cq->comp_channel != NULL) {
        DOCA_LOG_ERR("QP 0x%x: its send CQ 0x%x already reports to another completion channel",
                     qp->qp->qpn, cq->cqn);
        return DOCA_ERROR_BAD_STATE;
    }
    qps = core_array_room(ev->qps, &ev->capacity, ev->nqps, sizeof(*qps));
    if (qps == NULL) {
        DOCA_LOG_ERR("out of memory subscribing QP 0x%x", qp->qp->qpn);
        return DOCA_ERROR_NO_MEMORY;
    }
    ev->qps = qps;
    err = verbs_comp_channel_attach(ev->channel, cq);
    if (err != DOCA_SUCCESS)
        return err;
    cq->comp_channel = ev->channel;
    ev->qps[ev->nqps++] = qp;
    atomic_fetch_add(&qp->event_users, 1);
    return verbs_cq_arm_solicited(cq);
}

doca_error_t doca_gpu_net_event_subscribe(doca_gpu_net_event_t event,
                                          struct doca_gpu_verbs_qp *qps[], unsigned int num_qps)
{
    DGN_SDK_ROUTE(doca_gpu_net_event_subscribe, (event, qps, num_qps), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = DOCA_SUCCESS;

    if (event == NULL || qps == NULL || num_qps == 0) {
        DOCA_LOG_ERR("event (%p) and qps (%p) must not be NULL and num_qps (%u) not 0",
                     (void *)event, (void *)qps, num_qps);
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (unsigned int i = 0; i < num_qps; i++) {
        if (qps[i] == NULL) {
            DOCA_LOG_ERR("qps[%u] is NULL: pass exported QPs", i);
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    pthread_mutex_lock(&event->lock);
    if (event->degraded) {
        pthread_mutex_unlock(&event->lock);
        DOCA_LOG_ERR("an earlier subscribe of this net-event object failed: destroy it");
        return DOCA_ERROR_BAD_STATE;
    }
    for (unsigned int i = 0; i < num_qps && err == DOCA_SUCCESS; i++)
        err = net_event_add(event, qps[i]);
    event->degraded = err != DOCA_SUCCESS;
    pthread_mutex_unlock(&event->lock);
    return err;
}

doca_error_t doca_gpu_net_event_get(doca_gpu_net_event_t event, struct doca_gpu_verbs_qp **out_qp)
{
    DGN_SDK_ROUTE(doca_gpu_net_event_get, (event, out_qp), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_cq_t *cq;
    doca_error_t err;

    if (event == NULL || out_qp == NULL) {
        DOCA_LOG_ERR("event (%p) and out_qp (%p) must not be NULL", (void *)event, (void *)out_qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *out_qp = NULL;
    err = verbs_comp_channel_next(event->channel, false, &cq);
    if (err == DOCA_ERROR_AGAIN)
        return DOCA_SUCCESS;
    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&event->lock);
    for (size_t i = 0; i < event->nqps; i++) {
        if (event->qps[i]->cq == cq) {
            *out_qp = event->qps[i];
            break;
        }
    }
    pthread_mutex_unlock(&event->lock);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_net_event_destroy(doca_gpu_net_event_t event)
{
    DGN_SDK_ROUTE(doca_gpu_net_event_destroy, (event), DOCA_ERROR_NOT_SUPPORTED);

    if (event == NULL) {
        DOCA_LOG_ERR("event is NULL: pass what doca_gpu_net_event_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&event->lock);
    for (size_t i = 0; i < event->nqps; i++) {
        struct doca_gpu_verbs_qp *qp = event->qps[i];

        verbs_comp_channel_detach(event->channel, qp->cq);
        qp->cq->comp_channel = NULL;
        atomic_fetch_sub(&qp->event_users, 1);
    }
    event->nqps = 0;
    pthread_mutex_unlock(&event->lock);
    doca_verbs_comp_channel_destroy(event->channel);
    pthread_mutex_destroy(&event->lock);
    free(event->qps);
    free(event);
    return DOCA_SUCCESS;
}
