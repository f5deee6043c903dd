/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the bandwidth examples share: their message sizes, one buffer per
 * size and the pattern in it, the table they print, and the CPU threads
 * that run their data path with --exec cpu.
 *
 * Message sizes: 16 of them, 1 B and then 64 B doubling up to 1 MiB. Each size has
 * its own buffer on both sides, `slots` messages long: operation number k
 * (0 <= k < iterations) moves slot k % slots. slots is min(iterations, 512,
 * 64 MiB / size), so buffers stay at most 64 MiB (about 320 MiB per side
 * for -i 2048) and every slot is moved at least once. Byte `off` of slot
 * `slot` of size number `size_idx` is 1 + (29 size_idx + 131 slot + off) %
 * 255: never 0, which a buffer that is not filled starts as.

 */
#ifndef EX_BW_H
#define EX_BW_H

#include <stddef.h>
#include <stdint.h>

#include "ex_common.h"
#include "ex_verbs.h"

#define EX_BW_NUM_SIZES 16
#define EX_BW_MAX_SLOTS 512
#define EX_BW_BUF_CAP   (64ull << 20)

/* Message size number i (0..15): 1, 64, 128, ..., 1 MiB. */
static inline size_t ex_bw_size(int i)
{
    return i == 0 ? 1 : (size_t)64 << (i - 1);
}

static inline uint32_t ex_bw_slots(uint32_t iterations, size_t size)
{
    uint64_t slots = iterations < EX_BW_MAX_SLOTS ? iterations : EX_BW_MAX_SLOTS;

    if (slots * size > EX_BW_BUF_CAP)
        slots = EX_BW_BUF_CAP / size;
    return (uint32_t)slots;
}

/* ---- Pattern -------------------------------------------------------------------------------- */

/* Fills the `slots` messages of size number size_idx at buf with the pattern. */
void ex_bw_fill(uint8_t *buf, int size_idx, uint32_t slots);
/* The first byte of buf that differs from the pattern: its offset, or -1 if none. */
long long ex_bw_first_bad(const uint8_t *buf, int size_idx, uint32_t slots);
/* The pattern byte at offset pos of size number size_idx's buffer. */
uint8_t ex_bw_expected(int size_idx, size_t pos);

/* ---- Buffers -------------------------------------------------------------------------------- */

/*
 * One registered buffer per size (EX_BW_NUM_SIZES of them, in bufs), with
 * access (IBV_ACCESS_*), in GPU memory when c has a GPU; filled with the
 * pattern when fill is set, zeroed otherwise. On failure (logged) the ones
 * made are freed again.
 */
int ex_bw_bufs_create(struct ex_ctx *c, uint32_t iterations, int access, int fill,
                      struct ex_buf *bufs);
void ex_bw_bufs_destroy(struct ex_ctx *c, struct ex_buf *bufs);
/*
 * Checks every slot of every size's buffer against the pattern (GPU
 * memory from a copy); logs the first bad byte. 0 when all are right.
 */
int ex_bw_bufs_check(const struct ex_buf *bufs, uint32_t iterations);

/* ---- Table ---------------------------------------------------------------------------------- */

/* Size, iterations, bandwidth (Gbps), message rate (Mpps), time (us). */
void ex_bw_table_header(void);
void ex_bw_table_row(size_t size, uint32_t iterations, double elapsed_us);

/* ---- CPU threads ---------------------------------------------------------------------------- */

/*
 * Runs fn(arg, index) on nthreads CPU threads started together; *elapsed_us
 * gets the wall-clock time from their start to the last join. 0, or -1
 * when one of them returned non-zero.
 */
int ex_bw_cpu_run(uint32_t nthreads, int (*fn)(void *arg, uint32_t index), void *arg,
                  double *elapsed_us);

#endif /* EX_BW_H */
