/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A queue pair as the device sees it (RC, UC, UD, XRC, DCI or DCT:
 * prm_qp_transport.h). An XRC initiator QP has a send queue and no receive
 * queue; an XRC target QP (p.xrcd set) has neither, no PD and no CQs: each
 * request names an XRC SRQ of its domain, whose PD, receive WQEs and CQ
 * serve it.
 * Its work queues are rings of mlx5 WQEs in host or GPU memory, laid out as
 * on ConnectX: the receive queue at the start of the buffer, the send queue
 * after it; the doorbell record holds two big-endian counters, [0] receive,
 * [1] send. The device executes send WQEs between its consumer index and the
 * producer index software published (doorbell record, or the doorbell value
 * itself in no-DBR mode), and consumes receive WQEs as requests arrive.
 *
 * The standard-verbs path (abi/) writes WQEs into the rings exactly as
 * libmlx5 does and then rings the doorbell; DevX (devx/) creates the same
 * object from PRM commands. The engine (engine/) drives it and cannot tell
 * them apart; this file only holds its state.
 *
 * States use the PRM encoding (prm_qp.h: RST 0, INIT 1, RTR 2, RTS 3,
 * SQER 4, ERR 6).
 */
#ifndef EMU_QP_H
#define EMU_QP_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_nic;
struct emu_pd;
struct emu_cq;
struct emu_srq;
struct emu_uar;
struct emu_peer;
struct emu_xrcd;

struct emu_qp_params {
    uint8_t st;             /* service type, PRM_QP_ST_* (RC, UC, UD, XRC, DCI, DCT) */
    struct emu_pd *pd;      /* NULL for an XRC target QP */
    struct emu_cq *send_cq; /* NULL for an XRC target QP */
    struct emu_cq *recv_cq; /* NULL for an XRC target QP */
    struct emu_srq *srq;    /* receives come from the SRQ instead of the RQ */
    struct emu_xrcd *xrcd;  /* an XRC target QP's domain, or NULL */
    uint32_t log_sq_size;   /* send WQE slots of 64 bytes (basic blocks) */
    uint32_t log_rq_size;   /* receive WQEs; 0 entries when rq_size_zero */
    bool rq_size_zero;      /* no receive queue (DevX rq_wr = 0) */
    uint32_t log_rq_stride; /* receive WQE size = 16 << log_rq_stride bytes */
    uintptr_t wq;           /* RQ then SQ */
    bool wq_gpu;
    uintptr_t dbrec;
    bool dbrec_gpu;
    struct emu_uar *uar; /* where software rings this QP's doorbell (NULL: direct) */
    bool no_dbr;         /* send producer index comes from the doorbell value only */
    uint32_t user_index;
};

/* Attributes carried by the transitions, as the PRM QP context holds them. */
struct emu_qp_attr {
    /* RST2INIT */
    uint8_t port;
    uint16_t pkey_index;
    bool remote_read;   /* rre */
    bool remote_write;  /* rwe */
    bool remote_atomic; /* rae */
    uint32_t qkey;      /* UD: the Q_Key datagrams must carry */
    /* INIT2RTR */
    uint32_t remote_qpn;
    uint32_t rq_psn;
    uint8_t path_mtu; /* enum ibv_mtu: 1 = 256 .. 5 = 4096 */
    bool grh;
    uint8_t rgid[16];
    uint16_t rlid;
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint8_t traffic_class;
    uint8_t sl;
    uint8_t min_rnr_timer;
    uint8_t max_dest_rd_atomic;
    /* RTR2RTS */
    uint32_t sq_psn;
    uint8_t ack_timeout; /* 4.096 us << ack_timeout */
    uint8_t retry_count;
    uint8_t rnr_retry;
    uint8_t max_rd_atomic;
};

/* One send WQE on its way: executed, not yet completed. */
struct emu_pending {
    uint32_t wqe_index;  /* basic-block counter of the WQE's first BB */
    uint32_t next_index; /* basic-block counter after the WQE */
    uint32_t psn;
    uint32_t byte_count;
    uint64_t deadline_ns; /* retry-exceeded after this */
    uint8_t opcode;       /* PRM_WQE_OPCODE_* */
    bool signaled;        /* the WQE asked for a CQE */
    bool needs_response;  /* read or atomic: data comes back */
    bool done;            /* acknowledged, answered, or failed */
    uint8_t syndrome;     /* failed with this PRM CQE syndrome (0: success) */
};

struct emu_conn;
struct emu_qp_wr;
struct prm_qp_transport;

struct emu_qp {
    union {
        struct ibv_qp ibv;       /* standard-verbs handle; unused for DevX QPs */
        struct ibv_qp_ex ibv_ex; /* the same handle extended (qp_base is ibv): ibv_wr_* calls */
    };
    struct emu_nic *nic;
    uint32_t qpn;
    uint32_t async_delivered; /* async events ibv_get_async_event handed out for it */
    bool comm_est;            /* COMM_EST raised since the last reset (engine, qp->lock) */
    bool gpu_write_lost;      /* a write's GPU copy failed after it was taken (engine, atomic) */
    const struct prm_qp_transport *tp; /* of p.st */
    uint8_t state;                     /* PRM_QP_STATE_* (guarded by lock) */
    struct emu_qp_params p;
    struct emu_qp_attr attr;
    struct emu_conn *peer; /* the wire connection to the remote QP's device (from RTR) */

