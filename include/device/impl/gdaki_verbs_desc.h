/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Filling the descriptors the data path reads (host side): the one place
 * that turns a send queue's ring and a CQ's ring into descriptor fields.
 * Export uses it for real QPs; the sink benchmark for rings it allocates
 * itself, so that both data paths read exactly the same thing.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_DESC_H
#define DOCA_GPUNETIO_IMPL_VERBS_DESC_H

#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_platform.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/*
 * The scope whose release fences order the data path's stores for the NIC
 * (sq_nic_scope): GPU only when a GPU rings the NIC itself and everything the
 * NIC reads before acting on the doorbell (the ring, the doorbell record) is
 * in GPU memory.
 */
GDAKI_INLINE enum doca_gpu_dev_verbs_sync_scope
gdaki_desc_nic_scope(int gpu_executor, uint32_t handler, int ring_in_gpu, int dbr_in_gpu)
{
    if (!gpu_executor || (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) || !ring_in_gpu)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    if ((handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) == 0 && !dbr_in_gpu)
        return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    return DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
}

/*
 * The send queue: wqe_num basic blocks at ring, QP number qpn, rung with
 * handler (never AUTO), its stores ordered for the NIC at nic_scope.
 */
GDAKI_INLINE void gdaki_desc_set_sq(struct doca_gpu_dev_verbs_qp *d, uint8_t *ring,
                                    uint32_t wqe_num, uint32_t qpn, uint32_t handler,
                                    enum doca_gpu_dev_verbs_mem_type mem_type,
                                    enum doca_gpu_dev_verbs_sync_scope nic_scope)
{
    d->sq_wqe_daddr = ring;
    d->sq_wqe_num = wqe_num;
    d->sq_wqe_mask = wqe_num - 1;
    d->sq_num = qpn;
    d->sq_num_shift8 = qpn << 8;
    d->sq_num_shift8_be = gdaki_htobe32(qpn << 8);
    d->sq_num_shift8_be_1ds = gdaki_htobe32((qpn << 8) | 1);
    d->sq_num_shift8_be_2ds = gdaki_htobe32((qpn << 8) | 2);
    d->sq_num_shift8_be_3ds = gdaki_htobe32((qpn << 8) | 3);
    d->sq_num_shift8_be_4ds = gdaki_htobe32((qpn << 8) | 4);
    d->sq_num_shift8_be_5ds = gdaki_htobe32((qpn << 8) | 5);
    d->layout_version = DOCA_GPUNETIO_DEVICE_CODE_VERSION;
    d->layout_size = (uint32_t)sizeof(*d);
    d->nic_handler = handler;
    d->mem_type = (uint32_t)mem_type;
    d->sq_nic_scope = (uint32_t)nic_scope;
}

/*
 * The receive queue: wqe_num receive WQEs of stride bytes at ring, handed
 * to the NIC through dbrec (the doorbell record's receive word), whose
 * fence is at nic_scope.
 */
GDAKI_INLINE void gdaki_desc_set_rq(struct doca_gpu_dev_verbs_qp *d, uint8_t *ring,
                                    uint32_t wqe_num, uint32_t stride, uint32_t qpn,
                                    gdaki_be32_t *dbrec,
                                    enum doca_gpu_dev_verbs_sync_scope nic_scope)
{
    d->rq_wqe_daddr = ring;
    d->rq_dbrec = dbrec;
    d->rq_wqe_num = wqe_num;
    d->rq_wqe_mask = wqe_num - 1;
    d->rq_num = qpn;
    d->rcv_wqe_size = stride;
    d->rq_nic_scope = (uint32_t)nic_scope;
}

/* The kind of CQ (DOCA's cq_type) a CQ made collapsed or not is. */
GDAKI_INLINE enum doca_gpu_dev_verbs_cq_type gdaki_desc_cq_type(int collapsed)
{
    return collapsed ? DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED : DOCA_GPUNETIO_VERBS_CQ_64B;
}

/* The CQ: 2^log_size CQEs at ring (the NIC writes them all to entry 0 when collapsed). */
GDAKI_INLINE void gdaki_desc_set_cq(struct doca_gpu_dev_verbs_cq *c, uint8_t *ring,
                                    uint32_t log_size, uint32_t cqn, int collapsed,
                                    enum doca_gpu_dev_verbs_mem_type mem_type, gdaki_be32_t *dbrec)
{
    c->cqe_daddr = ring;
    c->cqe_num = collapsed ? 1 : 1u << log_size;
    c->cqe_mask = c->cqe_num - 1;
    c->cq_num = cqn;
    c->collapsed = collapsed ? 1 : 0;
    c->cqe_size = DOCA_GPUNETIO_VERBS_CQE_SIZE;
    c->cq_type = (uint8_t)gdaki_desc_cq_type(collapsed);
    c->cqe_rsvd = 0;
    c->cqe_base = 0;
    c->cqe_base_owner = 0;
    c->mem_type = (uint32_t)mem_type;
    c->dbrec = dbrec;
}

#endif /* DOCA_GPUNETIO_IMPL_VERBS_DESC_H */
