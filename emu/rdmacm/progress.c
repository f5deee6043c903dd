/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's progress thread, started by the first socket it
 * is given: it sleeps in epoll on the ids' TCP sockets (named by the ids'
 * serial numbers) and a wake eventfd, accepts connections on listeners,
 * completes non-blocking connects, reads handshake messages whole, notices
 * a connection's end, and runs the ids' timers. Everything it does happens
 * under cm_lock.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "common/emu_thread.h"
#include "rdmacm/cm.h"

#define CM_WAKE_SERIAL 0
#define CM_BATCH       16

static int cm_epoll = -1;
static int cm_wake = -1;
static pthread_once_t cm_progress_once = PTHREAD_ONCE_INIT;
static int cm_progress_err;

uint64_t cm_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void cm_progress_kick(void)
{
    uint64_t one = 1;

    if (cm_wake >= 0 && write(cm_wake, &one, sizeof(one)) < 0)
        EMU_LOG_ERR("librdmacm: cannot wake the progress thread: %s", strerror(errno));
}

/* Runs the id timers that are due; returns the time until the next one (-1: none). */
static int cm_run_timers(void)
{
    uint64_t now = cm_now_ms(), next = UINT64_MAX;

    for (struct cm_id *id = cm_id_list(); id != NULL; id = id->next) {
        if (id->timer == CM_TIMER_NONE || id->destroyed)
            continue;
        if (id->deadline_ms <= now)
            cm_conn_on_timer(id); /* frees no id */
        if (id->timer != CM_TIMER_NONE && id->deadline_ms < next)
            next = id->deadline_ms;
    }
    if (next == UINT64_MAX)
        return -1;
    return next <= now ? 0 : (int)(next - now);
}

/* A connection arrived on a listener: a passive id waits for its REQ. */
static void cm_accept(struct cm_id *listen)
{
    for (;;) {
        struct sockaddr_storage peer;
        socklen_t len = sizeof(peer);
        int fd =
                accept4(listen->sock, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct cm_id *child;

        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR)
                EMU_LOG_ERR("librdmacm: accept on a listener: %s", strerror(errno));
            return;
        }
        child = cm_id_new(listen->chan, listen->pub.context, listen->pub.ps);
        if (child == NULL) {
            EMU_LOG_ERR("librdmacm: out of memory: a connection request is dropped");
            close(fd);
            continue;
        }
        child->sock = fd;
        child->listen = listen;
        child->state = CM_REQ_WAIT;
        memcpy(&child->pub.route.addr.dst_storage, &peer, len);
        len = sizeof(child->pub.route.addr.src_storage);
        getsockname(fd, &child->pub.route.addr.src_addr, &len);
        cm_id_set_device(child, cm_device_of_addr(&child->pub.route.addr.src_addr));
        if (cm_progress_watch(child, EPOLLIN) != 0) {
            EMU_LOG_ERR("librdmacm: cannot watch a connection: %s", strerror(errno));
            cm_id_discard(child);
        }
    }
}

/* Reads what the socket has: whole messages go to the connection's handler. */
static void cm_receive(struct cm_id *id)
{
    uint64_t serial = id->serial;

    while ((id = cm_id_by_serial(serial)) != NULL && id->sock >= 0) {
        ssize_t n = recv(id->sock, id->rx + id->rx_len, sizeof(id->rx) - id->rx_len, 0);
        struct cm_msg msg;

        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            cm_conn_on_lost(id, n == 0 ? ECONNRESET : errno);
            return;
        }
        if (n < 0) {
            if (errno == EAGAIN)
                return;
            continue;
        }
        id->rx_len += (size_t)n;
        if (id->rx_len < sizeof(id->rx))
            continue;
        memcpy(&msg, id->rx, sizeof(msg));
        id->rx_len = 0;
        if (cm_msg_check(&msg) != 0) {
            EMU_LOG_ERR("librdmacm: a malformed connection manager message (type %u); the "
                        "connection is dropped",
                        msg.type);
            cm_conn_on_lost(id, EPROTO);
            return;
        }
        cm_msg_swap(&msg);
        cm_conn_on_message(id, &msg);
    }
}

static void cm_socket_event(uint64_t serial, uint32_t events)
{
    struct cm_id *id = cm_id_by_serial(serial);
    int err = 0;
    socklen_t len = sizeof(err);

    if (id == NULL || id->destroyed || id->sock < 0)
        return;
    if (id->state == CM_LISTEN) {
        cm_accept(id);
        return;
    }
    if (id->state == CM_CONNECTING) {
        if (getsockopt(id->sock, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err == 0 && !(events & EPOLLOUT))
            return;
        cm_conn_on_connected(id, err);
        return;
    }
    cm_receive(id);
}

static void *cm_progress_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct epoll_event evs[CM_BATCH];
        int timeout, n;

        pthread_mutex_lock(&cm_lock);
        timeout = cm_run_timers();
        pthread_mutex_unlock(&cm_lock);
        n = epoll_wait(cm_epoll, evs, CM_BATCH, timeout);
        if (n < 0 && errno != EINTR) {
            EMU_LOG_ERR("librdmacm: the progress thread stops: epoll_wait: %s", strerror(errno));
            return NULL;
        }
        pthread_mutex_lock(&cm_lock);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.u64 == CM_WAKE_SERIAL) {
                uint64_t count;

                if (read(cm_wake, &count, sizeof(count)) < 0 && errno != EAGAIN)
                    EMU_LOG_ERR("librdmacm: wake eventfd: %s", strerror(errno));
                continue;
            }
            cm_socket_event(evs[i].data.u64, evs[i].events);
        }
        pthread_mutex_unlock(&cm_lock);
    }
}

static void cm_progress_start(void)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = CM_WAKE_SERIAL};
    pthread_attr_t attr;
    pthread_t thread;

    cm_epoll = epoll_create1(EPOLL_CLOEXEC);
    cm_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (cm_epoll < 0 || cm_wake < 0 || epoll_ctl(cm_epoll, EPOLL_CTL_ADD, cm_wake, &ev) != 0) {
        cm_progress_err = errno;
        return;
    }
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    cm_progress_err = emu_thread_create(&thread, &attr, cm_progress_main, NULL);
    pthread_attr_destroy(&attr);
}

void cm_progress_unwatch(int fd)
{
    /* Before close: a copy of the socket in a forked child would keep the registration. */
    if (cm_epoll >= 0)
        epoll_ctl(cm_epoll, EPOLL_CTL_DEL, fd, NULL);
}

int cm_progress_watch(struct cm_id *id, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = id->serial};
    int one = 1, idle = 5, intvl = 1, cnt = 5;

    pthread_once(&cm_progress_once, cm_progress_start);
    if (cm_progress_err != 0) {
        errno = cm_progress_err;
        return -1;
    }
    if (id->state != CM_LISTEN) {
        /* A peer host that vanishes ends the connection within about 10 s. */
        setsockopt(id->sock, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
        setsockopt(id->sock, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
        setsockopt(id->sock, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
        setsockopt(id->sock, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
        setsockopt(id->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    if (epoll_ctl(cm_epoll, EPOLL_CTL_ADD, id->sock, &ev) == 0)
        return 0;
    if (errno == EEXIST && epoll_ctl(cm_epoll, EPOLL_CTL_MOD, id->sock, &ev) == 0)
        return 0;
    return -1;
}
