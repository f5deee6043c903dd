/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Definitions of DOCA GPUNetIO's Ethernet device API (DOCA 3.x): the
 * template-argument enumerations of the receive and send calls (names and
 * values as DOCA gives them), the checksum flags of a send WQE, the receive
 * attributes and the ticket type. The queue descriptors themselves
 * (struct doca_gpu_eth_rxq, struct doca_gpu_eth_txq) are this library's
 * own layout, in impl/gdaki_eth_desc.h.
 *
 * Compiles as C11, C++ and CUDA; includes nothing host-only.
 */
#ifndef DOCA_GPUNETIO_ETH_DEF_H
#define DOCA_GPUNETIO_ETH_DEF_H

#include <limits.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The queue descriptors the calls take (impl/gdaki_eth_desc.h). */
struct doca_gpu_eth_rxq;
struct doca_gpu_eth_txq;

/* cs_flags bits of a send WQE's Ethernet segment: the NIC fills the IPv4 / the UDP-TCP checksum. */
#define DOCA_GPUNETIO_ETH_WQE_L3_CSUM (1 << 6)
#define DOCA_GPUNETIO_ETH_WQE_L4_CSUM (1 << 7)

#define DOCA_GPUNETIO_ETH_WARP_SIZE      32
#define DOCA_GPUNETIO_ETH_WARP_FULL_MASK 0xffffffffu

/* first_pkt_idx of a receive that returned no packet. */
#define DOCA_GPUNETIO_ETH_RX_NO_PKT 0xFFFFFFFFFFFFFFFFull

/* A ticket names the send-queue index of the WQE a send posted (poll_completion waits on it). */
typedef uint64_t doca_gpu_dev_eth_ticket_t;
typedef uint64_t doca_gpu_dev_eth_txq_ticket_t; /* the name DOCA's txq header also gives it */

/* Whether a sent packet asks for a completion (NONE: only an error one). */
enum doca_gpu_eth_send_flags {
    DOCA_GPUNETIO_ETH_SEND_FLAG_NONE = 0,
    DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY = 1 << 0,
};

/* Whether poll_completion waits for the completions it asks for (B) or looks once (NB). */
enum doca_gpu_dev_eth_wait_flags {
    DOCA_GPUNETIO_ETH_WAIT_FLAG_NB = 0,
    DOCA_GPUNETIO_ETH_WAIT_FLAG_B = 1,
};

/* Who calls an operation: one thread, a whole warp, or a whole block together. */
enum doca_gpu_dev_eth_exec_scope {
    DOCA_GPUNETIO_ETH_EXEC_SCOPE_THREAD = 0,
    DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP = 1,
    DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK = 2,
};

/* Scope of a memory fence (values equal to the verbs side's). */
enum doca_gpu_dev_eth_sync_scope {
    DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS = 0,
    DOCA_GPUNETIO_ETH_SYNC_SCOPE_GPU = 1,
    DOCA_GPUNETIO_ETH_SYNC_SCOPE_CTA = 2,
    DOCA_GPUNETIO_ETH_SYNC_SCOPE_MAX = INT_MAX,
};

/* Who may use one send queue at a time. */
enum doca_gpu_dev_eth_resource_sharing_mode {
    DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE = 0, /* one thread (or warp, block) */
    DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA = 1,       /* the threads of one block */
    DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU = 2,       /* any thread of the GPU */
    DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_MAX = INT_MAX,
};

/*
 * Who rings the NIC. AUTO: what the queue's descriptor says (the host
 * library resolved it when it built the queue). The values are the verbs
 * side's NIC handler flags (CPU proxy 1, GPU SM doorbell 2).
 */
enum doca_gpu_dev_eth_nic_handler {
    DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO = 0,
    DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY = 1,
    DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB = 2,
    DOCA_GPUNETIO_ETH_NIC_HANDLER_TYPE_MAX,
};

/* What poll_completion looks at: every CQE of the range, or only the last one. */
enum doca_gpu_dev_eth_cq_poll_mode {
    DOCA_GPUNETIO_ETH_CQ_POLL_ALL = 0,
    DOCA_GPUNETIO_ETH_CQ_POLL_LAST = 1,
};

/*
 * Memory consistency of received packets in GPU memory (DOCA: a Dump WQE
 * after a batch). This implementation needs none: accepted and ignored.
 */
enum doca_gpu_dev_eth_mcst_mode {
    DOCA_GPUNETIO_ETH_MCST_DISABLED = 0,
    DOCA_GPUNETIO_ETH_MCST_ENABLED = 1,
    DOCA_GPUNETIO_ETH_MCST_AUTO = 2,
};

/* Which attributes a receive writes for each packet. */
enum doca_gpu_dev_eth_rxq_attr_type {
    DOCA_GPUNETIO_ETH_RX_ATTR_NONE = 0, /* none (attr may be NULL) */
    DOCA_GPUNETIO_ETH_RX_ATTR_TS = 1,   /* timestamp_ns only */
    DOCA_GPUNETIO_ETH_RX_ATTR_ALL = 2,  /* timestamp_ns and bytes */
};

/* What a receive says of one packet (attr[i] for packet first_pkt_idx + i). */
struct doca_gpu_dev_eth_rxq_attr {
    uint64_t timestamp_ns; /* the CQE's timestamp */
    uint32_t bytes;        /* the frame's length */
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_ETH_DEF_H */
