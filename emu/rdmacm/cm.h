/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's librdmacm.so.1: the connection manager of rdma-core's API over
 * softmlx5's libibverbs. An rdma_cm_id's handshake (REQ, REP, RTU, REJ, DREQ,
 * DREP; cm_msg.h) travels over a TCP connection between the IP addresses and
 * ports the program named, so a listener is a TCP listener on its address and
 * port. One progress thread (progress.c) accepts, reads and times out those
 * sockets and queues events on the ids' channels; every change to ids,
 * channels and events happens under one lock (cm_lock), and no call waits
 * while holding it.
 */
#ifndef EMU_RDMACM_CM_H
#define EMU_RDMACM_CM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "rdmacm/cm_log.h"
#include "rdmacm/cm_msg.h"

/* A local device: its verbs context and the addressing of its port 1. */
struct cm_device {
    struct ibv_context *verbs;
    struct ibv_pd *pd; /* the PD rdma_create_qp uses when given none (made on first use) */
    union ibv_gid gid;
    uint16_t lid;
    uint8_t link_layer;
    uint8_t mtu; /* enum ibv_mtu of the active port */
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
};

enum cm_state {
    CM_IDLE,
    CM_BOUND,
    CM_ADDR_RESOLVED,
    CM_ROUTE_RESOLVED,
    CM_LISTEN,
    CM_CONNECTING,   /* active: TCP connect in progress */
    CM_REQ_SENT,     /* active: waiting for REP or REJ */
    CM_REP_RCVD,     /* active: REP queued, handled when the program takes the event */
    CM_REQ_WAIT,     /* passive: TCP accepted, waiting for the REQ */
    CM_REQ_RCVD,     /* passive: CONNECT_REQUEST delivered, waiting for accept or reject */
    CM_REP_SENT,     /* passive: waiting for RTU */
    CM_CONNECTED,    /* ESTABLISHED */
    CM_DREQ_SENT,    /* rdma_disconnect sent DREQ, waiting for DREP */
    CM_DISCONNECTED, /* DISCONNECTED delivered (or queued) */
    CM_CLOSED,       /* rejected, unreachable or failed: nothing more happens */
};

/* What the progress thread's timer does when an id's deadline passes. */
enum cm_timer {
    CM_TIMER_NONE,
    CM_TIMER_CONNECT,  /* no answer to the connection: UNREACHABLE */
    CM_TIMER_DREP,     /* no DREP: DISCONNECTED anyway */
    CM_TIMER_TIMEWAIT, /* TIMEWAIT_EXIT */
};

/* An event channel: events in order, and an eventfd readable while any is queued. */
struct cm_channel {
    struct rdma_event_channel pub;
    struct cm_channel *prev, *next; /* all live channels */
    struct cm_event *head, *tail;
    unsigned ids;   /* ids on this channel */
    bool signalled; /* the eventfd holds a count */
    bool destroyed; /* the program destroyed it while ids were on it */
    bool sync;      /* the private channel of a synchronous id */
};

struct cm_event {
    struct rdma_cm_event pub;
    struct cm_event *next;
    struct cm_id *owner;
    bool reply;  /* a REP: the QP is connected and RTU sent when the program takes it */
    bool qp_err; /* move the id's QP to ERR when the program takes it (REJECTED) */
    uint8_t pdata[CM_MSG_PDATA_MAX];
};

/* Connection parameters of one side (this id's, or the peer's from its message). */
struct cm_side {
    uint32_t qpn;
    uint32_t psn;
    uint32_t qkey; /* UD */
    union ibv_gid gid;
    uint16_t lid;
    uint8_t link_layer;
    uint8_t mtu;
    uint8_t responder_resources;
    uint8_t initiator_depth;
    uint8_t retry_count;
    uint8_t rnr_retry_count;
    uint8_t flow_control;
    uint8_t srq;
};

