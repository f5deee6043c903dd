/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire: how a software device reaches the devices of other processes.
 * Each device owns an endpoint with a host-unique id (1..255) and listens on
 * the abstract Unix socket "softmlx5/<ipv4 hex>/<id>"; binding that name is
 * what reserves the id, and the kernel frees it when the process ends. When
 * the device's address is not a loopback one it also listens on TCP port
 * EMU_WIRE_TCP_PORT_BASE + id of that address, for devices of other hosts.
 *
 * A progress thread per device waits in epoll on these sockets (and polls
 * UAR doorbells while any UAR is watched): it executes incoming requests
 * (the responder), completes requests on their responses, and runs timers.
 */
#ifndef EMU_WIRE_H
#define EMU_WIRE_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire/proto.h"

struct emu_nic;

#define EMU_WIRE_MAX_ENDPOINTS 255

struct emu_conn {
    struct emu_wire *wire;
    int fd;
    uint32_t peer_ipv4; /* host order; valid once identified */
    uint16_t peer_ep;
    bool identified;
    bool dead;   /* set by the progress thread; atomic access */
    bool local;  /* abstract Unix socket: the peer is a process of this host */
    bool dialer; /* this side connected (and sent HELLO) */
    /*
     * Single copy (proto.h): pull_pid is the peer's process once this side
     * read its probe word (pull frames from it are accepted then);
     * peer_pulls is set once the peer read ours (the requester may send
     * pull frames; atomic access). Both are set by the progress thread.
     */
    int pull_pid;
    bool peer_pulls;
    bool pull_offered; /* this side sent its offer (acceptor: in PULL_OK) */
    bool pull_ok_seen; /* a PULL_OK arrived (one per side at most) */
    int refs;          /* guarded by wire->lock */
    pthread_mutex_t send_lock;
    uint8_t *rbuf; /* bytes received and not parsed yet (progress thread only) */
    size_t rlen, roff;
    /*
     * ACKs owed for data frames of the batch being received (under rx_lock):
     * one per QP, sent when the batch ends or before any other response, so
     * a stream of writes costs one ACK per batch instead of one per frame.
     */
    struct {
        uint32_t qpn;
        uint32_t remote_qpn;
        uint32_t psn;
    } acks[16];
    int ack_count;
    int ack_frames;        /* frames acknowledged by the owed ACKs */
    uint32_t ack_bytes;    /* and their payload bytes */
    struct emu_conn *next; /* wire's list (guarded by wire->lock) */
};

struct emu_wire {
    struct emu_nic *nic;
    int listen_fd; /* abstract Unix socket of this endpoint */
    int tcp_fd;    /* TCP listener, -1 on a loopback address */
    int epfd;
    int wake_fd;
    pthread_t thread;
    pthread_mutex_t lock; /* conns */
    /*
     * Held by whoever processes received frames and timers: the progress
     * thread, or a thread polling a CQ that found it empty (progress on poll,
     * so that busy pollers do not starve the progress thread of a CPU).
     */
    pthread_mutex_t rx_lock;
    struct emu_conn *conns;
    uint64_t last_scan_ns;      /* timers last run (under rx_lock) */
    struct emu_conn *graveyard; /* dropped; freed by the progress thread (under rx_lock) */
    uint64_t rejected;          /* malformed frames (atomic) */
    uint64_t pulled;            /* bytes read from peers' memory by single copy (atomic) */
    int inflight;               /* executed, uncompleted WQEs on the device (atomic) */
    int uar_watchers;           /* UARs whose doorbells the progress thread polls (atomic) */
    int waiting;                /* send queues stalled on a WAIT WQE (atomic; engine.h) */
    int wait_signal;            /* a CQE was written while some SQ waits (atomic) */
    uint64_t last_wait_scan_ns; /* stalled WAITs last checked (under rx_lock) */
    uint64_t inline_poll_ns;    /* last time a CQ poller did the device's work (atomic) */
};

/*
 * In the child of fork(): closes the descriptors the child inherited from the
 * parent's wire (the parent keeps its endpoint); the structure is left as is,
 * its locks may be held by parent threads that do not exist in the child.
 */
void emu_wire_abandon(struct emu_wire *wire);

/* Reserves an endpoint id for the device and starts its wire and progress thread. errno-style. */
int emu_wire_start(struct emu_nic *nic);

/* Fills a sockaddr_un for endpoint `id` at address `ipv4`; returns its length. */
unsigned int emu_wire_endpoint_addr(void *sockaddr_un, uint32_t ipv4, uint16_t id);

/*
 * A connection to endpoint `ep` at `ipv4` (host order; 0 or a loopback or
 * our own address: this host), existing or new; the caller owns a reference.
 */
int emu_wire_connect(struct emu_nic *nic, uint32_t ipv4, uint16_t ep, struct emu_conn **conn_out);
void emu_conn_get(struct emu_conn *conn);
void emu_conn_put(struct emu_conn *conn);

/* Sends one frame: the header (converted by the caller) and its payload; errno-style. */
int emu_conn_send(struct emu_conn *conn, const struct emu_wire_hdr *hdr, const struct iovec *iov,
                  int iovcnt);

/* Progress thread: receives the current frame's payload into iov / discards it; errno-style. */
int emu_conn_recv(struct emu_conn *conn, const struct iovec *iov, int iovcnt);
int emu_conn_discard(struct emu_conn *conn, size_t len);

/* Counts a malformed frame on conn, logs the first one, and marks the connection for closing. */
void emu_wire_reject(struct emu_conn *conn, const char *why, uint64_t value);

/* Returns once no thread is working on frames or timers started before the call. */
void emu_wire_quiesce(struct emu_nic *nic);

/* Does the progress thread's work that is ready now, unless another thread is doing it. */
void emu_wire_progress_poll(struct emu_nic *nic);

/* Wakes the progress thread (timers changed, UAR watched). */
void emu_wire_kick(struct emu_nic *nic);

/* A UAR starts (+1) or stops (-1) being watched: the progress thread polls while any is. */
void emu_wire_uar_watch(struct emu_nic *nic, int delta);

/* Malformed frames received by the device (exported for tests, under SOFTMLX5_PRIVATE). */
uint64_t emu_wire_rejected_frames(struct ibv_device *device);

/* Bytes the device read from peers' memory by single copy (exported for tests, likewise). */
uint64_t emu_wire_pulled_bytes(struct ibv_device *device);

/* Once per process, at wire start: lets peers read our memory unless SOFTMLX5_SINGLE_COPY=0. */
void emu_wire_single_copy_init(void);

/* Puts this process's single-copy offer (pid, probe word) into a HELLO or PULL_OK header. */
void emu_wire_pull_offer(struct emu_wire_hdr *h);

/* Checks the offer in h by reading the peer's probe word: the peer's pid, or 0 when unreadable. */
int emu_wire_pull_probe(const struct emu_wire_hdr *h);

/*
 * Progress thread: reads the requester's buffers `remote` (in the process
 * conn->pull_pid) into the checked host buffers `local`, of the same total
 * length; errno-style (EFAULT, ESRCH, EPERM: nothing outside `local` is written).
 */
int emu_conn_pull(struct emu_conn *conn, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote);

/* Wire-internal: wraps a connected socket and watches it (conn.c); the progress thread. */
int emu_wire_conn_add(struct emu_wire *wire, int fd, bool tcp, struct emu_conn **conn_out);
void *emu_wire_progress(void *arg);

/* Monotonic time in nanoseconds. */
uint64_t emu_now_ns(void);

#endif /* EMU_WIRE_H */
