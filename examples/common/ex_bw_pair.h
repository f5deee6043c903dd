/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two sides of a write-bandwidth example (the client writes into the
 * server's buffers, ex_bw.h's layout and pattern), around the example's own
 * data path:
 *
 *   server  registers one target buffer per size, connects, waits for the
 *           client's "all runs completed", checks every byte and sends its
 *           verdict back. It validates nothing, and fails, when the client
 *           closes the connection first or SIGINT/SIGTERM stops the wait;
 *   client  fills one source buffer per size with the pattern, connects,
 *           runs every size with the example's data path and prints the
 *           table row, then reports to the server and waits for its verdict.
 *
 * Both use EX_SQ_WQES send WQEs and a CQ that is not collapsed.
 */
#ifndef EX_BW_PAIR_H
#define EX_BW_PAIR_H

#include <stdint.h>

#include "ex_bw.h"
#include "ex_common.h"
#include "ex_oob.h"
#include "ex_verbs.h"

struct ex_bw_pair_ops {
    /*
     * 0: any -i. Otherwise the most iterations the data path can take: more
     * is refused on both sides right after the out-of-band hello, before any
     * QP is made, with a line saying max_iterations_why.
     */
    uint32_t max_iterations;
    const char *max_iterations_why;
    /* Client: prints the line above the table (the data path's shape, the NIC handler). */
    void (*banner)(const struct ex_ctx *c, const struct ex_args *a);
    /*
     * Client: runs size number size_idx, from local (its source buffer) into
     * remote (the server's buffer of that size), on the GPU with stream when
     * c->gpu is set, else on CPU threads; *elapsed_us gets the run's time. 0,
     * or -1 (logged) when it failed or a write completed in error.
     */
    int (*run)(struct ex_ctx *c, const struct ex_args *a, int size_idx,
               const struct ex_remote_buf *remote, const struct ex_buf *local, void *stream,
               double *elapsed_us);
};

/* Exit statuses: 0 when the data was validated, -1 otherwise (every failure logged). */
int ex_bw_pair_server(const struct ex_info *ex, const struct ex_args *a,
                      const struct ex_bw_pair_ops *ops);
int ex_bw_pair_client(const struct ex_info *ex, const struct ex_args *a,
                      const struct ex_bw_pair_ops *ops);

#endif /* EX_BW_PAIR_H */
