/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DevX event channels: mlx5dv_devx_create_event_channel / destroy,
 * mlx5dv_devx_subscribe_devx_event(_fd), mlx5dv_devx_get_event. The events
 * are those of DevX CQs: completion events (type 0), one per arm, and CQ
 * errors (type 4, an overrun), whether armed or not. A channel is
 * a SOCK_SEQPACKET socket pair: the device writes one record per event (the
 * cookie, then the 64-byte EQE unless OMIT_EV_DATA), the program reads the
 * other end, so each read returns exactly one event. As with the kernel, an
 * mlx5dv_devx_get_event buffer shorter than an event fails with EINVAL and
 * leaves the event queued; a plain read() that short loses the event's tail.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/cq.h"

#define DV_EVENT_TYPE_COMPLETION 0 /* MLX5_EVENT_TYPE_COMP */
#define DV_EVENT_TYPE_CQ_ERROR   4 /* MLX5_EVENT_TYPE_CQ_ERROR */
#define DV_EVENT_EQE_SIZE        64
#define DV_EVENT_SUPPORTED                                                                 \
    "supported: completion (type 0) and CQ error (type 4) events of CQ objects made with " \
    "mlx5dv_devx_obj_create"

struct dv_event_sub {
    struct emu_cq_target target; /* fd: the channel's write end, or the subscribed eventfd's dup */
    struct dv_event_sub *next;
};

struct dv_event_channel {
    struct mlx5dv_devx_event_channel pub; /* fd: the end the program reads */
    struct emu_nic *nic;
    int write_fd;
    bool omit_data;
    pthread_mutex_t lock; /* subs */
    struct dv_event_sub *subs;
};

static struct dv_event_channel *dv_channel(struct mlx5dv_devx_event_channel *ch)
{
    return (struct dv_event_channel *)ch;
}

/* The bytes of one event on the channel. */
static size_t dv_event_size(const struct dv_event_channel *ch)
{
    return sizeof(uint64_t) + (ch->omit_data ? 0 : DV_EVENT_EQE_SIZE);
}

DV_EXPORT struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(struct ibv_context *context,
                                 enum mlx5dv_devx_create_event_channel_flags flags)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_devx_create_event_channel");
    struct dv_event_channel *ch;
    int fds[2];

    if (nic == NULL)
        return NULL;
    if ((flags & ~MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA) != 0) {
        EMU_LOG_ERR("mlx5dv_devx_create_event_channel: unknown flags 0x%x; the only flag is "
                    "OMIT_EV_DATA (0x%x)",
                    (unsigned)flags, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
        errno = EINVAL;
        return NULL;
    }
    ch = calloc(1, sizeof(*ch));
    if (ch == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    /* The device's end never blocks: a full channel loses the event (logged), not the device. */
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0 ||
        fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) {
        EMU_LOG_ERR("mlx5dv_devx_create_event_channel: cannot make the channel's socket pair: %m");
        free(ch);
        errno = ENOMEM;
        return NULL;
    }
    ch->pub.fd = fds[0];
    ch->write_fd = fds[1];
    ch->nic = nic;
    ch->omit_data = (flags & MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA) != 0;
    pthread_mutex_init(&ch->lock, NULL);
    return &ch->pub;
}

DV_EXPORT void mlx5dv_devx_destroy_event_channel(struct mlx5dv_devx_event_channel *event_channel)
{
    struct dv_event_channel *ch = dv_channel(event_channel);
    struct dv_event_sub *sub, *next;

    if (ch == NULL) {
        EMU_LOG_ERR("mlx5dv_devx_destroy_event_channel: the channel is NULL");
        return;
    }
    /* Detached first: no event is written to an fd once it is closed. */
    for (sub = ch->subs; sub != NULL; sub = next) {
        next = sub->next;
        emu_cq_detach(ch->nic, &sub->target);
        if (sub->target.fd != ch->write_fd)
            close(sub->target.fd);
        free(sub);
    }
    close(ch->pub.fd);
    close(ch->write_fd);
    pthread_mutex_destroy(&ch->lock);
    free(ch);
}

/*
 * The CQ a subscription names and the kinds of its events (*kinds,
 * EMU_CQ_EV_*); errno-style, one log line on failure.
 */
static int dv_event_cq(const char *call, struct dv_event_channel *ch, struct mlx5dv_devx_obj *obj,
                       const uint16_t *events, size_t nevents, unsigned int *kinds)
{
    if (ch == NULL) {
        EMU_LOG_ERR("%s: the event channel is NULL", call);
        return EINVAL;
    }
    if (obj == NULL) {
        EMU_LOG_ERR("%s: unaffiliated events (no object) are not supported; " DV_EVENT_SUPPORTED,
                    call);
        return EOPNOTSUPP;
    }
    if (obj->nic != ch->nic) {
        EMU_LOG_ERR("%s: the object and the channel belong to different devices", call);
        return EINVAL;
    }
    if (obj->type != EMU_DEVX_OBJ_CQ) {
        EMU_LOG_ERR("%s: object 0x%x is not a CQ; " DV_EVENT_SUPPORTED, call, obj->id);
        return EOPNOTSUPP;
    }
    if (events == NULL || nevents == 0) {
        EMU_LOG_ERR("%s: no event types given; " DV_EVENT_SUPPORTED, call);
        return EINVAL;
    }
    *kinds = 0;
    for (size_t i = 0; i < nevents; i++) {
        if (events[i] == DV_EVENT_TYPE_COMPLETION) {
            *kinds |= EMU_CQ_EV_COMPLETION;
        } else if (events[i] == DV_EVENT_TYPE_CQ_ERROR) {
            *kinds |= EMU_CQ_EV_ERROR;
        } else {
            EMU_LOG_ERR("%s: event type %u is not supported on CQ 0x%x; " DV_EVENT_SUPPORTED, call,
                        events[i], obj->id);
            return EINVAL;
        }
    }
    return 0;
}

