/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_lat: an ib_write_lat-like ping-pong of
 * high-level puts that signal the peer. For each message size the client
 * puts a message to the server and adds 1 to the server's signal of the
 * size, the server waits for its signal to count the message and answers
 * the same way, `iterations` times; both sides run the data path (a
 * one-thread CUDA kernel, or with --exec cpu the main thread running the
 * same core) and print one-way and round-trip latencies.
 *
 * -w 0: doca_gpu_dev_verbs_put_signal, the signal an 8-byte fetch-add on
 * the peer's signal word. -w 1: doca_gpu_dev_verbs_put_immediate, one
 * RDMA write with immediate carrying the signal id of the size; each side
 * has a rank-local signal map with one signal per size (id: the size's
 * index) and a service draining its QP's receive queue into it, which also
 * rings a CPU_PROXY QP's doorbells (no proxy thread of ours in this mode).
 */
#include <endian.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doca_gpunetio_signal.h"
#include "ex_common.h"
#include "ex_gpu.h"
#include "ex_lat.h"
#include "ex_oob.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "put_signal_lat.h"

static const struct ex_info put_signal_lat_info = {
        .name = "gpunetio_verbs_put_signal_lat",
        .id = 6,
        .has_exec_scope = false,
        .has_signal_mode = true,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
        .refused_handlers = 1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
        .refused_handler_why = "GPU SM BlueFlame is not supported in this example",
};

#define PSL_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* ---- CPU execution: the kernel's loop, on the data-path core in C --------------------------- */

static uint32_t put_signal_lat_cpu_wait(const uint64_t *signal, uint64_t want, uint32_t immediate,
                                        struct doca_gpu_dev_verbs_qp *qp, bool posted,
                                        uint64_t last, uint64_t timeout_ns)
{
    uint64_t start = ex_now_ns();
    uint32_t spins = 0;

    /* Acquire: the message is in the receive buffer before its signal counts it. */
    while (put_signal_lat_count(__atomic_load_n(signal, __ATOMIC_ACQUIRE), immediate) < want) {
        /* Yield: on a small machine the software NIC and the service need this core. */
        sched_yield();
        if ((++spins & 255) != 0)
            continue;
        if (posted && gdaki_cq_poll_one_at(&qp->cq_sq, last) < 0)
            return WRITE_LAT_CQE_ERROR;
        if (ex_signal != 0)
            return WRITE_LAT_STOPPED;
        if (ex_oob_peer_gone())
            return WRITE_LAT_PEER_GONE;
        if (ex_now_ns() - start > timeout_ns)
            return WRITE_LAT_TIMEOUT;
    }
    return WRITE_LAT_OK;
}

static void put_signal_lat_cpu_run(struct doca_gpu_dev_verbs_qp *qp,
                                   const struct put_signal_lat_job *job,
                                   struct write_lat_result *result)
{
    uint32_t status = WRITE_LAT_OK;
    uint64_t ticket = 0;
    bool posted = false;
    uint32_t i;
    uint64_t t0 = ex_now_ns();

