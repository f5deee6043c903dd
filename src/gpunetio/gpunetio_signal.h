/* SPDX-License-Identifier: BSD-3-Clause */
/* What the service (service.c) uses of a signal map (signal_map.c). */
#ifndef GPUNETIO_SIGNAL_H
#define GPUNETIO_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "doca_gpunetio_signal.h"

/* Marks the map attached to a service (IN_USE if it already is), or detached. */
doca_error_t gpunetio_signal_attach(struct doca_gpu_verbs_signal_map *map, bool attach);

/*
 * Applies one signal immediate (host order): its value added to its id's
 * running total, written to a slot in host memory at once; a slot in GPU
 * memory is written by the next gpunetio_signal_flush. An unknown id or
 * operation is dropped, counted and logged once per map.
 */
void gpunetio_signal_apply(struct doca_gpu_verbs_signal_map *map, uint32_t imm);

/*
 * Writes the GPU slots that signals changed since the last flush: one CUDA
 * copy per run of adjacent slots. The service calls it after each batch it
 * drains, before the batch's receive WQEs go back. map may be NULL.
 */
void gpunetio_signal_flush(struct doca_gpu_verbs_signal_map *map);

#endif /* GPUNETIO_SIGNAL_H */
