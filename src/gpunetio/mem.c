/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of a GPU context: GPU memory (cuMemAlloc), GPU memory mapped for the
 * CPU through GDRCopy (gdrcopy.c), pinned host memory the GPU maps
 * (cuMemHostAlloc), and dma-buf export of GPU memory. Every
 * allocation is on its context's list and holds the context; alignment is
 * honoured by allocating more and giving an aligned address inside.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio_internal.h"

bool gpunetio_env_is_1(const char *name)
{
    const char *v = getenv(name);

    return v != NULL && strcmp(v, "1") == 0;
}

const char *gpunetio_mem_type_name(enum doca_gpu_mem_type mtype)
{
    switch (mtype) {
    case DOCA_GPU_MEM_TYPE_GPU:
        return "DOCA_GPU_MEM_TYPE_GPU";
    case DOCA_GPU_MEM_TYPE_GPU_CPU:
        return "DOCA_GPU_MEM_TYPE_GPU_CPU";
    case DOCA_GPU_MEM_TYPE_CPU_GPU:
        return "DOCA_GPU_MEM_TYPE_CPU_GPU";
    case DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT:
        return "DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT";
    }
    return "?";
}

static uintptr_t mem_align_up(uintptr_t value, size_t alignment)
{
    return (value + (alignment - 1)) & ~(uintptr_t)(alignment - 1);
}

/* NO_MEMORY for the driver's out-of-memory answer, DRIVER for anything else. */
static doca_error_t mem_cu_status(core_cu_result rc)
{
    return rc == CORE_CU_ERROR_OUT_OF_MEMORY ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_DRIVER;
}

/*
 * cuMemAlloc of bytes (>= a->size) with `alignment` honoured: only the
 * driver's own alignment (256) is trusted, larger ones are padded for.
 */
static doca_error_t mem_alloc_gpu(doca_gpu_t *gpu, const struct core_cuda_ops *cuda,
                                  struct gpunetio_alloc *a, size_t alignment, size_t bytes)
{
    char err[160];
    core_cu_result rc;
    uintptr_t aligned;

    for (int attempt = 0; attempt < 2; attempt++) {
        /* First with the padding the driver's guarantee needs; again with full padding. */
        size_t pad = attempt == 0 && alignment <= GPUNETIO_GPU_MEM_ALIGN ? 0 : alignment - 1;

        a->raw_size = bytes + pad;
        rc = cuda->cuMemAlloc(&a->raw_gpu, a->raw_size);
        if (rc != CORE_CU_SUCCESS) {
            DOCA_LOG_ERR("cannot allocate %zu bytes of memory on GPU %s: cuMemAlloc returned %s",
                         a->raw_size, gpu->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
            return mem_cu_status(rc);
        }
        aligned = mem_align_up((uintptr_t)a->raw_gpu, alignment);
        if (aligned - (uintptr_t)a->raw_gpu <= pad)
            break;
        cuda->cuMemFree(a->raw_gpu); /* less aligned than documented: pad fully */
        a->raw_gpu = 0;
    }
    if (a->raw_gpu == 0) {
        DOCA_LOG_ERR("cuMemAlloc on GPU %s gave memory that cannot be aligned to %zu bytes",
                     gpu->bus_id, alignment);
        return DOCA_ERROR_DRIVER;
    }
    rc = cuda->cuMemsetD8((core_cu_deviceptr)aligned, 0, a->size);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuCtxSynchronize(); /* zeroed before any stream of the caller uses it */
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot zero %zu bytes of memory on GPU %s: cuMemsetD8 returned %s", a->size,
                     gpu->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        cuda->cuMemFree(a->raw_gpu);
        return DOCA_ERROR_DRIVER;
    }
    a->gpu_ptr = (void *)aligned;
    a->cpu_ptr = NULL;
    return DOCA_SUCCESS;
}

/* Pinned host memory, mapped for every GPU (portable) and for this one's kernels. */
static doca_error_t mem_alloc_host(doca_gpu_t *gpu, const struct core_cuda_ops *cuda,
                                   struct gpunetio_alloc *a, size_t alignment)
{
    char err[160];
    core_cu_deviceptr dev = 0;
    core_cu_result rc;
    uintptr_t aligned;