/* Attaches a subscription to the CQ and the channel; errno-style. */
static int dv_event_attach(const char *call, struct dv_event_channel *ch,
                           struct mlx5dv_devx_obj *obj, int fd, uint64_t token,
                           enum emu_cq_event_format format, unsigned int kinds)
{
    struct dv_event_sub *sub = calloc(1, sizeof(*sub));
    int err;

    if (sub == NULL)
        return ENOMEM;
    sub->target.fd = fd;
    sub->target.token = token;
    sub->target.format = format;
    sub->target.kinds = kinds;
    err = emu_cq_attach(ch->nic, obj->id, &sub->target);
    if (err != 0) {
        EMU_LOG_ERR("%s: CQ 0x%x no longer exists", call, obj->id);
        free(sub);
        return EINVAL;
    }
    pthread_mutex_lock(&ch->lock);
    sub->next = ch->subs;
    ch->subs = sub;
    pthread_mutex_unlock(&ch->lock);
    return 0;
}

DV_EXPORT int mlx5dv_devx_subscribe_devx_event(struct mlx5dv_devx_event_channel *event_channel,
                                               struct mlx5dv_devx_obj *obj, uint16_t events_sz,
                                               uint16_t events_num[], uint64_t cookie)
{
    static const char call[] = "mlx5dv_devx_subscribe_devx_event";
    struct dv_event_channel *ch = dv_channel(event_channel);
    unsigned int kinds;
    int err;

    if (events_sz % sizeof(uint16_t) != 0) {
        EMU_LOG_ERR("%s: events_sz %u is not a whole number of 16-bit event types", call,
                    events_sz);
        return errno = EINVAL;
    }
    err = dv_event_cq(call, ch, obj, events_num, events_sz / sizeof(uint16_t), &kinds);
    if (err == 0)
        err = dv_event_attach(call, ch, obj, ch->write_fd, cookie,
                              ch->omit_data ? EMU_CQ_EVENT_TOKEN : EMU_CQ_EVENT_EQE, kinds);
    return errno = err;
}

/* Whether fd is an eventfd: false only when /proc says it is something else. */
static bool dv_is_eventfd(int fd)
{
    char path[64], target[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, target, sizeof(target) - 1);
    if (n < 0)
        return true;
    target[n] = '\0';
    return strcmp(target, "anon_inode:[eventfd]") == 0;
}

DV_EXPORT int mlx5dv_devx_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *event_channel,
                                                  int fd, struct mlx5dv_devx_obj *obj,
                                                  uint16_t event_num)
{
    static const char call[] = "mlx5dv_devx_subscribe_devx_event_fd";
    struct dv_event_channel *ch = dv_channel(event_channel);
    struct stat st;
    unsigned int kinds;
    int err, own;

    err = dv_event_cq(call, ch, obj, &event_num, 1, &kinds);
    if (err != 0)
        return errno = err;
    if (fd < 0 || fstat(fd, &st) != 0 || !dv_is_eventfd(fd)) {
        EMU_LOG_ERR("%s: fd %d is not an eventfd; make one with eventfd(2)", call, fd);
        return errno = EINVAL;
    }
    /* The device signals its own copy: closing the program's fd cannot make it write elsewhere. */
    own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        EMU_LOG_ERR("%s: cannot duplicate eventfd %d: %m", call, fd);
        return errno = EMFILE;
    }
    err = dv_event_attach(call, ch, obj, own, 0, EMU_CQ_EVENT_COUNT, kinds);
    if (err != 0)
        close(own);
    return errno = err;
}

DV_EXPORT ssize_t mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *event_channel,
                                        struct mlx5dv_devx_async_event_hdr *event_data,
                                        size_t event_resp_len)
{
    struct dv_event_channel *ch = dv_channel(event_channel);
    ssize_t n;

    if (ch == NULL || event_data == NULL) {
        EMU_LOG_ERR("mlx5dv_devx_get_event: the %s is NULL", ch == NULL ? "channel" : "buffer");
        errno = EINVAL;
        return -1;
    }
    if (event_resp_len >= dv_event_size(ch))
        return read(ch->pub.fd, event_data, event_resp_len);
    /* As the kernel: wait for an event (unless non-blocking), then refuse it and keep it. */
    n = recv(ch->pub.fd, event_data, event_resp_len, MSG_PEEK | MSG_TRUNC);
    if (n < 0)
        return -1;
    EMU_LOG_ERR(
            "mlx5dv_devx_get_event: a buffer of %zu bytes cannot hold an event of %zu bytes (the "
            "cookie%s); the event stays queued",
            event_resp_len, dv_event_size(ch), ch->omit_data ? "" : " and the 64-byte EQE");
    errno = EINVAL;
    return -1;
}
