/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA buffer arrays (DOCA core, doca_buf_array.h): num_elem buffers of
 * elem_size bytes laid end to end in a started doca_mmap, described for a
 * GPU (doca_buf_arr_set_target_gpu) or, without one, for CPU threads. The
 * handle (struct doca_gpu_buf_arr, below) lives in GPU memory (host memory
 * without a GPU) from doca_buf_arr_start() to doca_buf_arr_stop().
 *
 * DOCA 2.2's doca_buf_arr_create(mmap, &arr) is not provided: the newer
 * doca_buf_arr_create(num_elem, &arr) with doca_buf_arr_set_params().
 */
#ifndef DOCA_BUF_ARRAY_H
#define DOCA_BUF_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf_arr;
struct doca_mmap;
struct doca_gpu;

/*
 * The handle data-path code reads: buffer i starts at base + i * elem_size
 * and is reached by the NIC through mkey (mkey_be: the same, big-endian, as
 * WQEs carry it).
 */
struct doca_gpu_buf_arr {
    uint32_t layout_version; /* DOCA_GPU_BUF_ARR_LAYOUT_VERSION */
    uint32_t layout_size;    /* sizeof(struct doca_gpu_buf_arr) */
    uint64_t base;           /* address of buffer 0 as the data path sees it */
    uint64_t elem_size;
    uint64_t num_elem;
    uint32_t mkey;
    uint32_t mkey_be;
};

#define DOCA_GPU_BUF_ARR_LAYOUT_VERSION 1u

/* num_elem > 0. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr);
/* Stops a started array first. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr);
/* The handle goes to gpu_handler's memory (NULL: host memory, for CPU threads). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr,
                                                           struct doca_gpu *gpu_handler);
/* The buffers: elem_size bytes each from start_offset of mmap. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr,
                                                       struct doca_mmap *mmap, size_t elem_size,
                                                       uint64_t start_offset);
/*
 * BAD_STATE when the mmap is not started (start it first) or the array
 * already is; NO_MEMORY when the buffers do not fit in the mmap.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr);
/* BAD_STATE before doca_buf_arr_start() and after doca_buf_arr_stop(). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr,
                                                           struct doca_gpu_buf_arr **gpu_buf_arr);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_ARRAY_H */
