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
};

/*
 * DOCA 4.0's fields, in its order, less its completion channel and
 * enable_umem_cpu (not built yet); not packed as DOCA's is, so source- but
 * not binary-compatible.
 */
struct doca_gpu_verbs_qp_init_attr_hl {
    doca_gpu_t *gpu_dev; /* NULL: host memory, exported for CPU threads */
    doca_dev_t *net_dev; /* the device; NULL: one is opened on ibpd (and closed with the QP) */
    struct ibv_pd *ibpd;
    uint16_t sq_nwqe; /* send WQEs (rounded up to a power of two) */
    /* CQ_64B_COLLAPSED collapses the send CQ as cq_collapsed does; CQ_64B_COLLAPSED_HOST:
     * NOT_SUPPORTED */
    enum doca_gpu_dev_verbs_cq_type cq_type;
    enum doca_gpu_dev_verbs_nic_handler nic_handler;
    enum doca_gpu_verbs_mem_reg_type mreg_type;
    enum doca_gpu_verbs_send_dbr_mode_ext send_dbr_mode_ext;
    bool cq_collapsed; /* the send CQ is collapsed (one entry) */
    enum doca_verbs_qp_ordering_semantic ordering_semantic;
    uint32_t flags; /* enum doca_gpu_verbs_qp_init_attr_flags_hl */
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
};

/* A main QP and a companion (counter variants) sharing one UAR. */
struct doca_gpu_verbs_qp_group_hl {
    struct doca_gpu_verbs_qp_hl qp_main;
    struct doca_gpu_verbs_qp_hl qp_companion;
};

/*
 * Makes and exports one QP. Accepted handlers: AUTO, CPU_PROXY,
 * CPU_PROXY_FREE_FLOW, GPU_SM_DB, GPU_SM_BF, GPU_SM_NO_DBR (with
 * send_dbr_mode_ext NO_DBR_HW). Errors as doca_verbs_*_create() and
 * doca_gpu_verbs_export_qp(); nothing is left allocated on failure.
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
