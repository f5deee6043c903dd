/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event channels: a queue of events per channel and an eventfd that is
 * readable while the queue holds any (so a program may poll or select on
 * channel->fd, or make it non-blocking and get EAGAIN from
 * rdma_get_cm_event). rdma_create_event_channel, rdma_destroy_event_channel,
 * rdma_get_cm_event, rdma_ack_cm_event, and the wait of synchronous ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

static struct cm_channel *cm_channels; /* all live channels */

struct cm_channel *cm_channel_new(bool sync)
{
    struct cm_channel *chan = calloc(1, sizeof(*chan));

    if (chan == NULL)
        return NULL;
    chan->pub.fd = eventfd(0, EFD_CLOEXEC);
    if (chan->pub.fd < 0) {
        free(chan);
        return NULL;
    }
    chan->sync = sync;
    chan->next = cm_channels;
    if (cm_channels != NULL)
        cm_channels->prev = chan;
    cm_channels = chan;
    return chan;
}

struct cm_channel *cm_channel_of(struct rdma_event_channel *pub)
{
    /* Looked up, not dereferenced: a destroyed or stray pointer is refused, not followed. */
    for (struct cm_channel *chan = cm_channels; chan != NULL; chan = chan->next)
        if (&chan->pub == pub)
            return chan->destroyed ? NULL : chan;
    return NULL;
}

static void cm_channel_free(struct cm_channel *chan)
{
    cm_channel_drop_events(chan, NULL);
    if (chan->prev != NULL)
        chan->prev->next = chan->next;
    else
        cm_channels = chan->next;
    if (chan->next != NULL)
        chan->next->prev = chan->prev;
    close(chan->pub.fd);
    free(chan);
}

/* Frees the channel once the program destroyed it and its last id left it. */
void cm_channel_put(struct cm_channel *chan)
{
    if (chan->ids == 0 && (chan->destroyed || chan->sync))
        cm_channel_free(chan);
}

static void cm_channel_signal(struct cm_channel *chan)
{
    uint64_t one = 1;

    if (!chan->signalled && write(chan->pub.fd, &one, sizeof(one)) == sizeof(one))
        chan->signalled = true;
}

static void cm_channel_unsignal(struct cm_channel *chan)
{
    uint64_t count;

    if (chan->head == NULL && chan->signalled && read(chan->pub.fd, &count, sizeof(count)) > 0)
        chan->signalled = false;
}

struct cm_event *cm_event_queue(struct cm_id *id, enum rdma_cm_event_type type, int status)
{
    struct cm_channel *chan = id->chan;
    struct cm_event *ev = calloc(1, sizeof(*ev));

    if (ev == NULL) {
        EMU_LOG_ERR("librdmacm: out of memory: event %s of an id is lost", rdma_event_str(type));
        return NULL;
    }
    ev->pub.id = &id->pub;
    ev->pub.event = type;
    ev->pub.status = status;
    ev->owner = id;
    if (chan->tail != NULL)
        chan->tail->next = ev;
    else
        chan->head = ev;
    chan->tail = ev;
    cm_channel_signal(chan);
    return ev;
}

void cm_event_set_pdata(struct cm_event *ev, const struct cm_msg *msg, size_t size)
{
    memcpy(ev->pdata, msg->pdata, msg->pdata_len);
    ev->pub.param.conn.private_data = ev->pdata;
    ev->pub.param.conn.private_data_len = (uint8_t)size;
}

/* Takes an id's queued events (all of them for id NULL) out of a channel. */
static struct cm_event *cm_channel_take(struct cm_channel *chan, struct cm_id *id)
{
    struct cm_event *taken = NULL, **tail = &taken, **pp = &chan->head;

    chan->tail = NULL;
    while (*pp != NULL) {
        struct cm_event *ev = *pp;

        if (id == NULL || ev->owner == id) {
            *pp = ev->next;
            ev->next = NULL;
            *tail = ev;
            tail = &ev->next;
        } else {
            chan->tail = ev;
            pp = &ev->next;
        }
    }
    cm_channel_unsignal(chan);
    return taken;
}

void cm_channel_drop_events(struct cm_channel *chan, struct cm_id *id)
{
    struct cm_event *ev = cm_channel_take(chan, id);

    while (ev != NULL) {
        struct cm_event *next = ev->next;

        free(ev);
        ev = next;
    }
}

void cm_channel_move_events(struct cm_channel *from, struct cm_channel *to, struct cm_id *id)
{
    struct cm_event *ev = cm_channel_take(from, id);

    while (ev != NULL) {
        struct cm_event *next = ev->next;

        ev->next = NULL;
        if (to->tail != NULL)
            to->tail->next = ev;
        else
            to->head = ev;
        to->tail = ev;
        cm_channel_signal(to);
        ev = next;
    }
}

