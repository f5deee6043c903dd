/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host memory mapped for the GPU (uar.c): UAR pages, and rings or doorbell
 * records a QP keeps in host memory, made reachable by kernels. Mappings are
 * whole pages, counted per first page.
 */
#ifndef GPUNETIO_MAP_H
#define GPUNETIO_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "doca_error.h"

/*
 * Maps the pages of [addr, addr + len) for the GPU of the current CUDA
 * context and gives addr's GPU address. try_io: first as I/O memory (a
 * device's UAR), then as ordinary memory. `what` names it in log lines.
 * BAD_STATE without a current context, DRIVER when CUDA refuses.
 */
doca_error_t gpunetio_map_host(void *addr, size_t len, bool try_io, const char *what,
                               void **dev_addr);
/* Drops a mapping made by gpunetio_map_host() (by the GPU address it gave). */
doca_error_t gpunetio_unmap_host(void *dev_addr);

#endif /* GPUNETIO_MAP_H */
