/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_bw's kernel: every thread of the grid shares the one
 * QP (sharing mode GPU) and posts its share of the puts with the high-level
 * doca_gpu_dev_verbs_put, then waits for its last one.
 */
#include <cuda_runtime.h>
#include <time.h>

#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "ex_common.h"
#include "ex_kernel_times.cuh"
#include "put_bw.h"

#define PUT_BW_KERNEL_TIMEOUT_NS (120ull * 1000 * 1000 * 1000)

template <enum doca_gpu_dev_verbs_exec_scope scope>
__global__ void put_bw_kernel(struct doca_gpu_dev_verbs_qp *qp, struct put_bw_job job, int *error)
{
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t nthreads = gridDim.x * blockDim.x;
    doca_gpu_dev_verbs_ticket_t ticket = 0;
    EX_KT_DECL(kt);

    /* Put k goes to slot k % slots; in warp scope the 32 lanes of a warp post together. */
    for (uint32_t k = tid; k < job.iterations; k += nthreads) {
        uint64_t off = (uint64_t)(k % job.slots) * job.size;
        struct doca_gpu_dev_verbs_addr raddr = {job.raddr + off, job.rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {job.laddr + off, job.lkey_be};

        EX_KT_START(kt);
        doca_gpu_dev_verbs_put<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                               DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, scope>(qp, raddr, laddr,
                                                                            job.size, &ticket);
        EX_KT_STOP(kt, EX_KT_POST);
    }
    EX_KT_START(kt);
    if (tid < job.iterations &&
        doca_gpu_dev_verbs_wait<DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO>(qp, ticket) != 0)
        atomicExch(error, 1);
    EX_KT_STOP(kt, EX_KT_WAIT);
    EX_KT_PRINT(kt, "put_bw");
}

static int put_bw_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int put_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct put_bw_job *job,
                              int warp, void *stream, double *elapsed_us)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t start = NULL, stop = NULL;
    int *d_error = NULL;
    int error = 0;
    float ms = 0;
    uint64_t deadline;
    cudaError_t rc;
    int ret = -1;

    if (put_bw_cuda_failed(cudaMalloc(&d_error, sizeof(int)), "cudaMalloc") ||
        put_bw_cuda_failed(cudaMemset(d_error, 0, sizeof(int)), "cudaMemset") ||
        put_bw_cuda_failed(cudaEventCreate(&start), "cudaEventCreate") ||
        put_bw_cuda_failed(cudaEventCreate(&stop), "cudaEventCreate"))
        goto out;
    cudaEventRecord(start, s);
    if (warp)
        put_bw_kernel<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP>
                <<<PUT_BW_GPU_BLOCKS, PUT_BW_GPU_BLOCK_THREADS, 0, s>>>(qp, *job, d_error);
    else
        put_bw_kernel<DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD>
                <<<PUT_BW_GPU_BLOCKS, PUT_BW_GPU_BLOCK_THREADS, 0, s>>>(qp, *job, d_error);
    if (put_bw_cuda_failed(cudaGetLastError(), "launching the put kernel"))
        goto out;
    cudaEventRecord(stop, s);
    /* Waits without blocking signals; a kernel that never ends is reported, not waited for. */
    deadline = ex_now_ns() + PUT_BW_KERNEL_TIMEOUT_NS;
    while ((rc = cudaEventQuery(stop)) == cudaErrorNotReady) {
        /* Politely: a software NIC in this process needs the CUDA driver too. */
        const struct timespec nap = {0, 20000};

        nanosleep(&nap, NULL);
        if (ex_signal != 0 || ex_now_ns() > deadline) {
            EX_ERR("the put kernel (%llu-byte messages) has not finished%s",
                   (unsigned long long)job->size,
                   ex_signal != 0 ? " and a signal arrived" : " after 120 s");
            goto out;
        }
    }
    if (put_bw_cuda_failed(rc, "the put kernel") ||
        put_bw_cuda_failed(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime") ||
        put_bw_cuda_failed(cudaMemcpy(&error, d_error, sizeof(int), cudaMemcpyDeviceToHost),
                           "cudaMemcpy"))
        goto out;
    if (error) {
        EX_ERR("a put of %llu bytes completed in error", (unsigned long long)job->size);
        goto out;
    }
    *elapsed_us = (double)ms * 1000.0;
    ret = 0;
out:
    if (start != NULL)
        cudaEventDestroy(start);
    if (stop != NULL)
        cudaEventDestroy(stop);
    if (d_error != NULL && ret == 0)
        cudaFree(d_error);
    return ret;
}
