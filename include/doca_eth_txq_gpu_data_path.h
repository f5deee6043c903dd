/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send-queue settings of the GPU data path (doca_eth_txq_gpu_data_path.h).
 * Only for queues whose context has a GPU data path; while IDLE.
 */
#ifndef DOCA_ETH_TXQ_GPU_DATA_PATH_H
#define DOCA_ETH_TXQ_GPU_DATA_PATH_H

#include "doca_compat.h"
#include "doca_error.h"
#include "doca_gpunetio.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_eth_txq;

/* Where the SQ ring, its CQ and their doorbell records live (GPU, default, or CPU_GPU). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_gpu_set_sq_mem_type(struct doca_eth_txq *eth_txq,
                                                                enum doca_gpu_mem_type sq_mem_type);
/* The data path polls the send completions itself (always so here: accepted). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_gpu_set_completion_on_gpu(struct doca_eth_txq *eth_txq);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ETH_TXQ_GPU_DATA_PATH_H */
