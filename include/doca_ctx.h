/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA contexts (DOCA core, doca_ctx.h): the lifecycle every queue goes
 * through. A context is configured while IDLE, started (which creates the
 * queue on the device), and stopped (which destroys it); the Ethernet queues
 * hand theirs out with doca_eth_rxq_as_doca_ctx() / doca_eth_txq_as_doca_ctx().
 * Start and stop are synchronous here: a context is IDLE or RUNNING.
 *
 * doca_ctx_set_datapath_on_gpu(ctx, gpu) puts the data path on a GPU: rings
 * in GPU memory, the queue's descriptor in GPU memory, for CUDA kernels.
 * With gpu NULL (this library's convention, as doca_gpu_verbs_export_qp with
 * gpu_dev NULL) CPU threads run the same data-path core: rings and
 * descriptor in host memory, and the get_gpu_handle calls give host pointers.
 */
#ifndef DOCA_CTX_H
#define DOCA_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_gpu;

enum doca_ctx_states {
    DOCA_CTX_STATE_IDLE = 0,     /* configurable; nothing on the device */
    DOCA_CTX_STATE_STARTING = 1, /* never reported here: starts are synchronous */
    DOCA_CTX_STATE_RUNNING = 2,  /* the queue exists on the device */
    DOCA_CTX_STATE_STOPPING = 3, /* never reported here: stops are synchronous */
};

/*
 * Creates the queue on the device with its configuration. BAD_STATE when
 * not IDLE, when the data path was never chosen
 * (doca_ctx_set_datapath_on_gpu), or when a memory map or buffer array it
 * uses is not started; INVALID_VALUE for a configuration the queue cannot
 * take; NOT_SUPPORTED when the device cannot.
 */
DOCA_STABLE doca_error_t doca_ctx_start(struct doca_ctx *ctx);
/*
 * Destroys the queue on the device (flows steering to it must be destroyed
 * first: IN_USE) and frees its descriptor; kernels must be done with the
 * GPU handle. BAD_STATE when not RUNNING.
 */
DOCA_STABLE doca_error_t doca_ctx_stop(struct doca_ctx *ctx);
DOCA_STABLE doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx,
                                            enum doca_ctx_states *state);
/*
 * Chooses where the data path runs (only while IDLE): on gpu_dev, which must
 * have compute capability 8.0 or more and dma-buf (NOT_SUPPORTED naming the
 * CUDA attribute otherwise), or, with gpu_dev NULL, on CPU threads.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx,
                                                            struct doca_gpu *gpu_dev);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H */