    for (i = 0; i < job->iterations; i++) {
        if (!job->client &&
            (status = put_signal_lat_cpu_wait(job->signal, i + 1ull, job->immediate, qp, posted,
                                              ticket, job->timeout_ns)) != WRITE_LAT_OK)
            break;
        /* AUTO: the handler the QP was exported with, as the kernel's calls do. */
        if (job->immediate)
            ticket = gdaki_put_imm(qp, job->raddr, job->laddr, job->size,
                                   gdaki_signal_imm(job->sig_id, 1), PSL_RSM,
                                   DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                                   DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        else
            ticket = gdaki_put_signal(qp, job->raddr, job->laddr, job->size, job->sig_raddr,
                                      job->sig_laddr, 1, PSL_RSM,
                                      DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                                      DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        posted = true;
        if (job->client &&
            (status = put_signal_lat_cpu_wait(job->signal, i + 1ull, job->immediate, qp, posted,
                                              ticket, job->timeout_ns)) != WRITE_LAT_OK)
            break;
    }
    result->elapsed_ns = ex_now_ns() - t0;
    if (status == WRITE_LAT_OK && posted && gdaki_wait(qp, ticket) != 0)
        status = WRITE_LAT_CQE_ERROR;
    result->status = status;
    result->iteration = i;
}

/* ---- Both sides ----------------------------------------------------------------------------- */

static const char *put_signal_lat_op(uint32_t immediate)
{
    return immediate ? "put_immediate" : "put_signal";
}

static const char *put_signal_lat_status_text(uint32_t status, uint32_t immediate)
{
    switch (status) {
    case WRITE_LAT_CQE_ERROR:
        return immediate ? "a put_immediate completed in error" : "a put_signal completed in error";
    case WRITE_LAT_TIMEOUT:
        return "the peer's signal did not count its message within 30 s";
    case WRITE_LAT_STOPPED:
        return "stopped by a signal";
    case WRITE_LAT_PEER_GONE:
        return "the peer closed the connection before reporting its results: it is gone";
    default:
        return "failed";
    }
}

/* -w 1: what receives the peer's signals. */
struct put_signal_lat_signals {
    struct doca_gpu_verbs_signal_map *map;
    uint32_t registered; /* ids 0 .. registered - 1 */
    doca_gpu_verbs_service_t service;
    bool attached;
};

/*
 * A rank-local signal map with one signal per message size (id z: slot z
 * of slots), and a service that drains the QP's receive queue into it.
 */
static int put_signal_lat_signals_start(struct put_signal_lat_signals *s, struct ex_ctx *c,
                                        uint64_t *slots)
{
    doca_error_t err = doca_gpu_verbs_signal_map_create(&s->map);

    if (err != DOCA_SUCCESS) {
        s->map = NULL;
        EX_ERR("doca_gpu_verbs_signal_map_create: %s", doca_error_get_descr(err));
        return -1;
    }
    for (; s->registered < WRITE_LAT_NUM_SIZES; s->registered++) {
        err = doca_gpu_verbs_signal_register(s->map, s->registered, &slots[s->registered]);
        if (err != DOCA_SUCCESS) {
            EX_ERR("doca_gpu_verbs_signal_register of signal %u: %s", s->registered,
                   doca_error_get_descr(err));
            return -1;
        }
    }
    err = doca_gpu_verbs_create_service(&s->service);
    if (err != DOCA_SUCCESS) {
        s->service = NULL;
        EX_ERR("doca_gpu_verbs_create_service: %s", doca_error_get_descr(err));
        return -1;
    }
    err = doca_gpu_verbs_service_monitor_qp(s->service, c->hl->qp_gverbs);
    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_gpu_verbs_service_monitor_qp: %s", doca_error_get_descr(err));
        return -1;
    }
    err = doca_gpu_verbs_service_set_signal_map(s->service, s->map);
    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_gpu_verbs_service_set_signal_map: %s", doca_error_get_descr(err));
        return -1;
    }
    s->attached = true;
    EX_INFO("signal map of %u signals (one per message size) attached to a service monitoring "
            "the QP%s",
            s->registered,
            c->handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY
                    ? "; the service rings the QP's doorbells (CPU proxy)"
                    : "");
    return 0;
}

/* Stops the service (before the QP may go) and frees the map. */
static void put_signal_lat_signals_stop(struct put_signal_lat_signals *s)
{
    if (s->attached && doca_gpu_verbs_service_set_signal_map(s->service, NULL) != DOCA_SUCCESS)
        EX_ERR("cannot detach the signal map from the service");
    if (s->service != NULL && doca_gpu_verbs_destroy_service(s->service) != DOCA_SUCCESS)
        EX_ERR("doca_gpu_verbs_destroy_service failed");
    while (s->registered > 0)
        doca_gpu_verbs_signal_unregister(s->map, --s->registered);
    if (s->map != NULL && doca_gpu_verbs_signal_map_destroy(s->map) != DOCA_SUCCESS)
        EX_ERR("doca_gpu_verbs_signal_map_destroy failed");
    memset(s, 0, sizeof(*s));
}

static struct doca_gpu_dev_verbs_addr put_signal_lat_addr(uint64_t addr, uint32_t key)
{
    struct doca_gpu_dev_verbs_addr a = {.addr = addr, .key = htobe32(key)};

    return a;
}

