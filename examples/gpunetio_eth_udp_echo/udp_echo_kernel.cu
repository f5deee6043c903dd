/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_eth_udp_echo's persistent kernel: one block of ECHO_GPU_THREADS
 * threads per queue, launched once, looping until the host sets the exit
 * flag. Each turn the block receives a batch together (block scope), each
 * thread turns its packet into the answer in place and writes the send WQE
 * of it, from where it was received, in a batch thread 0 reserved; thread 0
 * submits the batch (whose last WQE alone asks for a completion), waits for
 * that completion before the next receive, so that the NIC has read every
 * answer before its slot can come round again, and publishes the counters.
 */
#include <cuda_runtime.h>
#include <time.h>

#include "doca_gpunetio_dev_eth_rxq.cuh"
#include "doca_gpunetio_dev_eth_txq.cuh"
#include "ex_common.h"
#include "ex_udp_swap.h"
#include "udp_echo.h"

__device__ static void echo_publish(struct echo_counters *c, unsigned long long rx,
                                    unsigned long long rx_bytes, unsigned long long tx,
                                    unsigned long long tx_bytes, unsigned long long ignored)
{
    /* Pinned host memory the host reads while the kernel runs: plain volatile stores. */
    DOCA_GPUNETIO_VOLATILE(c->rx_pkts) = rx;
    DOCA_GPUNETIO_VOLATILE(c->rx_bytes) = rx_bytes;
    DOCA_GPUNETIO_VOLATILE(c->tx_pkts) = tx;
    DOCA_GPUNETIO_VOLATILE(c->tx_bytes) = tx_bytes;
    DOCA_GPUNETIO_VOLATILE(c->ignored) = ignored;
}

/* Thread 0: waits for the batch's completion; ECHO_OK, ECHO_INTERRUPTED or an echo_error. */
__device__ static int echo_wait_batch(const struct echo_job &job)
{
    uint32_t done = 0;

    /* Without blocking in the library: the exit flag is seen even if the NIC never answers. */
    for (uint64_t start = doca_gpu_dev_eth_query_globaltimer();;) {
        doca_error_t st = doca_gpu_dev_eth_txq_poll_completion<
                DOCA_GPUNETIO_ETH_CQ_POLL_LAST, DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(
                job.txq, 1, DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done);

        if (st != DOCA_SUCCESS)
            return ECHO_ERR_COMPLETION;
        if (done != 0)
            return ECHO_OK;
        if (DOCA_GPUNETIO_VOLATILE(job.shared->exit_flag) != 0)
            return ECHO_INTERRUPTED; /* not counted as sent: their completion is unknown */
        if (doca_gpu_dev_eth_query_globaltimer() - start > ECHO_STALL_NS)
            return ECHO_ERR_STALL;
    }
}

