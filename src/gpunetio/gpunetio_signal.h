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
 * running total, written to the slot. An unknown id or operation is
 * dropped, counted and logged once per map.
 */
void gpunetio_signal_apply(struct doca_gpu_verbs_signal_map *map, uint32_t imm);

#endif /* GPUNETIO_SIGNAL_H */
