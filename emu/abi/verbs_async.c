/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_get_async_event / ibv_ack_async_event over the device's event queues
 * (nic/async_event.c), and what destroying an object owes them: as with
 * rdma-core, a destroy waits until every event delivered for the object was
 * acknowledged, and events still queued for it are dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/async_event.h"
#include "nic/cq.h"
#include "nic/qp.h"
#include "nic/srq.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* The handle's lock, condition and acknowledged count, and the object's delivered count. */
struct async_books {
    pthread_mutex_t *mutex;
    pthread_cond_t *cond;
    uint32_t *acked;
    uint32_t *delivered;
};

static bool books_of(enum emu_async_kind kind, void *element, struct async_books *b)
{
    switch (kind) {
    case EMU_ASYNC_QP: {
        struct emu_qp *qp = element;

        *b = (struct async_books){&qp->ibv.mutex, &qp->ibv.cond, &qp->ibv.events_completed,
                                  &qp->async_delivered};
        return true;
    }
    case EMU_ASYNC_CQ: {
        struct emu_cq *cq = element;
        struct ibv_cq *h = ibv_cq_ex_to_cq(&cq->ibv);

        *b = (struct async_books){&h->mutex, &h->cond, &h->async_events_completed,
                                  &cq->async_delivered};
        return true;
    }
    case EMU_ASYNC_SRQ: {
        struct emu_srq *srq = element;

        *b = (struct async_books){&srq->ibv.mutex, &srq->ibv.cond, &srq->ibv.events_completed,
                                  &srq->async_delivered};
        return true;
    }
    default:
        return false;
    }
}

EMU_EXPORT int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
    struct async_books b;
    uint64_t count;

    if (context == NULL || event == NULL || !emu_context_is_ours(context)) {
        errno = EINVAL;
        return -1;
    }
    /* Blocks unless the program made the fd non-blocking (EAGAIN then), as with rdma-core. */
    do {
        if (read(context->async_fd, &count, sizeof(count)) != sizeof(count))
            return -1;
    } while (emu_async_pop(emu_nic_of_ctx(context), context, event) != 0);
    if (books_of(emu_async_kind_of(event->event_type), emu_async_element(event), &b))
        __atomic_add_fetch(b.delivered, 1, __ATOMIC_RELEASE);
    return 0;
}

EMU_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
    struct async_books b;

    if (event == NULL ||
        !books_of(emu_async_kind_of(event->event_type), emu_async_element(event), &b))
        return;
    pthread_mutex_lock(b.mutex);
    ++*b.acked;
    pthread_cond_broadcast(b.cond);
    pthread_mutex_unlock(b.mutex);
}

void emu_verbs_async_quiesce(struct emu_nic *nic, enum emu_async_kind kind, void *element,
                             struct emu_async_closing *closing)
{
    struct async_books b;

    emu_async_closing(nic, element, closing);
    if (!books_of(kind, element, &b))
        return;
    pthread_mutex_lock(b.mutex);
    while (*b.acked != __atomic_load_n(b.delivered, __ATOMIC_ACQUIRE))
        pthread_cond_wait(b.cond, b.mutex);
    pthread_mutex_unlock(b.mutex);
}