__global__ void __launch_bounds__(ECHO_GPU_THREADS) echo_kernel(struct echo_job job)
{
    __shared__ uint64_t first_pkt;
    __shared__ uint32_t num_pkts;
    __shared__ struct doca_gpu_dev_eth_rxq_attr attr[ECHO_GPU_THREADS];
    __shared__ uint32_t answers;
    __shared__ uint64_t wqe_base;
    __shared__ unsigned long long batch_rx_bytes, batch_tx_bytes;
    __shared__ int stop;
    struct echo_counters *c = &job.shared->q[job.queue];
    const uint32_t mkey = doca_gpu_dev_eth_rxq_get_pkt_mkey(job.rxq); /* big-endian */
    unsigned long long rx = 0, rx_bytes = 0, tx = 0, tx_bytes = 0, ignored = 0;
    int error = ECHO_OK;

    for (;;) {
        if (threadIdx.x == 0) {
            stop = DOCA_GPUNETIO_VOLATILE(job.shared->exit_flag) != 0 || error != ECHO_OK;
            answers = 0;
            batch_rx_bytes = 0;
            batch_tx_bytes = 0;
        }
        __syncthreads();
        if (stop)
            break;
        doca_error_t st = doca_gpu_dev_eth_rxq_recv<
                DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK, DOCA_GPUNETIO_ETH_MCST_DISABLED,
                DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO, DOCA_GPUNETIO_ETH_RX_ATTR_ALL>(
                job.rxq, job.batch, ECHO_RX_TIMEOUT_NS, &first_pkt, &num_pkts, attr);
        if (st != DOCA_SUCCESS) {
            if (threadIdx.x == 0)
                error = ECHO_ERR_RECV;
            continue; /* every thread got the same status: the next turn stops */
        }
        if (num_pkts == 0)
            continue;

        /* Each thread answers its packet in place; the answers take consecutive positions. */
        uint64_t addr = 0;
        uint32_t len = 0, pos = UINT32_MAX;

        if (threadIdx.x < num_pkts) {
            addr = doca_gpu_dev_eth_rxq_get_pkt_addr(job.rxq, first_pkt + threadIdx.x);
            len = attr[threadIdx.x].bytes;
            atomicAdd_block(&batch_rx_bytes, (unsigned long long)len);
            if (ex_udp_swap((uint8_t *)(uintptr_t)addr, len, job.port) != 0) {
                pos = atomicAdd_block(&answers, 1u);
                atomicAdd_block(&batch_tx_bytes, (unsigned long long)len);
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            /* What was received counts now, whatever the answers take. */
            rx += num_pkts;
            rx_bytes += batch_rx_bytes;
            ignored += num_pkts - answers;
            echo_publish(c, rx, rx_bytes, tx, tx_bytes, ignored);
        }
        if (answers != 0) {
            /* One batch of WQEs on the queue the block owns; only its last asks for a CQE. */
            if (threadIdx.x == 0)
                wqe_base = doca_gpu_dev_eth_txq_reserve_wq_slots<
                        DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(job.txq, answers);
            __syncthreads();
            if (pos != UINT32_MAX) {
                const uint64_t idx = wqe_base + pos;

                doca_gpu_dev_eth_txq_wqe_prepare_send(
                        job.txq, doca_gpu_dev_eth_txq_get_wqe_ptr(job.txq, (uint16_t)idx),
                        (uint16_t)idx, addr, mkey, len,
                        pos == answers - 1 ? DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY
                                           : DOCA_GPUNETIO_ETH_SEND_FLAG_NONE);
            }
            /* Every WQE (and every answer's bytes) before thread 0 rings the NIC. */
            __syncthreads();
            if (threadIdx.x == 0) {
                doca_gpu_dev_eth_txq_mark_wqes_ready<
                        DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(job.txq, wqe_base,
                                                                           wqe_base + answers - 1);
                doca_gpu_dev_eth_txq_submit<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(
                        job.txq, wqe_base + answers);
                /* The answers are sent from the receive slots: wait until the NIC read them. */
                error = echo_wait_batch(job);
            }
        }
        if (threadIdx.x == 0) {
            if (error == ECHO_OK) {
                tx += answers;
                tx_bytes += batch_tx_bytes;
            }
            if (error == ECHO_INTERRUPTED)
                error = ECHO_OK; /* the exit flag: the next turn stops */
            echo_publish(c, rx, rx_bytes, tx, tx_bytes, ignored);
        }
        __syncthreads(); /* attr and the batch's sums are the next receive's */
    }
    if (threadIdx.x == 0) {
        echo_publish(c, rx, rx_bytes, tx, tx_bytes, ignored);
        DOCA_GPUNETIO_VOLATILE(c->error) = (uint64_t)error;
        __threadfence_system();
    }
}

static int echo_cuda_failed(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" int echo_gpu_launch(const struct echo_job *job, void *stream)
{
    if (echo_cuda_failed(cudaGetLastError(), "an earlier CUDA call"))
        return -1;
    echo_kernel<<<1, ECHO_GPU_THREADS, 0, (cudaStream_t)stream>>>(*job);
    return echo_cuda_failed(cudaGetLastError(), "launching the echo kernel");
}

extern "C" int echo_gpu_done(void *stream)
{
    cudaError_t rc = cudaStreamQuery((cudaStream_t)stream);

    if (rc == cudaErrorNotReady)
        return 0;
    echo_cuda_failed(rc, "the echo kernel");
    return 1;
}

extern "C" int echo_gpu_wait(void *stream, unsigned timeout_s)
{
    const uint64_t deadline = ex_now_ns() + (uint64_t)timeout_s * 1000000000ull;
    cudaError_t rc;

    /* Politely: a software NIC in this process needs the CUDA driver too. */
    while ((rc = cudaStreamQuery((cudaStream_t)stream)) == cudaErrorNotReady) {
        const struct timespec nap = {0, 100000};

        if (ex_now_ns() > deadline)
            return -1;
        nanosleep(&nap, NULL);
    }
    return echo_cuda_failed(rc, "the echo kernel");
}
