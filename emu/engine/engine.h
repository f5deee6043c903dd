/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: executes send WQEs from rings (requester), executes incoming
 * requests against memory keys and receive queues (responder), completes
 * work with CQE64s, and moves queue pairs to the error state with flushes.
 * Standard-verbs and DevX queue pairs are the same to it.
 */
#ifndef EMU_ENGINE_H
#define EMU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/proto.h"

struct emu_nic;
struct emu_qp;
struct emu_conn;

/* Requester: executes the send WQEs published so far (any thread; never blocks on the responder).
 */
void emu_engine_sq_run(struct emu_qp *qp);

/* Progress thread: one received frame (header already checked for format); 0, or -1 to drop conn.
 */
int emu_engine_rx(struct emu_conn *conn, const struct emu_wire_hdr *hdr);

/* Sends the ACKs owed on conn (end of a receive batch; rx_lock held). */
void emu_engine_ack_flush(struct emu_conn *conn);

/*
 * WAIT: a send queue stalled on a WAIT WQE is armed (qp->wait_active,
 * counted in wire->waiting); each CQE the device writes while any is armed
 * raises wire->wait_signal and wakes the progress thread, which calls
 * emu_engine_waits() to run the armed send queues again (and does so every
 * millisecond while any is armed). qp->lock held for emu_engine_wait_arm.
 */
void emu_engine_wait_arm(struct emu_qp *qp, bool on);
void emu_engine_waits(struct emu_nic *nic);

/* Progress thread: retry and RNR timers of every QP of the device. */
void emu_engine_timers(struct emu_nic *nic, uint64_t now_ns);

/* Progress thread: conn is gone; QPs with work outstanding on it complete with retry-exceeded. */
void emu_engine_conn_lost(struct emu_nic *nic, struct emu_conn *conn);

/* Moves qp (lock held) to ERR: one error CQE (syndrome, unless 0) for the pending WQE at the
 * head, flush CQEs for the rest of the SQ and the RQ. */
void emu_engine_qp_fail(struct emu_qp *qp, uint8_t syndrome);

/* Flush CQEs for every receive WQE posted and not consumed (qp->lock held, QP in ERR). */
void emu_engine_rq_flush(struct emu_qp *qp);

/* Completion-queue entries of a QP (qp->lock held or requester context). */
void emu_engine_cqe_req(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint32_t byte_cnt);
void emu_engine_cqe_req_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode,
                            uint8_t syndrome);

/* The device-wide lock that makes atomics atomic with respect to each other. */
void emu_engine_atomic_lock(void);
void emu_engine_atomic_unlock(void);

#endif /* EMU_ENGINE_H */
