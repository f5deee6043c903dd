/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_lat.h"

#include <stdio.h>

int ex_lat_exchange_bufs(int fd, bool client, const struct ex_remote_buf *mine,
                         struct ex_remote_buf *peer, uint32_t count)
{
    int rc;

    if (client) {
        rc = ex_oob_recv_bufs(fd, peer, count);
        if (rc == EX_OOB_OK)
            rc = ex_oob_send_bufs(fd, mine, count);
    } else {
        rc = ex_oob_send_bufs(fd, mine, count);
        if (rc == EX_OOB_OK)
            rc = ex_oob_recv_bufs(fd, peer, count);
    }
    return rc == EX_OOB_OK ? 0 : -1;
}

void ex_lat_table_header(void)
{
    printf("%12s %11s %14s %17s\n", "Size (B)", "Iterations", "One-way (us)", "Round trip (us)");
    fflush(stdout);
}

void ex_lat_table_row(uint32_t size, uint32_t iterations, uint64_t elapsed_ns)
{
    /* One round trip is two messages: one-way latency is half of it. */
    double rtt_us = (double)elapsed_ns / 1000.0 / iterations;

    printf("%12u %11u %14.3f %17.3f\n", size, iterations, rtt_us / 2, rtt_us);
    fflush(stdout);
}
