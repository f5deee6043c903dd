/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: a pipe. The device writes one 8-byte token (the CQ)
 * per event; ibv_get_cq_event reads it (blocking unless the program made
 * the fd non-blocking).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/cq.h"

#define EMU_EXPORT __attribute__((visibility("default")))

struct emu_channel {
    struct ibv_comp_channel ibv;
    int write_fd;
};

EMU_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
    struct emu_channel *ch;
    int fds[2];

    if (context == NULL || !emu_context_is_ours(context)) {
        errno = EINVAL;
        return NULL;
    }
    ch = calloc(1, sizeof(*ch));
    if (ch == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        EMU_LOG_ERR("ibv_create_comp_channel: pipe: %m");
        free(ch);
        return NULL;
    }
    ch->ibv.context = context;
    ch->ibv.fd = fds[0];
    ch->write_fd = fds[1];
    return &ch->ibv;
}

EMU_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
    struct emu_channel *ch = (struct emu_channel *)channel;

    if (channel == NULL)
        return EINVAL;
    if (channel->refcnt != 0) {
        EMU_LOG_ERR("ibv_destroy_comp_channel: %d CQs still use the channel", channel->refcnt);
        return EBUSY;
    }
    close(ch->ibv.fd);
    close(ch->write_fd);
    free(ch);
    return 0;
}

/* The fd the device writes events to. */
int emu_channel_write_fd(struct ibv_comp_channel *channel)
{
    return ((struct emu_channel *)channel)->write_fd;
}

EMU_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
                                void **cq_context)
{
    uint64_t token;
    ssize_t n;

    do {
        n = read(channel->fd, &token, sizeof(token));
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(token))
        return -1;
    *cq = (struct ibv_cq *)(uintptr_t)token;
    __atomic_add_fetch(&((struct emu_cq *)*cq)->events_completed, 1, __ATOMIC_RELAXED);
    *cq_context = (*cq)->cq_context;
    return 0;
}

EMU_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    pthread_mutex_lock(&cq->mutex);
    cq->comp_events_completed += nevents;
    pthread_cond_signal(&cq->cond);
    pthread_mutex_unlock(&cq->mutex);
}
