/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bidirectional RDMA write bandwidth on softmlx5: two processes, one RC QP
 * each, connected to each other, both writing 64 KiB messages to the other
 * at full rate at the same time (up to DEPTH in flight each way, every
 * write signalled, each side busy-polling its CQ). The figure is the sum of
 * both directions: all bytes written / the longer of the two run times;
 * the baseline is a one-way TCP loopback stream of 64 KiB writes measured
 * in the same run; the target is a sum >= 1.5x that.
 *
 *   softmlx5-run -- softmlx5_write_bibw [--csv FILE] [--total-mib N] [--size BYTES]
 *
 * --total-mib is per direction. A run stops posting after RUN_MAX_S seconds;
 * a device that stalls with both directions full fails the benchmark (the
 * watchdog: no completion on either side for 5 s), it never hangs it.
 *
 * Buffer: SLOTS messages this side writes from, then SLOTS messages the
 * peer's writes land in.
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
#define SLOTS        16
#define RUN_MAX_S    3.0

struct bibw_result {
    double bytes;
    double secs;
};

/* One side: connects, streams towards the peer, returns what it wrote in *r. */
static int bibw_side(int fd, size_t size, size_t count, struct rc_pair *p, struct bibw_result *r)
{
    struct rc_stream s = {.size = size,
                          .count = count,
                          .depth = DEPTH,
                          .slots = SLOTS,
                          .remote_base = SLOTS * size,
                          .max_secs = RUN_MAX_S};

    if (rc_pair_open(p, fd, 2 * SLOTS * size, DEPTH))
        return -1;
    /* rc_pair_open ends with a barrier: both sides start together. */
    r->bytes = rc_pair_stream(p, &s, &r->secs);
    return r->bytes > 0 ? 0 : -1;
}

struct bibw_args {
    size_t size;
    size_t count;
};

static int bibw_peer(int fd, void *arg)
{
    const struct bibw_args *a = arg;
    struct bibw_result r = {0, 0};
    struct rc_pair p;
    int rc = bibw_side(fd, a->size, a->count, &p, &r);

    /* The peer's figure goes to the parent, then both close together. */
    rc = rc || bench_full_io(fd, &r, sizeof(r), 1) || rc_pair_sync(fd);
    rc_pair_close(&p);
    return rc;
}

/* The sum of both directions in bytes per second, 0 on failure; each direction in *mine, *peer. */
static double rdma_bibw(size_t size, size_t total, double *mine, double *peer)
{
    struct bibw_args a = {size, total / size};
    struct bibw_result me = {0, 0}, other = {0, 0};
    struct rc_pair p;
    double secs;
    int fd, ok;
    pid_t pid = bench_spawn(bibw_peer, &a, &fd);

    if (pid < 0)
        return 0;
    ok = bibw_side(fd, size, a.count, &p, &me) == 0;
    ok = ok && bench_full_io(fd, &other, sizeof(other), 0) == 0 && rc_pair_sync(fd) == 0;
    rc_pair_close(&p);
    ok = bench_finish(pid, fd, ok) == 0;
    if (!ok || me.secs <= 0 || other.secs <= 0)
        return 0;
    *mine = me.bytes / me.secs;
    *peer = other.bytes / other.secs;
    secs = me.secs > other.secs ? me.secs : other.secs;
    return (me.bytes + other.bytes) / secs;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    size_t size = 64 * 1024, total = 1024ULL << 20;
    struct bench_metric m = {.name = "rdma_write_bibw_64KiB_sum_vs_tcp_loopback",
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
    if (size == 0 || total < size || bench_watchdog_start("softmlx5_write_bibw", 5, 50, csv, &m, 1))
        return 2;
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    for (int rep = 1; rep <= REPEATS; rep++) {
        double t, r, mine = 0, peer = 0;

        bench_watchdog_phase("run %d: tcp stream", rep);
        t = tcp_stream_bandwidth(size, total);
        bench_metric_keep(&m, 0, t / 1e9);
        bench_watchdog_phase("run %d: rdma writes both ways", rep);
        r = rdma_bibw(size, total, &mine, &peer);
        printf("  run %d: tcp one way %.2f GB/s, rdma both ways %.2f GB/s (%.2f + %.2f)\n", rep,
               t / 1e9, r / 1e9, mine / 1e9, peer / 1e9);
        bench_metric_keep(&m, r / 1e9, 0);
        m.failed_runs += r <= 0;
    }
    return bench_metric_report(csv, &m, "every RDMA run failed");
}
