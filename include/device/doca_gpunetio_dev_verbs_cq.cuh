/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, completion polling (DOCA's names) over the C
 * data-path core (gdaki_verbs_cq.h). CQE number i completes WQE number i; a
 * poll at WQE index idx looks for that completion or a later one.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_CQ_CUH
#define DOCA_GPUNETIO_DEV_VERBS_CQ_CUH

#include "doca_gpunetio_dev_verbs_common.cuh"

/* The CQ the QP's send queue completes on. */
__device__ static __forceinline__ struct doca_gpu_dev_verbs_cq *
doca_gpu_dev_verbs_qp_get_cq_sq(struct doca_gpu_dev_verbs_qp *qp)
{
    return &qp->cq_sq;
}

/* 0: WQE wqe_idx completed; EBUSY: not yet; negative (-EIO): an error completion. */
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    return gdaki_cq_poll_one_at(cq, wqe_idx);
}

/* Waits for WQE wqe_idx: 0, or -EIO on an error completion. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t wqe_idx)
{
    return gdaki_cq_poll_at(cq, wqe_idx);
}

/* Consumes the next count completions in order (one thread per CQ). */
__device__ static __forceinline__ int doca_gpu_dev_verbs_poll_cq(struct doca_gpu_dev_verbs_cq *cq,
                                                                 uint32_t count)
{
    return gdaki_cq_poll(cq, count);
}

/* The same wait on a collapsed CQ (every CQE in entry 0). */
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_collapsed_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t wqe_idx)
{
    return gdaki_cq_poll_at(&qp->cq_sq, wqe_idx);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_CQ_CUH */
