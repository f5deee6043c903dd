/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Export of a DOCA Verbs QP to the data path: the NIC handler is resolved
 * and checked against what the QP and the machine can do, the descriptor
 * (struct doca_gpu_dev_verbs_qp) is filled with the addresses the executing
 * processor uses - host memory the QP keeps is mapped for the GPU, and so
 * is the UAR - and placed in GPU memory (or host memory for CPU threads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_map.h"
#include "gpunetio/gpunetio_qp.h"
#include "gdaki_verbs_desc.h"

const char *gpunetio_dbr_mode_name(enum doca_gpu_verbs_send_dbr_mode_ext mode)
{
    switch (mode) {
    case DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR:
        return "VALID_DBR";
    case DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW:
        return "NO_DBR_HW";
    case DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED:
        return "NO_DBR_SW_EMULATED";
    default:
        return "unknown";
    }
}

/* How the QP keeps its send doorbell record, from how it was made. */
static enum doca_gpu_verbs_send_dbr_mode_ext qp_dbr_mode(const doca_verbs_qp_t *qp)
{
    if (qp->no_dbr)
        return DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW;
    if (qp->emulated)
        return DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED;
    return DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR;
}

/* Whether a CPU thread can write the QP's doorbell record (none, or one in host memory). */
static bool proxy_can_write_dbr(const doca_verbs_qp_t *qp,
                                enum doca_gpu_verbs_send_dbr_mode_ext mode)
{
    return mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW || !qp->dbr.umem->gpu;
}

doca_error_t gpunetio_auto_handler(doca_gpu_t *gpu, enum doca_gpu_verbs_send_dbr_mode_ext mode,
                                   void *uar_reg, bool dbr_in_host, const char *who,
                                   enum doca_gpu_dev_verbs_nic_handler *out)
{
    /* Either no-DBR mode rings without writing the record (the emulated one's is a CPU's). */
    enum doca_gpu_dev_verbs_nic_handler sm = mode != DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR
                                                     ? DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR
                                                     : DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;
    bool can_map = false;

    if (gpu == NULL) {
        *out = sm;
        DOCA_LOG_INFO("%s: NIC handler AUTO is %s: CPU threads ring the doorbell themselves", who,
                      gdaki_nic_handler_name(sm));
        return DOCA_SUCCESS;
    }
    doca_gpu_verbs_can_gpu_register_uar(uar_reg, &can_map);
    if (can_map) {
        *out = sm;
        DOCA_LOG_INFO("%s: NIC handler AUTO is %s: the UAR maps for GPU stores, so kernels ring "
                      "the doorbell",
                      who, gdaki_nic_handler_name(sm));
        return DOCA_SUCCESS;
    }
    if (!dbr_in_host && mode != DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW) {
        DOCA_LOG_ERR("%s: no NIC handler works: the UAR cannot be mapped for the GPU, and the CPU "
                     "proxy cannot write a doorbell record in GPU memory; put the record in host "
                     "memory (doca_gpu_verbs_create_qp_hl does)",
                     who);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *out = DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY;
    DOCA_LOG_WARN("%s: NIC handler AUTO is CPU_PROXY: the UAR cannot be mapped for GPU stores; a "
                  "CPU thread must call doca_gpu_verbs_cpu_proxy_progress()",
                  who);
    return DOCA_SUCCESS;
}

/* Checks that the machine and the QP can do handler h (already resolved). */
static doca_error_t check_handler(const doca_verbs_qp_t *qp,
                                  enum doca_gpu_verbs_send_dbr_mode_ext mode, uint32_t h)
{
    const char *name = gdaki_nic_handler_name(h);

    if (h & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) {
        if (!proxy_can_write_dbr(qp, mode)) {
            DOCA_LOG_ERR("QP 0x%x: %s needs the QP's doorbell record in host memory (the CPU "
                         "writes it while kernels run); this one is in GPU memory",
                         qp->qpn, name);
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        return DOCA_SUCCESS;
    }
    if (h & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) {
        if (mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR) {
            DOCA_LOG_ERR("QP 0x%x: %s needs a QP made with send_dbr_mode NO_DBR_EXT; this one "
                         "has a doorbell record (use GPU_SM_DB)",
                         qp->qpn, name);
            return DOCA_ERROR_INVALID_VALUE;
        }
        if (mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED &&
            !proxy_can_write_dbr(qp, mode)) {
            DOCA_LOG_ERR("QP 0x%x: %s with a software-emulated doorbell record needs the record in "
                         "host memory (a CPU thread writes it); this one is in GPU memory",
                         qp->qpn, name);
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        return DOCA_SUCCESS;
    }
    if (mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW) {
        DOCA_LOG_ERR("QP 0x%x: %s writes a doorbell record, and this QP was made without one "
                     "(NO_DBR_EXT): use GPU_SM_NO_DBR",
                     qp->qpn, name);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

static doca_error_t check_args(doca_verbs_qp_t *qp, uint32_t nic_handler, doca_verbs_cq_t *cq_sq,
                               enum doca_gpu_verbs_send_dbr_mode_ext mode,
                               struct doca_gpu_verbs_qp **qp_out)
{
    uint32_t bbs = qp == NULL ? 0 : qp->layout.sq_wqebb_cnt;

    if (qp == NULL || cq_sq == NULL || qp_out == NULL) {
        DOCA_LOG_ERR("qp (%p), cq_sq (%p) and qp_out (%p) must not be NULL", (void *)qp,
                     (void *)cq_sq, (void *)qp_out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (nic_handler != DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO &&
        strcmp(gdaki_nic_handler_name(nic_handler), "unknown") == 0) {
        DOCA_LOG_ERR("NIC handler %u is unknown: use 0 (AUTO), 1 (CPU_PROXY), 2 (GPU_SM_DB), 6 "
                     "(GPU_SM_BF), 10 (GPU_SM_NO_DBR) or 17 (CPU_PROXY_FREE_FLOW)",
                     nic_handler);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (qp->init.send_cq != cq_sq) {
        DOCA_LOG_ERR("cq_sq (CQ 0x%x) is not the send CQ of QP 0x%x (CQ 0x%x)", cq_sq->cqn, qp->qpn,
                     qp->init.send_cq->cqn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!cq_sq->overrun_ignore) {
        DOCA_LOG_ERR(
                "CQ 0x%x was made without DOCA_VERBS_CQ_ENABLE_OVERRUN: the data path does not "
                "consume CQEs in order, so the NIC must not stop at a full CQ; make it with "
                "doca_verbs_cq_attr_set_cq_overrun(attr, DOCA_VERBS_CQ_ENABLE_OVERRUN)",
                cq_sq->cqn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (bbs > DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM) {
        DOCA_LOG_ERR("QP 0x%x has %u send basic blocks; the data path takes at most %u "
                     "(completions are matched by 16-bit counters)",
                     qp->qpn, bbs, DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mode != qp_dbr_mode(qp)) {
        DOCA_LOG_ERR("send_dbr_mode_ext %s does not match QP 0x%x, which was made %s",
                     gpunetio_dbr_mode_name(mode), qp->qpn,
                     gpunetio_dbr_mode_name(qp_dbr_mode(qp)));
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* addr (host memory of the QP or CQ) as the executor sees it: mapped for the GPU when exporting to
 * one. */
static doca_error_t executor_addr(struct doca_gpu_verbs_qp *gqp, void *addr, size_t len,
                                  bool gpu_mem, const char *what, void **out)
{
    doca_error_t err;

    if (gpu_mem == (gqp->gpu != NULL)) {
        *out = addr;
        return DOCA_SUCCESS;
    }
    if (gpu_mem) {
        DOCA_LOG_ERR("QP 0x%x: %s is in GPU memory, which CPU threads cannot reach: export it with "
                     "a doca_gpu",
                     gqp->qp->qpn, what);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = gpunetio_map_host(addr, len, false, what, out);
    if (err == DOCA_SUCCESS)
        gqp->maps[gqp->nmaps++] = *out;
    return err;
}

/* Fills gqp->desc (and host_view) for the resolved handler. */
static doca_error_t build_desc(struct doca_gpu_verbs_qp *gqp, void *gpu_qp_umem_dev_ptr)
{
    const doca_verbs_qp_t *qp = gqp->qp;
    const struct verbs_qp_layout *l = &qp->layout;
    const doca_verbs_cq_t *cq = gqp->cq;
    struct doca_gpu_dev_verbs_qp *d = &gqp->desc;
    uint32_t h = gqp->nic_handler;
    size_t cq_bytes = (size_t)VERBS_CQE_SIZE << cq->log_size;
    enum doca_gpu_dev_verbs_sync_scope scope;
    uint8_t *ring;
    void *p;
    doca_error_t err;

    if (gpu_qp_umem_dev_ptr != NULL && gpu_qp_umem_dev_ptr != l->wq) {
        DOCA_LOG_ERR("gpu_qp_umem_dev_ptr %p is not QP 0x%x's work queue (%p)", gpu_qp_umem_dev_ptr,
                     qp->qpn, l->wq);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = executor_addr(gqp, l->wq, l->rq_bytes + l->sq_bytes, l->gpu, "the work queue", &p);
    if (err != DOCA_SUCCESS)
        return err;
    scope = gdaki_desc_nic_scope(gqp->gpu != NULL, h, l->gpu, qp->dbr.umem->gpu);
    if (scope != DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS &&
        gpunetio_env_is_1(GPUNETIO_NIC_FENCE_SYS_ENV)) {
        DOCA_LOG_INFO("QP 0x%x: system-scope doorbell fences (" GPUNETIO_NIC_FENCE_SYS_ENV "=1)",
                      qp->qpn);
        scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    }
    gdaki_desc_set_sq(d, (uint8_t *)p + l->rq_bytes, l->sq_wqebb_cnt, qp->qpn, h,
                      l->gpu ? DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU : DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
                      scope);

    err = executor_addr(gqp, verbs_buf_addr(&cq->ring), cq_bytes, cq->ring.umem->gpu, "the CQ ring",
                        &p);
    if (err != DOCA_SUCCESS)
        return err;
    ring = p;
    err = executor_addr(gqp, verbs_buf_addr(&cq->dbr), sizeof(uint32_t), cq->dbr.umem->gpu,
                        "the CQ doorbell record", &p);
    if (err != DOCA_SUCCESS)
        return err;
    gdaki_desc_set_cq(&d->cq_sq, ring, cq->log_size, cq->cqn, cq->collapsed,
                      cq->ring.umem->gpu ? DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU
                                         : DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
                      p);
    d->cq_sq.cqe_base = cq->dp_base;
    d->cq_sq.cqe_base_owner = cq->dp_owner;

    /* The proxy's view: the host addresses of the record and the register, rung as an SM would. */
    gqp->host_view = *d;
    gqp->host_view.sq_dbrec =
            gqp->dbr_mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW ? NULL : l->dbr + 1;
    gqp->host_view.sq_db = l->uar_reg;
    gqp->host_view.nic_handler = gqp->dbr_mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW
                                         ? DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR
                                         : DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;

    if (h & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY)
        return DOCA_SUCCESS; /* the data path rings nothing: no record, no register */
    if ((h & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) == 0) {
        err = executor_addr(gqp, l->dbr + 1, sizeof(uint32_t), qp->dbr.umem->gpu,
                            "the QP doorbell record", &p);
        if (err != DOCA_SUCCESS)
            return err;
        d->sq_dbrec = p;
    }
    if (gqp->gpu == NULL) {
        d->sq_db = l->uar_reg;
        return DOCA_SUCCESS;
    }
    err = gpunetio_map_host(l->uar_reg, 8 * sizeof(uint64_t), true, "the UAR", &p);
    if (err != DOCA_SUCCESS) {
        DOCA_LOG_ERR("QP 0x%x: NIC handler %s needs the UAR mapped for GPU stores, which this "
                     "machine refuses; use CPU_PROXY (or AUTO)",
                     qp->qpn, gdaki_nic_handler_name(h));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    gqp->maps[gqp->nmaps++] = p;
    d->sq_db = p;
    return DOCA_SUCCESS;
}

/* Why cq_rq cannot complete the data path's receives of qp; NULL when it can. */
static const char *rq_cq_unfit(const doca_verbs_qp_t *qp, const doca_verbs_cq_t *cq_rq)
{
    if (cq_rq != qp->init.receive_cq)
        return "it is not the QP's receive CQ";
    if (cq_rq == qp->init.send_cq)
        return "it is the send CQ too: CQE number i of the receive CQ completes receive i, so it "
               "must be a CQ of its own";
    if (!cq_rq->overrun_ignore || cq_rq->collapsed)
        return "it must be a regular CQ made with DOCA_VERBS_CQ_ENABLE_OVERRUN: the data path "
               "matches receive CQEs by index, consuming none in order";
    if ((1u << cq_rq->log_size) < qp->layout.rq_wqe_cnt)
        return "it has fewer entries than the receive queue has WQEs";
    return NULL;
}

/*
 * The receive queue and its CQ in the descriptor, for the data path to
 * post receives and poll their completions (export with cq_rq and no
 * dbr_cpu_ptr). The ring is the work queue's first part, already mapped.
 */
static doca_error_t build_rq_desc(struct doca_gpu_verbs_qp *gqp, doca_verbs_cq_t *cq_rq)
{
    const doca_verbs_qp_t *qp = gqp->qp;
    const struct verbs_qp_layout *l = &qp->layout;
    struct doca_gpu_dev_verbs_qp *d = &gqp->desc;
    size_t cq_bytes = (size_t)VERBS_CQE_SIZE << cq_rq->log_size;
    const char *unfit = rq_cq_unfit(qp, cq_rq);
    enum doca_gpu_dev_verbs_sync_scope scope;
    uint8_t *ring;
    void *dbrec;
    void *p;
    doca_error_t err;

    if (l->rq_wqe_cnt == 0 || qp->init.srq != NULL) {
        DOCA_LOG_ERR("QP 0x%x has no receive queue of its own (rq_wr 0, or an SRQ): export it "
                     "with cq_rq NULL",
                     qp->qpn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (unfit != NULL) {
        DOCA_LOG_ERR("QP 0x%x: cq_rq (CQ 0x%x) cannot complete the data path's receives: %s",
                     qp->qpn, cq_rq->cqn, unfit);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (l->rq_wqe_cnt > DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM) {
        DOCA_LOG_ERR("QP 0x%x has %u receive WQEs; the data path takes at most %u (completions "
                     "are matched by 16-bit counters)",
                     qp->qpn, l->rq_wqe_cnt, DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = executor_addr(gqp, l->dbr, sizeof(uint32_t), qp->dbr.umem->gpu, "the QP doorbell record",
                        &dbrec);
    if (err == DOCA_SUCCESS)
        err = executor_addr(gqp, verbs_buf_addr(&cq_rq->ring), cq_bytes, cq_rq->ring.umem->gpu,
                            "the receive CQ ring", &p);
    if (err != DOCA_SUCCESS)
        return err;
    ring = p;
    err = executor_addr(gqp, verbs_buf_addr(&cq_rq->dbr), sizeof(uint32_t), cq_rq->dbr.umem->gpu,
                        "the receive CQ doorbell record", &p);
    if (err != DOCA_SUCCESS)
        return err;
    /* The receive record has no doorbell after it: the fence alone orders the WQEs for the NIC. */
    scope = gdaki_desc_nic_scope(gqp->gpu != NULL, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB,
                                 l->gpu, qp->dbr.umem->gpu);
    if (gpunetio_env_is_1(GPUNETIO_NIC_FENCE_SYS_ENV))
        scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    gdaki_desc_set_rq(d, d->sq_wqe_daddr - l->rq_bytes, l->rq_wqe_cnt, l->rq_stride, qp->qpn, dbrec,
                      scope);
    gdaki_desc_set_cq(&d->cq_rq, ring, cq_rq->log_size, cq_rq->cqn, 0,
                      cq_rq->ring.umem->gpu ? DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU
                                            : DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
                      p);
    d->cq_rq.cqe_base = cq_rq->dp_base;
    d->cq_rq.cqe_base_owner = cq_rq->dp_owner;
    gqp->cq_rq_dp = cq_rq;
    return DOCA_SUCCESS;
}

/* Allocates the proxy word, where the data path publishes its producer index for the CPU. */
static doca_error_t alloc_proxy_word(struct doca_gpu_verbs_qp *gqp)
{
    void *gpu_ptr = NULL;
    void *cpu_ptr = NULL;
    doca_error_t err;

    if (gqp->gpu == NULL) {
        gqp->proxy_pi = aligned_alloc(64, 64);
        if (gqp->proxy_pi == NULL) {
            DOCA_LOG_ERR("out of memory for the CPU proxy word");
            return DOCA_ERROR_NO_MEMORY;
        }
        memset(gqp->proxy_pi, 0, 64);
        gqp->desc.cpu_proxy_pi = gqp->proxy_pi;
        return DOCA_SUCCESS;
    }
    err = doca_gpu_mem_alloc(gqp->gpu, 64, 64, DOCA_GPU_MEM_TYPE_CPU_GPU, &gpu_ptr, &cpu_ptr);
    if (err != DOCA_SUCCESS)
        return err;
    gqp->proxy_pi = cpu_ptr;
    gqp->desc.cpu_proxy_pi = gpu_ptr;
    return DOCA_SUCCESS;
}

/* Copies the descriptor to where the data path uses it. */
static doca_error_t place_desc(struct doca_gpu_verbs_qp *gqp)
{
    const struct core_cuda_ops *cuda;
    void *dev = NULL;
    char why[160];
    core_cu_result rc;
    doca_error_t err;

    if (gqp->gpu == NULL) {
        gqp->dev = aligned_alloc(DOCA_GPUNETIO_VERBS_QP_LINE, sizeof(*gqp->dev));
        if (gqp->dev == NULL) {
            DOCA_LOG_ERR("out of memory for the QP descriptor");
            return DOCA_ERROR_NO_MEMORY;
        }
        return gpunetio_qp_write_desc(gqp);
    }
    err = doca_gpu_mem_alloc(gqp->gpu, sizeof(*gqp->dev), DOCA_GPUNETIO_VERBS_QP_LINE,
                             DOCA_GPU_MEM_TYPE_GPU, &dev, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    gqp->dev = dev;
    err = gpunetio_qp_write_desc(gqp);
    if (err != DOCA_SUCCESS)
        return err;
    err = gpunetio_gpu_bind(gqp->gpu, &cuda);
    if (err != DOCA_SUCCESS)
        return err;
    rc = cuda->cuStreamCreate(&gqp->stream, CORE_CU_STREAM_NON_BLOCKING);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot make the QP descriptor's stream: %s",
                     gpunetio_cu_error(cuda, rc, why, sizeof(why)));
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

doca_error_t gpunetio_qp_write_desc(struct doca_gpu_verbs_qp *gqp)
{
    const struct core_cuda_ops *cuda;
    char why[160];
    core_cu_result rc;
    doca_error_t err;

    if (gqp->gpu == NULL) {
        *gqp->dev = gqp->desc;
        return DOCA_SUCCESS;
    }
    err = gpunetio_gpu_bind(gqp->gpu, &cuda);
    if (err != DOCA_SUCCESS)
        return err;
    rc = cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)gqp->dev, &gqp->desc, sizeof(gqp->desc));
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot write the QP descriptor to GPU memory: %s",
                     gpunetio_cu_error(cuda, rc, why, sizeof(why)));
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

/* Frees what export made, in any state of completion. */
static void export_release(struct doca_gpu_verbs_qp *gqp)
{
    const struct core_cuda_ops *cuda;

    gpunetio_free_flow_stop(gqp);
    for (int i = 0; i < gqp->nmaps; i++)
        gpunetio_unmap_host(gqp->maps[i]);
    if (gqp->gpu == NULL) {
        free(gqp->dev);
        free(gqp->proxy_pi);
    } else {
        if (gqp->stream != NULL && gpunetio_gpu_bind(gqp->gpu, &cuda) == DOCA_SUCCESS)
            cuda->cuStreamDestroy(gqp->stream);
        if (gqp->dev != NULL)
            doca_gpu_mem_free(gqp->gpu, gqp->dev);
        if (gqp->desc.cpu_proxy_pi != NULL)
            doca_gpu_mem_free(gqp->gpu, gqp->desc.cpu_proxy_pi);
    }
    pthread_mutex_destroy(&gqp->proxy_lock);
    free(gqp);
}

/*
 * The CQ kind the caller asked for must be the one cq_sq is (UNKNOWN: take
 * it from the CQ). A host CQ whose consumer index a CPU proxy advances
 * (COLLAPSED_HOST) is not how this library's proxy works.
 */
static doca_error_t check_cq_type(const doca_verbs_cq_t *cq_sq,
                                  enum doca_gpu_dev_verbs_cq_type cq_type, bool enable_data_direct)
{
    enum doca_gpu_dev_verbs_cq_type is = gdaki_desc_cq_type(cq_sq->collapsed);

    /* DOCA maps a descriptor for the CPU through Data Direct only on GDRCopy's paths. */
    if (enable_data_direct)
        DOCA_LOG_INFO("enable_data_direct: the descriptor is not mapped for the CPU (this "
                      "library's paths need no GDRCopy), so Data Direct changes nothing for it");
    if (cq_type == DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST) {
        DOCA_LOG_ERR("cq_type CQ_64B_COLLAPSED_HOST: this library's CPU proxy leaves the CQ to the "
                     "data path; export with DOCA_GPUNETIO_VERBS_CQ_UNKNOWN or the CQ's own kind");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (cq_type != DOCA_GPUNETIO_VERBS_CQ_UNKNOWN && cq_type != is) {
        DOCA_LOG_ERR("cq_type %u does not match CQ 0x%x, which is %s: pass %u or "
                     "DOCA_GPUNETIO_VERBS_CQ_UNKNOWN",
                     (unsigned)cq_type, cq_sq->cqn,
                     cq_sq->collapsed ? "collapsed" : "not collapsed", (unsigned)is);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_export_qp(doca_gpu_t *gpu_dev, doca_verbs_qp_t *qp,
                                      enum doca_gpu_dev_verbs_nic_handler nic_handler,
                                      void *gpu_qp_umem_dev_ptr, doca_verbs_cq_t *cq_sq,
                                      doca_verbs_cq_t *cq_rq, void *dbr_cpu_ptr,
                                      enum doca_gpu_verbs_send_dbr_mode_ext send_dbr_mode_ext,
                                      enum doca_gpu_dev_verbs_cq_type cq_type,
                                      bool enable_data_direct, struct doca_gpu_verbs_qp **qp_out)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_export_qp,
                  (gpu_dev, qp, nic_handler, gpu_qp_umem_dev_ptr, cq_sq, cq_rq, dbr_cpu_ptr,
                   send_dbr_mode_ext, cq_type, enable_data_direct, qp_out),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda;
    struct doca_gpu_verbs_qp *gqp;
    doca_error_t err = check_args(qp, (uint32_t)nic_handler, cq_sq, send_dbr_mode_ext, qp_out);

    if (err == DOCA_SUCCESS)
        err = check_cq_type(cq_sq, cq_type, enable_data_direct);
    if (err != DOCA_SUCCESS)
        return err;
    if (gpu_dev != NULL && (err = gpunetio_gpu_bind(gpu_dev, &cuda)) != DOCA_SUCCESS)
        return err;
    gqp = calloc(1, sizeof(*gqp));
    if (gqp == NULL) {
        DOCA_LOG_ERR("out of memory for an exported QP");
        return DOCA_ERROR_NO_MEMORY;
    }
    gqp->gpu = gpu_dev;
    gqp->qp = qp;
    gqp->cq = cq_sq;
    gqp->dbr_mode = send_dbr_mode_ext;
    pthread_mutex_init(&gqp->proxy_lock, NULL);
    atomic_init(&gqp->free_flow_stop, false);
    gqp->nic_handler = nic_handler;
    if (nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) {
        char who[32];

        snprintf(who, sizeof(who), "QP 0x%x", qp->qpn);
        err = gpunetio_auto_handler(gpu_dev, send_dbr_mode_ext, qp->layout.uar_reg,
                                    !qp->dbr.umem->gpu, who, &gqp->nic_handler);
    }
    if (err == DOCA_SUCCESS)
        err = check_handler(qp, send_dbr_mode_ext, gqp->nic_handler);
    if (err == DOCA_SUCCESS &&
        ((gqp->nic_handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) ||
         gpunetio_qp_emulated_dbr(gqp))) {
        err = alloc_proxy_word(gqp);
        if (err == DOCA_SUCCESS && gpunetio_qp_emulated_dbr(gqp))
            DOCA_LOG_INFO("QP 0x%x: emulated doorbell record: the data path rings the doorbell "
                          "and publishes its producer index in pinned host memory (no GDRCopy "
                          "needed); a CPU thread calling doca_gpu_verbs_cpu_proxy_progress(), or "
                          "a service monitoring the QP, writes the record",
                          qp->qpn);
    }
    if (err == DOCA_SUCCESS)
        err = build_desc(gqp, gpu_qp_umem_dev_ptr);
    /* cq_rq alone: the data path's receive queue; with dbr_cpu_ptr: a service's (receive.c). */
    if (err == DOCA_SUCCESS && cq_rq != NULL && dbr_cpu_ptr == NULL)
        err = build_rq_desc(gqp, cq_rq);
    if (err == DOCA_SUCCESS)
        err = place_desc(gqp);
    if (err == DOCA_SUCCESS && dbr_cpu_ptr != NULL)
        err = gpunetio_rq_setup(gqp, cq_rq, dbr_cpu_ptr);
    if (err == DOCA_SUCCESS &&
        gqp->nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW)
        err = gpunetio_free_flow_start(gqp);
    if (err != DOCA_SUCCESS) {
        export_release(gqp);
        return err;
    }
    DOCA_LOG_INFO("QP 0x%x exported for %s with NIC handler %s: %u send basic blocks (%s memory), "
                  "CQ 0x%x of %u entries%s; %u receive WQEs for the data path",
                  qp->qpn, gpu_dev != NULL ? gpu_dev->bus_id : "CPU threads",
                  gdaki_nic_handler_name(gqp->nic_handler), gqp->desc.sq_wqe_num,
                  qp->layout.gpu ? "GPU" : "host", cq_sq->cqn, gqp->desc.cq_sq.cqe_num,
                  cq_sq->collapsed ? " (collapsed)" : "", gqp->desc.rq_wqe_num);
    /* The QP (and through it its CQ) stays until unexport: destroying it is IN_USE. */
    atomic_fetch_add(&qp->users, 1);
    *qp_out = gqp;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_unexport_qp(doca_gpu_t *gpu_dev, struct doca_gpu_verbs_qp *qp)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_unexport_qp, (gpu_dev, qp), DOCA_ERROR_NOT_SUPPORTED);

    if (qp == NULL) {
        DOCA_LOG_ERR("qp is NULL: pass what doca_gpu_verbs_export_qp() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (gpu_dev != qp->gpu) {
        DOCA_LOG_ERR("QP 0x%x was exported with GPU context %p, not %p", qp->qp->qpn,
                     (void *)qp->gpu, (void *)gpu_dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (atomic_load(&qp->monitored_by) != NULL) {
        DOCA_LOG_ERR("QP 0x%x is monitored by a service; destroy the service first "
                     "(doca_gpu_verbs_destroy_service)",
                     qp->qp->qpn);
        return DOCA_ERROR_IN_USE;
    }
    if (atomic_load(&qp->event_users) != 0) {
        DOCA_LOG_ERR("QP 0x%x is subscribed to a net-event object; destroy it first "
                     "(doca_gpu_net_event_destroy)",
                     qp->qp->qpn);
        return DOCA_ERROR_IN_USE;
    }
    atomic_fetch_sub(&qp->qp->users, 1);
    export_release(qp);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_get_qp_dev(struct doca_gpu_verbs_qp *qp,
                                       struct doca_gpu_dev_verbs_qp **qp_gpu)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_get_qp_dev, (qp, qp_gpu), DOCA_ERROR_NOT_SUPPORTED);

    if (qp == NULL || qp_gpu == NULL) {
        DOCA_LOG_ERR("qp (%p) and qp_gpu (%p) must not be NULL", (void *)qp, (void *)qp_gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *qp_gpu = qp->dev;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_get_nic_handler(const struct doca_gpu_verbs_qp *qp,
                                            enum doca_gpu_dev_verbs_nic_handler *nic_handler)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_get_nic_handler, (qp, nic_handler), DOCA_ERROR_NOT_SUPPORTED);

    if (qp == NULL || nic_handler == NULL) {
        DOCA_LOG_ERR("qp (%p) and nic_handler (%p) must not be NULL", (const void *)qp,
                     (void *)nic_handler);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *nic_handler = qp->nic_handler;
    return DOCA_SUCCESS;
}
