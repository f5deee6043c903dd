/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DevX UMEMs over host or GPU memory, and the buffers CQs, QPs and SRQs
 * keep their rings and doorbell records in (a caller's UMEM, or page-aligned
 * host memory the object allocates and registers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_driver.h"
#include "core/sdk.h"
#include "verbs_internal.h"

/* Local write for the device's CQE / doorbell-record writes; remote access is never needed. */
#define VERBS_INTERNAL_UMEM_ACCESS IBV_ACCESS_LOCAL_WRITE

/* Asks the CUDA driver, when it is usable here, whether addr is device memory. */
static bool verbs_addr_is_gpu(const void *addr)
{
    const struct core_cuda_ops *cuda;
    unsigned int type = 0;

    if (core_cuda_unavailable_reason() != NULL || core_cuda_get(&cuda) != DOCA_SUCCESS)
        return false; /* no driver: no GPU memory either */
    if (cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                    (core_cu_deviceptr)(uintptr_t)addr) != CORE_CU_SUCCESS)
        return false; /* memory the driver does not know: ordinary host memory */
    return type == CORE_CU_MEMORYTYPE_DEVICE;
}

doca_error_t verbs_umem_make(doca_dev_t *dev, void *addr, size_t size, uint32_t access,
                             int dmabuf_fd, size_t dmabuf_offset, enum verbs_mem placement,
                             doca_verbs_umem_t **out)
{
    const struct core_mlx5dv_ops *mlx5;
    struct mlx5dv_devx_umem_in in;
    doca_verbs_umem_t *umem;
    bool dmabuf = dmabuf_fd != (int)DOCA_VERBS_DMABUF_INVALID_FD;
    doca_error_t err = verbs_rdma(NULL, &mlx5);

    if (err != DOCA_SUCCESS)
        return err;
    umem = calloc(1, sizeof(*umem));
    if (umem == NULL) {
        DOCA_LOG_ERR("out of memory for a UMEM object");
        return DOCA_ERROR_NO_MEMORY;
    }
    errno = 0;
    if (dmabuf) {
        memset(&in, 0, sizeof(in));
        in.addr = addr;
        in.size = size;
        in.access = access;
        in.pgsz_bitmap = ~(uint64_t)(VERBS_PAGE_SIZE - 1);
        in.comp_mask = MLX5DV_UMEM_MASK_DMABUF;
        in.dmabuf_fd = dmabuf_fd;
        umem->umem = mlx5->devx_umem_reg_ex(dev->ctx, &in);
    } else {
        umem->umem = mlx5->devx_umem_reg(dev->ctx, addr, size, access);
    }
    if (umem->umem == NULL) {
        int e = errno != 0 ? errno : EIO;

        DOCA_LOG_ERR("registering %zu bytes at %p as a UMEM (%s, access 0x%x) failed: %s "
                     "(errno %d)",
                     size, addr, dmabuf ? "dma-buf" : "plain", access, strerror(e), e);
        free(umem);
        return e == EINVAL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_DRIVER;
    }
    (void)dmabuf_offset; /* the range is named by its address; the offset is informative */
    umem->dev = dev;
    umem->addr = addr;
    umem->size = size;
    if (placement == VERBS_MEM_UNKNOWN)
        placement = dmabuf || verbs_addr_is_gpu(addr) ? VERBS_MEM_GPU : VERBS_MEM_HOST;
    umem->gpu = placement == VERBS_MEM_GPU;
    atomic_init(&umem->users, 0);
    verbs_dev_hold(dev);
    *out = umem;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_umem_create(doca_dev_t *net_dev, doca_gpu_t *gpu, void *address,
                                    size_t size, uint32_t access_flags, int dmabuf_id,
                                    size_t dmabuf_offset, doca_verbs_umem_t **umem_obj)
{
    DGN_SDK_ROUTE(doca_verbs_umem_create,
                  (net_dev, gpu, address, size, access_flags, dmabuf_id, dmabuf_offset, umem_obj),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (net_dev == NULL || address == NULL || umem_obj == NULL) {
        DOCA_LOG_ERR("net_dev (%p), address (%p) and umem_obj (%p) must not be NULL",
                     (void *)net_dev, address, (void *)umem_obj);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (size == 0) {
        DOCA_LOG_ERR("size is 0: a UMEM covers at least one byte");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((uintptr_t)address + size < (uintptr_t)address) {
        DOCA_LOG_ERR("address %p + size %zu wraps around the address space", address, size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return verbs_umem_make(net_dev, address, size, access_flags, dmabuf_id, dmabuf_offset,
                           gpu != NULL ? VERBS_MEM_GPU : VERBS_MEM_UNKNOWN, umem_obj);
}

doca_error_t doca_verbs_umem_destroy(doca_verbs_umem_t *umem_obj)
{
    DGN_SDK_ROUTE(doca_verbs_umem_destroy, (umem_obj), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err;
    int users, rc;

    if (umem_obj == NULL) {
        DOCA_LOG_ERR("umem_obj is NULL: pass the UMEM doca_verbs_umem_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    users = atomic_load(&umem_obj->users);
    if (users != 0) {
        DOCA_LOG_ERR("UMEM %u still holds the rings or doorbell records of %d CQs/QPs/SRQs; "
                     "destroy them first",
                     umem_obj->umem->umem_id, users);
        return DOCA_ERROR_IN_USE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    rc = mlx5->devx_umem_dereg(umem_obj->umem);
    if (rc != 0) {
        DOCA_LOG_ERR("deregistering UMEM %u failed: %s (errno %d)", umem_obj->umem->umem_id,
                     strerror(rc), rc);
        return rc == EBUSY ? DOCA_ERROR_IN_USE : DOCA_ERROR_DRIVER;
    }
    verbs_dev_put(umem_obj->dev);
    free(umem_obj);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_umem_get_id(const doca_verbs_umem_t *umem_obj, uint32_t *umem_id)
{
    DGN_SDK_ROUTE(doca_verbs_umem_get_id, (umem_obj, umem_id), DOCA_ERROR_NOT_SUPPORTED);

    if (umem_obj == NULL || umem_id == NULL) {
        DOCA_LOG_ERR("umem_obj (%p) and umem_id (%p) must not be NULL", (const void *)umem_obj,
                     (void *)umem_id);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *umem_id = umem_obj->umem->umem_id;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_umem_get_size(const doca_verbs_umem_t *umem_obj, size_t *umem_size)
{
    DGN_SDK_ROUTE(doca_verbs_umem_get_size, (umem_obj, umem_size), DOCA_ERROR_NOT_SUPPORTED);

    if (umem_obj == NULL || umem_size == NULL) {
        DOCA_LOG_ERR("umem_obj (%p) and umem_size (%p) must not be NULL", (const void *)umem_obj,
                     (void *)umem_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *umem_size = umem_obj->size;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_umem_get_address(const doca_verbs_umem_t *umem_obj, void **umem_address)
{
    DGN_SDK_ROUTE(doca_verbs_umem_get_address, (umem_obj, umem_address), DOCA_ERROR_NOT_SUPPORTED);

    if (umem_obj == NULL || umem_address == NULL) {
        DOCA_LOG_ERR("umem_obj (%p) and umem_address (%p) must not be NULL", (const void *)umem_obj,
                     (void *)umem_address);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *umem_address = umem_obj->addr;
    return DOCA_SUCCESS;
}

doca_error_t verbs_buf_alloc(doca_dev_t *dev, size_t size, struct verbs_buf *buf)
{
    size_t bytes = (size_t)verbs_align_up(size, VERBS_PAGE_SIZE);
    void *mem = NULL;
    doca_error_t err;
    int rc = posix_memalign(&mem, VERBS_PAGE_SIZE, bytes);

    if (rc != 0) {
        DOCA_LOG_ERR("cannot allocate %zu bytes of page-aligned host memory: %s", bytes,
                     strerror(rc));
        return DOCA_ERROR_NO_MEMORY;
    }
    memset(mem, 0, bytes);
    err = verbs_umem_make(dev, mem, bytes, VERBS_INTERNAL_UMEM_ACCESS,
                          (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, VERBS_MEM_HOST, &buf->umem);
    if (err != DOCA_SUCCESS) {
        free(mem);
        return err;
    }
    atomic_fetch_add(&buf->umem->users, 1);
    buf->offset = 0;
    buf->internal = true;
    return DOCA_SUCCESS;
}

doca_error_t verbs_buf_external(doca_verbs_umem_t *umem, uint64_t offset, size_t len, size_t align,
                                const char *what, struct verbs_buf *buf)
{
    if (offset % align != 0) {
        DOCA_LOG_ERR("%s offset %llu in UMEM %u is not %zu-byte aligned", what,
                     (unsigned long long)offset, umem->umem->umem_id, align);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (offset > umem->size || len > umem->size - offset) {
        DOCA_LOG_ERR("%s needs %zu bytes at offset %llu, but UMEM %u holds %zu bytes: use a "
                     "larger UMEM or a smaller queue",
                     what, len, (unsigned long long)offset, umem->umem->umem_id, umem->size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    atomic_fetch_add(&umem->users, 1);
    buf->umem = umem;
    buf->offset = offset;
    buf->internal = false;
    return DOCA_SUCCESS;
}

void verbs_buf_release(struct verbs_buf *buf)
{
    void *mem;

    if (buf->umem == NULL)
        return;
    atomic_fetch_sub(&buf->umem->users, 1);
    if (buf->internal) {
        mem = buf->umem->addr;
        if (doca_verbs_umem_destroy(buf->umem) == DOCA_SUCCESS)
            free(mem);
    }
    buf->umem = NULL;
}

/*
 * Copies len bytes between host memory and GPU memory (gpu: the GPU
 * address; to_gpu: the direction), with the primary context of the
 * memory's GPU when none is current.
 */
static doca_error_t verbs_gpu_copy(void *gpu, void *host, size_t len, bool to_gpu)
{
    const struct core_cuda_ops *cuda;
    core_cu_context cur = NULL, primary = NULL;
    core_cu_device device = 0;
    core_cu_deviceptr dptr = (core_cu_deviceptr)(uintptr_t)gpu;
    int ordinal = 0;
    core_cu_result rc;
    doca_error_t err = core_cuda_get(&cuda);

    if (err != DOCA_SUCCESS)
        return err;
    if (cuda->cuCtxGetCurrent(&cur) != CORE_CU_SUCCESS || cur == NULL) {
        if (cuda->cuPointerGetAttribute(&ordinal, CORE_CU_POINTER_ATTR_DEVICE_ORDINAL, dptr) !=
                    CORE_CU_SUCCESS ||
            cuda->cuDeviceGet(&device, ordinal) != CORE_CU_SUCCESS ||
            cuda->cuDevicePrimaryCtxRetain(&primary, device) != CORE_CU_SUCCESS) {
            DOCA_LOG_ERR("no CUDA context can reach GPU memory at %p", gpu);
            return DOCA_ERROR_DRIVER;
        }
        cuda->cuCtxSetCurrent(primary);
    }
    rc = to_gpu ? cuda->cuMemcpyHtoD(dptr, host, len) : cuda->cuMemcpyDtoH(host, dptr, len);
    if (primary != NULL) {
        cuda->cuCtxSetCurrent(NULL);
        cuda->cuDevicePrimaryCtxRelease(device);
    }
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("%s of %zu bytes %s %p failed: CUDA error %d",
                     to_gpu ? "cuMemcpyHtoD" : "cuMemcpyDtoH", len, to_gpu ? "to" : "from", gpu,
                     rc);
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

doca_error_t verbs_buf_write(const struct verbs_buf *buf, uint64_t off, const void *src, size_t len)
{
    uint8_t *dst = (uint8_t *)verbs_buf_addr(buf) + off;

    if (buf->umem->gpu)
        return verbs_gpu_copy(dst, (void *)(uintptr_t)src, len, true);
    memcpy(dst, src, len);
    return DOCA_SUCCESS;
}

doca_error_t verbs_buf_read(const struct verbs_buf *buf, uint64_t off, void *dst, size_t len)
{
    uint8_t *src = (uint8_t *)verbs_buf_addr(buf) + off;

    if (buf->umem->gpu)
        return verbs_gpu_copy(src, dst, len, false);
    memcpy(dst, src, len);
    return DOCA_SUCCESS;
}
