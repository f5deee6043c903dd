/* SPDX-License-Identifier: BSD-3-Clause */
/* The TCP loopback baselines the softmlx5 benchmarks are measured against, in the same run. */
#ifndef BENCH_TCP_BASELINE_H
#define BENCH_TCP_BASELINE_H

#include <stddef.h>

/*
 * Both fork their peer (bench_fork), set TCP_NODELAY on both ends, block in
 * read() and write(), tick the watchdog, and return 0 on a failure.
 */

/* Bytes per second of a TCP loopback stream of `total` bytes in `chunk`-byte sends. */
double tcp_stream_bandwidth(size_t chunk, size_t total);

/* Half round trip, in seconds, of a TCP loopback ping-pong of `size`-byte messages. */
double tcp_pingpong_half_rtt(size_t size, int iterations);

#endif /* BENCH_TCP_BASELINE_H */
