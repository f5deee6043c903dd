/* SPDX-License-Identifier: BSD-3-Clause */
#include "cq.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/async_event.h"

/* PRM cq_error event syndrome: the CQ overran. */
#define CQ_ERROR_SYNDROME_OVERRUN 0x01

int emu_cq_create(struct emu_nic *nic, const struct emu_cq_params *p, struct emu_cq **cq_out)
{
    struct emu_cq *cq;
    int64_t index;

    if (p->log_size > EMU_LOG_MAX_CQ_SZ || p->ring == 0 || p->dbrec == 0)
        return EINVAL;
    cq = calloc(1, sizeof(*cq));
    if (cq == NULL)
        return ENOMEM;
    cq->nic = nic;
    cq->p = *p;
    pthread_mutex_init(&cq->lock, NULL);
    pthread_mutex_init(&cq->poll_lock, NULL);
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->cqs, cq);
    pthread_mutex_unlock(&nic->lock);
    if (index < 0) {
        EMU_LOG_ERR("device %s has no free completion queue number", nic->ibdev.name);
        free(cq);
        return ENOMEM;
    }
    cq->cqn = emu_nic_obj_num(nic, (uint32_t)index);
    *cq_out = cq;
    return 0;
}

int emu_cq_destroy(struct emu_cq *cq)
{
    struct emu_nic *nic = cq->nic;

    pthread_mutex_lock(&nic->lock);
    if (cq->users != 0) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("CQ 0x%x is used by %d queue pairs or SRQs; destroy them first", cq->cqn,
                    cq->users);
        return EBUSY;
    }
    emu_table_remove(&nic->cqs, cq->cqn & EMU_OBJ_INDEX_MASK);
    emu_cq_detach_all(cq);
    pthread_mutex_unlock(&nic->lock);
    pthread_mutex_destroy(&cq->lock);
    pthread_mutex_destroy(&cq->poll_lock);
    free(cq);
    return 0;
}

struct emu_cq *emu_cq_lookup(struct emu_nic *nic, uint32_t cqn)
{
    if ((cqn >> EMU_OBJ_INDEX_BITS) != nic->endpoint_id)
        return NULL;
    return emu_table_get(&nic->cqs, cqn & EMU_OBJ_INDEX_MASK);
}

/* The consumer counter software published in the doorbell record (24 bits). */
static uint32_t cq_sw_consumer(const struct emu_cq *cq)
{
    uint32_t be = 0;

    if (cq->p.dbrec_gpu) {
        emu_mem_read(true, cq->p.dbrec, &be, sizeof(be));
    } else {
        /* Acquire: the consumer's reads of the CQEs it freed happened before this value. */
        be = __atomic_load_n((const uint32_t *)cq->p.dbrec, __ATOMIC_ACQUIRE);
    }
    return be32toh(be) & 0xffffff;
}

int emu_cq_push(struct emu_cq *cq, const struct prm_cqe64 *cqe, uint8_t op_own_opcode,
                bool solicited)
{
    uint32_t size = 1u << cq->p.log_size;
    uint32_t slot;
    uintptr_t addr;
    uint8_t op_own;

    pthread_mutex_lock(&cq->lock);
    if (cq->overrun) {
        pthread_mutex_unlock(&cq->lock);
        return EOVERFLOW;
    }
    if (!cq->p.overrun_ignore && ((cq->producer - cq_sw_consumer(cq)) & 0xffffff) >= size) {
        __atomic_store_n(&cq->overrun, true, __ATOMIC_RELEASE);
        emu_cq_error_event(cq, CQ_ERROR_SYNDROME_OVERRUN);
        pthread_mutex_unlock(&cq->lock);
        emu_async_raise(cq->nic, cq->ibv.context, IBV_EVENT_CQ_ERR, &cq->ibv);
        EMU_LOG_ERR("CQ 0x%x overrun: %u entries, none free (producer %u); the CQ is in error and "
                    "further completions are dropped: poll faster or make the CQ larger",
                    cq->cqn, size, cq->producer);
        return EOVERFLOW;
    }
    slot = cq->p.collapsed ? 0 : (cq->producer & (size - 1));
    addr = cq->p.ring + (uintptr_t)slot * PRM_CQE_SIZE;
    op_own = (uint8_t)((op_own_opcode & ~PRM_CQE_OWNER_MASK) |
                       prm_cqe_owner_for_index(cq->producer, cq->p.log_size));
    if (cq->p.ring_gpu) {
        /* Synchronous copies: the body is in GPU memory before the owner byte is written. */
        emu_mem_write(true, addr, cqe, PRM_CQE_SIZE - 1);
        emu_mem_write(true, addr + PRM_CQE_SIZE - 1, &op_own, 1);
    } else {
        memcpy((void *)addr, cqe, PRM_CQE_SIZE - 1);
        /* Release: the CQE body is visible before the owner byte that hands it to software. */
        __atomic_store_n((uint8_t *)(addr + PRM_CQE_SIZE - 1), op_own, __ATOMIC_RELEASE);
    }
    cq->producer++;
    solicited |= (op_own >> PRM_CQE_OPCODE_SHIFT) >= PRM_CQE_OPCODE_REQ_ERR;
    if (solicited)
        cq->solicit_end = cq->producer;
    if (cq->armed && (!cq->armed_solicited || solicited))
        emu_cq_fire(cq);
    pthread_mutex_unlock(&cq->lock);
    return 0;
}
