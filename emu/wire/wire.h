/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire: a transport of frames (proto.h) between the software devices of
 * this host and of others. It knows endpoints, connections and frames, not
 * queue pairs: its owner (the engine) gives it a small configuration (an
 * address, a name for log lines, an epoll set, callbacks) and is called back
 * for every frame received.
 *
 * Each wire owns an endpoint with a host-unique id (1..255) and listens on
 * the abstract Unix socket "softmlx5/<ipv4 hex>/<id>"; binding that name is
 * what reserves the id, and the kernel frees it when the process ends. When
 * the address is not a loopback one it also listens on TCP port
 * EMU_WIRE_TCP_PORT_BASE + id of that address, for devices of other hosts.
 *
 * Nothing here blocks but connect(): sockets are non-blocking, each
 * connection has a transmit queue that the owner's event loop drains when
 * the socket is writable, and a payload too large to be buffered is read
 * into its destination (a "sink") as it arrives, over as many readiness
 * events as it takes.
 */
#ifndef EMU_WIRE_H
#define EMU_WIRE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire/proto.h"

#define EMU_WIRE_MAX_ENDPOINTS 255
/* A frame whose payload is at most this long is delivered whole, from the receive buffer. */
#define EMU_WIRE_SMALL_PAYLOAD 4096u
/* Entries of a sink, and of a payload handed to emu_conn_send: a WQE's most data segments. */
#define EMU_WIRE_MAX_IOV       PRM_WQE_MAX_DS

struct emu_wire;
struct emu_conn;

/*
 * Where a large frame's payload goes: the receiver's buffers, filled in
 * order. count 0: the payload is discarded. Bytes already read into the
 * receive buffer are copied with copy() (NULL: memcpy), which for the
 * application's memory must not fault the process (0 or EFAULT); the rest
 * is read by the kernel straight into the buffers.
 */
struct emu_wire_sink {
    struct iovec iov[EMU_WIRE_MAX_IOV];
    int count;
    int (*copy)(void *dst, const void *src, size_t len);
};

/* The owner's callbacks, all made with the owner's receive lock held (emu_wire_event). */
struct emu_wire_ops {
    /*
     * A frame, format-checked. Small: payload points at its payload_len
     * bytes and sink is NULL. Large: payload is NULL; the owner fills *sink
     * (or leaves it empty) and payload_done follows once the payload has
     * landed. 0, or -1 to drop the connection.
     */
    int (*frame)(struct emu_conn *conn, const struct emu_wire_hdr *h, const uint8_t *payload,
                 struct emu_wire_sink *sink);
    /* A large frame's payload is in its sink; err: EFAULT when the sink could not be written. */
    int (*payload_done)(struct emu_conn *conn, const struct emu_wire_hdr *h, int err);
    /* The frames of one read batch have been delivered (time to send owed answers). */
    void (*batch_end)(struct emu_conn *conn);
    /* The transmit queue drained: senders held back by emu_conn_tx_full may go on. */
    void (*writable)(struct emu_conn *conn);
    /* The connection is gone; no callback names it afterwards. */
    void (*conn_lost)(struct emu_conn *conn);
};

struct emu_wire_config {
    const char *name; /* for log lines: the device's name */
    uint32_t ipv4;    /* host order */
    int epfd;         /* the owner's epoll set: events with a wire source go to emu_wire_event */
    const struct emu_wire_ops *ops;
    void *user;           /* the owner's, for the callbacks (emu_wire_user) */
    bool single_copy;     /* offer and accept same-host single copy (proto.h) */
    bool may_set_ptracer; /* the user asked for single copy: PR_SET_PTRACER_ANY allowed */
    /*
     * With single copy: a file (memfd) of the owner's that same-host peers
     * which proved they can read this process may map shared (offered with
     * the single-copy offer); -1 for none.
     */
    int share_fd;
};

/* Reserves an endpoint and starts listening; errno-style. *id_out: the endpoint id. */
int emu_wire_start(const struct emu_wire_config *cfg, struct emu_wire **wire_out, uint16_t *id_out);

/*
 * In the child of fork(): closes the descriptors the child inherited (the
 * parent keeps its endpoint); the structure is left as is, its locks may be
 * held by parent threads that do not exist in the child.
 */
void emu_wire_abandon(struct emu_wire *wire);

/* Handles one epoll event whose data.ptr the wire registered (receive lock held). */
void emu_wire_event(struct emu_wire *wire, void *source, uint32_t events);

/* Frees connections dropped so far; only the thread that waits in epoll_wait calls it. */
void emu_wire_reap(struct emu_wire *wire);

void *emu_wire_user(const struct emu_wire *wire);

