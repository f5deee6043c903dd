/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 8-byte RDMA write latency on softmlx5 as perftest's ib_write_lat measures
 * it: half round trip of a ping-pong between two processes, each waiting
 * for the peer's write by spinning on its own memory, against a plain TCP
 * loopback ping-pong (8 bytes, TCP_NODELAY, blocking recv) in the same run.
 *
 *   softmlx5-run -- softmlx5_write_lat_spin [--csv FILE] [--iters N]
 *
 * While waiting a side never calls into the library: it reads the word the
 * peer writes until it changes. Writes are inline and unsignaled except one
 * in SIGNAL_EVERY; the CQ is polled only when the send queue needs room
 * (DEPTH writes outstanding since the last completion seen), i.e. once in
 * SIGNAL_EVERY iterations or so, never while waiting for the peer. A device
 * that progresses only when the program calls it shows here.
 *
 * A run stops after --iters exchanges or RUN_MAX_S seconds (then the mean
 * is over the exchanges done, which are printed); the watchdog fails the
 * benchmark when no exchange completes for 5 s.
 *
 * Buffer: [0] the word the peer writes (and this side spins on), [8] the
 * source of this side's writes, [16] where the last, drain write lands.
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
#define DEPTH        64
#define SIGNAL_EVERY 16
#define RUN_MAX_S    3.0
#define STOP         UINT64_MAX

struct spin_side {
    struct rc_pair p;
    uint64_t posted; /* writes posted, numbered from 1 (the wr_id) */
    uint64_t done;   /* every write up to this one completed */
};

/* Polls the CQ (this is the only place it is polled) until the send queue has room. */
static int spin_room(struct spin_side *s, uint64_t upto)
{
    struct ibv_wc wc[16];

    while (s->done < upto) {
        int n = rc_pair_next(&s->p, wc, 16, 0);

        if (n < 0)
            return -1;
        for (int i = 0; i < n; i++)
            s->done = wc[i].wr_id;
    }
    return 0;
}

static int spin_post(struct spin_side *s, size_t remote, uint64_t value, int signaled)
{
    if (s->posted - s->done >= DEPTH && spin_room(s, s->posted - DEPTH + 1))
        return -1;
    *(volatile uint64_t *)((char *)s->p.buf + MSG) = value;
    s->posted++;
    signaled = signaled || s->posted % SIGNAL_EVERY == 0;
    return rc_pair_write(&s->p, MSG, remote, MSG, signaled, s->posted);
}

/* Spins on the word the peer writes until it is no longer `old`; no library call. */
static uint64_t spin_wait(struct spin_side *s, uint64_t old)
{
    volatile uint64_t *word = s->p.buf;
    uint64_t v;

    while ((v = *word) == old)
        ;
    return v;
}

/* A last, signalled write to the peer's scratch word; all writes complete with it. */
static int spin_drain(struct spin_side *s)
{
    return spin_post(s, 2 * MSG, 0, 1) || spin_room(s, s->posted);
}

static int spin_peer(int fd, void *arg)
{
    struct spin_side s = {0};
    uint64_t last = 0;
    int rc = rc_pair_open(&s.p, fd, 4096, DEPTH);

    (void)arg;
    while (rc == 0) {
        uint64_t v = spin_wait(&s, last);

        if (v == STOP)
            break;
        if (v != last + 1) {
            fprintf(stderr, "softmlx5_write_lat_spin: got %llu after %llu\n", (unsigned long long)v,
                    (unsigned long long)last);
            rc = -1;
            break;
        }
        last = v;
        rc = spin_post(&s, 0, v, 0);
        bench_tick();
    }
    rc = rc || spin_drain(&s) || rc_pair_sync(fd);
    rc_pair_close(&s.p);
    return rc;
}

/* The half round trip in seconds, 0 on failure; *done the exchanges made. */
static double rdma_half_rtt(int iters, int *done)
{
    struct spin_side s = {0};
    double t0, t1;
    uint64_t i = 0;
    int fd, ok;
    pid_t pid = bench_spawn(spin_peer, NULL, &fd);

    if (pid < 0)
        return 0;
    ok = rc_pair_open(&s.p, fd, 4096, DEPTH) == 0;
    t0 = t1 = bench_now_sec();
    while (ok && i < (uint64_t)iters && t1 - t0 < RUN_MAX_S) {
        i++;
        ok = spin_post(&s, 0, i, 0) == 0 && spin_wait(&s, i - 1) == i;
        bench_tick();
        t1 = bench_now_sec();
    }
    ok = ok && spin_post(&s, 0, STOP, 1) == 0 && spin_drain(&s) == 0 && rc_pair_sync(fd) == 0;
    rc_pair_close(&s.p);
    ok = bench_finish(pid, fd, ok) == 0;
    *done = (int)i;
    return ok && i > 0 ? (t1 - t0) / (2.0 * (double)i) : 0;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int iters = 10000;
    struct bench_metric m = {.name = "rdma_write_lat_8B_spin_half_rtt_vs_tcp_pingpong",
                             .unit = "us",
                             .target = TARGET_RATIO,
                             .sense = BENCH_LOWER};

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    if (iters < 1 || bench_watchdog_start("softmlx5_write_lat_spin", 5, 50, csv, &m, 1))
        return 2;
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    for (int rep = 1; rep <= REPEATS; rep++) {
        double t, r;
        int done = 0;

        bench_watchdog_phase("run %d: tcp ping-pong", rep);
        t = tcp_pingpong_half_rtt(MSG, iters);
        bench_metric_keep(&m, 0, t * 1e6);
        bench_watchdog_phase("run %d: rdma write ping-pong (spinning on memory)", rep);
        r = rdma_half_rtt(iters, &done);
        printf("  run %d: tcp %.2f us, rdma %.2f us (%d of %d exchanges%s)\n", rep, t * 1e6,
               r * 1e6, done, iters, done < iters ? ", stopped at the time limit" : "");
        bench_metric_keep(&m, r * 1e6, 0);
        m.failed_runs += r <= 0;
    }
    return bench_metric_report(csv, &m, "every RDMA run failed");
}
