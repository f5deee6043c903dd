/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-up shared by the softmlx5 benchmarks: one RC QP per process on the
 * first RDMA device, connected to the peer process through a socket the
 * caller created before fork() (QPN, GID, buffer address and rkey cross it).
 */
#ifndef BENCH_RC_PAIR_H
#define BENCH_RC_PAIR_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

struct rc_pair {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    void *buf;
    size_t buf_size;
    uint64_t peer_addr; /* the peer's buffer */
    uint32_t peer_rkey;
};

/* Opens, registers buf_size bytes, connects over fd; 0 or -1 with a message on stderr. */
int rc_pair_open(struct rc_pair *p, int fd, size_t buf_size, int queue_depth);
void rc_pair_close(struct rc_pair *p);

/* Posts one RDMA write of len bytes from offset `local` to the peer's offset `remote`. */
int rc_pair_write(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                  uint64_t wr_id);

/* Takes the completions that are there (up to 16, possibly none); -1 on an error completion. */
int rc_pair_reap(struct rc_pair *p);

/* Waits for n completions; -1 on an error completion. */
int rc_pair_wait(struct rc_pair *p, int n);

/* Reads or writes exactly len bytes; -1 on error or end of stream. */
int bench_full_io(int fd, void *buf, size_t len, int writing);

/* A byte or word exchange over fd, used as a barrier. */
int rc_pair_sync(int fd);

double bench_now_sec(void);

#endif /* BENCH_RC_PAIR_H */
