/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's own structures and the calls its files make to each other. */
#ifndef EMU_ENGINE_INT_H
#define EMU_ENGINE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "engine/engine.h"
#include "nic/gpu_ipc.h"
#include "nic/mr.h"
#include "prm/mlx5_wqe.h"
#include "wire/wire.h"

struct emu_nic;
struct emu_qp;
struct emu_pending;
struct direct_page;
struct engine_dc_ctx;
struct engine_sgl;

/* A device's engine (nic->engine). */
#define ENGINE_CQ_HELD_MAX 16

/*
 * Writes from peers' GPU references whose device-to-device copies are
 * issued but not yet waited for (gpu_defer.c): their targets' keys stay
 * held, and their ACKs leave only once the copies are complete.
 */
#define ENGINE_GPU_DEFER_MAX 16
struct engine_gpu_defer {
    struct emu_gpu_ipc_defer ipc;
    struct emu_mr *mr[ENGINE_GPU_DEFER_MAX]; /* held, each once */
    unsigned int mr_n;
    struct {
        struct emu_qp *qp;
        struct emu_conn *out; /* where its ACKs leave */
    } writer[ENGINE_GPU_DEFER_MAX];
    unsigned int writer_n;
};

struct emu_engine {
    struct emu_nic *nic;
    struct emu_wire *wire;
    int epfd;    /* the loop's epoll set: the wake fd and the wire's sockets */
    int wake_fd; /* eventfd: timers or watched UARs changed */
    pthread_t thread;
    /*
     * Held by whoever handles received frames, timers and WAITs: the loop
     * thread, or a thread polling an empty CQ (emu_engine_poll).
     */
    pthread_mutex_t rx_lock;
    int inflight;             /* executed, uncompleted WQEs (atomic) */
    int peered;               /* QPs connected to a peer: requests may go out (atomic) */
    int uar_watchers;         /* QPs and CQs rung through UAR pages: the loop polls them (atomic) */
    int waiting;              /* send queues stalled on a WAIT WQE (atomic) */
    int wait_signal;          /* a CQE was written while some SQ waits (atomic) */
    int tx_stalled;           /* send queues held back by a full transmit queue (atomic) */
    int err_rqs;              /* QPs in ERR whose newly posted receives the loop flushes (atomic) */
    int cq_errors;            /* a CQ in error, or a GPU write lost: the loop fails QPs (atomic) */
    uint64_t gpu_ref_bytes;   /* bytes copied from peers' GPU references (atomic) */
    uint64_t last_flush_ns;   /* those last checked (rx_lock) */
    struct engine_conn *owed; /* connections holding back ACKs (rx_lock) */
    uint64_t last_timer_ns;   /* retransmit timers last run (rx_lock) */
    uint64_t last_wait_ns;    /* stalled WAITs last checked (rx_lock) */
    /* CQs of GPU rings holding CQEs until the batch of work ends (cqe.c, rx_lock). */
    struct emu_cq *cq_held[ENGINE_CQ_HELD_MAX];
    unsigned int cq_held_n;
    struct engine_gpu_defer gpu_defer; /* (rx_lock) */
    /* Requests dropped without an answer (UC, UD), by reason (atomic). */
    uint64_t dropped[EMU_DROP_COUNT];
    /* direct.c: the grants of this device's memory to same-host peers (NULL: none). */
    struct direct_page *direct;
    int direct_fd;               /* the memfd the page lives in, offered to peers; -1: none */
    pthread_mutex_t direct_lock; /* grant and revoke */
    struct engine_eth_port *eth; /* eth_port.c: the Ethernet port, or NULL */
    int eth_kick;                /* an SQ's doorbell moved, or an SQ became ready (atomic) */
};

/* ---- cqe.c ---- */
/*
 * A batch of the engine's work (rx_lock held): CQEs this thread writes to
 * rings in GPU memory until engine_cqe_batch_end are held and written
 * together then, a CUDA copy's wait for many instead of one each.
 */
void engine_cqe_batch_begin(struct emu_engine *e);
void engine_cqe_batch_end(struct emu_engine *e);
/* Writes one CQE to cq (held until the batch's end for a GPU ring), as every completion does. */
struct prm_cqe64;
struct emu_cq;
void engine_cqe_push(struct emu_engine *e, struct emu_cq *cq, const struct prm_cqe64 *cqe,
                     uint8_t op_own, bool solicited);

