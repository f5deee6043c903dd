/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA contexts: the state machine every Ethernet queue shares (IDLE <->
 * RUNNING, synchronous), the choice of data path, and the CUDA side of a
 * GPU data path (compute capability and dma-buf, read with
 * cuDeviceGetAttribute).
 */
#include "core/sdk.h"
#include "eth_internal.h"
#include "gpunetio/gpunetio_internal.h"

static const char *ctx_state_name(enum doca_ctx_states s)
{
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "?";
}

void eth_ctx_init(struct doca_ctx *ctx, const struct eth_ctx_ops *ops)
{
    ctx->ops = ops;
    ctx->state = DOCA_CTX_STATE_IDLE;
    ctx->datapath_set = false;
    ctx->gpu = NULL;
}

doca_error_t eth_ctx_idle(const struct doca_ctx *ctx, const char *call)
{
    if (ctx->state == DOCA_CTX_STATE_IDLE)
        return DOCA_SUCCESS;
    DOCA_LOG_ERR("%s: the %s context is %s: configure it before doca_ctx_start, or call "
                 "doca_ctx_stop first",
                 call, ctx->ops->kind, ctx_state_name(ctx->state));
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t eth_gpu_check(doca_gpu_t *gpu, const char *call)
{
    const struct core_cuda_ops *cuda;
    int major = 0, minor = 0, dmabuf = 0;
    doca_error_t err = gpunetio_gpu_bind(gpu, &cuda);

    if (err != DOCA_SUCCESS)
        return err;
    if (cuda->cuDeviceGetAttribute(&major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR, gpu->device) !=
                CORE_CU_SUCCESS ||
        cuda->cuDeviceGetAttribute(&minor, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR, gpu->device) !=
                CORE_CU_SUCCESS ||
        cuda->cuDeviceGetAttribute(&dmabuf, CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED, gpu->device) !=
                CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("%s: cuDeviceGetAttribute failed on GPU %s", call, gpu->bus_id);
        return DOCA_ERROR_DRIVER;
    }
    if (major * 10 + minor < GPUNETIO_MIN_CC_MAJOR * 10 + GPUNETIO_MIN_CC_MINOR) {
        DOCA_LOG_ERR("%s: CUDA axis: GPU %s has compute capability %d.%d "
                     "(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR); a GPU data path needs "
                     "%d.%d or newer",
                     call, gpu->bus_id, major, minor, GPUNETIO_MIN_CC_MAJOR, GPUNETIO_MIN_CC_MINOR);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (!dmabuf) {
        DOCA_LOG_ERR("%s: CUDA axis: GPU %s has no dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED "
                     "is 0): the queues' rings and packet buffers in GPU memory are registered "
                     "with the NIC by dma-buf (needs the open kernel module, Linux 5.12+)",
                     call, gpu->bus_id);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev)
{
    DGN_SDK_ROUTE(doca_ctx_set_datapath_on_gpu, (ctx, gpu_dev), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (ctx == NULL) {
        DOCA_LOG_ERR("ctx is NULL: pass doca_eth_rxq_as_doca_ctx() / doca_eth_txq_as_doca_ctx()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = eth_ctx_idle(ctx, "doca_ctx_set_datapath_on_gpu");
    if (err != DOCA_SUCCESS)
        return err;
    if (gpu_dev != NULL) {
        err = eth_gpu_check(gpu_dev, "doca_ctx_set_datapath_on_gpu");
        if (err != DOCA_SUCCESS)
            return err;
    }
    ctx->gpu = gpu_dev;
    ctx->datapath_set = true;
    DOCA_LOG_INFO("%s context %p: data path on %s%s", ctx->ops->kind, (void *)ctx,
                  gpu_dev != NULL ? "GPU " : "CPU threads", gpu_dev != NULL ? gpu_dev->bus_id : "");
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
    DGN_SDK_ROUTE(doca_ctx_start, (ctx), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (ctx == NULL) {
        DOCA_LOG_ERR("ctx is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (ctx->state != DOCA_CTX_STATE_IDLE) {
        DOCA_LOG_ERR("doca_ctx_start: the %s context is already %s (doca_ctx_stop first)",
                     ctx->ops->kind, ctx_state_name(ctx->state));
        return DOCA_ERROR_BAD_STATE;
    }
    if (!ctx->datapath_set) {
        DOCA_LOG_ERR("doca_ctx_start: the %s context has no data path: call "
                     "doca_ctx_set_datapath_on_gpu(ctx, gpu) (or NULL for CPU threads) first",
                     ctx->ops->kind);
        return DOCA_ERROR_BAD_STATE;
    }
    err = ctx->ops->start(ctx);
    if (err == DOCA_SUCCESS)
        ctx->state = DOCA_CTX_STATE_RUNNING;
    return err;
}

doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
    DGN_SDK_ROUTE(doca_ctx_stop, (ctx), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (ctx == NULL) {
        DOCA_LOG_ERR("ctx is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (ctx->state != DOCA_CTX_STATE_RUNNING) {
        DOCA_LOG_ERR("doca_ctx_stop: the %s context is %s, not started (doca_ctx_start first)",
                     ctx->ops->kind, ctx_state_name(ctx->state));
        return DOCA_ERROR_BAD_STATE;
    }
    err = ctx->ops->stop(ctx);
    if (err == DOCA_SUCCESS)
        ctx->state = DOCA_CTX_STATE_IDLE;
    return err;
}

doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
    DGN_SDK_ROUTE(doca_ctx_get_state, (ctx, state), DOCA_ERROR_NOT_SUPPORTED);

    if (ctx == NULL || state == NULL) {
        DOCA_LOG_ERR("ctx (%p) and state (%p) must not be NULL", (const void *)ctx, (void *)state);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *state = ctx->state;
    return DOCA_SUCCESS;
}
