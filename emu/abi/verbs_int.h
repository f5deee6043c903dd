/* SPDX-License-Identifier: BSD-3-Clause */
/* Operations of the standard-verbs provider that the context's tables point to. */
#ifndef EMU_ABI_VERBS_INT_H
#define EMU_ABI_VERBS_INT_H

#include <infiniband/verbs.h>
#include <stdint.h>

struct emu_qp;

int emu_verbs_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
/* Drops the QP's completions not polled yet (as rdma-core's mlx5 does when a QP is reset). */
struct emu_cq;
void emu_verbs_cq_clean(struct emu_cq *cq, uint32_t qpn);
int emu_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *emu_verbs_create_cq_ex(struct ibv_context *context,
                                         struct ibv_cq_init_attr_ex *attr);
/*
 * The send queue of a standard-verbs QP, shared by ibv_post_send and the
 * ibv_wr_* builders (verbs_qp_ex.c); the caller holds qp->post_lock.
 * emu_verbs_sq_ready: EINVAL (logged, naming `call`) unless the QP may send.
 * emu_verbs_sq_put: writes wr's mlx5 WQE into the ring after the producer and
 * advances it (not yet published): 0, EINVAL (logged) or ENOMEM (queue full).
 * emu_verbs_sq_ring: publishes the producer and rings the doorbell.
 */
int emu_verbs_sq_ready(struct emu_qp *qp, const char *call);
int emu_verbs_sq_put(struct emu_qp *qp, const struct ibv_send_wr *wr);
void emu_verbs_sq_ring(struct emu_qp *qp);
int emu_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
/*
 * Fills the address part of a UD WQE's datagram segment (everything but the
 * Q_Key and the destination QPN) from an address handle of context ctx;
 * EINVAL when ah is none of its handles' kind.
 */
struct prm_wqe_datagram_seg;
int emu_verbs_ah_av(struct ibv_context *ctx, struct ibv_ah *ah, struct prm_wqe_datagram_seg *av);
int emu_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int emu_verbs_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
struct ibv_qp *emu_verbs_create_qp_ex(struct ibv_context *context,
                                      struct ibv_qp_init_attr_ex *attr);
/* ibv_get_srq_num (verbs_context op): the SRQ's number; 0 or EINVAL. */
int emu_verbs_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_srq *emu_verbs_create_srq_ex(struct ibv_context *context,
                                        struct ibv_srq_init_attr_ex *attr);
/* The device's domain behind an ibv_open_xrcd handle (verbs_xrcd.c), or NULL for NULL. */
struct emu_xrcd;
struct emu_xrcd *emu_verbs_xrcd_of(struct ibv_xrcd *xrcd);

/*
 * QP states (verbs_modify.c): the device's state (struct emu_qp.state, read
 * under qp->lock) in ibv terms, and the one PRM -> ibv mapping
 * (IBV_QPS_UNKNOWN for a value that is no state).
 */
enum ibv_qp_state emu_verbs_qp_state(struct emu_qp *qp);
enum ibv_qp_state emu_verbs_state_from_prm(uint8_t prm);

/*
 * Before an object's destroy (verbs_async.c): its queued async events are
 * dropped, no new one is queued, and the delivered ones are waited for to be
 * acknowledged, as rdma-core does; emu_async_gone(nic, closing) after it.
 */
#include "nic/async_event.h"
void emu_verbs_async_quiesce(struct emu_nic *nic, enum emu_async_kind kind, void *element,
                             struct emu_async_closing *closing);

/* The fd the device writes a channel's events to (verbs_channel.c). */
int emu_channel_write_fd(struct ibv_comp_channel *channel);

#endif /* EMU_ABI_VERBS_INT_H */
