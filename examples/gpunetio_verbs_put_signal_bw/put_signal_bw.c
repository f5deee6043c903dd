/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_bw: an ib_write_bw-like benchmark of the
 * high-level put_signal. For each message size the client runs, twice (a
 * warm-up, then the timed run), `iterations` RDMA writes into the server's
 * buffer of that size from a CUDA kernel of 512 threads in 2 blocks sharing
 * one QP (or, with --exec cpu, from PSB_CPU_THREADS CPU threads sharing
 * it), each followed by a fetch-add of 1 on the thread's own signal at the
 * server (-e 1: one per warp, on lane 0's), and prints bandwidth, message
 * rate and time. With -w 1 each write is instead one RDMA write with
 * immediate (put_immediate) whose immediate carries the thread's signal id
 * and 1: the server's QP has a receive queue that a service drains into the
 * server's signal map. The server launches no benchmark kernel: once the
 * client reports that all its runs have completed it waits (up to 10 s)
 * for every signal to reach its total, checks every byte the writes
 * delivered and every signal, and logs the signals' sum per size.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doca_gpunetio_signal.h"
#include "ex_bw.h"
#include "ex_common.h"
#include "ex_gpu.h"
#include "ex_oob.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "put_signal_bw.h"

static const struct ex_info psb_info = {
        .name = "gpunetio_verbs_put_signal_bw",
        .id = 5,
        .has_exec_scope = true,
        .has_signal_mode = true,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
        .refused_handlers = 1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
        .refused_handler_why = "GPU SM BlueFlame is not supported in this example",
};

/* The server's receive queue (-w 1): one WQE per write with immediate, handed back by the service.
 */
#define PSB_RQ_WQES        2048
#define PSB_SIGNAL_WAIT_NS (10ull * 1000 * 1000 * 1000)

static bool psb_warp(const struct ex_args *a)
{
    return a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP;
}

static int psb_doca_failed(doca_error_t err, const char *what)
{
    if (err == DOCA_SUCCESS)
        return 0;
    EX_ERR("%s: %s (%s)", what, doca_error_get_descr(err), doca_error_get_name(err));
    return -1;
}

/*
 * After the hello: both sides must run the same -w and -e; the client then
 * tells the server how many threads (and so signals per size) it runs.
 */
static int psb_agree(int fd, const struct ex_args *a, uint32_t *threads)
{
    uint32_t be;

    if (ex_oob_agree(fd, "-w", a->signal_mode) != EX_OOB_OK ||
        ex_oob_agree(fd, "-e", psb_warp(a) ? 1 : 0) != EX_OOB_OK)
        return -1;
    if (a->server_ip != NULL) {
        be = htobe32(*threads);
        return ex_oob_send(fd, &be, sizeof(be)) == EX_OOB_OK ? 0 : -1;
    }
    if (ex_oob_recv(fd, &be, sizeof(be)) != EX_OOB_OK) {
        EX_ERR("the client closed the connection before saying how many threads it runs");
        return -1;
    }
    *threads = be32toh(be);
    if (*threads == 0 || *threads > PSB_GPU_THREADS || a->iterations % *threads != 0 ||
        (psb_warp(a) && *threads % PSB_WARP_SIZE != 0)) {
        EX_ERR("the client runs %u threads: -i %u is not a whole share for each", *threads,
               a->iterations);
        return -1;
    }
    return 0;
}

/* Creates the QP's peer connection and meets the peer once both are ready. */
static int psb_connect(struct ex_ctx *c, int fd)
{
    struct ex_qp_info mine, peer;

    if (ex_ctx_qp_info(c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        return -1;
    return 0;
}

/* ---- Server: signals ------------------------------------------------------------------------ */

struct psb_signals {
    uint32_t count;   /* EX_BW_NUM_SIZES * threads */
    uint32_t threads; /* the client's */
    uint32_t lane_stride;
    uint64_t value; /* what each counted signal ends at */
    uint64_t *slots;
    bool gpu;
    bool big_endian;   /* -w 0: the NIC's fetch-adds keep them big-endian */
    struct ex_buf buf; /* -w 0: the registered buffer the fetch-adds target */
    /* -w 1 */
    struct doca_gpu_verbs_signal_map *map;
    doca_gpu_verbs_service_t service;
    uint32_t registered;
    bool attached;
};

static int psb_signals_create(struct ex_ctx *c, const struct ex_args *a, struct psb_signals *s)
{
    size_t len = (size_t)s->count * DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE;
    doca_error_t err;

    s->gpu = c->gpu != NULL;
    if (a->signal_mode == 0) {
        if (ex_buf_create(c, len,
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
                          &s->buf) != 0)
            return -1;
        s->slots = s->buf.addr;
        s->big_endian = true;
        EX_INFO("%u signals registered for fetch-adds in %s memory", s->count,
                s->gpu ? "GPU" : "host");
        return 0;
    }
    /* -w 1: slots of the signal map, in GPU memory with GPU execution. */
    if (s->gpu) {
        void *p = NULL;

        err = doca_gpu_mem_alloc(c->gpu, len, DOCA_GPUNETIO_VERBS_PAGE_SIZE, DOCA_GPU_MEM_TYPE_GPU,
                                 &p, NULL);
        if (psb_doca_failed(err, "doca_gpu_mem_alloc (signal slots)"))
            return -1;
        s->slots = p;
    } else {
        s->slots = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
        if (s->slots == NULL) {
            EX_ERR("out of memory for %u signal slots", s->count);
            return -1;
        }
    }
    if (psb_doca_failed(doca_gpu_verbs_signal_map_create(&s->map),
                        "doca_gpu_verbs_signal_map_create") ||
        psb_doca_failed(doca_gpu_verbs_signal_register_range(s->map, 0, s->count, s->slots),
                        "doca_gpu_verbs_signal_register_range"))
        return -1;
    s->registered = s->count;
    if (psb_doca_failed(doca_gpu_verbs_create_service(&s->service),
                        "doca_gpu_verbs_create_service") ||
        psb_doca_failed(doca_gpu_verbs_service_set_signal_map(s->service, s->map),
                        "doca_gpu_verbs_service_set_signal_map"))
        return -1;
    s->attached = true;
    if (psb_doca_failed(doca_gpu_verbs_service_monitor_qp(s->service, c->hl->qp_gverbs),
                        "doca_gpu_verbs_service_monitor_qp"))
        return -1;
    EX_INFO("signal map of %u signals (slots in %s memory) given to a service draining the QP's "
            "receive queue",
            s->count, s->gpu ? "GPU" : "host");
    return 0;
}

static void psb_signals_destroy(struct ex_ctx *c, struct psb_signals *s)
{
    if (s->attached)
        doca_gpu_verbs_service_set_signal_map(s->service, NULL);
    if (s->service != NULL)
        psb_doca_failed(doca_gpu_verbs_destroy_service(s->service),
                        "doca_gpu_verbs_destroy_service");
    for (uint32_t id = 0; id < s->registered; id++)
        doca_gpu_verbs_signal_unregister(s->map, id);
    if (s->map != NULL)
        psb_doca_failed(doca_gpu_verbs_signal_map_destroy(s->map),
                        "doca_gpu_verbs_signal_map_destroy");
    if (s->buf.addr != NULL)
        ex_buf_destroy(c, &s->buf);
    else if (s->slots != NULL && s->gpu)
        doca_gpu_mem_free(c->gpu, s->slots);
    else
        free(s->slots);
    memset(s, 0, sizeof(*s));
}

/* The signals' sums and how many miss their value: a kernel for GPU memory, else a CPU loop. */
static int psb_signals_tally(const struct psb_signals *s, struct psb_tally *t)
{
    if (s->gpu)
        return psb_gpu_tally(s->slots, s->count, s->big_endian, s->threads, s->lane_stride,
                             s->value, t);
    memset(t, 0, sizeof(*t));
    t->first_wrong = UINT32_MAX;
    for (uint32_t id = 0; id < s->count; id++) {
        uint64_t raw = __atomic_load_n(&s->slots[id], __ATOMIC_ACQUIRE);
        uint64_t v = s->big_endian ? be64toh(raw) : raw;
        uint64_t want = psb_expected(id, s->threads, s->lane_stride, s->value);

        t->sum[id / s->threads] += v;
        if (v < want)
            t->short_count++;
        if (v != want && t->wrong_count++ == 0) {
            t->first_wrong = id;
            t->first_wrong_value = v;
        }
    }
    return 0;
}

/* Waits up to 10 s for every signal to reach its value, then checks each and logs the sums. */
static int psb_signals_check(const struct psb_signals *s)
{
    const uint64_t deadline = ex_now_ns() + PSB_SIGNAL_WAIT_NS;
    struct psb_tally t;

    for (;;) {
        if (psb_signals_tally(s, &t) != 0)
            return -1;
        if (t.short_count == 0)
            break;
        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d while %u signals were short of %llu: data not validated",
                   (int)ex_signal, t.short_count, (unsigned long long)s->value);
            return -1;
        }
        if (ex_now_ns() > deadline) {
            EX_ERR("Validation error: after 10 s %u of %u signals are still short of %llu",
                   t.short_count, s->count, (unsigned long long)s->value);
            return -1;
        }
        const struct timespec nap = {0, 1000000};

        nanosleep(&nap, NULL);
    }
    if (t.wrong_count != 0) {
        uint32_t id = t.first_wrong;

        EX_ERR("Validation error: signal %u (%zu-byte messages, thread %u) holds %llu, expected "
               "%llu (%u signals wrong)",
               id, ex_bw_size((int)(id / s->threads)), id % s->threads,
               (unsigned long long)t.first_wrong_value,
               (unsigned long long)psb_expected(id, s->threads, s->lane_stride, s->value),
               t.wrong_count);
        return -1;
    }
    for (int i = 0; i < EX_BW_NUM_SIZES; i++)
        printf("signals of the %zu-byte messages: %u, sum %llu\n", ex_bw_size(i), s->threads,
               (unsigned long long)t.sum[i]);
    fflush(stdout);
    return 0;
}

/* ---- Server --------------------------------------------------------------------------------- */

static int psb_server(const struct ex_args *a)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES + 1];
    struct psb_signals sig;
    struct ex_ctx c;
    uint32_t nremote = EX_BW_NUM_SIZES;
    uint32_t threads = 0;
    uint32_t code = 0;
    int fd = -1;
    int ret = -1;
    int rc;

    memset(bufs, 0, sizeof(bufs));
    memset(&sig, 0, sizeof(sig));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    if (ex_oob_server(a->port, &fd) != EX_OOB_OK ||
        ex_oob_hello(fd, &psb_info, a->iterations) != EX_OOB_OK || psb_agree(fd, a, &threads))
        goto out;
    sig.threads = threads;
    sig.count = EX_BW_NUM_SIZES * threads;
    sig.lane_stride = psb_warp(a) ? PSB_WARP_SIZE : 1;
    sig.value = (uint64_t)PSB_RUNS * (a->iterations / threads);
    rc = a->signal_mode != 0 ? ex_ctx_create_qp_rq(&c, EX_SQ_WQES, false, PSB_RQ_WQES)
                             : ex_ctx_create_qp(&c, EX_SQ_WQES, false);
    if (rc != 0 ||
        ex_bw_bufs_create(&c, a->iterations,
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
                          0, bufs) != 0 ||
        psb_signals_create(&c, a, &sig) != 0)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++)
        remote[i] = ex_buf_remote(&bufs[i]);
    /* -w 0: the signals' buffer follows the data buffers; -w 1 has no remote signal address. */
    if (a->signal_mode == 0)
        remote[nremote++] = ex_buf_remote(&sig.buf);
    EX_INFO("%d target buffers registered in %s memory", EX_BW_NUM_SIZES,
            c.gpu != NULL ? "GPU" : "host");
    if (ex_oob_send_bufs(fd, remote, nremote) != EX_OOB_OK || psb_connect(&c, fd) != 0)
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
    EX_INFO("the client reports all runs completed: validating (signals must reach %llu)",
            (unsigned long long)sig.value);
    if (psb_signals_check(&sig) == 0 && ex_bw_bufs_check(bufs, a->iterations) == 0) {
        EX_WARN("Validation successful! Data received correctly from client.");
        ret = 0;
    }
    ex_oob_send_code(fd, ret == 0 ? EX_OOB_CODE_VALID_OK : EX_OOB_CODE_VALID_FAIL);
