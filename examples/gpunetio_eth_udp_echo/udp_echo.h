/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_eth_udp_echo: what the host code, the persistent kernel and the
 * CPU threads share.
 *
 * Each queue q has its executor: a persistent CUDA kernel of one block, or
 * one CPU thread running the same C core. It receives a batch from its RXQ,
 * turns every IPv4 UDP datagram to the port into its answer in place
 * (ex_udp_swap.h), sends the answers from where they were received on its
 * TXQ, waits for their completions (so that no receive slot is handed back
 * to the NIC while it is still being sent), and adds to its counters. The
 * host reads the counters once a second and sets the exit flag on SIGINT or
 * SIGTERM; all of it lives in struct echo_shared, in memory both see (pinned
 * host memory the GPU maps, or host memory).
 */
#ifndef UDP_ECHO_H
#define UDP_ECHO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_gpu_eth_rxq;
struct doca_gpu_eth_txq;

#define ECHO_MAX_QUEUES    16
/* GPU: threads of the block running one queue, and the most packets one receive returns. */
#define ECHO_GPU_THREADS   128
/* CPU: the most packets one receive returns. */
#define ECHO_CPU_BATCH     64
/*
 * How long a receive waits to fill its batch: it returns when the batch is full or this has
 * passed (with what came by then, possibly nothing). Short, because an echo's peer waits for
 * its answers before it sends more; the exit flag is looked at at least this often.
 */
#define ECHO_RX_TIMEOUT_NS (20ull * 1000)
/* Default receive ring: packet slots per RXQ (and send WQEs per TXQ). */
#define ECHO_DEFAULT_RING  1024
/* A slot holds a frame of the interface's MTU (1500) and more. */
#define ECHO_MAX_PACKET    2048

/* What one queue's executor counts; only it writes them (one cache line of its own). */
struct echo_counters {
    uint64_t rx_pkts;  /* packets received (every one the RXQ returned) */
    uint64_t rx_bytes; /* their frames' bytes */
    uint64_t tx_pkts;  /* answers sent and completed */
    uint64_t tx_bytes;
    uint64_t ignored; /* received, but not an IPv4 UDP datagram to the port: not answered */
    uint64_t error;   /* nonzero: the executor stopped (enum echo_error) */
    uint64_t pad[2];
};

enum echo_error {
    ECHO_INTERRUPTED = -1, /* the exit flag came while a batch's answers were in flight */
    ECHO_OK = 0,
    ECHO_ERR_RECV = 1,       /* a receive failed (an error completion on the RXQ) */
    ECHO_ERR_SEND = 2,       /* a send could not be posted */
    ECHO_ERR_COMPLETION = 3, /* a send completed in error */
    ECHO_ERR_STALL = 4,      /* a batch's send completion did not come within ECHO_STALL_NS */
};

/* How long a batch's answers may take to complete before the queue is declared stalled. */
#define ECHO_STALL_NS (5ull * 1000 * 1000 * 1000)

struct echo_shared {
    volatile uint32_t exit_flag; /* set by the host; every executor stops at its next batch */
    uint32_t reserved[31];
    struct echo_counters q[ECHO_MAX_QUEUES];
};

/* One queue's executor: its handles (GPU memory, or host memory for CPU threads). */
struct echo_job {
    struct doca_gpu_eth_rxq *rxq;
    struct doca_gpu_eth_txq *txq;
    uint32_t batch; /* the most packets a receive returns */
    uint16_t port;  /* UDP destination port answered (host order) */
    uint16_t queue;
    struct echo_shared *shared; /* as the executor addresses it */
};

/* Launches queue job->queue's persistent kernel on stream; 0, or -1 (logged). */
int echo_gpu_launch(const struct echo_job *job, void *stream);
/* Whether the kernels of stream have ended (an ended one that failed is logged). */
int echo_gpu_done(void *stream);
/* Waits up to timeout_s for the kernels of stream to end; 0, or -1 (logged). */
int echo_gpu_wait(void *stream, unsigned timeout_s);

/* Runs one queue on the calling CPU thread until the exit flag is set. */
void echo_cpu_run(const struct echo_job *job);

#ifdef __cplusplus
}
#endif

#endif /* UDP_ECHO_H */
