/* SPDX-License-Identifier: BSD-3-Clause */
/* The stand-in SDK's libdoca_gpunetio.so (fake_sdk.h). */
#include <stddef.h>

#include "doca_gpunetio.h"
#include "fake_sdk.h"

static struct fake_sdk_object gpu = {FAKE_SDK_GPU_MAGIC, 0};

doca_error_t doca_gpu_create(const char *gpu_bus_id, doca_gpu_t **gpu_dev)
{
    fake_sdk_count();
    if (gpu_bus_id == NULL || gpu_dev == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    *gpu_dev = (doca_gpu_t *)(void *)&gpu;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_destroy(doca_gpu_t *gpu_dev)
{
    fake_sdk_count();
    return (void *)gpu_dev == (void *)&gpu ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_gpu_verbs_get_library_version(uint32_t *version)
{
    fake_sdk_count();
    if (version == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    *version = FAKE_SDK_VERSION;
    return DOCA_SUCCESS;
}
