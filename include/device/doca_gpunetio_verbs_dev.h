/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path types of DOCA GPUNetIO's device API: tickets, remote
 * addresses, the WQE basic block with DOCA's named segment views, the
 * masked-atomic segments, and the QP and CQ descriptors that
 * doca_gpu_verbs_export_qp() builds and the device code drives.
 *
 * The descriptors keep DOCA's field names where DOCA's kernels read them
 * (sq_wqe_pi, sq_rsvd_index, cq_sq.cqe_ci, ...); their layout is this
 * library's own, recorded in layout_version and layout_size.
 *
 * Compiles as C11, C++ and CUDA; includes nothing host-only.
 */
#ifndef DOCA_GPUNETIO_VERBS_DEV_H
#define DOCA_GPUNETIO_VERBS_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

/* Last: the public header above removes it at its end. */
#include "impl/gdaki_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A ticket names the SQ index of the last WQE an operation posted; wait() polls the CQ for it. */
typedef uint64_t doca_gpu_dev_verbs_ticket_t;

/* Remote or local memory: an address and its memory key, big-endian (htobe32(mr->rkey)). */
struct doca_gpu_dev_verbs_addr {
    uint64_t addr;
    __be32 key;
};

/* The atomic segments of the masked (extended) atomics, by operand size. */
typedef struct {
    uint32_t add_data;
    uint32_t field_boundary;
    uint64_t reserved;
} __attribute__((__packed__)) doca_gpu_dev_verbs_atomic_32_masked_fa_seg_t;

typedef struct {
    uint64_t add_data;
    uint64_t field_boundary;
} __attribute__((__packed__)) doca_gpu_dev_verbs_atomic_64_masked_fa_seg_t;

typedef struct {
    uint32_t swap_data;
    uint32_t compare_data;
    uint32_t swap_mask;
    uint32_t compare_mask;
} __attribute__((__packed__)) doca_gpu_dev_verbs_atomic_32_masked_cs_seg_t;

/* Used twice by an 8-byte masked compare-and-swap: the data, then the masks. */
typedef struct {
    uint64_t swap;
    uint64_t compare;
} __attribute__((__packed__)) doca_gpu_dev_verbs_atomic_64_masked_cs_seg_t;

/* A 64-byte WQE basic block, with the views DOCA's WQE builders write through. */
struct __attribute__((__aligned__(8))) doca_gpu_dev_verbs_wqe {
    union {
        uint8_t inl_data[64];
        struct {
            struct doca_gpunetio_ib_mlx5_wqe_data_seg dseg0;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg dseg1;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg dseg2;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg dseg3;
        };
        struct { /* RDMA write and read */
            struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg rw_cseg;
            struct doca_gpunetio_ib_mlx5_wqe_raddr_seg rw_rseg;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg rw_dseg0;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg rw_dseg1;
        };
        struct { /* atomic */
            struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg at_cseg;
            struct doca_gpunetio_ib_mlx5_wqe_raddr_seg at_rseg;
            struct doca_gpunetio_ib_mlx5_wqe_atomic_seg at_seg;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg at_dseg;
        };
        struct { /* send */
            struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg snd_cseg;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg snd_dseg0;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg snd_dseg1;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg snd_dseg2;
        };
        struct { /* wait */
            struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg wait_cseg;
            struct doca_gpunetio_ib_mlx5_wqe_wait_seg wait_dseg;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg padding0;
            struct doca_gpunetio_ib_mlx5_wqe_data_seg padding1;
        };
    };
};

GDAKI_STATIC_ASSERT(sizeof(struct doca_gpu_dev_verbs_wqe) == 64, "a WQE basic block is 64 bytes");

/*
 * What the data path records of the first error CQE it meets on a CQ (host:
 * doca_gpu_verbs_query_last_error). Written once, under has_error's 0 -> 1
 * compare-and-swap.
 */
struct doca_gpu_dev_verbs_qp_err {
    uint32_t has_error;
    uint8_t syndrome;
    uint8_t vendor_err_synd;
    uint8_t hw_err_synd;
    uint8_t hw_synd_type;
    uint32_t wqe_counter;
    uint32_t reserved;
};

