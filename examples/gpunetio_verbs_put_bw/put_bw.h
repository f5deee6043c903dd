/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_bw: what the host code and the kernel share.
 *
 * Message sizes: 16, 1 B and then 64 B doubling up to 1 MiB.
 * Each size has its own buffer on both sides, `slots` messages long; put
 * number k (0 <= k < iterations) copies slot k % slots of the client's
 * buffer to the same slot of the server's. slots is min(iterations, 512,
 * 64 MiB / size), so buffers stay at most 64 MiB (about 320 MiB per side
 * for -i 2048) and every slot is written at least once.
 */
#ifndef PUT_BW_H
#define PUT_BW_H

#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"
/* GDAKI_INLINE; last, as the public header above removes it at its end. */
#include "gdaki_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PUT_BW_NUM_SIZES         16
#define PUT_BW_GPU_BLOCKS        2
#define PUT_BW_GPU_BLOCK_THREADS 256
#define PUT_BW_GPU_THREADS       (PUT_BW_GPU_BLOCKS * PUT_BW_GPU_BLOCK_THREADS)
/* CPU execution: threads sharing the one QP (sharing mode GPU: any thread, atomics). */
#define PUT_BW_CPU_THREADS       2
#define PUT_BW_MAX_SLOTS         512
#define PUT_BW_BUF_CAP           (64ull << 20)

/* Message size number i (0..15): 1, 64, 128, ..., 1 MiB. */
GDAKI_INLINE size_t put_bw_size(int i)
{
    return i == 0 ? 1 : (size_t)64 << (i - 1);
}

GDAKI_INLINE uint32_t put_bw_slots(uint32_t iterations, size_t size)
{
    uint64_t slots = iterations < PUT_BW_MAX_SLOTS ? iterations : PUT_BW_MAX_SLOTS;

    if (slots * size > PUT_BW_BUF_CAP)
        slots = PUT_BW_BUF_CAP / size;
    return (uint32_t)slots;
}

/*
 * The byte the client writes at offset `off` of slot `slot` of size number
 * `size_idx`: 1 + (start + off) % 255 (never 0, which the server's buffers
 * start as), start depending on the size and slot.
 */
GDAKI_INLINE uint32_t put_bw_pattern_start(int size_idx, uint32_t slot)
{
    return ((uint32_t)size_idx * 29u + slot * 131u) % 255u;
}

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
