/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of doca_gpunetio_dev_verbs_cq.cuh called with DOCA's
 * parameter lists: explicit template arguments in DOCA's order (as DOCA's
 * one-sided and counter headers and examples pass them), defaults left out
 * and given, results kept in DOCA's return types. A wrong name, order or
 * type fails the build. Also the older calls that pass the CQ. Compiled
 * only; tests/unit/test_gdaki_cq.c checks what the calls do.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_verbs_cq.cuh"

#define RSM_GPU  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define RSM_CTA  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define RSM_EXCL DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define QP_SQ    DOCA_GPUNETIO_VERBS_QP_SQ

/* The CQ getters and the index helper. */
__global__ void doca_api_cq_get(struct doca_gpu_dev_verbs_qp *qp, uint32_t *out)
{
    struct doca_gpu_dev_verbs_cq *a = doca_gpu_dev_verbs_qp_get_cq_sq(qp);
    struct doca_gpu_dev_verbs_cq *b = doca_gpu_dev_verbs_qp_get_cq(qp);
    struct doca_gpu_dev_verbs_cq *c = doca_gpu_dev_verbs_qp_get_cq<QP_SQ>(qp);
    uint32_t ci = doca_gpu_dev_verbs_cqe_idx_inc_mask(out[0], out[1]);

    out[2] = ci + (a == b) + (b == c);
}

/* Non-blocking polls, every kind of CQ, on the CQ and on the QP. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
          enum doca_gpu_dev_verbs_cq_type cq_type>
__global__ void doca_api_cq_poll_one(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx, int *out)
{
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq<QP_SQ>(qp);
    int r = 0;

    r |= doca_gpu_dev_verbs_poll_one_cq_device_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_device_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_host_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_host_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_one_collapsed_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_one_collapsed_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_collapsed_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_collapsed_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_at(qp, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_at<rsm>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_at<rsm, QP_SQ>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_at<rsm, QP_SQ, cq_type>(qp, idx);
    /* The older calls, with the CQ. */
    r |= doca_gpu_dev_verbs_poll_one_cq_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_one_cq_at<rsm, QP_SQ, cq_type>(cq, idx);
    *out = r;
}

/* Blocking polls, every kind of CQ, on the CQ and on the QP. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
          enum doca_gpu_dev_verbs_cq_type cq_type>
__global__ void doca_api_cq_poll(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx, uint32_t count,
                                 int *out)
{
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_sq(qp);
    int r = 0;

    r |= doca_gpu_dev_verbs_poll_cq_device_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_device_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_host_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_host_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_collapsed_at(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_collapsed_at<rsm>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_collapsed_at<rsm, QP_SQ>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_SQ>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_SQ, cq_type>(qp, idx);
    r |= doca_gpu_dev_verbs_poll_cq(qp, count);
    r |= doca_gpu_dev_verbs_poll_cq<rsm>(qp, count);
    r |= doca_gpu_dev_verbs_poll_cq<rsm, QP_SQ>(qp, count);
    r |= doca_gpu_dev_verbs_poll_cq<rsm, QP_SQ, cq_type>(qp, count);
    /* The older calls, with the CQ. */
    r |= doca_gpu_dev_verbs_poll_cq_at(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_SQ>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq_at<rsm, QP_SQ, cq_type>(cq, idx);
    r |= doca_gpu_dev_verbs_poll_cq(cq, count);
    r |= doca_gpu_dev_verbs_poll_cq<rsm, QP_SQ, cq_type>(cq, count);
    *out = r;
}

/* The consumer doorbell record, both ways. */
__global__ void doca_api_cq_dbrec(struct doca_gpu_dev_verbs_qp *qp, uint32_t n, uint32_t *out)
{
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_sq(qp);

    out[0] = doca_gpu_dev_verbs_cq_update_dbrec<false>(cq, n);
    out[1] = doca_gpu_dev_verbs_cq_update_dbrec<true>(cq, n);
}

#define DOCA_API_CQ_KINDS(rsm)                                                                     \
    template __global__ void doca_api_cq_poll_one<rsm, DOCA_GPUNETIO_VERBS_CQ_64B>(                \
            struct doca_gpu_dev_verbs_qp *, uint64_t, int *);                                      \
    template __global__ void doca_api_cq_poll_one<rsm, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED>(      \
            struct doca_gpu_dev_verbs_qp *, uint64_t, int *);                                      \
    template __global__ void doca_api_cq_poll_one<rsm, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST>( \
            struct doca_gpu_dev_verbs_qp *, uint64_t, int *);                                      \
    template __global__ void doca_api_cq_poll_one<rsm, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>(            \
            struct doca_gpu_dev_verbs_qp *, uint64_t, int *);                                      \
    template __global__ void doca_api_cq_poll<rsm, DOCA_GPUNETIO_VERBS_CQ_64B>(                    \
            struct doca_gpu_dev_verbs_qp *, uint64_t, uint32_t, int *);                            \
    template __global__ void doca_api_cq_poll<rsm, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED>(          \
            struct doca_gpu_dev_verbs_qp *, uint64_t, uint32_t, int *);                            \
    template __global__ void doca_api_cq_poll<rsm, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST>(     \
            struct doca_gpu_dev_verbs_qp *, uint64_t, uint32_t, int *);                            \
    template __global__ void doca_api_cq_poll<rsm, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>(                \
            struct doca_gpu_dev_verbs_qp *, uint64_t, uint32_t, int *);

DOCA_API_CQ_KINDS(RSM_GPU)
DOCA_API_CQ_KINDS(RSM_CTA)
DOCA_API_CQ_KINDS(RSM_EXCL)
