/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPU memory of the DevX data-path tests: rings in cuMemAlloc'd memory. */
#include "devx_dp.h"
#include "emu_cuda_test.h"

static const struct core_cuda_ops *cuda;

static void gpu_fail(const char *what, core_cu_result rc)
{
    fprintf(stderr, "%s: CUDA error %d\n", what, rc);
    exit(1);
}

static void *gpu_alloc(size_t size)
{
    core_cu_deviceptr p = 0;

    if (cuda->cuMemAlloc(&p, size) != CORE_CU_SUCCESS)
        return NULL;
    return (void *)(uintptr_t)p;
}

static void gpu_free(void *addr)
{
    core_cu_result rc = cuda->cuMemFree((core_cu_deviceptr)(uintptr_t)addr);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemFree", rc);
}

/* Synchronous: the copy is complete, and visible to the device, on return. */
static void gpu_write(void *dst, const void *src, size_t len)
{
    core_cu_result rc = cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)dst, src, len);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemcpyHtoD", rc);
}

static void gpu_read(void *dst, const void *src, size_t len)
{
    core_cu_result rc = cuda->cuMemcpyDtoH(dst, (core_cu_deviceptr)(uintptr_t)src, len);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemcpyDtoH", rc);
}

static const struct dp_mem gpu_mem = {"GPU", gpu_alloc, gpu_free, gpu_write, gpu_read};

const struct dp_mem *dp_gpu_mem(const char **why)
{
    *why = emu_cuda_open(&cuda);
    return *why == NULL ? &gpu_mem : NULL;
}
