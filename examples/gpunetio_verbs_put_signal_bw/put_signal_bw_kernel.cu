/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_bw's kernels. The client's: every thread of the
 * grid shares the one QP (sharing mode GPU) and posts its share of the
 * puts, each with the fetch-add of its own signal (put_signal) or with its
 * signal in the immediate (put_immediate), waits for its last and, after a
 * fetch-add, checks the previous value that came back. The server's: one
 * block tallies the signals, which the host cannot copy.
 */
#include <cuda_runtime.h>

#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "ex_common.h"
#include "ex_gpu.h"
#include "put_signal_bw.h"

#define PSB_KERNEL_TIMEOUT_S 120
/* Polls of a previous value after the wait before it counts as wrong. */
#define PSB_PREV_POLLS       (1u << 24)

#define PSB_ERR_COMPLETION 1
#define PSB_ERR_PREV       2

/* Polls a previous value that a fetch-add returned (big-endian) until it is want, a bounded number
 * of times. */
__device__ static bool psb_prev_arrived(uint64_t addr, uint64_t want)
{
    for (uint32_t n = 0; n < PSB_PREV_POLLS; n++)
        if (psb_from_be64(*(volatile uint64_t *)(uintptr_t)addr) == want)
            return true;
    return false;
}

template <enum doca_gpu_dev_verbs_exec_scope scope, bool imm>
__global__ void psb_kernel(struct doca_gpu_dev_verbs_qp *qp, struct psb_job job, int *error)
{
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t nthreads = gridDim.x * blockDim.x;
    const uint32_t share = job.iterations / nthreads;
    const struct doca_gpu_dev_verbs_addr sig_raddr = {job.sig_raddr + 8ull * tid, job.sig_rkey_be};
    const struct doca_gpu_dev_verbs_addr sig_laddr = {job.sig_laddr + 8ull * tid, job.sig_lkey_be};
    doca_gpu_dev_verbs_ticket_t ticket = 0;

    for (uint32_t k = tid; k < job.iterations; k += nthreads) {
        uint64_t off = (uint64_t)(k % job.slots) * job.size;
        struct doca_gpu_dev_verbs_addr raddr = {job.raddr + off, job.rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {job.laddr + off, job.lkey_be};

        if (imm)
            doca_gpu_dev_verbs_put_immediate<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                             DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(
                    qp, raddr, laddr, job.size, job.first_sig_id + tid, 1, &ticket);
        else
            doca_gpu_dev_verbs_put_signal<DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD,
                                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                          DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, scope>(
                    qp, raddr, laddr, job.size, sig_raddr, sig_laddr, 1, &ticket);
    }
    if (share == 0)
        return;
    if (doca_gpu_dev_verbs_wait<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(qp, ticket) != 0) {
        atomicOr(error, PSB_ERR_COMPLETION);
        return;
    }
    /* The last fetch-add of this signal (lane 0's in warp scope) returned run * share - 1. */
    if constexpr (!imm) {
        if (scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP && tid % PSB_WARP_SIZE != 0)
            return;
        if (!psb_prev_arrived(sig_laddr.addr, (uint64_t)job.run * share - 1))
            atomicOr(error, PSB_ERR_PREV);
    }
}

static int psb_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

struct psb_launch {
    struct doca_gpu_dev_verbs_qp *qp;
    const struct psb_job *job;
    int warp;
    int *d_error;
};

static int psb_launch(void *arg, void *stream)
{
    const struct psb_launch *l = (const struct psb_launch *)arg;
    cudaStream_t s = (cudaStream_t)stream;

    if (l->job->imm)
        psb_kernel<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD, true>
                <<<PSB_GPU_BLOCKS, PSB_GPU_BLOCK_THREADS, 0, s>>>(l->qp, *l->job, l->d_error);
    else if (l->warp)
        psb_kernel<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP, false>
                <<<PSB_GPU_BLOCKS, PSB_GPU_BLOCK_THREADS, 0, s>>>(l->qp, *l->job, l->d_error);
    else
        psb_kernel<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD, false>
                <<<PSB_GPU_BLOCKS, PSB_GPU_BLOCK_THREADS, 0, s>>>(l->qp, *l->job, l->d_error);
    return 0;
}

extern "C" int psb_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct psb_job *job, int warp,
                           void *stream, double *elapsed_us)
{
    struct psb_launch l = {qp, job, warp, NULL};
    int error = 0;
    int ret = -1;

    if (psb_cuda_failed(cudaMalloc(&l.d_error, sizeof(int)), "cudaMalloc") ||
        psb_cuda_failed(cudaMemset(l.d_error, 0, sizeof(int)), "cudaMemset"))
        goto out;
    if (ex_gpu_run_timed(stream, psb_launch, &l, "the put_signal kernel", PSB_KERNEL_TIMEOUT_S,
                         elapsed_us) != 0) {
        /* The kernel may still run: its error flag stays allocated. */
        l.d_error = NULL;
        goto out;
    }
    if (psb_cuda_failed(cudaMemcpy(&error, l.d_error, sizeof(int), cudaMemcpyDeviceToHost),
                        "cudaMemcpy"))
        goto out;
    if (error & PSB_ERR_COMPLETION)
        EX_ERR("a %s of %llu bytes completed in error", job->imm ? "put_immediate" : "put_signal",
               (unsigned long long)job->size);
    else if (error & PSB_ERR_PREV)
        EX_ERR("a fetch-add of %llu-byte run %u returned a previous value other than %u",
               (unsigned long long)job->size, job->run,
               job->run * (job->iterations / PSB_GPU_THREADS) - 1);
    else
        ret = 0;
out:
    if (l.d_error != NULL)
        cudaFree(l.d_error);
    return ret;
}