struct cm_id {
    struct rdma_cm_id pub;
    struct cm_id *prev, *next; /* all live ids */
    uint64_t serial;           /* the progress thread's handle of the id */
    enum cm_state state;
    struct cm_device *dev;
    struct cm_channel *chan;
    struct cm_id *listen; /* the listener a passive id came from (CONNECT_REQUEST only) */
    int sock;             /* TCP: listener or connection; -1 */
    unsigned refs;        /* events the program holds, plus one while not destroyed */
    bool destroyed;       /* rdma_destroy_id returned; freed at the last ack */
    bool sync;            /* no channel given: calls wait for their event */
    bool own_cqs;         /* rdma_create_qp made the CQs */
    bool disconnect_queued;
    bool req_taken; /* the program took this passive id's CONNECT_REQUEST */
    bool afonly_set;
    int afonly;
    uint8_t tos;
    uint8_t ack_timeout;
    enum cm_timer timer;
    uint64_t deadline_ms;
    struct cm_side local, peer;
    bool peer_known; /* peer holds the REQ's or REP's values */
    struct ibv_sa_path_rec path;
    uint8_t req_pdata[CM_PDATA_SIDR_REQ]; /* rdma_connect's, sent once TCP connects */
    uint8_t req_pdata_len;
    uint8_t rx[sizeof(struct cm_msg)];
    size_t rx_len;
    /* A synchronous listener's rdma_create_ep arguments, for its requests' QPs. */
    struct ibv_pd *ep_pd;
    struct ibv_qp_init_attr *ep_qp_attr;
};

extern pthread_mutex_t cm_lock;

/* RDMA_PS_UDP: UD QPs, whose REQ and REP resolve the peer's QP (SIDR) and connect nothing. */
static inline bool cm_is_ud(const struct cm_id *id)
{
    return id->pub.ps == RDMA_PS_UDP;
}

/* device.c */
int cm_devices_open(void);
struct cm_device *cm_device_of_addr(const struct sockaddr *addr);
/* The GID form of an IP address: the IPv6 address, or ::ffff:<IPv4>. */
int cm_addr_to_gid(const struct sockaddr *addr, union ibv_gid *gid);
void cm_id_set_device(struct cm_id *id, struct cm_device *dev);

/* id.c (cm_lock held unless said) */
struct cm_id *cm_id_of(struct rdma_cm_id *pub);
struct cm_id *cm_id_by_serial(uint64_t serial);
struct cm_id *cm_id_list(void);
/* Frees a passive id the program never saw (closes its connection). */
void cm_id_discard(struct cm_id *id);
struct cm_id *cm_id_new(struct cm_channel *chan, void *context, enum rdma_port_space ps);
void cm_id_put(struct cm_id *id);
void cm_id_close_socket(struct cm_id *id);
void cm_id_set_timer(struct cm_id *id, enum cm_timer timer, unsigned ms);
void cm_id_attach(struct cm_id *id, struct cm_channel *chan);
socklen_t cm_addr_len(const struct sockaddr *addr);
in_port_t cm_addr_port(const struct sockaddr *addr);
void cm_addr_set_port(struct sockaddr *addr, in_port_t port);

/* channel.c (cm_lock held unless said) */
struct cm_channel *cm_channel_new(bool sync);
struct cm_channel *cm_channel_of(struct rdma_event_channel *pub);
struct cm_event *cm_event_queue(struct cm_id *id, enum rdma_cm_event_type type, int status);
void cm_event_set_pdata(struct cm_event *ev, const struct cm_msg *msg, size_t size);
void cm_channel_drop_events(struct cm_channel *chan, struct cm_id *id);
void cm_channel_move_events(struct cm_channel *from, struct cm_channel *to, struct cm_id *id);
void cm_channel_put(struct cm_channel *chan);
/* Waits (cm_lock not held) for the next event of a synchronous id, keeping it in id->event. */
int cm_sync_wait(struct cm_id *id);

/* progress.c */
int cm_progress_watch(struct cm_id *id, uint32_t events);
void cm_progress_unwatch(int fd);
void cm_progress_kick(void);
uint64_t cm_now_ms(void);

/* conn.c: what a message, the end of a connection or a timer does (cm_lock held). */
void cm_conn_on_message(struct cm_id *id, const struct cm_msg *msg);
void cm_conn_on_connected(struct cm_id *id, int err);
void cm_conn_on_lost(struct cm_id *id, int err);
void cm_conn_on_timer(struct cm_id *id);
int cm_conn_take_reply(struct cm_event *ev);

/* qp.c */
/* Move the id's QP (a failure is logged as one of call). */
int cm_qp_modify(struct cm_id *id, enum ibv_qp_state state, const char *call);
int cm_qp_to_err(struct cm_id *id, const char *call);
/* The address of the id's peer, as an RTR or an address handle takes it (the peer known). */
void cm_peer_ah_attr(const struct cm_id *id, struct ibv_ah_attr *ah);

#endif /* EMU_RDMACM_CM_H */
