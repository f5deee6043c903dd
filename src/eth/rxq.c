/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_eth_rxq: a cyclic raw-packet RQ, its CQ and a direct TIR, made by
 * doca_ctx_start and destroyed by doca_ctx_stop. The host posts every
 * receive WQE once (WQE i -> packet slot i of the buffer) and sets the RQ
 * doorbell record to the WQE count before the RQ is ready; the data path
 * hands WQEs back as it releases packets (include/device/impl/gdaki_eth_desc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "device/impl/gdaki_eth_desc.h"
#include "device/impl/prm/mlx5_wqe.h"
#include "eth_internal.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/gpunetio_map.h"

static doca_error_t rxq_start(struct doca_ctx *ctx);
static doca_error_t rxq_stop(struct doca_ctx *ctx);

static const struct eth_ctx_ops rxq_ops = {
        .kind = "doca_eth_rxq", .start = rxq_start, .stop = rxq_stop};

/* The queue's context (its first member), NULL for a NULL queue. */
static const struct doca_ctx *rxq_ctx(const struct doca_eth_rxq *rxq)
{
    return (const void *)rxq;
}

/* A queue being configured: exists and its context is IDLE. */
static doca_error_t rxq_settable(const struct doca_eth_rxq *rxq, const char *call)
{
    return eth_queue_settable(rxq_ctx(rxq), "eth_rxq", call);
}

static uint32_t rxq_stride(uint32_t max_packet_size)
{
    return (uint32_t)verbs_align_up(max_packet_size, DOCA_ETH_RXQ_PKT_ALIGN);
}

doca_error_t doca_eth_rxq_create(struct doca_dev *dev, uint32_t max_burst_size,
                                 uint32_t max_packet_size, struct doca_eth_rxq **eth_rxq)
{
    DGN_SDK_ROUTE(doca_eth_rxq_create, (dev, max_burst_size, max_packet_size, eth_rxq),
                  DOCA_ERROR_NOT_SUPPORTED);

    struct doca_eth_rxq *rxq;
    struct eth_dev *edev;

    if (dev == NULL || eth_rxq == NULL || max_burst_size == 0 || max_packet_size == 0) {
        DOCA_LOG_ERR("doca_eth_rxq_create: dev (%p) and eth_rxq (%p) must not be NULL, "
                     "max_burst_size (%u) and max_packet_size (%u) not 0",
                     (void *)dev, (void *)eth_rxq, max_burst_size, max_packet_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    edev = eth_dev_of(dev, "doca_eth_rxq_create");
    if (edev == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    rxq = calloc(1, sizeof(*rxq));
    if (rxq == NULL) {
        DOCA_LOG_ERR("out of memory for a doca_eth_rxq");
        return DOCA_ERROR_NO_MEMORY;
    }
    eth_ctx_init(&rxq->ctx, &rxq_ops);
    rxq->edev = edev;
    rxq->max_burst = max_burst_size;
    rxq->max_pkt = max_packet_size;
    rxq->type = DOCA_ETH_RXQ_TYPE_CYCLIC;
    rxq->mtype = DOCA_GPU_MEM_TYPE_GPU;
    atomic_init(&rxq->flows, 0);
    verbs_dev_hold(dev);
    *eth_rxq = rxq;
    return DOCA_SUCCESS;
}

doca_error_t doca_eth_rxq_destroy(struct doca_eth_rxq *eth_rxq)
{
    DGN_SDK_ROUTE(doca_eth_rxq_destroy, (eth_rxq), DOCA_ERROR_NOT_SUPPORTED);

    int flows;

    if (eth_rxq == NULL) {
        DOCA_LOG_ERR("eth_rxq is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    flows = atomic_load(&eth_rxq->flows);
    if (flows != 0) {
        DOCA_LOG_ERR("doca_eth_rxq_destroy: %d flows steer to this queue: destroy the flow first "
                     "(dgn_eth_flow_destroy), then doca_ctx_stop, then doca_eth_rxq_destroy",
                     flows);
        return DOCA_ERROR_IN_USE;
    }
    return eth_queue_destroy(&eth_rxq->ctx, eth_rxq->edev, eth_rxq->mmap, "doca_eth_rxq_destroy");
}

struct doca_ctx *doca_eth_rxq_as_doca_ctx(struct doca_eth_rxq *eth_rxq)
{
    DGN_SDK_ROUTE(doca_eth_rxq_as_doca_ctx, (eth_rxq), NULL);

    return eth_queue_as_ctx((struct doca_ctx *)(void *)eth_rxq, "eth_rxq",
                            "doca_eth_rxq_as_doca_ctx");
}

doca_error_t doca_eth_rxq_set_max_burst_size(struct doca_eth_rxq *eth_rxq, uint32_t max_burst_size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_set_max_burst_size, (eth_rxq, max_burst_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err =
            eth_queue_settable_count(rxq_ctx(eth_rxq), "eth_rxq", "doca_eth_rxq_set_max_burst_size",
                                     max_burst_size, "packets");

    if (err == DOCA_SUCCESS)
        eth_rxq->max_burst = max_burst_size;
    return err;
}

doca_error_t doca_eth_rxq_set_max_packet_size(struct doca_eth_rxq *eth_rxq,
                                              uint32_t max_packet_size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_set_max_packet_size, (eth_rxq, max_packet_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err =
            eth_queue_settable_count(rxq_ctx(eth_rxq), "eth_rxq",
                                     "doca_eth_rxq_set_max_packet_size", max_packet_size, "bytes");

    if (err == DOCA_SUCCESS)
        eth_rxq->max_pkt = max_packet_size;
    return err;
}

doca_error_t doca_eth_rxq_set_max_recv_buf_list_len(struct doca_eth_rxq *eth_rxq,
                                                    uint32_t max_recv_buf_list_len)
{
    DGN_SDK_ROUTE(doca_eth_rxq_set_max_recv_buf_list_len, (eth_rxq, max_recv_buf_list_len),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = rxq_settable(eth_rxq, "doca_eth_rxq_set_max_recv_buf_list_len");

    if (err == DOCA_SUCCESS && max_recv_buf_list_len != 1) {
        DOCA_LOG_ERR("doca_eth_rxq_set_max_recv_buf_list_len: %u: a CYCLIC queue receives each "
                     "packet into one slot (length 1); lists are for REGULAR queues, not provided",
                     max_recv_buf_list_len);
        err = DOCA_ERROR_NOT_SUPPORTED;
    }
    return err;
}

doca_error_t doca_eth_rxq_set_pkt_buf(struct doca_eth_rxq *eth_rxq, struct doca_mmap *mmap,
                                      uint32_t offset, uint32_t size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_set_pkt_buf, (eth_rxq, mmap, offset, size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = rxq_settable(eth_rxq, "doca_eth_rxq_set_pkt_buf");
    uintptr_t start;

    if (err != DOCA_SUCCESS)
        return err;
    if (mmap == NULL || size == 0) {
        DOCA_LOG_ERR("doca_eth_rxq_set_pkt_buf: mmap (%p) must not be NULL and size (%u) not 0",
                     (void *)mmap, size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!mmap->range_set) {
        DOCA_LOG_ERR("doca_eth_rxq_set_pkt_buf: the mmap has no memory range: "
                     "doca_mmap_set_memrange (or _set_dmabuf_memrange) first");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((uint64_t)offset + size > mmap->len) {
        DOCA_LOG_ERR("doca_eth_rxq_set_pkt_buf: %u bytes at offset %u run past the mmap's %zu "
                     "bytes",
                     size, offset, mmap->len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    start = (uintptr_t)mmap->addr + offset;
    if (start % DOCA_ETH_RXQ_PKT_ALIGN != 0) {
        DOCA_LOG_ERR("doca_eth_rxq_set_pkt_buf: the packet buffer starts at %p (mmap %p + offset "
                     "%u), which is not %u-byte aligned: packet slots need %u-byte alignment",
                     (void *)start, mmap->addr, offset, DOCA_ETH_RXQ_PKT_ALIGN,
                     DOCA_ETH_RXQ_PKT_ALIGN);
        return DOCA_ERROR_INVALID_VALUE;
    }
    atomic_fetch_add(&mmap->refs, 1);
    if (eth_rxq->mmap != NULL)
        atomic_fetch_sub(&eth_rxq->mmap->refs, 1);
    eth_rxq->mmap = mmap;
    eth_rxq->pkt_offset = offset;
    eth_rxq->pkt_size = size;
    return DOCA_SUCCESS;
}

static const char *rxq_type_name(enum doca_eth_rxq_type type)
{
    switch (type) {
    case DOCA_ETH_RXQ_TYPE_CYCLIC:
        return "DOCA_ETH_RXQ_TYPE_CYCLIC";
    case DOCA_ETH_RXQ_TYPE_MANAGED_MEMPOOL:
        return "DOCA_ETH_RXQ_TYPE_MANAGED_MEMPOOL";
    case DOCA_ETH_RXQ_TYPE_REGULAR:
        return "DOCA_ETH_RXQ_TYPE_REGULAR";
    }
    return "?";
}

/* Why type is not provided (NULL: it is). */
static const char *rxq_type_refusal(enum doca_eth_rxq_type type)
{
    switch (type) {
    case DOCA_ETH_RXQ_TYPE_CYCLIC:
        return NULL;
    case DOCA_ETH_RXQ_TYPE_MANAGED_MEMPOOL:
        return "needs the NIC's multi-packet (striding) RQ and DOCA's CPU progress engine; a GPU "
               "data path takes only DOCA_ETH_RXQ_TYPE_CYCLIC";
    case DOCA_ETH_RXQ_TYPE_REGULAR:
        return "receives into doca_bufs posted by CPU tasks (DOCA's progress engine); a GPU data "
               "path takes only DOCA_ETH_RXQ_TYPE_CYCLIC";
    }
    return "is not a receive queue type";
}

doca_error_t doca_eth_rxq_set_type(struct doca_eth_rxq *eth_rxq, enum doca_eth_rxq_type type)
{
    DGN_SDK_ROUTE(doca_eth_rxq_set_type, (eth_rxq, type), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = rxq_settable(eth_rxq, "doca_eth_rxq_set_type");
    const char *why;

    if (err != DOCA_SUCCESS)
        return err;
    if ((unsigned int)type > DOCA_ETH_RXQ_TYPE_REGULAR) {
        DOCA_LOG_ERR("doca_eth_rxq_set_type: %d is not an enum doca_eth_rxq_type", (int)type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    why = rxq_type_refusal(type);
    if (why != NULL) {
        DOCA_LOG_ERR("doca_eth_rxq_set_type: DOCA axis: %s is not supported here: it %s",
                     rxq_type_name(type), why);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    eth_rxq->type = type;
    return DOCA_SUCCESS;
}

doca_error_t doca_eth_rxq_get_flow_queue_id(struct doca_eth_rxq *eth_rxq, uint16_t *flow_queue_id)
{
    DGN_SDK_ROUTE(doca_eth_rxq_get_flow_queue_id, (eth_rxq, flow_queue_id),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (eth_rxq == NULL || flow_queue_id == NULL) {
        DOCA_LOG_ERR("eth_rxq (%p) and flow_queue_id (%p) must not be NULL", (void *)eth_rxq,
                     (void *)flow_queue_id);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (eth_rxq->ctx.state != DOCA_CTX_STATE_RUNNING) {
        DOCA_LOG_ERR("doca_eth_rxq_get_flow_queue_id: the queue is not started: doca_ctx_start "
                     "first");
        return DOCA_ERROR_BAD_STATE;
    }
    *flow_queue_id = (uint16_t)(eth_rxq->rqn & 0xffff);
    return DOCA_SUCCESS;
}

doca_error_t doca_eth_rxq_get_gpu_handle(const struct doca_eth_rxq *eth_rxq,
                                         struct doca_gpu_eth_rxq **eth_rxq_ext)
{
    DGN_SDK_ROUTE(doca_eth_rxq_get_gpu_handle, (eth_rxq, eth_rxq_ext), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (eth_rxq == NULL || eth_rxq_ext == NULL) {
        DOCA_LOG_ERR("eth_rxq (%p) and eth_rxq_ext (%p) must not be NULL", (const void *)eth_rxq,
                     (void *)eth_rxq_ext);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = eth_queue_gpu_handle(&eth_rxq->ctx, eth_rxq->handle, "doca_eth_rxq_get_gpu_handle");
    if (err == DOCA_SUCCESS)
        *eth_rxq_ext = eth_rxq->handle;
    return err;
}

doca_error_t doca_eth_rxq_gpu_set_rq_mem_type(struct doca_eth_rxq *eth_rxq,
                                              enum doca_gpu_mem_type rq_mem_type)
{
    DGN_SDK_ROUTE(doca_eth_rxq_gpu_set_rq_mem_type, (eth_rxq, rq_mem_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = eth_queue_settable_mem_type(rxq_ctx(eth_rxq), "eth_rxq",
                                                   "doca_eth_rxq_gpu_set_rq_mem_type", rq_mem_type);

    if (err == DOCA_SUCCESS)
        eth_rxq->mtype = rq_mem_type;
    return err;
}

doca_error_t doca_eth_rxq_gpu_enable_mcst_qp(struct doca_eth_rxq *eth_rxq)
{
    DGN_SDK_ROUTE(doca_eth_rxq_gpu_enable_mcst_qp, (eth_rxq), DOCA_ERROR_NOT_SUPPORTED);

    (void)eth_rxq;
    DOCA_LOG_ERR("doca_eth_rxq_gpu_enable_mcst_qp: the memory-consistency QP of pre-Hopper GPUs "
                 "is not provided");
    return DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- Start and stop ---------------------------------------------------------------------- */

static doca_error_t rxq_create_rq(struct doca_eth_rxq *rxq, uint32_t log_n, uint32_t cqn)
{
    uint8_t in[PRM_CREATE_RQ_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_RQ_OUT_SIZE];
    void *rqc = PRM_AT(in, PRM_CREATE_RQ_IN_RQC);
    void *wq = PRM_AT(rqc, PRM_RQC_WQ);
    uint32_t umem_id = rxq->mem.umem->umem->umem_id;
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RQ);
    PRM_SET(rqc, PRM_RQC_VSD, 1);
    PRM_SET(rqc, PRM_RQC_MEM_RQ_TYPE, PRM_RQC_MEM_RQ_TYPE_INLINE);
    PRM_SET(rqc, PRM_RQC_FLUSH_IN_ERROR_EN, 1);
    PRM_SET(rqc, PRM_RQC_STATE, PRM_WQ_STATE_RST);
    PRM_SET(rqc, PRM_RQC_CQN, cqn);
    PRM_SET(rqc, PRM_RQC_COUNTER_SET_ID, rxq->qcnt_id);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, rxq->edev->dev->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, rxq->mem.wq_dbr_off);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, 4); /* 16-byte WQEs: one data segment */
    PRM_SET(wq, PRM_WQ_LOG_WQ_PG_SZ, 0);  /* 4 KiB pages */
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, log_n);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, rxq->mem.wq_off);
    err = verbs_devx_create(rxq->edev->ctx, in, sizeof(in), out, sizeof(out), &rxq->rq);
    if (err != DOCA_SUCCESS)
        return err;
    rxq->rqn = (uint32_t)PRM_GET(out, PRM_CREATE_RQ_OUT_RQN);
    return DOCA_SUCCESS;
}

static doca_error_t rxq_ready(struct doca_eth_rxq *rxq)
{
    uint8_t in[PRM_MODIFY_RQ_IN_SIZE] = {0};
    uint8_t out[PRM_MODIFY_RQ_OUT_SIZE];
    void *rqc = PRM_AT(in, PRM_MODIFY_RQ_IN_RQC);

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_MODIFY_RQ);
    PRM_SET(in, PRM_MODIFY_RQ_IN_RQ_STATE, PRM_WQ_STATE_RST);
    PRM_SET(in, PRM_MODIFY_RQ_IN_RQN, rxq->rqn);
    PRM_SET(rqc, PRM_RQC_STATE, PRM_WQ_STATE_RDY);
    return verbs_devx_modify(rxq->rq, in, sizeof(in), out, sizeof(out));
}

static doca_error_t rxq_create_tir(struct doca_eth_rxq *rxq, uint32_t tdn)
{
    uint8_t in[PRM_CREATE_TIR_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_TIR_OUT_SIZE];
    void *tirc = PRM_AT(in, PRM_CREATE_TIR_IN_TIRC);
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIR);
    PRM_SET(tirc, PRM_TIRC_DISP_TYPE, PRM_TIRC_DISP_TYPE_DIRECT);
    PRM_SET(tirc, PRM_TIRC_INLINE_RQN, rxq->rqn);
    PRM_SET(tirc, PRM_TIRC_TRANSPORT_DOMAIN, tdn);
    err = verbs_devx_create(rxq->edev->ctx, in, sizeof(in), out, sizeof(out), &rxq->tir);
    if (err == DOCA_SUCCESS)
        rxq->tirn = (uint32_t)PRM_GET(out, PRM_CREATE_TIR_OUT_TIRN);
    return err;
}

/* Posts WQE i -> slot i for every WQE and gives them all to the NIC (doorbell record = n). */
static doca_error_t rxq_post_all(struct doca_eth_rxq *rxq, uint32_t n, uint32_t stride,
                                 uint32_t lkey)
{
    struct prm_wqe_data_seg *wqes = calloc(n, sizeof(*wqes));
    uint64_t base = (uint64_t)(uintptr_t)rxq->mmap->addr + rxq->pkt_offset;
    uint32_t dbr[2] = {__builtin_bswap32(n), 0};
    doca_error_t err;

    if (wqes == NULL) {
        DOCA_LOG_ERR("out of memory staging %u receive WQEs", n);
        return DOCA_ERROR_NO_MEMORY;
    }
    for (uint32_t i = 0; i < n; i++)
        prm_wqe_set_data_seg(&wqes[i], stride, lkey, base + (uint64_t)i * stride);
    err = eth_qmem_write(&rxq->mem, rxq->mem.wq_off, wqes, (size_t)n * sizeof(*wqes));
    free(wqes);
    if (err == DOCA_SUCCESS)
        err = eth_qmem_write(&rxq->mem, rxq->mem.wq_dbr_off, dbr, sizeof(dbr));
    return err;
}

/* A Q counter for the RQ (out_of_buffer: packets dropped for want of a WQE), where the device has.
 */
static doca_error_t rxq_alloc_counter(struct doca_eth_rxq *rxq, const struct eth_caps *caps)
{
    uint8_t in[PRM_ALLOC_Q_COUNTER_IN_SIZE] = {0};
    uint8_t out[PRM_ALLOC_Q_COUNTER_OUT_SIZE];
    doca_error_t err;

    rxq->qcnt_id = 0;
    if (!caps->q_counters)
        return DOCA_SUCCESS;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_ALLOC_Q_COUNTER);
    err = verbs_devx_create(rxq->edev->ctx, in, sizeof(in), out, sizeof(out), &rxq->qcnt);
    if (err == DOCA_SUCCESS)
        rxq->qcnt_id = (uint32_t)PRM_GET(out, PRM_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID);
    return err;
}

/* The RQ's out_of_buffer count since its start. */
static doca_error_t rxq_query_counter(const struct doca_eth_rxq *rxq, uint64_t *n)
{
    uint8_t in[PRM_QUERY_Q_COUNTER_IN_SIZE] = {0};
    uint8_t out[PRM_QUERY_Q_COUNTER_OUT_SIZE];
    doca_error_t err;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_Q_COUNTER);
    PRM_SET(in, PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID, rxq->qcnt_id);
    err = verbs_devx_query(rxq->qcnt, in, sizeof(in), out, sizeof(out));
    if (err == DOCA_SUCCESS)
        *n = (uint64_t)PRM_GET(out, PRM_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER);
    return err;
}

static void rxq_release(struct doca_eth_rxq *rxq)
{
    doca_gpu_t *gpu = rxq->ctx.gpu;

    if (rxq->tir != NULL)
        verbs_devx_destroy(rxq->tir, "TIR", rxq->tirn);
    if (rxq->rq != NULL)
        verbs_devx_destroy(rxq->rq, "RQ", rxq->rqn);
    if (rxq->cq != NULL)
        doca_verbs_cq_destroy(rxq->cq);
    if (rxq->qcnt != NULL) {
        uint64_t n = 0;

        if (rxq_query_counter(rxq, &n) == DOCA_SUCCESS)
            rxq->drops_before += n;
        verbs_devx_destroy(rxq->qcnt, "Q counter", rxq->qcnt_id);
    }
    eth_qmem_free(&rxq->mem);
    if (rxq->pkt_map != NULL)
        gpunetio_unmap_host(rxq->pkt_map);
    eth_desc_free(gpu, rxq->handle);
    rxq->tir = NULL;
    rxq->rq = NULL;
    rxq->cq = NULL;
    rxq->qcnt = NULL;
    rxq->pkt_map = NULL;
    rxq->handle = NULL;
}

/* The checks of doca_ctx_start that need no device object: n slots of stride bytes. */
static doca_error_t rxq_check(struct doca_eth_rxq *rxq, const struct eth_caps *caps,
                              uint32_t *log_n, uint32_t *stride, uint32_t *lkey)
{
    const char *dev_name = rxq->edev->info.ibdev_name;
    uint64_t need;
    doca_error_t err;

    err = eth_queue_check_eth(caps, dev_name, "receive", "doca_eth_rxq_cap_is_type_supported");
    if (err == DOCA_SUCCESS)
        err = eth_queue_check_burst(caps, dev_name, rxq->max_burst,
                                    "doca_eth_rxq_cap_get_max_burst_size", log_n);
    if (err != DOCA_SUCCESS)
        return err;
    *stride = rxq_stride(rxq->max_pkt);
    if (rxq->mmap == NULL) {
        DOCA_LOG_ERR("doca_ctx_start: the receive queue has no packet buffer: call "
                     "doca_eth_rxq_set_pkt_buf (a started doca_mmap) before doca_ctx_start");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!rxq->mmap->started) {
        DOCA_LOG_ERR("doca_ctx_start: the packet buffer's doca_mmap is not started: the order is "
                     "doca_mmap_start, then doca_ctx_start");
        return DOCA_ERROR_BAD_STATE;
    }
    need = ((uint64_t)1 << *log_n) * *stride;
    if (rxq->pkt_size < need) {
        DOCA_LOG_ERR("doca_ctx_start: the packet buffer has %u bytes; %u slots (max_burst_size %u "
                     "rounded up to a power of two) of %u bytes (max_packet_size %u rounded up to "
                     "the %u-byte alignment slots need) take %lu (doca_eth_rxq_estimate_packet_"
                     "buf_size)",
                     rxq->pkt_size, 1u << *log_n, rxq->max_burst, *stride, rxq->max_pkt,
                     DOCA_ETH_RXQ_PKT_ALIGN, (unsigned long)need);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!eth_mmap_lkey(rxq->mmap, rxq->edev->dev, lkey)) {
        DOCA_LOG_ERR("doca_ctx_start: the packet buffer's mmap is not registered with %s: call "
                     "doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
                     dev_name);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (rxq->ctx.gpu == NULL && rxq->mmap->gpu) {
        DOCA_LOG_ERR("doca_ctx_start: the data path is on CPU threads and the packet buffer is GPU "
                     "memory, which they cannot read: use host memory, or a GPU data path");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

static doca_error_t rxq_start(struct doca_ctx *ctx)
{
    struct doca_eth_rxq *rxq = (struct doca_eth_rxq *)(void *)ctx;
    doca_gpu_t *gpu = ctx->gpu;
    struct doca_gpu_eth_rxq desc;
    const struct eth_caps *caps;
    enum eth_mem_kind kind;
    uint32_t log_n, stride, lkey, n, tdn, cqn;
    uint8_t *ring, *pkt;
    void *handle = NULL;
    doca_error_t err;

    err = eth_devinfo_caps(&rxq->edev->info, &caps);
    if (err == DOCA_SUCCESS)
        err = rxq_check(rxq, caps, &log_n, &stride, &lkey);
    if (err != DOCA_SUCCESS)
        return err;
    n = 1u << log_n;
    kind = eth_queue_mem_kind(gpu, rxq->mtype);
    pkt = (uint8_t *)rxq->mmap->addr + rxq->pkt_offset;
    if (gpu != NULL && !rxq->mmap->gpu) {
        const struct core_cuda_ops *cuda;
        void *mapped = NULL;

        err = gpunetio_gpu_bind(gpu, &cuda);
        if (err == DOCA_SUCCESS)
            err = gpunetio_map_host(pkt, rxq->pkt_size, false, "the packet buffer", &mapped);
        if (err != DOCA_SUCCESS)
            return err;
        rxq->pkt_map = mapped;
        pkt = mapped;
    }
    err = eth_dev_td(rxq->edev, &tdn);
    if (err == DOCA_SUCCESS)
        err = eth_queue_rings(rxq->edev, gpu, kind, (size_t)n * GDAKI_ETH_RQ_WQE_SIZE, log_n,
                              &rxq->mem, &rxq->cq, &cqn);
    if (err == DOCA_SUCCESS)
        err = rxq_alloc_counter(rxq, caps);
    if (err == DOCA_SUCCESS)
        err = rxq_post_all(rxq, n, stride, lkey);
    if (err == DOCA_SUCCESS)
        err = rxq_create_rq(rxq, log_n, cqn);
    if (err == DOCA_SUCCESS)
        err = rxq_ready(rxq);
    if (err == DOCA_SUCCESS)
        err = rxq_create_tir(rxq, tdn);
    if (err != DOCA_SUCCESS) {
        rxq_release(rxq);
        return err;
    }
    ring = rxq->mem.gpu_ptr;
    gdaki_eth_desc_set_rxq(
            &desc, ring + rxq->mem.wq_off, n, rxq->rqn,
            (gdaki_be32_t *)(void *)(ring + rxq->mem.wq_dbr_off), ring + rxq->mem.cq_off, log_n,
            cqn, (gdaki_be32_t *)(void *)(ring + rxq->mem.cq_dbr_off), pkt, stride, n, lkey,
            kind == ETH_MEM_GPU ? DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU
                                : DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
            gdaki_eth_desc_nic_scope(gpu != NULL, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB,
                                     kind == ETH_MEM_GPU, kind == ETH_MEM_GPU));
    err = eth_desc_place(gpu, &desc, sizeof(desc), "an rxq descriptor", &handle);
    if (err != DOCA_SUCCESS) {
        rxq_release(rxq);
        return err;
    }
    rxq->handle = handle;
    atomic_fetch_add(&rxq->mmap->users, 1);
    DOCA_LOG_INFO("rxq %p started on %s: RQ 0x%x, CQ 0x%x, TIR 0x%x, %u slots of %u bytes, rings "
                  "in %s memory, data path on %s",
                  (void *)rxq, rxq->edev->info.ibdev_name, rxq->rqn, cqn, rxq->tirn, n, stride,
                  eth_mem_kind_name(kind), gpu != NULL ? gpu->bus_id : "CPU threads");
    return DOCA_SUCCESS;
}

static doca_error_t rxq_stop(struct doca_ctx *ctx)
{
    struct doca_eth_rxq *rxq = (struct doca_eth_rxq *)(void *)ctx;
    int flows = atomic_load(&rxq->flows);

    if (flows != 0) {
        DOCA_LOG_ERR("doca_ctx_stop: %d flows steer to this receive queue: destroy them first "
                     "(dgn_eth_flow_destroy), then doca_ctx_stop",
                     flows);
        return DOCA_ERROR_IN_USE;
    }
    rxq_release(rxq);
    atomic_fetch_sub(&rxq->mmap->users, 1);
    return DOCA_SUCCESS;
}

/* ---- Capabilities ------------------------------------------------------------------------ */

static doca_error_t rxq_caps(const struct doca_devinfo *devinfo, const void *out,
                             const struct eth_caps **caps, const char *call)
{
    if (devinfo == NULL || out == NULL) {
        DOCA_LOG_ERR("%s: devinfo (%p) and the output (%p) must not be NULL", call,
                     (const void *)devinfo, out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return eth_devinfo_caps(devinfo, caps);
}

doca_error_t doca_eth_rxq_cap_get_max_burst_size(const struct doca_devinfo *devinfo,
                                                 uint32_t *max_burst_size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_cap_get_max_burst_size, (devinfo, max_burst_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err =
            rxq_caps(devinfo, max_burst_size, &caps, "doca_eth_rxq_cap_get_max_burst_size");

    if (err == DOCA_SUCCESS)
        *max_burst_size = caps->log_max_wq_sz != 0 ? 1u << caps->log_max_wq_sz : 0;
    return err;
}

doca_error_t doca_eth_rxq_cap_get_max_recv_buf_list_len(const struct doca_devinfo *devinfo,
                                                        uint32_t *max_recv_buf_list_len)
{
    DGN_SDK_ROUTE(doca_eth_rxq_cap_get_max_recv_buf_list_len, (devinfo, max_recv_buf_list_len),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err = rxq_caps(devinfo, max_recv_buf_list_len, &caps,
                                "doca_eth_rxq_cap_get_max_recv_buf_list_len");

    if (err == DOCA_SUCCESS)
        *max_recv_buf_list_len = 1;
    return err;
}

doca_error_t doca_eth_rxq_cap_get_max_packet_size(const struct doca_devinfo *devinfo,
                                                  uint32_t *max_packet_size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_cap_get_max_packet_size, (devinfo, max_packet_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err =
            rxq_caps(devinfo, max_packet_size, &caps, "doca_eth_rxq_cap_get_max_packet_size");

    /* A frame: the MTU and the Ethernet header with a VLAN tag (14 + 4 bytes). */
    if (err == DOCA_SUCCESS)
        *max_packet_size = caps->mtu != 0 ? caps->mtu + 18 : 9216;
    return err;
}

doca_error_t doca_eth_rxq_cap_is_type_supported(const struct doca_devinfo *devinfo,
                                                enum doca_eth_rxq_type type,
                                                enum doca_eth_rxq_data_path_type data_path_type)
{
    DGN_SDK_ROUTE(doca_eth_rxq_cap_is_type_supported, (devinfo, type, data_path_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    const char *why;
    doca_error_t err;

    if (devinfo == NULL || (unsigned int)type > DOCA_ETH_RXQ_TYPE_REGULAR ||
        (unsigned int)data_path_type > DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU) {
        DOCA_LOG_ERR("doca_eth_rxq_cap_is_type_supported: devinfo %p, type %d, data path %d: a "
                     "devinfo and the enums' values are needed",
                     (const void *)devinfo, (int)type, (int)data_path_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = eth_devinfo_caps(devinfo, &caps);
    if (err != DOCA_SUCCESS)
        return err;
    if (!caps->eth_link || !caps->eth_net_offloads) {
        DOCA_LOG_ERR("doca_eth_rxq_cap_is_type_supported: DOCA axis: %s has no Ethernet receive "
                     "queues (%s)",
                     devinfo->ibdev_name,
                     !caps->eth_link ? "link layer InfiniBand" : "eth_net_offloads is 0");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    why = rxq_type_refusal(type);
    if (why != NULL) {
        DOCA_LOG_ERR("doca_eth_rxq_cap_is_type_supported: DOCA axis: %s on the %s data path is not "
                     "supported: it %s",
                     rxq_type_name(type),
                     data_path_type == DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU ? "GPU" : "CPU", why);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_eth_rxq_estimate_packet_buf_size(enum doca_eth_rxq_type type, uint32_t rate,
                                                   uint16_t pkt_max_time, uint32_t max_packet_size,
                                                   uint32_t max_burst_size,
                                                   uint8_t log_max_lro_pkt_sz, uint16_t head_size,
                                                   uint16_t tail_size, uint32_t *buf_size)
{
    DGN_SDK_ROUTE(doca_eth_rxq_estimate_packet_buf_size,
                  (type, rate, pkt_max_time, max_packet_size, max_burst_size, log_max_lro_pkt_sz,
                   head_size, tail_size, buf_size),
                  DOCA_ERROR_NOT_SUPPORTED);

    uint64_t size;

    (void)rate;
    (void)pkt_max_time;
    if (buf_size == NULL || max_packet_size == 0 || max_burst_size == 0) {
        DOCA_LOG_ERR("doca_eth_rxq_estimate_packet_buf_size: buf_size (%p) must not be NULL, "
                     "max_packet_size (%u) and max_burst_size (%u) not 0",
                     (void *)buf_size, max_packet_size, max_burst_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (type != DOCA_ETH_RXQ_TYPE_CYCLIC) {
        DOCA_LOG_ERR("doca_eth_rxq_estimate_packet_buf_size: %s: %s", rxq_type_name(type),
                     rxq_type_refusal(type));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (log_max_lro_pkt_sz != 0) {
        DOCA_LOG_ERR("doca_eth_rxq_estimate_packet_buf_size: LRO is not provided "
                     "(log_max_lro_pkt_sz must be 0)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    size = ((uint64_t)1 << eth_log2_ceil(max_burst_size)) *
           rxq_stride(max_packet_size + head_size + tail_size);
    if (size > UINT32_MAX) {
        DOCA_LOG_ERR("doca_eth_rxq_estimate_packet_buf_size: %lu bytes do not fit 32 bits",
                     (unsigned long)size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *buf_size = (uint32_t)size;
    return DOCA_SUCCESS;
}

doca_error_t dgn_eth_rxq_get_dropped(struct doca_eth_rxq *eth_rxq, uint64_t *dropped)
{
    uint64_t now = 0;
    doca_error_t err;

    DGN_SDK_ROUTE(dgn_eth_rxq_get_dropped, (eth_rxq, dropped), DOCA_ERROR_NOT_SUPPORTED);

    if (eth_rxq == NULL || dropped == NULL) {
        DOCA_LOG_ERR("dgn_eth_rxq_get_dropped: eth_rxq (%p) and dropped (%p) must not be NULL",
                     (void *)eth_rxq, (void *)dropped);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (eth_rxq->qcnt == NULL && eth_rxq->ctx.state == DOCA_CTX_STATE_RUNNING) {
        DOCA_LOG_ERR("dgn_eth_rxq_get_dropped: %s has no Q counters (max_qp_cnt 0)",
                     eth_rxq->edev->info.ibdev_name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (eth_rxq->qcnt != NULL) {
        err = rxq_query_counter(eth_rxq, &now);
        if (err != DOCA_SUCCESS)
            return err;
    }
    *dropped = eth_rxq->drops_before + now;
    return DOCA_SUCCESS;
}