/*
 * A completion queue as the data path sees it. Every WQE the data path
 * posts asks for a CQE and takes one basic block, so CQE number i completes
 * WQE number i: the CQ has as many entries as the SQ has basic blocks, or one
 * when collapsed (the NIC writes every CQE to entry 0). The NIC may overrun
 * it (created with overrun ignored): the data path matches CQEs to WQEs by
 * their wqe_counter, not by consuming them in order.
 */
struct doca_gpu_dev_verbs_cq {
    uint8_t *cqe_daddr; /* the ring, as the executing processor addresses it */
    uint32_t cqe_num;   /* entries (a power of two; 1 when collapsed) */
    uint32_t cqe_mask;  /* cqe_num - 1 */
    uint32_t cq_num;    /* CQ number (WAIT WQEs name it) */
    uint32_t collapsed; /* 1: every CQE lands in entry 0 */
    __be32 *dbrec;      /* consumer-index doorbell record */
    uint32_t mem_type;  /* enum doca_gpu_dev_verbs_mem_type of the ring */
    uint8_t cqe_size;   /* bytes of a CQE: 64 */
    uint8_t cq_type;    /* enum doca_gpu_dev_verbs_cq_type, never UNKNOWN */
    uint8_t reserved1[2];
    uint64_t cqe_ci;   /* completions consumed (raised by the polls) */
    uint64_t cqe_rsvd; /* ring offset of consumer index 0 (always 0 here) */
    struct doca_gpu_dev_verbs_qp_err err;
    /*
     * Entry of CQE number 0: where the NIC's next CQE was to go when the
     * QP was exported or its tracking reset (the NIC's producer does not
     * restart with a QP); CQE number i is in entry (cqe_base + i) & cqe_mask.
     */
    uint32_t cqe_base;
    /* The owner bit the NIC gives the CQE it writes to entry cqe_base (it flips every lap). */
    uint32_t cqe_base_owner;
};

/*
 * A send queue as the data path sees it: built by doca_gpu_verbs_export_qp()
 * in memory the executing processor reaches (GPU memory for kernels, host
 * memory for CPU threads). Six cache lines, so that writing one does not
 * evict what every operation loads from another:
 *   1. the SQ's fields, read-only after export;
 *   2. its CQ, whose consumer state the polls advance;
 *   3. the counters the threads using the QP share, only ever growing:
 *      sq_rsvd_index  slots handed out by reserve_wq_slots (atomic add);
 *      sq_ready_index every WQE below it is written (mark_wqes_ready, in order);
 *      sq_wqe_pi      producer index last published to the NIC or the proxy
 *                     (under sq_lock, so it never moves backwards);
 *    and, written under sq_lock too, sq_bf_next;
 *   4-6. the same three for the receive queue (rq_wqe_num 0 when the QP was
 *      exported without one for the data path): its fields, its receive CQ
 *      (cq_rq) and its counters, rq_wqe_pi being the count of receive WQEs
 *      handed to the NIC through the doorbell record's receive counter.
 * sq_nic_scope: GPU when the ring and the doorbell record are in GPU memory
 * and the data path rings the NIC itself. The NIC reads GPU memory through
 * the GPU's L2, the point where GPU-scope stores are ordered, so a
 * GPU-scope release orders them for it too. SYS otherwise: host memory,
 * which the NIC reads without passing the L2, or a CPU proxy.
 */
#define DOCA_GPUNETIO_VERBS_QP_LINE 128 /* bytes: a GPU L1/L2 cache line */