/* ---- eth_port.c: the Ethernet port (SOFTMLX5_ETH) ---- */
struct engine_eth_port;
/* Attaches the device's port to interface ifname (loop_start); errno-style, logged. */
int engine_eth_open(struct emu_engine *e, const char *ifname);
/* The packet socket is readable or writable (receive lock held). */
void engine_eth_event(struct emu_engine *e, uint32_t events);
/* Runs the send queues that doorbells moved (receive lock held); true when work is left. */
bool engine_eth_tx(struct emu_engine *e);
/* In the child of fork(): the parent's packet socket is closed (the child's devices are new). */
void engine_eth_forget(struct emu_engine *e);

/* ---- gpu_defer.c (rx_lock held) ---- */
/*
 * A WRITE's payload from a peer's GPU reference into t (GPU memory),
 * copied without a wait: t's keys move into the engine's deferred set (t is
 * left empty) and the ACK that out owes for it must follow
 * engine_gpu_settle. Results as engine_sgl_copy_gpu_ref.
 */
int engine_gpu_write_defer(struct emu_qp *qp, struct emu_conn *out, struct engine_sgl *t,
                           const struct emu_gpu_ref *ref, uint32_t len);
/*
 * Waits for the deferred copies and lets their keys go. A copy that failed
 * loses its writes: their QPs' owed ACKs are withdrawn and the loop moves
 * the QPs to ERR with QP_FATAL.
 */
void engine_gpu_settle(struct emu_engine *e);

/* ---- loop.c ---- */
/* Wakes the loop: it recomputes its timeout (timers armed, UARs watched, WAITs). */
void engine_kick(struct emu_engine *e);
/* A WQE was executed (+1) or completed (-1); the loop runs timers while any is outstanding. */
void engine_inflight(struct emu_engine *e, int delta);
/* A QP was connected to a peer (+1) or let go of it (-1): the loop beats while any is. */
void engine_peered(struct emu_engine *e, int delta);
/* Calls check(qp, arg) with qp->lock held for every QP; runs the SQ again when it says so. */
void engine_each_qp(struct emu_nic *nic, bool (*check)(struct emu_qp *qp, void *arg), void *arg);

/*
 * Below this size a message goes through the socket, or directly into the
 * peer's memory (direct.c), even when the peer could read it: a
 * process_vm_readv call of its own costs more than riding in the
 * responder's bulk read with other frames.
 */
#define ENGINE_PULL_MIN_BYTES 4096u

/* ---- sgl.c: gather/scatter lists of held keys ---- */
#define ENGINE_SGL_MAX EMU_WIRE_MAX_IOV

struct engine_sgl {
    struct iovec iov[ENGINE_SGL_MAX];  /* host address of each entry (GPU: NULL) */
    struct emu_mr *mr[ENGINE_SGL_MAX]; /* NULL: inline data in iov */
    uint64_t iova[ENGINE_SGL_MAX];
    int count;
    uint32_t bytes;
    bool gpu; /* some entry is GPU memory */
    bool app; /* some entry is application host memory reached through a key */
};

/* Adds [iova, iova + len) through key, held; EMU_MR_OUT_OF_RANGE when the list is full too. */
enum emu_mr_check engine_sgl_hold(struct engine_sgl *s, struct emu_qp *qp, uint32_t key,
                                  uint64_t iova, uint32_t len, int access);
/* Adds bytes the device owns (inline data). false: the list is full. */
bool engine_sgl_inline(struct engine_sgl *s, void *data, uint32_t len);
void engine_sgl_release(struct engine_sgl *s);
/* EFAULT when some application entry is not mapped any more (checked before host accesses). */
int engine_sgl_mapped(const struct engine_sgl *s);
/* Copies len bytes from src into the list / the whole list into dst; errno-style, never faults. */
int engine_sgl_scatter(const struct engine_sgl *s, const void *src, uint32_t len);
int engine_sgl_gather(const struct engine_sgl *s, void *dst);
/*
 * Copies len bytes at a peer's GPU reference into s, GPU to GPU (gpu_ipc.h):
 * 0; ENOTSUP, nothing written, when some entry of s is not GPU memory or the
 * reference cannot be opened here; EIO. defer: the copies are issued into
 * that set and may still run on return (NULL: complete on return).
 */
int engine_sgl_copy_gpu_ref(const struct engine_sgl *s, const struct emu_gpu_ref *ref, uint32_t len,
                            struct emu_gpu_ipc_defer *defer);
