/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sink benchmark's kernels: one per operation and sharing mode, named
 * (extern "C") so that `nvcc -Xptxas -v` reports each high-level operation's
 * registers and spills under a readable name. Each thread posts a.iters
 * operations through the DOCA device API, exactly as a user kernel would,
 * with SKIP_AVAILABILITY_CHECK: nothing completes the WQEs, the rings wrap.
 *
 * The bare kernels are the baseline: per operation, the same WQE stores and
 * the library's own doorbell (gdaki_sq_ring: its fences, record and
 * register), but no queue protocol: no reservation, no ordering between
 * threads, no lock, a WQE built once. Every thread rings for itself.
 */
#include "doca_gpunetio_dev_verbs.cuh"
#include "sink.h"

#define SINK_NIC DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define SINK_OPT DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK

/* This thread's index in the grid. */
__device__ static __forceinline__ uint32_t sink_tid(void)
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

/* addr advanced by 8 bytes per thread: every WQE of a launch names its own memory. */
__device__ static __forceinline__ struct doca_gpu_dev_verbs_addr
sink_addr(struct doca_gpu_dev_verbs_addr a, uint32_t t)
{
    a.addr += 8ull * t;
    return a;
}

template <enum sink_op OP, enum doca_gpu_dev_verbs_resource_sharing_mode RSM,
          enum doca_gpu_dev_verbs_exec_scope SCOPE>
__device__ static __forceinline__ void sink_body(const struct sink_args a)
{
    const uint32_t t = sink_tid();
    struct doca_gpu_dev_verbs_qp *qp = a.qps + t / a.threads_per_qp;
    const struct doca_gpu_dev_verbs_addr r = sink_addr(a.raddr, t);
    const struct doca_gpu_dev_verbs_addr l = sink_addr(a.laddr, t);
    doca_gpu_dev_verbs_ticket_t ticket = 0;
    unsigned long long acc = 0;

    for (uint32_t i = 0; i < a.iters; i++) {
        if (OP == SINK_PUT)
            doca_gpu_dev_verbs_put<RSM, SINK_NIC, SCOPE>(qp, r, l, 8, &ticket, SINK_OPT);
        else if (OP == SINK_PUT_SIGNAL)
            doca_gpu_dev_verbs_put_signal<DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, RSM, SINK_NIC, SCOPE>(
                    qp, r, l, 8, a.sig_raddr, a.sig_laddr, 1, &ticket, SINK_OPT);
        else
            doca_gpu_dev_verbs_get<RSM, SINK_NIC, SCOPE>(qp, r, l, 8, &ticket, SINK_OPT);
        acc += ticket;
    }
    a.out[t] = acc;
}

/*
 * The baseline's loop: each thread stores the WQEs of one operation, built
 * once (a put_signal's two; in a warp-scope put_signal lane 0 also stores
 * the warp's signal), then rings: every thread for itself on an exclusive
 * QP, lane 0 for its warp otherwise.
 */
