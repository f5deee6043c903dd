/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_lat's kernel: one CUDA thread plays one side of
 * the ping-pong of one message size with the high-level API: each message
 * is a doca_gpu_dev_verbs_put_signal (-w 0) or a
 * doca_gpu_dev_verbs_put_immediate (-w 1), and the thread polls its own
 * signal of the size for the peer's message.
 */
#include <cuda_runtime.h>

#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "ex_common.h"
#include "ex_gpu.h"
#include "put_signal_lat.h"

#define PSL_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* Waits for the signal to reach want (the peer's next message); watches this side's CQ meanwhile.
 */
__device__ static uint32_t put_signal_lat_wait(const volatile uint64_t *signal, uint64_t want,
                                               uint32_t immediate, struct doca_gpu_dev_verbs_qp *qp,
                                               bool posted, uint64_t last, uint64_t timeout_ns)
{
    uint64_t start = doca_gpu_dev_verbs_query_globaltimer();
    uint32_t spins = 0;

    while (put_signal_lat_count(*signal, immediate) < want) {
        if ((++spins & 1023) != 0)
            continue;
        if (posted && doca_gpu_dev_verbs_poll_one_cq_at(qp, last) < 0)
            return WRITE_LAT_CQE_ERROR;
        if (doca_gpu_dev_verbs_query_globaltimer() - start > timeout_ns)
            return WRITE_LAT_TIMEOUT;
    }
    return WRITE_LAT_OK;
}

__global__ void put_signal_lat_kernel(struct doca_gpu_dev_verbs_qp *qp,
                                      struct put_signal_lat_job job,
                                      struct write_lat_result *result)
{
    const volatile uint64_t *signal = job.signal;
    uint32_t status = WRITE_LAT_OK;
    doca_gpu_dev_verbs_ticket_t ticket = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0 = doca_gpu_dev_verbs_query_globaltimer();

    for (i = 0; i < job.iterations; i++) {
        if (!job.client &&
            (status = put_signal_lat_wait(signal, i + 1ull, job.immediate, qp, posted, ticket,
                                          job.timeout_ns)) != WRITE_LAT_OK)
            break;
        if (job.immediate)
            doca_gpu_dev_verbs_put_immediate<PSL_RSM>(qp, job.raddr, job.laddr, job.size,
                                                      job.sig_id, 1, &ticket);
        else
            doca_gpu_dev_verbs_put_signal<DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, PSL_RSM>(
                    qp, job.raddr, job.laddr, job.size, job.sig_raddr, job.sig_laddr, 1, &ticket);
        posted = true;
        if (job.client && (status = put_signal_lat_wait(signal, i + 1ull, job.immediate, qp, posted,
                                                        ticket, job.timeout_ns)) != WRITE_LAT_OK)
            break;
    }
    result->elapsed_ns = doca_gpu_dev_verbs_query_globaltimer() - t0;
    /* The last message must complete before the buffers may change. */
    if (status == WRITE_LAT_OK && posted && doca_gpu_dev_verbs_wait<PSL_RSM>(qp, ticket) != 0)
        status = WRITE_LAT_CQE_ERROR;
    result->status = status;
    result->iteration = i;
}

struct put_signal_lat_launch {
    struct doca_gpu_dev_verbs_qp *qp;
    const struct put_signal_lat_job *job;
    struct write_lat_result *d_result;
};

static int put_signal_lat_launch(void *arg, void *stream)
{
    const struct put_signal_lat_launch *l = (const struct put_signal_lat_launch *)arg;

    put_signal_lat_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(l->qp, *l->job, l->d_result);
    return 0;
}

extern "C" int put_signal_lat_gpu_run(struct doca_gpu_dev_verbs_qp *qp,
                                      const struct put_signal_lat_job *job, void *stream,
                                      struct write_lat_result *result)
{
    struct put_signal_lat_launch l = {qp, job, NULL};
    /* The kernel gives up after timeout_ns without a message; this is only a safety net. */
    uint64_t limit_s = 2 * (job->timeout_ns / 1000000000ull) * job->iterations;
    double elapsed_us = 0;
    cudaError_t rc = cudaMalloc(&l.d_result, sizeof(*l.d_result));
    int ret;

    if (rc != cudaSuccess) {
        EX_ERR("cudaMalloc of the kernel's result: %s (%s)", cudaGetErrorString(rc),
               cudaGetErrorName(rc));
        return -1;
    }
    ret = ex_gpu_run_timed(stream, put_signal_lat_launch, &l, "the ping-pong kernel",
                           limit_s > 1000000000ull ? 1000000000u : (unsigned)limit_s, &elapsed_us);
    /* A kernel that did not finish may still write its result: its memory is left to it. */
    if (ret == 0) {
        ret = ex_gpu_memcpy_from_gpu(result, l.d_result, sizeof(*result));
        cudaFree(l.d_result);
    }
    return ret;
}
