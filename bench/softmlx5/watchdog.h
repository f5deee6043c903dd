/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bounded run time for the softmlx5 benchmarks: a stalled device must fail
 * the run with a message, never hang it.
 *
 * bench_watchdog_start() maps a page shared with the children forked later
 * (bench_fork) and starts a thread in the calling process. Each process
 * counts its progress with bench_tick() (one store to a cache line of its
 * own, read by the thread every 50 ms). When no process ticked for
 * `stall_s` seconds, or the whole run took more than `total_s`, the thread
 * prints what was being measured (bench_watchdog_phase), appends the
 * metrics not reported yet to the CSV file as failed, kills the children
 * and exits the process with status 3.
 */
#ifndef BENCH_WATCHDOG_H
#define BENCH_WATCHDOG_H

#include <sys/types.h>

#include "report.h"

#define BENCH_EXIT_STALLED 3

/*
 * Starts the watchdog of program `prog`; `metrics` (n of them, may be NULL)
 * are written as failed rows to csv (when not NULL) if it fires.
 */
int bench_watchdog_start(const char *prog, double stall_s, double total_s, const char *csv,
                         struct bench_metric *metrics, int n);

/* What is running now, for the failure message ("run 2: tcp baseline", ...); printf format. */
void bench_watchdog_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* This process made progress (a completion, an iteration). */
void bench_tick(void);

/*
 * fork() for a peer process: the child ticks its own slot and dies with its
 * parent (PR_SET_PDEATHSIG); the parent's watchdog kills it when it fires.
 */
pid_t bench_fork(void);

/* Waits for a child of bench_fork; 0 when it exited with status 0. */
int bench_wait(pid_t pid);

/*
 * Forks the peer process of an RDMA run with a socket pair between the two:
 * the child runs peer(its end, arg) and exits with 0 when that returned 0.
 * Returns the child's pid and the parent's end in *fd, or -1.
 */
pid_t bench_spawn(int (*peer)(int fd, void *arg), void *arg, int *fd);

/* Closes fd, kills the peer unless ok, waits for it; 0 when ok and the peer succeeded. */
int bench_finish(pid_t pid, int fd, int ok);

#endif /* BENCH_WATCHDOG_H */
