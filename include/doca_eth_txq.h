/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Ethernet send queues (doca-eth, doca_eth_txq.h): a raw-packet SQ
 * (DevX CREATE_SQ) with its CQ and a TIS, made when the queue's context
 * starts. The GPU data path (doca_gpunetio_dev_eth_txq.cuh, or CPU threads
 * with doca_ctx_set_datapath_on_gpu(ctx, NULL)) takes the queue through
 * doca_eth_txq_get_gpu_handle(). Send WQEs name their buffers by address
 * and mkey (a doca_mmap's, or a doca_buf_arr's).
 */
#ifndef DOCA_ETH_TXQ_H
#define DOCA_ETH_TXQ_H

#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_eth_txq;
struct doca_gpu_eth_txq;

enum doca_eth_txq_type {
    DOCA_ETH_TXQ_TYPE_REGULAR = 0,
};

enum doca_eth_txq_data_path_type {
    DOCA_ETH_TXQ_DATA_PATH_TYPE_CPU = 0,
    DOCA_ETH_TXQ_DATA_PATH_TYPE_GPU = 1,
};

enum doca_eth_wait_on_time_type {
    DOCA_ETH_WAIT_ON_TIME_TYPE_NONE = 0,
    DOCA_ETH_WAIT_ON_TIME_TYPE_NATIVE = 1,
    DOCA_ETH_WAIT_ON_TIME_TYPE_DPDK = 2,
};

/* A queue of max_burst_size send WQEs (rounded up to a power of two). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_create(struct doca_dev *dev, uint32_t max_burst_size,
                                                   struct doca_eth_txq **eth_txq);
/* BAD_STATE while the context is started ("stop the context first": its GPU handle is alive). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_destroy(struct doca_eth_txq *eth_txq);
DOCA_EXPERIMENTAL struct doca_ctx *doca_eth_txq_as_doca_ctx(struct doca_eth_txq *eth_txq);

/* Setters: only while the context is IDLE (BAD_STATE otherwise). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_max_burst_size(struct doca_eth_txq *eth_txq,
                                                               uint32_t max_burst_size);
/* 1 only: the data path sends one buffer per packet. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_max_send_buf_list_len(
        struct doca_eth_txq *eth_txq, uint32_t max_send_buf_list_len);
/* LSO is not provided: NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_mss(struct doca_eth_txq *eth_txq, uint16_t mss);
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_max_lso_header_size(struct doca_eth_txq *eth_txq,
                                                                    uint16_t max_lso_header_size);
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_type(struct doca_eth_txq *eth_txq,
                                                     enum doca_eth_txq_type type);
/*
 * Checksums the NIC computes in every packet sent (the data path puts the
 * flags in each WQE's Ethernet segment). NOT_SUPPORTED at start when the
 * device has no csum_cap.
 */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_l3_chksum_offload(struct doca_eth_txq *eth_txq,
                                                                  uint8_t enable_l3_chksum);
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_l4_chksum_offload(struct doca_eth_txq *eth_txq,
                                                                  uint8_t enable_l4_chksum);
/* Timed sends need the NIC's real-time clock: NOT_SUPPORTED (none here). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_set_wait_on_time_offload(struct doca_eth_txq *eth_txq);
/* As doca_eth_rxq_get_gpu_handle: valid from start to stop, BAD_STATE outside. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_get_gpu_handle(const struct doca_eth_txq *eth_txq,
                                                           struct doca_gpu_eth_txq **eth_txq_ext);

/* Capabilities of a device (the DOCA axis of capability discovery). */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_cap_get_max_burst_size(
        const struct doca_devinfo *devinfo, uint32_t max_send_buf_list_len,
        uint16_t max_lso_header_size, uint32_t *max_burst_size);
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_cap_get_max_send_buf_list_len(
        const struct doca_devinfo *devinfo, uint32_t *max_send_buf_list_len);
/* NOT_SUPPORTED: LSO is not provided. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_cap_get_max_lso_header_size(
        const struct doca_devinfo *devinfo, uint16_t *max_lso_header_size);
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_cap_get_max_lso_msg_size(
        const struct doca_devinfo *devinfo, uint32_t *max_lso_msg_size);
/* SUCCESS, or NOT_SUPPORTED with one line saying why (the DOCA axis). */
DOCA_EXPERIMENTAL doca_error_t
doca_eth_txq_cap_is_type_supported(const struct doca_devinfo *devinfo, enum doca_eth_txq_type type,
                                   enum doca_eth_txq_data_path_type data_path_type);
DOCA_EXPERIMENTAL doca_error_t
doca_eth_txq_cap_is_l3_chksum_offload_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_eth_txq_cap_is_l4_chksum_offload_supported(const struct doca_devinfo *devinfo);
/* NOT_SUPPORTED (no real-time clock); *wait_on_time_mode is NONE. */
DOCA_EXPERIMENTAL doca_error_t doca_eth_txq_cap_get_wait_on_time_offload_supported(
        const struct doca_devinfo *devinfo, enum doca_eth_wait_on_time_type *wait_on_time_mode);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ETH_TXQ_H */
