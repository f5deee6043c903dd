/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the high-level QP files share: the memory the queues live in
 * (hl_mem.c), the one path that makes and releases a QP (hl.c), used by
 * the single, group and list calls (hl.c, hl_list.c).
 */
#ifndef GPUNETIO_HL_INTERNAL_H
#define GPUNETIO_HL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_high_level.h"

#define HL_DBR_BYTES  64   /* a doorbell record, alone in its cache line */
#define HL_PAGE_BYTES 4096 /* rings start on a page of their own */

/* Where a piece of queue memory comes from. */
enum hl_mem_kind {
    HL_MEM_GPU,    /* GPU memory (doca_gpu_mem_alloc GPU), registered as mreg_type says */
    HL_MEM_PINNED, /* pinned host memory mapped for the GPU (CPU_GPU), registered plainly */
    HL_MEM_HOST,   /* page-aligned host memory of the C library (no GPU), registered plainly */
};

/* One queue's ring or doorbell record: in umem at offset; addr is the data path's address. */
struct hl_place {
    doca_verbs_umem_t *umem;
    uint64_t offset;
    void *addr;
    bool gpu_mem; /* addr is GPU memory (the registration's address) */
};

/* Where one QP's four pieces are, when the caller provides them (lists). */
struct hl_places {
    struct hl_place cq_ring, cq_dbr, sq_ring, sq_dbr;
};

/* The attributes hl_create() works from, resolved once per create call. */
struct hl_plan {
    const struct doca_gpu_verbs_qp_init_attr_hl *attr;
    doca_dev_t *dev;                                /* net_dev, or one opened on ibpd */
    enum doca_gpu_dev_verbs_nic_handler handler;    /* AUTO resolved */
    uint32_t sq_wr;                                 /* sq_nwqe rounded up to a power of two */
    uint32_t cq_entries;                            /* 1 when collapsed */
    uint32_t rq_wr;                                 /* rq_nwqe rounded up; 0: no receive side */
    enum hl_mem_kind cq_kind, sq_kind, sq_dbr_kind; /* where the pieces go */
};

/* Which parts of a QP hl_release() frees. */
enum {
    HL_OWN_UAR = 1u << 0, /* external_uar */
    HL_OWN_MEM = 1u << 1, /* the UMEMs and memory in its fields */
    HL_OWN_DEV = 1u << 2, /* dev, when dev_opened */
};

/* ---- hl.c ---- */

/* NOT_SUPPORTED (one line naming who) when rq_nwqe asks a group or list for a receive queue. */
doca_error_t hl_check_no_rq(const struct doca_gpu_verbs_qp_init_attr_hl *a, const char *who);

/* Checks attr and out (one log line naming the first bad field). */
doca_error_t hl_check(const struct doca_gpu_verbs_qp_init_attr_hl *attr, const void *out);
/* The device of attr: net_dev, or one opened on ibpd (*opened). */
doca_error_t hl_dev(const struct doca_gpu_verbs_qp_init_attr_hl *attr, doca_dev_t **dev,
                    bool *opened);
/* Whether attr asks for UARs shared among the QPs of a call. */
bool hl_prefer_sharing(const struct doca_gpu_verbs_qp_init_attr_hl *attr);
/* A UAR for handler: BlueFlame, else non-cached (dedicated first unless sharing is preferred). */
doca_error_t hl_uar(doca_dev_t *dev, enum doca_gpu_dev_verbs_nic_handler handler,
                    bool prefer_sharing, doca_verbs_uar_t **uar);
/* Fills plan for attr on dev, resolving AUTO with uar's register. */
doca_error_t hl_plan_make(const struct doca_gpu_verbs_qp_init_attr_hl *attr, doca_dev_t *dev,
                          doca_verbs_uar_t *uar, struct hl_plan *plan);
/*
 * Makes the CQ and QP of hl on uar (taken: hl->external_uar), in places
 * (NULL: memory of its own, or the library's with no GPU), and exports it.
 */
doca_error_t hl_create(const struct hl_plan *plan, doca_verbs_uar_t *uar,
                       const struct hl_places *places, struct doca_gpu_verbs_qp_hl *hl);
/* Whether hl can be released now (no unacknowledged CQ events); logs why not. */
doca_error_t hl_releasable(const struct doca_gpu_verbs_qp_hl *hl);
/* Frees whatever part of hl was made; own: HL_OWN_*. */
void hl_release(struct doca_gpu_verbs_qp_hl *hl, unsigned int own);

/* ---- hl_mem.c ---- */

/*
 * size bytes of kind (rounded up to whole pages), registered on dev:
 * *gpu_ptr is the data path's address, *cpu_ptr the CPU's (NULL for GPU
 * memory); *dmabuf tells whether a dma-buf registration was used (may be NULL).
 */
doca_error_t hl_mem_alloc(doca_gpu_t *gpu, doca_dev_t *dev, enum hl_mem_kind kind,
                          enum doca_gpu_verbs_mem_reg_type mreg, size_t size, void **gpu_ptr,
                          void **cpu_ptr, doca_verbs_umem_t **umem, bool *dmabuf);
/* Frees what hl_mem_alloc() gave (umem first); NULLs are skipped. */
void hl_mem_free(doca_gpu_t *gpu, enum hl_mem_kind kind, void *gpu_ptr, void *cpu_ptr,
                 doca_verbs_umem_t *umem);

/* A slab of size bytes of kind. */
doca_error_t hl_slab_create(doca_gpu_t *gpu, doca_dev_t *dev, enum hl_mem_kind kind,
                            enum doca_gpu_verbs_mem_reg_type mreg, size_t size,
                            struct doca_gpu_verbs_umem_hl **slab);
void hl_slab_destroy(doca_gpu_t *gpu, struct doca_gpu_verbs_umem_hl *slab);
/* The next len bytes of slab, at an offset aligned to align; NO_MEMORY when it is full. */
doca_error_t hl_slab_take(struct doca_gpu_verbs_umem_hl *slab, size_t len, size_t align,
                          struct hl_place *out);

#endif /* GPUNETIO_HL_INTERNAL_H */
