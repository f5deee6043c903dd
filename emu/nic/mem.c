/* SPDX-License-Identifier: BSD-3-Clause */
#include "mem.h"

#include <errno.h>
#include <string.h>

#include "common/emu_log.h"
#include "core/cuda_driver.h"

/* The CUDA driver, or NULL when there is none (then no address is GPU memory). */
static const struct core_cuda_ops *mem_cuda(void)
{
    const struct core_cuda_ops *cuda = NULL;

    if (core_cuda_unavailable_reason() != NULL)
        return NULL;
    core_cuda_get(&cuda);
    return cuda;
}

bool emu_mem_is_gpu(uintptr_t addr)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    unsigned int type = 0;

    if (cuda == NULL)
        return false;
    if (cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS)
        return false;
    return type == CORE_CU_MEMORYTYPE_DEVICE;
}

/* A thread with no CUDA context (the device's own threads) uses the owning GPU's primary one. */
static void mem_gpu_bind_context(const struct core_cuda_ops *cuda, uintptr_t addr)
{
    core_cu_context ctx = NULL;
    core_cu_device dev;
    int ordinal = 0;

    if (cuda->cuCtxGetCurrent(&ctx) == CORE_CU_SUCCESS && ctx != NULL)
        return;
    if (cuda->cuPointerGetAttribute(&ordinal, CORE_CU_POINTER_ATTR_DEVICE_ORDINAL,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGet(&dev, ordinal) != CORE_CU_SUCCESS ||
        cuda->cuDevicePrimaryCtxRetain(&ctx, dev) != CORE_CU_SUCCESS)
        return; /* the copy below reports the failure */
    cuda->cuCtxSetCurrent(ctx);
}

static int mem_gpu_copy(bool to_gpu, uintptr_t addr, void *host, size_t len)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    core_cu_result rc;

    if (cuda == NULL)
        return ENODEV;
    mem_gpu_bind_context(cuda, addr);
    rc = to_gpu ? cuda->cuMemcpyHtoD((core_cu_deviceptr)addr, host, len)
                : cuda->cuMemcpyDtoH(host, (core_cu_deviceptr)addr, len);
    if (rc != CORE_CU_SUCCESS) {
        EMU_LOG_ERR("GPU memory copy of %zu bytes at 0x%lx failed: CUDA error %d", len,
                    (unsigned long)addr, rc);
        return EIO;
    }
    return 0;
}

int emu_mem_read(bool gpu, uintptr_t addr, void *dst, size_t len)
{
    if (!gpu) {
        memcpy(dst, (const void *)addr, len);
        return 0;
    }
    return mem_gpu_copy(false, addr, dst, len);
}

int emu_mem_write(bool gpu, uintptr_t addr, const void *src, size_t len)
{
    if (!gpu) {
        memcpy((void *)addr, src, len);
        return 0;
    }
    return mem_gpu_copy(true, addr, (void *)src, len);
}
