/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lists of high-level QPs and of QP groups: N QPs made by the one path of
 * hl.c (hl_create), with the same plan (AUTO resolved once), their CQ
 * rings, CQ doorbell records, work queues and QP doorbell records taken
 * from four slabs, each registered once. Rings take page-aligned pieces (a
 * ring in host memory is mapped for the GPU page by page), records 64
 * bytes each.
 *
 * UARs: one per QP (per group), or, with PREFER_UAR_SHARING and a handler
 * other than GPU_SM_BF, the first QP's for all. A QP owns its UAR unless
 * the list's first QP has the same one; QPs are released last to first, so
 * the shared UAR goes after every QP that uses it.
 */
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"
#include "gpunetio/hl_internal.h"

/* The largest slab a list registers. */
#define HL_LIST_MAX_SLAB ((size_t)1 << 32)

/* What the QPs of one list call share. */
struct hl_batch {
    const char *who; /* the public call, for log lines */
    doca_gpu_t *gpu;
    doca_dev_t *dev;
    bool dev_opened;
    doca_verbs_uar_t *uar0; /* the first UAR (made before the plan: AUTO needs it) */
    bool uar0_taken;        /* a QP owns uar0 now */
    bool share_uar;
    struct hl_plan plan;
    size_t cq_piece, sq_piece;
    struct doca_gpu_verbs_umem_hl *cq, *cq_dbr, *sq, *sq_dbr;
};

