/* SPDX-License-Identifier: BSD-3-Clause */
/* The wire's own structures, shared by its files (endpoint, conn, rx, tx, pull). */
#ifndef EMU_WIRE_INT_H
#define EMU_WIRE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "wire/wire.h"

/* What an epoll event of the wire names: a listener or a connection. */
enum wire_source_kind { WIRE_SRC_LISTEN_UNIX, WIRE_SRC_LISTEN_TCP, WIRE_SRC_CONN };

struct wire_source {
    enum wire_source_kind kind;
};

/* One frame waiting in a transmit queue. */
struct wire_tx {
    struct wire_tx *next;
    struct emu_wire_hdr hdr;
    struct iovec iov[1 + EMU_WIRE_MAX_IOV]; /* [0] the header; not yet sent from `first` */
    int first, count;
    void (*release)(void *arg);
    void *arg;
    uint8_t data[]; /* the payload, when it was copied */
};

/* The large frame whose payload is being received into its sink. */
struct wire_rx_payload {
    bool active;
    struct emu_wire_hdr h;
    struct emu_wire_sink sink;
    int at;      /* sink entry being filled */
    size_t left; /* payload bytes still to come */
    int err;     /* EFAULT: the sink could not be written; the rest is discarded */
};

struct emu_conn {
    struct wire_source src; /* first: epoll data.ptr */
    struct emu_wire *wire;
    int fd;
    uint32_t peer_ipv4; /* host order; valid once identified */
    uint16_t peer_ep;
    bool identified;
    bool dead; /* no more frames in or out (atomic access) */
    /*
     * A send found the peer gone: nothing more goes out, but what it sent
     * before it left is still read, up to the end of the stream (atomic).
     */
    bool hung_up;
    bool dropped;     /* taken off the wire (receive lock) */
    bool local;       /* abstract Unix socket: the peer is a process of this host */
    int peer_pid;     /* local: the peer's process (SO_PEERCRED, our pid namespace); 0: unknown */
    bool gpu_refused; /* the peer answered an F_GPU request with NAK_RESEND (atomic) */
    bool dialer;      /* this side connected (and sent HELLO) */
    /*
     * Single copy (proto.h): pull_pid is the peer's process once this side
     * read its probe word (pull frames from it are accepted then);
     * peer_pulls is set once the peer read ours (atomic access).
     */
    int pull_pid;
    bool peer_pulls;
    bool pull_offered; /* this side sent its offer (acceptor: in PULL_OK) */
    bool pull_ok_seen; /* a PULL_OK arrived (one per side at most) */
    void *peer_share;  /* the peer's shared file, mapped once pull_pid is known (atomic) */
    size_t peer_share_len;
    int refs;   /* guarded by wire->lock */
    void *user; /* the owner's per-connection state */

    /* Receive side (receive lock). */
    uint8_t *rbuf;
    size_t rlen, roff;
    struct wire_rx_payload rx;

    /* Transmit side. */
    pthread_mutex_t tx_lock;
    struct wire_tx *tx_head, *tx_tail;
    size_t tx_bytes;       /* queued (atomic reads) */
    bool tx_armed;         /* EPOLLOUT requested (tx_lock) */
    int tx_corked;         /* emu_conn_cork calls not yet uncorked (tx_lock) */
    struct emu_conn *next; /* wire's list (wire->lock) */
};

struct emu_wire {
    struct emu_wire_config cfg;
    char name[64];
    uint16_t id;
    struct wire_source listen_src, tcp_src;
    int listen_fd;        /* abstract Unix socket of this endpoint */
    int tcp_fd;           /* TCP listener, -1 on a loopback address */
    pthread_mutex_t lock; /* conns, refs, graveyard */
    struct emu_conn *conns;
    struct emu_conn *graveyard; /* dropped; freed by emu_wire_reap */
    uint64_t rejected;          /* malformed frames (atomic) */
    uint64_t pulled;            /* bytes read from peers' memory by single copy (atomic) */
    uint64_t pushed;            /* bytes written into peers' memory (atomic) */
    uint32_t lose;              /* data requests still to be lost (loss.c, atomic) */
};

/* conn.c */
/* The endpoint a connection was dialed to (NULL for an accepted one: its HELLO says). */
struct wire_peer {
    uint32_t ipv4;
    uint16_t ep;
};
int wire_conn_add(struct emu_wire *wire, int fd, bool tcp, const struct wire_peer *dialed,
                  struct emu_conn **conn_out);
void wire_conn_drop(struct emu_conn *conn);
void wire_conn_watch(struct emu_conn *conn, bool out);
bool wire_hello(struct emu_conn *conn, const struct emu_wire_hdr *h);
bool wire_pull_ok(struct emu_conn *conn, const struct emu_wire_hdr *h);

/* rx.c: reads and delivers what arrived; false: drop the connection. */
bool wire_rx(struct emu_conn *conn);

/* tx.c: sends what the queue holds; false: drop the connection. Frees the queue. */
bool wire_tx_flush(struct emu_conn *conn);
void wire_tx_discard(struct emu_conn *conn);

/* loss.c: whether the frame is lost on its way (a lossy link for tests; counts it). */
bool wire_loses(struct emu_wire *wire, const struct emu_wire_hdr *h);

/* pull.c */
void wire_pull_init(const struct emu_wire_config *cfg);
/* Our offer (pid, probe word, shared file) into a HELLO or PULL_OK. */
void wire_pull_offer(const struct emu_wire *wire, struct emu_wire_hdr *h);
/*
 * Reads the probe word a peer's offer h names: its pid when the word holds
 * the offered value (the peer's shared file, if offered, is then mapped),
 * else 0.
 */
int wire_pull_probe(struct emu_conn *conn, const struct emu_wire_hdr *h);

/* share.c: the peer's shared file, offered in h, mapped once its process pid proved readable. */
void wire_share_map(struct emu_conn *conn, int pid, const struct emu_wire_hdr *h);
void wire_share_unmap(struct emu_conn *conn);

#endif /* EMU_WIRE_INT_H */
