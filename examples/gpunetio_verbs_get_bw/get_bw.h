/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_get_bw: what the host code and the kernel share.
 *
 * The message sizes, the buffer of each size and its pattern are the
 * bandwidth examples' (ex_bw.h): get number k (0 <= k < iterations) reads
 * slot k % slots of the server's buffer into the same slot of the
 * client's.
 */
#ifndef GET_BW_H
#define GET_BW_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GET_BW_GPU_BLOCKS        2
#define GET_BW_GPU_BLOCK_THREADS 256
#define GET_BW_GPU_THREADS       (GET_BW_GPU_BLOCKS * GET_BW_GPU_BLOCK_THREADS)
/* CPU execution: threads sharing the one QP (sharing mode GPU: any thread, atomics). */
#define GET_BW_CPU_THREADS       2

/* One message size's run. Keys are big-endian, as the data path takes them. */
struct get_bw_job {
    uint64_t raddr; /* the server's buffer (read) */
    uint64_t laddr; /* the client's buffer (written); its first byte is also the dump address */
    uint64_t size;
    uint32_t rkey_be;
    uint32_t lkey_be;
    uint32_t slots;
    uint32_t iterations;
};

/*
 * Runs a job in a kernel of GET_BW_GPU_BLOCKS x GET_BW_GPU_BLOCK_THREADS
 * threads on stream (warp: execution scope WARP; mcst: every thread waits
 * for its last get with doca_gpu_dev_verbs_get_wait and MCST_ENABLED, else
 * with doca_gpu_dev_verbs_wait) and waits for it; *elapsed_us gets the
 * kernel's time. 0, or -1 (logged) when the kernel failed, met an error
 * completion, or did not finish in time.
 */
int get_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct get_bw_job *job, int warp,
                   int mcst, void *stream, double *elapsed_us);

#ifdef __cplusplus
}
#endif

#endif /* GET_BW_H */
