/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress thread of a device: sleeps in epoll on its sockets, parses
 * and checks incoming frames, hands them to the engine, runs the engine's
 * timers, runs send queues stalled on a WAIT again when a CQE was written,
 * and polls UAR doorbells with an adaptive period.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "nic/uar.h"
#include "wire/wire.h"

#define PROGRESS_IDLE_MAX_NS   1000000ull /* UAR polling backs off to 1 ms */
#define PROGRESS_TIMER_SCAN_NS 2000000ull /* retry/RNR timers are checked every 2 ms */
/*
 * A bulk read takes at most 4 KiB: enough to batch many small frames, while a
 * large payload goes from the socket straight to its destination (one copy)
 * instead of through this buffer.
 */
#define PROGRESS_RX_CHUNK      4096u
#define PROGRESS_RX_BATCH      64
/*
 * While a thread polling a CQ has done the device's work within this time,
 * the progress thread leaves the sockets to it: a poller that is spinning
 * reacts faster than a thread woken from epoll, and the two would only
 * contend for the receive lock.
 */
#define PROGRESS_DEFER_NS      100000ull

/* The DevX side provides the real one (nic/uar.c); without it no doorbell page exists. */
__attribute__((weak)) bool emu_uar_poll(struct emu_nic *nic)
{
    (void)nic;
    return false;
}

static void progress_accept(struct emu_wire *wire, int listen_fd, bool tcp)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

    if (fd < 0) {
        if (errno != EAGAIN && errno != EINTR)
            EMU_LOG_ERR("device %s: accept on the wire endpoint failed: %m", wire->nic->ibdev.name);
        return;
    }
    emu_wire_conn_add(wire, fd, tcp, NULL);
}

/*
 * An ATOMIC request's operands (proto.h). An op/opmod pair that names no
 * atomic is left to the responder, which refuses it; its payload is bounded.
 */
static bool progress_check_atomic(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t len = be32toh(h->payload_len), masks_len;
    uint32_t size = emu_wire_atomic_size(h->op, h->opmod, &masks_len);

    if (size == 0) {
        if (len != 0 && len != EMU_WIRE_ATOMIC_MASKS_LEN) {
            emu_wire_reject(conn, "atomic payload of a bad length", len);
            return false;
        }
        return true;
    }
    if (len != masks_len) {
        emu_wire_reject(conn, "atomic payload does not match its opcode", len);
        return false;
    }
    if (be32toh(h->dma_len) != size) {
        emu_wire_reject(conn, "atomic length does not match its opcode", be32toh(h->dma_len));
        return false;
    }
    if (size == 4 && ((be64toh(h->swap_add) | be64toh(h->compare)) >> 32) != 0) {
        emu_wire_reject(conn, "4-byte atomic operand wider than 32 bits", h->op);
        return false;
    }
    return true;
}

