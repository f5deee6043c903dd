/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same-host RDMA write bandwidth on softmlx5, 64 KiB messages, host memory,
 * against TCP loopback bandwidth measured in the same run.
 *
 *   softmlx5-run -- softmlx5_write_bw [--csv FILE] [--total-mib N] [--size BYTES]
 *
 * Two processes: the child is the target, the parent posts RDMA writes with
 * up to `depth` in flight, every one signalled, busy-polling its CQ, and
 * stops the clock when the last completion arrives (the software NIC
 * completes a write only after the target placed it). A run stops posting
 * after 3 s; the watchdog fails the benchmark when nothing moves for 5 s.
 * Each measurement is the best of three, alternating with the TCP baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"
#include "report.h"
#include "tcp_baseline.h"
#include "watchdog.h"

#define TARGET_RATIO 1.5
#define REPEATS      3
#define DEPTH        64
#define SLOTS        16 /* the target buffer the writes cycle over, in messages */
#define RUN_MAX_S    3.0

struct bw_args {
    size_t size;
};

/* The target: opens its side, then waits for the writer to be done. */
static int bw_target(int fd, void *arg)
{
    const struct bw_args *a = arg;
    struct rc_pair p;
    int rc = rc_pair_open(&p, fd, a->size * SLOTS, DEPTH) || rc_pair_sync(fd);

    rc_pair_close(&p);
    return rc;
}

static double rdma_bandwidth(size_t size, size_t total)
{
    struct bw_args a = {size};
    struct rc_stream s = {.size = size,
                          .count = total / size,
                          .depth = DEPTH,
                          .slots = SLOTS,
                          .remote_base = 0,
                          .max_secs = RUN_MAX_S};
    struct rc_pair p;
    double bytes = -1, secs = 0;
    int fd, ok;
    pid_t pid = bench_spawn(bw_target, &a, &fd);

    if (pid < 0)
        return 0;
    ok = rc_pair_open(&p, fd, size * SLOTS, DEPTH) == 0;
    if (ok)
        bytes = rc_pair_stream(&p, &s, &secs);
    ok = ok && bytes > 0 && rc_pair_sync(fd) == 0;
    rc_pair_close(&p);
    ok = bench_finish(pid, fd, ok) == 0;
    return ok && secs > 0 ? bytes / secs : 0;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    size_t size = 64 * 1024, total = 1024ULL << 20;
    struct bench_metric m = {.name = "rdma_write_bw_64KiB_vs_tcp_loopback",
                             .unit = "GB/s",
                             .target = TARGET_RATIO,
                             .sense = BENCH_HIGHER};

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--total-mib") == 0)
            total = strtoull(argv[i + 1], NULL, 10) << 20;
        else if (strcmp(argv[i], "--size") == 0)
            size = strtoull(argv[i + 1], NULL, 10);
    }
    if (bench_watchdog_start("softmlx5_write_bw", 5, 50, csv, &m, 1))
        return 2;
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    for (int rep = 1; rep <= REPEATS; rep++) {
        double t, r;

        bench_watchdog_phase("run %d: tcp stream", rep);
        t = tcp_stream_bandwidth(size, total);
        bench_metric_keep(&m, 0, t / 1e9);
        bench_watchdog_phase("run %d: rdma write stream", rep);
        r = rdma_bandwidth(size, total);
        bench_metric_keep(&m, r / 1e9, 0);
        m.failed_runs += r <= 0;
    }
    return bench_metric_report(csv, &m, "every RDMA run failed");
}
