/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events of a device (ibv_get_async_event): affiliated ones
 * (a QP, CQ or SRQ of one context: QP access error, last WQE reached, CQ
 * error, SRQ limit reached, ...) go to the context that made the object;
 * port events go to every context of the device. Each context has a queue
 * and an eventfd (its async_fd, counting queued events: poll and blocking
 * reads work as with rdma-core). DevX objects have no verbs context and get
 * no such events.
 */
#ifndef EMU_NIC_ASYNC_EVENT_H
#define EMU_NIC_ASYNC_EVENT_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_nic;

/* What an event names: its element is a QP, a CQ, an SRQ, or a port number. */
enum emu_async_kind { EMU_ASYNC_QP, EMU_ASYNC_CQ, EMU_ASYNC_SRQ, EMU_ASYNC_PORT };

enum emu_async_kind emu_async_kind_of(enum ibv_event_type type);

/* The QP, CQ or SRQ handle an event names; NULL for a port event. */
void *emu_async_element(const struct ibv_async_event *ev);

/* Registers ctx for events: its async fd, or -1 with errno set. */
int emu_async_open(struct emu_nic *nic, struct ibv_context *ctx);

/* Forgets ctx (its queued events are dropped) and closes its fd. */
void emu_async_close(struct emu_nic *nic, struct ibv_context *ctx);

/*
 * An affiliated event for element (the ibv_qp / ibv_cq / ibv_srq handle) of
 * ctx; nothing when ctx is NULL (a DevX object) or the object is being
 * destroyed. A full queue loses the event, logged.
 */
void emu_async_raise(struct emu_nic *nic, struct ibv_context *ctx, enum ibv_event_type type,
                     void *element);

/* A port event, to every context of the device. */
void emu_async_raise_port(struct emu_nic *nic, enum ibv_event_type type, int port);

/* The oldest queued event of ctx (after its fd was read): 0, or EAGAIN when none is queued. */
int emu_async_pop(struct emu_nic *nic, struct ibv_context *ctx, struct ibv_async_event *event);

/*
 * Destroying element: its queued events are dropped and no new one is
 * queued until emu_async_gone; *closing is the caller's (on its stack).
 */
struct emu_async_closing {
    const void *element;
    struct emu_async_closing *next;
};
void emu_async_closing(struct emu_nic *nic, const void *element, struct emu_async_closing *closing);
void emu_async_gone(struct emu_nic *nic, struct emu_async_closing *closing);

#endif /* EMU_NIC_ASYNC_EVENT_H */
