/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What doca_eth_rxq and doca_eth_txq share: the checks of their setters and
 * of destroy, the context they are, the checks of doca_ctx_start on the
 * device's capabilities, and the rings (queue memory and its CQ) a start
 * makes. `q` is the queue's context, its first member (NULL for a NULL
 * queue); `name` its parameter's name ("eth_rxq"), `call` the DOCA call.
 */
#include <stdlib.h>

#include "eth_internal.h"
#include "gpunetio/gpunetio_internal.h"

doca_error_t eth_queue_settable(const struct doca_ctx *q, const char *name, const char *call)
{
    if (q == NULL) {
        DOCA_LOG_ERR("%s: %s is NULL", call, name);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return eth_ctx_idle(q, call);
}

doca_error_t eth_queue_settable_count(const struct doca_ctx *q, const char *name, const char *call,
                                      uint32_t count, const char *unit)
{
    doca_error_t err = eth_queue_settable(q, name, call);

    if (err != DOCA_SUCCESS)
        return err;
    if (count == 0) {
        DOCA_LOG_ERR("%s: 0 %s", call, unit);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t eth_queue_settable_mem_type(const struct doca_ctx *q, const char *name,
                                         const char *call, enum doca_gpu_mem_type type)
{
    doca_error_t err = eth_queue_settable(q, name, call);

    if (err != DOCA_SUCCESS)
        return err;
    if (type != DOCA_GPU_MEM_TYPE_GPU && type != DOCA_GPU_MEM_TYPE_CPU_GPU) {
        DOCA_LOG_ERR("%s: %s: the rings go in DOCA_GPU_MEM_TYPE_GPU or DOCA_GPU_MEM_TYPE_CPU_GPU",
                     call, gpunetio_mem_type_name(type));
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

struct doca_ctx *eth_queue_as_ctx(struct doca_ctx *q, const char *name, const char *call)
{
    if (q == NULL)
        DOCA_LOG_ERR("%s: %s is NULL", call, name);
    return q;
}

doca_error_t eth_queue_destroy(struct doca_ctx *q, struct eth_dev *edev, struct doca_mmap *mmap,
                               const char *call)
{
    if (q->state != DOCA_CTX_STATE_IDLE) {
        DOCA_LOG_ERR(
                "%s: the queue's context is started and its GPU handle alive: stop the context "
                "first (doca_ctx_stop, once the kernels using the handle are done), then %s",
                call, call);
        return DOCA_ERROR_BAD_STATE;
    }
    if (mmap != NULL)
        atomic_fetch_sub(&mmap->refs, 1);
    verbs_dev_put(edev->dev);
    free(q);
    return DOCA_SUCCESS;
}

doca_error_t eth_queue_gpu_handle(const struct doca_ctx *q, const void *handle, const char *call)
{
    if (q->state != DOCA_CTX_STATE_RUNNING || handle == NULL) {
        DOCA_LOG_ERR("%s: the queue's context is not started: the order is "
                     "doca_ctx_set_datapath_on_gpu, doca_ctx_start, then get_gpu_handle (the "
                     "handle lives until doca_ctx_stop)",
                     call);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

doca_error_t eth_queue_check_eth(const struct eth_caps *caps, const char *dev_name, const char *dir,
                                 const char *cap_call)
{
    if (!caps->eth_net_offloads || !caps->eth_link) {
        DOCA_LOG_ERR(
                "doca_ctx_start: DOCA axis: %s cannot expose an Ethernet %s queue (%s); %s says so",
                dev_name, dir,
                !caps->eth_link ? "its port's link layer is not Ethernet"
                                : "QUERY_HCA_CAP eth_net_offloads is 0",
                cap_call);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t eth_queue_check_burst(const struct eth_caps *caps, const char *dev_name,
                                   uint32_t max_burst, const char *cap_call, uint32_t *log_n)
{
    *log_n = eth_log2_ceil(max_burst);
    if (caps->log_max_wq_sz != 0 && *log_n > caps->log_max_wq_sz) {
        DOCA_LOG_ERR("doca_ctx_start: DOCA axis: max_burst_size %u is more than %s's %u WQEs (%s)",
                     max_burst, dev_name, 1u << caps->log_max_wq_sz, cap_call);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return DOCA_SUCCESS;
}

enum eth_mem_kind eth_queue_mem_kind(const doca_gpu_t *gpu, enum doca_gpu_mem_type mtype)
{
    return gpu == NULL                          ? ETH_MEM_HOST
           : mtype == DOCA_GPU_MEM_TYPE_CPU_GPU ? ETH_MEM_PINNED
                                                : ETH_MEM_GPU;
}

const char *eth_mem_kind_name(enum eth_mem_kind kind)
{
    return kind == ETH_MEM_GPU ? "GPU" : kind == ETH_MEM_PINNED ? "pinned host" : "host";
}

doca_error_t eth_queue_rings(struct eth_dev *edev, doca_gpu_t *gpu, enum eth_mem_kind kind,
                             size_t wq_bytes, uint32_t log_n, struct eth_qmem *mem,
                             doca_verbs_cq_t **cq, uint32_t *cqn)
{
    doca_error_t err = eth_qmem_alloc(edev->dev, gpu, kind, wq_bytes,
                                      ((size_t)1 << log_n) * VERBS_CQE_SIZE, mem);

    if (err == DOCA_SUCCESS)
        err = eth_qmem_cq(edev->dev, mem, log_n, cq);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_get_cqn(*cq, cqn);
    return err;
}