/* A heap copy whose keys stay held until engine_sgl_free (a wire release callback). */
struct engine_sgl *engine_sgl_dup(const struct engine_sgl *s);
void engine_sgl_free(void *sgl);

/* ---- requester.c ---- */
/* A send WQE as fetched from the ring. */
struct engine_wqe {
    uint8_t buf[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE];
    uint8_t opcode, opmod, fm_ce_se;
    uint32_t ds, bbs;
    uint32_t imm; /* as stored (wire order) */
};
/*
 * Reads the send WQE at index (at most `avail` basic blocks are published
 * from it); errno-style: EINVAL when its size is 0 or runs past `avail`.
 * With `ahead` (the requester, sq_lock held) a ring in GPU memory is read
 * in one copy for every published WQE, and later WQEs come from that copy.
 */
int engine_wqe_fetch(struct emu_qp *qp, uint32_t index, uint32_t avail, bool ahead,
                     struct engine_wqe *w);
/* Executes the published send WQEs (any thread; never waits for the responder). */
void engine_sq_run(struct emu_qp *qp);
/*
 * Where a send WQE's remote-address (or, for a send, data) segments begin:
 * after the control segment, and the XRC segment of an XRC QP or the
 * datagram segment of a DCI.
 */
uint32_t engine_wqe_remote_off(const struct emu_qp *qp);
/* Bytes of the atomic segment after the remote-address segment (0: no atomic executed). */
uint32_t engine_atomic_seg_bytes(uint8_t opcode, uint8_t opmod);
bool engine_needs_response(uint8_t opcode);
/* A WAIT-stalled SQ is armed (qp->lock held): every CQE written wakes the loop to retry it. */
void engine_wait_arm(struct emu_qp *qp, bool on);

/* ---- recv.c: receive WQEs (receive lock and qp->lock held) ---- */
/* The largest receive WQE the responder reads (512 bytes of 16-byte segments). */
#define ENGINE_RECV_WQE_MAX (16u << 9)
/* The next receive WQE (RQ or SRQ) copied into wqe; its index, or -1 when none is posted. */
int64_t engine_recv_take(struct emu_qp *qp, uint8_t *wqe, uint32_t *first_seg);
/* Puts back the receive WQE engine_recv_take just returned (a message lost after all). */
void engine_recv_untake(struct emu_qp *qp, uint32_t index);
/* Bytes of one receive WQE of the QP (its SRQ's, if it has one). */
uint32_t engine_recv_stride(const struct emu_qp *qp);
/* The SRQ receives come from: the QP's, or an XRC target's for this request (NULL: the RQ). */
struct emu_srq *engine_recv_srq(const struct emu_qp *qp);
/* The PD that memory keys of requests to the QP must belong to (an XRC target: its SRQ's). */
struct emu_pd *engine_qp_pd(const struct emu_qp *qp);
/* The receive WQE's scatter list held for len bytes. Returns 0 or a PRM syndrome. */
uint8_t engine_recv_scatter(struct emu_qp *qp, const uint8_t *wqe, uint32_t first, uint32_t len,
                            struct engine_sgl *t);
/* A receive-consuming request failed at the responder: error CQE, QP to ERR. */
void engine_recv_fail(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome);

/* ---- datagram.c: UD ---- */
/*
 * A UD send WQE's datagram segment: the request header's destination,
 * Q_Key and sender fields, and *conn a reference to the destination's
 * device (NULL: unreachable, the datagram is lost). 0 or a PRM syndrome.
 */
uint8_t engine_dg_build(struct emu_qp *qp, const struct engine_wqe *w, struct emu_wire_hdr *h,
                        struct emu_conn **conn);
/* Bytes from the WQE's start to its data segments (control and datagram segments). */
uint32_t engine_dg_data_offset(void);
/* A datagram for UD QP qp (receive lock held): placed after its GRH, or dropped and counted. */
int engine_dg_request(struct emu_qp *qp, const struct emu_wire_hdr *h, const uint8_t *payload,
                      struct emu_wire_sink *sink);

/* ---- dc.c: DC (Dynamically Connected) ---- */
/*
 * A DCI's send WQE w (no lock held, the requester's sq_lock): connects the
 * DCI to the DCT its datagram segment names unless it is connected there
 * already (*switched: it was not). Another DCT waits until every earlier
 * request completed (*stall). Returns 0 or a PRM syndrome for the WQE.
 */
uint8_t engine_dci_route(struct emu_qp *qp, const struct engine_wqe *w, bool *stall,
                         bool *switched);
