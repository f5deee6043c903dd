/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU proxy: for a QP exported with CPU_PROXY the data path publishes
 * its producer index in a host word instead of ringing the NIC; a CPU
 * thread reads the word and writes the doorbell record and the doorbell for
 * it, with the same core function a GPU thread rings with (gdaki_sq_ring on
 * the host view of the queue). CPU_PROXY_FREE_FLOW runs that thread inside
 * the library. The same round keeps an emulated doorbell record
 * (NO_DBR_SW_EMULATED under GPU_SM_NO_DBR): the data path rang the doorbell
 * itself, and the thread only writes the record.
 */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "core/sdk.h"
#include "gdaki_verbs_sq.h"
#include "gpunetio/gpunetio_qp.h"

bool gpunetio_proxy_round(struct doca_gpu_verbs_qp *gqp)
{
    uint64_t published;
    bool rang = false;

    pthread_mutex_lock(&gqp->proxy_lock);
    /* Acquire: the WQEs the data path wrote before publishing are visible to the NIC after. */
    published = __atomic_load_n(gqp->proxy_pi, __ATOMIC_ACQUIRE);
    if (published != gqp->proxy_last) {
        if (gpunetio_qp_emulated_dbr(gqp))
            gdaki_dbr_write(gqp->host_view.sq_dbrec, gdaki_sq_dbr_value(published),
                            DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS, 0);
        else
            gdaki_sq_ring(&gqp->host_view, published, gqp->host_view.nic_handler);
        gqp->proxy_last = published;
        rang = true;
    }
    pthread_mutex_unlock(&gqp->proxy_lock);
    return rang;
}

doca_error_t doca_gpu_verbs_cpu_proxy_progress(struct doca_gpu_verbs_qp *qp, bool *out_progressed)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_cpu_proxy_progress, (qp, out_progressed),
                  DOCA_ERROR_NOT_SUPPORTED);

    bool rang;

    if (qp == NULL) {
        DOCA_LOG_ERR("qp is NULL: pass what doca_gpu_verbs_export_qp() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!gpunetio_qp_proxied(qp)) {
        DOCA_LOG_ERR("QP 0x%x was exported with NIC handler %s and a doorbell record of mode "
                     "%s, which need no call to doca_gpu_verbs_cpu_proxy_progress()",
                     qp->qp->qpn, gdaki_nic_handler_name(qp->nic_handler),
                     gpunetio_dbr_mode_name(qp->dbr_mode));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    rang = gpunetio_proxy_round(qp);
    if (out_progressed != NULL)
        *out_progressed = rang;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_cpu_proxy_enabled(const struct doca_gpu_verbs_qp *qp,
                                              uint8_t *out_enabled)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_cpu_proxy_enabled, (qp, out_enabled), DOCA_ERROR_NOT_SUPPORTED);

    if (qp == NULL || out_enabled == NULL) {
        DOCA_LOG_ERR("qp (%p) and out_enabled (%p) must not be NULL", (const void *)qp,
                     (void *)out_enabled);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *out_enabled = (qp->nic_handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) != 0 ||
                   gpunetio_qp_emulated_dbr(qp);
    return DOCA_SUCCESS;
}

void gpunetio_proxy_pace(bool progressed, unsigned int *idle)
{
    const struct timespec nap = {.tv_sec = 0, .tv_nsec = 50000};

    if (progressed)
        *idle = 0;
    else if (++*idle < 1024)
        sched_yield();
    else
        nanosleep(&nap, NULL);
}

/* The free-flow proxy of one QP. */
static void *free_flow_main(void *arg)
{
    struct doca_gpu_verbs_qp *gqp = arg;
    unsigned int idle = 0;

    while (!atomic_load_explicit(&gqp->free_flow_stop, memory_order_relaxed))
        gpunetio_proxy_pace(gpunetio_proxy_round(gqp), &idle);
    return NULL;
}

doca_error_t gpunetio_free_flow_start(struct doca_gpu_verbs_qp *gqp)
{
    int rc = pthread_create(&gqp->free_flow, NULL, free_flow_main, gqp);

    if (rc != 0) {
        DOCA_LOG_ERR("QP 0x%x: cannot start the CPU proxy thread: %s", gqp->qp->qpn, strerror(rc));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    gqp->free_flow_running = true;
    return DOCA_SUCCESS;
}

void gpunetio_free_flow_stop(struct doca_gpu_verbs_qp *gqp)
{
    if (!gqp->free_flow_running)
        return;
    atomic_store(&gqp->free_flow_stop, true);
    pthread_join(gqp->free_flow, NULL);
    gqp->free_flow_running = false;
}
