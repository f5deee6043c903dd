/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * High-level QP helpers: the UAR, the send CQ and the RC QP, with their
 * memory where the data path wants it (doca_gpunetio_high_level.h), then the
 * export, and with a completion channel the CQ's context and arm. The NIC
 * handler is decided before the QP exists because it says where the QP's
 * doorbell record goes: GPU memory when kernels ring the doorbell, host
 * memory when a CPU proxy does. hl_create() is the one path for single
 * QPs, groups and lists (hl_list.c): it takes the four places of the rings
 * and records from its caller, or allocates memory of the QP's own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "doca_gpunetio_high_level.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_qp.h"
#include "gpunetio/hl_internal.h"

#define HL_KNOWN_FLAGS                                                      \
    ((uint32_t)DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT | \
     (uint32_t)DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_PREFER_UAR_SHARING)

doca_error_t hl_check(const struct doca_gpu_verbs_qp_init_attr_hl *a, const void *out)
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
    if ((a->flags & ~HL_KNOWN_FLAGS) != 0) {
        DOCA_LOG_ERR("flags 0x%x: the flags are SUPPORT_DATA_DIRECT (0x1) and PREFER_UAR_SHARING "
                     "(0x2)",
                     a->flags);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t hl_check_no_rq(const struct doca_gpu_verbs_qp_init_attr_hl *a, const char *who)
{
    if (a->rq_nwqe == 0)
        return DOCA_SUCCESS;
    DOCA_LOG_ERR("%s: rq_nwqe %u: QP groups and lists have no receive queues (as DOCA's): make "
                 "the QPs that receive with doca_gpu_verbs_create_qp_hl",
                 who, a->rq_nwqe);
    return DOCA_ERROR_NOT_SUPPORTED;
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

doca_error_t hl_uar(doca_dev_t *dev, enum doca_gpu_dev_verbs_nic_handler handler,
                    bool prefer_sharing, doca_verbs_uar_t **uar)
{
    if (handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF)
        return doca_verbs_uar_create(dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_BLUEFLAME, uar);
    if (!prefer_sharing &&
        doca_verbs_uar_create(dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED, uar) ==
                DOCA_SUCCESS)
        return DOCA_SUCCESS;
    return doca_verbs_uar_create(dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE, uar);
}

doca_error_t hl_plan_make(const struct doca_gpu_verbs_qp_init_attr_hl *a, doca_dev_t *dev,
                          doca_verbs_uar_t *uar, struct hl_plan *plan)
{
    bool umem_cpu = a->enable_umem_cpu;
    void *reg = NULL;
    doca_error_t err;

    if (!umem_cpu && a->gpu_dev != NULL && gpunetio_env_is_1(GPUNETIO_HL_UMEM_CPU_ENV)) {
        DOCA_LOG_INFO("new QP: rings and records in pinned host memory the GPU maps, as "
                      "enable_umem_cpu (" GPUNETIO_HL_UMEM_CPU_ENV "=1)");
        umem_cpu = true;
    }

    memset(plan, 0, sizeof(*plan));
    plan->attr = a;
    plan->dev = dev;
    plan->handler = a->nic_handler;
    plan->sq_wr = 1u << verbs_log2_ceil(a->sq_nwqe);
    plan->cq_entries = hl_collapsed(a) ? 1 : plan->sq_wr;
    plan->rq_wr = a->rq_nwqe != 0 ? 1u << verbs_log2_ceil(a->rq_nwqe) : 0;
    if (plan->handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) {
        doca_verbs_uar_reg_addr_get(uar, &reg);
        err = gpunetio_auto_handler(a->gpu_dev, a->send_dbr_mode_ext, reg, true, "new QP",
                                    &plan->handler);
        if (err != DOCA_SUCCESS)
            return err;
    }
    if (a->gpu_dev == NULL) {
        plan->cq_kind = plan->sq_kind = plan->sq_dbr_kind = HL_MEM_HOST;
        return DOCA_SUCCESS;
    }
    plan->cq_kind = plan->sq_kind = umem_cpu ? HL_MEM_PINNED : HL_MEM_GPU;
    /*
     * A CPU proxy writes the QP's record from the host, and so do a service's receive side
     * and the thread of an emulated record.
     */
    plan->sq_dbr_kind =
            (plan->handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) != 0 ||
                            plan->rq_wr != 0 ||
                            a->send_dbr_mode_ext ==
                                    DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED
                    ? HL_MEM_PINNED
                    : plan->sq_kind;
    return DOCA_SUCCESS;
}

static struct hl_place hl_place_of(doca_verbs_umem_t *umem, uint64_t offset, void *base,
                                   enum hl_mem_kind kind)
{
    struct hl_place p = {
            .umem = umem,
            .offset = offset,
            .addr = (uint8_t *)base + offset,
            .gpu_mem = kind == HL_MEM_GPU,
    };

    return p;
}

/*
 * Memory of hl's own (a single QP with a GPU): the CQ ring with its record
 * after it, the work queue with the QP's record after it unless that goes
 * to memory of another kind (a CPU proxy's), which then has its own.
 */
static doca_error_t hl_own_places(const struct hl_plan *p, struct doca_gpu_verbs_qp_hl *hl,
                                  struct hl_places *pl)
{
    const struct doca_gpu_verbs_qp_init_attr_hl *a = p->attr;
    size_t ring = (size_t)p->cq_entries * VERBS_CQE_SIZE;
    /* The receive queue (one 16-byte segment a WQE) comes first in the work queue. */
    size_t wq = (size_t)p->rq_wr * VERBS_RQ_UNIT + (size_t)p->sq_wr * VERBS_SQ_STRIDE;
    bool dbr_with_wq = p->sq_dbr_kind == p->sq_kind;
    void *cpu = NULL;
    doca_error_t err;

    err = hl_mem_alloc(hl->gpu_dev, hl->dev, p->cq_kind, a->mreg_type, ring + HL_DBR_BYTES,
                       &hl->cq_sq_umem_gpu_ptr, &cpu, &hl->cq_sq_umem, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    pl->cq_ring = hl_place_of(hl->cq_sq_umem, 0, hl->cq_sq_umem_gpu_ptr, p->cq_kind);
    pl->cq_dbr = hl_place_of(hl->cq_sq_umem, ring, hl->cq_sq_umem_gpu_ptr, p->cq_kind);
    err = hl_mem_alloc(hl->gpu_dev, hl->dev, p->sq_kind, a->mreg_type,
                       wq + (dbr_with_wq ? HL_DBR_BYTES : 0), &hl->qp_umem_gpu_ptr, &cpu,
                       &hl->qp_umem, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    pl->sq_ring = hl_place_of(hl->qp_umem, 0, hl->qp_umem_gpu_ptr, p->sq_kind);
    if (dbr_with_wq) {
        pl->sq_dbr = hl_place_of(hl->qp_umem, wq, hl->qp_umem_gpu_ptr, p->sq_kind);
    } else {
        err = hl_mem_alloc(hl->gpu_dev, hl->dev, p->sq_dbr_kind, a->mreg_type, HL_DBR_BYTES,
                           &hl->qp_umem_dbr_gpu_ptr, &cpu, &hl->qp_umem_dbr, NULL);
        if (err != DOCA_SUCCESS)
            return err;
        pl->sq_dbr = hl_place_of(hl->qp_umem_dbr, 0, hl->qp_umem_dbr_gpu_ptr, p->sq_dbr_kind);
    }
    hl->qp_umem_dbr_gpu_ptr = pl->sq_dbr.addr;
    return DOCA_SUCCESS;
}

/* The receive CQ of a QP with rq_nwqe: host memory of the library's, which the service polls. */
static doca_error_t hl_receive_cq(const struct hl_plan *p, struct doca_gpu_verbs_qp_hl *hl)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_cq_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    doca_verbs_cq_attr_set_cq_size(attr, p->rq_wr);
    doca_verbs_cq_attr_set_external_uar(attr, hl->external_uar);
    err = doca_verbs_cq_create(hl->dev, attr, &hl->cq_rq);
    doca_verbs_cq_attr_destroy(attr);
    return err;
}

/* The send CQ on hl's UAR, in places (NULL: library memory). */
static doca_error_t hl_cq(const struct hl_plan *p, struct doca_gpu_verbs_qp_hl *hl,
                          const struct hl_places *pl)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_cq_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    doca_verbs_cq_attr_set_cq_size(attr, p->cq_entries);
    doca_verbs_cq_attr_set_cq_overrun(attr, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    doca_verbs_cq_attr_set_cq_collapsed(attr, hl_collapsed(p->attr));
    doca_verbs_cq_attr_set_external_uar(attr, hl->external_uar);
    if (pl != NULL) {
        err = doca_verbs_cq_attr_set_external_umem(attr, pl->cq_ring.umem, pl->cq_ring.offset);
        if (err == DOCA_SUCCESS)
            err = doca_verbs_cq_attr_set_external_dbr_umem(attr, pl->cq_dbr.umem,
                                                           pl->cq_dbr.offset);
    }
    if (err == DOCA_SUCCESS && p->attr->comp_channel != NULL)
        err = doca_verbs_cq_attr_set_comp_channel(attr, p->attr->comp_channel);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_create(hl->dev, attr, &hl->cq_sq);
    doca_verbs_cq_attr_destroy(attr);
    return err == DOCA_SUCCESS && p->rq_wr != 0 ? hl_receive_cq(p, hl) : err;
}

/* The RC QP on hl's CQ and UAR, its queue and record in places (NULL: library memory). */
static doca_error_t hl_qp(const struct hl_plan *p, struct doca_gpu_verbs_qp_hl *hl,
                          const struct hl_places *pl)
{
    const struct doca_gpu_verbs_qp_init_attr_hl *a = p->attr;
    doca_verbs_qp_init_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_qp_init_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    doca_verbs_qp_init_attr_set_pd(attr, hl->dev);
    doca_verbs_qp_init_attr_set_send_cq(attr, hl->cq_sq);
    doca_verbs_qp_init_attr_set_receive_cq(attr, hl->cq_rq != NULL ? hl->cq_rq : hl->cq_sq);
    doca_verbs_qp_init_attr_set_sq_wr(attr, p->sq_wr);
    if (p->rq_wr != 0) {
        doca_verbs_qp_init_attr_set_rq_wr(attr, p->rq_wr);
        doca_verbs_qp_init_attr_set_receive_max_sges(attr, 1);
    }
    doca_verbs_qp_init_attr_set_send_max_sges(attr, 1);
    doca_verbs_qp_init_attr_set_max_inline_data(attr, DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE);
    doca_verbs_qp_init_attr_set_qp_type(attr, DOCA_VERBS_QP_TYPE_RC);
    doca_verbs_qp_init_attr_set_external_uar(attr, hl->external_uar);
    err = doca_verbs_qp_init_attr_set_ordering_semantic(attr, a->ordering_semantic);
    if (a->send_dbr_mode_ext != DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR) {
        doca_verbs_qp_init_attr_set_send_dbr_mode(attr, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT);
        doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(
                attr,
                a->send_dbr_mode_ext == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED);
    }
    if (err == DOCA_SUCCESS && pl != NULL) {
        err = doca_verbs_qp_init_attr_set_external_umem(attr, pl->sq_ring.umem, pl->sq_ring.offset);
        if (err == DOCA_SUCCESS)
            err = doca_verbs_qp_init_attr_set_external_umem_dbr(attr, pl->sq_dbr.umem,
                                                                pl->sq_dbr.offset);
    }
    if (err == DOCA_SUCCESS)
        err = doca_verbs_qp_create(hl->dev, attr, &hl->qp);
    doca_verbs_qp_init_attr_destroy(attr);
    return err;
}

/* comp_channel: events of the send CQ carry the exported QP, armed for the first one. */
static doca_error_t hl_arm(struct doca_gpu_verbs_qp_hl *hl)
{
    doca_error_t err = doca_verbs_cq_set_cq_context(hl->cq_sq, hl->qp_gverbs);

    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_req_notify_cq(hl->gpu_dev, hl->cq_sq);
    return err;
}

doca_error_t hl_create(const struct hl_plan *p, doca_verbs_uar_t *uar,
                       const struct hl_places *places, struct doca_gpu_verbs_qp_hl *hl)
{
    const struct doca_gpu_verbs_qp_init_attr_hl *a = p->attr;
    struct hl_places own;
    void *rq_dbr = NULL;
    doca_error_t err;

    hl->gpu_dev = a->gpu_dev;
    hl->dev = p->dev;
    hl->send_dbr_mode_ext = a->send_dbr_mode_ext;
    hl->external_uar = uar;
    if (places == NULL && a->gpu_dev != NULL) {
        err = hl_own_places(p, hl, &own);
        if (err != DOCA_SUCCESS)
            return err;
        places = &own;
    } else if (places != NULL) {
        hl->cq_sq_umem_gpu_ptr = places->cq_ring.addr;
        hl->qp_umem_gpu_ptr = places->sq_ring.addr;
        hl->qp_umem_dbr_gpu_ptr = places->sq_dbr.addr;
    }
    err = hl_cq(p, hl, places);
    if (err == DOCA_SUCCESS)
        err = hl_qp(p, hl, places);
    if (err == DOCA_SUCCESS && hl->cq_rq != NULL)
        err = doca_verbs_qp_get_dbr_addr(hl->qp, &rq_dbr);
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_export_qp(
                a->gpu_dev, hl->qp, p->handler,
                places != NULL && places->sq_ring.gpu_mem ? places->sq_ring.addr : NULL, hl->cq_sq,
                hl->cq_rq, rq_dbr, a->send_dbr_mode_ext, hl_cq_type(a),
                (a->flags & DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT) != 0,
                &hl->qp_gverbs);
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_get_nic_handler(hl->qp_gverbs, &hl->nic_handler);
    if (err == DOCA_SUCCESS && a->comp_channel != NULL)
        err = hl_arm(hl);
    return err;
}

doca_error_t hl_releasable(const struct doca_gpu_verbs_qp_hl *hl)
{
    if (hl->cq_sq != NULL && atomic_load(&hl->cq_sq->events_unacked) != 0) {
        DOCA_LOG_ERR("the send CQ of QP %p has %u completion events not acknowledged: call "
                     "doca_verbs_ack_cq_events() first",
                     (void *)hl->qp_gverbs, atomic_load(&hl->cq_sq->events_unacked));
        return DOCA_ERROR_IN_USE;
    }
    if (hl->qp_gverbs != NULL && atomic_load(&hl->qp_gverbs->event_users) != 0) {
        DOCA_LOG_ERR("QP %p is subscribed to a net-event object: destroy it first "
                     "(doca_gpu_net_event_destroy)",
                     (void *)hl->qp_gverbs);
        return DOCA_ERROR_IN_USE;
    }
    return DOCA_SUCCESS;
}

void hl_release(struct doca_gpu_verbs_qp_hl *hl, unsigned int own)
{
    if (hl->qp_gverbs != NULL)
        doca_gpu_verbs_unexport_qp(hl->gpu_dev, hl->qp_gverbs);
    if (hl->qp != NULL)
        doca_verbs_qp_destroy(hl->qp);
    if (hl->cq_sq != NULL)
        doca_verbs_cq_destroy(hl->cq_sq);
    if (hl->cq_rq != NULL)
        doca_verbs_cq_destroy(hl->cq_rq);
    if (own & HL_OWN_MEM) {
        /* A record after the work queue has no memory of its own. */
        if (hl->qp_umem_dbr != NULL)
            hl_mem_free(hl->gpu_dev, HL_MEM_GPU, hl->qp_umem_dbr_gpu_ptr, NULL, hl->qp_umem_dbr);
        hl_mem_free(hl->gpu_dev, HL_MEM_GPU, hl->qp_umem_gpu_ptr, NULL, hl->qp_umem);
        hl_mem_free(hl->gpu_dev, HL_MEM_GPU, hl->cq_sq_umem_gpu_ptr, NULL, hl->cq_sq_umem);
    }
    if ((own & HL_OWN_UAR) && hl->external_uar != NULL)
        doca_verbs_uar_destroy(hl->external_uar);
    if ((own & HL_OWN_DEV) && hl->dev_opened)
        doca_verbs_dev_close(hl->dev);
}

doca_error_t hl_dev(const struct doca_gpu_verbs_qp_init_attr_hl *a, doca_dev_t **dev, bool *opened)
{
    doca_error_t err;

    *opened = false;
    if (a->net_dev != NULL) {
        *dev = a->net_dev;
        return DOCA_SUCCESS;
    }
    err = doca_verbs_dev_open(a->ibpd, dev);
    *opened = err == DOCA_SUCCESS;
    return err;
}

bool hl_prefer_sharing(const struct doca_gpu_verbs_qp_init_attr_hl *a)
{
    return (a->flags & DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_PREFER_UAR_SHARING) != 0;
}

/* A single QP, or a group's main QP: device, UAR, plan, then the QP in memory of its own. */
static doca_error_t hl_create_first(const struct doca_gpu_verbs_qp_init_attr_hl *a,
                                    struct hl_plan *plan, struct doca_gpu_verbs_qp_hl *hl)
{
    doca_verbs_uar_t *uar = NULL;
    doca_error_t err = hl_dev(a, &hl->dev, &hl->dev_opened);

    if (err != DOCA_SUCCESS)
        return err;
    err = hl_uar(hl->dev, a->nic_handler, hl_prefer_sharing(a), &uar);
    if (err != DOCA_SUCCESS)
        return err;
    hl->external_uar = uar;
    err = hl_plan_make(a, hl->dev, uar, plan);
    if (err != DOCA_SUCCESS)
        return err;
    return hl_create(plan, uar, NULL, hl);
}

doca_error_t doca_gpu_verbs_create_qp_hl(const struct doca_gpu_verbs_qp_init_attr_hl *attr,
                                         struct doca_gpu_verbs_qp_hl **qp)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_create_qp_hl, (attr, qp), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_qp_hl *hl;
    struct hl_plan plan;
    doca_error_t err = hl_check(attr, qp);

    if (err != DOCA_SUCCESS)
        return err;
    hl = calloc(1, sizeof(*hl));
    if (hl == NULL) {
        DOCA_LOG_ERR("out of memory for a high-level QP");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = hl_create_first(attr, &plan, hl);
    if (err != DOCA_SUCCESS) {
        hl_release(hl, HL_OWN_UAR | HL_OWN_MEM | HL_OWN_DEV);
        free(hl);
        return err;
    }
    *qp = hl;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_qp_hl(struct doca_gpu_verbs_qp_hl *qp)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_destroy_qp_hl, (qp), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (qp == NULL) {
        DOCA_LOG_ERR("qp is NULL: pass what doca_gpu_verbs_create_qp_hl() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = hl_releasable(qp);
    if (err != DOCA_SUCCESS)
        return err;
    hl_release(qp, HL_OWN_UAR | HL_OWN_MEM | HL_OWN_DEV);
    free(qp);
    return DOCA_SUCCESS;
}

/* The companion goes first: the main QP owns the UAR and the device. */
static void hl_group_release(struct doca_gpu_verbs_qp_group_hl *g, unsigned int own)
{
    hl_release(&g->qp_companion, own & HL_OWN_MEM);
    hl_release(&g->qp_main, own);
}

doca_error_t doca_gpu_verbs_create_qp_group_hl(const struct doca_gpu_verbs_qp_init_attr_hl *attr,
                                               struct doca_gpu_verbs_qp_group_hl **group)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_create_qp_group_hl, (attr, group), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_verbs_qp_group_hl *g;
    struct hl_plan plan;
    doca_error_t err = hl_check(attr, group);

    if (err == DOCA_SUCCESS)
        err = hl_check_no_rq(attr, "doca_gpu_verbs_create_qp_group_hl");
    if (err != DOCA_SUCCESS)
        return err;
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        DOCA_LOG_ERR("out of memory for a high-level QP group");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = hl_create_first(attr, &plan, &g->qp_main);
    if (err == DOCA_SUCCESS)
        err = hl_create(&plan, g->qp_main.external_uar, NULL, &g->qp_companion);
    if (err != DOCA_SUCCESS) {
        hl_group_release(g, HL_OWN_UAR | HL_OWN_MEM | HL_OWN_DEV);
        free(g);
        return err;
    }
    *group = g;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_destroy_qp_group_hl(struct doca_gpu_verbs_qp_group_hl *group)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_destroy_qp_group_hl, (group), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (group == NULL) {
        DOCA_LOG_ERR("group is NULL: pass what doca_gpu_verbs_create_qp_group_hl() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = hl_releasable(&group->qp_main);
    if (err == DOCA_SUCCESS)
        err = hl_releasable(&group->qp_companion);
    if (err != DOCA_SUCCESS)
        return err;
    hl_group_release(group, HL_OWN_UAR | HL_OWN_MEM | HL_OWN_DEV);
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
    DGN_SDK_ROUTE(doca_gpu_verbs_qp_flat_list_create_hl, (qp_list, num_elems, qp_gpu),
                  DOCA_ERROR_NOT_SUPPORTED);

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
    DGN_SDK_ROUTE(doca_gpu_verbs_qp_flat_list_destroy_hl, (qp_gpu), DOCA_ERROR_NOT_SUPPORTED);

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
