/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_bw's kernel: one block runs a message size with the
 * low-level API. Thread 0 reserves a send-queue slot for every write; all
 * threads prepare their share of the RDMA write WQEs in those slots; once
 * the block has synchronised, thread 0 marks them ready, submits them with
 * one doorbell and polls the completion of the last one.
 */
#include <cuda_runtime.h>
#include <time.h>

#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"
#include "ex_common.h"
#include "write_bw.h"

/* Only thread 0 touches the QP's indices: exclusive use, no atomics. */
#define WB_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

#define WRITE_BW_KERNEL_TIMEOUT_NS (120ull * 1000 * 1000 * 1000)

__global__ void write_bw_kernel(struct doca_gpu_dev_verbs_qp *qp, struct write_bw_job job,
                                int *error)
{
    __shared__ uint64_t base;
    const uint32_t n = job.iterations;

    if (threadIdx.x == 0)
        base = doca_gpu_dev_verbs_reserve_wq_slots<WB_RSM>(qp, n);
    __syncthreads();
    /* Write k goes to slot k % slots; every WQE asks for a CQE (the CQ is not collapsed). */
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
        const uint64_t idx = base + k;
        const uint64_t off = (uint64_t)(k % job.slots) * job.size;

        doca_gpu_dev_verbs_wqe_prepare_write(
                qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, idx), (uint16_t)idx,
                DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE, DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE,
                0, job.raddr + off, job.rkey_be, job.laddr + off, job.lkey_be, job.size);
    }
    /* Every WQE is written before thread 0's submit, whose fence orders them before the doorbell.
     */
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    doca_gpu_dev_verbs_mark_wqes_ready<WB_RSM>(qp, base, base + n - 1);
    doca_gpu_dev_verbs_submit<WB_RSM>(qp, base + n);
    if (doca_gpu_dev_verbs_poll_cq_at<WB_RSM>(doca_gpu_dev_verbs_qp_get_cq_sq(qp), base + n - 1) !=
        0)
        *error = 1;
}

static int write_bw_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int write_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_bw_job *job,
                                void *stream, double *elapsed_us)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t start = NULL, stop = NULL;
    int *d_error = NULL;
    int error = 0;
    float ms = 0;
    uint64_t deadline;
    cudaError_t rc;
    int ret = -1;

    if (write_bw_cuda_failed(cudaMalloc(&d_error, sizeof(int)), "cudaMalloc") ||
        write_bw_cuda_failed(cudaMemset(d_error, 0, sizeof(int)), "cudaMemset") ||
        write_bw_cuda_failed(cudaEventCreate(&start), "cudaEventCreate") ||
        write_bw_cuda_failed(cudaEventCreate(&stop), "cudaEventCreate"))
        goto out;
    cudaEventRecord(start, s);
    write_bw_kernel<<<1, WRITE_BW_GPU_THREADS, 0, s>>>(qp, *job, d_error);
    if (write_bw_cuda_failed(cudaGetLastError(), "launching the write kernel"))
        goto out;
    cudaEventRecord(stop, s);
    /* Polled, not synchronised: a signal is seen, and a kernel that never ends is reported. */
    deadline = ex_now_ns() + WRITE_BW_KERNEL_TIMEOUT_NS;
    while ((rc = cudaEventQuery(stop)) == cudaErrorNotReady) {
        /* Short naps: a software NIC in this process needs the CUDA driver too. */
        const struct timespec nap = {0, 20000};

        nanosleep(&nap, NULL);
        if (ex_signal != 0 || ex_now_ns() > deadline) {
            EX_ERR("the write kernel (%u-byte messages) has not finished%s", job->size,
                   ex_signal != 0 ? " and a signal arrived" : " after 120 s");
            goto out;
        }
    }
    if (write_bw_cuda_failed(rc, "the write kernel") ||
        write_bw_cuda_failed(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime") ||
        write_bw_cuda_failed(cudaMemcpy(&error, d_error, sizeof(int), cudaMemcpyDeviceToHost),
                             "cudaMemcpy"))
        goto out;
    if (error) {
        EX_ERR("the last write of %u bytes completed in error", job->size);
        goto out;
    }
    *elapsed_us = (double)ms * 1000.0;
    ret = 0;
out:
    if (start != NULL)
        cudaEventDestroy(start);
    if (stop != NULL)
        cudaEventDestroy(stop);
    /* A kernel still running may write the flag: then it stays allocated. */
    if (d_error != NULL && ret == 0)
        cudaFree(d_error);
    return ret;
}