    pthread_mutex_t lock; /* state, pending ring, responder, RQ consumption */
    pthread_mutex_t
            sq_lock;    /* the requester executing send WQEs (never waits for `lock` holders) */
    bool sq_rerun;      /* more work arrived while sq_lock was held (guarded by lock) */
    uint32_t sq_posted; /* producer counter published by software (basic blocks) */
    /*
     * Send WQEs of a ring in GPU memory read ahead by the requester in one
     * copy (sq_lock; emptied at reset): basic blocks [start, start + count).
     */
    struct {
        uint8_t *buf;
        uint32_t start, count;
    } sq_ahead;
    uint32_t sq_consumer; /* next send WQE (basic-block counter) the device executes */
    uint32_t rq_consumer; /* next receive WQE the device consumes */
    uint32_t next_psn;    /* requester */
    /*
     * Requester, after a rewind: WQEs before resend_end are executed again
     * and must take the PSNs they took the first time (so none of them is
     * written directly, which takes none).
     */
    uint32_t resend_end;
    bool resending;
    uint32_t expected_psn;       /* responder */
    struct emu_pending *pending; /* ring of executed, uncompleted WQEs */
    uint32_t pending_head, pending_tail, pending_size;
    uint32_t reads_in_flight;  /* reads and atomics awaiting their response */
    uint32_t rnr_retries_left; /* of the request waiting out an RNR NAK */
    uint32_t retries_left;     /* transport retries of the oldest unanswered request */
    uint64_t rnr_resume_ns;    /* 0, or when to resend (after an RNR NAK or a transport timeout) */
    bool resp_discard;         /* responder: NAKed expected_psn, drops later requests */
    bool wait_active;          /* the SQ is stalled on a WAIT WQE (guarded by lock) */
    bool tx_stalled;           /* the SQ waits for its connection's transmit queue (lock) */
    bool rq_err_watch;         /* in ERR: receives posted are flushed by the loop (lock) */
    struct emu_srq
            *rx_srq; /* XRC target: the SRQ of the request executing (lock; set per request) */
    struct emu_last_atomic { /* responder: the last atomic executed, for a resent request */
        bool valid;
        uint8_t size;
        uint32_t psn;
        uint8_t orig[8];
    } last_atomic;
    /*
     * DC (engine/dc.c). A DCT: its access key. A DCI: the DCT it is
     * connected to (valid), at that IPv4 address (0: this host), with that key.
     */
    struct {
        uint64_t key;
        uint32_t dctn;
        uint32_t ipv4;
        bool valid;
    } dc;

    /* Standard-verbs provider state (like libmlx5's): work request ids by WQE index. */
    pthread_mutex_t post_lock;
    uint64_t *sq_wrid;
    uint32_t *sq_wqe_next; /* basic-block counter after the WQE starting at an index */
    uint64_t *rq_wrid;
    uint32_t sq_producer; /* basic blocks posted */
    uint32_t sq_tail;     /* basic blocks completed (free for reuse) */
    uint32_t rq_producer;
    uint32_t rq_tail;
    bool sq_sig_all;
    uint32_t max_inline;
    uint32_t max_send_sge;
    uint32_t max_recv_sge;
    uint32_t max_send_wr;
    uint32_t max_recv_wr;
    struct emu_qp_wr *wr; /* the ibv_wr_* builder of a QP made with send_ops_flags, or NULL */
    void *wq_alloc;       /* buffers the provider allocated */
    void *dbrec_alloc;
    int ibv_access; /* IBV_ACCESS_* as last set, for ibv_query_qp */
    struct ibv_ah_attr ah_attr;
};

/* Creates the QP in RST (QPN assigned); errno-style. The engine drives it from then on. */
int emu_qp_create(struct emu_nic *nic, const struct emu_qp_params *p, struct emu_qp **qp_out);

/* Takes the QP out of the device's table (no lookup finds it); emu_qp_free then frees it. */
void emu_qp_unlist(struct emu_qp *qp);
void emu_qp_free(struct emu_qp *qp);

/* The QP with this number on this device, or NULL. Caller holds nic->lock. */
struct emu_qp *emu_qp_lookup(struct emu_nic *nic, uint32_t qpn);

/* Size in bytes of one receive WQE. */
static inline uint32_t emu_qp_rq_stride(const struct emu_qp *qp)
{
    return 16u << qp->p.log_rq_stride;
}

/* Address of the send queue (after the receive queue in the work-queue buffer). */
static inline uintptr_t emu_qp_sq_base(const struct emu_qp *qp)
{
    uint32_t rq_bytes =
            qp->p.rq_size_zero || qp->p.srq ? 0 : (emu_qp_rq_stride(qp) << qp->p.log_rq_size);

    return qp->p.wq + rq_bytes;
}

#endif /* EMU_QP_H */
