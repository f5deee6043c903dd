/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A completion queue as the device sees it: a ring of 64-byte CQEs in host
 * or GPU memory and a doorbell record, both owned by software. The device
 * only writes CQEs (owner bit last) and reads the consumer counter from the
 * doorbell record to detect overrun. The standard-verbs path (abi/) and DevX
 * (devx/) create the same object.
 */
#ifndef EMU_CQ_H
#define EMU_CQ_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "prm/mlx5_cqe.h"

struct emu_nic;
struct emu_cq;

struct emu_cq_params {
    uint32_t log_size; /* entries = 1 << log_size */
    uintptr_t ring;    /* CQE64 ring, (1 << log_size) * 64 bytes */
    bool ring_gpu;
    uintptr_t dbrec; /* two big-endian words: [0] consumer counter, [1] arm */
    bool dbrec_gpu;
    bool overrun_ignore; /* PRM "oi": never report overrun */
    bool collapsed;      /* PRM "cc": every CQE is written to entry 0 */
    uint32_t uar_page;   /* the UAR page whose CQ doorbell arms it; 0: any (standard verbs) */
};

/* What one completion event writes to a target's fd. */
enum emu_cq_event_format {
    EMU_CQ_EVENT_TOKEN, /* the 8-byte token (completion channels, DevX channels without data) */
    EMU_CQ_EVENT_EQE,   /* the token, then the 64-byte completion EQE (DevX event data) */
    EMU_CQ_EVENT_COUNT, /* the 8-byte number 1 (an eventfd's increment) */
};

/* The events a target receives (a mask). */
enum emu_cq_event_kind {
    EMU_CQ_EV_COMPLETION = 1, /* one per arm: a CQE written while armed */
    EMU_CQ_EV_ERROR = 2,      /* the CQ entered the error state (overrun), unarmed */
};

/*
 * Where a CQ's events go: a completion channel's pipe, a DevX event channel
 * or an eventfd. Owned by whoever attached it; every attached target gets
 * one record per event of the kinds it asked for.
 */
struct emu_cq_target {
    int fd;
    uint64_t token;
    enum emu_cq_event_format format;
    unsigned int kinds;         /* enum emu_cq_event_kind */
    struct emu_cq *cq;          /* attached to; NULL once detached (guarded by nic->lock) */
    struct emu_cq_target *next; /* the CQ's targets (guarded by cq->lock) */
};

struct emu_cq {
    struct ibv_cq_ex ibv; /* standard-verbs handle; unused for DevX CQs */
    struct emu_nic *nic;
    uint32_t cqn;
    uint32_t async_delivered; /* async events ibv_get_async_event handed out for it */
    struct emu_cq_params p;

    pthread_mutex_t lock;   /* producer side, arm state */
    uint32_t producer;      /* index of the next CQE software may see */
    uint32_t consumer_seen; /* the doorbell record's consumer counter as last read */
    /*
     * A GPU ring's CQEs held to be written together (emu_cq_push): entry i
     * is CQE producer + i, as it will be and with op_own INVALID.
     */
    struct prm_cqe64 *staged, *staged_hidden;
    uint32_t staged_n;
    uint32_t staged_solicited_end; /* 1 + the last solicited or error one held, 0: none */
    bool overrun;                  /* overrun seen: the CQ is in error, nothing more is written */
    int users;                     /* QPs and SRQs attached (guarded by nic->lock) */

    /* Completion events: a CQE on an armed CQ signals every target (cq->lock). */
    struct emu_cq_target *targets;
    bool armed;
    bool armed_solicited;
    bool fired;                       /* an event fired since the last arm */
    uint32_t solicit_end;             /* producer index after the last solicited or error CQE */
    uint32_t fired_end;               /* producer index when the last event fired */
    struct ibv_comp_channel *channel; /* standard verbs: the channel, and its target */
    struct emu_cq_target channel_target;
    uint32_t events_completed; /* events handed out by ibv_get_cq_event (destroy waits for acks) */

