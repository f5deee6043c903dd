/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_lat's kernel: one CUDA thread plays one side of the
 * ping-pong of one message size with the low-level API: reserve a slot,
 * prepare the RDMA write WQE in it, mark it ready, submit it (BlueFlame
 * with NIC handler GPU_SM_BF), and poll its own receive buffer for the
 * peer's message.
 */
#include <cuda_runtime.h>
#include <time.h>

#include "doca_gpunetio_dev_verbs_qp.cuh"
#include "ex_common.h"
#include "ex_kernel_times.cuh"
#include "ex_oob.h"
#include "write_lat.h"

#define WL_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* Waits for the peer's message (its last byte turning to v); watches this side's CQ meanwhile. */
__device__ static uint32_t write_lat_wait(const volatile uint8_t *flag, uint8_t v,
                                          struct doca_gpu_dev_verbs_cq *cq, bool posted,
                                          uint64_t last, uint64_t timeout_ns)
{
    uint64_t start = doca_gpu_dev_verbs_query_globaltimer();
    uint32_t spins = 0;

    while (*flag != v) {
        if ((++spins & 1023) != 0)
            continue;
        if (posted && doca_gpu_dev_verbs_poll_one_cq_at(cq, last) < 0)
            return WRITE_LAT_CQE_ERROR;
        if (doca_gpu_dev_verbs_query_globaltimer() - start > timeout_ns)
            return WRITE_LAT_TIMEOUT;
    }
    return WRITE_LAT_OK;
}

__global__ void write_lat_kernel(struct doca_gpu_dev_verbs_qp *qp, struct write_lat_job job,
                                 struct write_lat_result *result)
{
    const volatile uint8_t *flag = job.recv + job.size - 1;
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_sq(qp);
    uint32_t status = WRITE_LAT_OK;
    uint64_t last = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0 = doca_gpu_dev_verbs_query_globaltimer();
    EX_KT_DECL(kt);

    for (i = 0; i < job.iterations; i++) {
        uint8_t v = write_lat_value(i);
        uint64_t idx;

        EX_KT_START(kt);
        if (!job.client &&
            (status = write_lat_wait(flag, v, cq, posted, last, job.timeout_ns)) != WRITE_LAT_OK)
            break;
        if (!job.client)
            EX_KT_STOP(kt, EX_KT_WAIT);
        EX_KT_START(kt);
        job.send[job.size - 1] = v; /* ordered before the doorbell by submit's system fence */
        idx = doca_gpu_dev_verbs_reserve_wq_slots<WL_RSM>(qp, 1);
        doca_gpu_dev_verbs_wqe_prepare_write(
                qp, doca_gpu_dev_verbs_get_wqe_ptr(qp, idx), idx,
                DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE, DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE,
                0, job.raddr, job.rkey_be, (uint64_t)(uintptr_t)job.send, job.lkey_be, job.size);
        doca_gpu_dev_verbs_mark_wqes_ready<WL_RSM>(qp, idx, idx);
        if (job.bf)
            doca_gpu_dev_verbs_submit_bf<WL_RSM>(qp, idx + 1,
                                                 doca_gpu_dev_verbs_get_wqe_ptr(qp, idx));
        else
            doca_gpu_dev_verbs_submit<WL_RSM>(qp, idx + 1);
        last = idx;
        posted = true;
        EX_KT_STOP(kt, EX_KT_POST);
        EX_KT_START(kt);
        if (job.client &&
            (status = write_lat_wait(flag, v, cq, posted, last, job.timeout_ns)) != WRITE_LAT_OK)
            break;
        if (job.client)
            EX_KT_STOP(kt, EX_KT_WAIT);
    }
    result->elapsed_ns = doca_gpu_dev_verbs_query_globaltimer() - t0;
    EX_KT_PRINT(kt, job.client ? "write_lat client" : "write_lat server");
    /* The last write must complete before the buffers may change. */
    if (status == WRITE_LAT_OK && posted && doca_gpu_dev_verbs_poll_cq_at<WL_RSM>(cq, last) != 0)
        status = WRITE_LAT_CQE_ERROR;
    result->status = status;
    result->iteration = i;
}

static int write_lat_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int write_lat_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_lat_job *job,
                                 void *stream, struct write_lat_result *result)
{
    cudaStream_t s = (cudaStream_t)stream;
    struct write_lat_result *d_result = NULL;
    cudaEvent_t done = NULL;
    /* The kernel gives up after timeout_ns without a message; this is only a safety net. */
    uint64_t deadline = ex_now_ns() + 2 * job->timeout_ns * job->iterations;
    cudaError_t rc;
    int ret = -1;

    if (write_lat_cuda_failed(cudaMalloc(&d_result, sizeof(*d_result)), "cudaMalloc") ||
        write_lat_cuda_failed(cudaEventCreate(&done), "cudaEventCreate"))
        goto out;
    write_lat_kernel<<<1, 1, 0, s>>>(qp, *job, d_result);
    if (write_lat_cuda_failed(cudaGetLastError(), "launching the ping-pong kernel"))
        goto out;
    cudaEventRecord(done, s);
    while ((rc = cudaEventQuery(done)) == cudaErrorNotReady) {
        /* Politely: a software NIC in this process needs the CUDA driver too. */
        const struct timespec nap = {0, 20000};

        nanosleep(&nap, NULL);
        if (ex_oob_peer_gone()) {
            EX_ERR("%u-byte messages: "
                   "the peer closed the connection before reporting its results: it is gone",
                   job->size);
            goto out;
        }
        if (ex_signal != 0 || ex_now_ns() > deadline) {
            EX_ERR("the ping-pong kernel (%u-byte messages) has not finished%s", job->size,
                   ex_signal != 0 ? " and a signal arrived" : "");
            goto out;
        }
    }
    if (write_lat_cuda_failed(rc, "the ping-pong kernel") ||
        write_lat_cuda_failed(cudaMemcpy(result, d_result, sizeof(*result), cudaMemcpyDeviceToHost),
                              "cudaMemcpy"))
        goto out;
    ret = 0;
    cudaFree(d_result);
out:
    if (done != NULL)
        cudaEventDestroy(done);
    return ret;
}
