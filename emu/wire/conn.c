/* SPDX-License-Identifier: BSD-3-Clause */
/* Connections between devices: dialing, the HELLO and PULL_OK handshake, lifetime. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

/* Receive buffer: a small frame whole (header and payload) plus the next read's worth. */
#define CONN_RBUF_SIZE (4 * EMU_WIRE_SMALL_PAYLOAD)
#define CONN_SOCKBUF   (8 << 20)

uint64_t emu_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Big socket buffers (forced when allowed), no Nagle, non-blocking. */
static void conn_tune(int fd, bool tcp)
{
    int size = CONN_SOCKBUF, one = 1;

    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (tcp)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void wire_conn_watch(struct emu_conn *conn, bool out)
{
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0u), .data.ptr = conn};

    if (epoll_ctl(conn->wire->cfg.epfd, EPOLL_CTL_MOD, conn->fd, &ev) != 0 && errno != ENOENT)
        EMU_LOG_ERR("device %s: cannot watch a wire connection: %m", conn->wire->name);
}

int wire_conn_add(struct emu_wire *wire, int fd, bool tcp, const struct wire_peer *dialed,
                  struct emu_conn **conn_out)
{
    struct emu_conn *conn = calloc(1, sizeof(*conn));
    struct epoll_event ev = {.events = EPOLLIN};

