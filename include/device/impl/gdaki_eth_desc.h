/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet queue descriptors the data-path core reads (struct
 * doca_gpu_eth_rxq, struct doca_gpu_eth_txq: what doca_eth_rxq_get_gpu_handle
 * and doca_eth_txq_get_gpu_handle return) and the host-side setters that
 * fill them: the one place that turns an RQ, an SQ and their CQs into
 * descriptor fields. The host library fills a descriptor only through the
 * setters, then copies it to GPU memory (kernels) or keeps it in host memory
 * (CPU threads run the core).
 *
 * Layout: this library's own (DOCA's field names where they mean the same),
 * recorded in layout_version and layout_size. Each descriptor is split in
 * 128-byte lines by who writes them, so that the line every call loads is
 * never the one another agent keeps writing:
 *   rxq: 1. read-only after the setter;
 *        2. the receiver's state and counters (one receiving thread, warp
 *           or block at a time writes them; a kernel may read the counters).
 *   txq: 1. read-only after the setter;
 *        2. the producers' state (slots handed out, written, published)
 *           and their counters (packets, bytes sent);
 *        3. the completion poller's state and counters (CQEs consumed,
 *           WQEs known done, errors).
 *
 * The receive queue is cyclic (DOCA's semantics): the host posts every WQE
 * once, WQE i pointing at packet slot i (pkt_daddr + i * pkt_stride), and
 * writes wqe_num to the RQ doorbell record. The WQEs of the packets a
 * receive returns go back to the NIC when the next receive starts (RQ
 * doorbell record = packets consumed + wqe_num), so a returned packet stays
 * valid until then (gdaki_eth_rxq.h).
 *
 * Compiles as C11, C++ and CUDA; includes nothing host-only.
 */
#ifndef DOCA_GPUNETIO_IMPL_ETH_DESC_H
#define DOCA_GPUNETIO_IMPL_ETH_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "../doca_gpunetio_eth_def.h"
#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_platform.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    GDAKI_ETH_DESC_LINE = 128,  /* bytes: a GPU L1/L2 cache line */
    GDAKI_ETH_RQ_WQE_SIZE = 16, /* bytes of a receive WQE: one data segment */
};

/* What the core records of the first error CQE it meets on a queue (written once). */
struct gdaki_eth_err {
    uint32_t has_error; /* 0 none, 2 being recorded, 1 recorded */
    uint8_t syndrome;
    uint8_t vendor_err_synd;
    uint8_t hw_err_synd;
    uint8_t opcode; /* the CQE's opcode (REQ_ERR 0xd, RESP_ERR 0xe) */
    uint32_t wqe_counter;
    uint32_t reserved;
};

/* Per-queue counters a kernel (or the host, for a descriptor in host memory) may read. */
struct gdaki_eth_counters {
    uint64_t pkts;        /* rxq: packets returned by receives; txq: packets posted */
    uint64_t bytes;       /* rxq: bytes of those packets; txq: bytes posted */
    uint64_t completions; /* CQEs consumed (rxq: one a packet, errors included) */
    uint64_t errors;      /* error CQEs consumed */
};

struct doca_gpu_eth_rxq {
    /* Line 1: read-only after gdaki_eth_desc_set_rxq. */
    uint8_t *pkt_daddr;      /* packet slot 0, as the executing processor addresses it */
    uint8_t *wqe_daddr;      /* RQ ring: wqe_num WQEs of GDAKI_ETH_RQ_WQE_SIZE bytes */
    gdaki_be32_t *rq_dbrec;  /* RQ doorbell record (receive counter) */
    uint8_t *cqe_daddr;      /* CQ ring: cqe_num CQEs of 64 bytes */
    gdaki_be32_t *cq_dbrec;  /* CQ doorbell record (consumer counter) */
    uint64_t pkt_num;        /* packet slots, = wqe_num */
    uint32_t pkt_stride;     /* bytes from one slot to the next (a frame's maximum size) */
    gdaki_be32_t pkt_mkey;   /* memory key of the packet buffer, big-endian */
    uint32_t wqe_num;        /* a power of two */
    uint32_t wqe_mask;       /* wqe_num - 1 */
    uint32_t rq_num;         /* RQ number */
    uint32_t cqe_num;        /* 1 << cqe_log_num */
    uint32_t cqe_mask;       /* cqe_num - 1 */
    uint32_t cqe_log_num;    /* log2 of the CQ's entries (the owner bit's lap) */
    uint32_t cq_num;         /* CQ number */
    uint32_t mem_type;       /* enum doca_gpu_dev_verbs_mem_type of the rings and packets */
    uint32_t nic_scope;      /* enum doca_gpu_dev_verbs_sync_scope of the doorbell record fences */
    uint32_t layout_version; /* DOCA_GPUNETIO_DEVICE_CODE_VERSION of the library that set it */
    uint32_t layout_size;    /* sizeof(struct doca_gpu_eth_rxq) there */
    uint8_t reserved0[GDAKI_ETH_DESC_LINE - 100];

