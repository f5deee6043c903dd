/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_bw: what the host code and the kernel share.
 *
 * The message sizes, the buffer of each size and its pattern are the
 * bandwidth examples' (ex_bw.h): write number k (0 <= k < iterations)
 * copies slot k % slots of the client's buffer to the same slot of the
 * server's. A size's run reserves a send-queue slot for every one of its
 * writes, prepares them all, submits them at once and polls the completion
 * of the last: the iterations cannot exceed the send queue (EX_SQ_WQES).
 */
#ifndef WRITE_BW_H
#define WRITE_BW_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPU execution: one block; thread 0 reserves, submits and polls, all threads prepare. */
#define WRITE_BW_GPU_THREADS 256
/* CPU execution: threads preparing the writes; thread 0 also reserves, submits and polls. */
#define WRITE_BW_CPU_THREADS 2

/* One message size's run. Keys are big-endian, as the data path takes them. */
struct write_bw_job {
    uint64_t raddr; /* the server's buffer */
    uint64_t laddr; /* the client's buffer */
    uint32_t size;
    uint32_t rkey_be;
    uint32_t lkey_be;
    uint32_t slots;
    uint32_t iterations;
};

/*
 * Runs a job in a kernel of one block of WRITE_BW_GPU_THREADS threads on
 * stream and waits for it; *elapsed_us gets the kernel's time. 0, or -1
 * (logged) when the kernel failed, the last write completed in error, or
 * the kernel did not finish in time.
 */
int write_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_bw_job *job, void *stream,
                     double *elapsed_us);

#ifdef __cplusplus
}
#endif

#endif /* WRITE_BW_H */
