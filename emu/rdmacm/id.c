/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm_ids: their registry (the progress thread names an id by serial
 * number, so a socket event for an id destroyed meanwhile finds nothing),
 * rdma_create_id, rdma_destroy_id, rdma_migrate_id, rdma_set_option,
 * the port getters and rdma_event_str. An id destroyed while the program
 * still holds events of it is freed at the last rdma_ack_cm_event.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "core/log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_id *cm_ids;
static uint64_t cm_next_serial = 1;

int cm_refuse(int err, const char *file, int line, const char *call, const char *fmt, ...)
{
    if (LOG_ERR <= emu_log_threshold()) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        core_log_write(LOG_ERR, file, line, call, "softmlx5: %s: %s (%s)", call, msg,
                       strerror(err));
    }
    errno = err;
    return -1;
}

socklen_t cm_addr_len(const struct sockaddr *addr)
{
    switch (addr->sa_family) {
    case AF_INET:
        return sizeof(struct sockaddr_in);
    case AF_INET6:
        return sizeof(struct sockaddr_in6);
    }
    return 0;
}

struct cm_id *cm_id_of(struct rdma_cm_id *pub)
{
    /* Looked up, not dereferenced: a destroyed or stray pointer is refused, not followed. */
    for (struct cm_id *id = cm_ids; id != NULL; id = id->next)
        if (&id->pub == pub)
            return id->destroyed ? NULL : id;
    return NULL;
}

struct cm_id *cm_id_by_serial(uint64_t serial)
{
    for (struct cm_id *id = cm_ids; id != NULL; id = id->next)
        if (id->serial == serial)
            return id;
    return NULL;
}

void cm_id_attach(struct cm_id *id, struct cm_channel *chan)
{
    id->chan = chan;
    id->pub.channel = &chan->pub;
    chan->ids++;
}

static void cm_id_detach(struct cm_id *id)
{
    struct cm_channel *chan = id->chan;

    cm_channel_drop_events(chan, id);
    chan->ids--;
    id->chan = NULL;
    cm_channel_put(chan);
}

struct cm_id *cm_id_new(struct cm_channel *chan, void *context, enum rdma_port_space ps)
{
    struct cm_id *id = calloc(1, sizeof(*id));

    if (id == NULL)
        return NULL;
    if (chan == NULL) {
        chan = cm_channel_new(true);
        if (chan == NULL) {
            free(id);
            return NULL;
        }
        id->sync = true;
    }
    id->pub.context = context;
    id->pub.ps = ps;
    id->pub.qp_type = IBV_QPT_RC;
    id->sock = -1;
    id->refs = 1;
    id->serial = cm_next_serial++;
    id->next = cm_ids;
    if (cm_ids != NULL)
        cm_ids->prev = id;
    cm_ids = id;
    cm_id_attach(id, chan);
    return id;
}

void cm_id_close_socket(struct cm_id *id)
{
    if (id->sock >= 0) {
        cm_progress_unwatch(id->sock);
        close(id->sock);
        id->sock = -1;
    }
    id->rx_len = 0;
}

void cm_id_set_timer(struct cm_id *id, enum cm_timer timer, unsigned ms)
{
    id->timer = timer;
    id->deadline_ms = timer == CM_TIMER_NONE ? 0 : cm_now_ms() + ms;
    if (timer != CM_TIMER_NONE)
        cm_progress_kick();
}

void cm_id_put(struct cm_id *id)
{
    if (--id->refs != 0)
        return;
    if (id->prev != NULL)
        id->prev->next = id->next;
    else
        cm_ids = id->next;
    if (id->next != NULL)
        id->next->prev = id->prev;
    free(id->ep_qp_attr);
    free(id);
}

CM_EXPORT int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
                             void *context, enum rdma_port_space ps)
{
    struct cm_channel *chan;
    struct cm_id *cid;

    if (id == NULL)
        return CM_REFUSE(EINVAL, "no id pointer");
    if (ps == RDMA_PS_IPOIB)
        return CM_REFUSE(EOPNOTSUPP,
                         "port space 0x%x (IPoIB) is not supported by softmlx5's librdmacm; "
                         "RDMA_PS_TCP, RDMA_PS_IB (RC) and RDMA_PS_UDP (UD) are",
                         ps);
    if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB && ps != RDMA_PS_UDP)
        return CM_REFUSE(EINVAL, "unknown port space 0x%x", ps);
    if (cm_devices_open() != 0)
        return CM_REFUSE(ENODEV, "no softmlx5 device can be opened");
    pthread_mutex_lock(&cm_lock);
    chan = channel != NULL ? cm_channel_of(channel) : NULL;
    cid = channel == NULL || chan != NULL ? cm_id_new(chan, context, ps) : NULL;
    pthread_mutex_unlock(&cm_lock);
    if (channel != NULL && chan == NULL)
        return CM_REFUSE(EINVAL, "no channel, or one already destroyed");
    if (cid == NULL)
        return CM_REFUSE(ENOMEM, "out of memory");
    *id = &cid->pub;
    return 0;
}

struct cm_id *cm_id_list(void)
{
    return cm_ids;
}

void cm_id_discard(struct cm_id *id)
{
    id->destroyed = true;
    cm_id_close_socket(id);
    cm_id_detach(id);
    cm_id_put(id);
}

/* A listener's requests the program has not taken go with it (their peers see the end). */
static void cm_id_drop_requests(struct cm_id *listen)
{
    struct cm_id *c = cm_ids, *next;

    for (; c != NULL; c = next) {
        next = c->next;
        if (c->listen != listen)
            continue;
        c->listen = NULL;
        if (!c->req_taken)
            cm_id_discard(c);
    }
}