    for (int attempt = 0; attempt < 2; attempt++) {
        size_t pad = attempt == 0 && alignment <= GPUNETIO_HOST_MEM_ALIGN ? 0 : alignment - 1;

        a->raw_size = a->size + pad;
        rc = cuda->cuMemHostAlloc(&a->raw_host, a->raw_size,
                                  CORE_CU_MEMHOSTALLOC_PORTABLE | CORE_CU_MEMHOSTALLOC_DEVICEMAP);
        if (rc != CORE_CU_SUCCESS) {
            DOCA_LOG_ERR("cannot allocate %zu bytes of pinned host memory for GPU %s: "
                         "cuMemHostAlloc returned %s",
                         a->raw_size, gpu->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
            a->raw_host = NULL;
            return mem_cu_status(rc);
        }
        aligned = mem_align_up((uintptr_t)a->raw_host, alignment);
        if (aligned - (uintptr_t)a->raw_host <= pad)
            break;
        cuda->cuMemFreeHost(a->raw_host);
        a->raw_host = NULL;
    }
    if (a->raw_host == NULL) {
        DOCA_LOG_ERR("cuMemHostAlloc for GPU %s gave memory that cannot be aligned to %zu bytes",
                     gpu->bus_id, alignment);
        return DOCA_ERROR_DRIVER;
    }
    rc = cuda->cuMemHostGetDevicePointer(&dev, a->raw_host, 0);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("pinned host memory at %p has no address on GPU %s: "
                     "cuMemHostGetDevicePointer returned %s",
                     a->raw_host, gpu->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        cuda->cuMemFreeHost(a->raw_host);
        return DOCA_ERROR_DRIVER;
    }
    memset(a->raw_host, 0, a->raw_size);
    a->cpu_ptr = (void *)aligned;
    a->gpu_ptr = (void *)(uintptr_t)(dev + (aligned - (uintptr_t)a->raw_host));
    return DOCA_SUCCESS;
}

/*
 * GPU memory mapped for the CPU: whole GDRCopy pages, from an address
 * aligned to one, so that the CPU address of the first byte is the mapping's.
 */
static doca_error_t mem_alloc_gpu_cpu(doca_gpu_t *gpu, const struct core_cuda_ops *cuda,
                                      struct gpunetio_alloc *a, size_t alignment)
{
    size_t pages = (a->size + GPUNETIO_GDR_PAGE_SIZE - 1) & ~(GPUNETIO_GDR_PAGE_SIZE - 1);
    doca_error_t status;

