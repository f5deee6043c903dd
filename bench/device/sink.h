/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sink benchmark of the device data path: what the kernels
 * (sink_kernels.cu) and the host driver (sink_bench.cu) share. Every kernel
 * posts `iters` operations per thread on QPs whose WQEs nothing consumes:
 * the rings wrap, availability checks are skipped, and the doorbell is a
 * host page standing in for the UAR.
 */
#ifndef BENCH_SINK_H
#define BENCH_SINK_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

/* Operations, and how threads share QPs. */
enum sink_op { SINK_PUT, SINK_PUT_SIGNAL, SINK_GET, SINK_NUM_OPS };
enum sink_mode {
    SINK_EXCLUSIVE, /* thread scope, one QP per thread */
    SINK_CTA,       /* thread scope, QP shared by the block (CTA sharing) */
    SINK_GPU,       /* thread scope, QP shared by the block (GPU sharing) */
    SINK_WARP,      /* warp scope, one QP per warp */
    SINK_NUM_MODES
};

/* Kernel arguments: thread t posts on qps[t / threads_per_qp]. */
struct sink_args {
    struct doca_gpu_dev_verbs_qp *qps;
    uint32_t threads_per_qp;
    uint32_t iters;
    struct doca_gpu_dev_verbs_addr raddr; /* each thread adds 8 * its index */
    struct doca_gpu_dev_verbs_addr laddr;
    struct doca_gpu_dev_verbs_addr sig_raddr;
    struct doca_gpu_dev_verbs_addr sig_laddr;
    unsigned long long *out; /* one word per thread: keeps each thread's tickets live */
};

/* A kernel (ptxas reports it under its C name: sink_<op>_<mode>, bare_<op>_<shape>). */
typedef void (*sink_kernel_fn)(struct sink_args);

/* The library's kernel for (op, mode), and the bare one: the same stores, no protocol. */
extern const sink_kernel_fn sink_kernels[SINK_NUM_OPS][SINK_NUM_MODES];
extern const sink_kernel_fn sink_bare_kernels[SINK_NUM_OPS][SINK_NUM_MODES];

#endif /* BENCH_SINK_H */