/* Checks the fields every frame must get right; the engine checks QPNs and keys. */
static bool progress_check_hdr(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t len = be32toh(h->payload_len);

    if (be32toh(h->magic) != EMU_WIRE_MAGIC) {
        emu_wire_reject(conn, "bad magic", be32toh(h->magic));
        return false;
    }
    if (h->version != EMU_WIRE_VERSION) {
        emu_wire_reject(conn, "unsupported version", h->version);
        return false;
    }
    if (h->type < EMU_WIRE_HELLO || h->type >= EMU_WIRE_TYPE_END) {
        emu_wire_reject(conn, "unknown frame type", h->type);
        return false;
    }
    if (len > EMU_WIRE_MAX_PAYLOAD) {
        emu_wire_reject(conn, "payload too long", len);
        return false;
    }
    if (h->reserved[0] != 0 || h->reserved[1] != 0) {
        emu_wire_reject(conn, "reserved header bytes set", h->type);
        return false;
    }
    if (h->type != EMU_WIRE_ATOMIC && (h->op != 0 || h->opmod != 0)) {
        emu_wire_reject(conn, "atomic opcode on a frame that is no atomic", h->type);
        return false;
    }
    switch (h->type) {
    case EMU_WIRE_ATOMIC:
        if (!progress_check_atomic(conn, h))
            return false;
        break;
    case EMU_WIRE_HELLO:
    case EMU_WIRE_READ_REQ:
    case EMU_WIRE_ACK:
    case EMU_WIRE_NAK:
    case EMU_WIRE_PULL_OK:
        if (len != 0) {
            emu_wire_reject(conn, "payload on a frame type that has none", len);
            return false;
        }
        break;
    case EMU_WIRE_ATOMIC_RESP:
        if (len != 4 && len != 8) {
            emu_wire_reject(conn, "atomic response is not 4 or 8 bytes", len);
            return false;
        }
        break;
    default:
        break;
    }
    /*
     * The side that dialed knows its peer from the start; the acceptor's
     * PULL_OK may come back before the dialing thread marks it identified.
     */
    if (h->type != EMU_WIRE_HELLO && !conn->identified && !conn->dialer) {
        emu_wire_reject(conn, "frame before HELLO", h->type);
        return false;
    }
    if (h->flags & EMU_WIRE_F_PULL) {
        bool data = h->type == EMU_WIRE_WRITE || h->type == EMU_WIRE_WRITE_IMM ||
                    h->type == EMU_WIRE_SEND || h->type == EMU_WIRE_SEND_IMM;

        /* Only a peer whose memory we proved readable may ask us to read it. */
        if (!data || conn->pull_pid == 0) {
            emu_wire_reject(conn, "pull frame not allowed here", h->type);
            return false;
        }
        if (len == 0 || len % EMU_WIRE_PULL_ENTRY != 0 ||
            len > EMU_WIRE_PULL_MAX_ENTRIES * EMU_WIRE_PULL_ENTRY) {
            emu_wire_reject(conn, "bad pull list length", len);
            return false;
        }
        if (be32toh(h->dma_len) > (1u << EMU_LOG_MAX_MSG)) {
            emu_wire_reject(conn, "pull message too long", be32toh(h->dma_len));
            return false;
        }
    }
    return true;
}

/* Answers a peer's single-copy offer: whether we can read it, and our own offer. */
static void progress_pull_answer(struct emu_conn *conn, int pid, bool offer)
{
    struct emu_wire_hdr h;

    memset(&h, 0, sizeof(h));
    h.magic = htobe32(EMU_WIRE_MAGIC);
    h.version = EMU_WIRE_VERSION;
    h.type = EMU_WIRE_PULL_OK;
    h.flags = pid > 0 ? EMU_WIRE_F_PULL_GRANTED : 0;
    if (offer) {
        emu_wire_pull_offer(&h);
        conn->pull_offered = true;
    }
    /* Set before the answer leaves: pull frames may follow it at once. */
    conn->pull_pid = pid;
    emu_conn_send(conn, &h, NULL, 0);
}

/* PULL_OK: the dialer gets the acceptor's answer (and offer), the acceptor the dialer's answer. */
static bool progress_pull_ok(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    bool offer = h->compare != 0;

    if (conn->pull_ok_seen || !conn->local || (conn->dialer && !emu_config_get()->single_copy) ||
        (!conn->dialer && (!conn->pull_offered || offer))) {
        emu_wire_reject(conn, "unexpected PULL_OK", h->flags);
        return false;
    }
    conn->pull_ok_seen = true;
    if (h->flags & EMU_WIRE_F_PULL_GRANTED)
        __atomic_store_n(&conn->peer_pulls, true, __ATOMIC_RELEASE);
    if (conn->dialer && offer) {
        int pid = emu_wire_pull_probe(h);

        /* Nothing to say when we cannot read the acceptor: it keeps sending data. */
        if (pid > 0)
            progress_pull_answer(conn, pid, false);
    }
    return true;
}

static bool progress_hello(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t ep = be32toh(h->src_qpn);

    if (conn->identified || conn->dialer || ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS) {
        emu_wire_reject(conn, "bad HELLO", ep);
        return false;
    }
    pthread_mutex_lock(&conn->wire->lock);
    conn->peer_ep = (uint16_t)ep;
    conn->peer_ipv4 = be32toh(h->imm);
    conn->identified = true;
    pthread_mutex_unlock(&conn->wire->lock);
    /* A dialer of this host offering single copy: probe it, answer with our own offer. */
    if (conn->local && h->compare != 0 && emu_config_get()->single_copy)
        progress_pull_answer(conn, emu_wire_pull_probe(h), true);
    return true;
}