#define PSB_TALLY_THREADS 256

__global__ void psb_tally_kernel(const uint64_t *slots, uint32_t nsig, int big_endian,
                                 uint32_t threads, uint32_t lane_stride, uint64_t value,
                                 struct psb_tally *out)
{
    __shared__ unsigned long long sum[16];
    __shared__ unsigned int short_count, wrong_count, first_wrong;

    if (threadIdx.x < 16)
        sum[threadIdx.x] = 0;
    if (threadIdx.x == 0) {
        short_count = 0;
        wrong_count = 0;
        first_wrong = UINT32_MAX;
    }
    __syncthreads();
    for (uint32_t id = threadIdx.x; id < nsig; id += blockDim.x) {
        uint64_t raw = *(volatile const uint64_t *)&slots[id];
        uint64_t v = big_endian ? psb_from_be64(raw) : raw;
        uint64_t want = psb_expected(id, threads, lane_stride, value);

        atomicAdd(&sum[(id / threads) % 16], (unsigned long long)v);
        if (v < want)
            atomicAdd(&short_count, 1u);
        if (v != want) {
            atomicAdd(&wrong_count, 1u);
            atomicMin(&first_wrong, id);
        }
    }
    __syncthreads();
    if (threadIdx.x < 16)
        out->sum[threadIdx.x] = sum[threadIdx.x];
    if (threadIdx.x == 0) {
        out->short_count = short_count;
        out->wrong_count = wrong_count;
        out->first_wrong = first_wrong;
        uint64_t raw =
                first_wrong == UINT32_MAX ? 0 : *(volatile const uint64_t *)&slots[first_wrong];

        out->first_wrong_value = big_endian ? psb_from_be64(raw) : raw;
    }
}

extern "C" int psb_gpu_tally(const uint64_t *slots, uint32_t nsig, int big_endian, uint32_t threads,
                             uint32_t lane_stride, uint64_t value, struct psb_tally *out)
{
    struct psb_tally *d_out = NULL;
    int ret = -1;

    if (psb_cuda_failed(cudaMalloc(&d_out, sizeof(*d_out)), "cudaMalloc"))
        return -1;
    psb_tally_kernel<<<1, PSB_TALLY_THREADS>>>(slots, nsig, big_endian, threads, lane_stride, value,
                                               d_out);
    if (psb_cuda_failed(cudaGetLastError(), "launching the signal tally kernel") ||
        psb_cuda_failed(cudaMemcpy(out, d_out, sizeof(*out), cudaMemcpyDeviceToHost),
                        "the signal tally kernel"))
        goto out;
    ret = 0;
out:
    cudaFree(d_out);
    return ret;
}
