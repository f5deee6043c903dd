/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA buffer arrays: num_elem buffers of elem_size bytes in a started
 * doca_mmap, handed to the data path as struct doca_gpu_buf_arr (GPU memory
 * for a target GPU, host memory otherwise). A started array holds its mmap.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "eth_internal.h"
#include "gpunetio/gpunetio_internal.h"

struct doca_buf_arr {
    size_t num_elem;
    struct doca_mmap *mmap;
    size_t elem_size;
    uint64_t offset;
    doca_gpu_t *gpu;
    bool started;
    struct doca_gpu_buf_arr *handle;
};

static doca_error_t arr_settable(const struct doca_buf_arr *arr, const char *call)
{
    if (arr == NULL) {
        DOCA_LOG_ERR("%s: buf_arr is NULL", call);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (arr->started) {
        DOCA_LOG_ERR("%s: the buffer array is started: doca_buf_arr_stop first", call);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr)
{
    DGN_SDK_ROUTE(doca_buf_arr_create, (num_elem, buf_arr), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_buf_arr *a;

    if (buf_arr == NULL || num_elem == 0) {
        DOCA_LOG_ERR("doca_buf_arr_create: num_elem (%zu) must be > 0 and buf_arr (%p) not NULL",
                     num_elem, (void *)buf_arr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    a = calloc(1, sizeof(*a));
    if (a == NULL) {
        DOCA_LOG_ERR("out of memory for a doca_buf_arr");
        return DOCA_ERROR_NO_MEMORY;
    }
    a->num_elem = num_elem;
    *buf_arr = a;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr, struct doca_gpu *gpu_handler)
{
    DGN_SDK_ROUTE(doca_buf_arr_set_target_gpu, (buf_arr, gpu_handler), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = arr_settable(buf_arr, "doca_buf_arr_set_target_gpu");

    if (err == DOCA_SUCCESS)
        buf_arr->gpu = gpu_handler;
    return err;
}

doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr, struct doca_mmap *mmap,
                                     size_t elem_size, uint64_t start_offset)
{
    DGN_SDK_ROUTE(doca_buf_arr_set_params, (buf_arr, mmap, elem_size, start_offset),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = arr_settable(buf_arr, "doca_buf_arr_set_params");

    if (err != DOCA_SUCCESS)
        return err;
    if (mmap == NULL || elem_size == 0) {
        DOCA_LOG_ERR("doca_buf_arr_set_params: mmap (%p) must not be NULL and elem_size (%zu) > 0",
                     (void *)mmap, elem_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    atomic_fetch_add(&mmap->refs, 1);
    if (buf_arr->mmap != NULL)
        atomic_fetch_sub(&buf_arr->mmap->refs, 1);
    buf_arr->mmap = mmap;
    buf_arr->elem_size = elem_size;
    buf_arr->offset = start_offset;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr)
{
    DGN_SDK_ROUTE(doca_buf_arr_start, (buf_arr), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_buf_arr h = {0};
    struct doca_mmap *m;
    uint32_t lkey = 0;
    void *out = NULL;
    doca_error_t err = arr_settable(buf_arr, "doca_buf_arr_start");

    if (err != DOCA_SUCCESS)
        return err;
    m = buf_arr->mmap;
    if (m == NULL) {
        DOCA_LOG_ERR("doca_buf_arr_start: no mmap: call doca_buf_arr_set_params first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!m->started) {
        DOCA_LOG_ERR("doca_buf_arr_start: the mmap is not started: doca_mmap_start it before "
                     "doca_buf_arr_start (and both before doca_ctx_start)");
        return DOCA_ERROR_BAD_STATE;
    }
    if (buf_arr->offset > m->len ||
        buf_arr->num_elem > (m->len - buf_arr->offset) / buf_arr->elem_size) {
        DOCA_LOG_ERR("doca_buf_arr_start: %zu buffers of %zu bytes from offset %lu do not fit the "
                     "mmap's %zu bytes",
                     buf_arr->num_elem, buf_arr->elem_size, (unsigned long)buf_arr->offset, m->len);
        return DOCA_ERROR_NO_MEMORY;
    }
    if (buf_arr->gpu == NULL && m->gpu) {
        DOCA_LOG_ERR("doca_buf_arr_start: the mmap is GPU memory and the array has no target GPU "
                     "(doca_buf_arr_set_target_gpu): CPU threads cannot reach its buffers");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (m->ndevs > 0)
        eth_mmap_lkey(m, m->devs[0].dev, &lkey);
    h.layout_version = DOCA_GPU_BUF_ARR_LAYOUT_VERSION;
    h.layout_size = (uint32_t)sizeof(h);
    h.base = (uint64_t)(uintptr_t)m->addr + buf_arr->offset;
    h.elem_size = buf_arr->elem_size;
    h.num_elem = buf_arr->num_elem;
    h.mkey = lkey;
    h.mkey_be = __builtin_bswap32(lkey);
    err = eth_desc_place(buf_arr->gpu, &h, sizeof(h), "a buffer array's handle", &out);
    if (err != DOCA_SUCCESS)
        return err;
    buf_arr->handle = out;
    atomic_fetch_add(&m->users, 1);
    buf_arr->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr)
{
    DGN_SDK_ROUTE(doca_buf_arr_stop, (buf_arr), DOCA_ERROR_NOT_SUPPORTED);

    if (buf_arr == NULL) {
        DOCA_LOG_ERR("buf_arr is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!buf_arr->started) {
        DOCA_LOG_ERR("doca_buf_arr_stop: the buffer array is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    eth_desc_free(buf_arr->gpu, buf_arr->handle);
    buf_arr->handle = NULL;
    atomic_fetch_sub(&buf_arr->mmap->users, 1);
    buf_arr->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr)
{
    DGN_SDK_ROUTE(doca_buf_arr_destroy, (buf_arr), DOCA_ERROR_NOT_SUPPORTED);

    if (buf_arr == NULL) {
        DOCA_LOG_ERR("buf_arr is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (buf_arr->started)
        doca_buf_arr_stop(buf_arr);
    if (buf_arr->mmap != NULL)
        atomic_fetch_sub(&buf_arr->mmap->refs, 1);
    free(buf_arr);
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr,
                                         struct doca_gpu_buf_arr **gpu_buf_arr)
{
    DGN_SDK_ROUTE(doca_buf_arr_get_gpu_handle, (buf_arr, gpu_buf_arr), DOCA_ERROR_NOT_SUPPORTED);

    if (buf_arr == NULL || gpu_buf_arr == NULL) {
        DOCA_LOG_ERR("buf_arr (%p) and gpu_buf_arr (%p) must not be NULL", (const void *)buf_arr,
                     (void *)gpu_buf_arr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!buf_arr->started) {
        DOCA_LOG_ERR("doca_buf_arr_get_gpu_handle: the buffer array is not started: "
                     "doca_buf_arr_start first (the handle lives from start to stop)");
        return DOCA_ERROR_BAD_STATE;
    }
    *gpu_buf_arr = buf_arr->handle;
    return DOCA_SUCCESS;
}
