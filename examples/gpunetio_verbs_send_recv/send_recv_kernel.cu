/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_send_recv's kernel: one CUDA thread plays one side of the
 * ping-pong of one message size with the two-sided API: recv posts the
 * next receive, send the message, recv_wait (non-blocking, under a
 * deadline) waits for the peer's and gives its CQE, whose byte count is
 * checked with the message's first and last bytes.
 */
#include <cuda_runtime.h>
#include <time.h>

#include "doca_gpunetio_dev_verbs_twosided.cuh"
#include "ex_common.h"
#include "ex_kernel_times.cuh"
#include "ex_oob.h"
#include "send_recv.h"

#define SR_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define SR_NIC DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO

/* Waits for receive *ticket and checks message i; then posts the next receive in its place. */
__device__ static uint32_t send_recv_take(struct doca_gpu_dev_verbs_qp *qp,
                                          const struct send_recv_job &job,
                                          doca_gpu_dev_verbs_ticket_t *ticket, uint32_t i,
                                          uint32_t *got)
{
    struct doca_gpu_dev_verbs_addr raddr = {(uint64_t)(uintptr_t)job.recv, job.lkey_recv_be};
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    uint64_t start = doca_gpu_dev_verbs_query_globaltimer();
    int rc;

    while ((rc = doca_gpu_dev_verbs_recv_wait<SR_RSM, SR_NIC, DOCA_GPUNETIO_VERBS_MCST_DISABLED,
                                              DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED>(
                    qp, raddr, ticket, &cqe)) == EBUSY)
        if (doca_gpu_dev_verbs_query_globaltimer() - start > job.timeout_ns)
            return SEND_RECV_TIMEOUT;
    if (rc != 0)
        return SEND_RECV_CQE_ERROR;
    *got = doca_gpu_dev_verbs_cqe_get_bytes(cqe);
    if (!send_recv_check(job.recv, *got, job.size, i))
        return SEND_RECV_BAD_DATA;
    doca_gpu_dev_verbs_recv<SR_RSM, SR_NIC>(qp, raddr, job.recv_len, ticket);
    return SEND_RECV_OK;
}

__global__ void send_recv_kernel(struct doca_gpu_dev_verbs_qp *qp, struct send_recv_job job,
                                 struct send_recv_result *result)
{
    struct doca_gpu_dev_verbs_addr raddr = {(uint64_t)(uintptr_t)job.recv, job.lkey_recv_be};
    struct doca_gpu_dev_verbs_addr saddr = {(uint64_t)(uintptr_t)job.send, job.lkey_send_be};
    struct doca_gpu_dev_verbs_cq *cq = doca_gpu_dev_verbs_qp_get_cq_sq(qp);
    doca_gpu_dev_verbs_ticket_t ticket = job.recv_ticket, sent = 0;
    uint32_t status = SEND_RECV_OK;
    uint32_t got = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0;

    if (job.post_first)
        doca_gpu_dev_verbs_recv<SR_RSM, SR_NIC>(qp, raddr, job.recv_len, &ticket);
    EX_KT_DECL(kt);
    t0 = doca_gpu_dev_verbs_query_globaltimer();
    for (i = 0; i < job.iterations; i++) {
        uint8_t v = send_recv_value(i);

        EX_KT_START(kt);
        if (!job.client && (status = send_recv_take(qp, job, &ticket, i, &got)) != SEND_RECV_OK)
            break;
        if (!job.client)
            EX_KT_STOP(kt, EX_KT_WAIT);
        EX_KT_START(kt);
        /* The send buffer is the NIC's until the last send completed. */
        if (posted && doca_gpu_dev_verbs_poll_cq_at<SR_RSM>(cq, sent) != 0) {
            status = SEND_RECV_CQE_ERROR;
            break;
        }
        job.send[0] = v;
        job.send[job.size - 1] = v;
        doca_gpu_dev_verbs_send<SR_RSM, SR_NIC>(qp, saddr, job.size, &sent);
        posted = true;
        EX_KT_STOP(kt, EX_KT_POST);
        EX_KT_START(kt);
        if (job.client && (status = send_recv_take(qp, job, &ticket, i, &got)) != SEND_RECV_OK)
            break;
        if (job.client)
            EX_KT_STOP(kt, EX_KT_WAIT);
    }
    result->elapsed_ns = doca_gpu_dev_verbs_query_globaltimer() - t0;
    EX_KT_PRINT(kt, job.client ? "send_recv client" : "send_recv server");
    if (status == SEND_RECV_OK && posted && doca_gpu_dev_verbs_poll_cq_at<SR_RSM>(cq, sent) != 0)
        status = SEND_RECV_CQE_ERROR;
    result->status = status;
    result->iteration = i;
    result->got_bytes = got;
    result->recv_ticket = ticket;
}

static int send_recv_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int send_recv_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct send_recv_job *job,
                                 void *stream, struct send_recv_result *result)
{
    cudaStream_t s = (cudaStream_t)stream;
    struct send_recv_result *d_result = NULL;
    cudaEvent_t done = NULL;
    /* The kernel gives up after timeout_ns without a message; this is only a safety net. */
    uint64_t deadline = ex_now_ns() + 2 * job->timeout_ns * job->iterations;
    cudaError_t rc;
    int ret = -1;

    if (send_recv_cuda_failed(cudaMalloc(&d_result, sizeof(*d_result)), "cudaMalloc") ||
        send_recv_cuda_failed(cudaEventCreate(&done), "cudaEventCreate"))
        goto out;
    send_recv_kernel<<<1, 1, 0, s>>>(qp, *job, d_result);
    if (send_recv_cuda_failed(cudaGetLastError(), "launching the ping-pong kernel"))
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
    if (send_recv_cuda_failed(rc, "the ping-pong kernel") ||
        send_recv_cuda_failed(cudaMemcpy(result, d_result, sizeof(*result), cudaMemcpyDeviceToHost),
                              "cudaMemcpy"))
        goto out;
    ret = 0;
out:
    if (d_result != NULL)
        cudaFree(d_result);
    if (done != NULL)
        cudaEventDestroy(done);
    return ret;
}
