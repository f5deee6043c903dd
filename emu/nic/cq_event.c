/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion events of a CQ: the arm state, and the targets an event is
 * written to. A standard-verbs completion channel, a DevX event channel and
 * an eventfd subscribed through one are all targets: an fd, a token and a
 * record format. One arm gives one event, written to every target.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/cq.h"
#include "nic/nic.h"

/* PRM cqc.st */
#define CQ_ST_NOT_ARMED     0x0
#define CQ_ST_SOLICITED_ARM 0x6
#define CQ_ST_ARMED         0x9
#define CQ_ST_FIRED         0xa

/*
 * The EQE (PRM eqe): event_type at byte 1, the event data from byte 32. A
 * completion's names the CQ in its last word; a CQ error's (cq_error) in
 * its first, with the syndrome at byte 11.
 */
#define CQ_EQE_SIZE             64
#define CQ_EQE_TYPE_OFFSET      1
#define CQ_EQE_TYPE_COMPLETION  0x00
#define CQ_EQE_TYPE_CQ_ERROR    0x04
#define CQ_EQE_DATA_OFFSET      32
#define CQ_EQE_COMP_CQN_OFFSET  (CQ_EQE_DATA_OFFSET + 24)
#define CQ_EQE_ERROR_CQN_OFFSET CQ_EQE_DATA_OFFSET
#define CQ_EQE_ERROR_SYNDROME   (CQ_EQE_DATA_OFFSET + 11)

/* One event's record for t (kind EMU_CQ_EV_*; syndrome: a CQ error's): its length. */
static size_t cq_event_record(const struct emu_cq *cq, const struct emu_cq_target *t,
                              unsigned int kind, uint8_t syndrome,
                              uint8_t rec[sizeof(uint64_t) + CQ_EQE_SIZE])
{
    uint64_t one = 1;
    uint32_t cqn_be = htobe32(cq->cqn & 0xffffff);
    uint8_t *eqe = rec + sizeof(t->token);

    switch (t->format) {
    case EMU_CQ_EVENT_COUNT:
        memcpy(rec, &one, sizeof(one));
        return sizeof(one);
    case EMU_CQ_EVENT_EQE:
        memcpy(rec, &t->token, sizeof(t->token));
        memset(eqe, 0, CQ_EQE_SIZE);
        if (kind == EMU_CQ_EV_ERROR) {
            eqe[CQ_EQE_TYPE_OFFSET] = CQ_EQE_TYPE_CQ_ERROR;
            memcpy(eqe + CQ_EQE_ERROR_CQN_OFFSET, &cqn_be, sizeof(cqn_be));
            eqe[CQ_EQE_ERROR_SYNDROME] = syndrome;
        } else {
            eqe[CQ_EQE_TYPE_OFFSET] = CQ_EQE_TYPE_COMPLETION;
            memcpy(eqe + CQ_EQE_COMP_CQN_OFFSET, &cqn_be, sizeof(cqn_be));
        }
        return sizeof(t->token) + CQ_EQE_SIZE;
    case EMU_CQ_EVENT_TOKEN:
    default:
        memcpy(rec, &t->token, sizeof(t->token));
        return sizeof(t->token);
    }
}

/* Writes an event of `kind` to every target that asked for it (cq->lock held). */
static void cq_event_write(struct emu_cq *cq, unsigned int kind, uint8_t syndrome)
{
    uint8_t rec[sizeof(uint64_t) + CQ_EQE_SIZE];

    for (struct emu_cq_target *t = cq->targets; t != NULL; t = t->next) {
        size_t len;
        ssize_t n;

        if (!(t->kinds & kind))
            continue;
        len = cq_event_record(cq, t, kind, syndrome, rec);
        n = write(t->fd, rec, len);
        if (n == (ssize_t)len)
            continue;
        if (n < 0 && errno == EAGAIN)
            EMU_LOG_ERR("CQ 0x%x: event channel fd %d is full, a%s event is lost; read the "
                        "channel's events before arming again",
                        cq->cqn, t->fd, kind == EMU_CQ_EV_ERROR ? " CQ error" : " completion");
        else
            EMU_LOG_ERR("CQ 0x%x: cannot write an event to fd %d: %s", cq->cqn, t->fd,
                        n < 0 ? strerror(errno) : "short write");
    }
}

