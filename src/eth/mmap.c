/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA memory maps: one range (host memory, or GPU memory by address or by
 * dma-buf) registered as an MR with each device added, on the device's PD,
 * from doca_mmap_start() to doca_mmap_stop(). Queues and buffer arrays take
 * the MR's key; a started one counts as a user, and a map with users
 * cannot stop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cuda_driver.h"
#include "core/sdk.h"
#include "eth_internal.h"

bool eth_addr_is_gpu(const void *addr)
{
    const struct core_cuda_ops *cuda;
    unsigned int type = 0;

    if (core_cuda_unavailable_reason() != NULL || core_cuda_get(&cuda) != DOCA_SUCCESS)
        return false;
    if (cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                    (core_cu_deviceptr)(uintptr_t)addr) != CORE_CU_SUCCESS)
        return false;
    return type == CORE_CU_MEMORYTYPE_DEVICE;
}

/* A stopped map (setters' precondition). */
static doca_error_t mmap_settable(const struct doca_mmap *mmap, const char *call)
{
    if (mmap == NULL) {
        DOCA_LOG_ERR("%s: mmap is NULL", call);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mmap->started) {
        DOCA_LOG_ERR("%s: the mmap is started: doca_mmap_stop first (configure, then start)", call);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
    DGN_SDK_ROUTE(doca_mmap_create, (mmap), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_mmap *m;

    if (mmap == NULL) {
        DOCA_LOG_ERR("mmap is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        DOCA_LOG_ERR("out of memory for a doca_mmap");
        return DOCA_ERROR_NO_MEMORY;
    }
    m->dmabuf_fd = -1;
    m->access = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
    atomic_init(&m->users, 0);
    atomic_init(&m->refs, 0);
    *mmap = m;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    DGN_SDK_ROUTE(doca_mmap_add_dev, (mmap, dev), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = mmap_settable(mmap, "doca_mmap_add_dev");

    if (err != DOCA_SUCCESS)
        return err;
    if (dev == NULL) {
        DOCA_LOG_ERR("doca_mmap_add_dev: dev is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (uint32_t i = 0; i < mmap->ndevs; i++) {
        if (mmap->devs[i].dev == dev) {
            DOCA_LOG_ERR("doca_mmap_add_dev: the device is already added to this mmap");
            return DOCA_ERROR_ALREADY_EXIST;
        }
    }
    if (mmap->ndevs == ETH_MMAP_MAX_DEVS) {
        DOCA_LOG_ERR("doca_mmap_add_dev: an mmap takes at most %u devices", ETH_MMAP_MAX_DEVS);
        return DOCA_ERROR_FULL;
    }
    mmap->devs[mmap->ndevs++] = (struct eth_mmap_dev){.dev = dev};
    verbs_dev_hold(dev);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    DGN_SDK_ROUTE(doca_mmap_rm_dev, (mmap, dev), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = mmap_settable(mmap, "doca_mmap_rm_dev");

    if (err != DOCA_SUCCESS)
        return err;
    for (uint32_t i = 0; i < mmap->ndevs; i++) {
        if (mmap->devs[i].dev == dev) {
            verbs_dev_put(dev);
            mmap->devs[i] = mmap->devs[--mmap->ndevs];
            return DOCA_SUCCESS;
        }
    }
    DOCA_LOG_ERR("doca_mmap_rm_dev: the device was not added to this mmap");
    return DOCA_ERROR_NOT_FOUND;
}

/* Checks a range about to be set (set once). */
static doca_error_t mmap_range_arg(struct doca_mmap *mmap, void *addr, size_t len, const char *call)
{
    doca_error_t err = mmap_settable(mmap, call);

    if (err != DOCA_SUCCESS)
        return err;
    if (addr == NULL || len == 0 || (uintptr_t)addr + len < (uintptr_t)addr) {
        DOCA_LOG_ERR("%s: addr %p and len %zu are not a memory range", call, addr, len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mmap->range_set) {
        DOCA_LOG_ERR("%s: the mmap already has its range (%p, %zu bytes); a range is set once",
                     call, mmap->addr, mmap->len);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
    DGN_SDK_ROUTE(doca_mmap_set_memrange, (mmap, addr, len), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = mmap_range_arg(mmap, addr, len, "doca_mmap_set_memrange");

    if (err != DOCA_SUCCESS)
        return err;
    mmap->addr = addr;
    mmap->len = len;
    mmap->gpu = eth_addr_is_gpu(addr);
    mmap->range_set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
                                           size_t dmabuf_offset, size_t len)
{
    DGN_SDK_ROUTE(doca_mmap_set_dmabuf_memrange, (mmap, dmabuf_fd, addr, dmabuf_offset, len),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = mmap_range_arg(mmap, addr, len, "doca_mmap_set_dmabuf_memrange");
    int fd;

    if (err != DOCA_SUCCESS)
        return err;
    if (dmabuf_fd < 0) {
        DOCA_LOG_ERR("doca_mmap_set_dmabuf_memrange: %d is not a file descriptor (get one with "
                     "doca_gpu_dmabuf_fd)",
                     dmabuf_fd);
        return DOCA_ERROR_INVALID_VALUE;
    }
    fd = dup(dmabuf_fd);
    if (fd < 0) {
        DOCA_LOG_ERR("doca_mmap_set_dmabuf_memrange: fd %d: %s", dmabuf_fd, strerror(errno));
        return DOCA_ERROR_INVALID_VALUE;
    }
    mmap->dmabuf_fd = fd;
    mmap->dmabuf_offset = dmabuf_offset;
    mmap->addr = addr;
    mmap->len = len;
    mmap->gpu = true;
    mmap->range_set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
    DGN_SDK_ROUTE(doca_mmap_set_permissions, (mmap, access_mask), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = mmap_settable(mmap, "doca_mmap_set_permissions");
    const uint32_t known = (1u << 7) - 1;

    if (err != DOCA_SUCCESS)
        return err;
    if (access_mask & ~known) {
        DOCA_LOG_ERR("doca_mmap_set_permissions: 0x%x has bits no enum doca_access_flag names",
                     access_mask & ~known);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (access_mask & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)) {
        DOCA_LOG_ERR("doca_mmap_set_permissions: PCI export (DOCA_ACCESS_FLAG_PCI_*) is not "
                     "provided");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    mmap->access = access_mask;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
    DGN_SDK_ROUTE(doca_mmap_get_memrange, (mmap, addr, len), DOCA_ERROR_NOT_SUPPORTED);

    if (mmap == NULL || addr == NULL || len == NULL) {
        DOCA_LOG_ERR("mmap (%p), addr (%p) and len (%p) must not be NULL", (const void *)mmap,
                     (void *)addr, (void *)len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!mmap->range_set) {
        DOCA_LOG_ERR("the mmap has no range yet (doca_mmap_set_memrange)");
        return DOCA_ERROR_BAD_STATE;
    }
    *addr = mmap->addr;
    *len = mmap->len;
    return DOCA_SUCCESS;
}

static int mmap_ibv_access(uint32_t a)
{
    int access = 0;

    if (a & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)
        access |= IBV_ACCESS_LOCAL_WRITE;
    if (a & DOCA_ACCESS_FLAG_RDMA_READ)
        access |= IBV_ACCESS_REMOTE_READ;
    if (a & DOCA_ACCESS_FLAG_RDMA_WRITE)
        access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    if (a & DOCA_ACCESS_FLAG_RDMA_ATOMIC)
        access |= IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE;
    if (a & DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)
        access |= IBV_ACCESS_RELAXED_ORDERING;
    return access;
}

static void mmap_dereg(struct doca_mmap *mmap)
{
    const struct core_ibv_ops *ibv;

    if (verbs_rdma(&ibv, NULL) != DOCA_SUCCESS)
        return;
    for (uint32_t i = 0; i < mmap->ndevs; i++) {
        if (mmap->devs[i].mr != NULL)
            ibv->dereg_mr(mmap->devs[i].mr);
        mmap->devs[i].mr = NULL;
    }
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
    DGN_SDK_ROUTE(doca_mmap_start, (mmap), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    doca_error_t err = mmap_settable(mmap, "doca_mmap_start");
    int access;

    if (err != DOCA_SUCCESS)
        return err;
    if (!mmap->range_set || mmap->ndevs == 0) {
        DOCA_LOG_ERR("doca_mmap_start: the mmap has %s: call %s before doca_mmap_start",
                     !mmap->range_set ? "no memory range" : "no device",
                     !mmap->range_set ? "doca_mmap_set_memrange (or _set_dmabuf_memrange)"
                                      : "doca_mmap_add_dev");
        return DOCA_ERROR_BAD_STATE;
    }
    err = verbs_rdma(&ibv, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    access = mmap_ibv_access(mmap->access);
    for (uint32_t i = 0; i < mmap->ndevs; i++) {
        struct ibv_pd *pd = mmap->devs[i].dev->pd;

        errno = 0;
        if (mmap->dmabuf_fd >= 0)
            mmap->devs[i].mr =
                    ibv->reg_dmabuf_mr(pd, mmap->dmabuf_offset, mmap->len,
                                       (uint64_t)(uintptr_t)mmap->addr, mmap->dmabuf_fd, access);
        else
            mmap->devs[i].mr = ibv->reg_mr(pd, mmap->addr, mmap->len, access);
        if (mmap->devs[i].mr == NULL) {
            int e = errno != 0 ? errno : EIO;

            DOCA_LOG_ERR("doca_mmap_start: registering %zu bytes of %s memory at %p with %s "
                         "failed: %s (errno %d)%s",
                         mmap->len, mmap->gpu ? "GPU" : "host", mmap->addr,
                         pd->context->device->name, strerror(e), e,
                         mmap->gpu && mmap->dmabuf_fd < 0
                                 ? "; GPU memory by address needs nvidia_peermem: give a dma-buf "
                                   "(doca_gpu_dmabuf_fd + doca_mmap_set_dmabuf_memrange)"
                                 : "");
            mmap_dereg(mmap);
            return e == ENOMEM ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_DRIVER;
        }
    }
    mmap->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
    DGN_SDK_ROUTE(doca_mmap_stop, (mmap), DOCA_ERROR_NOT_SUPPORTED);

    int users;

    if (mmap == NULL) {
        DOCA_LOG_ERR("mmap is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!mmap->started) {
        DOCA_LOG_ERR("doca_mmap_stop: the mmap is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    users = atomic_load(&mmap->users);
    if (users != 0) {
        DOCA_LOG_ERR("doca_mmap_stop: %d started queues or buffer arrays use the mmap: stop them "
                     "(doca_ctx_stop, doca_buf_arr_stop) first",
                     users);
        return DOCA_ERROR_IN_USE;
    }
    mmap_dereg(mmap);
    mmap->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
    DGN_SDK_ROUTE(doca_mmap_destroy, (mmap), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (mmap == NULL) {
        DOCA_LOG_ERR("mmap is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (atomic_load(&mmap->refs) != 0) {
        DOCA_LOG_ERR("doca_mmap_destroy: %d queues or buffer arrays are configured with this mmap: "
                     "destroy them (or give them another) first",
                     atomic_load(&mmap->refs));
        return DOCA_ERROR_IN_USE;
    }
    if (mmap->started) {
        err = doca_mmap_stop(mmap);
        if (err != DOCA_SUCCESS)
            return err;
    }
    for (uint32_t i = 0; i < mmap->ndevs; i++)
        verbs_dev_put(mmap->devs[i].dev);
    if (mmap->dmabuf_fd >= 0)
        close(mmap->dmabuf_fd);
    free(mmap);
    return DOCA_SUCCESS;
}

bool eth_mmap_lkey(const struct doca_mmap *mmap, const doca_dev_t *dev, uint32_t *lkey)
{
    for (uint32_t i = 0; i < mmap->ndevs; i++) {
        if (mmap->devs[i].dev == dev && mmap->devs[i].mr != NULL) {
            *lkey = mmap->devs[i].mr->lkey;
            return true;
        }
    }
    return false;
}
