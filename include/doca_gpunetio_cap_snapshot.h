/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capability snapshot: both axes of capability discovery in one record.
 * A feature of GPU-initiated networking works only where the NIC side (a
 * DOCA capability query against the device) and the GPU side (the CUDA
 * device's properties) both allow it. The snapshot records, as JSON:
 *
 *  - "doca": for each RDMA device, the answers of the doca-eth capability
 *    queries (doca_eth_rxq_cap_is_type_supported and
 *    doca_eth_txq_cap_is_type_supported for every queue type and data path,
 *    and the cap_get_* sizes and offloads);
 *  - "cuda": the CUDA driver's version and, for each GPU, the device
 *    properties GPU-initiated networking depends on (compute capability,
 *    dma-buf, GPUDirect RDMA and its write ordering, host memory mapping).
 *
 * Save one at configure time; when a call later answers
 * DOCA_ERROR_NOT_SUPPORTED, take another and compare the two: the
 * difference names the axis that changed (doca-gpunetio-doctor --snapshot
 * FILE and --compare FILE do both).
 *
 * The text starts with "snapshot_version": 1, the version of this format.
 *
 * Not part of DOCA: an addition of this library, hence the dgn_ prefix.
 */
#ifndef DOCA_GPUNETIO_CAP_SNAPSHOT_H
#define DOCA_GPUNETIO_CAP_SNAPSHOT_H

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Takes a snapshot of this machine: *json_out is a NUL-terminated JSON text
 * the caller frees with free(). Never fails because an axis is missing: a
 * machine without rdma-core or without a CUDA driver gets an "available":
 * false member naming why. Errors: INVALID_VALUE (NULL json_out),
 * NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t dgn_cap_snapshot(char **json_out);

/*
 * Compares two snapshots (the text of an earlier one and of a later one,
 * both as dgn_cap_snapshot writes them): *report_out lists, one line each,
 * every capability that changed ("changed doca.mlx5_0.rxq.cyclic.gpu:
 * "supported" -> "DOCA_ERROR_NOT_SUPPORTED""), appeared ("new ...") or went
 * away ("gone ..."), and is "" when nothing did; the caller frees it with
 * free(). Errors: INVALID_VALUE (NULL argument, or a text that is not a
 * snapshot of this version: the log line gives the line and what was
 * wrong), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t dgn_cap_snapshot_compare(const char *before, const char *after,
                                                        char **report_out);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_CAP_SNAPSHOT_H */
