/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_send_recv: a ping-pong of RDMA Sends between two kernels
 * (or, with --exec cpu, two CPU threads running the same data-path core),
 * with the two-sided API: doca_gpu_dev_verbs_recv posts a receive,
 * doca_gpu_dev_verbs_send a send, doca_gpu_dev_verbs_recv_wait waits for a
 * message and gives its CQE. The QP owns its receive queue (made with
 * DOCA Verbs and exported with its receive CQ). Both sides check every
 * message they receive and print one-way and round-trip latencies.
 */
#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ex_common.h"
#include "ex_gpu.h"
#include "ex_lat.h"
#include "ex_oob.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "send_recv.h"
#include "write_lat.h"

static const struct ex_info send_recv_info = {
        .name = "gpunetio_verbs_send_recv",
        .id = 7,
        .has_exec_scope = false,
        .has_dbr_mode = false,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB),
};

#define SR_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* ---- CPU execution: the kernel's loop, on the data-path core in C --------------------------- */

/* Waits for receive `ticket`; *got: the bytes its CQE says arrived. */
static uint32_t send_recv_cpu_wait(struct doca_gpu_dev_verbs_qp *qp, uint64_t ticket,
                                   uint64_t timeout_ns, uint32_t *got)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    uint64_t start = ex_now_ns();
    uint32_t spins = 0;
    int rc;

    while ((rc = gdaki_recv_wait(qp, ticket, SR_RSM, 1, &cqe)) == EBUSY) {
        /* Yield: on a small machine the software NIC needs this core to deliver the message. */
        sched_yield();
        if ((++spins & 255) != 0)
            continue;
        if (ex_signal != 0)
            return SEND_RECV_STOPPED;
        if (ex_oob_peer_gone())
            return SEND_RECV_PEER_GONE;
        if (ex_now_ns() - start > timeout_ns)
            return SEND_RECV_TIMEOUT;
    }
    if (rc != 0)
        return SEND_RECV_CQE_ERROR;
    *got = gdaki_cqe_bytes(cqe);
    return SEND_RECV_OK;
}

/* Waits for receive *ticket, checks message i, posts the next receive in its place. */
static uint32_t send_recv_cpu_take(struct doca_gpu_dev_verbs_qp *qp,
                                   const struct send_recv_job *job, uint64_t *ticket, uint32_t i,
                                   struct send_recv_result *result)
{
    struct doca_gpu_dev_verbs_addr raddr = {(uint64_t)(uintptr_t)job->recv, job->lkey_recv_be};
    uint32_t got = 0;
    uint32_t status = send_recv_cpu_wait(qp, *ticket, job->timeout_ns, &got);

    if (status != SEND_RECV_OK)
        return status;
    if (!send_recv_check(job->recv, got, job->size, i)) {
        result->got_bytes = got;
        return SEND_RECV_BAD_DATA;
    }
    *ticket = gdaki_recv(qp, raddr, job->recv_len, SR_RSM);
    return SEND_RECV_OK;
}

static void send_recv_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct send_recv_job *job,
                              struct send_recv_result *result)
{
    struct doca_gpu_dev_verbs_addr raddr = {(uint64_t)(uintptr_t)job->recv, job->lkey_recv_be};
    struct doca_gpu_dev_verbs_addr saddr = {(uint64_t)(uintptr_t)job->send, job->lkey_send_be};
    uint64_t ticket =
            job->post_first ? gdaki_recv(qp, raddr, job->recv_len, SR_RSM) : job->recv_ticket;
    uint32_t status = SEND_RECV_OK;
    uint64_t sent = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0 = ex_now_ns();