    /* Line 2: the receiver's state (one thread, warp or block at a time). */
    uint64_t cqe_ci; /* CQEs consumed = number of the next packet */
    uint64_t wqe_pi; /* WQEs handed to the NIC (the RQ doorbell record's value) */
    struct gdaki_eth_err err;
    struct gdaki_eth_counters counters;
    uint8_t reserved1[GDAKI_ETH_DESC_LINE - 16 - sizeof(struct gdaki_eth_err) -
                      sizeof(struct gdaki_eth_counters)];
};

GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_eth_rxq, cqe_ci) == GDAKI_ETH_DESC_LINE,
                    "the receiver's state starts the rxq descriptor's second line");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpu_eth_rxq) == 2 * GDAKI_ETH_DESC_LINE,
                    "an rxq descriptor is two cache lines");

struct doca_gpu_eth_txq {
    /* Line 1: read-only after gdaki_eth_desc_set_txq. */
    uint8_t *wqe_daddr;                /* SQ ring: wqe_num 64-byte basic blocks (one a packet) */
    gdaki_be32_t *sq_dbrec;            /* SQ doorbell record (send counter) */
    uint64_t *sq_db;                   /* UAR doorbell register (NULL under a CPU proxy) */
    uint64_t *cpu_proxy_pi;            /* CPU proxy: host word the producer index is published in */
    uint8_t *cqe_daddr;                /* CQ ring: cqe_num CQEs of 64 bytes */
    gdaki_be32_t *cq_dbrec;            /* CQ doorbell record (consumer counter) */
    uint32_t wqe_num;                  /* a power of two */
    uint32_t wqe_mask;                 /* wqe_num - 1 */
    uint32_t sq_num;                   /* SQ number */
    gdaki_be32_t sq_num_shift8_be;     /* htobe32(sq_num << 8): the doorbell's qpn_ds */
    gdaki_be32_t sq_num_shift8_be_3ds; /* control segment qpn_ds of a send: ctrl, eth, data */
    uint32_t cqe_num;                  /* 1 << cqe_log_num */
    uint32_t cqe_mask;                 /* cqe_num - 1 */
    uint32_t cqe_log_num;              /* log2 of the CQ's entries */
    uint32_t cq_num;                   /* CQ number */
    uint32_t nic_handler;    /* enum doca_gpu_dev_eth_nic_handler, resolved (never AUTO) */
    uint32_t cs_flags;       /* Ethernet segment cs_flags (DOCA_GPUNETIO_ETH_WQE_L3/L4_CSUM) */
    uint32_t mem_type;       /* enum doca_gpu_dev_verbs_mem_type of the rings */
    uint32_t nic_scope;      /* enum doca_gpu_dev_verbs_sync_scope of the NIC fences */
    uint32_t layout_version; /* DOCA_GPUNETIO_DEVICE_CODE_VERSION of the library that set it */
    uint32_t layout_size;    /* sizeof(struct doca_gpu_eth_txq) there */
    uint8_t reserved0[GDAKI_ETH_DESC_LINE - 108];

