/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UAR pages and the doorbell watcher. Software (CPU or GPU) writes a
 * doorbell as the first 8 bytes of the WQE's control segment into 0x800 or
 * 0x900 of a UAR page, or a whole 64-byte WQE there (BlueFlame); the
 * device's loop calls emu_uar_poll(), which notices new values and hands
 * each QP's producer index to the engine's doorbell callback.
 *
 * A write is an event, even of the value written last: the loop takes each
 * doorbell out of its register (swapping in 0, which no doorbell is, as its
 * QP number is never 0), so the same 8 bytes written again are seen again.
 *
 * Several QPs may share a page, so a doorbell can be overwritten before it
 * is seen. In doorbell-record mode the record is authoritative: every bound
 * QP's record is compared with the last producer handed over (host records
 * on every poll, GPU records only after a doorbell on their page, since a
 * GPU read costs a copy). A QP reset is not watched that way until a
 * doorbell names it again: its record may still hold the old incarnation's
 * counter, which software need not clear. In no-DBR mode the doorbell value
 * is the only source, as on hardware.
 */
#include "uar.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/emu_log.h"
#include "core/array.h"
#include "nic/caps.h"
#include "nic/config.h"
#include "nic/cq.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/qp.h"

#define UAR_BF_REGS 2

/* One QP watched through one UAR. */
struct uar_binding {
    struct emu_uar *uar;
    struct emu_qp *qp;
    uint32_t qpn;
    uint32_t last; /* last producer handed to the QP (16 bits) */
    bool armed;    /* the record is watched: no RESET since the last doorbell */
};

/* One CQ armed through one UAR. */
struct uar_cq_binding {
    struct emu_uar *uar;
    struct emu_cq *cq;
    uint32_t cqn;
    uint32_t last; /* the last arm command taken (sn << 28 | cmd << 24 | ci) */
};

/* One other send queue (a raw Ethernet SQ) watched through one UAR. */
struct uar_sq_binding {
    struct emu_uar *uar;
    struct emu_uar_sq sq;
    uint32_t last; /* last producer handed over (16 bits) */
};

/* Per device, hung off the device (nic->uars). */
struct uar_dev {
    pthread_mutex_t lock; /* the list, the bindings, and doorbell delivery */
    struct emu_uar *head;
    int count; /* UARs allocated; read without the lock by emu_uar_poll */
    uint32_t next_page_id;
    struct uar_binding *bindings;
    size_t nbindings;
    size_t capacity;
    struct uar_cq_binding *cq_bindings;
    size_t ncq_bindings;
    size_t cq_capacity;
    struct uar_sq_binding *sq_bindings;
    size_t nsq_bindings;
    size_t sq_capacity;
};

static void uar_dev_init(void *part)
{
    struct uar_dev *d = part;

    pthread_mutex_init(&d->lock, NULL);
    d->next_page_id = 1;
}

static struct uar_dev *uar_dev_of(struct emu_nic *nic)
{
    return emu_nic_part((void **)&nic->uars, sizeof(struct uar_dev), uar_dev_init);
}

int emu_uar_alloc(struct emu_nic *nic, struct emu_uar **uar_out)
{
    struct uar_dev *d = uar_dev_of(nic);
    struct emu_uar *uar = d != NULL ? calloc(1, sizeof(*uar)) : NULL;
    void *page;

    if (uar == NULL)
        return ENOMEM;
    page = mmap(NULL, EMU_UAR_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                0);
    if (page == MAP_FAILED) {
        EMU_LOG_ERR("device %s: cannot map a UAR page: %m", nic->ibdev.name);
        free(uar);
        return ENOMEM;
    }
    uar->nic = nic;
    uar->page = page;
    pthread_mutex_lock(&d->lock);
    if (d->count >= (1 << EMU_LOG_MAX_UAR)) {
        pthread_mutex_unlock(&d->lock);
        munmap(page, EMU_UAR_PAGE_SIZE);
        free(uar);
        EMU_LOG_ERR("device %s: all %d UARs are allocated", nic->ibdev.name, 1 << EMU_LOG_MAX_UAR);
        return ENOMEM;
    }
    uar->page_id = d->next_page_id++;
    uar->next = d->head;
    d->head = uar;
    __atomic_store_n(&d->count, d->count + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&d->lock);
    *uar_out = uar;
    return 0;
}

