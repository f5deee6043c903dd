/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA memory maps (DOCA core, doca_mmap.h): one memory range registered
 * with the devices added to it. Host memory is registered with
 * ibv_reg_mr; GPU memory given with doca_mmap_set_dmabuf_memrange() (the fd
 * from doca_gpu_dmabuf_fd) with ibv_reg_dmabuf_mr; GPU memory given with
 * doca_mmap_set_memrange() with ibv_reg_mr (which needs nvidia_peermem on a
 * ConnectX). Configured while stopped; doca_mmap_start() registers.
 */
#ifndef DOCA_MMAP_H
#define DOCA_MMAP_H

#include <stddef.h>
#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"
#include "doca_types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dev;

DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);
/* Stops a started map first. IN_USE while a queue or buffer array is configured with it. */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
/* Registers the range with every device added (BAD_STATE: no range or no device). */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);
/* Deregisters. IN_USE while a started queue or buffer array uses the map. */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);
/* The range, set once (NOT_PERMITTED a second time). */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd,
                                                       void *addr, size_t dmabuf_offset,
                                                       size_t len);
/* enum doca_access_flag bits; the default is DOCA_ACCESS_FLAG_LOCAL_READ_WRITE. */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr,
                                                size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H */
