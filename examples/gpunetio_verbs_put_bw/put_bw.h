/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_bw: what the host code and the kernel share.
 *
 * The message sizes, the buffer of each size and its pattern are the
 * bandwidth examples' (ex_bw.h): put number k (0 <= k < iterations) copies
 * slot k % slots of the client's buffer to the same slot of the server's.
 */
#ifndef PUT_BW_H
#define PUT_BW_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PUT_BW_GPU_BLOCKS        2
#define PUT_BW_GPU_BLOCK_THREADS 256
#define PUT_BW_GPU_THREADS       (PUT_BW_GPU_BLOCKS * PUT_BW_GPU_BLOCK_THREADS)
/* CPU execution: threads sharing the one QP (sharing mode GPU: any thread, atomics). */
#define PUT_BW_CPU_THREADS       2

/* One message size's run. Keys are big-endian, as the data path takes them. */
struct put_bw_job {
    uint64_t raddr; /* the server's buffer */
    uint64_t laddr; /* the client's buffer */
    uint64_t size;
    uint32_t rkey_be;
    uint32_t lkey_be;
    uint32_t slots;
    uint32_t iterations;
};

/*
 * Runs a job in a kernel of PUT_BW_GPU_BLOCKS x PUT_BW_GPU_BLOCK_THREADS
 * threads on stream (warp: execution scope WARP) and waits for it;
 * *elapsed_us gets the kernel's time. 0, or -1 (logged) when the kernel
 * failed, met an error completion, or did not finish in time.
 */
int put_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct put_bw_job *job, int warp,
                   void *stream, double *elapsed_us);

#ifdef __cplusplus
}
#endif

#endif /* PUT_BW_H */
