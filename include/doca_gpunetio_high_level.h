/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO high-level QP helpers: one call makes the CQ, the UAR and
 * the RC QP with their memory where the data path wants it, and exports the
 * QP; the application then connects hl->qp with doca_verbs_qp_modify() and
 * hands hl->qp_gverbs (doca_gpu_verbs_get_qp_dev) to its kernel.
 *
 * Memory: with a GPU, the CQ ring and doorbell record and the work queue
 * are in GPU memory (registered by dma-buf, or plainly: mreg_type); the QP's
 * doorbell record is in GPU memory when the GPU rings the doorbell and in
 * host memory under a CPU proxy. With gpu_dev NULL everything is in host
 * memory and the QP is exported for CPU threads.
 */
#ifndef DOCA_GPUNETIO_HIGH_LEVEL_H
#define DOCA_GPUNETIO_HIGH_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "doca_gpunetio.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_pd;

/* How GPU memory is registered with the NIC. */
enum doca_gpu_verbs_mem_reg_type {
    DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT = 0,      /* dma-buf, else plain (peermem) */
    DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF = 1,  /* dma-buf only */
    DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_PEERMEM = 2, /* plain registration only */
    DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_MAX,
};

/* Flags of doca_gpu_verbs_qp_init_attr_hl, OR-ed. */
enum doca_gpu_verbs_qp_init_attr_flags_hl {
    DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_NONE = 0,
    /* Data Direct: NOT_SUPPORTED, no NIC here has a Data Direct function */
    DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT = 1u << 0,
    /*
     * Share UARs among the QPs of one create call: a single QP or group takes
     * a shared non-cached UAR (NONCACHE) instead of a dedicated one; a list
     * (doca_gpu_verbs_create_qp_list_hl) makes one UAR for all its QPs and a
     * group list one for all its groups. BlueFlame QPs (GPU_SM_BF) keep a
     * UAR per QP (per group): the BlueFlame buffers of a register are not
     * to be shared.
     */
    DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_PREFER_UAR_SHARING = 1u << 1,
};

/*
 * DOCA's fields, in its order, less rq_nwqe (receive queues are not built);
 * not packed as DOCA's is, so source- but not binary-compatible. The
 * reserved fields are ignored.
 */
struct doca_gpu_verbs_qp_init_attr_hl {
    doca_gpu_t *gpu_dev; /* NULL: host memory, exported for CPU threads */
    doca_dev_t *net_dev; /* the device; NULL: one is opened on ibpd (and closed with the QP) */
    struct ibv_pd *ibpd;
    uint16_t sq_nwqe; /* send WQEs (rounded up to a power of two) */
    /* CQ_64B_COLLAPSED collapses the send CQ as cq_collapsed does; CQ_64B_COLLAPSED_HOST:
     * NOT_SUPPORTED */
    enum doca_gpu_dev_verbs_cq_type cq_type;
    uint8_t reserved1[1];
    enum doca_gpu_dev_verbs_nic_handler nic_handler;
    enum doca_gpu_verbs_mem_reg_type mreg_type; /* GPU memory only (host memory: plain) */
    enum doca_gpu_verbs_send_dbr_mode_ext send_dbr_mode_ext;
    bool cq_collapsed; /* the send CQ is collapsed (one entry) */
    /*
     * With a GPU: the send CQ's ring and record and the work queue and its
     * record are in pinned host memory mapped for the GPU
     * (DOCA_GPU_MEM_TYPE_CPU_GPU, registered plainly) instead of GPU memory.
     * No effect with gpu_dev NULL (everything is in host memory already).
     */
    bool enable_umem_cpu;
    uint8_t reserved2[2];
    enum doca_verbs_qp_ordering_semantic ordering_semantic;
    uint32_t flags; /* enum doca_gpu_verbs_qp_init_attr_flags_hl */
    /*
     * NULL, or the completion channel the send CQ reports to: its
     * cq_context is the QP's struct doca_gpu_verbs_qp * (qp_gverbs), and it
     * is armed after the export for one event on its next solicited or
     * error CQE (doca_gpu_verbs_req_notify_cq). Events handed out must be
     * acknowledged (doca_verbs_ack_cq_events) before the QP is destroyed.
     */
    doca_verbs_comp_channel_t *comp_channel;
    /*
     * DOCA 5.0: receive WQEs of a single QP (rounded up to a power of
     * two), for RDMA writes with immediate that a service drains
     * (doca_gpu_verbs_service_monitor_qp); its receive CQ is cq_rq below.
     * Groups and lists refuse it (NOT_SUPPORTED).
     */
    uint16_t rq_nwqe;
    uint8_t reserved3[2];
};

