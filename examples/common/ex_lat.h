/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the latency examples (gpunetio_verbs_write_lat,
 * gpunetio_verbs_put_signal_lat) share around their ping-pong: the swap of
 * the buffers each side writes into, and the table they print.
 */
#ifndef EX_LAT_H
#define EX_LAT_H

#include <stdbool.h>
#include <stdint.h>

#include "ex_oob.h"

/*
 * Swaps count buffer descriptors with the peer: the server sends first,
 * the client receives first. 0, or -1 (logged).
 */
int ex_lat_exchange_bufs(int fd, bool client, const struct ex_remote_buf *mine,
                         struct ex_remote_buf *peer, uint32_t count);

/* The table's header: size, iterations, one-way latency, round trip. */
void ex_lat_table_header(void);

/* One row: a size's ping-pong of iterations round trips took elapsed_ns. */
void ex_lat_table_row(uint32_t size, uint32_t iterations, uint64_t elapsed_ns);

#endif /* EX_LAT_H */
