/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UAR pages and other host memory mapped for GPU stores. A ConnectX UAR is
 * device memory (a BAR page), which CUDA maps only as I/O memory; the UAR of
 * a software NIC (softmlx5) is an ordinary host page, which CUDA refuses to
 * map as I/O memory but maps as plain host memory. Both are tried, in that
 * order. A page is mapped once and counted; several QPs may share one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_map.h"

#define UAR_PAGE_SIZE 4096u

/* CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: the range was mapped by someone else. */
#define CU_ERROR_ALREADY_REGISTERED 712

struct mapped_page {
    uintptr_t page;
    uintptr_t end;
    uintptr_t dev_page;
    int refs;
    bool owned; /* registered by us (unregister on the last drop) */
    struct mapped_page *next;
};

static pthread_mutex_t pages_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mapped_page *pages;

static struct mapped_page *page_find_locked(uintptr_t page)
{
    for (struct mapped_page *p = pages; p != NULL; p = p->next)
        if (p->page == page)
            return p;
    return NULL;
}

static struct mapped_page *page_find_dev_locked(uintptr_t dev_page)
{
    for (struct mapped_page *p = pages; p != NULL; p = p->next)
        if (p->dev_page == dev_page)
            return p;
    return NULL;
}

/* The CUDA table with a context current (the caller's, or the one it made current). */
static doca_error_t map_cuda(const struct core_cuda_ops **cuda, const char *what)
{
    core_cu_context ctx = NULL;
    doca_error_t err = core_cuda_get(cuda);

    if (err != DOCA_SUCCESS)
        return err;
    if ((*cuda)->cuCtxGetCurrent(&ctx) != CORE_CU_SUCCESS || ctx == NULL) {
        DOCA_LOG_ERR("cannot map %s for the GPU: no CUDA context is current on this thread; call "
                     "doca_gpu_create() (or cudaSetDevice) first",
                     what);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

/* Registers [page, page + len) for GPU access: as I/O memory when io is set, else plainly. */
static core_cu_result map_register(const struct core_cuda_ops *cuda, uintptr_t page, size_t len,
                                   bool io)
{
    unsigned int flags = CORE_CU_MEMHOSTREGISTER_PORTABLE | CORE_CU_MEMHOSTREGISTER_DEVICEMAP;

    if (io)
        flags |= CORE_CU_MEMHOSTREGISTER_IOMEMORY;
    return cuda->cuMemHostRegister((void *)page, len, flags);
}

doca_error_t gpunetio_map_host(void *addr, size_t len, bool try_io, const char *what,
                               void **dev_addr)
{
    const struct core_cuda_ops *cuda;
    uintptr_t page = (uintptr_t)addr & ~(uintptr_t)(UAR_PAGE_SIZE - 1);
    uintptr_t end = ((uintptr_t)addr + len + UAR_PAGE_SIZE - 1) & ~(uintptr_t)(UAR_PAGE_SIZE - 1);
    struct mapped_page *p;
    core_cu_deviceptr dptr = 0;
    core_cu_result rc = CORE_CU_SUCCESS;
    char why[160];
    doca_error_t err = map_cuda(&cuda, what);

    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&pages_lock);
    p = page_find_locked(page);
    if (p != NULL && p->end < end) {
        pthread_mutex_unlock(&pages_lock);
        DOCA_LOG_ERR("cannot map %s (%p, %zu bytes) for the GPU: it starts in a page already "
                     "mapped for a shorter range; keep GPU-visible host buffers in pages of "
                     "their own",
                     what, addr, len);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (p != NULL) {
        p->refs++;
        *dev_addr = (void *)(p->dev_page + ((uintptr_t)addr - page));
        pthread_mutex_unlock(&pages_lock);
        return DOCA_SUCCESS;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        pthread_mutex_unlock(&pages_lock);
        DOCA_LOG_ERR("out of memory mapping %s for the GPU", what);
        return DOCA_ERROR_NO_MEMORY;
    }
    /*
     * Pinned memory CUDA already maps (cuMemHostAlloc: doca_gpu_mem_alloc's
     * CPU_GPU) has its device address already; registering its page again
     * could reach past the allocation, which CUDA refuses.
     */
    p->owned = cuda->cuMemHostGetDevicePointer(&dptr, (void *)page, 0) != CORE_CU_SUCCESS;
    if (p->owned && try_io)
        rc = map_register(cuda, page, end - page, true);
    if (p->owned && (!try_io || rc != CORE_CU_SUCCESS))
        rc = map_register(cuda, page, end - page, false);
    if (p->owned && rc == CU_ERROR_ALREADY_REGISTERED) {
        p->owned = false;
        rc = CORE_CU_SUCCESS;
    }
    if (p->owned && rc == CORE_CU_SUCCESS)
        rc = cuda->cuMemHostGetDevicePointer(&dptr, (void *)page, 0);
    if (rc != CORE_CU_SUCCESS) {
        if (p->owned)
            cuda->cuMemHostUnregister((void *)page);
        pthread_mutex_unlock(&pages_lock);
        free(p);
        DOCA_LOG_ERR("cannot map %s (%p) for the GPU: %s", what, addr,
                     gpunetio_cu_error(cuda, rc, why, sizeof(why)));
        return DOCA_ERROR_DRIVER;
    }
    p->page = page;
    p->end = end;
    p->dev_page = (uintptr_t)dptr;
    p->refs = 1;
    p->next = pages;
    pages = p;
    pthread_mutex_unlock(&pages_lock);
    *dev_addr = (void *)(p->dev_page + ((uintptr_t)addr - page));
    return DOCA_SUCCESS;
}

doca_error_t gpunetio_unmap_host(void *dev_addr)
{
    const struct core_cuda_ops *cuda = NULL;
    uintptr_t dev_page = (uintptr_t)dev_addr & ~(uintptr_t)(UAR_PAGE_SIZE - 1);
    struct mapped_page **link;
    struct mapped_page *p;

    pthread_mutex_lock(&pages_lock);
    p = page_find_dev_locked(dev_page);
    if (p == NULL) {
        pthread_mutex_unlock(&pages_lock);
        DOCA_LOG_ERR("%p was not mapped for the GPU by doca_gpu_verbs_export_uar()", dev_addr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (--p->refs > 0) {
        pthread_mutex_unlock(&pages_lock);
        return DOCA_SUCCESS;
    }
    for (link = &pages; *link != p; link = &(*link)->next)
        ;
    *link = p->next;
    pthread_mutex_unlock(&pages_lock);
    if (p->owned && core_cuda_get(&cuda) == DOCA_SUCCESS)
        cuda->cuMemHostUnregister((void *)p->page);
    free(p);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_can_gpu_register_uar(void *db, bool *out_can_register)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_can_gpu_register_uar, (db, out_can_register),
                  DOCA_ERROR_NOT_SUPPORTED);

    void *dev = NULL;

    if (db == NULL || out_can_register == NULL) {
        DOCA_LOG_ERR("db (%p) and out_can_register (%p) must not be NULL", db,
                     (void *)out_can_register);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *out_can_register =
            gpunetio_map_host(db, sizeof(uint64_t), true, "the UAR", &dev) == DOCA_SUCCESS;
    if (*out_can_register)
        gpunetio_unmap_host(dev);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_export_uar(uint64_t *sq_db, uint64_t **uar_addr_gpu)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_export_uar, (sq_db, uar_addr_gpu), DOCA_ERROR_NOT_SUPPORTED);

    void *dev = NULL;
    doca_error_t err;

    if (sq_db == NULL || uar_addr_gpu == NULL) {
        DOCA_LOG_ERR("sq_db (%p) and uar_addr_gpu (%p) must not be NULL", (void *)sq_db,
                     (void *)uar_addr_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = gpunetio_map_host(sq_db, sizeof(*sq_db) * 8, true, "the UAR", &dev);
    if (err == DOCA_SUCCESS)
        *uar_addr_gpu = dev;
    return err;
}

doca_error_t doca_gpu_verbs_unexport_uar(uint64_t *uar_addr_gpu)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_unexport_uar, (uar_addr_gpu), DOCA_ERROR_NOT_SUPPORTED);

    if (uar_addr_gpu == NULL) {
        DOCA_LOG_ERR("uar_addr_gpu is NULL: pass the address doca_gpu_verbs_export_uar() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return gpunetio_unmap_host(uar_addr_gpu);
}
