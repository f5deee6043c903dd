/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues of the standard verbs: create (basic, or XRC: in an
 * XRC domain, with a CQ of its own), modify (limit), query, destroy, and
 * ibv_get_srq_num.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/srq.h"

#define EMU_EXPORT __attribute__((visibility("default")))

static struct ibv_srq *srq_make(struct ibv_pd *pd, struct ibv_srq_attr *attr, void *srq_context,
                                struct emu_xrcd *xrcd, struct emu_cq *cq)
{
    struct emu_srq_params p = {.xrcd = xrcd, .cq = cq};
    struct emu_srq *srq;
    uint32_t log = 0, log_stride = 0;
    void *ring;
    int err = 0;

    if (pd == NULL || attr == NULL || !emu_context_is_ours(pd->context)) {
        errno = EINVAL;
        return NULL;
    }
    if (attr->max_wr == 0 || attr->max_wr > (1u << EMU_LOG_MAX_SRQ_SZ) - 1 ||
        attr->max_sge > EMU_MAX_SRQ_SGE) {
        EMU_LOG_ERR("ibv_create_srq: max_wr %u (1..%u) or max_sge %u (at most %d) out of range",
                    attr->max_wr, (1u << EMU_LOG_MAX_SRQ_SZ) - 1, attr->max_sge, EMU_MAX_SRQ_SGE);
        errno = EINVAL;
        return NULL;
    }
    while ((1u << log) < attr->max_wr + 1)
        log++;
    while ((16u << log_stride) < 16 * (1 + (attr->max_sge ? attr->max_sge : 1)))
        log_stride++;
    if (posix_memalign(&ring, 4096, (size_t)(16u << log_stride) << log) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    p.pd = emu_pd_of(pd);
    p.log_size = log;
    p.log_stride = log_stride;
    p.ring = (uintptr_t)ring;
    p.dbrec = (uintptr_t)calloc(1, 64);
    if (p.dbrec == 0 || (err = emu_srq_create(emu_nic_of_ctx(pd->context), &p, &srq)) != 0) {
        free((void *)p.dbrec);
        free(ring);
        errno = p.dbrec == 0 ? ENOMEM : err;
        return NULL;
    }
    srq->wrid = calloc(1u << log, sizeof(*srq->wrid));
    if (srq->wrid == NULL) {
        emu_engine_srq_destroy(srq);
        free((void *)p.dbrec);
        free(ring);
        errno = ENOMEM;
        return NULL;
    }
    srq->ring_alloc = ring;
    srq->dbrec_alloc = (void *)p.dbrec;
    srq->max_wr = (1u << log) - 1;
    srq->max_sge = (16u << log_stride) / 16 - 1;
    srq->limit = attr->srq_limit;
    attr->max_wr = srq->max_wr;
    attr->max_sge = srq->max_sge;
    srq->ibv.context = pd->context;
    srq->ibv.srq_context = srq_context;
    srq->ibv.pd = pd;
    srq->ibv.handle = srq->srqn;
    pthread_mutex_init(&srq->ibv.mutex, NULL);
    pthread_cond_init(&srq->ibv.cond, NULL);
    pthread_mutex_lock(&srq->nic->lock);
    srq->p.pd->users++;
    pthread_mutex_unlock(&srq->nic->lock);
    return &srq->ibv;
}

EMU_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    return attr == NULL ? NULL : srq_make(pd, &attr->attr, attr->srq_context, NULL, NULL);
}

struct ibv_srq *emu_verbs_create_srq_ex(struct ibv_context *context,
                                        struct ibv_srq_init_attr_ex *attr)
{
    const uint32_t xrc_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
    enum ibv_srq_type type =
            (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ? attr->srq_type : IBV_SRQT_BASIC;

    if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) {
        EMU_LOG_ERR("ibv_create_srq_ex: SRQ type %d is not supported (basic and XRC SRQs only)",
                    type);
        errno = EOPNOTSUPP;
        return NULL;
    }
    if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD)) {
        errno = EINVAL;
        return NULL;
    }
    if (type == IBV_SRQT_BASIC)
        return srq_make(attr->pd, &attr->attr, attr->srq_context, NULL, NULL);
    if ((attr->comp_mask & xrc_mask) != xrc_mask || attr->xrcd == NULL || attr->cq == NULL ||
        attr->xrcd->context != context || attr->cq->context != context) {
        EMU_LOG_ERR("ibv_create_srq_ex: an XRC SRQ needs a PD, an XRC domain and a CQ of this "
                    "context (IBV_SRQ_INIT_ATTR_PD | _XRCD | _CQ)");
        errno = EINVAL;
        return NULL;
    }
    return srq_make(attr->pd, &attr->attr, attr->srq_context, emu_verbs_xrcd_of(attr->xrcd),
                    (struct emu_cq *)attr->cq);
}

int emu_verbs_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
    /*
     * Any SRQ's number, as libmlx5 answers: an XRC initiator names XRC SRQs
     * by it, and a DC initiator's peer (perftest -c DC exchanges it) a DCT's.
     */
    if (ibsrq == NULL || srq_num == NULL || !emu_context_is_ours(ibsrq->context)) {
        EMU_LOG_ERR("ibv_get_srq_num: %p is not an SRQ of a softmlx5 device", (void *)ibsrq);
        return EINVAL;
    }
    *srq_num = ((const struct emu_srq *)ibsrq)->srqn;
    return 0;
}

EMU_EXPORT int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
    struct emu_srq *srq = (struct emu_srq *)ibsrq;

    if (ibsrq == NULL || attr == NULL)
        return EINVAL;
    if (mask & IBV_SRQ_MAX_WR) {
        EMU_LOG_ERR("ibv_modify_srq: SRQ 0x%x cannot be resized", srq->srqn);
        return EINVAL;
    }
    if (mask & IBV_SRQ_LIMIT) {
        if (attr->srq_limit > srq->max_wr)
            return EINVAL;
        pthread_mutex_lock(&srq->lock);
        srq->limit = attr->srq_limit;
        pthread_mutex_unlock(&srq->lock);
    }
    return 0;
}

EMU_EXPORT int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
    struct emu_srq *srq = (struct emu_srq *)ibsrq;

    if (ibsrq == NULL || attr == NULL)
        return EINVAL;
    attr->max_wr = srq->max_wr;
    attr->max_sge = srq->max_sge;
    attr->srq_limit = srq->limit;
    return 0;
}

EMU_EXPORT int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
    struct emu_srq *srq = (struct emu_srq *)ibsrq;
    struct emu_pd *pd;
    void *ring, *dbrec;
    uint64_t *wrid;
    struct emu_async_closing closing;
    struct emu_nic *nic;
    int err;

    if (ibsrq == NULL)
        return EINVAL;
    nic = srq->nic;
    emu_verbs_async_quiesce(nic, EMU_ASYNC_SRQ, srq, &closing);
    pd = srq->p.pd;
    ring = srq->ring_alloc;
    dbrec = srq->dbrec_alloc;
    wrid = srq->wrid;
    err = emu_engine_srq_destroy(srq);
    emu_async_gone(nic, &closing);
    if (err != 0)
        return err;
    pthread_mutex_lock(&pd->nic->lock);
    pd->users--;
    pthread_mutex_unlock(&pd->nic->lock);
    free(wrid);
    free(ring);
    free(dbrec);
    return 0;
}
