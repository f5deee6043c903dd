/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CQ polls as a DOCA_GPUNETIO_VERBS_ENABLE_DEBUG=1 build compiles them:
 * with doca_gpu_dev_verbs_cq_print_cqe_err, which the polls call on every
 * error CQE they meet. Compiled only.
 */
#define DOCA_GPUNETIO_VERBS_ENABLE_DEBUG 1

#include <stdint.h>

#include "doca_gpunetio_dev_verbs_cq.cuh"

__global__ void doca_api_cq_debug(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx, int *out)
{
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_sq(qp);

    doca_gpu_dev_verbs_cq_print_cqe_err((struct doca_gpunetio_ib_mlx5_cqe64 *)cq->cqe_daddr);
    *out = doca_gpu_dev_verbs_poll_cq_at<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                         DOCA_GPUNETIO_VERBS_QP_SQ, DOCA_GPUNETIO_VERBS_CQ_64B>(
            qp, idx);
}
