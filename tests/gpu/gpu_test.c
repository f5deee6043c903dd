/* SPDX-License-Identifier: BSD-3-Clause */
#include "gpu_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/cuda_driver.h"

static int checks_passed;
static int checks_failed;

void gpu_test_require_device(void)
{
    const struct core_cuda_ops *cuda;
    int count = 0;

    if (core_cuda_get(&cuda) != DOCA_SUCCESS) {
        printf("skipped: no CUDA device (%s)\n", core_cuda_unavailable_reason());
        exit(GPU_TEST_SKIP);
    }
    if (cuda->cuDeviceGetCount(&count) != CORE_CU_SUCCESS || count == 0) {
        printf("skipped: no CUDA device (the driver lists none)\n");
        exit(GPU_TEST_SKIP);
    }
}

void gpu_test_check(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        checks_passed++;
        return;
    }
    checks_failed++;
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
}

int gpu_test_finish(void)
{
    printf("%d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed == 0 && checks_passed > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
