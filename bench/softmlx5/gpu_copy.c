/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The baseline of GPU-to-GPU transfers through softmlx5: one GPU's
 * device-to-device copy of SIZE bytes (default 1 MiB) repeated COUNT times
 * (default 2048), each waited for (as a lone put_bw message is), then the
 * same copies issued back to back and waited for once (the engine's
 * pipelined copies come near that). Prints each bandwidth in Gbps (put_bw's
 * unit) and GB/s, or "skipped: no CUDA device".
 *
 *   softmlx5_gpu_copy [SIZE [COUNT]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/cuda_driver.h"

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : (1u << 20);
    long count = argc > 2 ? strtol(argv[2], NULL, 0) : 2048;
    const struct core_cuda_ops *cuda = NULL;
    core_cu_deviceptr a = 0, b = 0;
    core_cu_context ctx = NULL;
    core_cu_stream s = NULL;
    core_cu_device dev = 0;
    struct timespec t0, t1;
    double secs;

    if (size == 0 || count <= 0) {
        fprintf(stderr, "usage: %s [SIZE [COUNT]] (both positive)\n", argv[0]);
        return 2;
    }
    if (core_cuda_get(&cuda) != DOCA_SUCCESS || cuda->cuDeviceGet(&dev, 0) != CORE_CU_SUCCESS ||
        cuda->cuDevicePrimaryCtxRetain(&ctx, dev) != CORE_CU_SUCCESS ||
        cuda->cuCtxSetCurrent(ctx) != CORE_CU_SUCCESS) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (cuda->cuMemAlloc(&a, size) != CORE_CU_SUCCESS ||
        cuda->cuMemAlloc(&b, size) != CORE_CU_SUCCESS ||
        cuda->cuStreamCreate(&s, CORE_CU_STREAM_NON_BLOCKING) != CORE_CU_SUCCESS) {
        fprintf(stderr, "cannot allocate 2 x %zu bytes of GPU memory and a stream\n", size);
        return 1;
    }
    for (int waited_each = 1; waited_each >= 0; waited_each--) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < count; i++) {
            if (cuda->cuMemcpyDtoDAsync(b, a, size, s) != CORE_CU_SUCCESS ||
                ((waited_each || i == count - 1) &&
                 cuda->cuStreamSynchronize(s) != CORE_CU_SUCCESS)) {
                fprintf(stderr, "copy %ld failed\n", i);
                return 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        printf("device-to-device copy of %zu bytes, %ld times, %s: %.3f Gbps "
               "(%.2f GB/s, %.2f us a copy)\n",
               size, count, waited_each ? "each waited for" : "back to back",
               (double)size * (double)count * 8 / secs / 1e9,
               (double)size * (double)count / secs / 1e9, secs * 1e6 / (double)count);
    }
    return 0;
}
