/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several exported QPs' descriptors side by side in one array, so that a
 * kernel indexes QPs (one per thread, warp or block) without a pointer per
 * QP. Each slot starts as a copy of its QP's descriptor as it is now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"

static doca_error_t multi_check(doca_gpu_t *gpu_dev, struct doca_gpu_verbs_qp **qps,
                                unsigned int num_qps)
{
    if (qps == NULL || num_qps == 0) {
        DOCA_LOG_ERR("qps (%p) must list num_qps (%u) > 0 exported QPs", (void *)qps, num_qps);
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (unsigned int i = 0; i < num_qps; i++) {
        if (qps[i] != NULL && qps[i]->gpu != gpu_dev) {
            DOCA_LOG_ERR("qps[%u] (QP 0x%x) was exported with another GPU context than %p", i,
                         qps[i]->qp->qpn, (void *)gpu_dev);
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_export_multi_qps_dev(doca_gpu_t *gpu_dev,
                                                 struct doca_gpu_verbs_qp **qps,
                                                 unsigned int num_qps,
                                                 struct doca_gpu_dev_verbs_qp **out_qp_gpus)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_export_multi_qps_dev, (gpu_dev, qps, num_qps, out_qp_gpus),
                  DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_dev_verbs_qp *host;
    size_t bytes = sizeof(*host) * num_qps;
    void *dev = NULL;
    char what[48];
    doca_error_t err = multi_check(gpu_dev, qps, num_qps);

    if (err == DOCA_SUCCESS && out_qp_gpus == NULL) {
        DOCA_LOG_ERR("out_qp_gpus is NULL");
        err = DOCA_ERROR_INVALID_VALUE;
    }
    if (err != DOCA_SUCCESS)
        return err;
    host = aligned_alloc(DOCA_GPUNETIO_VERBS_QP_LINE, bytes);
    if (host == NULL) {
        DOCA_LOG_ERR("out of memory for %u QP descriptors", num_qps);
        return DOCA_ERROR_NO_MEMORY;
    }
    memset(host, 0, bytes);
    for (unsigned int i = 0; i < num_qps && err == DOCA_SUCCESS; i++)
        if (qps[i] != NULL)
            err = gpunetio_qp_read_desc(qps[i], &host[i]);
    if (err != DOCA_SUCCESS || gpu_dev == NULL) {
        if (err == DOCA_SUCCESS)
            *out_qp_gpus = host;
        else
            free(host);
        return err;
    }
    snprintf(what, sizeof(what), "%u QP descriptors", num_qps);
    err = gpunetio_mem_upload(gpu_dev, host, bytes, DOCA_GPUNETIO_VERBS_QP_LINE, what, &dev);
    free(host);
    if (err != DOCA_SUCCESS)
        return err;
    *out_qp_gpus = dev;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_unexport_multi_qps_dev(doca_gpu_t *gpu_dev,
                                                   struct doca_gpu_verbs_qp **qps,
                                                   unsigned int num_qps,
                                                   struct doca_gpu_dev_verbs_qp *qp_gpus)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_unexport_multi_qps_dev, (gpu_dev, qps, num_qps, qp_gpus),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = multi_check(gpu_dev, qps, num_qps);

    if (err == DOCA_SUCCESS && qp_gpus == NULL) {
        DOCA_LOG_ERR("qp_gpus is NULL: pass what doca_gpu_verbs_export_multi_qps_dev() gave");
        err = DOCA_ERROR_INVALID_VALUE;
    }
    if (err != DOCA_SUCCESS)
        return err;
    if (gpu_dev == NULL) {
        free(qp_gpus);
        return DOCA_SUCCESS;
    }
    return doca_gpu_mem_free(gpu_dev, qp_gpus);
}