void emu_cq_fire(struct emu_cq *cq)
{
    cq->armed = false;
    cq->fired = true;
    cq->fired_end = cq->producer;
    cq_event_write(cq, EMU_CQ_EV_COMPLETION, 0);
}

void emu_cq_error_event(struct emu_cq *cq, uint8_t syndrome)
{
    cq_event_write(cq, EMU_CQ_EV_ERROR, syndrome);
}

void emu_cq_arm(struct emu_cq *cq, bool solicited_only, uint32_t consumer_index)
{
    uint32_t pending, unseen, solicited;

    pthread_mutex_lock(&cq->lock);
    cq->armed = true;
    cq->armed_solicited = solicited_only;
    cq->fired = false;
    /* CQEs the consumer has not reached yet (a consumer index ahead of the device names none). */
    pending = (cq->producer - consumer_index) & 0xffffff;
    if (pending > (1u << cq->p.log_size))
        pending = 0;
    /*
     * Of those, the ones no event announced yet: written while the CQ was
     * not armed. Only they fire the event now, as hardware does: a consumer
     * that re-arms from the event before polling (perftest's -e) must not
     * get a second event for the CQE the first one announced.
     */
    unseen = (cq->producer - cq->fired_end) & 0xffffff;
    if (unseen > pending)
        unseen = pending;
    /* 1..pending when the last solicited or error CQE is among them. */
    solicited = (cq->solicit_end - consumer_index) & 0xffffff;
    if (unseen != 0 && (!solicited_only || (solicited > pending - unseen && solicited <= pending)))
        emu_cq_fire(cq);
    pthread_mutex_unlock(&cq->lock);
}

uint8_t emu_cq_arm_state(struct emu_cq *cq)
{
    uint8_t st;

    pthread_mutex_lock(&cq->lock);
    if (cq->armed)
        st = cq->armed_solicited ? CQ_ST_SOLICITED_ARM : CQ_ST_ARMED;
    else
        st = cq->fired ? CQ_ST_FIRED : CQ_ST_NOT_ARMED;
    pthread_mutex_unlock(&cq->lock);
    return st;
}

int emu_cq_attach(struct emu_nic *nic, uint32_t cqn, struct emu_cq_target *t)
{
    struct emu_cq *cq;

    pthread_mutex_lock(&nic->lock);
    cq = emu_cq_lookup(nic, cqn);
    if (cq == NULL) {
        pthread_mutex_unlock(&nic->lock);
        return ENOENT;
    }
    pthread_mutex_lock(&cq->lock);
    t->cq = cq;
    t->next = cq->targets;
    cq->targets = t;
    pthread_mutex_unlock(&cq->lock);
    pthread_mutex_unlock(&nic->lock);
    return 0;
}

void emu_cq_detach(struct emu_nic *nic, struct emu_cq_target *t)
{
    struct emu_cq *cq;

    pthread_mutex_lock(&nic->lock);
    cq = t->cq;
    if (cq != NULL) {
        /* Under cq->lock: an event being written finishes before the target goes. */
        pthread_mutex_lock(&cq->lock);
        for (struct emu_cq_target **p = &cq->targets; *p != NULL; p = &(*p)->next) {
            if (*p == t) {
                *p = t->next;
                break;
            }
        }
        pthread_mutex_unlock(&cq->lock);
        t->cq = NULL;
    }
    pthread_mutex_unlock(&nic->lock);
}

void emu_cq_detach_all(struct emu_cq *cq)
{
    pthread_mutex_lock(&cq->lock);
    for (struct emu_cq_target *t = cq->targets; t != NULL; t = t->next)
        t->cq = NULL;
    cq->targets = NULL;
    pthread_mutex_unlock(&cq->lock);
}
