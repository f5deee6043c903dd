/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the standard-verbs tests: a device context, RC (or UC, UD) QP pairs
 * connected inside one process or across two (fork before opening the
 * device; the peers trade QPN/GID/rkey/address over a socketpair), and
 * completion waiting with a deadline. Tests print "N passed, N failed".
 */
#ifndef VERBS_UTIL_H
#define VERBS_UTIL_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define VU_BUF_SIZE (1u << 20)

struct vu_ctx {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
};

struct vu_end {
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    uint8_t *buf;
    struct ibv_mr *mr;
};

/* What a peer needs to reach an end. */
struct vu_info {
    uint32_t qpn;
    uint32_t rkey;
    uint64_t addr;
    union ibv_gid gid;
};

extern int vu_passed, vu_failed;

#define VU_CHECK(cond, ...)                                      \
    do {                                                         \
        if (cond) {                                              \
            vu_passed++;                                         \
        } else {                                                 \
            vu_failed++;                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

int vu_open(struct vu_ctx *c);
void vu_close(struct vu_ctx *c);
/* A CQ of cqe entries, a QP (send/recv depth sq/rq) and a registered buffer. */
int vu_end_create(struct vu_ctx *c, struct vu_end *e, int cqe, uint32_t sq, uint32_t rq,
                  int access);
/*
 * The same with the QP's capabilities given, made by make_qp (NULL:
 * ibv_create_qp_ex) with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS when send_ops_flags
 * is not 0.
 */
typedef struct ibv_qp *(*vu_make_qp_fn)(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a);
int vu_end_create_ex(struct vu_ctx *c, struct vu_end *e, int cqe, const struct ibv_qp_cap *cap,
                     int access, uint64_t send_ops_flags, vu_make_qp_fn make_qp);
/* The same with a QP of another type (IBV_QPT_UC, IBV_QPT_UD). */
int vu_end_create_type(struct vu_ctx *c, struct vu_end *e, enum ibv_qp_type type, int cqe,
                       uint32_t sq, uint32_t rq, int access);
void vu_end_destroy(struct vu_end *e);
void vu_info_of(struct vu_ctx *c, struct vu_end *e, struct vu_info *info);
/* RESET -> INIT -> RTR towards the remote; qp_access for the QP. */
int vu_connect_rtr(struct vu_end *e, const struct vu_info *remote, int qp_access);
/* RESET -> INIT -> RTR -> RTS towards the remote; qp_access for the QP. */
int vu_connect(struct vu_end *e, const struct vu_info *remote, int qp_access, uint8_t rnr_retry);
/* A UC QP: RESET -> INIT (remote write allowed) -> RTR -> RTS towards the remote. */
int vu_connect_uc(struct vu_end *e, const struct vu_info *remote);
/* A UD QP: RESET -> INIT (Q_Key qkey) -> RTR -> RTS. */
int vu_ready_ud(struct vu_end *e, uint32_t qkey);
/* Polls one completion within timeout_ms; 1 got one, 0 timed out, -1 poll error. */
int vu_wait(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms);
int vu_post(struct vu_end *e, enum ibv_wr_opcode op, uint64_t wr_id, uint32_t off, uint32_t len,
            const struct vu_info *remote, uint64_t roff, unsigned int flags);
int vu_post_recv(struct vu_end *e, uint64_t wr_id, uint32_t off, uint32_t len);
int vu_summary(const char *name);
/* Writes (wr) or reads all len bytes of p on fd: 0, or -1 when the other end is gone. */
int vu_xfer(int fd, void *p, size_t len, bool wr);
/*
 * Two processes joined by a socket pair, forked before either opens a
 * device or initialises CUDA (each then has its own): the child exits with
 * b(its socket), this process returns a(its socket, the child). 2 when the
 * pair cannot be made.
 */
int vu_fork_pair(int (*a)(int sock, pid_t child), int (*b)(int sock));

#endif /* VERBS_UTIL_H */