/* Whether n QPs fit the device and the slabs; one line naming the limit otherwise. */
static doca_error_t hl_batch_check_size(const struct hl_batch *b,
                                        const struct doca_gpu_verbs_qp_init_attr_hl *a, uint64_t n)
{
    struct doca_verbs_device_attr *da = NULL;
    uint64_t max_qp = 0;
    doca_error_t err = doca_verbs_query_device(a->ibpd->context, &da);

    if (err != DOCA_SUCCESS)
        return err;
    max_qp = doca_verbs_device_attr_get_max_qp(da);
    doca_verbs_device_attr_free(da);
    if (n > max_qp) {
        DOCA_LOG_ERR("%s: %llu QPs, more than the device's %llu", b->who, (unsigned long long)n,
                     (unsigned long long)max_qp);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (n * (b->cq_piece > b->sq_piece ? b->cq_piece : b->sq_piece) > HL_LIST_MAX_SLAB) {
        DOCA_LOG_ERR("%s: %llu QPs of %u WQEs need slabs over %zu GiB: make fewer QPs or smaller "
                     "send queues",
                     b->who, (unsigned long long)n, b->plan.sq_wr, HL_LIST_MAX_SLAB >> 30);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* The slabs, the device, and the UAR no QP took. */
static void hl_batch_end(struct hl_batch *b)
{
    hl_slab_destroy(b->gpu, b->sq_dbr);
    hl_slab_destroy(b->gpu, b->sq);
    hl_slab_destroy(b->gpu, b->cq_dbr);
    hl_slab_destroy(b->gpu, b->cq);
    if (!b->uar0_taken && b->uar0 != NULL)
        doca_verbs_uar_destroy(b->uar0);
    if (b->dev_opened)
        doca_verbs_dev_close(b->dev);
}

/* Checks a and n, then makes what n QPs share; hl_batch_end() on failure too. */
static doca_error_t hl_batch_begin(struct hl_batch *b,
                                   const struct doca_gpu_verbs_qp_init_attr_hl *a, uint32_t n,
                                   uint32_t per_item)
{
    doca_gpu_t *gpu = a->gpu_dev;
    uint64_t total = (uint64_t)n * per_item;
    doca_error_t err;

    b->gpu = gpu;
    err = hl_dev(a, &b->dev, &b->dev_opened);
    if (err == DOCA_SUCCESS)
        err = hl_uar(b->dev, a->nic_handler, hl_prefer_sharing(a), &b->uar0);
    if (err == DOCA_SUCCESS)
        err = hl_plan_make(a, b->dev, b->uar0, &b->plan);
    if (err != DOCA_SUCCESS)
        return err;
    b->share_uar =
            hl_prefer_sharing(a) && b->plan.handler != DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF;
    b->cq_piece = verbs_align_up((uint64_t)b->plan.cq_entries * VERBS_CQE_SIZE, HL_PAGE_BYTES);
    b->sq_piece = verbs_align_up((uint64_t)b->plan.sq_wr * VERBS_SQ_STRIDE, HL_PAGE_BYTES);
    err = hl_batch_check_size(b, a, total);
    if (err != DOCA_SUCCESS)
        return err;
    err = hl_slab_create(gpu, b->dev, b->plan.cq_kind, a->mreg_type, b->cq_piece * total, &b->cq);
    if (err == DOCA_SUCCESS)
        err = hl_slab_create(gpu, b->dev, b->plan.cq_kind, a->mreg_type, HL_DBR_BYTES * total,
                             &b->cq_dbr);
    if (err == DOCA_SUCCESS)
        err = hl_slab_create(gpu, b->dev, b->plan.sq_kind, a->mreg_type, b->sq_piece * total,
                             &b->sq);
    if (err == DOCA_SUCCESS)
        err = hl_slab_create(gpu, b->dev, b->plan.sq_dbr_kind, a->mreg_type, HL_DBR_BYTES * total,
                             &b->sq_dbr);
    return err;
}

/* Makes the next QP of the batch in hl, on uar (hl owns it, or shares the first QP's). */
static doca_error_t hl_batch_qp(struct hl_batch *b, doca_verbs_uar_t *uar,
                                struct doca_gpu_verbs_qp_hl *hl)
{
    struct hl_places pl;
    doca_error_t err;

    hl->external_uar = uar;
    err = hl_slab_take(b->cq, b->cq_piece, HL_PAGE_BYTES, &pl.cq_ring);
    if (err == DOCA_SUCCESS)
        err = hl_slab_take(b->cq_dbr, HL_DBR_BYTES, HL_DBR_BYTES, &pl.cq_dbr);
    if (err == DOCA_SUCCESS)
        err = hl_slab_take(b->sq, b->sq_piece, HL_PAGE_BYTES, &pl.sq_ring);
    if (err == DOCA_SUCCESS)
        err = hl_slab_take(b->sq_dbr, HL_DBR_BYTES, HL_DBR_BYTES, &pl.sq_dbr);
    if (err != DOCA_SUCCESS)
        return err;
    return hl_create(&b->plan, uar, &pl, hl);
}

/* The UAR of QP (group) i: uar0 for the first and when shared, else a new one. */
static doca_error_t hl_batch_uar(struct hl_batch *b, uint32_t i, doca_verbs_uar_t **uar)
{
    if (i == 0 || b->share_uar) {
        *uar = b->uar0;
        b->uar0_taken = true;
        return DOCA_SUCCESS;
    }
    return hl_uar(b->dev, b->plan.handler, false, uar);
}

/* Whether hl owns its UAR in a list whose first QP is first. */
static unsigned int hl_list_own(const struct doca_gpu_verbs_qp_hl *hl,
                                const struct doca_gpu_verbs_qp_hl *first)
{
    return hl == first || hl->external_uar != first->external_uar ? HL_OWN_UAR : 0;
}

/* Releases QPs n-1 .. 0 (not their memory or device). */
static void hl_list_release(struct doca_gpu_verbs_qp_hl *qps, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;)
        hl_release(&qps[i], hl_list_own(&qps[i], &qps[0]));
}

static void hl_group_list_release(struct doca_gpu_verbs_qp_group_hl *g, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;) {
        hl_release(&g[i].qp_companion, 0);
        hl_release(&g[i].qp_main, hl_list_own(&g[i].qp_main, &g[0].qp_main));
    }
}

/* The batch's end from a list's QPs, for destroy: the device is the first QP's. */
static void hl_batch_of(struct hl_batch *b, const struct doca_gpu_verbs_qp_hl *first,
                        struct doca_gpu_verbs_umem_hl *cq, struct doca_gpu_verbs_umem_hl *cq_dbr,
                        struct doca_gpu_verbs_umem_hl *sq, struct doca_gpu_verbs_umem_hl *sq_dbr)
{
    memset(b, 0, sizeof(*b));
    b->gpu = first->gpu_dev;
    b->dev = first->dev;
    b->dev_opened = first->dev_opened;
    b->uar0_taken = true;
    b->cq = cq;
    b->cq_dbr = cq_dbr;
    b->sq = sq;
    b->sq_dbr = sq_dbr;
}

static doca_error_t hl_list_args(const char *who, const struct doca_gpu_verbs_qp_init_attr_hl *a,
                                 uint32_t n, const void *out)
{
    if (n == 0) {
        DOCA_LOG_ERR("%s: the number of QPs (groups) is 0: make at least one", who);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_error_t err = hl_check(a, out);

    return err == DOCA_SUCCESS ? hl_check_no_rq(a, who) : err;
}

doca_error_t doca_gpu_verbs_create_qp_list_hl(struct doca_gpu_verbs_qp_init_attr_hl *qp_init_attr,
                                              uint32_t num_qps,
                                              struct doca_gpu_verbs_qp_list_hl **qp_list)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_create_qp_list_hl, (qp_init_attr, num_qps, qp_list),
                  DOCA_ERROR_NOT_SUPPORTED);

    struct hl_batch b = {.who = "doca_gpu_verbs_create_qp_list_hl"};
    struct doca_gpu_verbs_qp_list_hl *list = NULL;
    doca_verbs_uar_t *uar = NULL;
    uint32_t made = 0;
    doca_error_t err = hl_list_args(b.who, qp_init_attr, num_qps, qp_list);

    if (err != DOCA_SUCCESS)
        return err;
    err = hl_batch_begin(&b, qp_init_attr, num_qps, 1);
    if (err == DOCA_SUCCESS) {
        list = calloc(1, sizeof(*list));
        if (list != NULL)
            list->qps = calloc(num_qps, sizeof(*list->qps));
        if (list == NULL || list->qps == NULL) {
            DOCA_LOG_ERR("%s: out of memory for %u QPs", b.who, num_qps);
            err = DOCA_ERROR_NO_MEMORY;
        }
    }
    while (err == DOCA_SUCCESS && made < num_qps) {
        err = hl_batch_uar(&b, made, &uar);
        if (err != DOCA_SUCCESS)
            break;
        /* From here the QP holds something to release, even if it fails. */
        err = hl_batch_qp(&b, uar, &list->qps[made++]);
    }
    if (err != DOCA_SUCCESS) {
        if (list != NULL && list->qps != NULL)
            hl_list_release(list->qps, made);
        hl_batch_end(&b);
        if (list != NULL)
            free(list->qps);
        free(list);
        return err;
    }
    list->num_qps = num_qps;
    list->qps[0].dev_opened = b.dev_opened;
    list->cq_umem = b.cq;
    list->cq_dbr_umem = b.cq_dbr;
    list->sq_umem = b.sq;
    list->sq_dbr_umem = b.sq_dbr;
    *qp_list = list;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_qp_list_hl(struct doca_gpu_verbs_qp_list_hl *qp_list)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_destroy_qp_list_hl, (qp_list), DOCA_ERROR_NOT_SUPPORTED);

    struct hl_batch b;
    doca_error_t err;

    if (qp_list == NULL || qp_list->qps == NULL || qp_list->num_qps == 0) {
        DOCA_LOG_ERR("qp_list %p is not what doca_gpu_verbs_create_qp_list_hl() gave",
                     (void *)qp_list);
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (uint32_t i = 0; i < qp_list->num_qps; i++) {
        err = hl_releasable(&qp_list->qps[i]);
        if (err != DOCA_SUCCESS)
            return err;
    }
    hl_batch_of(&b, &qp_list->qps[0], qp_list->cq_umem, qp_list->cq_dbr_umem, qp_list->sq_umem,
                qp_list->sq_dbr_umem);
    hl_list_release(qp_list->qps, qp_list->num_qps);
    hl_batch_end(&b);
    free(qp_list->qps);
    free(qp_list);
    return DOCA_SUCCESS;
}

