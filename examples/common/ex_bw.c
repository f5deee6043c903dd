/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_bw.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_gpu.h"

/* ---- Pattern -------------------------------------------------------------------------------- */

static uint32_t ex_bw_pattern_start(int size_idx, uint32_t slot)
{
    return ((uint32_t)size_idx * 29u + slot * 131u) % 255u;
}

void ex_bw_fill(uint8_t *buf, int size_idx, uint32_t slots)
{
    size_t size = ex_bw_size(size_idx);

    for (uint32_t s = 0; s < slots; s++) {
        uint8_t *p = buf + (size_t)s * size;
        uint32_t v = ex_bw_pattern_start(size_idx, s);

        for (size_t o = 0; o < size; o++) {
            p[o] = (uint8_t)(v + 1);
            v = v == 254 ? 0 : v + 1;
        }
    }
}

long long ex_bw_first_bad(const uint8_t *buf, int size_idx, uint32_t slots)
{
    size_t size = ex_bw_size(size_idx);

    for (uint32_t s = 0; s < slots; s++) {
        const uint8_t *p = buf + (size_t)s * size;
        uint32_t v = ex_bw_pattern_start(size_idx, s);

        for (size_t o = 0; o < size; o++) {
            if (p[o] != (uint8_t)(v + 1))
                return (long long)((size_t)s * size + o);
            v = v == 254 ? 0 : v + 1;
        }
    }
    return -1;
}

uint8_t ex_bw_expected(int size_idx, size_t pos)
{
    size_t size = ex_bw_size(size_idx);
    uint32_t slot = (uint32_t)(pos / size);

    return (uint8_t)((ex_bw_pattern_start(size_idx, slot) + pos % size) % 255 + 1);
}

/* ---- Buffers -------------------------------------------------------------------------------- */

int ex_bw_bufs_create(struct ex_ctx *c, uint32_t iterations, int access, int fill,
                      struct ex_buf *bufs)
{
    uint8_t *staging = NULL;

    memset(bufs, 0, sizeof(*bufs) * EX_BW_NUM_SIZES);
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        uint32_t slots = ex_bw_slots(iterations, ex_bw_size(i));

        if (ex_buf_create(c, ex_bw_size(i) * slots, access, &bufs[i]) != 0)
            goto fail;
        if (!fill)
            continue;
        if (!bufs[i].gpu) {
            ex_bw_fill(bufs[i].addr, i, slots);
            continue;
        }
        if (staging == NULL && (staging = malloc(EX_BW_BUF_CAP)) == NULL) {
            EX_ERR("out of memory for the pattern");
            goto fail;
        }
        ex_bw_fill(staging, i, slots);
        if (ex_gpu_memcpy_to_gpu(bufs[i].addr, staging, bufs[i].len) != 0)
            goto fail;
    }
    free(staging);
    return 0;
fail:
    free(staging);
    ex_bw_bufs_destroy(c, bufs);
    return -1;
}

void ex_bw_bufs_destroy(struct ex_ctx *c, struct ex_buf *bufs)
{
    for (int i = 0; i < EX_BW_NUM_SIZES; i++)
        ex_buf_destroy(c, &bufs[i]);
}

int ex_bw_bufs_check(const struct ex_buf *bufs, uint32_t iterations)
{
    uint8_t *staging = NULL;
    int rc = 0;

    for (int i = 0; i < EX_BW_NUM_SIZES && rc == 0; i++) {
        uint32_t slots = ex_bw_slots(iterations, ex_bw_size(i));
        const uint8_t *data = bufs[i].addr;
        long long bad;

        if (bufs[i].gpu) {
            /* GPU memory: checked from a copy. */
            if (staging == NULL && (staging = malloc(EX_BW_BUF_CAP)) == NULL) {
                EX_ERR("out of memory for the validation copy");
                return -1;
            }
            if (ex_gpu_memcpy_from_gpu(staging, bufs[i].addr, bufs[i].len) != 0) {
                free(staging);
                return -1;
            }
            data = staging;
        }
        bad = ex_bw_first_bad(data, i, slots);
        if (bad >= 0) {
            EX_ERR("Validation error: buffer %d (%zu-byte messages) pos %lld has invalid data "
                   "0x%02x, expected 0x%02x",
                   i, ex_bw_size(i), bad, data[bad], ex_bw_expected(i, (size_t)bad));
            rc = -1;
        }
    }
    free(staging);
    return rc;
}

/* ---- Table ---------------------------------------------------------------------------------- */

void ex_bw_table_header(void)
{
    printf("%12s %11s %11s %16s %13s\n", "Size (B)", "Iterations", "BW (Gbps)", "Rate (Mpps)",
           "Time (us)");
}

void ex_bw_table_row(size_t size, uint32_t iterations, double elapsed_us)
{
    double us = elapsed_us > 0 ? elapsed_us : 0.001;

    printf("%12zu %11u %11.3f %16.4f %13.1f\n", size, iterations,
           (double)iterations * (double)size * 8.0 / (us * 1000.0), (double)iterations / us, us);
    fflush(stdout);
}

/* ---- CPU threads ---------------------------------------------------------------------------- */

struct ex_bw_cpu {
    int (*fn)(void *arg, uint32_t index);
    void *arg;
    pthread_barrier_t start;
};

struct ex_bw_cpu_thread {
    struct ex_bw_cpu *run;
    uint32_t index;
    pthread_t th;
    int status;
    uint64_t start_ns, end_ns; /* its own run: the elapsed time is from the first start */
};

static void *ex_bw_cpu_main(void *arg)
{
    struct ex_bw_cpu_thread *t = arg;

    pthread_barrier_wait(&t->run->start);
    t->start_ns = ex_now_ns();
    t->status = t->run->fn(t->run->arg, t->index);
    t->end_ns = ex_now_ns();
    return NULL;
}

int ex_bw_cpu_run(uint32_t nthreads, int (*fn)(void *arg, uint32_t index), void *arg,
                  double *elapsed_us)
{
    struct ex_bw_cpu run = {.fn = fn, .arg = arg};
    struct ex_bw_cpu_thread *threads = calloc(nthreads, sizeof(*threads));
    uint64_t t0, t1;
    int ret = 0;

    if (threads == NULL) {
        EX_ERR("out of memory for %u CPU threads", nthreads);
        return -1;
    }
    pthread_barrier_init(&run.start, NULL, nthreads + 1);
    for (uint32_t i = 0; i < nthreads; i++) {
        int err;

        threads[i] = (struct ex_bw_cpu_thread){.run = &run, .index = i};
        err = pthread_create(&threads[i].th, NULL, ex_bw_cpu_main, &threads[i]);
        if (err != 0) {
            EX_ERR("cannot start CPU thread %u: %s", i, strerror(err));
            /* Nothing runs without the barrier: the missing threads will never be waited for. */
            exit(EXIT_FAILURE);
        }
    }
    pthread_barrier_wait(&run.start);
    /*
     * From the first thread's start to the last one's end, as the threads
     * saw them: this thread may run again only after they all ended.
     */
    t0 = UINT64_MAX;
    t1 = 0;
    for (uint32_t i = 0; i < nthreads; i++) {
        pthread_join(threads[i].th, NULL);
        if (threads[i].status != 0)
            ret = -1;
        if (threads[i].start_ns < t0)
            t0 = threads[i].start_ns;
        if (threads[i].end_ns > t1)
            t1 = threads[i].end_ns;
    }
    pthread_barrier_destroy(&run.start);
    free(threads);
    *elapsed_us = (double)(t1 - t0) / 1000.0;
    return ret;
}