CM_EXPORT int rdma_destroy_id(struct rdma_cm_id *pub)
{
    struct cm_id *id;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(EINVAL, "no id, or one already destroyed");
    }
    if (id->pub.event != NULL) {
        struct cm_event *ev = (struct cm_event *)id->pub.event;

        id->pub.event = NULL;
        cm_id_put(ev->owner);
        free(ev);
    }
    id->destroyed = true;
    cm_id_close_socket(id);
    id->timer = CM_TIMER_NONE;
    if (id->state == CM_LISTEN)
        cm_id_drop_requests(id);
    cm_id_detach(id);
    cm_id_put(id);
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

CM_EXPORT int rdma_migrate_id(struct rdma_cm_id *pub, struct rdma_event_channel *channel)
{
    struct cm_channel *to, *from;
    struct cm_id *id;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    to = channel != NULL ? cm_channel_of(channel) : NULL;
    if (id == NULL || (channel != NULL && to == NULL)) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(EINVAL, "no %s", id == NULL ? "id" : "channel, or one destroyed");
    }
    if (to == NULL)
        to = cm_channel_new(true);
    if (to == NULL) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(ENOMEM, "cannot make a synchronous channel");
    }
    from = id->chan;
    if (to != from) {
        cm_channel_move_events(from, to, id);
        from->ids--;
        cm_id_attach(id, to);
        id->sync = to->sync;
        cm_channel_put(from);
    }
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

static int cm_option_u8(const void *val, size_t len, uint8_t *out)
{
    if (len != sizeof(uint8_t))
        return -1;
    *out = *(const uint8_t *)val;
    return 0;
}

static int cm_option_int(const void *val, size_t len, int *out)
{
    if (len != sizeof(int))
        return -1;
    *out = *(const int *)val;
    return 0;
}

static int cm_set_option(struct cm_id *id, int level, int optname, void *optval, size_t optlen)
{
    int v = 0;

    if (level == RDMA_OPTION_ID) {
        switch (optname) {
        case RDMA_OPTION_ID_TOS:
            return cm_option_u8(optval, optlen, &id->tos) == 0
                           ? 0
                           : CM_REFUSE_AS("rdma_set_option", EINVAL,
                                          "RDMA_OPTION_ID_TOS takes a uint8_t");
        case RDMA_OPTION_ID_ACK_TIMEOUT:
            return cm_option_u8(optval, optlen, &id->ack_timeout) == 0
                           ? 0
                           : CM_REFUSE_AS("rdma_set_option", EINVAL,
                                          "RDMA_OPTION_ID_ACK_TIMEOUT takes a uint8_t");
        case RDMA_OPTION_ID_REUSEADDR: /* the ids' sockets always reuse addresses */
            if (cm_option_int(optval, optlen, &v) != 0)
                return CM_REFUSE_AS("rdma_set_option", EINVAL,
                                    "RDMA_OPTION_ID_REUSEADDR takes an int");
            return 0;
        case RDMA_OPTION_ID_AFONLY:
            if (cm_option_int(optval, optlen, &v) != 0)
                return CM_REFUSE_AS("rdma_set_option", EINVAL,
                                    "RDMA_OPTION_ID_AFONLY takes an int");
            id->afonly = v != 0;
            id->afonly_set = true;
            return 0;
        }
    } else if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH) {
        if (optlen == 0 || optlen % sizeof(struct ibv_path_data) != 0)
            return CM_REFUSE_AS("rdma_set_option", EINVAL,
                                "RDMA_OPTION_IB_PATH takes struct ibv_path_data entries");
        return 0; /* paths are not needed: the peer's GID comes in the handshake */
    }
    return CM_REFUSE_AS("rdma_set_option", ENOSYS, "option %d of level %d is not supported",
                        optname, level);
}

CM_EXPORT int rdma_set_option(struct rdma_cm_id *pub, int level, int optname, void *optval,
                              size_t optlen)
{
    struct cm_id *id;
    int ret;

    if (optval == NULL)
        return CM_REFUSE(EINVAL, "no option value");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    ret = id == NULL ? CM_REFUSE(EINVAL, "no id")
                     : cm_set_option(id, level, optname, optval, optlen);
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

in_port_t cm_addr_port(const struct sockaddr *addr)
{
    if (addr->sa_family == AF_INET)
        return ((const struct sockaddr_in *)addr)->sin_port;
    if (addr->sa_family == AF_INET6)
        return ((const struct sockaddr_in6 *)addr)->sin6_port;
    return 0;
}

void cm_addr_set_port(struct sockaddr *addr, in_port_t port)
{
    if (addr->sa_family == AF_INET)
        ((struct sockaddr_in *)addr)->sin_port = port;
    else if (addr->sa_family == AF_INET6)
        ((struct sockaddr_in6 *)addr)->sin6_port = port;
}

static __be16 cm_id_port(struct rdma_cm_id *pub, bool src)
{
    struct cm_id *id;
    __be16 port = 0;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id != NULL)
        port = cm_addr_port(src ? &pub->route.addr.src_addr : &pub->route.addr.dst_addr);
    pthread_mutex_unlock(&cm_lock);
    return port;
}

CM_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
    return cm_id_port(id, true);
}

CM_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
    return cm_id_port(id, false);
}

CM_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
    static const char *const names[] = {
            [RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
            [RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
            [RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
            [RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
            [RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
            [RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
            [RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
            [RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
            [RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
            [RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
            [RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
            [RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
            [RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
            [RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
            [RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
            [RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
    };

    if ((unsigned)event < sizeof(names) / sizeof(names[0]))
        return names[event];
    return "UNKNOWN EVENT";
}
