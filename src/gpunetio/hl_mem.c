/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of high-level QPs: GPU memory, pinned host memory mapped for the
 * GPU, or plain host memory, each registered as one UMEM; and slabs, such
 * memory cut into the pieces the QPs of a list use.
 */
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/hl_internal.h"
#include "verbs/verbs_internal.h"

/* GPU memory registered by dma-buf (DEFAULT: where the GPU offers one) or plainly. */
static doca_error_t hl_gpu_register(doca_gpu_t *gpu, doca_dev_t *dev,
                                    enum doca_gpu_verbs_mem_reg_type mreg, void *ptr, size_t size,
                                    doca_verbs_umem_t **umem, bool *dmabuf)
{
    int fd = -1;
    doca_error_t err;

    if (mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF ||
        (mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT && gpu->dmabuf)) {
        err = doca_gpu_dmabuf_fd(gpu, ptr, size, &fd);
        if (err != DOCA_SUCCESS && mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF)
            return err;
    }
    err = doca_verbs_umem_create(dev, gpu, ptr, size, IBV_ACCESS_LOCAL_WRITE,
                                 fd >= 0 ? fd : (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, umem);
    if (fd >= 0)
        close(fd); /* the registration holds the dma-buf */
    *dmabuf = fd >= 0;
    return err;
}

doca_error_t hl_mem_alloc(doca_gpu_t *gpu, doca_dev_t *dev, enum hl_mem_kind kind,
                          enum doca_gpu_verbs_mem_reg_type mreg, size_t size, void **gpu_ptr,
                          void **cpu_ptr, doca_verbs_umem_t **umem, bool *dmabuf)
{
    bool by_dmabuf = false;
    doca_error_t err;

    /* dma-bufs export whole pages; pieces of host memory mapped for the GPU keep to theirs. */
    size = verbs_align_up(size, GPUNETIO_DMABUF_ALIGN);
    *gpu_ptr = NULL;
    *cpu_ptr = NULL;
    switch (kind) {
    case HL_MEM_GPU:
        err = doca_gpu_mem_alloc(gpu, size, DOCA_GPUNETIO_VERBS_PAGE_SIZE, DOCA_GPU_MEM_TYPE_GPU,
                                 gpu_ptr, NULL);
        if (err == DOCA_SUCCESS)
            err = hl_gpu_register(gpu, dev, mreg, *gpu_ptr, size, umem, &by_dmabuf);
        break;
    case HL_MEM_PINNED:
        err = doca_gpu_mem_alloc(gpu, size, HL_PAGE_BYTES, DOCA_GPU_MEM_TYPE_CPU_GPU, gpu_ptr,
                                 cpu_ptr);
        if (err == DOCA_SUCCESS)
            err = doca_verbs_umem_create(dev, NULL, *cpu_ptr, size, IBV_ACCESS_LOCAL_WRITE,
                                         (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, umem);
        break;
    case HL_MEM_HOST:
    default:
        if (posix_memalign(cpu_ptr, HL_PAGE_BYTES, size) != 0) {
            *cpu_ptr = NULL;
            DOCA_LOG_ERR("out of memory for %zu bytes of queue memory", size);
            return DOCA_ERROR_NO_MEMORY;
        }
        memset(*cpu_ptr, 0, size);
        *gpu_ptr = *cpu_ptr;
        err = doca_verbs_umem_create(dev, NULL, *cpu_ptr, size, IBV_ACCESS_LOCAL_WRITE,
                                     (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, umem);
        break;
    }
    if (err != DOCA_SUCCESS) {
        hl_mem_free(gpu, kind, *gpu_ptr, *cpu_ptr, NULL);
        *gpu_ptr = NULL;
        *cpu_ptr = NULL;
        return err;
    }
    if (dmabuf != NULL)
        *dmabuf = by_dmabuf;
    return DOCA_SUCCESS;
}

void hl_mem_free(doca_gpu_t *gpu, enum hl_mem_kind kind, void *gpu_ptr, void *cpu_ptr,
                 doca_verbs_umem_t *umem)
{
    if (umem != NULL)
        doca_verbs_umem_destroy(umem);
    if (kind == HL_MEM_HOST)
        free(cpu_ptr);
    else if (gpu_ptr != NULL)
        doca_gpu_mem_free(gpu, gpu_ptr);
}

doca_error_t hl_slab_create(doca_gpu_t *gpu, doca_dev_t *dev, enum hl_mem_kind kind,
                            enum doca_gpu_verbs_mem_reg_type mreg, size_t size,
                            struct doca_gpu_verbs_umem_hl **slab)
{
    struct doca_gpu_verbs_umem_hl *s = calloc(1, sizeof(*s));
    bool dmabuf = false;
    doca_error_t err;

    if (s == NULL) {
        DOCA_LOG_ERR("out of memory for a slab descriptor");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = hl_mem_alloc(gpu, dev, kind, mreg, size, &s->base_gpu_ptr, &s->base_cpu_ptr, &s->umem,
                       &dmabuf);
    if (err != DOCA_SUCCESS) {
        free(s);
        return err;
    }
    s->size = verbs_align_up(size, GPUNETIO_DMABUF_ALIGN);
    s->mreg_type = dmabuf ? DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF
                          : DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_PEERMEM;
    s->is_system_malloc = kind == HL_MEM_HOST;
    *slab = s;
    return DOCA_SUCCESS;
}

void hl_slab_destroy(doca_gpu_t *gpu, struct doca_gpu_verbs_umem_hl *slab)
{
    if (slab == NULL)
        return;
    hl_mem_free(gpu,
                slab->is_system_malloc       ? HL_MEM_HOST
                : slab->base_cpu_ptr != NULL ? HL_MEM_PINNED
                                             : HL_MEM_GPU,
                slab->base_gpu_ptr, slab->base_cpu_ptr, slab->umem);
    free(slab);
}

doca_error_t hl_slab_take(struct doca_gpu_verbs_umem_hl *slab, size_t len, size_t align,
                          struct hl_place *out)
{
    size_t off = verbs_align_up(slab->next_offset, align);

    if (off > slab->size || len > slab->size - off) {
        DOCA_LOG_ERR("slab of %zu bytes is full: %zu bytes at offset %zu do not fit", slab->size,
                     len, off);
        return DOCA_ERROR_NO_MEMORY;
    }
    out->umem = slab->umem;
    out->offset = off;
    out->addr = (uint8_t *)slab->base_gpu_ptr + off;
    out->gpu_mem = slab->base_cpu_ptr == NULL;
    slab->next_offset = off + len;
    slab->refcount++;
    return DOCA_SUCCESS;
}