    /* Line 2: the producers' state, only ever growing. */
    uint64_t sq_rsvd_index;  /* slots handed out (atomic add) */
    uint64_t sq_ready_index; /* every WQE below it is written (in order) */
    uint64_t sq_wqe_pi;      /* producer index last published to the NIC or the proxy */
    int sq_lock;             /* held while publishing */
    uint32_t reserved1;
    uint64_t pkts;  /* packets posted */
    uint64_t bytes; /* bytes posted */
    uint8_t reserved2[GDAKI_ETH_DESC_LINE - 48];

    /* Line 3: the completion poller's state. */
    uint64_t cqe_ci;   /* CQEs consumed */
    uint64_t wqe_done; /* WQEs the NIC is known to be done with (their slots are free) */
    int cq_lock;       /* held while polling (shared queues) */
    uint32_t reserved3;
    struct gdaki_eth_err err;
    uint64_t completions; /* CQEs consumed, errors included */
    uint64_t errors;      /* error CQEs consumed */
    uint8_t reserved4[GDAKI_ETH_DESC_LINE - 40 - sizeof(struct gdaki_eth_err)];
};

GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_eth_txq, sq_rsvd_index) == GDAKI_ETH_DESC_LINE,
                    "the producers' state starts the txq descriptor's second line");
GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_eth_txq, cqe_ci) == 2 * GDAKI_ETH_DESC_LINE,
                    "the poller's state starts the txq descriptor's third line");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpu_eth_txq) == 3 * GDAKI_ETH_DESC_LINE,
                    "a txq descriptor is three cache lines");

/*
 * The scope whose release fences order the core's stores for the NIC
 * (nic_scope): GPU only when a GPU rings the NIC itself and what the NIC
 * reads on the doorbell (ring, doorbell record) is in GPU memory; SYS
 * otherwise (host memory, a CPU proxy, CPU threads). rxq: handler
 * GPU_SM_DB, ring_in_gpu = the doorbell record's memory.
 */
GDAKI_INLINE enum doca_gpu_dev_verbs_sync_scope
gdaki_eth_desc_nic_scope(int gpu_executor, enum doca_gpu_dev_eth_nic_handler handler,
                         int ring_in_gpu, int dbr_in_gpu)
{
    if (!gpu_executor || handler != DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB || !ring_in_gpu ||
        !dbr_in_gpu)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
}

/*
 * The receive queue, all of it (the descriptor is zeroed first):
 *   wqe_ring, wqe_num, rq_num, rq_dbrec: the cyclic RQ of wqe_num (a power of
 *     two) one-segment WQEs, WQE i posted by the host for packet slot i, and
 *     its doorbell record, which the host has set to wqe_num;
 *   cqe_ring, cq_log_size, cq_num, cq_dbrec: its CQ (fresh: every entry's
 *     opcode INVALID, as rdma-core leaves a new CQ; CQE k is valid when its
 *     owner bit is (k >> cq_log_size) & 1), its doorbell record;
 *   pkt_base, pkt_stride, pkt_num, pkt_mkey: the packet buffer as the
 *     executing processor addresses it, slot size, slots (= wqe_num), lkey
 *     (host order);
 *   mem_type: where rings and packets are; nic_scope: gdaki_eth_desc_nic_scope.
 * All addresses as the processor running the core addresses them.
 */
GDAKI_INLINE void gdaki_eth_desc_set_rxq(struct doca_gpu_eth_rxq *d, uint8_t *wqe_ring,
                                         uint32_t wqe_num, uint32_t rq_num, gdaki_be32_t *rq_dbrec,
                                         uint8_t *cqe_ring, uint32_t cq_log_size, uint32_t cq_num,
                                         gdaki_be32_t *cq_dbrec, uint8_t *pkt_base,
                                         uint32_t pkt_stride, uint32_t pkt_num, uint32_t pkt_mkey,
                                         enum doca_gpu_dev_verbs_mem_type mem_type,
                                         enum doca_gpu_dev_verbs_sync_scope nic_scope)
{
    uint8_t *p = (uint8_t *)d;

