/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A shared receive queue: a ring of receive WQEs (a 16-byte next segment,
 * then data segments; stride 16 << log_stride bytes) and a doorbell record
 * whose word [0] holds software's producer counter. The device consumes
 * WQEs in ring order for any QP attached to the SRQ. An XRC SRQ belongs to
 * an XRC domain and has its own CQ: it takes the messages that requests to
 * any target QP of its domain name it for, and its completions go to its CQ.
 */
#ifndef EMU_SRQ_H
#define EMU_SRQ_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_nic;
struct emu_pd;
struct emu_cq;
struct emu_xrcd;

struct emu_srq_params {
    struct emu_pd *pd;
    uint32_t log_size;
    uint32_t log_stride; /* WQE = 16 << log_stride bytes */
    uintptr_t ring;
    bool ring_gpu;
    uintptr_t dbrec;
    bool dbrec_gpu;
    struct emu_xrcd *xrcd; /* an XRC SRQ's domain, or NULL */
    struct emu_cq *cq;     /* an XRC SRQ's completion queue (NULL otherwise) */
};

struct emu_srq {
    struct ibv_srq ibv; /* standard-verbs handle */
    struct emu_nic *nic;
    uint32_t srqn;
    uint32_t async_delivered; /* async events ibv_get_async_event handed out for it */
    struct emu_srq_params p;
    pthread_mutex_t lock; /* consumer, limit */
    uint32_t consumer;    /* next WQE the device consumes */
    uint32_t limit;       /* srq_limit (armed when non-zero) */
    int users;            /* QPs attached (guarded by nic->lock) */

    /* Standard-verbs provider state. */
    pthread_mutex_t post_lock;
    uint64_t *wrid;
    uint32_t producer;
    uint32_t tail; /* WQEs whose completion was polled */
    uint32_t max_wr, max_sge;
    void *ring_alloc, *dbrec_alloc;
};

/* Creates the SRQ (SRQN assigned); errno-style. */
int emu_srq_create(struct emu_nic *nic, const struct emu_srq_params *p, struct emu_srq **srq_out);

/* Takes the SRQ out of the device's table (no lookup finds it); EBUSY while QPs use it. */
int emu_srq_unlist(struct emu_srq *srq);
/* Frees an unlisted SRQ. */
void emu_srq_free(struct emu_srq *srq);

/* The SRQ with this number on this device, or NULL. Caller holds nic->lock. */
struct emu_srq *emu_srq_lookup(struct emu_nic *nic, uint32_t srqn);

/*
 * Takes the next posted WQE: copies it (stride bytes) to wqe and returns its
 * index, or -1 when none is posted.
 */
int64_t emu_srq_take(struct emu_srq *srq, void *wqe);
/* Puts back the WQE emu_srq_take returned as index, unless another was taken since. */
void emu_srq_untake(struct emu_srq *srq, uint32_t index);

#endif /* EMU_SRQ_H */