template <enum sink_op OP, enum sink_mode MODE>
__device__ static __forceinline__ void bare_body(const struct sink_args a)
{
    const uint32_t t = sink_tid();
    struct doca_gpu_dev_verbs_qp *qp = a.qps + t / a.threads_per_qp;
    const uint32_t lane = t % DOCA_GPUNETIO_VERBS_WARP_SIZE;
    const bool sig = OP == SINK_PUT_SIGNAL;
    const bool warp_sig = sig && MODE == SINK_WARP; /* 32 puts and one signal per warp */
    const uint32_t mine = warp_sig ? (lane == 0 ? 2 : 1) : (sig ? 2 : 1);
    const uint32_t per_warp = warp_sig ? 33 : DOCA_GPUNETIO_VERBS_WARP_SIZE * mine;
    const uint32_t warps_per_qp =
            (a.threads_per_qp + DOCA_GPUNETIO_VERBS_WARP_SIZE - 1) / DOCA_GPUNETIO_VERBS_WARP_SIZE;
    const uint32_t warp_in_qp = (t % a.threads_per_qp) / DOCA_GPUNETIO_VERBS_WARP_SIZE;
    const uint32_t lane_off = warp_sig ? (lane == 0 ? 0 : lane + 1) : lane * mine;
    const uint32_t handler = qp->nic_handler;
    const struct doca_gpu_dev_verbs_addr r = sink_addr(a.raddr, t);
    const struct doca_gpu_dev_verbs_addr l = sink_addr(a.laddr, t);
    const uint4 *built = (const uint4 *)(const void *)gdaki_wqe_ptr(qp, lane_off);
    uint4 w[4];
    uint64_t prod = 0;

    gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, lane_off), lane_off,
                   OP == SINK_GET ? PRM_WQE_OPCODE_RDMA_READ : PRM_WQE_OPCODE_RDMA_WRITE,
                   DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0, r.addr, r.key, l.addr, l.key, 8);
    for (int k = 0; k < 4; k++)
        w[k] = built[k];
    for (uint32_t i = 0; i < a.iters; i++) {
        uint64_t base;

        if (MODE == SINK_EXCLUSIVE)
            base = (uint64_t)i * mine;
        else
            base = ((uint64_t)i * warps_per_qp + warp_in_qp) * per_warp + lane_off;
        for (uint32_t k = 0; k < mine; k++) {
            uint4 *slot = (uint4 *)(void *)gdaki_wqe_ptr(qp, base + k);

            slot[0] = w[0];
            slot[1] = w[1];
            slot[2] = w[2];
            slot[3] = w[3];
        }
        if (MODE == SINK_EXCLUSIVE) {
            prod = base + mine;
            gdaki_sq_ring(qp, prod, handler);
        } else {
            prod = base - lane_off + per_warp;
            __syncwarp();
            if (lane == 0)
                gdaki_sq_ring(qp, prod, handler);
            __syncwarp();
        }
    }
    a.out[t] = prod;
}

#define SINK_EXCL DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define SINK_RCTA DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define SINK_RGPU DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define SINK_THR  DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD
#define SINK_WRP  DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP

#define SINK_KERNELS(op, OP)                                                   \
    extern "C" __global__ void sink_##op##_exclusive(const struct sink_args a) \
    {                                                                          \
        sink_body<OP, SINK_EXCL, SINK_THR>(a);                                 \
    }                                                                          \
    extern "C" __global__ void sink_##op##_cta(const struct sink_args a)       \
    {                                                                          \
        sink_body<OP, SINK_RCTA, SINK_THR>(a);                                 \
    }                                                                          \
    extern "C" __global__ void sink_##op##_gpu(const struct sink_args a)       \
    {                                                                          \
        sink_body<OP, SINK_RGPU, SINK_THR>(a);                                 \
    }                                                                          \
    extern "C" __global__ void sink_##op##_warp(const struct sink_args a)      \
    {                                                                          \
        sink_body<OP, SINK_EXCL, SINK_WRP>(a);                                 \
    }                                                                          \
    extern "C" __global__ void bare_##op##_thread(const struct sink_args a)    \
    {                                                                          \
        bare_body<OP, SINK_EXCLUSIVE>(a);                                      \
    }                                                                          \
    extern "C" __global__ void bare_##op##_shared(const struct sink_args a)    \
    {                                                                          \
        bare_body<OP, SINK_CTA>(a);                                            \
    }                                                                          \
    extern "C" __global__ void bare_##op##_warp(const struct sink_args a)      \
    {                                                                          \
        bare_body<OP, SINK_WARP>(a);                                           \
    }

SINK_KERNELS(put, SINK_PUT)
SINK_KERNELS(put_signal, SINK_PUT_SIGNAL)
SINK_KERNELS(get, SINK_GET)

#define SINK_ROW(op)                                                              \
    {                                                                             \
        sink_##op##_exclusive, sink_##op##_cta, sink_##op##_gpu, sink_##op##_warp \
    }
/* Shared QPs' baseline: each warp's lane 0 rings for the warp, one doorbell per 32 operations. */
#define BARE_ROW(op)                                                                 \
    {                                                                                \
        bare_##op##_thread, bare_##op##_shared, bare_##op##_shared, bare_##op##_warp \
    }

const sink_kernel_fn sink_kernels[SINK_NUM_OPS][SINK_NUM_MODES] = {
        SINK_ROW(put), SINK_ROW(put_signal), SINK_ROW(get)};
const sink_kernel_fn sink_bare_kernels[SINK_NUM_OPS][SINK_NUM_MODES] = {
        BARE_ROW(put), BARE_ROW(put_signal), BARE_ROW(get)};