/* A DC_CONNECT frame for DCT qp (NULL: no such QP) from conn; -1 drops the connection. */
int engine_dc_connect(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h);
/* A request for DCT qp: answered in the state its DCI's DC_CONNECT set up. */
int engine_dct_request(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                       const uint8_t *payload, struct emu_wire_sink *sink);
/* A request for qp (NULL: none), which is no DCT: true when a DCI sent it (NAKed here). */
bool engine_dc_unknown(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h);
/* The connection's DC state is freed. */
void engine_dc_conn_free(struct engine_conn *ec);

/* Counts a request dropped without an answer (a datagram, or a UC message). */
void engine_drop(struct emu_nic *nic, enum emu_drop why);

/* ---- responder.c / completer.c / rx_dispatch.c (receive lock held) ---- */
/* Whether a QP in this state takes requests (RTR and after). */
bool engine_resp_state_ok(uint8_t state);
/* A large frame whose payload is arriving into held memory. */
struct engine_rx {
    bool active;
    bool response; /* a READ_RESP into a requester's buffers; else a request's target */
    uint32_t qpn;  /* looked up again when the payload is in */
    uint32_t srqn; /* an XRC target's SRQ, looked up again likewise (0: none) */
    uint32_t psn;
    uint32_t len;
    int64_t rindex;        /* the receive WQE the request consumed, or -1 */
    struct engine_sgl sgl; /* where the payload goes */
    uint8_t *bounce;       /* GPU memory in sgl: the payload lands here first */
};

/* The engine's state of one connection. */
struct engine_conn {
    struct emu_conn *conn;
    struct engine_conn *owed_next; /* the engine's list of held-back ACKs (rx_lock) */
    bool owed_listed;
    bool ack_now;     /* an owed ACK was asked for at once (EMU_WIRE_F_ACK_REQ) */
    uint64_t owed_ns; /* when the held-back ACKs were first owed */
    /*
     * ACKs owed for data frames of the batch being received: one per QP,
     * sent when the batch ends or before any other answer, so a stream of
     * writes costs one ACK per batch instead of one per frame.
     */
    struct {
        uint32_t qpn;
        uint32_t remote_qpn;
        uint32_t psn;
    } acks[16];
    int ack_count;
    int ack_frames;     /* frames acknowledged by the owed ACKs */
    uint32_t ack_bytes; /* and their payload bytes */
    struct engine_rx rx;
    struct engine_dc_ctx *dc; /* dc.c: the DC initiators talking to our DC targets over it */
    uint32_t dc_count, dc_cap;
};

/*
 * A large payload is to arrive into rx's held memory: conn's rx state is set
 * and the sink pointed at it (a bounce buffer for GPU memory). 0, or -1 (the
 * memory released) to drop the connection.
 */
int engine_rx_start(struct emu_conn *conn, const struct engine_rx *rx, struct emu_wire_sink *sink);
/* After the payload: GPU data moved into place, keys released; errno-style. */
int engine_rx_finish(struct engine_rx *rx, int err);
int engine_request(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                   const uint8_t *payload, struct emu_wire_sink *sink);
/* A request for a connected QP (RC, UC, XRC, a DCT with its DCI's state loaded). */
int engine_resp_connected(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                          const uint8_t *payload, struct emu_wire_sink *sink);
int engine_request_done(struct emu_conn *conn, const struct emu_wire_hdr *h, int err);
int engine_response(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                    const uint8_t *payload, struct emu_wire_sink *sink);
int engine_response_done(struct emu_conn *conn, const struct emu_wire_hdr *h, int err);
/* Sends the ACKs owed on conn (before another answer, or when they are due). */
void engine_ack_flush(struct emu_conn *conn);
/* A receive batch ended: owed ACKs leave now if asked for at once, else soon (engine_acks_due). */
void engine_batch_end(struct emu_conn *conn);
/*
 * Sends the held-back ACKs asked for at once or owed for at least max_age_ns
 * (at the end of each turn of the loop); the age of the oldest left, or 0.
 */
