/* SPDX-License-Identifier: BSD-3-Clause */
/* A wire's endpoint: its reserved name, its listeners, and the events of its sockets. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

unsigned int emu_wire_endpoint_addr(void *out, uint32_t ipv4, uint16_t id)
{
    struct sockaddr_un *addr = out;
    int n;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    /* Abstract namespace: leading NUL, no file in the file system. */
    n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "softmlx5/%08x/%u", ipv4, id);
    return (unsigned int)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Binds the first free endpoint name; the bound socket is the reservation. */
static int wire_bind_endpoint(struct emu_wire *wire, int *fd_out)
{
    struct sockaddr_un addr;

    for (uint16_t id = 1; id <= EMU_WIRE_MAX_ENDPOINTS; id++) {
        unsigned int len = emu_wire_endpoint_addr(&addr, wire->cfg.ipv4, id);
        /* Non-blocking: another thread may have taken the connection an event announced. */
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
            return errno;
        if (bind(fd, (struct sockaddr *)&addr, len) == 0) {
            if (listen(fd, 64) != 0) {
                int err = errno;
                close(fd);
                return err;
            }
            wire->id = id;
            *fd_out = fd;
            return 0;
        }
        close(fd);
        if (errno != EADDRINUSE)
            return errno;
    }
    return EADDRINUSE;
}

/* TCP listener for devices of other hosts, on the device address (not on loopback ones). */
static int wire_listen_tcp(struct emu_wire *wire, int *fd_out)
{
    struct sockaddr_in sin;
    int one = 1;
    int fd;

    *fd_out = -1;
    if ((wire->cfg.ipv4 >> 24) == 127)
        return 0;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(wire->cfg.ipv4);
    sin.sin_port = htons((uint16_t)(EMU_WIRE_TCP_PORT_BASE + wire->id));
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, 64) != 0) {
        int err = errno;

        EMU_LOG_ERR("device %s: cannot listen on TCP port %d of SOFTMLX5_ADDR: %s", wire->name,
                    EMU_WIRE_TCP_PORT_BASE + wire->id, strerror(err));
        close(fd);
        return err;
    }
    *fd_out = fd;
    return 0;
}

static int wire_epoll_add(struct emu_wire *wire, int fd, void *ptr)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};

    return epoll_ctl(wire->cfg.epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : errno;
}

int emu_wire_start(const struct emu_wire_config *cfg, struct emu_wire **wire_out, uint16_t *id_out)
{
    struct emu_wire *wire = calloc(1, sizeof(*wire));
    int err;

    if (wire == NULL)
        return ENOMEM;
    wire->cfg = *cfg;
    snprintf(wire->name, sizeof(wire->name), "%s", cfg->name);
    wire->cfg.name = wire->name;
    wire->tcp_fd = -1;
    wire->listen_src.kind = WIRE_SRC_LISTEN_UNIX;
    wire->tcp_src.kind = WIRE_SRC_LISTEN_TCP;
    wire_pull_init(cfg);
    pthread_mutex_init(&wire->lock, NULL);
    err = wire_bind_endpoint(wire, &wire->listen_fd);
    if (err != 0) {
        EMU_LOG_ERR("device %s: no wire endpoint could be reserved (%s); at most %d software "
                    "devices can run on one host",
                    wire->name, strerror(err), EMU_WIRE_MAX_ENDPOINTS);
        free(wire);
        return err;
    }
    err = wire_listen_tcp(wire, &wire->tcp_fd);
    if (err == 0)
        err = wire_epoll_add(wire, wire->listen_fd, &wire->listen_src);
    if (err == 0 && wire->tcp_fd >= 0)
        err = wire_epoll_add(wire, wire->tcp_fd, &wire->tcp_src);
    if (err != 0) {
        EMU_LOG_ERR("device %s: cannot watch the wire's listeners: %s", wire->name, strerror(err));
        if (wire->tcp_fd >= 0)
            close(wire->tcp_fd);
        close(wire->listen_fd);
        free(wire);
        return err;
    }
    EMU_LOG_DBG("device %s: wire endpoint %u", wire->name, wire->id);
    *id_out = wire->id;
    *wire_out = wire;
    return 0;
}

void emu_wire_abandon(struct emu_wire *wire)
{
    /* Closing the child's descriptors leaves the parent's endpoint and connections intact. */
    for (struct emu_conn *conn = wire->conns; conn != NULL; conn = conn->next)
        close(conn->fd);
    if (wire->tcp_fd >= 0)
        close(wire->tcp_fd);
    close(wire->listen_fd);
}

static void wire_accept(struct emu_wire *wire, int listen_fd, bool tcp)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0) {
        if (errno != EAGAIN && errno != EINTR)
            EMU_LOG_ERR("device %s: accept on the wire endpoint failed: %m", wire->name);
        return;
    }
    wire_conn_add(wire, fd, tcp, NULL, NULL);
}

void emu_wire_event(struct emu_wire *wire, void *source, uint32_t events)
{
    struct wire_source *src = source;
    struct emu_conn *conn;

    switch (src->kind) {
    case WIRE_SRC_LISTEN_UNIX:
        wire_accept(wire, wire->listen_fd, false);
        return;
    case WIRE_SRC_LISTEN_TCP:
        wire_accept(wire, wire->tcp_fd, true);
        return;
    case WIRE_SRC_CONN:
        break;
    }
    conn = (struct emu_conn *)src;
    if (__atomic_load_n(&conn->dead, __ATOMIC_ACQUIRE)) { /* rejected, or the stream broke */
        wire_conn_drop(conn);
        return;
    }
    /*
     * Readable first: an error or hang-up still leaves the last frames to
     * read. A peer gone (a send failed) is dropped once its stream ended.
     */
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !wire_rx(conn)) {
        wire_conn_drop(conn);
        return;
    }
    if (__atomic_load_n(&conn->hung_up, __ATOMIC_ACQUIRE)) {
        wire_tx_discard(conn); /* nothing more goes out */
        return;
    }
    if ((events & EPOLLOUT) && !wire_tx_flush(conn) &&
        !__atomic_load_n(&conn->hung_up, __ATOMIC_ACQUIRE))
        wire_conn_drop(conn);
}

void emu_wire_reap(struct emu_wire *wire)
{
    pthread_mutex_lock(&wire->lock);
    while (wire->graveyard != NULL) {
        struct emu_conn *dead = wire->graveyard;

        wire->graveyard = dead->next;
        pthread_mutex_unlock(&wire->lock);
        emu_conn_put(dead);
        pthread_mutex_lock(&wire->lock);
    }
    pthread_mutex_unlock(&wire->lock);
}

void *emu_wire_user(const struct emu_wire *wire)
{
    return wire->cfg.user;
}

uint64_t emu_wire_rejected(const struct emu_wire *wire)
{
    return __atomic_load_n(&wire->rejected, __ATOMIC_RELAXED);
}

uint64_t emu_wire_pulled(const struct emu_wire *wire)
{
    return __atomic_load_n(&wire->pulled, __ATOMIC_RELAXED);
}

uint64_t emu_wire_pushed(const struct emu_wire *wire)
{
    return __atomic_load_n(&wire->pushed, __ATOMIC_RELAXED);
}
