/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_bw_pair.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ex_gpu.h"

/* After the hello both sides hold the same -i: each refuses it alone, and both say why. */
static int ex_bw_pair_iterations_ok(const struct ex_args *a, const struct ex_bw_pair_ops *ops)
{
    if (ops->max_iterations == 0 || a->iterations <= ops->max_iterations)
        return 1;
    EX_ERR("-i %u is refused: at most %u iterations, %s", a->iterations, ops->max_iterations,
           ops->max_iterations_why);
    return 0;
}

/* Creates the QP, connects it to the peer's and meets the peer once both are ready. */
static int ex_bw_pair_connect(struct ex_ctx *c, int fd)
{
    struct ex_qp_info mine, peer;

    if (ex_ctx_qp_info(c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        return -1;
    return 0;
}

/* ---- Server --------------------------------------------------------------------------------- */

int ex_bw_pair_server(const struct ex_info *ex, const struct ex_args *a,
                      const struct ex_bw_pair_ops *ops)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES];
    struct ex_ctx c;
    uint32_t code = 0;
    int fd = -1;
    int ret = -1;
    int rc;

    memset(bufs, 0, sizeof(bufs));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    if (ex_oob_server(a->port, &fd) != EX_OOB_OK ||
        ex_oob_hello(fd, ex, a->iterations) != EX_OOB_OK || !ex_bw_pair_iterations_ok(a, ops))
        goto out;
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, false) != 0 ||
        ex_bw_bufs_create(&c, a->iterations,
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
                          0, bufs) != 0)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++)
        remote[i] = ex_buf_remote(&bufs[i]);
    EX_INFO("%d target buffers registered in %s memory", EX_BW_NUM_SIZES,
            c.gpu != NULL ? "GPU" : "host");
    if (ex_oob_send_bufs(fd, remote, EX_BW_NUM_SIZES) != EX_OOB_OK || ex_bw_pair_connect(&c, fd))
        goto out;

    EX_INFO("waiting for the client to report that all its runs completed");
    rc = ex_oob_recv_code(fd, &code);
    if (rc == EX_OOB_CLOSED) {
        EX_ERR("the client closed the connection before reporting that all runs completed: "
               "data not validated");
        goto out;
    }
    if (rc == EX_OOB_SIGNAL) {
        EX_ERR("stopped by signal %d before the client reported: data not validated",
               (int)ex_signal);
        goto out;
    }
    if (rc != EX_OOB_OK || code != EX_OOB_CODE_RUNS_DONE) {
        EX_ERR("unexpected message 0x%08x from the client: data not validated", code);
        goto out;
    }
    EX_INFO("the client reports all runs completed: validating");
    if (ex_bw_bufs_check(bufs, a->iterations) == 0) {
        EX_WARN("Validation successful! Data received correctly from client.");
        ret = 0;
    }
    ex_oob_send_code(fd, ret == 0 ? EX_OOB_CODE_VALID_OK : EX_OOB_CODE_VALID_FAIL);
out:
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

/* ---- Client --------------------------------------------------------------------------------- */

int ex_bw_pair_client(const struct ex_info *ex, const struct ex_args *a,
                      const struct ex_bw_pair_ops *ops)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES];
    struct ex_ctx c;
    void *stream = NULL;
    uint32_t code = 0;
    int fd = -1;
    int ret = -1;

    memset(bufs, 0, sizeof(bufs));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    if (ex_oob_client(a->server_ip, a->port, &fd) != EX_OOB_OK ||
        ex_oob_hello(fd, ex, a->iterations) != EX_OOB_OK || !ex_bw_pair_iterations_ok(a, ops))
        goto out;
    /* The source buffers hold the pattern the server checks. */
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, false) != 0 ||
        ex_bw_bufs_create(&c, a->iterations, IBV_ACCESS_LOCAL_WRITE, 1, bufs) != 0 ||
        ex_oob_recv_bufs(fd, remote, EX_BW_NUM_SIZES) != EX_OOB_OK)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        if (remote[i].len != bufs[i].len) {
            EX_ERR("the server's buffer %d holds %llu bytes, %zu expected", i,
                   (unsigned long long)remote[i].len, bufs[i].len);
            goto out;
        }
    }
    if (ex_bw_pair_connect(&c, fd) != 0 || (c.gpu != NULL && ex_gpu_stream_create(&stream) != 0))
        goto out;

    ops->banner(&c, a);
    ex_bw_table_header();
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        double us = 0;

        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d before the %zu-byte run", (int)ex_signal, ex_bw_size(i));
            goto out;
        }
        if (ops->run(&c, a, i, &remote[i], &bufs[i], stream, &us) != 0) {
            ex_ctx_report_qp_error(&c);
            goto out;
        }
        ex_bw_table_row(ex_bw_size(i), a->iterations, us);
    }
    if (ex_oob_send_code(fd, EX_OOB_CODE_RUNS_DONE) != EX_OOB_OK)
        goto out;
    EX_INFO("all runs completed and reported to the server");
    if (ex_oob_recv_code(fd, &code) != EX_OOB_OK) {
        EX_ERR("the server closed the connection without its validation result");
        goto out;
    }
    if (code != EX_OOB_CODE_VALID_OK) {
        EX_ERR("the server reports that the data it received is not what was sent");
        goto out;
    }
    EX_INFO("the server validated the data");
    ret = 0;
out:
    ex_gpu_stream_destroy(stream);
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}