doca_error_t
doca_gpu_verbs_create_qp_group_list_hl(struct doca_gpu_verbs_qp_init_attr_hl *qp_init_attr,
                                       uint32_t num_qp_groups,
                                       struct doca_gpu_verbs_qp_group_list_hl **qpg_list)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_create_qp_group_list_hl, (qp_init_attr, num_qp_groups, qpg_list),
                  DOCA_ERROR_NOT_SUPPORTED);

    struct hl_batch b = {.who = "doca_gpu_verbs_create_qp_group_list_hl"};
    struct doca_gpu_verbs_qp_group_list_hl *list = NULL;
    doca_verbs_uar_t *uar = NULL;
    uint32_t made = 0;
    doca_error_t err = hl_list_args(b.who, qp_init_attr, num_qp_groups, qpg_list);

    if (err != DOCA_SUCCESS)
        return err;
    err = hl_batch_begin(&b, qp_init_attr, num_qp_groups, 2);
    if (err == DOCA_SUCCESS) {
        list = calloc(1, sizeof(*list));
        if (list != NULL)
            list->qpgs = calloc(num_qp_groups, sizeof(*list->qpgs));
        if (list == NULL || list->qpgs == NULL) {
            DOCA_LOG_ERR("%s: out of memory for %u QP groups", b.who, num_qp_groups);
            err = DOCA_ERROR_NO_MEMORY;
        }
    }
    while (err == DOCA_SUCCESS && made < num_qp_groups) {
        struct doca_gpu_verbs_qp_group_hl *g = &list->qpgs[made];

        err = hl_batch_uar(&b, made, &uar);
        if (err != DOCA_SUCCESS)
            break;
        made++; /* from here the group holds something to release, even if it fails */
        err = hl_batch_qp(&b, uar, &g->qp_main);
        if (err == DOCA_SUCCESS)
            err = hl_batch_qp(&b, uar, &g->qp_companion);
    }
    if (err != DOCA_SUCCESS) {
        if (list != NULL && list->qpgs != NULL)
            hl_group_list_release(list->qpgs, made);
        hl_batch_end(&b);
        if (list != NULL)
            free(list->qpgs);
        free(list);
        return err;
    }
    list->num_qp_groups = num_qp_groups;
    list->qpgs[0].qp_main.dev_opened = b.dev_opened;
    list->cq_umem = b.cq;
    list->cq_dbr_umem = b.cq_dbr;
    list->sq_umem = b.sq;
    list->sq_dbr_umem = b.sq_dbr;
    *qpg_list = list;
    return DOCA_SUCCESS;
}

