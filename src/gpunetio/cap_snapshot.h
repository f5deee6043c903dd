/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a capability snapshot inside the project (the doctor prints one member per line). */
#ifndef GPUNETIO_CAP_SNAPSHOT_H
#define GPUNETIO_CAP_SNAPSHOT_H

#include "doca_error.h"

/* Version of the snapshot's format, its "snapshot_version" member. */
#define CAP_SNAPSHOT_VERSION 1

/*
 * Calls fn once for each member of a snapshot that dgn_cap_snapshot wrote,
 * in order, with its flattened path ("doca.devices.mlx5_0.rxq.cyclic.gpu")
 * and its value as written (strings keep their quotes). INVALID_VALUE (and
 * one log line) for a text that is not such a snapshot, NO_MEMORY.
 */
doca_error_t cap_snapshot_each(const char *json,
                               void (*fn)(const char *path, const char *value, void *arg),
                               void *arg);

#endif /* GPUNETIO_CAP_SNAPSHOT_H */