struct doca_gpu_verbs_qp_hl {
    doca_gpu_t *gpu_dev;
    doca_dev_t *dev; /* net_dev, or one opened on ibpd */
    bool dev_opened; /* dev was opened here (closed with the QP) */
    doca_verbs_cq_t *cq_sq;
    void *cq_sq_umem_gpu_ptr; /* CQ ring and doorbell record (NULL: library memory) */
    doca_verbs_umem_t *cq_sq_umem;
    doca_verbs_qp_t *qp;
    void *qp_umem_gpu_ptr; /* work queue (NULL: library memory) */
    doca_verbs_umem_t *qp_umem;
    void *qp_umem_dbr_gpu_ptr;      /* the QP doorbell record's GPU address */
    doca_verbs_umem_t *qp_umem_dbr; /* its own UMEM when in host memory (CPU proxy) */
    doca_verbs_uar_t *external_uar;
    enum doca_gpu_dev_verbs_nic_handler nic_handler; /* as resolved at export */
    enum doca_gpu_verbs_send_dbr_mode_ext send_dbr_mode_ext;
    struct doca_gpu_verbs_qp *qp_gverbs;
    /* DOCA 5.0's receive CQ (rq_nwqe; NULL without), in the library's host memory. */
    doca_verbs_cq_t *cq_rq;
    void *cq_rq_umem_cpu_ptr;
    doca_verbs_umem_t *cq_rq_umem;
};

/* A main QP and a companion (counter variants) sharing one UAR. */
struct doca_gpu_verbs_qp_group_hl {
    struct doca_gpu_verbs_qp_hl qp_main;
    struct doca_gpu_verbs_qp_hl qp_companion;
};

/*
 * One registered slab that the QPs of a list take their rings or doorbell
 * records from (one UMEM registration for all of them).
 */
struct doca_gpu_verbs_umem_hl {
    void *base_cpu_ptr; /* the CPU address (NULL: GPU memory) */
    void *base_gpu_ptr; /* the data path's address (the host address with gpu_dev NULL) */
    size_t size;        /* bytes */
    size_t next_offset; /* the first byte not handed out yet */
    uint32_t refcount;  /* pieces handed out */
    doca_verbs_umem_t *umem;
    enum doca_gpu_verbs_mem_reg_type mreg_type; /* as registered: CUDA_DMABUF or CUDA_PEERMEM */
    bool is_system_malloc;                      /* host memory of the C library (gpu_dev NULL) */
};

/*
 * num_qps QPs made by doca_gpu_verbs_create_qp_list_hl(): qps[i] is what
 * doca_gpu_verbs_create_qp_hl() gives (connect qps[i].qp, hand
 * qps[i].qp_gverbs to the data path), except that its cq_sq_umem, qp_umem
 * and qp_umem_dbr are NULL: its CQ ring (cq_sq_umem_gpu_ptr), CQ doorbell
 * record, work queue (qp_umem_gpu_ptr) and QP doorbell record
 * (qp_umem_dbr_gpu_ptr) are pieces of the four slabs below.
 */
struct doca_gpu_verbs_qp_list_hl {
    uint32_t num_qps;
    struct doca_gpu_verbs_qp_hl *qps;
    struct doca_gpu_verbs_umem_hl *cq_umem;     /* CQ rings, a page-aligned piece each */
    struct doca_gpu_verbs_umem_hl *cq_dbr_umem; /* CQ doorbell records, 64 bytes each */
    struct doca_gpu_verbs_umem_hl *sq_umem;     /* work queues, a page-aligned piece each */
    struct doca_gpu_verbs_umem_hl *sq_dbr_umem; /* QP doorbell records, 64 bytes each */
};