uint64_t engine_acks_due(struct emu_engine *e, uint64_t now, uint64_t max_age_ns);
void engine_acks_forget(struct emu_engine *e, struct engine_conn *ec);
/* The engine's state of a connection (created on first use); NULL when out of memory. */
struct engine_conn *engine_conn_of(struct emu_conn *conn);
/* Retransmit and RNR timers of every QP; a lost connection's QPs fail. */
void engine_timers(struct emu_nic *nic, uint64_t now_ns);
void engine_conn_lost(struct emu_nic *nic, struct emu_conn *conn);
/* SQs stalled on a full transmit queue of conn (NULL: any) run again. */
void engine_tx_resume(struct emu_nic *nic, struct emu_conn *conn);
/* SQs stalled on a WAIT check their CQ again. */
void engine_waits(struct emu_nic *nic);
/* Receives posted to QPs in ERR (DevX rings: software only moves the doorbell record) flushed. */
void engine_err_rqs(struct emu_nic *nic);
/* QPs whose CQ is in error or whose GPU write was lost enter ERR with QP_FATAL (engine_qp_fatal).
 */
void engine_cq_errors(struct emu_nic *nic);

/* ---- atomics.c ---- */
struct engine_atomic_op {
    uint8_t op;    /* PRM_WQE_OPCODE_ATOMIC_* */
    uint32_t size; /* operand bytes: 4 or 8 */
    uint64_t swap_add, compare, swap_mask, compare_mask;
};
/*
 * Executes the atomic on [raddr, raddr + size) of the held registration mr
 * (device-wide order); *orig_raw gets the original contents as stored.
 * errno-style: EFAULT when the target is not mapped (nothing changed).
 */
int engine_atomic_exec(const struct engine_atomic_op *a, struct emu_mr *mr, uint64_t raddr,
                       uint8_t *orig_raw);

/* ---- direct.c: direct writes between devices of one host ---- */
/*
 * Makes the device's grant page (e->direct, e->direct_fd, which the caller
 * set to -1 before); its memfd, or -1 (no direct writes: the socket carries
 * them).
 */
int engine_direct_init(struct emu_engine *e);
/* A WRITE into target t (one host key) was executed for qp from conn: grant it (qp->lock held). */
void engine_direct_grant(struct emu_qp *qp, struct emu_conn *conn, const struct engine_sgl *t);
/* The QP's grants end (it was modified, failed or destroyed); returns once no peer uses them. */
void engine_direct_revoke_qp(struct emu_qp *qp);
/*
 * Writes the WRITE of header h from l straight into the peer's memory
 * (qp's requester, nothing of the QP outstanding, its connection alive).
 * false: not done that way (no grant, too large, GPU memory, a fault):
 * send it as a frame.
 */
bool engine_direct_write(struct emu_qp *qp, const struct emu_wire_hdr *h,
                         const struct engine_sgl *l);

/* ---- qp_state.c ---- */
/* The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), host order; 0 for any other GID. */
uint32_t engine_gid_ipv4(const uint8_t gid[16]);
/*
 * Moves qp (lock held) to ERR: one error CQE (syndrome, unless 0) for the
 * pending WQE at the head, flush CQEs for the rest of the SQ and the RQ.
 */
void engine_qp_fail(struct emu_qp *qp, uint8_t syndrome);
/* qp (lock held) has failed beyond repair (why, and what the owner should do): QP_FATAL, then ERR.
 */
void engine_qp_fatal(struct emu_qp *qp, const char *why, const char *fix);
/* Pops completed WQEs from the head of the pending ring, writing their CQEs (qp->lock held). */
void engine_complete(struct emu_qp *qp);
struct emu_pending *engine_pending_find(struct emu_qp *qp, uint32_t psn);
/* Receive WQEs software posted (the doorbell record's receive counter). */
uint32_t engine_rq_posted(const struct emu_qp *qp);
/* How long a request waits for its response before it is resent (or fails, retries spent). */
uint64_t engine_retry_period_ns(const struct emu_qp *qp);
/* The RNR NAK timer value in nanoseconds (IB encoding of min_rnr_timer). */
uint64_t engine_rnr_delay_ns(uint8_t timer);

/* ---- cqe.c (qp->lock held or requester context) ---- */
void engine_cqe_req(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint32_t byte_cnt);
void engine_cqe_req_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t opcode, uint8_t syndrome);
/* flags_rqpn: the source QPN, with (UD) the L3 header type and SL (prm/mlx5_cqe.h). */
void engine_cqe_resp(struct emu_qp *qp, uint8_t opcode, uint32_t wqe_index, uint32_t byte_cnt,
                     uint32_t imm, uint32_t flags_rqpn, uint16_t slid, bool solicited);
void engine_cqe_resp_err(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome);

#endif /* EMU_ENGINE_INT_H */
