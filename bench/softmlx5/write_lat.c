/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 8-byte RDMA write latency on softmlx5, half round trip of a ping-pong
 * between two processes, against a plain TCP loopback ping-pong measured in
 * the same run.
 *
 *   softmlx5-run -- softmlx5_write_lat [--csv FILE] [--iters N]
 *
 * Each side waits for the peer's write to change the last word of its
 * buffer, then writes the same sequence number back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rc_pair.h"
#include "report.h"
#include "tcp_baseline.h"

#define TARGET_RATIO 1.0
#define MSG          8

/* Writes seq to the peer and keeps the send queue drained (every 32nd write signaled). */
static int pingpong_send(struct rc_pair *p, uint64_t seq, int *unsignaled)
{
    int signaled = ++*unsignaled == 32;

    *(volatile uint64_t *)((char *)p->buf + MSG) = seq;
    if (rc_pair_write(p, MSG, 0, MSG, signaled, seq))
        return -1;
    if (signaled) {
        *unsignaled = 0;
        return rc_pair_wait(p, 1);
    }
    return 0;
}

static void pingpong_wait(struct rc_pair *p, uint64_t seq)
{
    while (*(volatile uint64_t *)p->buf != seq)
        ;
}

static double rdma_half_rtt(int iters)
{
    int fds[2], unsignaled = 0;
    struct rc_pair p;
    double t0, t1;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
        return 0;
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (rc_pair_open(&p, fds[1], 4096, 64))
            _exit(1);
        for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
            pingpong_wait(&p, i);
            if (pingpong_send(&p, i, &unsignaled))
                _exit(1);
        }
        rc_pair_sync(fds[1]);
        rc_pair_close(&p);
        _exit(0);
    }
    close(fds[1]);
    if (rc_pair_open(&p, fds[0], 4096, 64))
        return 0;
    t0 = bench_now_sec();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        if (pingpong_send(&p, i, &unsignaled))
            return 0;
        pingpong_wait(&p, i);
    }
    t1 = bench_now_sec();
    rc_pair_sync(fds[0]);
    rc_pair_close(&p);
    waitpid(pid, NULL, 0);
    return (t1 - t0) / (2.0 * iters);
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int iters = 20000;
    double rdma, tcp;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    tcp = tcp_pingpong_half_rtt(MSG, iters);
    rdma = rdma_half_rtt(iters);
    if (rdma <= 0) {
        fprintf(stderr, "softmlx5_write_lat: the RDMA run failed\n");
        return 2;
    }
    return bench_report(csv, "rdma_write_lat_8B_half_rtt_vs_tcp_pingpong", "us", rdma * 1e6,
                        tcp * 1e6, TARGET_RATIO, 0);
}