/* The same for num_qp_groups groups (main and companion share one UAR). */
struct doca_gpu_verbs_qp_group_list_hl {
    uint32_t num_qp_groups;
    struct doca_gpu_verbs_qp_group_hl *qpgs;
    struct doca_gpu_verbs_umem_hl *cq_umem;
    struct doca_gpu_verbs_umem_hl *cq_dbr_umem;
    struct doca_gpu_verbs_umem_hl *sq_umem;
    struct doca_gpu_verbs_umem_hl *sq_dbr_umem;
};

/*
 * Makes and exports one QP. Accepted handlers: AUTO, CPU_PROXY,
 * CPU_PROXY_FREE_FLOW, GPU_SM_DB, GPU_SM_BF, GPU_SM_NO_DBR (with
 * send_dbr_mode_ext NO_DBR_HW). Errors as doca_verbs_*_create() and
 * doca_gpu_verbs_export_qp(); nothing is left allocated on failure. The
 * destroy calls answer IN_USE, freeing nothing, while the send CQ has
 * completion events not acknowledged or the QP is subscribed to a
 * net-event object.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_create_qp_hl(
        const struct doca_gpu_verbs_qp_init_attr_hl *attr, struct doca_gpu_verbs_qp_hl **qp);
DOCA_STABLE doca_error_t doca_gpu_verbs_destroy_qp_hl(struct doca_gpu_verbs_qp_hl *qp);
DOCA_STABLE doca_error_t
doca_gpu_verbs_create_qp_group_hl(const struct doca_gpu_verbs_qp_init_attr_hl *attr,
                                  struct doca_gpu_verbs_qp_group_hl **group);
DOCA_STABLE doca_error_t
doca_gpu_verbs_destroy_qp_group_hl(struct doca_gpu_verbs_qp_group_hl *group);
/*
 * Makes num_qps QPs as doca_gpu_verbs_create_qp_hl() makes one, with the
 * same attributes (AUTO resolved once, for all), their rings and records
 * in four shared slabs. A QP's UAR is its own unless PREFER_UAR_SHARING is
 * set. Without net_dev, one device is opened on ibpd for the whole list.
 * INVALID_VALUE for num_qps 0, more QPs than the device has, or a slab
 * over 4 GiB; nothing is left allocated on failure.
 */
DOCA_STABLE doca_error_t
doca_gpu_verbs_create_qp_list_hl(struct doca_gpu_verbs_qp_init_attr_hl *qp_init_attr,
                                 uint32_t num_qps, struct doca_gpu_verbs_qp_list_hl **qp_list);
/* Destroys the QPs, then the slabs. IN_USE (nothing freed) while a CQ has unacknowledged events. */
DOCA_STABLE doca_error_t
doca_gpu_verbs_destroy_qp_list_hl(struct doca_gpu_verbs_qp_list_hl *qp_list);
/* num_qp_groups groups (2 * num_qp_groups QPs) on four shared slabs. */
DOCA_STABLE doca_error_t doca_gpu_verbs_create_qp_group_list_hl(
        struct doca_gpu_verbs_qp_init_attr_hl *qp_init_attr, uint32_t num_qp_groups,
        struct doca_gpu_verbs_qp_group_list_hl **qpg_list);
DOCA_STABLE doca_error_t
doca_gpu_verbs_destroy_qp_group_list_hl(struct doca_gpu_verbs_qp_group_list_hl *qpg_list);

/*
 * The descriptors of num_elems QPs side by side (doca_gpu_verbs_export_multi_qps_dev);
 * all must share one gpu_dev.
 */
DOCA_STABLE doca_error_t
doca_gpu_verbs_qp_flat_list_create_hl(struct doca_gpu_verbs_qp_hl **qp_list, uint32_t num_elems,
                                      struct doca_gpu_dev_verbs_qp **qp_gpu);
DOCA_STABLE doca_error_t
doca_gpu_verbs_qp_flat_list_destroy_hl(struct doca_gpu_dev_verbs_qp *qp_gpu);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_HIGH_LEVEL_H */
