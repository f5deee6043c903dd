/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU/NIC capability probes on softmlx5: NULL arguments refused (every
 * machine); with a GPU, GPU memory and pinned host memory register as
 * UMEMs and a non-cached UAR maps for GPU stores (softmlx5's UARs are host
 * memory, which CUDA can map), and each probe leaves nothing behind (the
 * device and the GPU context close). "skipped: no CUDA device" elsewhere.
 */
#include <stdio.h>

#include "doca_gpunetio.h"
#include "emu_cuda_test.h"
#include "verbs_test.h"

static int failures;

#define CHECK(cond, what)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what); \
        }                                                                  \
    } while (0)

int main(void)
{
    const struct core_cuda_ops *cuda = NULL;
    struct vt_dev d;
    doca_gpu_t *gpu = NULL;
    core_cu_device dev = 0;
    char bus_id[32] = {0};
    const char *why;

    vt_open(&d);
    CHECK(doca_gpu_nic_cap_is_gpu_mem_umem_supported(NULL, d.dev) == DOCA_ERROR_INVALID_VALUE,
          "GPU memory probe without a GPU");
    CHECK(doca_gpu_nic_cap_is_host_mem_umem_supported(NULL, NULL) == DOCA_ERROR_INVALID_VALUE,
          "host memory probe without arguments");
    CHECK(doca_gpu_nic_cap_is_nic_handler_gpu_sm_db_supported(NULL, d.dev) ==
                  DOCA_ERROR_INVALID_VALUE,
          "doorbell probe without a GPU");
    why = emu_cuda_open(&cuda);
    if (why != NULL) {
        vt_close(&d);
        printf("skipped: no CUDA device (%s)\n", why);
        return failures != 0 ? 1 : EMU_CUDA_SKIP;
    }
    if (cuda->cuDeviceGet(&dev, 0) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), dev) != CORE_CU_SUCCESS ||
        doca_gpu_create(bus_id, &gpu) != DOCA_SUCCESS) {
        fprintf(stderr, "FAIL: cannot open GPU 0 with doca_gpu_create\n");
        return 1;
    }
    CHECK(doca_gpu_nic_cap_is_gpu_mem_umem_supported(gpu, d.dev) == DOCA_SUCCESS,
          "GPU memory as UMEM");
    CHECK(doca_gpu_nic_cap_is_host_mem_umem_supported(gpu, d.dev) == DOCA_SUCCESS,
          "pinned host memory as UMEM");
    CHECK(doca_gpu_nic_cap_is_nic_handler_gpu_sm_db_supported(gpu, d.dev) == DOCA_SUCCESS,
          "a UAR doorbell mapped for GPU stores");
    CHECK(doca_gpu_destroy(gpu) == DOCA_SUCCESS, "doca_gpu_destroy: a probe left memory behind");
    vt_close(&d);
    printf("nic_cap: %s (%d failures)\n", failures == 0 ? "passed" : "FAILED", failures);
    return failures != 0;
}
