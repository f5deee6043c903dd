/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit: a frame goes straight into the socket when nothing waits before
 * it; what the socket does not take waits in the connection's queue, in
 * order, until the owner's event loop sees the socket writable. A corked
 * connection queues every frame, and its uncork sends them together, many
 * to a system call. No call here blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

/* Above this many queued bytes a requester holds back new requests (emu_conn_tx_full). */
#define TX_HIGH_BYTES (8u << 20)
/* Buffers handed to one sendmsg when queued frames are flushed. */
#define TX_GATHER_IOV 64

/* Sends from vec[*first..count) without blocking; advances past what left. -1: errno set. */
static ssize_t tx_sendv(int fd, struct iovec *vec, int *first, int count)
{
    struct msghdr msg;
    ssize_t sent;
    size_t done;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = vec + *first;
    msg.msg_iovlen = (size_t)(count - *first);
    do
        sent = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return errno == EAGAIN ? 0 : -1;
    for (done = (size_t)sent; *first < count && done >= vec[*first].iov_len; (*first)++)
        done -= vec[*first].iov_len;
    if (*first < count) {
        vec[*first].iov_base = (char *)vec[*first].iov_base + done;
        vec[*first].iov_len -= done;
    }
    return sent;
}

static void tx_release(struct wire_tx *t)
{
    if (t->release != NULL)
        t->release(t->arg);
    free(t);
}

/* The stream cannot go on (a frame perhaps half sent): the loop drops the connection. */
static void tx_break(struct emu_conn *conn)
{
    __atomic_store_n(&conn->dead, true, __ATOMIC_RELEASE);
    shutdown(conn->fd, SHUT_RDWR);
}

/*
 * Queues what is left of a frame (tx_lock held): the header always by value
 * (it is the caller's copy), the payload copied unless it is referenced.
 */
static int tx_enqueue(struct emu_conn *conn, const struct iovec *vec, int first, int count,
                      void (*release)(void *), void *arg)
{
    size_t left = 0, at = 0;
    struct wire_tx *t;

    for (int i = first; i < count; i++)
        left += vec[i].iov_len;
    t = malloc(sizeof(*t) + (release == NULL ? left : 0));
    if (t == NULL)
        return ENOMEM;
    t->next = NULL;
    t->release = release;
    t->arg = arg;
    t->first = 0;
    t->count = 0;
    for (int i = first; i < count; i++) {
        if (release == NULL) {
            memcpy(t->data + at, vec[i].iov_base, vec[i].iov_len);
        } else if (i == 0) {
            uint8_t *tail = (uint8_t *)&t->hdr + (sizeof(t->hdr) - vec[0].iov_len);

            memcpy(tail, vec[0].iov_base, vec[0].iov_len);
            t->iov[t->count++] = (struct iovec){tail, vec[0].iov_len};
        } else {
            t->iov[t->count++] = vec[i];
        }
        at += vec[i].iov_len;
    }
    if (release == NULL)
        t->iov[t->count++] = (struct iovec){t->data, left};
    if (conn->tx_tail != NULL)
        conn->tx_tail->next = t;
    else
        conn->tx_head = t;
    conn->tx_tail = t;
    __atomic_add_fetch(&conn->tx_bytes, left, __ATOMIC_RELAXED);
    /* Corked: the uncork sends it, with the frames queued after it. */
    if (!conn->tx_armed && conn->tx_corked == 0) {
        conn->tx_armed = true;
        wire_conn_watch(conn, true);
    }
    return 0;
}

int emu_conn_send(struct emu_conn *conn, const struct emu_wire_hdr *hdr, const struct iovec *iov,
                  int iovcnt, void (*release)(void *arg), void *arg)
{
    struct iovec vec[1 + EMU_WIRE_MAX_IOV];
    struct emu_wire_hdr h = *hdr;
    int count = 1, first = 0, err = 0;

    if (iovcnt > EMU_WIRE_MAX_IOV) {
        if (release != NULL)
            release(arg);
        return EINVAL;
    }
    if (wire_loses(conn->wire, hdr)) {
        if (release != NULL)
            release(arg);
        return 0;
    }
    vec[0] = (struct iovec){&h, sizeof(h)};
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len != 0)
            vec[count++] = iov[i];
    }
    pthread_mutex_lock(&conn->tx_lock);
    if (emu_conn_dead(conn)) {
        err = EPIPE;
    } else if (conn->tx_head == NULL && conn->tx_corked == 0) {
        if (tx_sendv(conn->fd, vec, &first, count) < 0)
            err = errno;
    }
    /* sendmsg fails only when nothing of this call left: EFAULT leaves the stream intact. */
    if (err == 0 && first < count) {
        err = tx_enqueue(conn, vec, first, count, release, arg);
        if (err == 0) {
            pthread_mutex_unlock(&conn->tx_lock);
            return 0;
        }
        tx_break(conn); /* out of memory with the frame perhaps half sent */
    } else if (err != 0 && err != EFAULT) {
        /* The peer went away: its last frames are read, then the connection is dropped. */
        __atomic_store_n(&conn->hung_up, true, __ATOMIC_RELEASE);
        err = EPIPE;
    }
    pthread_mutex_unlock(&conn->tx_lock);
    if (release != NULL)
        release(arg);
    if (err != 0)
        EMU_LOG_DBG("wire send to endpoint %u failed: %s", conn->peer_ep, strerror(err));
    return err;
}

