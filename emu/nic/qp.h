/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An RC queue pair as the device sees it. Its work queues are rings of mlx5
 * WQEs in host or GPU memory, laid out as on ConnectX: the receive queue at
 * the start of the buffer, the send queue after it; the doorbell record holds
 * two big-endian counters, [0] receive, [1] send. The device executes send
 * WQEs between its consumer index and the producer index software published
 * (doorbell record, or the doorbell value itself in no-DBR mode), and
 * consumes receive WQEs as requests arrive.
 *
 * The standard-verbs path (abi/) writes WQEs into the rings exactly as
 * libmlx5 does and then rings the doorbell; DevX (devx/) creates the same
 * object from PRM commands. The engine (engine/) cannot tell them apart.
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

struct emu_qp_params {
    struct emu_pd *pd;
    struct emu_cq *send_cq;
    struct emu_cq *recv_cq;
    struct emu_srq *srq;    /* receives come from the SRQ instead of the RQ */
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

/* One send WQE waiting for its response (ACK, read data, atomic result). */
struct emu_pending {
    uint16_t wqe_index;
    uint8_t opcode; /* PRM_WQE_OPCODE_* */
    bool signaled;  /* the WQE asked for a CQE */
    uint32_t psn;
    uint64_t deadline_ns; /* retry-exceeded after this */
    /* Where a read's data or an atomic's original value lands (first SGE for atomics). */
    uint32_t sge_count;
    struct {
        uint32_t lkey;
        uint64_t addr;
        uint32_t length;
    } sge[30];
    uint32_t byte_count;
};

struct emu_qp {
    struct ibv_qp ibv; /* standard-verbs handle; unused for DevX QPs */
    struct emu_nic *nic;
    uint32_t qpn;
    uint8_t state; /* PRM_QP_STATE_* */
    struct emu_qp_params p;
    struct emu_qp_attr attr;
    struct emu_peer *peer; /* the wire connection to the remote QP's device (from RTR) */

    pthread_mutex_t lock;        /* everything below, and the engine's work on this QP */
    uint32_t sq_consumer;        /* next send WQE (basic-block index) the device executes */
    uint32_t rq_consumer;        /* next receive WQE the device consumes */
    uint32_t next_psn;           /* requester */
    uint32_t expected_psn;       /* responder */
    struct emu_pending *pending; /* ring of outstanding requests */
    uint32_t pending_head, pending_tail, pending_size;

    /* Standard-verbs provider state (like libmlx5's): work request ids by WQE index. */
    uint64_t *sq_wrid;
    uint64_t *rq_wrid;
    uint32_t sq_producer; /* basic blocks posted */
    uint32_t rq_producer;
    bool sq_sig_all;
    uint32_t max_inline;
};

/* Creates the QP in RST (QPN assigned); errno-style. */
int emu_qp_create(struct emu_nic *nic, const struct emu_qp_params *p, struct emu_qp **qp_out);

/* errno-style; the QP's outstanding work is dropped without completions. */
int emu_qp_destroy(struct emu_qp *qp);

/* The QP with this number on this device, or NULL. Caller holds nic->lock. */
struct emu_qp *emu_qp_lookup(struct emu_nic *nic, uint32_t qpn);

/*
 * Moves the QP from state `from` to state `to` with the attributes the
 * transition carries (PRM semantics: RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS,
 * RTS2RTS, SQERR2RTS, any->ERR, any->RST). EINVAL for an illegal transition
 * or when the QP is not in `from`. Entering ERR flushes outstanding and
 * posted work with flush-error CQEs; entering RST resets the queues.
 */
int emu_qp_transition(struct emu_qp *qp, uint8_t from, uint8_t to, const struct emu_qp_attr *attr);

/*
 * Software published send WQEs up to producer (basic-block count, mod 2^16
 * as in the doorbell record): the engine executes them. Called by the
 * standard post_send in the caller's thread and by the UAR poller.
 */
void emu_qp_sq_doorbell(struct emu_qp *qp, uint32_t producer);

#endif /* EMU_QP_H */
