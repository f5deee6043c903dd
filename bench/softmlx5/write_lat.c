/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 8-byte RDMA write latency on softmlx5, half round trip of a ping-pong
 * between two processes, against a plain TCP loopback ping-pong measured in
 * the same run.
 *
 *   softmlx5-run -- softmlx5_write_lat [--csv FILE] [--iters N]
 *
 * Each side waits for the peer's write to change the first word of its
 * buffer, then writes the same sequence number back. While waiting it polls
 * its CQ for its own completions, as RDMA applications do; on softmlx5 that
 * poll is also where the device makes progress when the CPUs are all busy.
 * (softmlx5_write_lat_spin is the perftest-style variant that never calls
 * into the library while waiting.) The watchdog fails the benchmark when
 * nothing moves for 5 s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"
#include "report.h"
#include "tcp_baseline.h"
#include "watchdog.h"

#define TARGET_RATIO 1.0
#define REPEATS      3
#define MSG          8

/*
 * Writes seq to the peer, every write signaled; at most `depth` in flight.
 * Completions are reaped while waiting, as an application polls its CQ.
 */
struct pingpong {
    struct rc_pair p;
    int in_flight;
};

static int pingpong_reap(struct pingpong *pp)
{
    int n = rc_pair_reap(&pp->p);

    if (n < 0)
        return -1;
    pp->in_flight -= n;
    return 0;
}

static int pingpong_send(struct pingpong *pp, uint64_t seq)
{
    while (pp->in_flight >= 32)
        if (pingpong_reap(pp))
            return -1;
    *(volatile uint64_t *)((char *)pp->p.buf + MSG) = seq;
    if (rc_pair_write(&pp->p, MSG, 0, MSG, 1, seq))
        return -1;
    pp->in_flight++;
    return 0;
}

/* Waits for the peer's write of seq, polling the CQ meanwhile (that drives the software NIC). */
static int pingpong_wait(struct pingpong *pp, uint64_t seq)
{
    while (*(volatile uint64_t *)pp->p.buf != seq)
        if (pingpong_reap(pp))
            return -1;
    return 0;
}

static int lat_peer(int fd, void *arg)
{
    struct pingpong pp = {0};
    int iters = *(const int *)arg;
    int rc = rc_pair_open(&pp.p, fd, 4096, 64);

    for (uint64_t i = 1; rc == 0 && i <= (uint64_t)iters; i++) {
        rc = pingpong_wait(&pp, i) || pingpong_send(&pp, i);
        bench_tick();
    }
    while (rc == 0 && pp.in_flight > 0)
        rc = pingpong_reap(&pp);
    rc = rc || rc_pair_sync(fd);
    rc_pair_close(&pp.p);
    return rc;
}

static double rdma_half_rtt(int iters)
{
    struct pingpong pp = {0};
    double t0, t1 = 0;
    int fd, ok;
    pid_t pid = bench_spawn(lat_peer, &iters, &fd);

    if (pid < 0)
        return 0;
    ok = rc_pair_open(&pp.p, fd, 4096, 64) == 0;
    t0 = bench_now_sec();
    for (uint64_t i = 1; ok && i <= (uint64_t)iters; i++) {
        ok = pingpong_send(&pp, i) == 0 && pingpong_wait(&pp, i) == 0;
        bench_tick();
    }
    t1 = bench_now_sec();
    while (ok && pp.in_flight > 0)
        ok = pingpong_reap(&pp) == 0;
    ok = ok && rc_pair_sync(fd) == 0;
    rc_pair_close(&pp.p);
    ok = bench_finish(pid, fd, ok) == 0;
    return ok ? (t1 - t0) / (2.0 * iters) : 0;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int iters = 10000;
    struct bench_metric m = {.name = "rdma_write_lat_8B_half_rtt_vs_tcp_pingpong",
                             .unit = "us",
                             .target = TARGET_RATIO,
                             .sense = BENCH_LOWER};

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    if (iters < 1 || bench_watchdog_start("softmlx5_write_lat", 5, 50, csv, &m, 1))
        return 2;
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    for (int rep = 1; rep <= REPEATS; rep++) {
        double t, r;

        bench_watchdog_phase("run %d: tcp ping-pong", rep);
        t = tcp_pingpong_half_rtt(MSG, iters);
        bench_metric_keep(&m, 0, t * 1e6);
        bench_watchdog_phase("run %d: rdma write ping-pong", rep);
        r = rdma_half_rtt(iters);
        bench_metric_keep(&m, r * 1e6, 0);
        m.failed_runs += r <= 0;
    }
    return bench_metric_report(csv, &m, "every RDMA run failed");
}
