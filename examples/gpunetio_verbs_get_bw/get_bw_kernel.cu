/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_get_bw's kernel: every thread of the grid shares the one
 * QP (sharing mode GPU) and posts its share of the gets with the high-level
 * doca_gpu_dev_verbs_get, then waits for its last one: with
 * doca_gpu_dev_verbs_get_wait and MCST_ENABLED before Hopper (a dump WQE
 * after the reads makes what the NIC wrote visible to the GPU), with
 * doca_gpu_dev_verbs_wait from Hopper on.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "ex_common.h"
#include "ex_gpu.h"
#include "get_bw.h"

#define GET_BW_KERNEL_TIMEOUT_S 120

template <enum doca_gpu_dev_verbs_exec_scope scope, bool mcst>
__global__ void get_bw_kernel(struct doca_gpu_dev_verbs_qp *qp, struct get_bw_job job, int *error)
{
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t nthreads = gridDim.x * blockDim.x;
    const struct doca_gpu_dev_verbs_addr daddr = {job.laddr, job.lkey_be};
    doca_gpu_dev_verbs_ticket_t ticket = 0;
    int rc;

    /* Get k reads slot k % slots; in warp scope the 32 lanes of a warp post together. */
    for (uint32_t k = tid; k < job.iterations; k += nthreads) {
        uint64_t off = (uint64_t)(k % job.slots) * job.size;
        struct doca_gpu_dev_verbs_addr raddr = {job.raddr + off, job.rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {job.laddr + off, job.lkey_be};

        doca_gpu_dev_verbs_get<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                               DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, scope>(qp, raddr, laddr,
                                                                            job.size, &ticket);
    }
    if (tid >= job.iterations)
        return;
    if (mcst)
        rc = doca_gpu_dev_verbs_get_wait<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                         DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                                         DOCA_GPUNETIO_VERBS_MCST_ENABLED>(qp, daddr, ticket);
    else
        rc = doca_gpu_dev_verbs_wait<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                     DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(qp, ticket);
    if (rc != 0)
        atomicExch(error, 1);
}

struct get_bw_launch {
    struct doca_gpu_dev_verbs_qp *qp;
    const struct get_bw_job *job;
    int warp;
    int mcst;
    int *d_error;
};

template <enum doca_gpu_dev_verbs_exec_scope scope>
static void get_bw_launch_scope(const struct get_bw_launch *l, cudaStream_t s)
{
    if (l->mcst)
        get_bw_kernel<scope, true>
                <<<GET_BW_GPU_BLOCKS, GET_BW_GPU_BLOCK_THREADS, 0, s>>>(l->qp, *l->job, l->d_error);
    else
        get_bw_kernel<scope, false>
                <<<GET_BW_GPU_BLOCKS, GET_BW_GPU_BLOCK_THREADS, 0, s>>>(l->qp, *l->job, l->d_error);
}

static int get_bw_launch_kernel(void *arg, void *stream)
{
    const struct get_bw_launch *l = (const struct get_bw_launch *)arg;

    if (l->warp)
        get_bw_launch_scope<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>(l, (cudaStream_t)stream);
    else
        get_bw_launch_scope<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD>(l, (cudaStream_t)stream);
    return 0;
}

static int get_bw_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int get_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct get_bw_job *job,
                              int warp, int mcst, void *stream, double *elapsed_us)
{
    struct get_bw_launch l = {qp, job, warp, mcst, NULL};
    char what[64];
    int error = 0;

    snprintf(what, sizeof(what), "the get kernel (%llu-byte messages)",
             (unsigned long long)job->size);
    if (get_bw_cuda_failed(cudaMalloc(&l.d_error, sizeof(int)), "cudaMalloc") ||
        get_bw_cuda_failed(cudaMemset(l.d_error, 0, sizeof(int)), "cudaMemset"))
        return -1;
    /* On failure d_error is not freed: the kernel may still be running. */
    if (ex_gpu_run_timed(stream, get_bw_launch_kernel, &l, what, GET_BW_KERNEL_TIMEOUT_S,
                         elapsed_us) != 0 ||
        get_bw_cuda_failed(cudaMemcpy(&error, l.d_error, sizeof(int), cudaMemcpyDeviceToHost),
                           "cudaMemcpy"))
        return -1;
    cudaFree(l.d_error);
    if (error) {
        EX_ERR("a get of %llu bytes completed in error", (unsigned long long)job->size);
        return -1;
    }
    return 0;
}