    if (conn == NULL || (conn->rbuf = malloc(CONN_RBUF_SIZE)) == NULL) {
        free(conn);
        close(fd);
        return ENOMEM;
    }
    conn_tune(fd, tcp);
    conn->src.kind = WIRE_SRC_CONN;
    conn->wire = wire;
    conn->fd = fd;
    conn->local = !tcp;
    if (!tcp) {
        struct ucred cred = {0};
        socklen_t cred_len = sizeof(cred);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) == 0)
            conn->peer_pid = cred.pid;
        else
            EMU_LOG_DBG("device %s: the peer process of a connection of this host is not known "
                        "(SO_PEERCRED: %m): no CUDA VMM references from it",
                        wire->name);
    }
    /* Everything the receive side reads is set before the socket is watched. */
    if (dialed != NULL) {
        conn->dialer = true;
        conn->peer_ipv4 = dialed->ipv4;
        conn->peer_ep = dialed->ep;
    }
    conn->refs = 1; /* the wire's list */
    pthread_mutex_init(&conn->tx_lock, NULL);
    pthread_mutex_lock(&wire->lock);
    conn->next = wire->conns;
    wire->conns = conn;
    if (conn_out != NULL) {
        conn->refs++;
        *conn_out = conn;
    }
    pthread_mutex_unlock(&wire->lock);
    ev.data.ptr = conn;
    if (epoll_ctl(wire->cfg.epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        EMU_LOG_ERR("device %s: cannot watch a wire connection: %m", wire->name);
    return 0;
}

void wire_conn_drop(struct emu_conn *conn)
{
    struct emu_wire *wire = conn->wire;

    if (conn->dropped)
        return;
    conn->dropped = true;
    __atomic_store_n(&conn->dead, true, __ATOMIC_RELEASE);
    epoll_ctl(wire->cfg.epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    shutdown(conn->fd, SHUT_RDWR);
    EMU_LOG_DBG("device %s: connection to endpoint %u closed", wire->name, conn->peer_ep);
    wire_tx_discard(conn);
    pthread_mutex_lock(&wire->lock);
    for (struct emu_conn **pp = &wire->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == conn) {
            *pp = conn->next;
            break;
        }
    }
    pthread_mutex_unlock(&wire->lock);
    wire->cfg.ops->conn_lost(conn);
    /* An event batch may still name it: freed by emu_wire_reap, after that batch. */
    pthread_mutex_lock(&wire->lock);
    conn->next = wire->graveyard;
    wire->graveyard = conn;
    pthread_mutex_unlock(&wire->lock);
}

void emu_conn_get(struct emu_conn *conn)
{
    pthread_mutex_lock(&conn->wire->lock);
    conn->refs++;
    pthread_mutex_unlock(&conn->wire->lock);
}

void emu_conn_put(struct emu_conn *conn)
{
    struct emu_wire *wire = conn->wire;
    bool last;

    pthread_mutex_lock(&wire->lock);
    last = --conn->refs == 0;
    pthread_mutex_unlock(&wire->lock);
    if (!last)
        return;
    wire_tx_discard(conn);
    wire_share_unmap(conn);
    close(conn->fd);
    pthread_mutex_destroy(&conn->tx_lock);
    free(conn->rbuf);
    free(conn);
}

struct emu_wire *emu_conn_wire(const struct emu_conn *conn)
{
    return conn->wire;
}

uint16_t emu_conn_peer_ep(const struct emu_conn *conn)
{
    return conn->peer_ep;
}

bool emu_conn_dead(const struct emu_conn *conn)
{
    return __atomic_load_n(&conn->dead, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&conn->hung_up, __ATOMIC_ACQUIRE);
}

bool emu_conn_peer_pulls(const struct emu_conn *conn)
{
    return __atomic_load_n(&conn->peer_pulls, __ATOMIC_ACQUIRE);
}

bool emu_conn_gpu_refs(const struct emu_conn *conn)
{
    return conn->local && !__atomic_load_n(&conn->gpu_refused, __ATOMIC_RELAXED);
}

void emu_conn_gpu_refused(struct emu_conn *conn)
{
    if (!__atomic_exchange_n(&conn->gpu_refused, true, __ATOMIC_RELAXED))
        EMU_LOG_DBG("device %s: endpoint %u cannot open GPU references: GPU data goes through "
                    "the socket",
                    conn->wire->name, conn->peer_ep);
}

int emu_conn_peer_pid(const struct emu_conn *conn)
{
    return conn->local ? conn->peer_pid : 0;
}

void *emu_conn_user(const struct emu_conn *conn)
{
    return conn->user;
}

void emu_conn_set_user(struct emu_conn *conn, void *user)
{
    conn->user = user;
}

static bool wire_is_local(const struct emu_wire *wire, uint32_t ipv4)
{
    return ipv4 == 0 || ipv4 == wire->cfg.ipv4 || (ipv4 >> 24) == 127;
}

/* connect() is the one blocking call: made by the thread that modifies the QP, never the loop. */
static int wire_dial(struct emu_wire *wire, uint32_t ipv4, uint16_t ep, bool tcp)
{
    union {
        struct sockaddr_un un;
        struct sockaddr_in in;
    } addr;
    socklen_t len;
    int fd;

    if (tcp) {
        memset(&addr.in, 0, sizeof(addr.in));
        addr.in.sin_family = AF_INET;
        addr.in.sin_addr.s_addr = htonl(ipv4);
        addr.in.sin_port = htons((uint16_t)(EMU_WIRE_TCP_PORT_BASE + ep));
        len = sizeof(addr.in);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    } else {
        len = emu_wire_endpoint_addr(&addr.un, wire->cfg.ipv4, ep);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    }
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&addr, len) != 0) {
        int err = errno;

        close(fd);
        return -err;
    }
    return fd;
}

