/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading an exported QP's descriptor back while kernels may be running:
 * copies go through the QP's own non-blocking stream, so they never wait
 * for a kernel (which may itself be waiting for the NIC). The last error
 * the data path recorded is read that way.
 */
#include <string.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"

doca_error_t gpunetio_qp_read_desc(struct doca_gpu_verbs_qp *gqp, struct doca_gpu_dev_verbs_qp *out)
{
    const struct core_cuda_ops *cuda;
    char why[160];
    core_cu_result rc;
    doca_error_t err;

    if (gqp->gpu == NULL) {
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        memcpy(out, gqp->dev, sizeof(*out));
        return DOCA_SUCCESS;
    }
    err = gpunetio_gpu_bind(gqp->gpu, &cuda);
    if (err != DOCA_SUCCESS)
        return err;
    rc = cuda->cuMemcpyDtoHAsync(out, (core_cu_deviceptr)(uintptr_t)gqp->dev, sizeof(*out),
                                 gqp->stream);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuStreamSynchronize(gqp->stream);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("QP 0x%x: cannot read its descriptor from GPU memory: %s", gqp->qp->qpn,
                     gpunetio_cu_error(cuda, rc, why, sizeof(why)));
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

/* Whether the device holds the QP in the ERR state. */
static bool qp_in_error(doca_verbs_qp_t *qp)
{
    doca_verbs_qp_attr_t *attr = NULL;
    doca_verbs_qp_init_attr_t *init = NULL;
    enum doca_verbs_qp_state state = DOCA_VERBS_QP_STATE_RST;
    bool err = false;

    if (doca_verbs_qp_attr_create(&attr) == DOCA_SUCCESS &&
        doca_verbs_qp_init_attr_create(&init) == DOCA_SUCCESS &&
        doca_verbs_qp_query(qp, attr, init, NULL) == DOCA_SUCCESS &&
        doca_verbs_qp_attr_get_current_state(attr, &state) == DOCA_SUCCESS)
        err = state == DOCA_VERBS_QP_STATE_ERR;
    doca_verbs_qp_init_attr_destroy(init);
    doca_verbs_qp_attr_destroy(attr);
    return err;
}

/* The error a CQ recorded, as the host API reports it. */
static void error_info_of(const struct doca_gpu_dev_verbs_qp_err *e,
                          struct doca_gpu_verbs_qp_error_info *info)
{
    info->has_error = true;
    info->syndrome = e->syndrome;
    info->vendor_err_synd = e->vendor_err_synd;
    info->hw_err_synd = e->hw_err_synd;
    info->hw_synd_type = e->hw_synd_type;
    info->wqe_counter = (int)e->wqe_counter;
}

doca_error_t doca_gpu_verbs_query_last_error(struct doca_gpu_verbs_qp *qp,
                                             struct doca_gpu_verbs_qp_error_info *info)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_query_last_error, (qp, info), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_dev_verbs_qp desc;
    doca_error_t err;

    if (qp == NULL || info == NULL) {
        DOCA_LOG_ERR("qp (%p) and info (%p) must not be NULL", (void *)qp, (void *)info);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = gpunetio_qp_read_desc(qp, &desc);
    if (err != DOCA_SUCCESS)
        return err;
    memset(info, 0, sizeof(*info));
    /* The send CQ's first error, else the data path's receive CQ's (two-sided). */
    if (desc.cq_sq.err.has_error == 1)
        error_info_of(&desc.cq_sq.err, info);
    else if (desc.rq_wqe_num != 0 && desc.cq_rq.err.has_error == 1)
        error_info_of(&desc.cq_rq.err, info);
    else
        info->has_error = qp_in_error(qp->qp);
    return DOCA_SUCCESS;
}