    for (i = 0; i < job->iterations; i++) {
        uint8_t v = send_recv_value(i);

        if (!job->client && (status = send_recv_cpu_take(qp, job, &ticket, i, result)) != 0)
            break;
        /* The send buffer is the NIC's until the last send completed. */
        if (posted && gdaki_wait(qp, sent) != 0) {
            status = SEND_RECV_CQE_ERROR;
            break;
        }
        job->send[0] = v;
        job->send[job->size - 1] = v;
        sent = gdaki_send_msg(qp, saddr, job->size, 0, 0, SR_RSM,
                              DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
        posted = true;
        if (job->client && (status = send_recv_cpu_take(qp, job, &ticket, i, result)) != 0)
            break;
    }
    result->elapsed_ns = ex_now_ns() - t0;
    if (status == SEND_RECV_OK && posted && gdaki_wait(qp, sent) != 0)
        status = SEND_RECV_CQE_ERROR;
    result->status = status;
    result->iteration = i;
    result->recv_ticket = ticket;
}

/* ---- Both sides ----------------------------------------------------------------------------- */

static const char *send_recv_status_text(uint32_t status)
{
    switch (status) {
    case SEND_RECV_CQE_ERROR:
        return "a send or a receive completed in error";
    case SEND_RECV_TIMEOUT:
        return "the peer's message did not arrive within 30 s";
    case SEND_RECV_BAD_DATA:
        return "a message arrived with the wrong length or bytes";
    case SEND_RECV_STOPPED:
        return "stopped by a signal";
    case SEND_RECV_PEER_GONE:
        return "the peer closed the connection before reporting its results: it is gone";
    default:
        return "failed";
    }
}

static int send_recv_run(const struct ex_args *a)
{
    bool client = a->server_ip != NULL;
    struct ex_buf recv_buf, send_buf;
    struct ex_qp_info mine, peer;
    struct ex_ctx c;
    uint64_t ticket = 0;
    void *stream = NULL;
    int fd = -1;
    int ret = -1;
    int rc;

    memset(&recv_buf, 0, sizeof(recv_buf));
    memset(&send_buf, 0, sizeof(send_buf));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    rc = client ? ex_oob_client(a->server_ip, a->port, &fd) : ex_oob_server(a->port, &fd);
    if (rc != EX_OOB_OK || ex_oob_hello(fd, &send_recv_info, a->iterations) != EX_OOB_OK)
        goto out;
    if (ex_ctx_create_qp_twosided(&c, EX_SQ_WQES, SEND_RECV_RQ_WQES) != 0)
        goto out;
    if (ex_buf_create(&c, WRITE_LAT_MAX_SIZE, IBV_ACCESS_LOCAL_WRITE, &recv_buf) != 0 ||
        ex_buf_create(&c, WRITE_LAT_MAX_SIZE, IBV_ACCESS_LOCAL_WRITE, &send_buf) != 0)
        goto out;
    if (ex_ctx_qp_info(&c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(&c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;
    /* From here the peer sends nothing until the end: its closing the connection means it is gone.
     */
    ex_oob_watch(fd);
    if (c.gpu != NULL && ex_gpu_stream_create(&stream) != 0)
        goto out;

    printf("send_recv %s: %s, NIC handler %s\n", client ? "client" : "server",
           c.gpu != NULL ? "1 CUDA thread" : "CPU execution, 1 thread",
           gdaki_nic_handler_name(c.handler));
    ex_lat_table_header();
    for (int i = 0; i < WRITE_LAT_NUM_SIZES; i++) {
        struct send_recv_job job = {
                .send = send_buf.addr,
                .recv = recv_buf.addr,
                .lkey_send_be = htobe32(send_buf.mr->lkey),
                .lkey_recv_be = htobe32(recv_buf.mr->lkey),
                .recv_len = WRITE_LAT_MAX_SIZE,
                .size = write_lat_size(i),
                .iterations = a->iterations,
                .client = client,
                .post_first = i == 0,
                .recv_ticket = ticket,
                .timeout_ns = SEND_RECV_TIMEOUT_NS,
        };
        struct send_recv_result res;

        memset(&res, 0, sizeof(res));
        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d before the %u-byte run", (int)ex_signal, job.size);
            goto out;
        }
        if (c.gpu != NULL) {
            if (send_recv_gpu_run(c.qp_dev, &job, stream, &res) != 0)
                goto out;
        } else {
            send_recv_cpu_run(c.qp_dev, &job, &res);
        }
        /* A peer that died may first show as an error CQE or a message not coming: say why. */
        if (res.status != SEND_RECV_OK && ex_oob_peer_gone_within(EX_OOB_GONE_MS))
            res.status = SEND_RECV_PEER_GONE;
        if (res.status != SEND_RECV_OK) {
            EX_ERR("%u-byte messages, iteration %u: %s", job.size, res.iteration,
                   send_recv_status_text(res.status));
            if (res.status == SEND_RECV_BAD_DATA)
                EX_ERR("the receive completed with %u bytes; its first and last bytes should be "
                       "0x%02x",
                       res.got_bytes, send_recv_value(res.iteration));
            if (res.status != SEND_RECV_PEER_GONE)
                ex_ctx_report_qp_error(&c);
            goto out;
        }
        ticket = res.recv_ticket;
        ex_lat_table_row(job.size, a->iterations, res.elapsed_ns);
    }
    /* Neither side tears its QP down while the other may still be completing. */
    if (ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;
    EX_WARN("Validation successful! Data received correctly from %s.",
            client ? "server" : "client");
    ret = 0;
out:
    ex_oob_watch(-1);
    ex_gpu_stream_destroy(stream);
    ex_buf_destroy(&c, &send_buf);
    ex_buf_destroy(&c, &recv_buf);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

int main(int argc, char **argv)
{
    struct ex_args a;
    int rc = ex_parse_args(&send_recv_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    ex_signals_install();
    rc = send_recv_run(&a);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