    for (size_t i = 0; i < sizeof(*d); i++)
        p[i] = 0;
    d->pkt_daddr = pkt_base;
    d->wqe_daddr = wqe_ring;
    d->rq_dbrec = rq_dbrec;
    d->cqe_daddr = cqe_ring;
    d->cq_dbrec = cq_dbrec;
    d->pkt_num = pkt_num;
    d->pkt_stride = pkt_stride;
    d->pkt_mkey = gdaki_htobe32(pkt_mkey);
    d->wqe_num = wqe_num;
    d->wqe_mask = wqe_num - 1;
    d->rq_num = rq_num;
    d->cqe_num = 1u << cq_log_size;
    d->cqe_mask = d->cqe_num - 1;
    d->cqe_log_num = cq_log_size;
    d->cq_num = cq_num;
    d->mem_type = (uint32_t)mem_type;
    d->nic_scope = (uint32_t)nic_scope;
    d->layout_version = DOCA_GPUNETIO_DEVICE_CODE_VERSION;
    d->layout_size = (uint32_t)sizeof(*d);
    d->cqe_ci = 0;
    d->wqe_pi = wqe_num; /* the host posted them all */
}

/*
 * The send queue, all of it (the descriptor is zeroed first):
 *   wqe_ring, wqe_num, sq_num, sq_dbrec: the cyclic SQ of wqe_num (a power of
 *     two) 64-byte basic blocks, one a packet, and its doorbell record;
 *   sq_db, handler, cpu_proxy_pi: GPU_SM_DB: the core writes the UAR
 *     doorbell register sq_db itself; CPU_PROXY: it publishes the producer
 *     index in the host word cpu_proxy_pi and a CPU thread rings (sq_db may
 *     be NULL). Never AUTO;
 *   cqe_ring, cq_log_size, cq_num, cq_dbrec: its CQ (fresh, as for the rxq)
 *     and its doorbell record; at least wqe_num entries;
 *   cs_flags: DOCA_GPUNETIO_ETH_WQE_L3_CSUM / _L4_CSUM for every packet (the
 *     queue's checksum offloads);
 *   mem_type: where the rings are; nic_scope: gdaki_eth_desc_nic_scope.
 */
GDAKI_INLINE void gdaki_eth_desc_set_txq(struct doca_gpu_eth_txq *d, uint8_t *wqe_ring,
                                         uint32_t wqe_num, uint32_t sq_num, gdaki_be32_t *sq_dbrec,
                                         uint64_t *sq_db, enum doca_gpu_dev_eth_nic_handler handler,
                                         uint64_t *cpu_proxy_pi, uint8_t *cqe_ring,
                                         uint32_t cq_log_size, uint32_t cq_num,
                                         gdaki_be32_t *cq_dbrec, uint32_t cs_flags,
                                         enum doca_gpu_dev_verbs_mem_type mem_type,
                                         enum doca_gpu_dev_verbs_sync_scope nic_scope)
{
    uint8_t *p = (uint8_t *)d;

    for (size_t i = 0; i < sizeof(*d); i++)
        p[i] = 0;
    d->wqe_daddr = wqe_ring;
    d->sq_dbrec = sq_dbrec;
    d->sq_db = sq_db;
    d->cpu_proxy_pi = cpu_proxy_pi;
    d->cqe_daddr = cqe_ring;
    d->cq_dbrec = cq_dbrec;
    d->wqe_num = wqe_num;
    d->wqe_mask = wqe_num - 1;
    d->sq_num = sq_num;
    d->sq_num_shift8_be = gdaki_htobe32(sq_num << 8);
    d->sq_num_shift8_be_3ds = gdaki_htobe32((sq_num << 8) | 3);
    d->cqe_num = 1u << cq_log_size;
    d->cqe_mask = d->cqe_num - 1;
    d->cqe_log_num = cq_log_size;
    d->cq_num = cq_num;
    d->nic_handler = (uint32_t)handler;
    d->cs_flags = cs_flags & (DOCA_GPUNETIO_ETH_WQE_L3_CSUM | DOCA_GPUNETIO_ETH_WQE_L4_CSUM);
    d->mem_type = (uint32_t)mem_type;
    d->nic_scope = (uint32_t)nic_scope;
    d->layout_version = DOCA_GPUNETIO_DEVICE_CODE_VERSION;
    d->layout_size = (uint32_t)sizeof(*d);
}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_IMPL_ETH_DESC_H */
