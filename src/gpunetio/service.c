/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Services: one library thread that makes forward progress on the exported
 * QPs it monitors, so the application runs no proxy loop of its own. For a
 * QP exported with CPU_PROXY, or with an emulated doorbell record, it does
 * what doca_gpu_verbs_cpu_proxy_progress() does (the QP's proxy lock keeps
 * both from ringing at once); for a QP
 * exported with a receive side it drains the receive CQ, applies each
 * signal immediate to the service's signal map and hands the receive WQE
 * back (receive.c). A monitored QP cannot be unexported until its service
 * is destroyed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/log.h"
#include "core/sdk.h"
#include "gpunetio_qp.h"
#include "gpunetio_signal.h"

/* Receive CQEs one QP may consume in one round before the next QP's turn. */
#define SERVICE_RQ_BUDGET 64

struct doca_gpu_verbs_service {
    pthread_t thread;
    atomic_bool stop;
    pthread_mutex_t lock; /* qps */
    struct doca_gpu_verbs_qp **qps;
    size_t nqps;
    size_t capacity;
    struct doca_gpu_verbs_signal_map *map; /* guarded by lock */
};

/* One round over every monitored QP; true if any did something. */
static bool service_round(struct doca_gpu_verbs_service *svc)
{
    bool progressed = false;

    pthread_mutex_lock(&svc->lock);
    for (size_t i = 0; i < svc->nqps; i++) {
        struct doca_gpu_verbs_qp *qp = svc->qps[i];

        if (gpunetio_qp_proxied(qp))
            progressed |= gpunetio_proxy_round(qp);
        progressed |= gpunetio_rq_drain(qp, svc->map, SERVICE_RQ_BUDGET);
    }
    pthread_mutex_unlock(&svc->lock);
    return progressed;
}

static void *service_main(void *arg)
{
    struct doca_gpu_verbs_service *svc = arg;
    unsigned int idle = 0;

    while (!atomic_load_explicit(&svc->stop, memory_order_relaxed))
        gpunetio_proxy_pace(service_round(svc), &idle);
    return NULL;
}

doca_error_t doca_gpu_verbs_create_service(doca_gpu_verbs_service_t *out_service)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_create_service, (out_service), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_service *svc;
    int rc;

    if (out_service == NULL) {
        DOCA_LOG_ERR("out_service is NULL: pass where to store the service");
        return DOCA_ERROR_INVALID_VALUE;
    }
    svc = calloc(1, sizeof(*svc));
    if (svc == NULL) {
        DOCA_LOG_ERR("out of memory for a service");
        return DOCA_ERROR_NO_MEMORY;
    }
    pthread_mutex_init(&svc->lock, NULL);
    atomic_init(&svc->stop, false);
    rc = pthread_create(&svc->thread, NULL, service_main, svc);
    if (rc != 0) {
        DOCA_LOG_ERR("cannot start the service thread: %s", strerror(rc));
        pthread_mutex_destroy(&svc->lock);
        free(svc);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    DOCA_LOG_INFO("service %p started", (void *)svc);
    *out_service = svc;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_service_monitor_qp(doca_gpu_verbs_service_t service,
                                               struct doca_gpu_verbs_qp *qp)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_service_monitor_qp, (service, qp), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_service *svc = service, *none = NULL;
    struct doca_gpu_verbs_qp **qps;

    if (svc == NULL || qp == NULL) {
        DOCA_LOG_ERR("service (%p) and qp (%p) must not be NULL", service, (void *)qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (atomic_load(&qp->monitored_by) == svc)
        return DOCA_SUCCESS;
    pthread_mutex_lock(&svc->lock);
    qps = core_array_room(svc->qps, &svc->capacity, svc->nqps, sizeof(*qps));
    if (qps == NULL) {
        pthread_mutex_unlock(&svc->lock);
        DOCA_LOG_ERR("out of memory monitoring QP 0x%x", qp->qp->qpn);
        return DOCA_ERROR_NO_MEMORY;
    }
    svc->qps = qps;
    if (!atomic_compare_exchange_strong(&qp->monitored_by, &none, svc)) {
        pthread_mutex_unlock(&svc->lock);
        DOCA_LOG_ERR("QP 0x%x is already monitored by service %p: a QP has one service",
                     qp->qp->qpn, (void *)none);
        return DOCA_ERROR_IN_USE;
    }
    svc->qps[svc->nqps++] = qp;
    pthread_mutex_unlock(&svc->lock);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_service(doca_gpu_verbs_service_t service)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_destroy_service, (service), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_service *svc = service;

    if (svc == NULL) {
        DOCA_LOG_ERR("service is NULL: pass what doca_gpu_verbs_create_service() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    atomic_store(&svc->stop, true);
    pthread_join(svc->thread, NULL);
    if (svc->map != NULL)
        gpunetio_signal_attach(svc->map, false);
    for (size_t i = 0; i < svc->nqps; i++)
        atomic_store(&svc->qps[i]->monitored_by, NULL);
    pthread_mutex_destroy(&svc->lock);
    free(svc->qps);
    DOCA_LOG_INFO("service %p stopped", (void *)svc);
    free(svc);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_service_set_signal_map(doca_gpu_verbs_service_t service,
                                                   struct doca_gpu_verbs_signal_map *map)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_service_set_signal_map, (service, map), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_service *svc = service;
    doca_error_t err = DOCA_SUCCESS;

    if (svc == NULL) {
        DOCA_LOG_ERR("service is NULL: pass what doca_gpu_verbs_create_service() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&svc->lock);
    if (map != svc->map) {
        if (map != NULL)
            err = gpunetio_signal_attach(map, true);
        if (err == DOCA_SUCCESS) {
            if (svc->map != NULL)
                gpunetio_signal_attach(svc->map, false);
            svc->map = map;
        }
    }
    pthread_mutex_unlock(&svc->lock);
    return err;
}
