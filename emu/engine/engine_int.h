/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the engine's files (requester, responder, completions). */
#ifndef EMU_ENGINE_INT_H
#define EMU_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/proto.h"

struct emu_qp;
struct emu_conn;
struct emu_pending;

/* qp->lock held for all of these. */
void engine_cqe_resp(struct emu_qp *qp, uint8_t opcode, uint32_t wqe_index, uint32_t byte_cnt,
                     uint32_t imm, uint32_t src_qpn, bool solicited);
void engine_cqe_resp_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome);
uint32_t engine_rq_posted(const struct emu_qp *qp);
/* Pops completed WQEs from the head of the pending ring, writing their CQEs. */
void engine_complete(struct emu_qp *qp);
struct emu_pending *engine_pending_find(struct emu_qp *qp, uint32_t psn);

/* A frame header with the common fields filled (network order). */
/* How long a request waits for its response before it is resent (or fails, retries spent). */
uint64_t engine_retry_period_ns(const struct emu_qp *qp);

void engine_hdr_init(struct emu_wire_hdr *h, uint8_t type, uint32_t src_qpn, uint32_t dst_qpn,
                     uint32_t psn);

/* Progress thread: a response (ACK, NAK, READ_RESP, ATOMIC_RESP) for requester qp. */
int engine_response(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h);

/*
 * Bytes of the atomic segment after the remote-address segment of an atomic
 * WQE (opcode, opmod): 16, or 32 for an 8-byte masked compare-swap; 0 when
 * the pair names no atomic the device executes.
 */
uint32_t engine_atomic_seg_bytes(uint8_t opcode, uint8_t opmod);

/* The RNR NAK timer value in nanoseconds (IB encoding of min_rnr_timer). */
uint64_t engine_rnr_delay_ns(uint8_t timer);

#endif /* EMU_ENGINE_INT_H */
