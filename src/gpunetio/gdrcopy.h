/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GDRCopy (libgdrapi.so.2, loaded at run time): GPU memory pinned and
 * mapped into the CPU's address space through the gdrdrv kernel module, for
 * DOCA_GPU_MEM_TYPE_GPU_CPU. One gdr handle per process, opened at the first
 * mapping and kept.
 */
#ifndef GPUNETIO_GDRCOPY_H
#define GPUNETIO_GDRCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "doca_error.h"

/* GDRCopy pins and maps whole GPU pages. */
#define GPUNETIO_GDR_PAGE_SIZE ((size_t)64 * 1024)

struct gpunetio_gdr_map {
    unsigned long handle; /* gdr_mh_t */
    void *cpu;            /* the CPU address of the first byte pinned */
    size_t size;          /* bytes pinned and mapped */
};

/*
 * Why GPU memory cannot be mapped for the CPU here (one line naming
 * GDRCopy, or that it is disabled), NULL when libgdrapi.so.2 loads. Nothing
 * is logged.
 */
const char *gpunetio_gdrcopy_unavailable_reason(void);

/*
 * Pins size bytes of GPU memory at gpu_addr (both multiples of
 * GPUNETIO_GDR_PAGE_SIZE) and maps them for the CPU. NOT_SUPPORTED when
 * GDRCopy or its kernel module is missing, DRIVER when it refuses; logged.
 */
doca_error_t gpunetio_gdr_map(uint64_t gpu_addr, size_t size, struct gpunetio_gdr_map *map);

/* Undoes gpunetio_gdr_map; 0, or GDRCopy's error (logged). */
int gpunetio_gdr_unmap(struct gpunetio_gdr_map *map);

#endif /* GPUNETIO_GDRCOPY_H */
