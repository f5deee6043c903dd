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
    struct ibv_comp_channel *channel; /* NULL unless opened with events */
    struct ibv_cq *cq;                /* send and receive completions */
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    void *buf;
    size_t buf_size;
    uint64_t peer_addr; /* the peer's buffer */
    uint32_t peer_rkey;
    int armed; /* ibv_req_notify_cq called since the last event */
};

struct rc_pair_opts {
    size_t buf_size; /* registered for local and remote access */
    int send_depth;  /* max_send_wr */
    int recv_depth;  /* max_recv_wr; nothing is posted by rc_pair_open */
    int events;      /* the CQ gets a completion channel (rc_pair_next can sleep on it) */
};

/* Opens, registers buf_size bytes, connects over fd; 0 or -1 with a message on stderr. */
int rc_pair_open(struct rc_pair *p, int fd, size_t buf_size, int queue_depth);
int rc_pair_open_opts(struct rc_pair *p, int fd, const struct rc_pair_opts *opts);
void rc_pair_close(struct rc_pair *p);

/* Posts one RDMA write of len bytes from offset `local` to the peer's offset `remote`. */
int rc_pair_write(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                  uint64_t wr_id);

/* The same as an RDMA write with immediate (imm in host order; it arrives in a posted receive). */
int rc_pair_write_imm(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                      uint64_t wr_id, uint32_t imm);

/* Posts one receive of len bytes at offset `local`. */
int rc_pair_post_recv(struct rc_pair *p, size_t local, size_t len, uint64_t wr_id);

/*
 * Takes up to max (<= 16) completions into wc and returns their number. When
 * the CQ is empty: returns 0 (sleep = 0), or (sleep = 1, opened with events)
 * arms the CQ with ibv_req_notify_cq, polls once more and sleeps in
 * ibv_get_cq_event (acknowledging each event) until a completion is there.
 * -1 on an error or an error completion (message on stderr).
 */
int rc_pair_next(struct rc_pair *p, struct ibv_wc *wc, int max, int sleep);

/* Takes the completions that are there (up to 16, possibly none); -1 on an error completion. */
int rc_pair_reap(struct rc_pair *p);

/* Waits for n completions; -1 on an error completion. */
int rc_pair_wait(struct rc_pair *p, int n);

/*
 * A stream of RDMA writes of `size` bytes, every one signalled, at most
 * `depth` in flight: write i goes from local offset (i % slots) * size to
 * the peer's remote_base + the same offset. It stops posting after `count`
 * writes or `max_secs` seconds, whichever comes first, and returns when all
 * posted writes completed.
 */
struct rc_stream {
    size_t size;
    size_t count;
    int depth;
    size_t slots;
    size_t remote_base;
    double max_secs;
};

/* Runs the stream; the bytes written (completed), their time in *secs; -1 on an error. */
double rc_pair_stream(struct rc_pair *p, const struct rc_stream *s, double *secs);

/* Reads or writes exactly len bytes; -1 on error or end of stream. */
int bench_full_io(int fd, void *buf, size_t len, int writing);

/* A byte or word exchange over fd, used as a barrier. */
int rc_pair_sync(int fd);

double bench_now_sec(void);

#endif /* BENCH_RC_PAIR_H */
