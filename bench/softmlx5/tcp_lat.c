/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP loopback ping-pong baseline alone, for the scripts that measure
 * Debian's programs (perftest_bench.sh): prints the half round trip, in
 * microseconds, of ITERS exchanges of SIZE-byte messages (TCP_NODELAY,
 * blocking reads), the best of REPEATS runs.
 *
 *   softmlx5_tcp_lat SIZE ITERS
 */
#include <stdio.h>
#include <stdlib.h>

#include "tcp_baseline.h"
#include "watchdog.h"

#define REPEATS 3

int main(int argc, char **argv)
{
    long size = argc == 3 ? strtol(argv[1], NULL, 0) : 0;
    long iters = argc == 3 ? strtol(argv[2], NULL, 0) : 0;
    double best = 0;

    if (size <= 0 || iters <= 0) {
        fprintf(stderr, "usage: softmlx5_tcp_lat SIZE ITERS\n");
        return 2;
    }
    if (bench_watchdog_start("softmlx5_tcp_lat", 5, 50, NULL, NULL, 0))
        return 2;
    for (int r = 0; r < REPEATS; r++) {
        double t = tcp_pingpong_half_rtt((size_t)size, (int)iters);

        if (t <= 0) {
            fprintf(stderr, "softmlx5_tcp_lat: the TCP ping-pong failed\n");
            return 1;
        }
        if (best == 0 || t < best)
            best = t;
    }
    printf("%.3f\n", best * 1e6);
    return 0;
}
