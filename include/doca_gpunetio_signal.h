/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank-local signal maps (DOCA GPUNetIO 5.0's doca_gpunetio_signal.h): a
 * map from signal ids to 8-byte slots owned by the application. An RDMA
 * write with immediate whose immediate is a signal
 * (DOCA_GPUNETIO_VERBS_SIGNAL_IMM_* in doca_gpunetio_verbs_def.h; sent by
 * doca_gpu_dev_verbs_put_immediate) reaching a QP that a service monitors
 * adds its value to its id's slot: the service drains the QP's receive CQ,
 * keeps each slot's running total and writes it to the slot, and returns
 * the receive WQE to the NIC (doca_gpu_verbs_service_set_signal_map).
 *
 * Slots: GPU memory (cudaMalloc), pinned host memory mapped for the GPU, or
 * host memory when the data path runs on CPU threads. The service writes a
 * host slot with a store; a GPU slot with a CUDA copy (GDRCopy, which would
 * let it store into GPU memory, is not used: one INFO line says so), so a
 * slot in pinned host memory is the fast choice where no GDRCopy is.
 * Delivery assumes one writer per slot (the service); no call is
 * thread-safe against another on the same map.
 */
#ifndef DOCA_GPUNETIO_SIGNAL_H
#define DOCA_GPUNETIO_SIGNAL_H

#include <stdint.h>

#include "doca_gpunetio.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Signal ids are 0 .. DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS - 1. */
#define DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS \
    (DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_MASK + UINT32_C(1))
#define DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE 8

typedef uint64_t doca_gpu_verbs_signal_value_t;

struct doca_gpu_verbs_signal_map;

/*
 * An empty map. The CUDA context current on the calling thread (if any) is
 * the one GPU slots are written through. INVALID_VALUE (NULL), NO_MEMORY.
 */
DOCA_STABLE doca_error_t
doca_gpu_verbs_signal_map_create(struct doca_gpu_verbs_signal_map **out_map);
/*
 * Binds sig_id to the 8-byte slot at gpu_addr (8-byte aligned) and zeroes
 * the slot. INVALID_VALUE (NULL, sig_id out of range, misaligned), IN_USE
 * (sig_id or the slot already registered, or the map attached to a
 * service), NO_MEMORY, DRIVER (the slot could not be zeroed).
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_signal_register(struct doca_gpu_verbs_signal_map *map,
                                                        uint32_t sig_id,
                                                        doca_gpu_verbs_signal_value_t *gpu_addr);
/*
 * Registers num_signals ids from first_sig_id to consecutive slots from
 * gpu_addr: id first_sig_id + i to gpu_addr + i. All or none: on an error
 * the ids registered by this call are unregistered again.
 */
DOCA_STABLE doca_error_t
doca_gpu_verbs_signal_register_range(struct doca_gpu_verbs_signal_map *map, uint32_t first_sig_id,
                                     uint32_t num_signals, doca_gpu_verbs_signal_value_t *gpu_addr);
/* INVALID_VALUE, IN_USE (attached), NOT_FOUND (not registered). */
DOCA_STABLE doca_error_t doca_gpu_verbs_signal_unregister(struct doca_gpu_verbs_signal_map *map,
                                                          uint32_t sig_id);
/*
 * Sets the signal's running total and its slot to 0 (no delivery for it
 * may be in flight). INVALID_VALUE, NOT_FOUND, DRIVER.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_signal_reset(struct doca_gpu_verbs_signal_map *map,
                                                     uint32_t sig_id);
/* Only an empty, detached map: IN_USE (attached), BAD_STATE (ids still registered). */
DOCA_STABLE doca_error_t doca_gpu_verbs_signal_map_destroy(struct doca_gpu_verbs_signal_map *map);

/*
 * The map the service applies the signal immediates of its QPs' receive
 * CQs to (NULL: none; immediates are then dropped, counted, one line
 * logged). A map is attached to one service at a time (IN_USE); while
 * attached it cannot be changed (register, unregister, destroy: IN_USE).
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_service_set_signal_map(
        doca_gpu_verbs_service_t service, struct doca_gpu_verbs_signal_map *map);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_SIGNAL_H */
