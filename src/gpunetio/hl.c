/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * High-level QP helpers: the UAR, the send CQ and the RC QP, with their
 * memory where the data path wants it (doca_gpunetio_high_level.h), then the
 * export. The NIC handler is decided before the QP exists because it says
 * where the QP's doorbell record goes: GPU memory when kernels ring the
 * doorbell, host memory when a CPU proxy does.
 */
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doca_gpunetio_high_level.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"

#define HL_DBR_BYTES 64 /* a doorbell record, alone in its cache line */

static doca_error_t hl_check(const struct doca_gpu_verbs_qp_init_attr_hl *a, void *out)
{
    if (a == NULL || out == NULL || a->ibpd == NULL) {
        DOCA_LOG_ERR("attr (%p), its ibpd and the output (%p) must not be NULL", (const void *)a,
                     out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (a->sq_nwqe == 0 || a->sq_nwqe > DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM) {
        DOCA_LOG_ERR("sq_nwqe %u: 1 to %u send WQEs", a->sq_nwqe,
                     DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM);
        return DOCA_ERROR_INVALID_VALUE;
    }
    switch (a->nic_handler) {
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO:
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY:
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW:
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB:
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF:
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR:
        break;
    default:
        DOCA_LOG_ERR("nic_handler %d: AUTO (0), CPU_PROXY (1), GPU_SM_DB (2), GPU_SM_BF (6), "
                     "GPU_SM_NO_DBR (10) or CPU_PROXY_FREE_FLOW (17)",
                     a->nic_handler);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((unsigned int)a->mreg_type >= DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_MAX) {
        DOCA_LOG_ERR("mreg_type %d: DEFAULT (0), CUDA_DMABUF (1) or CUDA_PEERMEM (2)",
                     a->mreg_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((unsigned int)a->send_dbr_mode_ext >
        DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED) {
        DOCA_LOG_ERR("send_dbr_mode_ext %d: VALID_DBR (0), NO_DBR_HW (1) or NO_DBR_SW_EMULATED (2)",
                     a->send_dbr_mode_ext);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((a->flags & ~(uint32_t)DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT) != 0) {
        DOCA_LOG_ERR("flags 0x%x: only DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT "
                     "(0x1) is a flag",
                     a->flags);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* Whether the send CQ is collapsed: cq_collapsed, or a collapsed cq_type. */
static bool hl_collapsed(const struct doca_gpu_verbs_qp_init_attr_hl *a)
{
    return a->cq_collapsed || a->cq_type == DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED;
}

/*
 * The kind export is told: the CQ made is what hl_collapsed() says, and
 * CQ_64B (0, what an attribute left out is) does not contradict
 * cq_collapsed; a host CQ goes on to export, which refuses it.
 */
static enum doca_gpu_dev_verbs_cq_type hl_cq_type(const struct doca_gpu_verbs_qp_init_attr_hl *a)
{
    return a->cq_type == DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST ? a->cq_type
                                                                   : DOCA_GPUNETIO_VERBS_CQ_UNKNOWN;
}

/* GPU memory of `size` bytes (64 KiB aligned) registered as a UMEM as mreg_type says. */
static doca_error_t hl_gpu_umem(struct doca_gpu_verbs_qp_hl *hl,
                                enum doca_gpu_verbs_mem_reg_type mreg, size_t size, void **ptr,
                                doca_verbs_umem_t **umem)
{
    int fd = -1;
    doca_error_t err;

    /* dma-bufs export whole pages. */
    size = verbs_align_up(size, GPUNETIO_DMABUF_ALIGN);
    err = doca_gpu_mem_alloc(hl->gpu_dev, size, DOCA_GPUNETIO_VERBS_PAGE_SIZE,
                             DOCA_GPU_MEM_TYPE_GPU, ptr, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    /* DEFAULT tries a dma-buf only where the GPU offers one (no refusal logged otherwise). */
    if (mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF ||
        (mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT && hl->gpu_dev->dmabuf)) {
        err = doca_gpu_dmabuf_fd(hl->gpu_dev, *ptr, size, &fd);
        if (err != DOCA_SUCCESS && mreg == DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_CUDA_DMABUF)
            goto free_mem;
    }
    err = doca_verbs_umem_create(hl->dev, hl->gpu_dev, *ptr, size, IBV_ACCESS_LOCAL_WRITE,
                                 fd >= 0 ? fd : (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, umem);
    if (fd >= 0)
        close(fd); /* the registration holds the dma-buf */
    if (err == DOCA_SUCCESS)
        return DOCA_SUCCESS;
free_mem:
    doca_gpu_mem_free(hl->gpu_dev, *ptr);
    *ptr = NULL;
    return err;
}

/* Pinned host memory for the QP's doorbell record under a CPU proxy. */
static doca_error_t hl_host_dbr(struct doca_gpu_verbs_qp_hl *hl)
{
    void *cpu_ptr = NULL;
    doca_error_t err =
            doca_gpu_mem_alloc(hl->gpu_dev, HL_DBR_BYTES, 4096, DOCA_GPU_MEM_TYPE_CPU_GPU,
                               &hl->qp_umem_dbr_gpu_ptr, &cpu_ptr);

    if (err != DOCA_SUCCESS)
        return err;
    err = doca_verbs_umem_create(hl->dev, NULL, cpu_ptr, HL_DBR_BYTES, IBV_ACCESS_LOCAL_WRITE,
                                 (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, &hl->qp_umem_dbr);
    if (err != DOCA_SUCCESS) {
        doca_gpu_mem_free(hl->gpu_dev, hl->qp_umem_dbr_gpu_ptr);
        hl->qp_umem_dbr_gpu_ptr = NULL;
    }
    return err;
}

static doca_error_t hl_uar(struct doca_gpu_verbs_qp_hl *hl, uint32_t handler)
{
    if (handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF)
        return doca_verbs_uar_create(hl->dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_BLUEFLAME,
                                     &hl->external_uar);
    if (doca_verbs_uar_create(hl->dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED,
                              &hl->external_uar) == DOCA_SUCCESS)
        return DOCA_SUCCESS;
    return doca_verbs_uar_create(hl->dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE,
                                 &hl->external_uar);
}

static doca_error_t hl_cq(struct doca_gpu_verbs_qp_hl *hl,
                          const struct doca_gpu_verbs_qp_init_attr_hl *a, uint32_t entries)
{
    size_t ring = (size_t)entries * VERBS_CQE_SIZE;
    doca_verbs_cq_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_cq_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    doca_verbs_cq_attr_set_cq_size(attr, entries);
    doca_verbs_cq_attr_set_cq_overrun(attr, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    doca_verbs_cq_attr_set_cq_collapsed(attr, hl_collapsed(a));
    doca_verbs_cq_attr_set_external_uar(attr, hl->external_uar);
    if (hl->gpu_dev != NULL) {
        err = hl_gpu_umem(hl, a->mreg_type, ring + HL_DBR_BYTES, &hl->cq_sq_umem_gpu_ptr,
                          &hl->cq_sq_umem);
        if (err == DOCA_SUCCESS) {
            doca_verbs_cq_attr_set_external_umem(attr, hl->cq_sq_umem, 0);
            doca_verbs_cq_attr_set_external_dbr_umem(attr, hl->cq_sq_umem, ring);
        }
    }
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_create(hl->dev, attr, &hl->cq_sq);
    doca_verbs_cq_attr_destroy(attr);
    return err;
}

static doca_error_t hl_qp(struct doca_gpu_verbs_qp_hl *hl,
                          const struct doca_gpu_verbs_qp_init_attr_hl *a, uint32_t sq_wr,
                          uint32_t handler)
{
    size_t wq = (size_t)sq_wr * VERBS_SQ_STRIDE;
    bool proxy = (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) != 0;
    doca_verbs_qp_init_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_qp_init_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    doca_verbs_qp_init_attr_set_pd(attr, hl->dev);
    doca_verbs_qp_init_attr_set_send_cq(attr, hl->cq_sq);
    doca_verbs_qp_init_attr_set_receive_cq(attr, hl->cq_sq);
    doca_verbs_qp_init_attr_set_sq_wr(attr, sq_wr);
    doca_verbs_qp_init_attr_set_send_max_sges(attr, 1);
    doca_verbs_qp_init_attr_set_max_inline_data(attr, DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE);
    doca_verbs_qp_init_attr_set_qp_type(attr, DOCA_VERBS_QP_TYPE_RC);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_qp_init_attr_set_ordering_semantic(attr, a->ordering_semantic);
    doca_verbs_qp_init_attr_set_external_uar(attr, hl->external_uar);
    if (a->send_dbr_mode_ext != DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR) {
        doca_verbs_qp_init_attr_set_send_dbr_mode(attr, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT);
        doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(
                attr,
                a->send_dbr_mode_ext == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED);
    }
    if (hl->gpu_dev != NULL) {
        /* The work queue, and the doorbell record after it unless a CPU proxy writes it. */
        err = hl_gpu_umem(hl, a->mreg_type, wq + (proxy ? 0 : HL_DBR_BYTES), &hl->qp_umem_gpu_ptr,
                          &hl->qp_umem);
        if (err == DOCA_SUCCESS && proxy)
            err = hl_host_dbr(hl);
        if (err == DOCA_SUCCESS) {
            doca_verbs_qp_init_attr_set_external_umem(attr, hl->qp_umem, 0);
            if (proxy) {
                doca_verbs_qp_init_attr_set_external_umem_dbr(attr, hl->qp_umem_dbr, 0);
            } else {
                doca_verbs_qp_init_attr_set_external_umem_dbr(attr, hl->qp_umem, wq);
                hl->qp_umem_dbr_gpu_ptr = (uint8_t *)hl->qp_umem_gpu_ptr + wq;
            }
        }
    }
    if (err == DOCA_SUCCESS)
        err = doca_verbs_qp_create(hl->dev, attr, &hl->qp);
    doca_verbs_qp_init_attr_destroy(attr);
    return err;
}

/* Frees whatever part of hl was made (the UAR only when owned). */
static void hl_release(struct doca_gpu_verbs_qp_hl *hl, bool owns_uar)
{
    if (hl->qp_gverbs != NULL)
        doca_gpu_verbs_unexport_qp(hl->gpu_dev, hl->qp_gverbs);
    if (hl->qp != NULL)
        doca_verbs_qp_destroy(hl->qp);
    if (hl->cq_sq != NULL)
        doca_verbs_cq_destroy(hl->cq_sq);
    if (hl->qp_umem_dbr != NULL) {
        doca_verbs_umem_destroy(hl->qp_umem_dbr);
        doca_gpu_mem_free(hl->gpu_dev, hl->qp_umem_dbr_gpu_ptr);
    }
    if (hl->qp_umem != NULL)
        doca_verbs_umem_destroy(hl->qp_umem);
    if (hl->qp_umem_gpu_ptr != NULL)
        doca_gpu_mem_free(hl->gpu_dev, hl->qp_umem_gpu_ptr);
    if (hl->cq_sq_umem != NULL)
        doca_verbs_umem_destroy(hl->cq_sq_umem);
    if (hl->cq_sq_umem_gpu_ptr != NULL)
        doca_gpu_mem_free(hl->gpu_dev, hl->cq_sq_umem_gpu_ptr);
    if (owns_uar && hl->external_uar != NULL)
        doca_verbs_uar_destroy(hl->external_uar);
    if (hl->dev_opened)
        doca_verbs_dev_close(hl->dev);
}

/* Fills hl; shared_uar (may be NULL) is a UAR another QP of a group made. */
static doca_error_t hl_create(const struct doca_gpu_verbs_qp_init_attr_hl *a,
                              doca_verbs_uar_t *shared_uar, struct doca_gpu_verbs_qp_hl *hl)
{
    uint32_t sq_wr = 1u << verbs_log2_ceil(a->sq_nwqe);
    enum doca_gpu_dev_verbs_nic_handler h = a->nic_handler;
    void *reg = NULL;
    doca_error_t err;

    hl->gpu_dev = a->gpu_dev;
    hl->send_dbr_mode_ext = a->send_dbr_mode_ext;
    if (a->net_dev != NULL) {
        hl->dev = a->net_dev;
    } else {
        err = doca_verbs_dev_open(a->ibpd, &hl->dev);
        if (err != DOCA_SUCCESS)
            return err;
        hl->dev_opened = true;
    }
    if (shared_uar != NULL)
        hl->external_uar = shared_uar;
    else if ((err = hl_uar(hl, h)) != DOCA_SUCCESS)
        return err;
    if (h == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) {
        doca_verbs_uar_reg_addr_get(hl->external_uar, &reg);
        err = gpunetio_auto_handler(a->gpu_dev, a->send_dbr_mode_ext, reg, true, "new QP", &h);
        if (err != DOCA_SUCCESS)
            return err;
    }
    err = hl_cq(hl, a, hl_collapsed(a) ? 1 : sq_wr);
    if (err == DOCA_SUCCESS)
        err = hl_qp(hl, a, sq_wr, h);
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_export_qp(
                a->gpu_dev, hl->qp, h, hl->qp_umem_gpu_ptr, hl->cq_sq, a->send_dbr_mode_ext,
                hl_cq_type(a),
                (a->flags & DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT) != 0,
                &hl->qp_gverbs);
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_get_nic_handler(hl->qp_gverbs, &hl->nic_handler);
    return err;
}

doca_error_t doca_gpu_verbs_create_qp_hl(const struct doca_gpu_verbs_qp_init_attr_hl *attr,
                                         struct doca_gpu_verbs_qp_hl **qp)
{
    struct doca_gpu_verbs_qp_hl *hl;
    doca_error_t err = hl_check(attr, qp);

    if (err != DOCA_SUCCESS)
        return err;
    hl = calloc(1, sizeof(*hl));
    if (hl == NULL) {
        DOCA_LOG_ERR("out of memory for a high-level QP");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = hl_create(attr, NULL, hl);
    if (err != DOCA_SUCCESS) {
        hl_release(hl, true);
        free(hl);
        return err;
    }
    *qp = hl;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_qp_hl(struct doca_gpu_verbs_qp_hl *qp)
{
    if (qp == NULL) {
        DOCA_LOG_ERR("qp is NULL: pass what doca_gpu_verbs_create_qp_hl() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    hl_release(qp, true);
    free(qp);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_create_qp_group_hl(const struct doca_gpu_verbs_qp_init_attr_hl *attr,
                                               struct doca_gpu_verbs_qp_group_hl **group)
{
    struct doca_gpu_verbs_qp_group_hl *g;
    doca_error_t err = hl_check(attr, group);

    if (err != DOCA_SUCCESS)
        return err;
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        DOCA_LOG_ERR("out of memory for a high-level QP group");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = hl_create(attr, NULL, &g->qp_main);
    if (err == DOCA_SUCCESS)
        err = hl_create(attr, g->qp_main.external_uar, &g->qp_companion);
    if (err != DOCA_SUCCESS) {
        hl_release(&g->qp_companion, false);
        hl_release(&g->qp_main, true);
        free(g);
        return err;
    }
    *group = g;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_qp_group_hl(struct doca_gpu_verbs_qp_group_hl *group)
{
    if (group == NULL) {
        DOCA_LOG_ERR("group is NULL: pass what doca_gpu_verbs_create_qp_group_hl() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    hl_release(&group->qp_companion, false);
    hl_release(&group->qp_main, true);
    free(group);
    return DOCA_SUCCESS;
}

/* Flat lists made here and the context each was made with (their destroy takes only the array). */
struct flat_list {
    struct doca_gpu_dev_verbs_qp *array;
    doca_gpu_t *gpu;
    struct doca_gpu_verbs_qp **qps;
    uint32_t n;
    struct flat_list *next;
};

static pthread_mutex_t flat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct flat_list *flat_lists;

doca_error_t doca_gpu_verbs_qp_flat_list_create_hl(struct doca_gpu_verbs_qp_hl **qp_list,
                                                   uint32_t num_elems,
                                                   struct doca_gpu_dev_verbs_qp **qp_gpu)
{
    struct flat_list *f;
    doca_error_t err;

    if (qp_list == NULL || num_elems == 0 || qp_gpu == NULL) {
        DOCA_LOG_ERR("qp_list (%p) of num_elems (%u) > 0 QPs and qp_gpu (%p) must be given",
                     (void *)qp_list, num_elems, (void *)qp_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    f = calloc(1, sizeof(*f));
    if (f != NULL)
        f->qps = calloc(num_elems, sizeof(*f->qps));
    if (f == NULL || f->qps == NULL) {
        free(f);
        DOCA_LOG_ERR("out of memory for a flat list of %u QPs", num_elems);
        return DOCA_ERROR_NO_MEMORY;
    }
    for (uint32_t i = 0; i < num_elems; i++) {
        if (qp_list[i] == NULL) {
            DOCA_LOG_ERR("qp_list[%u] is NULL", i);
            free(f->qps);
            free(f);
            return DOCA_ERROR_INVALID_VALUE;
        }
        f->qps[i] = qp_list[i]->qp_gverbs;
    }
    f->gpu = qp_list[0]->gpu_dev;
    f->n = num_elems;
    err = doca_gpu_verbs_export_multi_qps_dev(f->gpu, f->qps, num_elems, &f->array);
    if (err != DOCA_SUCCESS) {
        free(f->qps);
        free(f);
        return err;
    }
    pthread_mutex_lock(&flat_lock);
    f->next = flat_lists;
    flat_lists = f;
    pthread_mutex_unlock(&flat_lock);
    *qp_gpu = f->array;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_qp_flat_list_destroy_hl(struct doca_gpu_dev_verbs_qp *qp_gpu)
{
    struct flat_list **link;
    struct flat_list *f = NULL;
    doca_error_t err;

    pthread_mutex_lock(&flat_lock);
    for (link = &flat_lists; *link != NULL; link = &(*link)->next) {
        if ((*link)->array == qp_gpu) {
            f = *link;
            *link = f->next;
            break;
        }
    }
    pthread_mutex_unlock(&flat_lock);
    if (f == NULL) {
        DOCA_LOG_ERR("%p is not a flat list made by doca_gpu_verbs_qp_flat_list_create_hl()",
                     (void *)qp_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = doca_gpu_verbs_unexport_multi_qps_dev(f->gpu, f->qps, f->n, f->array);
    free(f->qps);
    free(f);
    return err;
}
