/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, completion polling (DOCA's names and template
 * parameters) over the C data-path core (gdaki_verbs_cq.h). A poll names a
 * WQE index (cons_index: CQE number i completes WQE number i) and returns
 * 0 once it has completed, raising cq->cqe_ci past it; EBUSY (non-blocking
 * polls) while it has not; -EIO on an error completion, which the CQ
 * records in cq->err, and, once one is recorded, for every WQE whose
 * completion is not there: the blocking polls never spin on a dead QP.
 * EINVAL: cq_type names no kind of CQ.
 *
 * Every kind of CQ is served by the same completion test (the CQE's
 * wqe_counter, robust when the NIC overruns the CQ): the descriptor says
 * where the CQEs land (entry 0 of a collapsed CQ, which has one entry), so
 * cq_type only has to name a kind. The host polls (DOCA's
 * DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST, a CQ whose cqe_ci a CPU proxy
 * advances) do the same: our proxy rings doorbells and consumes no CQE, so
 * watching cqe_ci alone would hang on a QP this library exported. They
 * read the CQE ring the descriptor names, which the executing processor
 * always reaches, and finish as well when something else raised cqe_ci.
 *
 * Calls written for the older device API pass the CQ (struct
 * doca_gpu_dev_verbs_cq *) to poll_one_cq_at, poll_cq_at and poll_cq: each
 * has that overload too, with the same template parameters and meaning.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_CQ_H
#define DOCA_GPUNETIO_DEV_VERBS_CQ_H

#include <errno.h>

#include "doca_gpunetio_dev_verbs_common.cuh"

/* The CQ the QP's send queue completes on. */
__device__ static __forceinline__ struct doca_gpu_dev_verbs_cq *
doca_gpu_dev_verbs_qp_get_cq_sq(struct doca_gpu_dev_verbs_qp *qp)
{
    return &qp->cq_sq;
}

/*
 * The CQ the QP's receive queue completes on: receive number i completes
 * with its CQE number i, so every poll below serves it with the receive's
 * index (its ticket) for cons_index. Only a QP exported with cq_rq (and no
 * dbr_cpu_ptr) has one for the data path.
 */
__device__ static __forceinline__ struct doca_gpu_dev_verbs_cq *
doca_gpu_dev_verbs_qp_get_cq_rq(struct doca_gpu_dev_verbs_qp *qp)
{
    return &qp->cq_rq;
}

/* The CQ of the QP's qp_type queue. */
template <enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ struct doca_gpu_dev_verbs_cq *
doca_gpu_dev_verbs_qp_get_cq(struct doca_gpu_dev_verbs_qp *qp)
{
    return qp_type == DOCA_GPUNETIO_VERBS_QP_RQ ? doca_gpu_dev_verbs_qp_get_cq_rq(qp)
                                                : doca_gpu_dev_verbs_qp_get_cq_sq(qp);
}

/* A receive CQE's byte count: the length of the message it completes. */
__device__ static __forceinline__ uint32_t
doca_gpu_dev_verbs_cqe_get_bytes(struct doca_gpunetio_ib_mlx5_cqe64 *cqe64)
{
    return gdaki_cqe_bytes(cqe64);
}

/*
 * Whether the NIC put the received data in the CQE itself (op_own's
 * inline-scatter bits); never on a QP this library makes, which asks for
 * no inline scatter.
 */
__device__ static __forceinline__ uint32_t
doca_gpu_dev_verbs_cqe_is_inline(struct doca_gpunetio_ib_mlx5_cqe64 *cqe64)
{
    return gdaki_cqe_inline_scatter(cqe64);
}

/* A 24-bit CQ consumer index (the doorbell record's) advanced by increment. */
__device__ static __forceinline__ uint32_t doca_gpu_dev_verbs_cqe_idx_inc_mask(uint32_t cqe_idx,
                                                                               uint32_t increment)
{
    return (cqe_idx + increment) & DOCA_GPUNETIO_VERBS_CQE_CI_MASK;
}

#if DOCA_GPUNETIO_VERBS_ENABLE_DEBUG == 1
/* Prints an error CQE's syndromes and WQE counter (the polls do on every error CQE they meet). */
__device__ static __forceinline__ void
doca_gpu_dev_verbs_cq_print_cqe_err(struct doca_gpunetio_ib_mlx5_cqe64 *cqe64)
{
    gdaki_cq_print_err(cqe64);
}
#endif

/* ==== Non-blocking: 0, EBUSY or -EIO ==== */

