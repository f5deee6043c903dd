/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: what makes the device a device. Each device has an event loop
 * of its own (loop.c) that owns its wire, its doorbells, its timers and its
 * completions, so requests are executed, responses written into registered
 * memory, CQEs written and WAITs released whether or not the application
 * calls into the library: it may poll its CQ, block on a completion
 * channel, or spin on memory. A thread that polls an empty CQ may do the
 * ready work inline (emu_engine_poll), which only saves a wake-up.
 *
 *   requester.c    send WQEs from the ring, one request frame each
 *   responder.c    incoming requests against keys, receive queues and memory
 *   atomics.c      the atomic operations and the device-wide atomic order
 *   completer.c    responses that complete requests; retransmit timers
 *   rx_dispatch.c  the wire's callbacks: frames to the responder or completer
 *   qp_state.c     QP creation, transitions, the error states and their flushes
 *   recv.c         receive WQEs: taken, scattered into, failed
 *   datagram.c     UD: datagram segments, GRHs, Q_Keys
 *   cqe.c          completion entries
 *   sgl.c          gather/scatter lists of held memory keys
 *   doorbell.c     doorbells: standard post_send and UAR pages
 *   direct.c       small writes placed straight into a same-host peer's memory
 *   eth_port.c     the Ethernet port: raw Ethernet SQs and RQs on a packet socket
 *
 * Standard-verbs and DevX queue pairs are the same to it. emu/nic holds the
 * state it drives; emu/wire carries its frames.
 */
#ifndef EMU_ENGINE_H
#define EMU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

struct emu_nic;
struct emu_qp;
struct emu_qp_params;
struct emu_qp_attr;
struct emu_srq;

/* A context is opened: the first one starts the device's engine and wire. errno-style. */
int emu_engine_open(struct emu_nic *nic);

/* Does the device work that is ready now, unless another thread is doing it (CQ pollers). */
void emu_engine_poll(struct emu_nic *nic);

/* Creates a QP in RST (QPN assigned) / destroys it (outstanding work dropped); errno-style. */
int emu_engine_qp_create(struct emu_nic *nic, const struct emu_qp_params *p,
                         struct emu_qp **qp_out);
int emu_engine_qp_destroy(struct emu_qp *qp);
/*
 * Destroys an SRQ once the receive side no longer uses it (an XRC SRQ is
 * looked up per request); EBUSY while QPs use it.
 */
int emu_engine_srq_destroy(struct emu_srq *srq);

/*
 * Moves the QP from state `from` to state `to` with the attributes the
 * transition carries (PRM semantics, prm_qp_transition.h). EINVAL for an
 * illegal transition or when the QP is not in `from`. Entering ERR flushes
 * outstanding and posted work with flush-error CQEs; entering RST resets
 * the queues once no requester runs.
 */
int emu_engine_qp_modify(struct emu_qp *qp, uint8_t from, uint8_t to,
                         const struct emu_qp_attr *attr);

/*
 * Software published send WQEs up to producer (basic-block count, mod 2^16
 * as in the doorbell record): the requester executes them now, in the
 * caller's thread, as far as it can without waiting. false: the QP is in
 * RESET, where a doorbell is dropped.
 */
bool emu_engine_sq_doorbell(struct emu_qp *qp, uint32_t producer);

/*
 * Something other than a QP is rung through a UAR page (a DevX CQ's arm
 * doorbell): while any is, the loop polls the pages. on: one more; else one fewer.
 */
void emu_engine_uar_watch(struct emu_nic *nic, bool on);

/*
 * A memory key was deregistered: peers' direct writes through it end
 * (direct.c); returns once none is in progress.
 */
void emu_engine_direct_revoke_key(struct emu_nic *nic, uint32_t key);

/*
 * For tests (SOFTMLX5_PRIVATE): malformed frames received, bytes read from
 * and written into peers' memory by single copy.
 */
struct ibv_device;
uint64_t emu_wire_rejected_frames(struct ibv_device *device);
uint64_t emu_wire_pulled_bytes(struct ibv_device *device);
uint64_t emu_wire_pushed_bytes(struct ibv_device *device);
/* For tests: bytes copied GPU to GPU from same-host peers' GPU memory (CUDA IPC). */
uint64_t emu_gpu_ref_bytes(struct ibv_device *device);

/*
 * Why a request was dropped without an answer (UC and UD responders never
 * answer): counted per device, for tests (emu_rx_dropped).
 */
enum emu_drop {
    EMU_DROP_NO_QP,     /* a request for a QPN the device does not have (any more) */
    EMU_DROP_NOT_READY, /* the QP does not receive (RESET, INIT, ERR) */
    EMU_DROP_QKEY,      /* a datagram whose Q_Key is not the QP's */
    EMU_DROP_TOO_LONG,  /* a datagram larger than the port MTU */
    EMU_DROP_NO_RECV,   /* no receive WQE posted */
    EMU_DROP_PSN_GAP,   /* UC: a PSN gap (messages before it were lost) */
    EMU_DROP_REFUSED,   /* UC: a key, access or placement check failed */
    EMU_DROP_MISMATCH,  /* a request of another service type, or not from the remote QP */
    EMU_DROP_GONE,      /* a same-host request whose sender process exited before we read it */
    EMU_DROP_COUNT
};
uint64_t emu_rx_dropped(struct ibv_device *device, int why);
/* For tests: the device's next `frames` data request frames are lost on the wire. */
int emu_wire_lose_frames(struct ibv_device *device, uint32_t frames);

/*
 * Raw Ethernet send queues (nic/eth.h, engine/eth_port.c): the UAR
 * watcher's callback when an SQ's producer moved (sq is a struct
 * emu_eth_sq), and a nudge when an SQ became ready: the loop runs them.
 */
void emu_engine_eth_sq_rung(void *sq, uint32_t producer);
void emu_engine_eth_kick(struct emu_nic *nic);

/* Flush CQEs for every receive WQE posted and not consumed (qp->lock held, QP in ERR). */
void emu_engine_rq_flush(struct emu_qp *qp);

#endif /* EMU_ENGINE_H */
