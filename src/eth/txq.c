/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_eth_txq: a raw-packet SQ, its CQ and a TIS, made by doca_ctx_start
 * and destroyed by doca_ctx_stop. The data path writes send WQEs, the
 * doorbell record and the UAR doorbell itself (GPU_SM_DB; the UAR page is
 * mapped for the GPU on a GPU data path).
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "device/impl/gdaki_eth_desc.h"
#include "eth_internal.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_map.h"

static doca_error_t txq_start(struct doca_ctx *ctx);
static doca_error_t txq_stop(struct doca_ctx *ctx);

static const struct eth_ctx_ops txq_ops = {
        .kind = "doca_eth_txq", .start = txq_start, .stop = txq_stop};

/* The queue's context (its first member), NULL for a NULL queue. */
static const struct doca_ctx *txq_ctx(const struct doca_eth_txq *txq)
{
    return (const void *)txq;
}

/* A queue being configured: exists and its context is IDLE. */
static doca_error_t txq_settable(const struct doca_eth_txq *txq, const char *call)
{
    return eth_queue_settable(txq_ctx(txq), "eth_txq", call);
}

doca_error_t doca_eth_txq_create(struct doca_dev *dev, uint32_t max_burst_size,
                                 struct doca_eth_txq **eth_txq)
{
    DGN_SDK_ROUTE(doca_eth_txq_create, (dev, max_burst_size, eth_txq), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_eth_txq *txq;
    struct eth_dev *edev;

    if (dev == NULL || eth_txq == NULL || max_burst_size == 0) {
        DOCA_LOG_ERR("doca_eth_txq_create: dev (%p) and eth_txq (%p) must not be NULL, "
                     "max_burst_size (%u) not 0",
                     (void *)dev, (void *)eth_txq, max_burst_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    edev = eth_dev_of(dev, "doca_eth_txq_create");
    if (edev == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    txq = calloc(1, sizeof(*txq));
    if (txq == NULL) {
        DOCA_LOG_ERR("out of memory for a doca_eth_txq");
        return DOCA_ERROR_NO_MEMORY;
    }
    eth_ctx_init(&txq->ctx, &txq_ops);
    txq->edev = edev;
    txq->max_burst = max_burst_size;
    txq->mtype = DOCA_GPU_MEM_TYPE_GPU;
    verbs_dev_hold(dev);
    *eth_txq = txq;
    return DOCA_SUCCESS;
}

doca_error_t doca_eth_txq_destroy(struct doca_eth_txq *eth_txq)
{
    DGN_SDK_ROUTE(doca_eth_txq_destroy, (eth_txq), DOCA_ERROR_NOT_SUPPORTED);

    if (eth_txq == NULL) {
        DOCA_LOG_ERR("eth_txq is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return eth_queue_destroy(&eth_txq->ctx, eth_txq->edev, NULL, "doca_eth_txq_destroy");
}

struct doca_ctx *doca_eth_txq_as_doca_ctx(struct doca_eth_txq *eth_txq)
{
    DGN_SDK_ROUTE(doca_eth_txq_as_doca_ctx, (eth_txq), NULL);

    return eth_queue_as_ctx((struct doca_ctx *)(void *)eth_txq, "eth_txq",
                            "doca_eth_txq_as_doca_ctx");
}

doca_error_t doca_eth_txq_set_max_burst_size(struct doca_eth_txq *eth_txq, uint32_t max_burst_size)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_max_burst_size, (eth_txq, max_burst_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err =
            eth_queue_settable_count(txq_ctx(eth_txq), "eth_txq", "doca_eth_txq_set_max_burst_size",
                                     max_burst_size, "packets");

    if (err == DOCA_SUCCESS)
        eth_txq->max_burst = max_burst_size;
    return err;
}

doca_error_t doca_eth_txq_set_max_send_buf_list_len(struct doca_eth_txq *eth_txq,
                                                    uint32_t max_send_buf_list_len)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_max_send_buf_list_len, (eth_txq, max_send_buf_list_len),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_max_send_buf_list_len");

    if (err == DOCA_SUCCESS && max_send_buf_list_len != 1) {
        DOCA_LOG_ERR("doca_eth_txq_set_max_send_buf_list_len: %u: the data path sends one buffer "
                     "per packet (length 1)",
                     max_send_buf_list_len);
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_txq_set_mss(struct doca_eth_txq *eth_txq, uint16_t mss)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_mss, (eth_txq, mss), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_mss");

    (void)mss;
    if (err == DOCA_SUCCESS) {
        DOCA_LOG_ERR("doca_eth_txq_set_mss: LSO is not provided");
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_txq_set_max_lso_header_size(struct doca_eth_txq *eth_txq,
                                                  uint16_t max_lso_header_size)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_max_lso_header_size, (eth_txq, max_lso_header_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_max_lso_header_size");

    (void)max_lso_header_size;
    if (err == DOCA_SUCCESS) {
        DOCA_LOG_ERR("doca_eth_txq_set_max_lso_header_size: LSO is not provided");
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_txq_set_type(struct doca_eth_txq *eth_txq, enum doca_eth_txq_type type)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_type, (eth_txq, type), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_type");

    if (err == DOCA_SUCCESS && type != DOCA_ETH_TXQ_TYPE_REGULAR) {
        DOCA_LOG_ERR("doca_eth_txq_set_type: %d is not an enum doca_eth_txq_type (REGULAR is the "
                     "one type)",
                     (int)type);
        err = DOCA_ERROR_INVALID_VALUE;
    }
    return err;
}

doca_error_t doca_eth_txq_set_l3_chksum_offload(struct doca_eth_txq *eth_txq,
                                                uint8_t enable_l3_chksum)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_l3_chksum_offload, (eth_txq, enable_l3_chksum),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_l3_chksum_offload");

    if (err == DOCA_SUCCESS)
        eth_txq->l3_csum = enable_l3_chksum != 0;
    return err;
}

doca_error_t doca_eth_txq_set_l4_chksum_offload(struct doca_eth_txq *eth_txq,
                                                uint8_t enable_l4_chksum)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_l4_chksum_offload, (eth_txq, enable_l4_chksum),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_l4_chksum_offload");

    if (err == DOCA_SUCCESS)
        eth_txq->l4_csum = enable_l4_chksum != 0;
    return err;
}

doca_error_t doca_eth_txq_set_wait_on_time_offload(struct doca_eth_txq *eth_txq)
{
    DGN_SDK_ROUTE(doca_eth_txq_set_wait_on_time_offload, (eth_txq), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = txq_settable(eth_txq, "doca_eth_txq_set_wait_on_time_offload");

    if (err == DOCA_SUCCESS) {
        DOCA_LOG_ERR("doca_eth_txq_set_wait_on_time_offload: DOCA axis: timed sends need the "
                     "NIC's real-time clock, which is not provided");
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_txq_gpu_set_sq_mem_type(struct doca_eth_txq *eth_txq,
                                              enum doca_gpu_mem_type sq_mem_type)
{
    DGN_SDK_ROUTE(doca_eth_txq_gpu_set_sq_mem_type, (eth_txq, sq_mem_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = eth_queue_settable_mem_type(txq_ctx(eth_txq), "eth_txq",
                                                   "doca_eth_txq_gpu_set_sq_mem_type", sq_mem_type);

    if (err == DOCA_SUCCESS)
        eth_txq->mtype = sq_mem_type;
    return err;
}

doca_error_t doca_eth_txq_gpu_set_completion_on_gpu(struct doca_eth_txq *eth_txq)
{
    DGN_SDK_ROUTE(doca_eth_txq_gpu_set_completion_on_gpu, (eth_txq), DOCA_ERROR_NOT_SUPPORTED);

    return txq_settable(eth_txq, "doca_eth_txq_gpu_set_completion_on_gpu");
}

doca_error_t doca_eth_txq_get_gpu_handle(const struct doca_eth_txq *eth_txq,
                                         struct doca_gpu_eth_txq **eth_txq_ext)
{
    DGN_SDK_ROUTE(doca_eth_txq_get_gpu_handle, (eth_txq, eth_txq_ext), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (eth_txq == NULL || eth_txq_ext == NULL) {
        DOCA_LOG_ERR("eth_txq (%p) and eth_txq_ext (%p) must not be NULL", (const void *)eth_txq,
                     (void *)eth_txq_ext);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = eth_queue_gpu_handle(&eth_txq->ctx, eth_txq->handle, "doca_eth_txq_get_gpu_handle");
    if (err == DOCA_SUCCESS)
        *eth_txq_ext = eth_txq->handle;
    return err;
}

/* ---- Start and stop ---------------------------------------------------------------------- */

static doca_error_t txq_create_tis(struct doca_eth_txq *txq, uint32_t tdn)
{
    uint8_t in[PRM_CREATE_TIS_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_TIS_OUT_SIZE];
    void *tisc = PRM_AT(in, PRM_CREATE_TIS_IN_TISC);
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIS);
    PRM_SET(tisc, PRM_TISC_TRANSPORT_DOMAIN, tdn);
    err = verbs_devx_create(txq->edev->ctx, in, sizeof(in), out, sizeof(out), &txq->tis);
    if (err == DOCA_SUCCESS)
        txq->tisn = (uint32_t)PRM_GET(out, PRM_CREATE_TIS_OUT_TISN);
    return err;
}

static doca_error_t txq_create_sq(struct doca_eth_txq *txq, uint32_t log_n, uint32_t cqn,
                                  uint32_t uar_page)
{
    uint8_t in[PRM_CREATE_SQ_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_SQ_OUT_SIZE];
    void *sqc = PRM_AT(in, PRM_CREATE_SQ_IN_SQC);
    void *wq = PRM_AT(sqc, PRM_SQC_WQ);
    uint32_t umem_id = txq->mem.umem->umem->umem_id;
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_SQ);
    PRM_SET(sqc, PRM_SQC_FLUSH_IN_ERROR_EN, 1);
    PRM_SET(sqc, PRM_SQC_MIN_WQE_INLINE_MODE, 0);
    PRM_SET(sqc, PRM_SQC_STATE, PRM_WQ_STATE_RST);
    PRM_SET(sqc, PRM_SQC_CQN, cqn);
    PRM_SET(sqc, PRM_SQC_TIS_LST_SZ, 1);
    PRM_SET(sqc, PRM_SQC_TIS_NUM_0, txq->tisn);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, txq->edev->dev->pdn);
    PRM_SET(wq, PRM_WQ_UAR_PAGE, uar_page);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, txq->mem.wq_dbr_off);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, 6); /* 64-byte basic blocks */
    PRM_SET(wq, PRM_WQ_LOG_WQ_PG_SZ, 0);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, log_n);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, txq->mem.wq_off);
    err = verbs_devx_create(txq->edev->ctx, in, sizeof(in), out, sizeof(out), &txq->sq);
    if (err != DOCA_SUCCESS)
        return err;
    txq->sqn = (uint32_t)PRM_GET(out, PRM_CREATE_SQ_OUT_SQN);
    return DOCA_SUCCESS;
}

static doca_error_t txq_ready(struct doca_eth_txq *txq)
{
    uint8_t in[PRM_MODIFY_SQ_IN_SIZE] = {0};
    uint8_t out[PRM_CMD_HDR_OUT_SIZE];
    void *sqc = PRM_AT(in, PRM_MODIFY_SQ_IN_SQC);

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_MODIFY_SQ);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQ_STATE, PRM_WQ_STATE_RST);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQN, txq->sqn);
    PRM_SET(sqc, PRM_SQC_STATE, PRM_WQ_STATE_RDY);
    return verbs_devx_modify(txq->sq, in, sizeof(in), out, sizeof(out));
}

static void txq_release(struct doca_eth_txq *txq)
{
    if (txq->sq != NULL)
        verbs_devx_destroy(txq->sq, "SQ", txq->sqn);
    if (txq->tis != NULL)
        verbs_devx_destroy(txq->tis, "TIS", txq->tisn);
    if (txq->cq != NULL)
        doca_verbs_cq_destroy(txq->cq);
    eth_qmem_free(&txq->mem);
    if (txq->uar_map != NULL)
        gpunetio_unmap_host(txq->uar_map);
    if (txq->uar != NULL)
        doca_verbs_uar_destroy(txq->uar);
    eth_desc_free(txq->ctx.gpu, txq->handle);
    txq->sq = NULL;
    txq->tis = NULL;
    txq->cq = NULL;
    txq->uar = NULL;
    txq->uar_map = NULL;
    txq->handle = NULL;
}

static doca_error_t txq_check(struct doca_eth_txq *txq, const struct eth_caps *caps,
                              uint32_t *log_n)
{
    const char *dev_name = txq->edev->info.ibdev_name;
    doca_error_t err;

    err = eth_queue_check_eth(caps, dev_name, "send", "doca_eth_txq_cap_is_type_supported");
    if (err != DOCA_SUCCESS)
        return err;
    if ((txq->l3_csum || txq->l4_csum) && !caps->csum_cap) {
        DOCA_LOG_ERR("doca_ctx_start: DOCA axis: %s has no checksum offload (csum_cap 0): turn "
                     "doca_eth_txq_set_l3/l4_chksum_offload off",
                     dev_name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return eth_queue_check_burst(caps, dev_name, txq->max_burst,
                                 "doca_eth_txq_cap_get_max_burst_size", log_n);
}

/* The UAR: the doorbell register's address for the data path, and the page number. */
static doca_error_t txq_uar(struct doca_eth_txq *txq, uint64_t **db, uint32_t *page)
{
    doca_gpu_t *gpu = txq->ctx.gpu;
    const struct core_cuda_ops *cuda;
    void *reg = NULL, *mapped = NULL;
    doca_error_t err;

    err = doca_verbs_uar_create(txq->edev->dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED,
                                &txq->uar);
    if (err != DOCA_SUCCESS)
        err = doca_verbs_uar_create(txq->edev->dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE,
                                    &txq->uar);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_uar_id_get(txq->uar, page);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_uar_reg_addr_get(txq->uar, &reg);
    if (err != DOCA_SUCCESS)
        return err;
    if (gpu == NULL) {
        *db = reg;
        return DOCA_SUCCESS;
    }
    err = gpunetio_gpu_bind(gpu, &cuda);
    if (err == DOCA_SUCCESS)
        err = gpunetio_map_host(reg, 8 * sizeof(uint64_t), true, "the UAR", &mapped);
    if (err != DOCA_SUCCESS) {
        DOCA_LOG_ERR("doca_ctx_start: the send queue's UAR cannot be mapped for GPU stores on this "
                     "machine, and the CPU proxy is not provided for Ethernet queues");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    txq->uar_map = mapped;
    *db = mapped;
    return DOCA_SUCCESS;
}

static doca_error_t txq_start(struct doca_ctx *ctx)
{
    struct doca_eth_txq *txq = (struct doca_eth_txq *)(void *)ctx;
    doca_gpu_t *gpu = ctx->gpu;
    struct doca_gpu_eth_txq desc;
    const struct eth_caps *caps;
    enum eth_mem_kind kind;
    uint32_t log_n, n, tdn, cqn = 0, uar_page = 0;
    uint64_t *db = NULL;
    uint8_t *ring;
    void *handle = NULL;
    doca_error_t err;

    err = eth_devinfo_caps(&txq->edev->info, &caps);
    if (err == DOCA_SUCCESS)
        err = txq_check(txq, caps, &log_n);
    if (err != DOCA_SUCCESS)
        return err;
    n = 1u << log_n;
    kind = eth_queue_mem_kind(gpu, txq->mtype);
    err = eth_dev_td(txq->edev, &tdn);
    if (err == DOCA_SUCCESS)
        err = txq_uar(txq, &db, &uar_page);
    if (err == DOCA_SUCCESS)
        err = eth_queue_rings(txq->edev, gpu, kind, (size_t)n * VERBS_SQ_STRIDE, log_n, &txq->mem,
                              &txq->cq, &cqn);
    if (err == DOCA_SUCCESS)
        err = txq_create_tis(txq, tdn);
    if (err == DOCA_SUCCESS)
        err = txq_create_sq(txq, log_n, cqn, uar_page);
    if (err == DOCA_SUCCESS)
        err = txq_ready(txq);
    if (err != DOCA_SUCCESS) {
        txq_release(txq);
        return err;
    }
    ring = txq->mem.gpu_ptr;
    gdaki_eth_desc_set_txq(
            &desc, ring + txq->mem.wq_off, n, txq->sqn,
            /* The SQ's counter is word 1 of its doorbell record (word 0: a receive counter). */
            (gdaki_be32_t *)(void *)(ring + txq->mem.wq_dbr_off) + 1, db,
            DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB, NULL, ring + txq->mem.cq_off, log_n, cqn,
            (gdaki_be32_t *)(void *)(ring + txq->mem.cq_dbr_off),
            (txq->l3_csum ? DOCA_GPUNETIO_ETH_WQE_L3_CSUM : 0) |
                    (txq->l4_csum ? DOCA_GPUNETIO_ETH_WQE_L4_CSUM : 0),
            kind == ETH_MEM_GPU ? DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU
                                : DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
            gdaki_eth_desc_nic_scope(gpu != NULL, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB,
                                     kind == ETH_MEM_GPU, kind == ETH_MEM_GPU));
    err = eth_desc_place(gpu, &desc, sizeof(desc), "a txq descriptor", &handle);
    if (err != DOCA_SUCCESS) {
        txq_release(txq);
        return err;
    }
    txq->handle = handle;
    DOCA_LOG_INFO("txq %p started on %s: SQ 0x%x, CQ 0x%x, TIS 0x%x, %u WQEs, checksums L3 %d L4 "
                  "%d, rings in %s memory, data path on %s",
                  (void *)txq, txq->edev->info.ibdev_name, txq->sqn, cqn, txq->tisn, n,
                  txq->l3_csum, txq->l4_csum, eth_mem_kind_name(kind),
                  gpu != NULL ? gpu->bus_id : "CPU threads");
    return DOCA_SUCCESS;
}

static doca_error_t txq_stop(struct doca_ctx *ctx)
{
    txq_release((struct doca_eth_txq *)(void *)ctx);
    return DOCA_SUCCESS;
}

/* ---- Capabilities ------------------------------------------------------------------------ */

static doca_error_t txq_caps(const struct doca_devinfo *devinfo, const struct eth_caps **caps,
                             const char *call)
{
    if (devinfo == NULL) {
        DOCA_LOG_ERR("%s: devinfo is NULL", call);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return eth_devinfo_caps(devinfo, caps);
}

doca_error_t doca_eth_txq_cap_get_max_burst_size(const struct doca_devinfo *devinfo,
                                                 uint32_t max_send_buf_list_len,
                                                 uint16_t max_lso_header_size,
                                                 uint32_t *max_burst_size)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_get_max_burst_size,
                  (devinfo, max_send_buf_list_len, max_lso_header_size, max_burst_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err;

    if (max_burst_size == NULL || max_send_buf_list_len > 1 || max_lso_header_size != 0) {
        DOCA_LOG_ERR("doca_eth_txq_cap_get_max_burst_size: max_burst_size (%p) must not be NULL; "
                     "list length %u (1 only) and LSO header %u (0 only: no LSO)",
                     (void *)max_burst_size, max_send_buf_list_len, max_lso_header_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = txq_caps(devinfo, &caps, "doca_eth_txq_cap_get_max_burst_size");
    if (err == DOCA_SUCCESS)
        *max_burst_size = caps->log_max_wq_sz != 0 ? 1u << caps->log_max_wq_sz : 0;
    return err;
}

doca_error_t doca_eth_txq_cap_get_max_send_buf_list_len(const struct doca_devinfo *devinfo,
                                                        uint32_t *max_send_buf_list_len)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_get_max_send_buf_list_len, (devinfo, max_send_buf_list_len),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err;

    if (max_send_buf_list_len == NULL) {
        DOCA_LOG_ERR("doca_eth_txq_cap_get_max_send_buf_list_len: output is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = txq_caps(devinfo, &caps, "doca_eth_txq_cap_get_max_send_buf_list_len");
    if (err == DOCA_SUCCESS)
        *max_send_buf_list_len = 1;
    return err;
}

doca_error_t doca_eth_txq_cap_get_max_lso_header_size(const struct doca_devinfo *devinfo,
                                                      uint16_t *max_lso_header_size)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_get_max_lso_header_size, (devinfo, max_lso_header_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (devinfo == NULL || max_lso_header_size == NULL) {
        DOCA_LOG_ERR("doca_eth_txq_cap_get_max_lso_header_size: devinfo and output must not be "
                     "NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    DOCA_LOG_ERR("doca_eth_txq_cap_get_max_lso_header_size: LSO is not provided");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_eth_txq_cap_get_max_lso_msg_size(const struct doca_devinfo *devinfo,
                                                   uint32_t *max_lso_msg_size)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_get_max_lso_msg_size, (devinfo, max_lso_msg_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (devinfo == NULL || max_lso_msg_size == NULL) {
        DOCA_LOG_ERR("doca_eth_txq_cap_get_max_lso_msg_size: devinfo and output must not be NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    DOCA_LOG_ERR("doca_eth_txq_cap_get_max_lso_msg_size: LSO is not provided");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_eth_txq_cap_is_type_supported(const struct doca_devinfo *devinfo,
                                                enum doca_eth_txq_type type,
                                                enum doca_eth_txq_data_path_type data_path_type)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_is_type_supported, (devinfo, type, data_path_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err;

    if (devinfo == NULL || type != DOCA_ETH_TXQ_TYPE_REGULAR ||
        (unsigned int)data_path_type > DOCA_ETH_TXQ_DATA_PATH_TYPE_GPU) {
        DOCA_LOG_ERR("doca_eth_txq_cap_is_type_supported: devinfo %p, type %d, data path %d: a "
                     "devinfo and the enums' values are needed",
                     (const void *)devinfo, (int)type, (int)data_path_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = eth_devinfo_caps(devinfo, &caps);
    if (err != DOCA_SUCCESS)
        return err;
    if (!caps->eth_link || !caps->eth_net_offloads) {
        DOCA_LOG_ERR("doca_eth_txq_cap_is_type_supported: DOCA axis: %s has no Ethernet send "
                     "queues (%s)",
                     devinfo->ibdev_name,
                     !caps->eth_link ? "link layer InfiniBand" : "eth_net_offloads is 0");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

static doca_error_t txq_csum_cap(const struct doca_devinfo *devinfo, const char *call)
{
    const struct eth_caps *caps;
    doca_error_t err = txq_caps(devinfo, &caps, call);

    if (err == DOCA_SUCCESS && !(caps->eth_net_offloads && caps->csum_cap)) {
        DOCA_LOG_ERR("%s: DOCA axis: %s has no checksum offload (csum_cap 0)", call,
                     devinfo->ibdev_name);
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_txq_cap_is_l3_chksum_offload_supported(const struct doca_devinfo *devinfo)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_is_l3_chksum_offload_supported, (devinfo),
                  DOCA_ERROR_NOT_SUPPORTED);

    return txq_csum_cap(devinfo, "doca_eth_txq_cap_is_l3_chksum_offload_supported");
}

doca_error_t doca_eth_txq_cap_is_l4_chksum_offload_supported(const struct doca_devinfo *devinfo)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_is_l4_chksum_offload_supported, (devinfo),
                  DOCA_ERROR_NOT_SUPPORTED);

    return txq_csum_cap(devinfo, "doca_eth_txq_cap_is_l4_chksum_offload_supported");
}

doca_error_t doca_eth_txq_cap_get_wait_on_time_offload_supported(
        const struct doca_devinfo *devinfo, enum doca_eth_wait_on_time_type *wait_on_time_mode)
{
    DGN_SDK_ROUTE(doca_eth_txq_cap_get_wait_on_time_offload_supported, (devinfo, wait_on_time_mode),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (devinfo == NULL || wait_on_time_mode == NULL) {
        DOCA_LOG_ERR("doca_eth_txq_cap_get_wait_on_time_offload_supported: devinfo and output "
                     "must not be NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *wait_on_time_mode = DOCA_ETH_WAIT_ON_TIME_TYPE_NONE;
    DOCA_LOG_ERR("doca_eth_txq_cap_get_wait_on_time_offload_supported: DOCA axis: no real-time "
                 "clock on %s",
                 devinfo->ibdev_name);
    return DOCA_ERROR_NOT_SUPPORTED;
}