out:
    psb_signals_destroy(&c, &sig);
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

/* ---- Client, CPU execution ------------------------------------------------------------------ */

struct psb_cpu {
    struct doca_gpu_dev_verbs_qp *qp;
    struct psb_job job;
};

/* Thread index of PSB_CPU_THREADS: puts index, index + N, ..., then waits for its last. */
static int psb_cpu_thread(void *arg, uint32_t index)
{
    struct psb_cpu *run = arg;
    const struct psb_job *j = &run->job;
    const uint32_t share = j->iterations / PSB_CPU_THREADS;
    const struct doca_gpu_dev_verbs_addr sig_raddr = {j->sig_raddr + 8ull * index, j->sig_rkey_be};
    const struct doca_gpu_dev_verbs_addr sig_laddr = {j->sig_laddr + 8ull * index, j->sig_lkey_be};
    uint64_t ticket = 0;
    uint64_t prev;

    if (share == 0)
        return 0;
    for (uint32_t k = index; k < j->iterations; k += PSB_CPU_THREADS) {
        uint64_t off = (uint64_t)(k % j->slots) * j->size;
        struct doca_gpu_dev_verbs_addr raddr = {j->raddr + off, j->rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {j->laddr + off, j->lkey_be};

        if (j->imm)
            ticket = gdaki_put_imm(
                    run->qp, raddr, laddr, j->size, gdaki_signal_imm(j->first_sig_id + index, 1),
                    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                    DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        else
            ticket = gdaki_put_signal(run->qp, raddr, laddr, j->size, sig_raddr, sig_laddr, 1,
                                      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                                      DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                                      DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
    }
    if (gdaki_wait(run->qp, ticket) != 0) {
        EX_ERR("a %s of %llu bytes completed in error", j->imm ? "put_immediate" : "put_signal",
               (unsigned long long)j->size);
        return -1;
    }
    if (j->imm)
        return 0;
    /* Only this thread adds to its signal: its last fetch-add returned run * share - 1
     * (big-endian). */
    prev = be64toh(__atomic_load_n((uint64_t *)(uintptr_t)sig_laddr.addr, __ATOMIC_ACQUIRE));
    if (prev != (uint64_t)j->run * share - 1) {
        EX_ERR("thread %u's last fetch-add of %llu-byte run %u returned %llu, expected %llu", index,
               (unsigned long long)j->size, j->run, (unsigned long long)prev,
               (unsigned long long)j->run * share - 1);
        return -1;
    }
    return 0;
}

static int psb_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct psb_job *job,
                       double *elapsed_us)
{
    struct psb_cpu run = {.qp = qp, .job = *job};

    return ex_bw_cpu_run(PSB_CPU_THREADS, psb_cpu_thread, &run, elapsed_us);
}

/* ---- Client --------------------------------------------------------------------------------- */

static int psb_client(const struct ex_args *a)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES + 1];
    struct ex_buf prev;
    struct ex_ctx c;
    uint32_t threads = a->exec == EX_EXEC_GPU ? PSB_GPU_THREADS : PSB_CPU_THREADS;
    uint32_t nremote = a->signal_mode == 0 ? EX_BW_NUM_SIZES + 1 : EX_BW_NUM_SIZES;
    const char *op = a->signal_mode == 0 ? "put_signal" : "put_immediate";
    void *stream = NULL;
    uint32_t code = 0;
    int fd = -1;
    int ret = -1;

    memset(bufs, 0, sizeof(bufs));
    memset(&prev, 0, sizeof(prev));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    if (ex_oob_client(a->server_ip, a->port, &fd) != EX_OOB_OK ||
        ex_oob_hello(fd, &psb_info, a->iterations) != EX_OOB_OK || psb_agree(fd, a, &threads))
        goto out;
    /* The source buffers hold the pattern the server checks; -w 0's previous values come back. */
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, false) != 0 ||
        ex_bw_bufs_create(&c, a->iterations, IBV_ACCESS_LOCAL_WRITE, 1, bufs) != 0 ||
        (a->signal_mode == 0 && ex_buf_create(&c, (size_t)EX_BW_NUM_SIZES * threads * 8,
                                              IBV_ACCESS_LOCAL_WRITE, &prev) != 0) ||
        ex_oob_recv_bufs(fd, remote, nremote) != EX_OOB_OK)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        if (remote[i].len != bufs[i].len) {
            EX_ERR("the server's buffer %d holds %llu bytes, %zu expected", i,
                   (unsigned long long)remote[i].len, bufs[i].len);
            goto out;
        }
    }
    if (a->signal_mode == 0 && remote[EX_BW_NUM_SIZES].len != prev.len) {
        EX_ERR("the server's signals take %llu bytes, %zu expected",
               (unsigned long long)remote[EX_BW_NUM_SIZES].len, prev.len);
        goto out;
    }
    if (psb_connect(&c, fd) != 0 || (c.gpu != NULL && ex_gpu_stream_create(&stream) != 0))
        goto out;

    if (c.gpu != NULL)
        printf("put_signal_bw: GPU %s, %d blocks x %d threads (%s scope), %s, 1 QP, NIC handler "
               "%s\n",
               c.gpu_bus_id, PSB_GPU_BLOCKS, PSB_GPU_BLOCK_THREADS, psb_warp(a) ? "warp" : "thread",
               op, gdaki_nic_handler_name(c.handler));
    else
        printf("put_signal_bw: CPU execution, %d threads, %s, 1 QP, NIC handler %s\n",
               PSB_CPU_THREADS, op, gdaki_nic_handler_name(c.handler));
    ex_bw_table_header();
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        struct psb_job job = {
                .raddr = remote[i].addr,
                .laddr = (uint64_t)(uintptr_t)bufs[i].addr,
                .size = ex_bw_size(i),
                .rkey_be = htobe32(remote[i].rkey),
                .lkey_be = htobe32(bufs[i].mr->lkey),
                .slots = ex_bw_slots(a->iterations, ex_bw_size(i)),
                .iterations = a->iterations,
                .first_sig_id = (uint32_t)i * threads,
                .imm = a->signal_mode,
        };
        double us = 0;

        if (a->signal_mode == 0) {
            job.sig_raddr = remote[EX_BW_NUM_SIZES].addr + 8ull * i * threads;
            job.sig_rkey_be = htobe32(remote[EX_BW_NUM_SIZES].rkey);
            job.sig_laddr = (uint64_t)(uintptr_t)prev.addr + 8ull * i * threads;
            job.sig_lkey_be = htobe32(prev.mr->lkey);
        }
        /* A warm-up run, then the timed one: every signal ends at 2 * (iterations / threads). */
        for (job.run = 1; job.run <= PSB_RUNS; job.run++) {
            int rc;

            if (ex_signal != 0) {
                EX_ERR("stopped by signal %d before the %zu-byte run", (int)ex_signal,
                       ex_bw_size(i));
                goto out;
            }
            rc = c.gpu != NULL ? psb_gpu_run(c.qp_dev, &job, psb_warp(a), stream, &us)
                               : psb_cpu_run(c.qp_dev, &job, &us);
            if (rc != 0) {
                ex_ctx_report_qp_error(&c);
                goto out;
            }
        }
        ex_bw_table_row(job.size, a->iterations, us);
    }
    if (ex_oob_send_code(fd, EX_OOB_CODE_RUNS_DONE) != EX_OOB_OK)
        goto out;
    EX_INFO("all runs completed and reported to the server");
    if (ex_oob_recv_code(fd, &code) != EX_OOB_OK) {
        EX_ERR("the server closed the connection without its validation result");
        goto out;
    }
    if (code != EX_OOB_CODE_VALID_OK) {
        EX_ERR("the server reports that the data or the signals it received are not what was "
               "sent");
        goto out;
    }
    EX_INFO("the server validated the data and the signals");
    ret = 0;
out:
    ex_gpu_stream_destroy(stream);
    ex_buf_destroy(&c, &prev);
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

int main(int argc, char **argv)
{
    struct ex_args a;
    int rc = ex_parse_args(&psb_info, argc, argv, &a);
    uint32_t threads;

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (a.signal_mode != 0 && psb_warp(&a)) {
        EX_ERR("-w 1 with -e 1 is refused: the immediate of one RDMA write carries one signal id, "
               "so put_immediate is thread scope only");
        return EXIT_FAILURE;
    }
    threads = a.exec == EX_EXEC_GPU ? PSB_GPU_THREADS : PSB_CPU_THREADS;
    if (a.server_ip != NULL && a.iterations % threads != 0) {
        EX_ERR("-i %u: the iterations must be a multiple of %u (the %s threads, which take equal "
               "shares, one signal each)",
               a.iterations, threads, a.exec == EX_EXEC_GPU ? "CUDA" : "CPU");
        return EXIT_FAILURE;
    }
    ex_signals_install();
    rc = a.server_ip != NULL ? psb_client(&a) : psb_server(&a);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