/* Executes every whole frame in the receive buffer; false: drop the connection. */
static bool progress_frames(struct emu_conn *conn)
{
    while (conn->rlen - conn->roff >= sizeof(struct emu_wire_hdr)) {
        struct emu_wire_hdr h;

        memcpy(&h, conn->rbuf + conn->roff, sizeof(h));
        conn->roff += sizeof(h);
        if (!progress_check_hdr(conn, &h))
            return false;
        if (h.type == EMU_WIRE_HELLO) {
            if (!progress_hello(conn, &h))
                return false;
        } else if (h.type == EMU_WIRE_PULL_OK) {
            if (!progress_pull_ok(conn, &h))
                return false;
        } else if (emu_engine_rx(conn, &h) != 0) {
            return false;
        }
        if (__atomic_load_n(&conn->dead, __ATOMIC_ACQUIRE))
            return false;
    }
    return true;
}

/*
 * Reads and executes frames until the socket is empty (at most
 * PROGRESS_RX_BATCH reads, for fairness between connections), then sends the
 * ACKs the batch owes. false: drop the connection.
 */
static bool progress_rx(struct emu_conn *conn)
{
    for (int reads = 0; reads < PROGRESS_RX_BATCH; reads++) {
        ssize_t n;

        if (conn->roff == conn->rlen) {
            conn->roff = conn->rlen = 0;
        } else if (conn->roff > 0) {
            memmove(conn->rbuf, conn->rbuf + conn->roff, conn->rlen - conn->roff);
            conn->rlen -= conn->roff;
            conn->roff = 0;
        }
        n = recv(conn->fd, conn->rbuf + conn->rlen, PROGRESS_RX_CHUNK - conn->rlen, MSG_DONTWAIT);
        if (n == 0)
            return false;
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                return false;
            break;
        }
        conn->rlen += (size_t)n;
        if (!progress_frames(conn))
            return false;
    }
    emu_engine_ack_flush(conn);
    return true;
}

static void progress_drop(struct emu_wire *wire, struct emu_conn *conn)
{
    struct emu_conn **pp;

    epoll_ctl(wire->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    __atomic_store_n(&conn->dead, true, __ATOMIC_RELEASE);
    shutdown(conn->fd, SHUT_RDWR);
    EMU_LOG_DBG("device %s: connection to endpoint %u closed", wire->nic->ibdev.name,
                conn->peer_ep);
    emu_engine_conn_lost(wire->nic, conn);
    pthread_mutex_lock(&wire->lock);
    for (pp = &wire->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == conn) {
            *pp = conn->next;
            break;
        }
    }
    /* An event batch of the progress thread may still name it: freed after that batch. */
    conn->next = wire->graveyard;
    wire->graveyard = conn;
    pthread_mutex_unlock(&wire->lock);
}