void emu_uar_free(struct emu_uar *uar)
{
    struct uar_dev *d;

    if (uar == NULL)
        return;
    d = uar_dev_of(uar->nic);
    pthread_mutex_lock(&d->lock);
    for (struct emu_uar **p = &d->head; *p != NULL; p = &(*p)->next) {
        if (*p == uar) {
            *p = uar->next;
            break;
        }
    }
    for (size_t i = 0; i < d->nbindings;) {
        if (d->bindings[i].uar == uar) {
            EMU_LOG_WARN("UAR page %u freed while QP 0x%x rings it; its doorbells are now ignored",
                         uar->page_id, d->bindings[i].qpn);
            d->bindings[i] = d->bindings[--d->nbindings];
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < d->ncq_bindings;) {
        if (d->cq_bindings[i].uar == uar) {
            EMU_LOG_WARN("UAR page %u freed while CQ 0x%x is armed through it; its arm doorbells "
                         "are now ignored",
                         uar->page_id, d->cq_bindings[i].cqn);
            d->cq_bindings[i] = d->cq_bindings[--d->ncq_bindings];
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < d->nsq_bindings;) {
        if (d->sq_bindings[i].uar == uar) {
            EMU_LOG_WARN("UAR page %u freed while SQ 0x%x rings it; its doorbells are now ignored",
                         uar->page_id, d->sq_bindings[i].sq.num);
            d->sq_bindings[i] = d->sq_bindings[--d->nsq_bindings];
        } else {
            i++;
        }
    }
    __atomic_store_n(&d->count, d->count - 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&d->lock);
    munmap(uar->page, EMU_UAR_PAGE_SIZE);
    free(uar);
}

struct emu_uar *emu_uar_lookup(struct emu_nic *nic, uint32_t page_id)
{
    struct uar_dev *d = uar_dev_of(nic);
    struct emu_uar *uar;

    if (d == NULL)
        return NULL;
    pthread_mutex_lock(&d->lock);
    for (uar = d->head; uar != NULL; uar = uar->next)
        if (uar->page_id == page_id)
            break;
    pthread_mutex_unlock(&d->lock);
    return uar;
}

int emu_uar_qp_bind(struct emu_uar *uar, struct emu_qp *qp)
{
    struct uar_dev *d = uar_dev_of(uar->nic);
    struct uar_binding *b;

    pthread_mutex_lock(&d->lock);
    b = core_array_room(d->bindings, &d->capacity, d->nbindings, sizeof(*b));
    if (b == NULL) {
        pthread_mutex_unlock(&d->lock);
        return ENOMEM;
    }
    d->bindings = b;
    d->bindings[d->nbindings++] =
            (struct uar_binding){.uar = uar, .qp = qp, .qpn = qp->qpn, .armed = true};
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void emu_uar_qp_unbind(struct emu_qp *qp)
{
    struct uar_dev *d = uar_dev_of(qp->nic);

    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->nbindings; i++) {
        if (d->bindings[i].qp == qp) {
            d->bindings[i] = d->bindings[--d->nbindings];
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}

/* The doorbell register r of a UAR page. */
static uint64_t *uar_reg(const struct emu_uar *uar, int r)
{
    return (uint64_t *)((uint8_t *)uar->page + EMU_UAR_SQ_DB_OFFSET + r * EMU_UAR_BF_SIZE);
}

/* The QP number a doorbell (control segment words 0 and 1, as stored) names. */
static uint32_t uar_doorbell_qpn(uint64_t value)
{
    uint32_t words[2];

    memcpy(words, &value, sizeof(words));
    return be32toh(words[1]) >> 8;
}

void emu_uar_qp_reset(struct emu_qp *qp)
{
    struct uar_dev *d = uar_dev_of(qp->nic);

    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->nbindings; i++) {
        struct uar_binding *b = &d->bindings[i];

        if (b->qp != qp)
            continue;
        b->last = 0;
        b->armed = false;
        /* A doorbell rung before the RESET and not yet seen belongs to the old incarnation. */
        for (int r = 0; r < UAR_BF_REGS; r++) {
            uint64_t v = __atomic_load_n(uar_reg(b->uar, r), __ATOMIC_ACQUIRE);

            if (v != 0 && uar_doorbell_qpn(v) == qp->qpn)
                __atomic_compare_exchange_n(uar_reg(b->uar, r), &v, 0, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE);
        }
    }
    pthread_mutex_unlock(&d->lock);
}

/*
 * Hands a producer index to the QP when it moved forward. Caller holds
 * d->lock. One behind the last is stale, not a wrap: BlueFlame writes
 * alternate between the two registers, which a poll reads in a fixed
 * order, so a later doorbell may be seen before an earlier one.
 */
static bool uar_deliver(struct uar_binding *b, uint32_t producer, emu_uar_ring_fn ring)
{
    producer &= 0xffff;
    if ((int16_t)(uint16_t)(producer - b->last) <= 0 || !ring(b->qp, producer))
        return false;
    b->last = producer;
    return true;
}

/* The send counter of a QP's doorbell record ([1], big-endian). */
static bool uar_read_dbrec(const struct emu_qp *qp, uint32_t *producer)
{
    uint32_t be;

    if (qp->p.dbrec == 0)
        return false;
    if (qp->p.dbrec_gpu) {
        if (emu_mem_read(true, qp->p.dbrec + 4, &be, sizeof(be)) != 0)
            return false;
    } else {
        /* Acquire: the WQEs were written before the counter that publishes them. */
        be = __atomic_load_n((const uint32_t *)qp->p.dbrec + 1, __ATOMIC_ACQUIRE);
    }
    *producer = be32toh(be);
    return true;
}

/*
 * A doorbell for a QP not bound to this page: a standard-verbs QP driven
 * through mlx5dv_init_obj's layout. Its producer comes from its doorbell
 * record. (The QP must not be destroyed while software still rings it.)
 */
static void uar_doorbell_unbound(struct emu_uar *uar, uint32_t qpn, emu_uar_ring_fn ring)
{
    struct emu_nic *nic = uar->nic;
    struct emu_qp *qp = NULL;
    uint32_t producer;

    pthread_mutex_lock(&nic->lock);
    qp = emu_qp_lookup(nic, qpn);
    pthread_mutex_unlock(&nic->lock);
    if (qp == NULL || qp->p.no_dbr || !uar_read_dbrec(qp, &producer)) {
        EMU_LOG_DBG("UAR page %u: doorbell for unknown QP 0x%x ignored", uar->page_id, qpn);
        return;
    }
    ring(qp, producer & 0xffff);
}

/* The send counter ([1], big-endian) of another send queue's doorbell record. */
static bool uar_read_sq_dbrec(const struct emu_uar_sq *sq, uint32_t *producer)
{
    uint32_t be;

    if (sq->dbrec_gpu) {
        if (emu_mem_read(true, sq->dbrec + 4, &be, sizeof(be)) != 0)
            return false;
    } else {
        be = __atomic_load_n((const uint32_t *)sq->dbrec + 1, __ATOMIC_ACQUIRE);
    }
    *producer = be32toh(be) & 0xffff;
    return true;
}

/* Hands a moved producer to another send queue (d->lock held); true when it moved. */
static bool uar_sq_deliver(struct uar_sq_binding *b, uint32_t producer)
{
    producer &= 0xffff;
    if (producer == b->last)
        return false;
    b->last = producer;
    b->sq.ring(b->sq.obj, producer);
    return true;
}

/* A doorbell for another send queue bound to uar: true when one is. */
static bool uar_sq_doorbell(struct uar_dev *d, struct emu_uar *uar, uint32_t num)
{
    for (size_t i = 0; i < d->nsq_bindings; i++) {
        struct uar_sq_binding *b = &d->sq_bindings[i];
        uint32_t producer;

        if (b->uar != uar || b->sq.num != num)
            continue;
        if (uar_read_sq_dbrec(&b->sq, &producer))
            uar_sq_deliver(b, producer);
        return true;
    }
    return false;
}

int emu_uar_sq_bind(struct emu_uar *uar, const struct emu_uar_sq *sq)
{
    struct uar_dev *d = uar_dev_of(uar->nic);
    struct uar_sq_binding *b;
    uint32_t now = 0;

    /* What the record holds now was not rung: a reused umem may hold an old queue's counter. */
    uar_read_sq_dbrec(sq, &now);
    pthread_mutex_lock(&d->lock);
    b = core_array_room(d->sq_bindings, &d->sq_capacity, d->nsq_bindings, sizeof(*b));
    if (b == NULL) {
        pthread_mutex_unlock(&d->lock);
        return ENOMEM;
    }
    d->sq_bindings = b;
    d->sq_bindings[d->nsq_bindings++] = (struct uar_sq_binding){.uar = uar, .sq = *sq, .last = now};
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void emu_uar_sq_unbind(struct emu_nic *nic, void *obj)
{
    struct uar_dev *d = uar_dev_of(nic);

    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->nsq_bindings; i++) {
        if (d->sq_bindings[i].sq.obj == obj) {
            d->sq_bindings[i] = d->sq_bindings[--d->nsq_bindings];
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}

/* A new doorbell value (control segment words 0 and 1, as stored) on uar. */
static void uar_doorbell(struct uar_dev *d, struct emu_uar *uar, uint64_t value,
                         emu_uar_ring_fn ring)
{
    uint32_t words[2];
    uint32_t qpn = uar_doorbell_qpn(value), index, ds, producer;

    memcpy(words, &value, sizeof(words));
    index = (be32toh(words[0]) >> 8) & 0xffff;
    ds = be32toh(words[1]) & 0x3f;
    for (size_t i = 0; i < d->nbindings; i++) {
        struct uar_binding *b = &d->bindings[i];

        if (b->uar != uar || b->qpn != qpn)
            continue;
        b->armed = true;
        /*
         * Without a record the doorbell names its WQE: the producer is its index plus its
         * size in basic blocks. With one, the record says; but a doorbell of DS 0 (the form
         * the data path's doorbells take) carries the producer itself and counts too: DOCA's
         * NO_DBR_SW_EMULATED rings without writing the record, which a CPU thread writes
         * later. uar_deliver only moves forward.
         */
        if (b->qp->p.no_dbr) {
            uar_deliver(b, index + (ds + 3) / 4, ring);
            return;
        }
        if (uar_read_dbrec(b->qp, &producer))
            uar_deliver(b, producer, ring);
        if (ds == 0)
            uar_deliver(b, index, ring);
        return;
    }
    if (!uar_sq_doorbell(d, uar, qpn))
        uar_doorbell_unbound(uar, qpn, ring);
}

/* The CQ doorbell register of a UAR page. */
static uint64_t *uar_cq_reg(const struct emu_uar *uar)
{
    return (uint64_t *)((uint8_t *)uar->page + EMU_UAR_CQ_DB_OFFSET);
}

/* The arm word of a CQ's doorbell record ([1], big-endian), host or GPU memory. */
static bool uar_read_arm(const struct emu_cq *cq, uint32_t *arm)
{
    uint32_t be;

    if (cq->p.dbrec_gpu) {
        if (emu_mem_read(true, cq->p.dbrec + 4, &be, sizeof(be)) != 0)
            return false;
    } else {
        be = __atomic_load_n((const uint32_t *)cq->p.dbrec + 1, __ATOMIC_ACQUIRE);
    }
    *arm = be32toh(be);
    return true;
}

/* Executes an arm command (sn << 28 | cmd << 24 | ci) on cq; an unknown command is ignored. */
static void uar_cq_arm(struct emu_cq *cq, uint32_t arm)
{
    uint32_t cmd = (arm >> 24) & 0xf;

    /* cmd 0: any CQE (MLX5_CQ_DB_REQ_NOT); 1: solicited or error CQEs (MLX5_CQ_DB_REQ_NOT_SOL). */
    if (cmd > 1) {
        EMU_LOG_ERR("CQ 0x%x: arm doorbell with command %u ignored; write 0 (any completion) or "
                    "1 << 24 (solicited only)",
                    cq->cqn, cmd);
        return;
    }
    emu_cq_arm(cq, cmd == 1, arm & 0xffffff);
}

/* A CQ doorbell for a CQ not bound to the page: standard verbs (any page) or a wrong page. */
static void uar_cq_doorbell_unbound(struct emu_uar *uar, uint32_t cqn, uint32_t arm)
{
    struct emu_nic *nic = uar->nic;
    struct emu_cq *cq;

    /* Under nic->lock: the CQ cannot be destroyed while it is armed. */
    pthread_mutex_lock(&nic->lock);
    cq = emu_cq_lookup(nic, cqn);
    if (cq == NULL)
        EMU_LOG_ERR("UAR page %u: arm doorbell for unknown CQ 0x%x ignored; check the CQN in "
                    "the doorbell's low word",
                    uar->page_id, cqn);
    else if (cq->p.uar_page != 0 && cq->p.uar_page != uar->page_id)
        EMU_LOG_ERR("UAR page %u: arm doorbell for CQ 0x%x ignored; ring the page its context "
                    "names (%u)",
                    uar->page_id, cqn, cq->p.uar_page);
    else
        uar_cq_arm(cq, arm);
    pthread_mutex_unlock(&nic->lock);
}

/*
 * The CQ doorbell register of one page: takes a doorbell out of it and
 * arms its CQ, then catches arms whose doorbells were overwritten from the
 * page's other CQs' records. Caller holds d->lock. True when rung.
 */
static bool uar_cq_poll(struct uar_dev *d, struct emu_uar *uar)
{
    uint64_t *reg = uar_cq_reg(uar), v;
    uint32_t words[2], cqn, arm, rec;
    bool bound = false;

    if (__atomic_load_n(reg, __ATOMIC_RELAXED) == 0)
        return false;
    /* A CQN is never 0, so neither is a doorbell: 0 marks the register empty. */
    v = __atomic_exchange_n(reg, 0, __ATOMIC_ACQ_REL);
    if (v == 0)
        return false;
    memcpy(words, &v, sizeof(words));
    arm = be32toh(words[0]);
    cqn = be32toh(words[1]) & 0xffffff;
    for (size_t i = 0; i < d->ncq_bindings; i++) {
        struct uar_cq_binding *b = &d->cq_bindings[i];

        if (b->uar != uar)
            continue;
        if (b->cqn == cqn) {
            bound = true;
            b->last = arm;
            uar_cq_arm(b->cq, arm);
        } else if (uar_read_arm(b->cq, &rec) && rec != b->last) {
            b->last = rec;
            uar_cq_arm(b->cq, rec);
        }
    }
    if (!bound)
        uar_cq_doorbell_unbound(uar, cqn, arm);
    return true;
}

int emu_uar_cq_bind(struct emu_uar *uar, struct emu_cq *cq)
{
    struct uar_dev *d = uar_dev_of(uar->nic);
    struct uar_cq_binding *b;
    uint32_t arm = 0;

    /* What the record holds now is no arm: a reused umem may hold an old CQ's. */
    uar_read_arm(cq, &arm);
    pthread_mutex_lock(&d->lock);
    b = core_array_room(d->cq_bindings, &d->cq_capacity, d->ncq_bindings, sizeof(*b));
    if (b == NULL) {
        pthread_mutex_unlock(&d->lock);
        return ENOMEM;
    }
    d->cq_bindings = b;
    d->cq_bindings[d->ncq_bindings++] =
            (struct uar_cq_binding){.uar = uar, .cq = cq, .cqn = cq->cqn, .last = arm};
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void emu_uar_cq_unbind(struct emu_cq *cq)
{
    struct uar_dev *d = uar_dev_of(cq->nic);

    pthread_mutex_lock(&d->lock);
    for (size_t i = 0; i < d->ncq_bindings; i++) {
        if (d->cq_bindings[i].cq == cq) {
            d->cq_bindings[i] = d->cq_bindings[--d->ncq_bindings];
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}

bool emu_uar_poll(struct emu_nic *nic, emu_uar_ring_fn ring)
{
    struct uar_dev *d = __atomic_load_n(&nic->uars, __ATOMIC_ACQUIRE);
    bool busy = false;

    if (d == NULL || __atomic_load_n(&d->count, __ATOMIC_ACQUIRE) == 0)
        return false;
    pthread_mutex_lock(&d->lock);
    for (struct emu_uar *uar = d->head; uar != NULL; uar = uar->next) {
        bool rung = false;

        /* First: a CQ armed together with a send doorbell is armed before that work completes. */
        busy |= uar_cq_poll(d, uar);
        for (int r = 0; r < UAR_BF_REGS; r++) {
            uint64_t *reg = uar_reg(uar, r), v;

            /* Read first: an idle poll does not write the writer's cache line. */
            if (__atomic_load_n(reg, __ATOMIC_RELAXED) == 0)
                continue;
            /* Taken before the record is read: a later doorbell is seen on the next poll. */
            v = __atomic_exchange_n(reg, 0, __ATOMIC_ACQ_REL);
            if (v == 0)
                continue;
            rung = true;
            uar_doorbell(d, uar, v, ring);
        }
        busy |= rung;
        /* Doorbell records: catches doorbells overwritten by another QP's before we saw them. */
        for (size_t i = 0; i < d->nbindings; i++) {
            struct uar_binding *b = &d->bindings[i];
            uint32_t producer;

            if (b->uar != uar || !b->armed || b->qp->p.no_dbr || (b->qp->p.dbrec_gpu && !rung))
                continue;
            if (uar_read_dbrec(b->qp, &producer))
                busy |= uar_deliver(b, producer, ring);
        }
        for (size_t i = 0; i < d->nsq_bindings; i++) {
            struct uar_sq_binding *b = &d->sq_bindings[i];
            uint32_t producer;

            if (b->uar != uar || (b->sq.dbrec_gpu && !rung))
                continue;
            if (uar_read_sq_dbrec(&b->sq, &producer))
                busy |= uar_sq_deliver(b, producer);
        }
    }
    pthread_mutex_unlock(&d->lock);
    return busy;
}
