/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_lat: an ib_write_lat-like ping-pong of RDMA writes
 * posted with the low-level data-path API. For each message size the
 * client writes to the server, the server waits for the message to land and
 * writes back, `iterations` times; both sides run the data path (a
 * one-thread CUDA kernel, or with --exec cpu the main thread running the
 * same core) and print one-way and round-trip latencies. Nothing is
 * validated beyond the ping-pong values arriving.
 */
#include <endian.h>
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
#include "write_lat.h"

static const struct ex_info write_lat_info = {
        .name = "gpunetio_verbs_write_lat",
        .id = 2,
        .has_exec_scope = false,
        .has_dbr_mode = true,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
};

#define WL_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* ---- CPU execution: the kernel's loop, on the data-path core in C --------------------------- */

static uint32_t write_lat_cpu_wait(const volatile uint8_t *flag, uint8_t v,
                                   struct doca_gpu_dev_verbs_cq *cq, bool posted, uint64_t last,
                                   uint64_t timeout_ns)
{
    uint64_t start = ex_now_ns();
    uint32_t spins = 0;

    while (*flag != v) {
        /* Yield: on a small machine the software NIC needs this core to deliver the message. */
        sched_yield();
        if ((++spins & 255) != 0)
            continue;
        if (posted && gdaki_cq_poll_one_at(cq, last) < 0)
            return WRITE_LAT_CQE_ERROR;
        if (ex_signal != 0)
            return WRITE_LAT_STOPPED;
        if (ex_oob_peer_gone())
            return WRITE_LAT_PEER_GONE;
        if (ex_now_ns() - start > timeout_ns)
            return WRITE_LAT_TIMEOUT;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return WRITE_LAT_OK;
}

static void write_lat_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_lat_job *job,
                              struct write_lat_result *result)
{
    const volatile uint8_t *flag = job->recv + job->size - 1;
    struct doca_gpu_dev_verbs_cq *cq = &qp->cq_sq;
    uint32_t status = WRITE_LAT_OK;
    uint64_t last = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0 = ex_now_ns();

    for (i = 0; i < job->iterations; i++) {
        uint8_t v = write_lat_value(i);
        uint64_t idx;

        if (!job->client && (status = write_lat_cpu_wait(flag, v, cq, posted, last,
                                                         job->timeout_ns)) != WRITE_LAT_OK)
            break;
        job->send[job->size - 1] = v; /* ordered before the doorbell by submit's fence */
        idx = gdaki_sq_reserve(qp, 1, WL_RSM, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, idx), idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE,
                       DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0, job->raddr, job->rkey_be,
                       (uint64_t)(uintptr_t)job->send, job->lkey_be, job->size);
        gdaki_sq_mark_ready(qp, idx, idx, WL_RSM);
        /* AUTO: the handler the QP was exported with (GPU_SM_BF writes the WQE to BlueFlame). */
        gdaki_sq_submit(qp, idx + 1, WL_RSM, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                        DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        last = idx;
        posted = true;
        if (job->client && (status = write_lat_cpu_wait(flag, v, cq, posted, last,
                                                        job->timeout_ns)) != WRITE_LAT_OK)
            break;
    }
    result->elapsed_ns = ex_now_ns() - t0;
    if (status == WRITE_LAT_OK && posted && gdaki_cq_poll_at(cq, last) != 0)
        status = WRITE_LAT_CQE_ERROR;
    result->status = status;
    result->iteration = i;
}

/* ---- Both sides ----------------------------------------------------------------------------- */

static const char *write_lat_status_text(uint32_t status)
{
    switch (status) {
    case WRITE_LAT_CQE_ERROR:
        return "a write completed in error";
    case WRITE_LAT_TIMEOUT:
        return "the peer's message did not arrive within 30 s";
    case WRITE_LAT_STOPPED:
        return "stopped by a signal";
    case WRITE_LAT_PEER_GONE:
        return "the peer closed the connection before reporting its results: it is gone";
    default:
        return "failed";
    }
}

static int write_lat_run(const struct ex_args *a)
{
    bool client = a->server_ip != NULL;
    struct ex_buf recv_buf, send_buf;
    struct ex_remote_buf mine_buf, peer_buf;
    struct ex_qp_info mine, peer;
    struct ex_ctx c;
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
    if (rc != EX_OOB_OK || ex_oob_hello(fd, &write_lat_info, a->iterations) != EX_OOB_OK)
        goto out;
    /* A collapsed CQ: every completion lands in its one entry. */
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, true) != 0)
        goto out;
    if (ex_buf_create(&c, WRITE_LAT_MAX_SIZE,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
                      &recv_buf) != 0 ||
        ex_buf_create(&c, WRITE_LAT_MAX_SIZE, IBV_ACCESS_LOCAL_WRITE, &send_buf) != 0)
        goto out;
    mine_buf = ex_buf_remote(&recv_buf);
    if (ex_lat_exchange_bufs(fd, client, &mine_buf, &peer_buf, 1) != 0)
        goto out;
    if (peer_buf.len < WRITE_LAT_MAX_SIZE) {
        EX_ERR("the peer's receive buffer holds %llu bytes, %d needed",
               (unsigned long long)peer_buf.len, WRITE_LAT_MAX_SIZE);
        goto out;
    }
    if (ex_ctx_qp_info(&c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(&c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;
    /* From here the peer sends nothing until the end: its closing the connection means it is gone.
     */
    ex_oob_watch(fd);
    if (c.gpu != NULL && ex_gpu_stream_create(&stream) != 0)
        goto out;

    printf("write_lat %s: %s, NIC handler %s\n", client ? "client" : "server",
           c.gpu != NULL ? "1 CUDA thread" : "CPU execution, 1 thread",
           gdaki_nic_handler_name(c.handler));
    ex_lat_table_header();
    for (int i = 0; i < WRITE_LAT_NUM_SIZES; i++) {
        struct write_lat_job job = {
                .raddr = peer_buf.addr,
                .send = send_buf.addr,
                .recv = recv_buf.addr,
                .rkey_be = htobe32(peer_buf.rkey),
                .lkey_be = htobe32(send_buf.mr->lkey),
                .size = write_lat_size(i),
                .iterations = a->iterations,
                .client = client,
                .bf = c.handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
                .timeout_ns = WRITE_LAT_TIMEOUT_NS,
        };
        struct write_lat_result res;

        memset(&res, 0, sizeof(res));
        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d before the %u-byte run", (int)ex_signal, job.size);
            goto out;
        }
        if (c.gpu != NULL) {
            if (write_lat_gpu_run(c.qp_dev, &job, stream, &res) != 0)
                goto out;
        } else {
            write_lat_cpu_run(c.qp_dev, &job, &res);
        }
        /* A peer that died may first show as an error CQE or a message not coming: say why. */
        if (res.status != WRITE_LAT_OK && ex_oob_peer_gone_within(EX_OOB_GONE_MS))
            res.status = WRITE_LAT_PEER_GONE;
        if (res.status != WRITE_LAT_OK) {
            EX_ERR("%u-byte messages, iteration %u: %s", job.size, res.iteration,
                   write_lat_status_text(res.status));
            if (res.status != WRITE_LAT_PEER_GONE)
                ex_ctx_report_qp_error(&c);
            goto out;
        }
        ex_lat_table_row(job.size, a->iterations, res.elapsed_ns);
    }
    /* Neither side tears its QP down while the other may still be completing. */
    if (ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;
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
    int rc = ex_parse_args(&write_lat_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    ex_signals_install();
    rc = write_lat_run(&a);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
