/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: a DevX event channel (non-blocking) that CQs made
 * with doca_verbs_cq_attr_set_comp_channel() subscribe their completion
 * events to. An event is delivered once per arm of the CQ (the CQ's `st` at
 * creation, or the arm doorbell); doca_verbs_get_cq_comp_channel_event()
 * hands out the CQ's cq_context, doca_verbs_ack_cq_events() acknowledges it.
 *
 * The channel keeps the CQs subscribed to it and an event's cookie is a
 * number unique to one CQ for the life of the process, looked up in that
 * list: an event of a CQ destroyed since it was queued is dropped, never
 * followed to freed memory or to a newer CQ at the same address.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/sdk.h"
#include "verbs_internal.h"

/* The completion event type of mlx5 event queues (PRM "Completion Events"). */
#define VERBS_EVENT_TYPE_COMPLETION 0x0

struct doca_verbs_comp_channel {
    doca_dev_t *dev;
    struct mlx5dv_devx_event_channel *channel;
    pthread_mutex_t lock; /* cqs */
    doca_verbs_cq_t **cqs;
    size_t ncqs;
    size_t capacity;
};

doca_error_t doca_verbs_comp_channel_create(const doca_dev_t *net_dev,
                                            doca_verbs_comp_channel_t **verbs_comp_channel)
{
    DGN_SDK_ROUTE(doca_verbs_comp_channel_create, (net_dev, verbs_comp_channel),
                  DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    doca_verbs_comp_channel_t *ch;
    doca_error_t err;
    int flags;

    if (net_dev == NULL || verbs_comp_channel == NULL) {
        DOCA_LOG_ERR("net_dev (%p) and verbs_comp_channel (%p) must not be NULL",
                     (const void *)net_dev, (void *)verbs_comp_channel);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    ch = calloc(1, sizeof(*ch));
    if (ch == NULL) {
        DOCA_LOG_ERR("out of memory for a completion channel");
        return DOCA_ERROR_NO_MEMORY;
    }
    ch->channel = mlx5->devx_create_event_channel(
            net_dev->ctx, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
    if (ch->channel == NULL) {
        err = errno == EOPNOTSUPP ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_DRIVER;
        DOCA_LOG_ERR("mlx5dv_devx_create_event_channel failed (%s): the device gives no DevX "
                     "events; poll the CQ instead",
                     strerror(errno));
        free(ch);
        return err;
    }
    flags = fcntl(ch->channel->fd, F_GETFL);
    if (flags < 0 || fcntl(ch->channel->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        DOCA_LOG_ERR("cannot make the event channel's fd %d non-blocking: %s", ch->channel->fd,
                     strerror(errno));
        mlx5->devx_destroy_event_channel(ch->channel);
        free(ch);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    pthread_mutex_init(&ch->lock, NULL);
    ch->dev = (doca_dev_t *)net_dev;
    verbs_dev_hold(ch->dev);
    *verbs_comp_channel = ch;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_comp_channel_destroy(doca_verbs_comp_channel_t *verbs_comp_channel)
{
    DGN_SDK_ROUTE(doca_verbs_comp_channel_destroy, (verbs_comp_channel), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    size_t ncqs;

    if (verbs_comp_channel == NULL) {
        DOCA_LOG_ERR("verbs_comp_channel is NULL: pass the channel "
                     "doca_verbs_comp_channel_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&verbs_comp_channel->lock);
    ncqs = verbs_comp_channel->ncqs;
    pthread_mutex_unlock(&verbs_comp_channel->lock);
    if (ncqs != 0) {
        DOCA_LOG_ERR("the completion channel still has %zu CQs; destroy them first", ncqs);
        return DOCA_ERROR_IN_USE;
    }
    if (verbs_rdma(NULL, &mlx5) == DOCA_SUCCESS)
        mlx5->devx_destroy_event_channel(verbs_comp_channel->channel);
    pthread_mutex_destroy(&verbs_comp_channel->lock);
    verbs_dev_put(verbs_comp_channel->dev);
    free(verbs_comp_channel->cqs);
    free(verbs_comp_channel);
    return DOCA_SUCCESS;
}

doca_error_t verbs_comp_channel_attach(doca_verbs_comp_channel_t *ch, doca_verbs_cq_t *cq)
{
    static atomic_uint_fast64_t next_cookie = 1;
    const struct core_mlx5dv_ops *mlx5;
    doca_verbs_cq_t **cqs;
    uint16_t event = VERBS_EVENT_TYPE_COMPLETION;
    doca_error_t err;

    if (ch->dev->ctx != cq->dev->ctx) {
        DOCA_LOG_ERR("the completion channel belongs to another device context than CQ 0x%x",
                     cq->cqn);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    cq->event_cookie = atomic_fetch_add(&next_cookie, 1);
    pthread_mutex_lock(&ch->lock);
    cqs = core_array_room(ch->cqs, &ch->capacity, ch->ncqs, sizeof(*cqs));
    if (cqs == NULL) {
        pthread_mutex_unlock(&ch->lock);
        DOCA_LOG_ERR("out of memory attaching CQ 0x%x to its completion channel", cq->cqn);
        return DOCA_ERROR_NO_MEMORY;
    }
    ch->cqs = cqs;
    if (mlx5->devx_subscribe_devx_event(ch->channel, cq->obj, sizeof(event), &event,
                                        cq->event_cookie) != 0) {
        int e = errno;

        pthread_mutex_unlock(&ch->lock);
        DOCA_LOG_ERR("CQ 0x%x: mlx5dv_devx_subscribe_devx_event failed (%s)", cq->cqn, strerror(e));
        return e == EOPNOTSUPP ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_DRIVER;
    }
    ch->cqs[ch->ncqs++] = cq;
    pthread_mutex_unlock(&ch->lock);
    return DOCA_SUCCESS;
}

void verbs_comp_channel_detach(doca_verbs_comp_channel_t *ch, doca_verbs_cq_t *cq)
{
    pthread_mutex_lock(&ch->lock);
    for (size_t i = 0; i < ch->ncqs; i++) {
        if (ch->cqs[i] == cq) {
            ch->cqs[i] = ch->cqs[--ch->ncqs];
            break;
        }
    }
    pthread_mutex_unlock(&ch->lock);
}

/* The subscribed CQ a cookie names, or NULL (caller holds ch->lock). */
static doca_verbs_cq_t *verbs_comp_channel_find(const doca_verbs_comp_channel_t *ch,
                                                uint64_t cookie)
{
    for (size_t i = 0; i < ch->ncqs; i++) {
        if (ch->cqs[i]->event_cookie == cookie)
            return ch->cqs[i];
    }
    return NULL;
}

doca_error_t verbs_comp_channel_next(doca_verbs_comp_channel_t *ch, bool count,
                                     doca_verbs_cq_t **cq_out)
{
    const struct core_mlx5dv_ops *mlx5;
    struct mlx5dv_devx_async_event_hdr hdr;
    doca_verbs_cq_t *cq;
    doca_error_t err;
    ssize_t n;

    *cq_out = NULL;
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    for (;;) {
        n = mlx5->devx_get_event(ch->channel, &hdr, sizeof(hdr));
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return DOCA_ERROR_AGAIN;
            if (errno == EINTR)
                continue;
            DOCA_LOG_ERR("reading the completion channel failed: %s", strerror(errno));
            return DOCA_ERROR_DRIVER;
        }
        if ((size_t)n < sizeof(hdr)) {
            DOCA_LOG_ERR("the completion channel gave a %zd-byte event, shorter than its "
                         "%zu-byte header",
                         n, sizeof(hdr));
            return DOCA_ERROR_UNEXPECTED;
        }
        pthread_mutex_lock(&ch->lock);
        cq = verbs_comp_channel_find(ch, hdr.cookie);
        if (cq != NULL && count)
            atomic_fetch_add(&cq->events_unacked, 1);
        pthread_mutex_unlock(&ch->lock);
        if (cq != NULL) {
            *cq_out = cq;
            return DOCA_SUCCESS;
        }
        /* A CQ destroyed after its event was queued: nothing to deliver. */
    }
}

doca_error_t doca_verbs_get_cq_comp_channel_event(doca_verbs_comp_channel_t *verbs_comp_channel,
                                                  void **cq_context)
{
    DGN_SDK_ROUTE(doca_verbs_get_cq_comp_channel_event, (verbs_comp_channel, cq_context),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_cq_t *cq;
    doca_error_t err;

    if (verbs_comp_channel == NULL || cq_context == NULL) {
        DOCA_LOG_ERR("verbs_comp_channel (%p) and cq_context (%p) must not be NULL",
                     (void *)verbs_comp_channel, (void *)cq_context);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_comp_channel_next(verbs_comp_channel, true, &cq);
    /* The context is read after the event was counted: the CQ cannot be destroyed before the ack.
     */
    *cq_context = err == DOCA_SUCCESS ? __atomic_load_n(&cq->cq_context, __ATOMIC_RELAXED) : NULL;
    return err;
}

doca_error_t doca_verbs_ack_cq_events(doca_verbs_cq_t *verbs_cq, unsigned int nevents)
{
    DGN_SDK_ROUTE(doca_verbs_ack_cq_events, (verbs_cq, nevents), DOCA_ERROR_NOT_SUPPORTED);

    unsigned int unacked;

    if (verbs_cq == NULL || nevents == 0) {
        DOCA_LOG_ERR("verbs_cq (%p) must not be NULL and nevents (%u) not 0", (void *)verbs_cq,
                     nevents);
        return DOCA_ERROR_INVALID_VALUE;
    }
    unacked = atomic_load(&verbs_cq->events_unacked);
    do {
        if (nevents > unacked) {
            DOCA_LOG_ERR("CQ 0x%x: %u events acknowledged, but only %u were delivered and not "
                         "acknowledged yet",
                         verbs_cq->cqn, nevents, unacked);
            return DOCA_ERROR_INVALID_VALUE;
        }
    } while (!atomic_compare_exchange_weak(&verbs_cq->events_unacked, &unacked, unacked - nevents));
    return DOCA_SUCCESS;
}