doca_error_t
doca_gpu_verbs_destroy_qp_group_list_hl(struct doca_gpu_verbs_qp_group_list_hl *qpg_list)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_destroy_qp_group_list_hl, (qpg_list), DOCA_ERROR_NOT_SUPPORTED);

    struct hl_batch b;
    doca_error_t err = DOCA_SUCCESS;

    if (qpg_list == NULL || qpg_list->qpgs == NULL || qpg_list->num_qp_groups == 0) {
        DOCA_LOG_ERR("qpg_list %p is not what doca_gpu_verbs_create_qp_group_list_hl() gave",
                     (void *)qpg_list);
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (uint32_t i = 0; i < qpg_list->num_qp_groups && err == DOCA_SUCCESS; i++) {
        err = hl_releasable(&qpg_list->qpgs[i].qp_main);
        if (err == DOCA_SUCCESS)
            err = hl_releasable(&qpg_list->qpgs[i].qp_companion);
    }
    if (err != DOCA_SUCCESS)
        return err;
    hl_batch_of(&b, &qpg_list->qpgs[0].qp_main, qpg_list->cq_umem, qpg_list->cq_dbr_umem,
                qpg_list->sq_umem, qpg_list->sq_dbr_umem);
    hl_group_list_release(qpg_list->qpgs, qpg_list->num_qp_groups);
    hl_batch_end(&b);
    free(qpg_list->qpgs);
    free(qpg_list);
    return DOCA_SUCCESS;
}