static int put_signal_lat_run(const struct ex_args *a)
{
    bool client = a->server_ip != NULL;
    uint32_t immediate = a->signal_mode;
    /* -w 0: the peer needs this side's receive buffer and signals; -w 1 its receive buffer. */
    uint32_t nbufs = immediate ? 1 : 2;
    struct ex_buf recv_buf, send_buf, sig_buf;
    struct ex_remote_buf mine_bufs[2], peer_bufs[2];
    struct put_signal_lat_signals sigs;
    struct ex_qp_info mine, peer;
    struct ex_ctx c;
    void *stream = NULL;
    int fd = -1;
    int ret = -1;
    int rc;

    memset(&recv_buf, 0, sizeof(recv_buf));
    memset(&send_buf, 0, sizeof(send_buf));
    memset(&sig_buf, 0, sizeof(sig_buf));
    memset(&sigs, 0, sizeof(sigs));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    rc = client ? ex_oob_client(a->server_ip, a->port, &fd) : ex_oob_server(a->port, &fd);
    if (rc != EX_OOB_OK || ex_oob_hello(fd, &put_signal_lat_info, a->iterations) != EX_OOB_OK ||
        ex_oob_agree(fd, "-w", immediate) != EX_OOB_OK)
        goto out;
    /* A collapsed send CQ; -w 1 adds a receive queue, and then no proxy thread is started. */
    rc = immediate ? ex_ctx_create_qp_rq(&c, EX_SQ_WQES, true, PUT_SIGNAL_LAT_RQ_WQES)
                   : ex_ctx_create_qp(&c, EX_SQ_WQES, true);
    if (rc != 0)
        goto out;
    /* The send buffer ends with the fetch slot: where put_signal's fetch-add returns the old value.
     */
    if (ex_buf_create(&c, WRITE_LAT_MAX_SIZE,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
                      &recv_buf) != 0 ||
        ex_buf_create(&c, WRITE_LAT_MAX_SIZE + DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE,
                      IBV_ACCESS_LOCAL_WRITE, &send_buf) != 0 ||
        ex_buf_create(&c, WRITE_LAT_NUM_SIZES * DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE,
                      IBV_ACCESS_LOCAL_WRITE |
                              (immediate ? 0 : IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC),
                      &sig_buf) != 0)
        goto out;
    if (immediate && put_signal_lat_signals_start(&sigs, &c, sig_buf.addr) != 0)
        goto out;
    mine_bufs[0] = ex_buf_remote(&recv_buf);
    mine_bufs[1] = ex_buf_remote(&sig_buf);
    if (ex_lat_exchange_bufs(fd, client, mine_bufs, peer_bufs, nbufs) != 0)
        goto out;
    if (peer_bufs[0].len < WRITE_LAT_MAX_SIZE ||
        (!immediate &&
         peer_bufs[1].len < WRITE_LAT_NUM_SIZES * DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE)) {
        EX_ERR("the peer's receive buffer or signals are too small (%llu bytes, %d needed)",
               (unsigned long long)peer_bufs[0].len, WRITE_LAT_MAX_SIZE);
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

    printf("put_signal_lat %s: %s, %s, NIC handler %s\n", client ? "client" : "server",
           c.gpu != NULL ? "1 CUDA thread" : "CPU execution, 1 thread",
           immediate ? "put_immediate and a signal map" : "put_signal",
           gdaki_nic_handler_name(c.handler));
    ex_lat_table_header();
    for (int i = 0; i < WRITE_LAT_NUM_SIZES; i++) {
        uint64_t sig_off = (uint64_t)i * DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE;
        struct put_signal_lat_job job = {
                .raddr = put_signal_lat_addr(peer_bufs[0].addr, peer_bufs[0].rkey),
                .laddr = put_signal_lat_addr((uint64_t)(uintptr_t)send_buf.addr, send_buf.mr->lkey),
                .signal = (const uint64_t *)sig_buf.addr + i,
                .sig_id = (uint32_t)i,
                .size = write_lat_size(i),
                .iterations = a->iterations,
                .client = client,
                .immediate = immediate,
                .timeout_ns = WRITE_LAT_TIMEOUT_NS,
        };
        struct write_lat_result res;

        if (!immediate) {
            job.sig_raddr = put_signal_lat_addr(peer_bufs[1].addr + sig_off, peer_bufs[1].rkey);
            job.sig_laddr = put_signal_lat_addr(
                    (uint64_t)(uintptr_t)send_buf.addr + WRITE_LAT_MAX_SIZE, send_buf.mr->lkey);
        }
        memset(&res, 0, sizeof(res));
        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d before the %u-byte run", (int)ex_signal, job.size);
            goto out;
        }
        if (c.gpu != NULL) {
            if (put_signal_lat_gpu_run(c.qp_dev, &job, stream, &res) != 0)
                goto out;
        } else {
            put_signal_lat_cpu_run(c.qp_dev, &job, &res);
        }
        /* A peer that died may first show as an error CQE or a signal not coming: say why. */
        if (res.status != WRITE_LAT_OK && ex_oob_peer_gone_within(EX_OOB_GONE_MS))
            res.status = WRITE_LAT_PEER_GONE;
        if (res.status != WRITE_LAT_OK) {
            EX_ERR("%u-byte messages (%s), iteration %u: %s", job.size,
                   put_signal_lat_op(immediate), res.iteration,
                   put_signal_lat_status_text(res.status, immediate));
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
    /* The service first: a QP it monitors cannot be destroyed. */
    put_signal_lat_signals_stop(&sigs);
    ex_buf_destroy(&c, &sig_buf);
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
    int rc = ex_parse_args(&put_signal_lat_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    ex_signals_install();
    rc = put_signal_lat_run(&a);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