    /* Standard-verbs consumer state (provider side, like libmlx5's). */
    uint32_t consumer;
    pthread_mutex_t poll_lock; /* serialises pollers of the standard CQ */
    void *ring_alloc;          /* ring and doorbell record the provider allocated */
    void *dbrec_alloc;
    struct ibv_wc cur;      /* extended polling: the CQE being read */
    struct emu_qp *last_qp; /* provider's QP cache */
};

/* Creates the CQ (CQN assigned); errno-style. The ring's contents are software's to initialise. */
int emu_cq_create(struct emu_nic *nic, const struct emu_cq_params *p, struct emu_cq **cq_out);

/* EBUSY while QPs or SRQs use it; errno-style. Attached event targets are detached. */
int emu_cq_destroy(struct emu_cq *cq);

/* The CQ with this number on this device, or NULL. Caller holds nic->lock. */
struct emu_cq *emu_cq_lookup(struct emu_nic *nic, uint32_t cqn);

/* The most CQEs of a GPU ring held at once. */
#define EMU_CQ_STAGE_MAX 256u

/*
 * Writes one CQE: every byte but op_own, then op_own with the owner bit of
 * its index (in that order). Detects overrun from the doorbell record
 * unless overrun_ignore. Signals the event targets when armed (a
 * solicited-only arm fires on `solicited` CQEs and on errors) once the CQE
 * is written.
 *
 * A ring in GPU memory costs a wait for the CUDA copies per write, so its
 * CQEs can be written in batches: with `defer` the CQE is held, and the
 * caller must call emu_cq_flush() before it lets software expect it (the
 * end of the engine's batch of work); a CQE pushed while others are held
 * is held behind them. Host rings and collapsed CQs are written at once.
 *
 * Returns 0, EINPROGRESS when this CQE is the first one held (the caller
 * owes the flush), or EOVERFLOW when the CQ overran (the CQE is dropped and
 * the CQ is in error, as hardware reports it).
 */
int emu_cq_push(struct emu_cq *cq, const struct prm_cqe64 *cqe, uint8_t op_own_opcode,
                bool solicited, bool defer);

/* Writes the CQEs held by emu_cq_push, in one batch (nothing when none are held). */
void emu_cq_flush(struct emu_cq *cq);

/* cq (NULL: none) overran and is in error: nothing more is written to it. */
static inline bool emu_cq_in_error(const struct emu_cq *cq)
{
    return cq != NULL && __atomic_load_n(&cq->overrun, __ATOMIC_ACQUIRE);
}

/*
 * Completion events (cq_event.c). Arms the CQ for one completion event (as
 * the CQ arm doorbell does): the next CQE (or, with solicited_only, the next
 * solicited or error CQE) signals every target; when such CQEs past
 * consumer_index already exist the event fires at once. Used by
 * ibv_req_notify_cq, the UAR's CQ doorbell and CREATE_CQ's `st`.
 */
void emu_cq_arm(struct emu_cq *cq, bool solicited_only, uint32_t consumer_index);

/* The event fires: one record to every target, the CQ disarmed. Caller holds cq->lock. */
void emu_cq_fire(struct emu_cq *cq);
/* The CQ entered the error state (cq->lock held): its error targets get an event. */
void emu_cq_error_event(struct emu_cq *cq, uint8_t syndrome);

/* PRM cqc.st of the CQ: 0x0 not armed, 0x6 / 0x9 armed (solicited / any), 0xa fired. */
uint8_t emu_cq_arm_state(struct emu_cq *cq);

/*
 * Attaches a target (fd, token and format filled in) to the CQ with this
 * number: its events are written to t->fd until emu_cq_detach() or the
 * CQ's destruction. ENOENT when no such CQ exists.
 */
int emu_cq_attach(struct emu_nic *nic, uint32_t cqn, struct emu_cq_target *t);

/* Detaches a target (nothing when already detached); no event is written to it after return. */
void emu_cq_detach(struct emu_nic *nic, struct emu_cq_target *t);

/* Detaches every target of a CQ being destroyed (caller holds nic->lock). */
void emu_cq_detach_all(struct emu_cq *cq);

#endif /* EMU_CQ_H */
