/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same-host RDMA write bandwidth on softmlx5, 64 KiB messages, host memory,
 * against TCP loopback bandwidth measured in the same run.
 *
 *   softmlx5-run -- softmlx5_write_bw [--csv FILE] [--total-mib N] [--size BYTES]
 *
 * Two processes: the child is the target, the parent posts RDMA writes with
 * up to `depth` in flight and stops the clock when the last completion
 * arrives (the software NIC completes a write only after the target placed it).
 * Each measurement is the best of three, alternating with the TCP baseline.
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

#define TARGET_RATIO 1.5
#define REPEATS      3

static double rdma_bandwidth(size_t size, size_t total, int depth)
{
    int fds[2];
    struct rc_pair p;
    size_t window = size * 16; /* the target buffer the writes cycle over */
    size_t count = total / size;
    double t0, t1;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
        return 0;
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (rc_pair_open(&p, fds[1], window, depth))
            _exit(1);
        rc_pair_sync(fds[1]); /* the writer is done */
        rc_pair_close(&p);
        _exit(0);
    }
    close(fds[1]);
    if (rc_pair_open(&p, fds[0], window, depth))
        return 0;
    t0 = bench_now_sec();
    size_t posted = 0, done = 0;
    while (done < count) {
        int reaped;

        while (posted < count && posted - done < (size_t)depth) {
            size_t off = (posted % 16) * size;

            if (rc_pair_write(&p, off, off, size, 1, posted))
                return 0;
            posted++;
        }
        reaped = rc_pair_reap(&p);
        if (reaped < 0)
            return 0;
        done += (size_t)reaped;
    }
    t1 = bench_now_sec();
    rc_pair_sync(fds[0]);
    rc_pair_close(&p);
    waitpid(pid, NULL, 0);
    return (double)(count * size) / (t1 - t0);
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    size_t size = 64 * 1024, total = 1024ULL << 20;
    double rdma, tcp;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--total-mib") == 0)
            total = strtoull(argv[i + 1], NULL, 10) << 20;
        else if (strcmp(argv[i], "--size") == 0)
            size = strtoull(argv[i + 1], NULL, 10);
    }
    /* Best of REPEATS for each, alternating, so that a noisy moment favours neither. */
    tcp = rdma = 0;
    for (int rep = 0; rep < REPEATS; rep++) {
        double t = tcp_stream_bandwidth(size, total), r = rdma_bandwidth(size, total, 64);

        tcp = t > tcp ? t : tcp;
        rdma = r > rdma ? r : rdma;
    }
    if (rdma <= 0) {
        fprintf(stderr, "softmlx5_write_bw: the RDMA run failed\n");
        return 2;
    }
    return bench_report(csv, "rdma_write_bw_64KiB_vs_tcp_loopback", "GB/s", rdma / 1e9, tcp / 1e9,
                        TARGET_RATIO, 1);
}
