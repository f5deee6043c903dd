/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_examples_gpu_probe: whether the examples can run on a GPU here.
 * Prints the bus id of the first GPU and exits 0 when CUDA lists one and
 * doca_gpu_create() accepts it; otherwise prints "skipped: no CUDA device
 * (<reason>)" and exits 77 (CTest's skip code).
 */
#include <stdio.h>
#include <stdlib.h>

#include "doca_gpunetio.h"
#include "ex_gpu.h"

#define PROBE_SKIP 77

int main(void)
{
    char bus[32] = "";
    char why[160] = "";
    doca_gpu_t *gpu = NULL;
    doca_error_t err;

    if (ex_gpu_count(bus, sizeof(bus), why, sizeof(why)) == 0) {
        printf("skipped: no CUDA device (%s)\n", why);
        return PROBE_SKIP;
    }
    if (ex_gpu_select(bus) != 0) {
        printf("skipped: no CUDA device (GPU %s cannot be used)\n", bus);
        return PROBE_SKIP;
    }
    err = doca_gpu_create(bus, &gpu);
    if (err != DOCA_SUCCESS) {
        printf("skipped: no CUDA device (doca_gpu_create(%s): %s)\n", bus,
               doca_error_get_name(err));
        return PROBE_SKIP;
    }
    doca_gpu_destroy(gpu);
    printf("%s\n", bus);
    return EXIT_SUCCESS;
}
