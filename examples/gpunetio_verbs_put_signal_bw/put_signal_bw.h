/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_bw: what the host code and the kernels share.
 *
 * The message sizes, the buffer of each size and its pattern are the
 * bandwidth examples' (ex_bw.h): put number k (0 <= k < iterations) copies
 * slot k % slots of the client's buffer to the same slot of the server's;
 * on the GPU (iterations a multiple of the threads, slots a power of two
 * dividing them) that is the thread's own slot. Thread t of size number z
 * owns the server's signal z * threads + t: -w 0 adds 1 to it with the
 * fetch-add of put_signal (8 bytes at the server's signal buffer; -e 1: one
 * per warp, on lane 0's), -w 1 with the immediate of put_immediate (the
 * server's signal map). Each size runs twice (a warm-up, then the timed
 * run), so every signal ends at 2 * (iterations / threads).
 */
#ifndef PUT_SIGNAL_BW_H
#define PUT_SIGNAL_BW_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define PSB_HOST_DEVICE __host__ __device__
#else
#define PSB_HOST_DEVICE
#endif

#define PSB_GPU_BLOCKS        2
#define PSB_GPU_BLOCK_THREADS 256
#define PSB_GPU_THREADS       (PSB_GPU_BLOCKS * PSB_GPU_BLOCK_THREADS)
/* CPU execution: threads sharing the one QP (sharing mode GPU: any thread, atomics). */
#define PSB_CPU_THREADS       2
/* Runs of each size: a warm-up and the timed one. */
#define PSB_RUNS              2
#define PSB_WARP_SIZE         32

/* One run of one message size. Keys are big-endian, as the data path takes them. */
struct psb_job {
    uint64_t raddr;     /* the server's buffer */
    uint64_t laddr;     /* the client's buffer */
    uint64_t sig_raddr; /* -w 0: the server's first signal of this size */
    uint64_t sig_laddr; /* -w 0: where the previous values come back, one per thread */
    uint64_t size;
    uint32_t rkey_be;
    uint32_t lkey_be;
    uint32_t sig_rkey_be;
    uint32_t sig_lkey_be;
    uint32_t slots;
    uint32_t iterations;
    uint32_t first_sig_id; /* -w 1: the signal id of thread 0 */
    uint32_t run;          /* 1 or 2: each thread's last previous value must be run * share - 1 */
    uint32_t imm;          /* -w 1 */
};

/* What the server's signals hold, for validation. */
struct psb_tally {
    uint64_t sum[16];     /* per message size */
    uint32_t short_count; /* signals below what they must reach */
    uint32_t wrong_count; /* signals not exactly what they must hold */
    uint32_t first_wrong; /* the lowest such id (UINT32_MAX: none) */
    uint64_t first_wrong_value;
};

/*
 * The NIC's atomics work on big-endian values, as ConnectX's: a -w 0 signal
 * holds its count big-endian, and so does the previous value that comes
 * back. (The service writes -w 1 signals in host order.) Little-endian host
 * and GPU: swapped.
 */
PSB_HOST_DEVICE static inline uint64_t psb_from_be64(uint64_t v)
{
    uint64_t r = 0;

    for (int i = 0; i < 8; i++, v >>= 8)
        r = (r << 8) | (v & 0xff);
    return r;
}

/* The value signal id must end with: share * PSB_RUNS, 0 for the lanes >0 of a warp-scope run. */
PSB_HOST_DEVICE static inline uint64_t psb_expected(uint32_t id, uint32_t threads,
                                                    uint32_t lane_stride, uint64_t value)
{
    return (id % threads) % lane_stride == 0 ? value : 0;
}

/*
 * Runs a job in a kernel of PSB_GPU_BLOCKS x PSB_GPU_BLOCK_THREADS threads
 * on stream (warp: execution scope WARP) and waits for it; *elapsed_us gets
 * the kernel's time. 0, or -1 (logged).
 */
int psb_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct psb_job *job, int warp, void *stream,
                double *elapsed_us);
/*
 * Tallies nsig signals at slots (GPU memory; big_endian: -w 0's) with a
 * small kernel; the values to reach are psb_expected(id, threads,
 * lane_stride, value). 0, or -1 (logged).
 */
int psb_gpu_tally(const uint64_t *slots, uint32_t nsig, int big_endian, uint32_t threads,
                  uint32_t lane_stride, uint64_t value, struct psb_tally *out);

#ifdef __cplusplus
}
#endif

#endif /* PUT_SIGNAL_BW_H */