int emu_wire_connect(struct emu_wire *wire, uint32_t ipv4, uint16_t ep, struct emu_conn **conn_out)
{
    struct emu_wire_hdr hello;
    struct emu_conn *conn;
    bool tcp;
    int fd, err;

    if (wire_is_local(wire, ipv4))
        ipv4 = wire->cfg.ipv4;
    tcp = !wire_is_local(wire, ipv4);
    pthread_mutex_lock(&wire->lock);
    for (conn = wire->conns; conn != NULL; conn = conn->next) {
        if (conn->identified && !emu_conn_dead(conn) && conn->peer_ipv4 == ipv4 &&
            conn->peer_ep == ep) {
            conn->refs++;
            pthread_mutex_unlock(&wire->lock);
            *conn_out = conn;
            return 0;
        }
    }
    pthread_mutex_unlock(&wire->lock);

    fd = wire_dial(wire, ipv4, ep, tcp);
    if (fd < 0) {
        EMU_LOG_ERR("device %s: cannot connect to endpoint %u at %u.%u.%u.%u (%s): %s; is the "
                    "peer process running?",
                    wire->name, ep, ipv4 >> 24, (ipv4 >> 16) & 0xff, (ipv4 >> 8) & 0xff,
                    ipv4 & 0xff, tcp ? "TCP" : "abstract Unix socket", strerror(-fd));
        return -fd;
    }
    err = wire_conn_add(wire, fd, tcp, &(struct wire_peer){ipv4, ep}, &conn);
    if (err != 0)
        return err;
    emu_wire_hdr_init(&hello, EMU_WIRE_HELLO, wire->id, 0, 0);
    hello.imm = htobe32(wire->cfg.ipv4);
    /* Over TCP the peer is on another host: no process of ours to read. */
    if (!tcp && wire->cfg.single_copy)
        wire_pull_offer(wire, &hello);
    err = emu_conn_send(conn, &hello, NULL, 0, NULL, NULL);
    if (err != 0) {
        emu_conn_put(conn);
        return err;
    }
    pthread_mutex_lock(&wire->lock);
    conn->identified = true;
    pthread_mutex_unlock(&wire->lock);
    *conn_out = conn;
    return 0;
}

/* Answers a peer's single-copy offer: whether we can read it, and our own offer. */
static void wire_pull_answer(struct emu_conn *conn, int pid, bool offer)
{
    struct emu_wire_hdr h;

    emu_wire_hdr_init(&h, EMU_WIRE_PULL_OK, 0, 0, 0);
    h.flags = pid > 0 ? EMU_WIRE_F_PULL_GRANTED : 0;
    if (offer) {
        wire_pull_offer(conn->wire, &h);
        conn->pull_offered = true;
    }
    /* Set before the answer leaves: pull frames may follow it at once. */
    conn->pull_pid = pid;
    emu_conn_send(conn, &h, NULL, 0, NULL, NULL);
}

/* PULL_OK: the dialer gets the acceptor's answer (and offer), the acceptor the dialer's answer. */
bool wire_pull_ok(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    bool offer = h->compare != 0;

    if (conn->pull_ok_seen || !conn->local || (conn->dialer && !conn->wire->cfg.single_copy) ||
        (!conn->dialer && (!conn->pull_offered || offer))) {
        emu_wire_reject(conn, "unexpected PULL_OK", h->flags);
        return false;
    }
    conn->pull_ok_seen = true;
    if (h->flags & EMU_WIRE_F_PULL_GRANTED)
        __atomic_store_n(&conn->peer_pulls, true, __ATOMIC_RELEASE);
    if (conn->dialer && offer) {
        int pid = wire_pull_probe(conn, h);

        /* Nothing to say when we cannot read the acceptor: it keeps sending data. */
        if (pid > 0)
            wire_pull_answer(conn, pid, false);
    }
    return true;
}

bool wire_hello(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t ep = be32toh(h->src_qpn);

    if (conn->dialer || conn->identified || ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS) {
        emu_wire_reject(conn, "bad HELLO", ep);
        return false;
    }
    pthread_mutex_lock(&conn->wire->lock);
    conn->peer_ep = (uint16_t)ep;
    conn->peer_ipv4 = be32toh(h->imm);
    conn->identified = true;
    pthread_mutex_unlock(&conn->wire->lock);
    /* A dialer of this host offering single copy: probe it, answer with our own offer. */
    if (conn->local && h->compare != 0 && conn->wire->cfg.single_copy)
        wire_pull_answer(conn, wire_pull_probe(conn, h), true);
    return true;
}

void emu_wire_reject(struct emu_conn *conn, const char *why, uint64_t value)
{
    struct emu_wire *wire = conn->wire;

    if (__atomic_fetch_add(&wire->rejected, 1, __ATOMIC_RELAXED) == 0)
        EMU_LOG_ERR("device %s: malformed wire frame (%s, value 0x%lx); the connection is "
                    "dropped (further malformed frames are counted, not logged)",
                    wire->name, why, (unsigned long)value);
    __atomic_store_n(&conn->dead, true, __ATOMIC_RELEASE);
}