/*
 * Sends what the queue holds, many frames to a system call, until the
 * socket is full (tx_lock held). false: the connection failed (logged).
 */
static bool tx_flush_locked(struct emu_conn *conn)
{
    while (conn->tx_head != NULL) {
        struct iovec vec[TX_GATHER_IOV];
        int count = 0, first = 0;
        ssize_t sent;
        size_t left;

        for (struct wire_tx *t = conn->tx_head; t != NULL; t = t->next) {
            if (count + (t->count - t->first) > TX_GATHER_IOV)
                break;
            for (int i = t->first; i < t->count; i++)
                vec[count++] = t->iov[i];
        }
        sent = tx_sendv(conn->fd, vec, &first, count);
        if (sent < 0) {
            if (errno == EFAULT)
                EMU_LOG_ERR("device %s: a frame's payload became unreadable while it was "
                            "sent; the connection to endpoint %u is closed",
                            conn->wire->name, conn->peer_ep);
            else /* the peer went away: what it sent before is read first (emu_wire_event) */
                __atomic_store_n(&conn->hung_up, true, __ATOMIC_RELEASE);
            return false;
        }
        __atomic_sub_fetch(&conn->tx_bytes, (size_t)sent, __ATOMIC_RELAXED);
        /* The frames the bytes sent cover leave the queue; the first one not all sent stays. */
        for (left = (size_t)sent; conn->tx_head != NULL;) {
            struct wire_tx *t = conn->tx_head;

            while (t->first < t->count && left >= t->iov[t->first].iov_len)
                left -= t->iov[t->first++].iov_len;
            if (t->first < t->count) {
                t->iov[t->first].iov_base = (char *)t->iov[t->first].iov_base + left;
                t->iov[t->first].iov_len -= left;
                break;
            }
            conn->tx_head = t->next;
            if (conn->tx_head == NULL)
                conn->tx_tail = NULL;
            tx_release(t);
        }
        if (first < count)
            break; /* the socket is full again */
    }
    return true;
}

bool wire_tx_flush(struct emu_conn *conn)
{
    bool ok, drained = false;

    pthread_mutex_lock(&conn->tx_lock);
    ok = tx_flush_locked(conn);
    if (ok && conn->tx_head == NULL && conn->tx_armed) {
        conn->tx_armed = false;
        wire_conn_watch(conn, false);
        drained = true;
    }
    pthread_mutex_unlock(&conn->tx_lock);
    if (drained)
        conn->wire->cfg.ops->writable(conn);
    return ok;
}

void emu_conn_cork(struct emu_conn *conn)
{
    pthread_mutex_lock(&conn->tx_lock);
    conn->tx_corked++;
    pthread_mutex_unlock(&conn->tx_lock);
}

void emu_conn_uncork(struct emu_conn *conn)
{
    bool was_full = emu_conn_tx_full(conn), drained = false;

    pthread_mutex_lock(&conn->tx_lock);
    if (--conn->tx_corked == 0 && conn->tx_head != NULL && !emu_conn_dead(conn)) {
        if (!tx_flush_locked(conn)) {
            /* An unreadable payload (a peer gone is seen by the loop). */
            if (!__atomic_load_n(&conn->hung_up, __ATOMIC_ACQUIRE))
                tx_break(conn);
        } else if (conn->tx_head != NULL && !conn->tx_armed) {
            conn->tx_armed = true;
            wire_conn_watch(conn, true);
        } else {
            drained = conn->tx_head == NULL && !conn->tx_armed;
        }
    }
    pthread_mutex_unlock(&conn->tx_lock);
    /* Senders held back by the full queue go on: no writable event will come for it. */
    if (drained && was_full)
        conn->wire->cfg.ops->writable(conn);
}

void wire_tx_discard(struct emu_conn *conn)
{
    struct wire_tx *t;

    pthread_mutex_lock(&conn->tx_lock);
    t = conn->tx_head;
    conn->tx_head = conn->tx_tail = NULL;
    __atomic_store_n(&conn->tx_bytes, 0, __ATOMIC_RELAXED);
    if (conn->tx_armed) {
        conn->tx_armed = false;
        wire_conn_watch(conn, false);
    }
    pthread_mutex_unlock(&conn->tx_lock);
    while (t != NULL) {
        struct wire_tx *next = t->next;

        tx_release(t);
        t = next;
    }
}

bool emu_conn_tx_full(const struct emu_conn *conn)
{
    return __atomic_load_n(&conn->tx_bytes, __ATOMIC_RELAXED) > TX_HIGH_BYTES;
}
