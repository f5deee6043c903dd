/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DevX data path driven by hand, shared by test_devx_datapath (rings in
 * host memory) and test_devx_gpu_rings (rings in GPU memory): a CQ and an RC
 * QP made with PRM commands, their CQE ring, work queue and doorbell records
 * in one umem, WQEs written with the prm_wqe_* builders, doorbells rung on a
 * DevX UAR, CQEs parsed with the prm_cqe_* accessors. Where the rings live
 * is a dp_mem: every access to them goes through its read and write.
 *
 * The suite runs on a requester QP against a peer QP that is either in the
 * same process or in a child process driven over a socket (dp_peer).
 */
#ifndef DEVX_DP_H
#define DEVX_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devx_test.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

#define DP_BUF_SIZE (1u << 20) /* each QP's data buffer (host memory, ibv_reg_mr) */

extern int dp_passed, dp_failed;

#define DP_CHECK(cond, ...)                                      \
    do {                                                         \
        if (cond) {                                              \
            dp_passed++;                                         \
        } else {                                                 \
            dp_failed++;                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

/* Where the rings and doorbell records live. Writes and reads are complete on return. */
struct dp_mem {
    const char *name;
    void *(*alloc)(size_t size); /* page-aligned; NULL on failure */
    void (*free)(void *addr);
    /* A 4-byte write is a doorbell-record update: ordered after every earlier write. */
    void (*write)(void *dst, const void *src, size_t len);
    /* A 1-byte read is an op_own poll: later reads are ordered after it. */
    void (*read)(void *dst, const void *src, size_t len);
};

/* Ordinary host memory. */
extern const struct dp_mem dp_host_mem;

/*
 * GPU memory (devx_dp_gpu.c; link dgn_internal): cuMemAlloc, synchronous
 * cuMemcpyHtoD/DtoH. Loads the CUDA driver and makes GPU 0's primary context
 * current; NULL with *why set when no GPU can be used.
 */
const struct dp_mem *dp_gpu_mem(const char **why);

struct dp_dev {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    uint32_t pdn;
    union ibv_gid gid;
};

struct dp_qp {
    struct dp_dev *dev;
    const struct dp_mem *mem;
    struct mlx5dv_devx_uar *uar;
    uint8_t *ring; /* umem memory (host or GPU address) */
    size_t ring_size;
    struct mlx5dv_devx_umem *umem;
    struct mlx5dv_devx_obj *cq, *qp;
    uint32_t cqn, qpn;
    uint32_t log_cq, log_sq, log_rq;
    size_t wq_off, cq_dbr_off, qp_dbr_off;
    uint32_t sq_pi;   /* basic blocks posted */
    uint32_t rq_pi;   /* receive WQEs posted */
    uint32_t rq_ci;   /* receive completions seen */
    uint32_t cq_ci;   /* CQEs consumed */
    uint64_t last_db; /* first 8 bytes of the last WQE's control segment */
    bool no_dbr;
    bool no_rq;   /* an XRC initiator: a zero-size receive queue */
    uint8_t *buf; /* data buffer, DP_BUF_SIZE bytes */
    struct ibv_mr *mr;
};

/* What a peer needs to reach a QP. */
struct dp_info {
    uint32_t qpn;
    uint32_t rkey;
    uint64_t addr;
    union ibv_gid gid;
};

/* One WQE to post. */
struct dp_wqe {
    uint8_t opcode; /* PRM_WQE_OPCODE_* */
    bool signaled;
    uint32_t imm_be; /* immediate, big-endian */
    uint64_t raddr;
    uint32_t rkey;
    uint64_t swap_add, compare; /* atomics */
    const void *inline_data;    /* non-NULL: inline write of len bytes */
    uint32_t len;               /* data segment (or inline) length; 0: no data segment */
    uint64_t laddr;             /* data segment address (lkey: the QP's MR) */
};

void dp_open(struct dp_dev *dev);
void dp_close(struct dp_dev *dev);
/* A CQ of 2^log_cq entries and a QP (2^log_sq BBs, 2^log_rq 64-byte receive WQEs); 0 or -1. */
int dp_qp_create(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q, uint32_t log_cq,
                 uint32_t log_sq, uint32_t log_rq, bool no_dbr);
/* The same, with the CQ context's st (PRM: 0x0 not armed, 0x6 / 0x9 armed) at creation. */
int dp_qp_create_st(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q, uint32_t log_cq,
                    uint32_t log_sq, uint32_t log_rq, bool no_dbr, uint32_t cq_st);
/*
 * The same with another service type (qpc.st: PRM_QP_ST_UC, PRM_QP_ST_UD, or
 * PRM_QP_ST_XRC: an XRC initiator, with no receive queue), CQ not armed.
 */
int dp_qp_create_type(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q,
                      uint32_t log_cq, uint32_t log_sq, uint32_t log_rq, uint32_t qp_st);
void dp_qp_destroy(struct dp_qp *q);
void dp_info_of(const struct dp_qp *q, struct dp_info *info);
/* RST->INIT->RTR->RTS towards remote with PRM commands; 0 or -1. */
int dp_qp_connect(struct dp_qp *q, const struct dp_info *remote);
/* A UD QP: RST->INIT (Q_Key qkey, port 1)->RTR->RTS with PRM commands; 0 or -1. */
int dp_qp_ready_ud(struct dp_qp *q, uint32_t qkey);

/* Writes the WQE into the SQ ring (no doorbell); returns its index (the producer counter). */
uint32_t dp_post(struct dp_qp *q, const struct dp_wqe *w);
/*
 * Writes a WQE the caller built, control segment included (its index must be
 * q->sq_pi, its size ds DS, at most 16 basic blocks), into the SQ ring (no
 * doorbell); returns its index.
 */
uint32_t dp_post_raw(struct dp_qp *q, const void *wqe, uint32_t ds);
/* Publishes the WQEs posted so far: doorbell record (unless no-DBR), then the UAR doorbell. */
void dp_ring(struct dp_qp *q);
/* A receive WQE of one data segment (len 0: no segment) into the QP's buffer at off. */
void dp_post_recv(struct dp_qp *q, uint32_t off, uint32_t len);
/* The next CQE within timeout_ms: 1, or 0 on timeout. */
int dp_poll(struct dp_qp *q, struct prm_cqe64 *cqe, int timeout_ms);

/* Test patterns: byte j of a pattern with this seed is seed + (start + j) * 7. */
void dp_fill(uint8_t *p, uint32_t len, uint8_t seed, uint32_t start);
bool dp_check_bytes(const uint8_t *p, uint32_t len, uint8_t seed, uint32_t start);

/* Work the requester asks of its peer. */
enum dp_op {
    DP_OP_FILL,      /* fill [off, off + len) with pattern seed */
    DP_OP_CHECK,     /* check [off, off + len) holds pattern seed */
    DP_OP_SET64,     /* store value at off */
    DP_OP_GET64,     /* load value at off */
    DP_OP_RECV_POST, /* post n receive WQEs for operations first .. first + n - 1 */
    DP_OP_RECV_POLL, /* poll and check the receive completions of those operations */
    DP_OP_QUIT,
};

struct dp_cmd {
    uint32_t op, off, len, seed, first, n;
    uint64_t value;
};

struct dp_reply {
    int32_t ok;
    uint64_t value;
};

struct dp_peer {
    struct dp_qp *local; /* the peer QP in this process, or NULL */
    int sock;            /* otherwise: the child process that owns it */
};

/* Executes a command on the peer's QP (in whichever process owns it). */
void dp_peer_exec(struct dp_qp *q, const struct dp_cmd *c, struct dp_reply *r);
/* The child's side: serves commands until DP_OP_QUIT; 0 or -1 on a broken socket. */
int dp_peer_serve(struct dp_qp *q, int sock);

/* Every check of the data path, from requester a towards the peer at remote. */
void dp_suite(struct dp_qp *a, struct dp_peer *peer, const struct dp_info *remote);

/* Prints "<name>: N passed, N failed"; the exit status. */
int dp_summary(const char *name);

/* Whether the run asks for send queues without doorbell records (SOFTMLX5_NO_DBR=1). */
bool dp_no_dbr_mode(void);

#endif /* DEVX_DP_H */
