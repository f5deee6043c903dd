/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernels written the way DOCA GPUNetIO's own low-level examples write them
 * (a write bandwidth loop over a shared QP, a one-thread write ping-pong
 * with every NIC handler), compiled against our headers as part of `all`:
 * the call shapes, template parameter lists and defaults they use must be
 * ours too. Compiled only; tests/datapath and the examples run such code.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"

__global__ void doca_style_write_bw(struct doca_gpu_dev_verbs_qp *qp, uint32_t iters, uint32_t size,
                                    uint8_t *src, uint32_t src_key, uint8_t *dst, uint32_t dst_key)
{
    uint64_t idx =
            doca_gpu_dev_verbs_atomic_read<uint64_t, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU>(
                    &qp->sq_wqe_pi) +
            threadIdx.x;

    for (uint32_t i = threadIdx.x; i < iters; i += blockDim.x) {
        struct doca_gpu_dev_verbs_wqe *wqe = doca_gpu_dev_verbs_get_wqe_ptr(qp, idx);

        doca_gpu_dev_verbs_wqe_prepare_write(qp, wqe, idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE,
                                             DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0,
                                             (uint64_t)(dst + size * threadIdx.x), dst_key,
                                             (uint64_t)(src + size * threadIdx.x), src_key, size);
        __syncthreads();
        /* Submitted without mark_wqes_ready, by the block's last thread. */
        if (threadIdx.x == blockDim.x - 1)
            doca_gpu_dev_verbs_submit<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE>(
                    qp, idx + 1, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI);
        __syncthreads();
        idx += blockDim.x;
    }
    if (threadIdx.x == blockDim.x - 1 &&
        doca_gpu_dev_verbs_poll_cq_at(doca_gpu_dev_verbs_qp_get_cq_sq(qp), idx - blockDim.x) != 0)
        DOCA_GPUNETIO_VOLATILE(src[0]) = 0xee;
}

template <bool client, enum doca_gpu_dev_verbs_nic_handler nic_handler>
__global__ void doca_style_write_lat(struct doca_gpu_dev_verbs_qp *qp, uint32_t iters,
                                     uint32_t size, uint8_t *poll_buf, uint8_t *post_buf,
                                     uint32_t post_key, uint8_t *dst, uint32_t dst_key)
{
    uint64_t idx = doca_gpu_dev_verbs_atomic_read<
            uint64_t, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE>(&qp->sq_wqe_pi);
    uint64_t sent = 0, seen = 0;

    while (sent < iters || seen < iters) {
        if (seen < iters && (sent >= 1 || client)) {
            ++seen;
            while (DOCA_GPUNETIO_VOLATILE(poll_buf[size - 1]) != (uint8_t)seen)
                ;
        }
        doca_gpu_dev_verbs_fence_acquire<DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS>();
        if (sent < iters) {
            struct doca_gpu_dev_verbs_wqe *wqe = doca_gpu_dev_verbs_get_wqe_ptr(qp, idx);

            ++sent;
            DOCA_GPUNETIO_VOLATILE(post_buf[size - 1]) = (uint8_t)sent;
            doca_gpu_dev_verbs_wqe_prepare_write(
                    qp, wqe, idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE,
                    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0, (uint64_t)dst, dst_key,
                    (uint64_t)post_buf, post_key, size);
            if (nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF)
                doca_gpu_dev_verbs_submit_bf<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                             DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU>(qp, idx + 1, wqe);
            else
                doca_gpu_dev_verbs_submit<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                          DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, nic_handler>(
                        qp, idx + 1, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI);
            idx++;
        }
    }
    if (doca_gpu_dev_verbs_poll_cq_collapsed_at(qp, idx - 1) != 0)
        WRITE_ONCE(post_buf[0], 0xee);
}

/* Every NIC handler the DOCA example instantiates, both sides. */
template __global__ void doca_style_write_lat<true, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF>(
        struct doca_gpu_dev_verbs_qp *, uint32_t, uint32_t, uint8_t *, uint8_t *, uint32_t,
        uint8_t *, uint32_t);
template __global__ void doca_style_write_lat<false, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB>(
        struct doca_gpu_dev_verbs_qp *, uint32_t, uint32_t, uint8_t *, uint8_t *, uint32_t,
        uint8_t *, uint32_t);
template __global__ void doca_style_write_lat<true, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR>(
        struct doca_gpu_dev_verbs_qp *, uint32_t, uint32_t, uint8_t *, uint8_t *, uint32_t,
        uint8_t *, uint32_t);
template __global__ void doca_style_write_lat<false, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY>(
        struct doca_gpu_dev_verbs_qp *, uint32_t, uint32_t, uint8_t *, uint8_t *, uint32_t,
        uint8_t *, uint32_t);
template __global__ void doca_style_write_lat<true, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(
        struct doca_gpu_dev_verbs_qp *, uint32_t, uint32_t, uint8_t *, uint8_t *, uint32_t,
        uint8_t *, uint32_t);
