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
    free(cq->staged);
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

/*
 * Whether the entry with index `index` has a free slot. The consumer only
 * moves forward, so the counter last read stands until it says the ring is
 * full: only then is the doorbell record read again (a copy, in GPU memory).
 */
static bool cq_has_room(struct emu_cq *cq, uint32_t index)
{
    uint32_t size = 1u << cq->p.log_size;

    if (cq->p.overrun_ignore || ((index - cq->consumer_seen) & 0xffffff) < size)
        return true;
    cq->consumer_seen = cq_sw_consumer(cq);
    return ((index - cq->consumer_seen) & 0xffffff) < size;
}

/* CQEs written from producer on: producer moves, and the armed event fires (cq->lock held). */
static void cq_published(struct emu_cq *cq, uint32_t n, uint32_t solicited_end)
{
    cq->producer += n;
    if (solicited_end != 0)
        cq->solicit_end = cq->producer - n + solicited_end;
    if (cq->armed && (!cq->armed_solicited || solicited_end != 0))
        emu_cq_fire(cq);
}

/*
 * Writes the held CQEs (cq->lock held). Two ordered copies of the same
 * entries: first with an op_own byte of opcode INVALID, which every
 * consumer reads as "not yet" (software initialises rings so), then as they
 * are. So each body is in GPU memory before its op_own says so, for one
 * wait however many entries.
 */
static void cq_flush_locked(struct emu_cq *cq)
{
    uint32_t n = cq->staged_n;
    uintptr_t at =
            cq->p.ring + (uintptr_t)(cq->producer & ((1u << cq->p.log_size) - 1)) * PRM_CQE_SIZE;
    const struct emu_mem_span spans[2] = {
            {at, cq->staged_hidden, (size_t)n * PRM_CQE_SIZE},
            {at, cq->staged, (size_t)n * PRM_CQE_SIZE},
    };

    if (n == 0)
        return;
    emu_mem_gpu_write_seq(spans, 2); /* a failure is logged; the entries are gone */
    cq->staged_n = 0;
    cq_published(cq, n, cq->staged_solicited_end);
    cq->staged_solicited_end = 0;
}

void emu_cq_flush(struct emu_cq *cq)
{
    pthread_mutex_lock(&cq->lock);
    cq_flush_locked(cq);
    pthread_mutex_unlock(&cq->lock);
}

/* Holds one CQE of a GPU ring (cq->lock held); false: no memory to hold it in. */
static bool cq_stage(struct emu_cq *cq, const struct prm_cqe64 *cqe, uint8_t op_own, bool solicited)
{
    uint32_t size = 1u << cq->p.log_size, i;

    if (cq->staged == NULL) {
        cq->staged = malloc(2 * sizeof(*cq->staged) * EMU_CQ_STAGE_MAX);
        if (cq->staged == NULL)
            return false;
        cq->staged_hidden = cq->staged + EMU_CQ_STAGE_MAX;
    }
    i = cq->staged_n++;
    cq->staged[i] = *cqe;
    cq->staged[i].op_own = op_own;
    cq->staged_hidden[i] = *cqe;
    cq->staged_hidden[i].op_own = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 0);
    if (solicited)
        cq->staged_solicited_end = i + 1;
    /* Held entries are contiguous in the ring: the last slot before the wrap ends them. */
    if (cq->staged_n == EMU_CQ_STAGE_MAX || ((cq->producer + cq->staged_n) & (size - 1)) == 0)
        cq_flush_locked(cq);
    return true;
}

int emu_cq_push(struct emu_cq *cq, const struct prm_cqe64 *cqe, uint8_t op_own_opcode,
                bool solicited, bool defer)
{
    uint32_t size = 1u << cq->p.log_size;
    uint32_t index, slot;
    uintptr_t addr;
    uint8_t op_own;
    bool was_idle;

    pthread_mutex_lock(&cq->lock);
    if (cq->overrun) {
        pthread_mutex_unlock(&cq->lock);
        return EOVERFLOW;
    }
    index = cq->producer + cq->staged_n;
    if (!cq_has_room(cq, index)) {
        cq_flush_locked(cq); /* the held entries had room */
        __atomic_store_n(&cq->overrun, true, __ATOMIC_RELEASE);
        emu_cq_error_event(cq, CQ_ERROR_SYNDROME_OVERRUN);
        pthread_mutex_unlock(&cq->lock);
        emu_async_raise(cq->nic, cq->ibv.context, IBV_EVENT_CQ_ERR, &cq->ibv);
        EMU_LOG_ERR("CQ 0x%x overrun: %u entries, none free (producer %u); the CQ is in error and "
                    "further completions are dropped: poll faster or make the CQ larger",
                    cq->cqn, size, index);
        return EOVERFLOW;
    }
    op_own = (uint8_t)((op_own_opcode & ~PRM_CQE_OWNER_MASK) |
                       prm_cqe_owner_for_index(index, cq->p.log_size));
    solicited |= (op_own >> PRM_CQE_OPCODE_SHIFT) >= PRM_CQE_OPCODE_REQ_ERR;
    was_idle = cq->staged_n == 0;
    if (cq->p.ring_gpu && !cq->p.collapsed && cq_stage(cq, cqe, op_own, solicited)) {
        /* Held while the caller batches, or while earlier ones are held (order); else now. */
        if (!defer && was_idle)
            cq_flush_locked(cq);
        pthread_mutex_unlock(&cq->lock);
        return defer && was_idle && cq->staged_n > 0 ? EINPROGRESS : 0;
    }
    slot = cq->p.collapsed ? 0 : (index & (size - 1));
    addr = cq->p.ring + (uintptr_t)slot * PRM_CQE_SIZE;
    if (cq->p.ring_gpu) {
        /* Ordered copies: the body is in GPU memory before the owner byte is written. */
        const struct emu_mem_span spans[2] = {
                {addr, cqe, PRM_CQE_SIZE - 1},
                {addr + PRM_CQE_SIZE - 1, &op_own, 1},
        };

        emu_mem_gpu_write_seq(spans, 2);
    } else {
        memcpy((void *)addr, cqe, PRM_CQE_SIZE - 1);
        /* Release: the CQE body is visible before the owner byte that hands it to software. */
        __atomic_store_n((uint8_t *)(addr + PRM_CQE_SIZE - 1), op_own, __ATOMIC_RELEASE);
    }
    cq_published(cq, 1, solicited ? 1 : 0);
    pthread_mutex_unlock(&cq->lock);
    return 0;
}