CM_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
    struct cm_channel *chan;

    if (cm_devices_open() != 0) {
        CM_REFUSE(ENODEV, "no softmlx5 device can be opened");
        return NULL;
    }
    pthread_mutex_lock(&cm_lock);
    chan = cm_channel_new(false);
    pthread_mutex_unlock(&cm_lock);
    if (chan == NULL) {
        CM_REFUSE(errno, "cannot make the channel's eventfd: %s", strerror(errno));
        return NULL;
    }
    return &chan->pub;
}

CM_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
    struct cm_channel *chan;

    pthread_mutex_lock(&cm_lock);
    chan = cm_channel_of(channel);
    if (chan == NULL) {
        pthread_mutex_unlock(&cm_lock);
        CM_REFUSE(EINVAL, "no channel, or one already destroyed");
        return;
    }
    if (chan->ids != 0)
        EMU_LOG_ERR("rdma_destroy_event_channel: %u ids still use the channel; it is freed when "
                    "the last is destroyed",
                    chan->ids);
    chan->destroyed = true;
    cm_channel_put(chan);
    pthread_mutex_unlock(&cm_lock);
}

/* Waits for the channel's fd to become readable, as a read of a blocking fd would. */
static int cm_channel_wait(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int flags = fcntl(fd, F_GETFL);

    if (flags >= 0 && (flags & O_NONBLOCK)) {
        errno = EAGAIN;
        return -1;
    }
    while (poll(&pfd, 1, -1) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

static struct cm_event *cm_channel_pop(struct cm_channel *chan)
{
    struct cm_event *ev = chan->head;

    if (ev == NULL)
        return NULL;
    chan->head = ev->next;
    if (chan->head == NULL)
        chan->tail = NULL;
    ev->next = NULL;
    cm_channel_unsignal(chan);
    return ev;
}

/*
 * The next event of a channel (looked up again after each wait: it may be
 * destroyed meanwhile). A channel destroyed while this thread waited on it
 * leaves the call blocked for good, as a read of rdma-core's fd stays
 * blocked when another thread closes it: programs such as rping destroy the
 * channel under their CM thread and exit, and must not see an error there.
 */
static int cm_get_event(struct rdma_event_channel *pub, struct rdma_cm_event **event)
{
    for (bool waited = false;; waited = true) {
        struct cm_channel *chan;
        struct cm_event *ev;
        int fd;

        pthread_mutex_lock(&cm_lock);
        chan = cm_channel_of(pub);
        if (chan == NULL) {
            pthread_mutex_unlock(&cm_lock);
            while (waited)
                pause();
            return CM_REFUSE_AS("rdma_get_cm_event", EINVAL, "no channel, or one destroyed");
        }
        ev = cm_channel_pop(chan);
        if (ev != NULL) {
            ev->owner->refs++;
            if (ev->pub.event == RDMA_CM_EVENT_CONNECT_REQUEST)
                ev->owner->req_taken = true;
            if (ev->reply)
                cm_conn_take_reply(ev);
            else if (ev->qp_err)
                cm_qp_to_err(ev->owner, "rdma_get_cm_event");
            pthread_mutex_unlock(&cm_lock);
            *event = &ev->pub;
            return 0;
        }
        fd = chan->pub.fd;
        pthread_mutex_unlock(&cm_lock);
        if (cm_channel_wait(fd) != 0)
            return -1;
    }
}

CM_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
    if (event == NULL)
        return CM_REFUSE(EINVAL, "no event pointer");
    return cm_get_event(channel, event);
}

CM_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
    struct cm_event *ev = (struct cm_event *)event;

    if (event == NULL)
        return CM_REFUSE(EINVAL, "no event");
    pthread_mutex_lock(&cm_lock);
    cm_id_put(ev->owner);
    pthread_mutex_unlock(&cm_lock);
    free(ev);
    return 0;
}

int cm_sync_wait(struct cm_id *id)
{
    struct rdma_cm_event *event;
    int status;

    if (id->pub.event != NULL) {
        rdma_ack_cm_event(id->pub.event);
        id->pub.event = NULL;
    }
    if (cm_get_event(&id->chan->pub, &event) != 0)
        return -1;
    id->pub.event = event;
    status = event->status;
    if (event->event == RDMA_CM_EVENT_REJECTED) {
        errno = ECONNREFUSED;
        return -1;
    }
    if (status != 0) {
        errno = status < 0 ? -status : status;
        return -1;
    }
    return 0;
}
