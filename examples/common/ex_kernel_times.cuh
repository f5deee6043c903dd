/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * KERNEL_DEBUG_TIMES, the seed's switch for GPU timer figures per
 * operation: `#define KERNEL_DEBUG_TIMES 1` at the top of an example's
 * kernel file (or -DKERNEL_DEBUG_TIMES=1 for the examples' kernels: CMake
 * option DGN_KERNEL_DEBUG_TIMES) makes each thread time the operations the
 * kernel names (posting, waiting) with the GPU's global timer, and thread 0
 * of block 0 print its count and average per operation when the kernel
 * ends. For debugging, not for performance runs: the timer reads and the
 * printf cost. With 0 (the default) every macro here is empty.
 */
#ifndef EX_KERNEL_TIMES_CUH
#define EX_KERNEL_TIMES_CUH

#include <stdint.h>
#include <stdio.h>

#include "doca_gpunetio_dev_verbs_common.cuh"

#ifndef KERNEL_DEBUG_TIMES
#define KERNEL_DEBUG_TIMES 0
#endif

/* The operations a kernel times. */
enum ex_kt_op { EX_KT_POST, EX_KT_WAIT, EX_KT_OPS };

#if KERNEL_DEBUG_TIMES == 1
struct ex_kt {
    uint64_t start;
    uint64_t ns[EX_KT_OPS];
    uint32_t count[EX_KT_OPS];
};

__device__ static inline void ex_kt_start(struct ex_kt *kt)
{
    kt->start = doca_gpu_dev_verbs_query_globaltimer();
}

__device__ static inline void ex_kt_stop(struct ex_kt *kt, enum ex_kt_op op)
{
    kt->ns[op] += doca_gpu_dev_verbs_query_globaltimer() - kt->start;
    kt->count[op]++;
}

__device__ static inline void ex_kt_print(const struct ex_kt *kt, const char *kernel)
{
    static const char *const names[EX_KT_OPS] = {"post", "wait"};

    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    for (int op = 0; op < EX_KT_OPS; op++)
        if (kt->count[op] != 0)
            printf("KERNEL_DEBUG_TIMES %s thread 0: %s %u times, %.3f us each\n", kernel,
                   names[op], kt->count[op], (double)kt->ns[op] / kt->count[op] / 1000.0);
}

#define EX_KT_DECL(kt)          struct ex_kt kt = {0, {0}, {0}}
#define EX_KT_START(kt)         ex_kt_start(&(kt))
#define EX_KT_STOP(kt, op)      ex_kt_stop(&(kt), (op))
#define EX_KT_PRINT(kt, kernel) ex_kt_print(&(kt), (kernel))
#else
#define EX_KT_DECL(kt)          (void)0
#define EX_KT_START(kt)         (void)0
#define EX_KT_STOP(kt, op)      (void)0
#define EX_KT_PRINT(kt, kernel) (void)0
#endif

#endif /* EX_KERNEL_TIMES_CUH */
