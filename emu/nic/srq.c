/* SPDX-License-Identifier: BSD-3-Clause */
#include "srq.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>

#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/async_event.h"
#include "nic/xrcd.h"

int emu_srq_create(struct emu_nic *nic, const struct emu_srq_params *p, struct emu_srq **srq_out)
{
    struct emu_srq *srq;
    int64_t index;

    if (p->log_size > EMU_LOG_MAX_SRQ_SZ || p->ring == 0 || p->dbrec == 0 ||
        (p->xrcd != NULL) != (p->cq != NULL))
        return EINVAL;
    srq = calloc(1, sizeof(*srq));
    if (srq == NULL)
        return ENOMEM;
    srq->nic = nic;
    srq->p = *p;
    pthread_mutex_init(&srq->lock, NULL);
    pthread_mutex_init(&srq->post_lock, NULL);
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->srqs, srq);
    if (index >= 0 && p->xrcd != NULL) {
        p->xrcd->users++;
        p->cq->users++;
    }
    pthread_mutex_unlock(&nic->lock);
    if (index < 0) {
        EMU_LOG_ERR("device %s has no free SRQ number", nic->ibdev.name);
        free(srq);
        return ENOMEM;
    }
    srq->srqn = emu_nic_obj_num(nic, (uint32_t)index);
    *srq_out = srq;
    return 0;
}

int emu_srq_unlist(struct emu_srq *srq)
{
    struct emu_nic *nic = srq->nic;

    pthread_mutex_lock(&nic->lock);
    if (srq->users != 0) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("SRQ 0x%x is used by %d queue pairs; destroy them first", srq->srqn,
                    srq->users);
        return EBUSY;
    }
    emu_table_remove(&nic->srqs, srq->srqn & EMU_OBJ_INDEX_MASK);
    if (srq->p.xrcd != NULL) {
        srq->p.xrcd->users--;
        srq->p.cq->users--;
    }
    pthread_mutex_unlock(&nic->lock);
    return 0;
}

void emu_srq_free(struct emu_srq *srq)
{
    pthread_mutex_destroy(&srq->lock);
    pthread_mutex_destroy(&srq->post_lock);
    free(srq);
}

int64_t emu_srq_take(struct emu_srq *srq, void *wqe)
{
    uint32_t stride = 16u << srq->p.log_stride;
    uint32_t posted_be = 0, index;
    bool limit_hit;

    pthread_mutex_lock(&srq->lock);
    if (srq->p.dbrec_gpu)
        emu_mem_read(true, srq->p.dbrec, &posted_be, sizeof(posted_be));
    else /* Acquire: the WQE's contents were written before the counter that publishes it. */
        posted_be = __atomic_load_n((const uint32_t *)srq->p.dbrec, __ATOMIC_ACQUIRE);
    if (((be32toh(posted_be) - srq->consumer) & 0xffff) == 0) {
        pthread_mutex_unlock(&srq->lock);
        return -1;
    }
    index = srq->consumer++;
    emu_mem_read(srq->p.ring_gpu,
                 srq->p.ring + (uintptr_t)(index & ((1u << srq->p.log_size) - 1)) * stride, wqe,
                 stride);
    /* Armed limit: fewer WQEs left than it names fires SRQ_LIMIT_REACHED once and disarms. */
    limit_hit = srq->limit != 0 && ((be32toh(posted_be) - srq->consumer) & 0xffff) < srq->limit;
    if (limit_hit)
        srq->limit = 0;
    pthread_mutex_unlock(&srq->lock);
    if (limit_hit)
        emu_async_raise(srq->nic, srq->ibv.context, IBV_EVENT_SRQ_LIMIT_REACHED, &srq->ibv);
    return index & 0xffff;
}

void emu_srq_untake(struct emu_srq *srq, uint32_t index)
{
    pthread_mutex_lock(&srq->lock);
    if (((srq->consumer - 1) & 0xffff) == index)
        srq->consumer--;
    pthread_mutex_unlock(&srq->lock);
}

struct emu_srq *emu_srq_lookup(struct emu_nic *nic, uint32_t srqn)
{
    if ((srqn >> EMU_OBJ_INDEX_BITS) != nic->endpoint_id)
        return NULL;
    return emu_table_get(&nic->srqs, srqn & EMU_OBJ_INDEX_MASK);
}
