/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency of a ping-pong whose two sides sleep on completion channels, as
 * event-driven RDMA programs wait, against the same program busy-polling
 * its CQ, both measured in the same run.
 *
 *   softmlx5-run -- softmlx5_event_lat [--csv FILE] [--iters N]
 *
 * Each exchange is an 8-byte RDMA write with immediate (inline) consumed by
 * a receive the peer posted; the immediate carries the sequence number.
 * Writes are unsignaled except one in SIGNAL_EVERY; send and receive
 * completions share one CQ. In events mode a side that finds its CQ empty
 * arms it (ibv_req_notify_cq), polls once more and sleeps in
 * ibv_get_cq_event, acknowledging each event (ibv_ack_cq_events); in polled
 * mode it calls ibv_poll_cq until a completion is there. The figure is the
 * half round trip; the target is events <= 3x polled.
 *
 * A run stops after --iters exchanges or RUN_MAX_S seconds (the mean is
 * over the exchanges done, which are printed); the watchdog fails the
 * benchmark when no exchange completes for 5 s.
 *
 * Buffer: [0] where the peer's writes land, [8] the source of this side's
 * writes, [16] where the last, drain write lands, [64] the receives.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc_pair.h"
#include "report.h"
#include "watchdog.h"

#define TARGET_RATIO 3.0
#define REPEATS      3
#define MSG          8
#define DEPTH        64
#define RX_DEPTH     64
#define SIGNAL_EVERY 16
#define RUN_MAX_S    3.0
#define STOP         UINT32_MAX
#define RX_OFF       64

struct imm_side {
    struct rc_pair p;
    int sleep;         /* events mode */
    uint64_t posted;   /* writes posted, numbered from 1 (the wr_id) */
    uint64_t done;     /* every write up to this one completed */
    uint64_t received; /* immediates received */
    uint64_t consumed; /* immediates the ping-pong took */
    uint32_t imm;      /* the last one */
};

/* Takes the completions there are, or (events) sleeps until some come. */
static int imm_take(struct imm_side *s)
{
    struct ibv_wc wc[16];
    int n = rc_pair_next(&s->p, wc, 16, s->sleep);

    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
            s->done = wc[i].wr_id;
            continue;
        }
        if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || s->received != s->consumed) {
            fprintf(stderr, "softmlx5_event_lat: unexpected receive completion\n");
            return -1;
        }
        s->received++;
        s->imm = ntohl(wc[i].imm_data);
        if (rc_pair_post_recv(&s->p, RX_OFF, MSG, 0))
            return -1;
    }
    return 0;
}

static int imm_post(struct imm_side *s, uint32_t imm, int signaled)
{
    while (s->posted - s->done >= DEPTH)
        if (imm_take(s))
            return -1;
    s->posted++;
    signaled = signaled || s->posted % SIGNAL_EVERY == 0;
    return rc_pair_write_imm(&s->p, MSG, 0, MSG, signaled, s->posted, imm);
}

/* Waits for the next immediate; -1 on an error. */
static int imm_recv(struct imm_side *s, uint32_t *imm)
{
    while (s->received == s->consumed)
        if (imm_take(s))
            return -1;
    s->consumed++;
    *imm = s->imm;
    return 0;
}

/* A last, signalled plain write to the peer's scratch word; all writes complete with it. */
static int imm_drain(struct imm_side *s)
{
    if (rc_pair_write(&s->p, MSG, 2 * MSG, MSG, 1, ++s->posted))
        return -1;
    while (s->done != s->posted)
        if (imm_take(s))
            return -1;
    return 0;
}

static int imm_open(struct imm_side *s, int fd, int sleep)
{
    struct rc_pair_opts o = {
            .buf_size = 4096, .send_depth = DEPTH, .recv_depth = RX_DEPTH, .events = sleep};

    memset(s, 0, sizeof(*s));
    s->sleep = sleep;
    if (rc_pair_open_opts(&s->p, fd, &o))
        return -1;
    for (int i = 0; i < RX_DEPTH; i++)
        if (rc_pair_post_recv(&s->p, RX_OFF, MSG, 0))
            return -1;
    /* Both sides' receives are posted before the first write. */
    return rc_pair_sync(fd);
}

static int imm_peer(int fd, void *arg)
{
    struct imm_side s;
    uint32_t last = 0, v;
    int rc = imm_open(&s, fd, *(const int *)arg);

    while (rc == 0) {
        rc = imm_recv(&s, &v);
        if (rc || v == STOP)
            break;
        if (v != last + 1) {
            fprintf(stderr, "softmlx5_event_lat: got %u after %u\n", v, last);
            rc = -1;
            break;
        }
        last = v;
        rc = imm_post(&s, v, 0);
        bench_tick();
    }
    rc = rc || imm_drain(&s) || rc_pair_sync(fd);
    rc_pair_close(&s.p);
    return rc;
}

/* The half round trip in seconds, 0 on failure; *done the exchanges made. */
static double imm_half_rtt(int iters, int sleep, int *done)
{
    struct imm_side s;
    double t0, t1;
    uint32_t i = 0, v = 0;
    int fd, ok;
    pid_t pid = bench_spawn(imm_peer, &sleep, &fd);

    if (pid < 0)
        return 0;
    ok = imm_open(&s, fd, sleep) == 0;
    t0 = t1 = bench_now_sec();
    while (ok && i < (uint32_t)iters && t1 - t0 < RUN_MAX_S) {
        i++;
        ok = imm_post(&s, i, 0) == 0 && imm_recv(&s, &v) == 0 && v == i;
        bench_tick();
        t1 = bench_now_sec();
    }
    ok = ok && imm_post(&s, STOP, 1) == 0 && imm_drain(&s) == 0 && rc_pair_sync(fd) == 0;
    rc_pair_close(&s.p);
    ok = bench_finish(pid, fd, ok) == 0;
    *done = (int)i;
    return ok && i > 0 ? (t1 - t0) / (2.0 * (double)i) : 0;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int iters = 10000;
    struct bench_metric m = {.name = "rdma_write_imm_lat_8B_events_vs_polled",
                             .unit = "us",
                             .target = TARGET_RATIO,
                             .sense = BENCH_LOWER};

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    if (iters < 1 || bench_watchdog_start("softmlx5_event_lat", 5, 50, csv, &m, 1))
        return 2;
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    for (int rep = 1; rep <= REPEATS; rep++) {
        int polled_done = 0, events_done = 0;
        double polled, events;

        bench_watchdog_phase("run %d: polled ping-pong (ibv_poll_cq)", rep);
        polled = imm_half_rtt(iters, 0, &polled_done);
        bench_metric_keep(&m, 0, polled * 1e6);
        m.failed_runs += polled <= 0;
        bench_watchdog_phase("run %d: events ping-pong (ibv_get_cq_event)", rep);
        events = imm_half_rtt(iters, 1, &events_done);
        printf("  run %d: polled %.2f us (%d exchanges), events %.2f us (%d exchanges)\n", rep,
               polled * 1e6, polled_done, events * 1e6, events_done);
        bench_metric_keep(&m, events * 1e6, 0);
        m.failed_runs += events <= 0;
    }
    return bench_metric_report(csv, &m, "every RDMA run failed");
}
