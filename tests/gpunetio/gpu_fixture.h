/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cmocka fixture of the GPUNetIO tests that run on one fake GPU: the
 * fake driver's hooks, its call table and a context on GPU_A (the
 * includer defines GPU_A; include after cmocka.h). group_setup opens it,
 * group_teardown closes it and checks nothing is left allocated, and
 * test_teardown checks that a test left the context as it found it.
 */
#ifndef GPUNETIO_GPU_FIXTURE_H
#define GPUNETIO_GPU_FIXTURE_H

#include "fake_cuda.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio_test.h"

static struct fake_cuda_hooks fake;
static const struct core_cuda_ops *cuda;
static doca_gpu_t *gpu;

static int group_setup(void **state)
{
    (void)state;
    log_setup();
    if (core_cuda_get(&cuda) != DOCA_SUCCESS || !fake_cuda_hooks(&fake)) {
        fprintf(stderr, "the fake CUDA driver (DOCA_GPUNETIO_LIBCUDA) is not loaded\n");
        return -1;
    }
    return doca_gpu_create(GPU_A, &gpu) == DOCA_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return doca_gpu_destroy(gpu) == DOCA_SUCCESS && fake.live_allocations() == 0 ? 0 : -1;
}

/* Every test leaves the context as it found it: nothing made with it, nothing allocated. */
static int test_teardown(void **state)
{
    (void)state;
    return atomic_load(&gpu->users) == 0 && fake.live_allocations() == 0 ? 0 : -1;
}

#endif /* GPUNETIO_GPU_FIXTURE_H */
