/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Ethernet receive queues (doca-eth, doca_eth_rxq.h): a raw-packet RQ
 * (DevX CREATE_RQ) with its CQ and a direct TIR, made when the queue's
 * context starts. The GPU data path (doca_gpunetio_dev_eth_rxq.cuh, or CPU
 * threads with doca_ctx_set_datapath_on_gpu(ctx, NULL)) takes the queue
 * through doca_eth_rxq_get_gpu_handle().
 *
 * CYCLIC is the one type a GPU data path uses: the packet buffer (a started
 * doca_mmap, doca_eth_rxq_set_pkt_buf) is cut into max_burst_size slots of
 * max_packet_size bytes rounded up to DOCA_ETH_RXQ_PKT_ALIGN, slot i is the
 * buffer of receive WQE i, and the data path gives each WQE back to the NIC
 * once its packet is processed. MANAGED_MEMPOOL and REGULAR are CPU data
 * path types of DOCA's progress-engine API, which this library does not
 * have: both are NOT_SUPPORTED.
 *
 * Traffic reaches the queue through steering: doca_gpunetio_eth_flow.h.
 */
#ifndef DOCA_ETH_RXQ_H
#define DOCA_ETH_RXQ_H

#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_mmap;
struct doca_eth_rxq;
struct doca_gpu_eth_rxq;

enum doca_eth_rxq_type {
    DOCA_ETH_RXQ_TYPE_CYCLIC = 0, /* packets land in a ring of slots (GPU and CPU threads) */
    DOCA_ETH_RXQ_TYPE_MANAGED_MEMPOOL = 1, /* DOCA's CPU progress engine only: NOT_SUPPORTED */
    DOCA_ETH_RXQ_TYPE_REGULAR = 2,         /* DOCA's CPU progress engine only: NOT_SUPPORTED */
};

enum doca_eth_rxq_data_path_type {
    DOCA_ETH_RXQ_DATA_PATH_TYPE_CPU = 0,
    DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU = 1,
};

/* Start and size of each packet slot in the buffer. */
#define DOCA_ETH_RXQ_PKT_ALIGN 64u

/*
 * A queue of max_burst_size packet slots (rounded up to a power of two) of
 * max_packet_size bytes each. The type is CYCLIC by default here (DOCA's
 * default, REGULAR, is not provided).
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_create(struct doca_dev *dev, uint32_t max_burst_size,
                                                   uint32_t max_packet_size,
                                                   struct doca_eth_rxq **eth_rxq);
/*
 * BAD_STATE while the context is started ("stop the context first": its GPU
 * handle is alive); IN_USE while a flow steers to it (destroy the flow first).
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_destroy(struct doca_eth_rxq *eth_rxq);
DOCA_EXPERIMENTAL struct doca_ctx *doca_eth_rxq_as_doca_ctx(struct doca_eth_rxq *eth_rxq);

/* Setters: only while the context is IDLE (BAD_STATE otherwise). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_set_max_burst_size(struct doca_eth_rxq *eth_rxq,
                                                               uint32_t max_burst_size);
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_set_max_packet_size(struct doca_eth_rxq *eth_rxq,
                                                                uint32_t max_packet_size);
/* REGULAR queues only; 1 is the only length a CYCLIC queue takes. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_set_max_recv_buf_list_len(
        struct doca_eth_rxq *eth_rxq, uint32_t max_recv_buf_list_len);
/*
 * The packet buffer: size bytes at offset of mmap (which must be started by
 * doca_ctx_start). INVALID_VALUE when the buffer's address is not
 * DOCA_ETH_RXQ_PKT_ALIGN-aligned or the range is outside the map; at start,
 * INVALID_VALUE when size is below slots x slot size (the line gives both).
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_set_pkt_buf(struct doca_eth_rxq *eth_rxq,
                                                        struct doca_mmap *mmap, uint32_t offset,
                                                        uint32_t size);
/* CYCLIC only: the others are NOT_SUPPORTED (DOCA axis: the line says why). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_set_type(struct doca_eth_rxq *eth_rxq,
                                                     enum doca_eth_rxq_type type);
/* A number naming the queue for steering (the RQ number); BAD_STATE before start. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_get_flow_queue_id(struct doca_eth_rxq *eth_rxq,
                                                              uint16_t *flow_queue_id);
/*
 * The descriptor the data path takes (include/device/impl/gdaki_eth_desc.h):
 * in GPU memory for a GPU data path, in host memory for CPU threads. Valid
 * from doca_ctx_start() to doca_ctx_stop(); BAD_STATE outside.
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_get_gpu_handle(const struct doca_eth_rxq *eth_rxq,
                                                           struct doca_gpu_eth_rxq **eth_rxq_ext);

/* Capabilities of a device (the DOCA axis of capability discovery). */
DOCA_EXPERIMENTAL doca_error_t
doca_eth_rxq_cap_get_max_burst_size(const struct doca_devinfo *devinfo, uint32_t *max_burst_size);
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_cap_get_max_recv_buf_list_len(
        const struct doca_devinfo *devinfo, uint32_t *max_recv_buf_list_len);
DOCA_EXPERIMENTAL doca_error_t
doca_eth_rxq_cap_get_max_packet_size(const struct doca_devinfo *devinfo, uint32_t *max_packet_size);
/* SUCCESS, or NOT_SUPPORTED with one line saying why (the DOCA axis). */
DOCA_EXPERIMENTAL doca_error_t
doca_eth_rxq_cap_is_type_supported(const struct doca_devinfo *devinfo, enum doca_eth_rxq_type type,
                                   enum doca_eth_rxq_data_path_type data_path_type);
/*
 * The packet buffer a CYCLIC queue needs: max_burst_size (rounded up to a
 * power of two) slots of max_packet_size + head_size + tail_size bytes
 * rounded up to DOCA_ETH_RXQ_PKT_ALIGN. rate, pkt_max_time and
 * log_max_lro_pkt_sz (no LRO: 0) do not change it. NOT_SUPPORTED for the
 * other types.
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_rxq_estimate_packet_buf_size(
        enum doca_eth_rxq_type type, uint32_t rate, uint16_t pkt_max_time, uint32_t max_packet_size,
        uint32_t max_burst_size, uint8_t log_max_lro_pkt_sz, uint16_t head_size, uint16_t tail_size,
        uint32_t *buf_size);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ETH_RXQ_H */
