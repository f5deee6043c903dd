/* SPDX-License-Identifier: BSD-3-Clause */
#include "nic/async_event.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/nic.h"

#define ASYNC_QUEUE_DEPTH 256 /* events one context may leave unread */

struct async_queue {
    struct ibv_context *ctx;
    int fd; /* EFD_SEMAPHORE: one read per queued event */
    struct ibv_async_event events[ASYNC_QUEUE_DEPTH];
    uint32_t head, tail;
    struct async_queue *next;
};

struct async_dev {
    pthread_mutex_t lock; /* queues and closing */
    struct async_queue *queues;
    struct emu_async_closing *closing; /* objects being destroyed */
};

/* Which element each event type names (IB spec: affiliated or unaffiliated). */
enum emu_async_kind emu_async_kind_of(enum ibv_event_type type)
{
    switch (type) {
    case IBV_EVENT_CQ_ERR:
        return EMU_ASYNC_CQ;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_SRQ_LIMIT_REACHED:
        return EMU_ASYNC_SRQ;
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
    case IBV_EVENT_DEVICE_FATAL:
        return EMU_ASYNC_PORT;
    default:
        return EMU_ASYNC_QP;
    }
}

static void async_init(void *part)
{
    struct async_dev *d = part;

    pthread_mutex_init(&d->lock, NULL);
}

static struct async_dev *async_of(struct emu_nic *nic)
{
    return emu_nic_part((void **)&nic->async, sizeof(struct async_dev), async_init);
}

static struct async_queue *queue_of(struct async_dev *d, const struct ibv_context *ctx)
{
    for (struct async_queue *q = d->queues; q != NULL; q = q->next)
        if (q->ctx == ctx)
            return q;
    return NULL;
}

int emu_async_open(struct emu_nic *nic, struct ibv_context *ctx)
{
    struct async_dev *d = async_of(nic);
    struct async_queue *q = calloc(1, sizeof(*q));

    if (d == NULL || q == NULL) {
        free(q);
        errno = ENOMEM;
        return -1;
    }
    q->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    if (q->fd < 0) {
        free(q);
        return -1;
    }
    q->ctx = ctx;
    pthread_mutex_lock(&d->lock);
    q->next = d->queues;
    d->queues = q;
    pthread_mutex_unlock(&d->lock);
    return q->fd;
}

void emu_async_close(struct emu_nic *nic, struct ibv_context *ctx)
{
    struct async_dev *d = async_of(nic);
    struct async_queue *q = NULL;

    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    for (struct async_queue **p = &d->queues; *p != NULL; p = &(*p)->next) {
        if ((*p)->ctx == ctx) {
            q = *p;
            *p = q->next;
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
    if (q != NULL) {
        close(q->fd);
        free(q);
    }
}

/* Queues ev on q and counts it on the fd (d->lock held). */
static void queue_push(struct async_queue *q, const struct ibv_async_event *ev)
{
    uint64_t one = 1;

    if (q->tail - q->head == ASYNC_QUEUE_DEPTH) {
        EMU_LOG_ERR("async event %s lost: %d events are unread on this context; read them with "
                    "ibv_get_async_event",
                    ibv_event_type_str(ev->event_type), ASYNC_QUEUE_DEPTH);
        return;
    }
    q->events[q->tail++ % ASYNC_QUEUE_DEPTH] = *ev;
    if (write(q->fd, &one, sizeof(one)) != sizeof(one))
        EMU_LOG_ERR("async event %s: cannot count it on the context's fd",
                    ibv_event_type_str(ev->event_type));
}

static bool closing(const struct async_dev *d, const void *element)
{
    for (const struct emu_async_closing *c = d->closing; c != NULL; c = c->next)
        if (c->element == element)
            return true;
    return false;
}

void emu_async_raise(struct emu_nic *nic, struct ibv_context *ctx, enum ibv_event_type type,
                     void *element)
{
    struct ibv_async_event ev = {.event_type = type};
    struct async_dev *d;
    struct async_queue *q;

    if (ctx == NULL || element == NULL || (d = async_of(nic)) == NULL)
        return;
    switch (emu_async_kind_of(type)) {
    case EMU_ASYNC_CQ:
        ev.element.cq = element;
        break;
    case EMU_ASYNC_SRQ:
        ev.element.srq = element;
        break;
    default:
        ev.element.qp = element;
        break;
    }
    EMU_LOG_DBG("async event %s", ibv_event_type_str(type));
    pthread_mutex_lock(&d->lock);
    q = queue_of(d, ctx);
    if (q != NULL && !closing(d, element))
        queue_push(q, &ev);
    pthread_mutex_unlock(&d->lock);
}

void emu_async_raise_port(struct emu_nic *nic, enum ibv_event_type type, int port)
{
    struct ibv_async_event ev = {.event_type = type, .element.port_num = port};
    struct async_dev *d = async_of(nic);

    if (d == NULL)
        return;
    EMU_LOG_INFO("port %d: async event %s", port, ibv_event_type_str(type));
    pthread_mutex_lock(&d->lock);
    for (struct async_queue *q = d->queues; q != NULL; q = q->next)
        queue_push(q, &ev);
    pthread_mutex_unlock(&d->lock);
}

int emu_async_pop(struct emu_nic *nic, struct ibv_context *ctx, struct ibv_async_event *event)
{
    struct async_dev *d = async_of(nic);
    struct async_queue *q;
    int err = EAGAIN;

    if (d == NULL)
        return EAGAIN;
    pthread_mutex_lock(&d->lock);
    q = queue_of(d, ctx);
    if (q != NULL && q->head != q->tail) {
        *event = q->events[q->head++ % ASYNC_QUEUE_DEPTH];
        err = 0;
    }
    pthread_mutex_unlock(&d->lock);
    return err;
}

void *emu_async_element(const struct ibv_async_event *ev)
{
    switch (emu_async_kind_of(ev->event_type)) {
    case EMU_ASYNC_CQ:
        return ev->element.cq;
    case EMU_ASYNC_SRQ:
        return ev->element.srq;
    case EMU_ASYNC_PORT:
        return NULL;
    default:
        return ev->element.qp;
    }
}

void emu_async_closing(struct emu_nic *nic, const void *element, struct emu_async_closing *c)
{
    struct async_dev *d = async_of(nic);

    c->element = element;
    c->next = NULL;
    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    c->next = d->closing;
    d->closing = c;
    /*
     * Queued, not yet delivered: dropped. Their counts stay on the fd (a
     * reader may hold one already); ibv_get_async_event reads again when it
     * finds nothing queued.
     */
    for (struct async_queue *q = d->queues; q != NULL; q = q->next) {
        uint32_t kept = q->head;

        for (uint32_t i = q->head; i != q->tail; i++) {
            struct ibv_async_event *ev = &q->events[i % ASYNC_QUEUE_DEPTH];

            if (emu_async_element(ev) != element)
                q->events[kept++ % ASYNC_QUEUE_DEPTH] = *ev;
        }
        q->tail = kept;
    }
    pthread_mutex_unlock(&d->lock);
}

void emu_async_gone(struct emu_nic *nic, struct emu_async_closing *c)
{
    struct async_dev *d = async_of(nic);

    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    for (struct emu_async_closing **p = &d->closing; *p != NULL; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}