/* Polls a CQ in GPU (or executor) memory once for WQE cons_index. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_device_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return gdaki_cq_check(cq, cons_index, resource_sharing_mode);
}

/* The same on a host CQ (see the top of this file). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_host_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return gdaki_cq_check(cq, cons_index, resource_sharing_mode);
}

/* The same on a collapsed CQ; cqe_ci is raised past the newest WQE its one CQE completes. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_one_collapsed_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return gdaki_cq_check(cq, cons_index, resource_sharing_mode);
}

/* The spelling another DOCA release gives the collapsed poll. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_collapsed_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return doca_gpu_dev_verbs_poll_cq_one_collapsed_at<resource_sharing_mode>(cq, cons_index);
}

/* Polls cq once for WQE cons_index, for the kind of CQ cq_type names (UNKNOWN: cq's own). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    if (!gdaki_cq_type_known(cq, cq_type))
        return EINVAL;
    return gdaki_cq_check(cq, cons_index, resource_sharing_mode);
}

/* The same on the CQ of the QP's qp_type queue. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_one_cq_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t cons_index)
{
    return doca_gpu_dev_verbs_poll_one_cq_at<resource_sharing_mode, qp_type, cq_type>(
            doca_gpu_dev_verbs_qp_get_cq<qp_type>(qp), cons_index);
}

/* ==== Blocking: 0 or -EIO ==== */

/* Waits for WQE cons_index on a CQ in GPU (or executor) memory. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_device_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return gdaki_cq_wait(cq, cons_index, resource_sharing_mode);
}

/* The same on a host CQ (see the top of this file). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_host_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    return gdaki_cq_wait(cq, cons_index, resource_sharing_mode);
}

/*
 * The same on the QP's collapsed CQ. DOCA first waits until the QP has
 * posted cons_index, so that its 16-bit counter test cannot take a far
 * later WQE for a done one; ours compares the counter by signed distance,
 * which is right for every WQE a ring of at most 2^14 has posted.
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_collapsed_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t cons_index)
{
    return gdaki_cq_wait(doca_gpu_dev_verbs_qp_get_cq<qp_type>(qp), cons_index,
                         resource_sharing_mode);
}

/* Waits on cq for WQE cons_index, for the kind of CQ cq_type names (UNKNOWN: cq's own). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_at(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index)
{
    if (!gdaki_cq_type_known(cq, cq_type))
        return EINVAL;
    return gdaki_cq_wait(cq, cons_index, resource_sharing_mode);
}

/* The same on the CQ of the QP's qp_type queue. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq_at(struct doca_gpu_dev_verbs_qp *qp, uint64_t cons_index)
{
    return doca_gpu_dev_verbs_poll_cq_at<resource_sharing_mode, qp_type, cq_type>(
            doca_gpu_dev_verbs_qp_get_cq<qp_type>(qp), cons_index);
}

/* Waits for the next count completions on cq: WQE cqe_ci + count - 1 (0 at once for none). */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int doca_gpu_dev_verbs_poll_cq(struct doca_gpu_dev_verbs_cq *cq,
                                                                 uint32_t count)
{
    if (count == 0)
        return 0;
    if (!gdaki_cq_type_known(cq, cq_type))
        return EINVAL;
    return gdaki_cq_wait_next(cq, count, resource_sharing_mode);
}

/* The same on the CQ of the QP's qp_type queue. */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN>
__device__ static __forceinline__ int doca_gpu_dev_verbs_poll_cq(struct doca_gpu_dev_verbs_qp *qp,
                                                                 uint32_t count)
{
    return doca_gpu_dev_verbs_poll_cq<resource_sharing_mode, qp_type, cq_type>(
            doca_gpu_dev_verbs_qp_get_cq<qp_type>(qp), count);
}

/*
 * Polls cq for WQE (or receive) cons_index and gives its CQE in *cqe64, for
 * the byte count and immediate of a receive: blocking_mode ENABLED waits
 * (0 or -EIO), DISABLED looks once (EBUSY while it has not completed).
 */
template <enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode =
                  DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
          enum doca_gpu_dev_verbs_qp_type qp_type = DOCA_GPUNETIO_VERBS_QP_SQ,
          enum doca_gpu_dev_verbs_blocking_mode blocking_mode =
                  DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_poll_cq(struct doca_gpu_dev_verbs_cq *cq, uint64_t cons_index,
                           struct doca_gpunetio_ib_mlx5_cqe64 **cqe64)
{
    *cqe64 = gdaki_cqe_at(cq, cons_index);
    if (blocking_mode == DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED)
        return gdaki_cq_wait(cq, cons_index, resource_sharing_mode);
    return gdaki_cq_check(cq, cons_index, resource_sharing_mode);
}

/*
 * For code that consumes CQEs in order: adds cqe_num to the 24-bit
 * consumer index kept in cq->cqe_ci and returns it; also writes it to the
 * CQ's doorbell record unless is_overrun (the NIC ignores a full CQ, as on
 * every CQ this library exports).
 */
template <bool is_overrun>
__device__ static __forceinline__ uint32_t
doca_gpu_dev_verbs_cq_update_dbrec(struct doca_gpu_dev_verbs_cq *cq, uint32_t cqe_num)
{
    return gdaki_cq_update_dbrec(cq, cqe_num, !is_overrun);
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_CQ_H */
