/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-queue settings of the GPU data path (doca_eth_rxq_gpu_data_path.h).
 * Only for queues whose context has a GPU data path; while IDLE.
 */
#ifndef DOCA_ETH_RXQ_GPU_DATA_PATH_H
#define DOCA_ETH_RXQ_GPU_DATA_PATH_H

#include "doca_compat.h"
#include "doca_error.h"
#include "doca_gpunetio.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_eth_rxq;

/*
 * Where the RQ ring, its CQ and their doorbell records live:
 * DOCA_GPU_MEM_TYPE_GPU (default) or DOCA_GPU_MEM_TYPE_CPU_GPU (pinned host
 * memory the GPU maps, for platforms without GPUDirect RDMA).
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_gpu_set_rq_mem_type(struct doca_eth_rxq *eth_rxq,
                                                                enum doca_gpu_mem_type rq_mem_type);
/* The memory-consistency ("dump") QP of pre-Hopper GPUs: NOT_SUPPORTED here. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_gpu_enable_mcst_qp(struct doca_eth_rxq *eth_rxq);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ETH_RXQ_GPU_DATA_PATH_H */