struct doca_gpu_dev_verbs_qp {
    uint8_t *sq_wqe_daddr;       /* ring of sq_wqe_num 64-byte basic blocks */
    uint32_t sq_wqe_num;         /* a power of two, at most DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM */
    uint32_t sq_wqe_mask;        /* sq_wqe_num - 1 */
    uint32_t sq_num;             /* QP number */
    uint32_t sq_num_shift8;      /* sq_num << 8 */
    __be32 sq_num_shift8_be;     /* htobe32(sq_num << 8): the control segment's qpn_ds */
    __be32 sq_num_shift8_be_1ds; /* the same with a DS count of 1 ... 5 */
    __be32 sq_num_shift8_be_2ds;
    __be32 sq_num_shift8_be_3ds;
    __be32 sq_num_shift8_be_4ds;
    __be32 sq_num_shift8_be_5ds;
    uint32_t nic_handler;    /* enum doca_gpu_dev_verbs_nic_handler, resolved (never AUTO) */
    uint32_t mem_type;       /* enum doca_gpu_dev_verbs_mem_type of the ring */
    __be32 *sq_dbrec;        /* send word of the doorbell record (NULL without one) */
    uint64_t *sq_db;         /* UAR doorbell / BlueFlame register (NULL under a proxy) */
    uint64_t *cpu_proxy_pi;  /* host word of the producer index: proxy, emulated no-DBR record */
    uint32_t sq_nic_scope;   /* enum doca_gpu_dev_verbs_sync_scope of the NIC fences */
    uint32_t layout_version; /* DOCA_GPUNETIO_DEVICE_CODE_VERSION of the exporting library */
    uint32_t layout_size;    /* sizeof(struct doca_gpu_dev_verbs_qp) there */
    uint8_t reserved0[DOCA_GPUNETIO_VERBS_QP_LINE - 92];

    /* Second line. */
    struct doca_gpu_dev_verbs_cq cq_sq;
    uint8_t reserved1[DOCA_GPUNETIO_VERBS_QP_LINE - sizeof(struct doca_gpu_dev_verbs_cq)];

    /* Third line. */
    uint64_t sq_rsvd_index;
    uint64_t sq_ready_index;
    uint64_t sq_wqe_pi;
    int sq_lock;
    uint32_t sq_bf_next; /* BlueFlame buffer the next BlueFlame write uses (0, 1; under sq_lock) */
    uint8_t reserved2[DOCA_GPUNETIO_VERBS_QP_LINE - 32];

    /* Fourth line: the receive queue, read-only after export. */
    uint8_t *rq_wqe_daddr; /* ring of rq_wqe_num receive WQEs of rcv_wqe_size bytes */
    __be32 *rq_dbrec;      /* receive word of the doorbell record */
    uint32_t rq_wqe_num;   /* a power of two; 0: no receive queue for the data path */
    uint32_t rq_wqe_mask;  /* rq_wqe_num - 1 */
    uint32_t rq_num;       /* QP number (DOCA's name for the receive side's) */
    uint32_t rcv_wqe_size; /* bytes of a receive WQE: 16 per scatter entry, a power of two */
    uint32_t rq_nic_scope; /* enum doca_gpu_dev_verbs_sync_scope of the receive record's fence */
    uint8_t reserved3[DOCA_GPUNETIO_VERBS_QP_LINE - 36];

    /* Fifth line. */
    struct doca_gpu_dev_verbs_cq cq_rq;
    uint8_t reserved4[DOCA_GPUNETIO_VERBS_QP_LINE - sizeof(struct doca_gpu_dev_verbs_cq)];

    /* Sixth line. */
    uint64_t rq_rsvd_index;
    uint64_t rq_ready_index;
    uint64_t rq_wqe_pi;
    int rq_lock;
    uint8_t reserved5[DOCA_GPUNETIO_VERBS_QP_LINE - 28];
};

GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_dev_verbs_qp, cq_sq) == DOCA_GPUNETIO_VERBS_QP_LINE,
                    "the CQ starts the descriptor's second cache line");
GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_dev_verbs_qp, sq_rsvd_index) ==
                            2 * DOCA_GPUNETIO_VERBS_QP_LINE,
                    "the QP counters start the descriptor's third cache line");
GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_dev_verbs_qp, cq_rq) ==
                            4 * DOCA_GPUNETIO_VERBS_QP_LINE,
                    "the receive CQ starts the descriptor's fifth cache line");
GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_dev_verbs_qp, rq_rsvd_index) ==
                            5 * DOCA_GPUNETIO_VERBS_QP_LINE,
                    "the receive counters start the descriptor's sixth cache line");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpu_dev_verbs_qp) == 6 * DOCA_GPUNETIO_VERBS_QP_LINE,
                    "a QP descriptor is six cache lines (arrays of them stay aligned)");

#ifdef __cplusplus
}
#endif

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_VERBS_DEV_H */