/* Fills a sockaddr_un for endpoint `id` at address `ipv4`; returns its length. */
unsigned int emu_wire_endpoint_addr(void *sockaddr_un, uint32_t ipv4, uint16_t id);

/*
 * A connection to endpoint `ep` at `ipv4` (host order; 0 or a loopback or
 * our own address: this host), existing or new; the caller owns a reference.
 */
int emu_wire_connect(struct emu_wire *wire, uint32_t ipv4, uint16_t ep, struct emu_conn **conn_out);
/* Another reference to conn, let go of with emu_conn_put. */
void emu_conn_get(struct emu_conn *conn);
void emu_conn_put(struct emu_conn *conn);

struct emu_wire *emu_conn_wire(const struct emu_conn *conn);
uint16_t emu_conn_peer_ep(const struct emu_conn *conn);
/* Nothing more can be sent on it: dropped, rejected, or the peer is gone. */
bool emu_conn_dead(const struct emu_conn *conn);
/* The peer proved it can read our memory: data frames may be sent as pull lists. */
bool emu_conn_peer_pulls(const struct emu_conn *conn);
/* Data frames may carry GPU references (F_GPU): a peer of this host that refused none. */
bool emu_conn_gpu_refs(const struct emu_conn *conn);
/* The peer cannot open GPU references: none is sent on conn any more. */
void emu_conn_gpu_refused(struct emu_conn *conn);
/*
 * The process at the other end of a connection of this host, as this
 * process's pid namespace numbers it (SO_PEERCRED); 0 over TCP or unknown.
 */
int emu_conn_peer_pid(const struct emu_conn *conn);
/* The owner's per-connection state (set once, by the receive side). */
void *emu_conn_user(const struct emu_conn *conn);
void emu_conn_set_user(struct emu_conn *conn, void *user);

/*
 * Sends one frame: the header and the payload iov (at most
 * EMU_WIRE_MAX_IOV entries). What the socket does not take at once waits in
 * the connection's transmit queue, in order. release NULL: the payload is
 * copied when it must wait. Otherwise the payload stays referenced until
 * release(arg), called exactly once, on success or failure, possibly before
 * this returns. errno-style: EFAULT when the payload could not be read and
 * nothing of the frame left (the stream is intact), EPIPE when the
 * connection is dead.
 */
int emu_conn_send(struct emu_conn *conn, const struct emu_wire_hdr *hdr, const struct iovec *iov,
                  int iovcnt, void (*release)(void *arg), void *arg);

/*
 * Between cork and uncork (nested: the last uncork counts) frames sent on
 * conn wait in its queue; the uncork sends them all, as few system calls as
 * the socket takes. For a burst of frames one thread sends at once.
 */
void emu_conn_cork(struct emu_conn *conn);
void emu_conn_uncork(struct emu_conn *conn);

/* The transmit queue holds more than its high mark: a requester should wait for writable(). */
bool emu_conn_tx_full(const struct emu_conn *conn);

/*
 * Reads the requester's buffers `remote` (in the peer's process, once it
 * proved readable) into `local`, of the same total length; errno-style
 * (EFAULT, ESRCH, EPERM: nothing outside `local` is written).
 */
int emu_conn_pull(struct emu_conn *conn, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote);

/*
 * The peer's shared file (its emu_wire_config share_fd), mapped read-write
 * once this side proved it can read the peer; NULL before that or without
 * one. *len: its size. Valid while the caller holds a reference to conn.
 */
void *emu_conn_peer_share(const struct emu_conn *conn, size_t *len);

/*
 * Writes `local` (len bytes in all) to [remote, remote + len) in the peer's
 * process, once this side proved it can read it (as emu_conn_pull);
 * errno-style: EFAULT when either side was not mapped (some bytes may have
 * been written), ESRCH, EPERM.
 */
int emu_conn_push(struct emu_conn *conn, const struct iovec *local, int nlocal, uint64_t remote,
                  size_t len);

/*
 * A lossy link, for tests: the next `frames` data requests (WRITE,
 * WRITE_IMM, SEND, SEND_IMM) this wire sends are lost on their way, as a
 * frame dropped by a switch would be (the sender sees it leave).
 */
void emu_wire_lose(struct emu_wire *wire, uint32_t frames);

/* Counts a malformed frame on conn, logs the first one, and drops the connection. */
void emu_wire_reject(struct emu_conn *conn, const char *why, uint64_t value);

/* Malformed frames received; bytes read from and written to peers' memory by single copy. */
uint64_t emu_wire_rejected(const struct emu_wire *wire);
uint64_t emu_wire_pulled(const struct emu_wire *wire);
uint64_t emu_wire_pushed(const struct emu_wire *wire);

/* Monotonic time in nanoseconds. */
uint64_t emu_now_ns(void);

#endif /* EMU_WIRE_H */
