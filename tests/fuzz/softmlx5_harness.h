/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzz targets on softmlx5's data path (fuzz_wire.c, fuzz_engine.c)
 * share: the device opened through the standard verbs API in a network
 * namespace of the process's own (its wire endpoint is then always 1, and
 * nothing outside the process can be reached or reach it), registered
 * buffers at fixed IOVAs, RC QPs brought up and down with ibv_modify_qp,
 * and the failure report (a finding aborts).
 */
#ifndef DGN_FUZZ_SOFTMLX5_HARNESS_H
#define DGN_FUZZ_SOFTMLX5_HARNESS_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"
#include "nic/nic.h"
#include "nic/qp.h"

/* The device's address on the wire (SOFTMLX5_ADDR), host order. */
#define SM5H_IPV4 0x7f000001u

struct sm5h_dev {
    struct ibv_context *ctx;
    struct emu_nic *nic;
    struct ibv_pd *pd;
};

/* How a QP is connected (ibv_modify_qp RESET -> INIT -> RTR -> RTS). */
struct sm5h_conn {
    uint32_t remote_qpn;
    uint32_t rq_psn, sq_psn;
    uint8_t retry_cnt, rnr_retry, max_rd_atomic, min_rnr_timer, timeout;
};

/* Reports a finding (or a harness failure) on stderr and aborts. */
void sm5h_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * A finding already reported, named id: aborts like sm5h_die unless the run
 * was told to tolerate it (SOFTMLX5_FUZZ_TOLERATE=id[,id...]), so that a long
 * run can look past it; then it is counted, logged once, and false returned
 * (the caller recovers: the QPs are reset after every input anyway); the
 * counts of those tolerated are printed at exit.
 */
bool sm5h_finding(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Opens mlx5_0 once, configured through the environment: one device at
 * SM5H_IPV4, retry timeout retry_ms, quiet (SOFTMLX5_LOG=0 unless set),
 * single copy on (its pull frames are part of the wire). 0, or 77 with a
 * "skipped:" line on stderr when the host cannot give the process a
 * network namespace of its own. Call it before any thread is started.
 */
int sm5h_open(struct sm5h_dev *dev, unsigned int retry_ms);

/* A zeroed host buffer of len bytes registered at iova with access; *buf gets it. */
struct ibv_mr *sm5h_mr(struct sm5h_dev *dev, size_t len, uint64_t iova, int access, void **buf);

/* A CQ of at least cqe entries. */
struct ibv_cq *sm5h_cq(struct sm5h_dev *dev, int cqe);

/* An RC QP in RESET on cq (send and receive). */
struct ibv_qp *sm5h_qp(struct sm5h_dev *dev, struct ibv_cq *cq, uint32_t send_wr, uint32_t recv_wr,
                       uint32_t sge, uint32_t inline_data);

static inline struct emu_qp *sm5h_emu_qp(struct ibv_qp *qp)
{
    return (struct emu_qp *)qp; /* struct ibv_qp is its first member */
}

/* The QP's state (PRM encoding), read under its lock. */
uint8_t sm5h_qp_state(struct ibv_qp *qp);

/* RESET -> INIT -> RTR -> RTS (from RESET); errno-style, the failing step in *step when given. */
int sm5h_qp_up(struct ibv_qp *qp, const struct sm5h_conn *c, const char **step);

/* To RESET or ERR through ibv_modify_qp; errno-style (a QP already there: 0). */
int sm5h_qp_to(struct ibv_qp *qp, enum ibv_qp_state to);

/* The attributes sm5h_qp_up gives, as emu_engine_qp_modify takes them. */
void sm5h_emu_attr(const struct sm5h_conn *c, struct emu_qp_attr *a);

/*
 * After a RESET made with emu_engine_qp_modify (as by a DevX command), what
 * software then does, and ibv_modify_qp does for its callers: the QP's
 * completions not polled yet dropped, its ring indices and doorbell record
 * back to 0.
 */
void sm5h_sw_reset(struct ibv_qp *qp);

/* Moves the QP along RESET -> INIT -> RTR -> RTS with emu_engine_qp_modify; errno-style. */
int sm5h_emu_up(struct ibv_qp *qp, const struct sm5h_conn *c);

/* Polls cq empty; calls count(qpn, wc, arg) for each completion (may be NULL). Returns the count.
 */
int sm5h_drain_cq(struct ibv_cq *cq, void (*count)(const struct ibv_wc *wc, void *arg), void *arg);

/* Monotonic wall time and the process's CPU time, in nanoseconds. */
uint64_t sm5h_now_ns(void);
uint64_t sm5h_cpu_ns(void);
void sm5h_sleep_us(unsigned int us);

/* A line on stderr when SOFTMLX5_FUZZ_VERBOSE is set (what an input does, step by step). */
void sm5h_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes len bytes to dir/name (seed writers); exits on failure. */
void sm5h_write_file(const char *dir, const char *name, const uint8_t *data, size_t len);

/* A seed of a target's corpus: an input, and what it must give. */
struct sm5h_seed {
    const char *name;
    uint8_t bytes[4096];
    size_t len;
    int ok_send, ok_recv; /* successful completions it must give; -1: any */
};

/* Appends n bytes (or one) to the seed's input; a seed that outgrows it is a harness failure. */
void sm5h_seed_put(struct sm5h_seed *s, const void *p, size_t n);
void sm5h_seed_u8(struct sm5h_seed *s, uint8_t v);

/* A fuzz target as the seed writer runs it. */
struct sm5h_target {
    const char *name;
    void (*run)(const uint8_t *data, size_t size);
    const int *ok_send, *ok_recv; /* successful completions of the last run */
    bool lax; /* SOFTMLX5_FUZZ_SEEDS_LAX lets a seed give other counts (reported, not fatal) */
};

/*
 * SOFTMLX5_FUZZ_SEEDS=dir: runs each of the n seeds, checks the completions
 * it gave, writes it to dir, and exits (1 when a seed gave other counts).
 */
void sm5h_write_seeds(const struct sm5h_target *t, const char *dir, const struct sm5h_seed *seeds,
                      int n) __attribute__((noreturn));

#endif /* DGN_FUZZ_SOFTMLX5_HARNESS_H */