/* Handles one batch of epoll events (rx_lock held); only the progress thread takes wake-ups. */
static void progress_events(struct emu_wire *wire, const struct epoll_event *evs, int n,
                            bool thread)
{
    for (int i = 0; i < n; i++) {
        void *ptr = evs[i].data.ptr;

        if (ptr == &wire->listen_fd) {
            progress_accept(wire, wire->listen_fd, false);
        } else if (ptr == &wire->tcp_fd) {
            progress_accept(wire, wire->tcp_fd, true);
        } else if (ptr == &wire->wake_fd) {
            uint64_t v;

            if (thread && read(wire->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                EMU_LOG_ERR("device %s: wake fd read failed: %m", wire->nic->ibdev.name);
        } else if (!__atomic_load_n(&((struct emu_conn *)ptr)->dead, __ATOMIC_ACQUIRE) &&
                   !progress_rx(ptr)) {
            progress_drop(wire, ptr);
        }
    }
}

/* Retry and RNR timers, every PROGRESS_TIMER_SCAN_NS while work is outstanding (rx_lock held). */
static void progress_timers(struct emu_wire *wire)
{
    uint64_t now;

    if (__atomic_load_n(&wire->inflight, __ATOMIC_RELAXED) <= 0)
        return;
    now = emu_now_ns();
    if (now - wire->last_scan_ns < PROGRESS_TIMER_SCAN_NS)
        return;
    wire->last_scan_ns = now;
    emu_engine_timers(wire->nic, now);
}

/*
 * Send queues stalled on a WAIT (rx_lock held): checked again after a CQE was
 * written while any waits, and every PROGRESS_IDLE_MAX_NS regardless.
 */
static void progress_waits(struct emu_wire *wire)
{
    uint64_t now;

    if (__atomic_load_n(&wire->waiting, __ATOMIC_ACQUIRE) <= 0)
        return;
    now = emu_now_ns();
    if (!__atomic_exchange_n(&wire->wait_signal, 0, __ATOMIC_ACQ_REL) &&
        now - wire->last_wait_scan_ns < PROGRESS_IDLE_MAX_NS)
        return;
    wire->last_wait_scan_ns = now;
    emu_engine_waits(wire->nic);
}

void emu_wire_progress_poll(struct emu_nic *nic)
{
    struct emu_wire *wire = nic->wire;
    struct epoll_event evs[16];
    int n;

    if (wire == NULL)
        return;
    __atomic_store_n(&wire->inline_poll_ns, emu_now_ns(), __ATOMIC_RELAXED);
    if (pthread_mutex_trylock(&wire->rx_lock) != 0)
        return;
    n = epoll_wait(wire->epfd, evs, 16, 0);
    if (n > 0)
        progress_events(wire, evs, n, false);
    progress_timers(wire);
    progress_waits(wire);
    pthread_mutex_unlock(&wire->rx_lock);
}

/* How long epoll may sleep: forever when idle, short while timers or UARs need attention. */
static int64_t progress_timeout_ns(struct emu_wire *wire, bool busy, uint64_t *idle_ns)
{
    int64_t timeout = -1;

    if (__atomic_load_n(&wire->uar_watchers, __ATOMIC_RELAXED) > 0) {
        if (busy) {
            *idle_ns = 0;
        } else {
            *idle_ns = *idle_ns == 0 ? 1000 : *idle_ns * 2;
            if (*idle_ns > PROGRESS_IDLE_MAX_NS)
                *idle_ns = PROGRESS_IDLE_MAX_NS;
        }
        timeout = (int64_t)*idle_ns;
    }
    if (__atomic_load_n(&wire->inflight, __ATOMIC_RELAXED) > 0 &&
        (timeout < 0 || timeout > (int64_t)PROGRESS_TIMER_SCAN_NS))
        timeout = (int64_t)PROGRESS_TIMER_SCAN_NS;
    if (__atomic_load_n(&wire->waiting, __ATOMIC_RELAXED) > 0 &&
        (timeout < 0 || timeout > (int64_t)PROGRESS_IDLE_MAX_NS))
        timeout = (int64_t)PROGRESS_IDLE_MAX_NS;
    return timeout;
}

void *emu_wire_progress(void *arg)
{
    struct emu_wire *wire = arg;
    struct emu_nic *nic = wire->nic;
    uint64_t idle_ns = 0;
    bool busy = false;

    for (;;) {
        struct epoll_event evs[16];
        int64_t timeout = progress_timeout_ns(wire, busy, &idle_ns);
        struct timespec ts = {.tv_sec = timeout / 1000000000, .tv_nsec = timeout % 1000000000};
        int n = epoll_pwait2(wire->epfd, evs, 16, timeout < 0 ? NULL : &ts, NULL);
        bool defer =
                n > 0 && emu_now_ns() - __atomic_load_n(&wire->inline_poll_ns, __ATOMIC_RELAXED) <
                                 PROGRESS_DEFER_NS;

        if (defer) {
            /* Back off so that the events are the poller's; level-triggered, nothing is lost. */
            struct timespec pause = {0, (long)(PROGRESS_DEFER_NS / 4)};

            nanosleep(&pause, NULL);
        }
        pthread_mutex_lock(&wire->rx_lock);
        if (n > 0 && !defer)
            progress_events(wire, evs, n, true);
        busy = emu_uar_poll(nic);
        progress_timers(wire);
        progress_waits(wire);
        pthread_mutex_lock(&wire->lock);
        while (wire->graveyard != NULL) {
            struct emu_conn *dead = wire->graveyard;

            wire->graveyard = dead->next;
            pthread_mutex_unlock(&wire->lock);
            emu_conn_put(dead);
            pthread_mutex_lock(&wire->lock);
        }
        pthread_mutex_unlock(&wire->lock);
        pthread_mutex_unlock(&wire->rx_lock);
    }
    return NULL;
}