    if (alignment < GPUNETIO_GDR_PAGE_SIZE)
        alignment = GPUNETIO_GDR_PAGE_SIZE;
    if (pages < a->size || pages > SIZE_MAX - alignment) {
        DOCA_LOG_ERR("size %zu does not fit the address space in whole GDRCopy pages", a->size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = mem_alloc_gpu(gpu, cuda, a, alignment, pages);
    if (status != DOCA_SUCCESS)
        return status;
    status = gpunetio_gdr_map((uint64_t)(uintptr_t)a->gpu_ptr, pages, &a->gdr);
    if (status != DOCA_SUCCESS) {
        cuda->cuMemFree(a->raw_gpu);
        return status;
    }
    a->cpu_ptr = a->gdr.cpu;
    return DOCA_SUCCESS;
}

static core_cu_result mem_release(const struct core_cuda_ops *cuda, struct gpunetio_alloc *a)
{
    if (a->mtype == DOCA_GPU_MEM_TYPE_CPU_GPU)
        return cuda->cuMemFreeHost(a->raw_host);
    /* A failed unmap is logged; the memory is freed anyway, which ends GDRCopy's pin too. */
    if (a->mtype == DOCA_GPU_MEM_TYPE_GPU_CPU)
        gpunetio_gdr_unmap(&a->gdr);
    return cuda->cuMemFree(a->raw_gpu);
}

DOCA_STABLE doca_error_t doca_gpu_mem_alloc(doca_gpu_t *gpu_dev, size_t size, size_t alignment,
                                            enum doca_gpu_mem_type mtype, void **memptr_gpu,
                                            void **memptr_cpu)
{
    DGN_SDK_ROUTE(doca_gpu_mem_alloc, (gpu_dev, size, alignment, mtype, memptr_gpu, memptr_cpu),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda;
    struct gpunetio_alloc *a;
    const char *why;
    size_t base;
    doca_error_t status;

    if (gpu_dev == NULL || memptr_gpu == NULL) {
        DOCA_LOG_ERR("gpu_dev (%p) and memptr_gpu (%p) must not be NULL: pass the context "
                     "doca_gpu_create() gave and where to put the GPU address",
                     (void *)gpu_dev, (void *)memptr_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    switch (mtype) {
    case DOCA_GPU_MEM_TYPE_GPU:
    case DOCA_GPU_MEM_TYPE_GPU_CPU:
    case DOCA_GPU_MEM_TYPE_CPU_GPU:
        break;
    case DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT:
        DOCA_LOG_ERR("DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT maps GPU memory for the CPU through a "
                     "NIC's Data Direct function, which no NIC here has; use "
                     "DOCA_GPU_MEM_TYPE_GPU_CPU or DOCA_GPU_MEM_TYPE_CPU_GPU");
        return DOCA_ERROR_NOT_SUPPORTED;
    default:
        DOCA_LOG_ERR("mtype %d is not a memory type: use DOCA_GPU_MEM_TYPE_GPU (0), "
                     "DOCA_GPU_MEM_TYPE_GPU_CPU (1) or DOCA_GPU_MEM_TYPE_CPU_GPU (2)",
                     (int)mtype);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mtype != DOCA_GPU_MEM_TYPE_GPU && memptr_cpu == NULL) {
        DOCA_LOG_ERR("memptr_cpu is NULL: %s memory has a CPU address, pass where to put it",
                     gpunetio_mem_type_name(mtype));
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (size == 0) {
        DOCA_LOG_ERR("size is 0: allocate at least one byte");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((alignment & (alignment - 1)) != 0) {
        DOCA_LOG_ERR("alignment %zu is not a power of two: pass 0 (the default) or a power of two",
                     alignment);
        return DOCA_ERROR_INVALID_VALUE;
    }
    base = mtype == DOCA_GPU_MEM_TYPE_CPU_GPU ? GPUNETIO_HOST_MEM_ALIGN : GPUNETIO_GPU_MEM_ALIGN;
    if (alignment == 0)
        alignment = base;
    if (size > SIZE_MAX - alignment) {
        DOCA_LOG_ERR("size %zu with alignment %zu does not fit the address space", size, alignment);
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = gpunetio_gpu_bind(gpu_dev, &cuda);
    if (status != DOCA_SUCCESS)
        return status;
    why = mtype == DOCA_GPU_MEM_TYPE_GPU_CPU ? gpunetio_gdrcopy_unavailable_reason() : NULL;
    if (why != NULL) {
        DOCA_LOG_ERR("DOCA_GPU_MEM_TYPE_GPU_CPU: GPU memory cannot be mapped for the CPU "
                     "without GDRCopy (libgdrapi.so.2 and the gdrdrv kernel module): %s; or use "
                     "DOCA_GPU_MEM_TYPE_CPU_GPU (pinned host memory the GPU maps) instead",
                     why);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    a = calloc(1, sizeof(*a));
    if (a == NULL) {
        DOCA_LOG_ERR("out of memory for the record of an allocation on GPU %s", gpu_dev->bus_id);
        return DOCA_ERROR_NO_MEMORY;
    }
    a->mtype = mtype;
    a->size = size;
    if (mtype == DOCA_GPU_MEM_TYPE_GPU)
        status = mem_alloc_gpu(gpu_dev, cuda, a, alignment, size);
    else if (mtype == DOCA_GPU_MEM_TYPE_GPU_CPU)
        status = mem_alloc_gpu_cpu(gpu_dev, cuda, a, alignment);
    else
        status = mem_alloc_host(gpu_dev, cuda, a, alignment);
    if (status != DOCA_SUCCESS) {
        free(a);
        return status;
    }
    pthread_mutex_lock(&gpu_dev->lock);
    a->next = gpu_dev->allocs;
    gpu_dev->allocs = a;
    pthread_mutex_unlock(&gpu_dev->lock);
    gpunetio_gpu_hold(gpu_dev);
    DOCA_LOG_DBG("GPU %s: %zu bytes of %s memory aligned to %zu at GPU address %p, CPU address %p",
                 gpu_dev->bus_id, size, gpunetio_mem_type_name(mtype), alignment, a->gpu_ptr,
                 a->cpu_ptr);
    *memptr_gpu = a->gpu_ptr;
    if (memptr_cpu != NULL)
        *memptr_cpu = a->cpu_ptr;
    return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_gpu_mem_free(doca_gpu_t *gpu_dev, void *memptr_gpu)
{
    DGN_SDK_ROUTE(doca_gpu_mem_free, (gpu_dev, memptr_gpu), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda;
    struct gpunetio_alloc **link, *a = NULL;
    char err[160];
    core_cu_result rc;
    doca_error_t status;

    if (gpu_dev == NULL || memptr_gpu == NULL) {
        DOCA_LOG_ERR("gpu_dev (%p) and memptr_gpu (%p) must not be NULL: pass the context and "
                     "the GPU address doca_gpu_mem_alloc() gave",
                     (void *)gpu_dev, memptr_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = gpunetio_gpu_bind(gpu_dev, &cuda);
    if (status != DOCA_SUCCESS)
        return status;
    pthread_mutex_lock(&gpu_dev->lock);
    for (link = &gpu_dev->allocs; *link != NULL; link = &(*link)->next) {
        if ((*link)->gpu_ptr == memptr_gpu) {
            a = *link;
            break;
        }
    }
    if (a == NULL) {
        pthread_mutex_unlock(&gpu_dev->lock);
        DOCA_LOG_ERR("%p is not an address doca_gpu_mem_alloc() gave on GPU %s (or it was freed "
                     "already): pass the GPU address (memptr_gpu) of a live allocation",
                     memptr_gpu, gpu_dev->bus_id);
        return DOCA_ERROR_INVALID_VALUE;
    }
    rc = mem_release(cuda, a);
    if (rc != CORE_CU_SUCCESS) { /* kept on the list: nothing changed */
        pthread_mutex_unlock(&gpu_dev->lock);
        DOCA_LOG_ERR("freeing %s memory at %p on GPU %s failed: %s returned %s",
                     gpunetio_mem_type_name(a->mtype), memptr_gpu, gpu_dev->bus_id,
                     a->mtype == DOCA_GPU_MEM_TYPE_CPU_GPU ? "cuMemFreeHost" : "cuMemFree",
                     gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        return DOCA_ERROR_DRIVER;
    }
    *link = a->next;
    pthread_mutex_unlock(&gpu_dev->lock);
    free(a);
    gpunetio_gpu_put(gpu_dev);
    return DOCA_SUCCESS;
}

bool gpunetio_mem_find(doca_gpu_t *gpu, const void *addr, size_t len, struct gpunetio_alloc *out)
{
    uintptr_t start = (uintptr_t)addr;
    bool found = false;

    if (gpu == NULL || start + len < start)
        return false;
    pthread_mutex_lock(&gpu->lock);
    for (struct gpunetio_alloc *a = gpu->allocs; a != NULL; a = a->next) {
        uintptr_t base = (uintptr_t)a->gpu_ptr;

        if (start >= base && start - base <= a->size && len <= a->size - (start - base)) {
            if (out != NULL) {
                *out = *a;
                out->next = NULL;
            }
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&gpu->lock);
    return found;
}

DOCA_STABLE doca_error_t doca_gpu_dmabuf_fd(doca_gpu_t *gpu_dev, void *memptr_gpu, size_t size,
                                            int *dmabuf_fd)
{
    DGN_SDK_ROUTE(doca_gpu_dmabuf_fd, (gpu_dev, memptr_gpu, size, dmabuf_fd),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda;
    char err[160];
    int fd = -1;
    core_cu_result rc;
    doca_error_t status;

    if (gpu_dev == NULL || memptr_gpu == NULL || dmabuf_fd == NULL) {
        DOCA_LOG_ERR("gpu_dev (%p), memptr_gpu (%p) and dmabuf_fd (%p) must not be NULL",
                     (void *)gpu_dev, memptr_gpu, (void *)dmabuf_fd);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (size == 0 || (uintptr_t)memptr_gpu % GPUNETIO_DMABUF_ALIGN != 0 ||
        size % GPUNETIO_DMABUF_ALIGN != 0) {
        DOCA_LOG_ERR("a dma-buf covers whole %u-byte pages, but the range is %p + %zu bytes: "
                     "allocate with alignment %u or more and pass a size that is a non-zero "
                     "multiple of %u",
                     GPUNETIO_DMABUF_ALIGN, memptr_gpu, size, GPUNETIO_DMABUF_ALIGN,
                     GPUNETIO_DMABUF_ALIGN);
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = gpunetio_gpu_bind(gpu_dev, &cuda);
    if (status != DOCA_SUCCESS)
        return status;
    if (!gpu_dev->dmabuf) {
        DOCA_LOG_ERR("GPU %s cannot export dma-bufs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: "
                     "it needs the open NVIDIA kernel module and Linux 5.12 or newer); register "
                     "GPU memory through nvidia-peermem instead",
                     gpu_dev->bus_id);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    rc = cuda->cuMemGetHandleForAddressRange(&fd, (core_cu_deviceptr)(uintptr_t)memptr_gpu, size,
                                             CORE_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot export %p + %zu bytes of GPU %s as a dma-buf: "
                     "cuMemGetHandleForAddressRange returned %s; the range must be GPU memory "
                     "of this GPU",
                     memptr_gpu, size, gpu_dev->bus_id,
                     gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        return DOCA_ERROR_DRIVER;
    }
    *dmabuf_fd = fd;
    return DOCA_SUCCESS;
}

/* DOCA 4.0's name of doca_gpu_dmabuf_fd(). */
DOCA_STABLE doca_error_t doca_gpu_get_dmabuf_fd(doca_gpu_t *gpu_dev, void *memptr_gpu, size_t size,
                                                int *dmabuf_fd)
{
    DGN_SDK_ROUTE(doca_gpu_get_dmabuf_fd, (gpu_dev, memptr_gpu, size, dmabuf_fd),
                  DOCA_ERROR_NOT_SUPPORTED);

    return doca_gpu_dmabuf_fd(gpu_dev, memptr_gpu, size, dmabuf_fd);
}

doca_error_t gpunetio_mem_upload(doca_gpu_t *gpu, const void *host, size_t bytes, size_t align,
                                 const char *what, void **gpu_out)
{
    const struct core_cuda_ops *cuda;
    void *dev = NULL;
    char why[128];
    core_cu_result rc;
    doca_error_t err;

    err = doca_gpu_mem_alloc(gpu, bytes, align, DOCA_GPU_MEM_TYPE_GPU, &dev, NULL);
    if (err == DOCA_SUCCESS)
        err = gpunetio_gpu_bind(gpu, &cuda);
    if (err == DOCA_SUCCESS) {
        rc = cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)dev, host, bytes);
        if (rc != CORE_CU_SUCCESS) {
            DOCA_LOG_ERR("cannot copy %s to GPU memory: %s", what,
                         gpunetio_cu_error(cuda, rc, why, sizeof(why)));
            err = DOCA_ERROR_DRIVER;
        }
    }
    if (err != DOCA_SUCCESS) {
        if (dev != NULL)
            doca_gpu_mem_free(gpu, dev);
        return err;
    }
    *gpu_out = dev;
    return DOCA_SUCCESS;
}
