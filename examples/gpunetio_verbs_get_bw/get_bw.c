/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_get_bw: an ib_read_bw-like benchmark of the high-level
 * get. The server fills one buffer per message size with a known pattern
 * and launches nothing; the client runs, for each size, `iterations` RDMA
 * reads of the server's buffer into its own, from a CUDA kernel of 512
 * threads in 2 blocks sharing one QP (or, with --exec cpu, from
 * GET_BW_CPU_THREADS CPU threads sharing it), prints bandwidth, message
 * rate and time, then checks every byte it read. The server keeps its
 * buffers registered until the client reports that the data is right.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ex_bw.h"
#include "ex_common.h"
#include "ex_gpu.h"
#include "ex_oob.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "get_bw.h"

/* Compute capability 9.0 (Hopper) and newer need no dump to see what the NIC wrote. */
#define GET_BW_HOPPER_MAJOR 9

static const struct ex_info get_bw_info = {
        .name = "gpunetio_verbs_get_bw",
        .id = 4,
        .has_exec_scope = true,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
};

/* ---- Server --------------------------------------------------------------------------------- */

static int get_bw_server(const struct ex_args *a)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES];
    struct ex_qp_info mine, peer;
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
        ex_oob_hello(fd, &get_bw_info, a->iterations) != EX_OOB_OK)
        goto out;
    /* The buffers the client reads, holding the pattern it checks. */
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, false) != 0 ||
        ex_bw_bufs_create(&c, a->iterations, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 1,
                          bufs) != 0)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++)
        remote[i] = ex_buf_remote(&bufs[i]);
    EX_INFO("%d source buffers filled and registered in %s memory", EX_BW_NUM_SIZES,
            c.gpu != NULL ? "GPU" : "host");
    if (ex_oob_send_bufs(fd, remote, EX_BW_NUM_SIZES) != EX_OOB_OK ||
        ex_ctx_qp_info(&c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(&c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;

    EX_INFO("waiting for the client to report that all its runs completed");
    rc = ex_oob_recv_code(fd, &code);
    if (rc == EX_OOB_OK && code == EX_OOB_CODE_RUNS_DONE) {
        EX_INFO("the client reports all runs completed: waiting for its validation");
        rc = ex_oob_recv_code(fd, &code);
        if (rc == EX_OOB_CLOSED) {
            EX_ERR("the client closed the connection before reporting its validation");
            goto out;
        }
    } else if (rc == EX_OOB_CLOSED) {
        EX_ERR("the client closed the connection before reporting that all runs completed");
        goto out;
    }
    if (rc == EX_OOB_SIGNAL) {
        EX_ERR("stopped by signal %d before the client reported", (int)ex_signal);
        goto out;
    }
    if (rc == EX_OOB_OK && code == EX_OOB_CODE_VALID_FAIL) {
        EX_ERR("the client reports that the data it read is not what this server holds");
        goto out;
    }
    if (rc != EX_OOB_OK || code != EX_OOB_CODE_VALID_OK) {
        EX_ERR("unexpected message 0x%08x from the client", code);
        goto out;
    }
    EX_INFO("the client read every buffer correctly");
    ret = 0;
out:
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

/* ---- Client, CPU execution ------------------------------------------------------------------ */

struct get_bw_cpu {
    struct doca_gpu_dev_verbs_qp *qp;
    struct get_bw_job job;
};

/* Thread index of GET_BW_CPU_THREADS: gets index, index + N, ..., then waits for its last. */
static int get_bw_cpu_thread(void *arg, uint32_t index)
{
    struct get_bw_cpu *run = arg;
    const struct get_bw_job *j = &run->job;
    const struct doca_gpu_dev_verbs_addr none = {0, 0};
    uint64_t ticket = 0;
    bool posted = false;
    int status;

    for (uint32_t k = index; k < j->iterations; k += GET_BW_CPU_THREADS) {
        uint64_t off = (uint64_t)(k % j->slots) * j->size;
        struct doca_gpu_dev_verbs_addr raddr = {j->raddr + off, j->rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {j->laddr + off, j->lkey_be};

        /* Host memory: the CPU sees what the NIC wrote once the read completes; no dump. */
        ticket = gdaki_get(run->qp, raddr, laddr, j->size, none, 0, 0, &status,
                           DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                           DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                           DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        posted = true;
    }
    return posted ? gdaki_wait(run->qp, ticket) : 0;
}

static int get_bw_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct get_bw_job *job,
                          double *elapsed_us)
{
    struct get_bw_cpu run = {.qp = qp, .job = *job};

    if (ex_bw_cpu_run(GET_BW_CPU_THREADS, get_bw_cpu_thread, &run, elapsed_us) != 0) {
        EX_ERR("a get of %llu bytes completed in error", (unsigned long long)job->size);
        return -1;
    }
    return 0;
}

/* ---- Client --------------------------------------------------------------------------------- */

/* Whether the kernel must wait with get_wait + MCST_ENABLED: GPUs older than Hopper. */
static int get_bw_needs_mcst(int *mcst)
{
    int major = 0, minor = 0;

    if (ex_gpu_compute_capability(&major, &minor) != 0)
        return -1;
    *mcst = major < GET_BW_HOPPER_MAJOR;
    EX_INFO("GPU compute capability %d.%d: %s", major, minor,
            *mcst ? "older than Hopper, waiting with doca_gpu_dev_verbs_get_wait and "
                    "DOCA_GPUNETIO_VERBS_MCST_ENABLED (a dump WQE makes the reads visible)"
                  : "Hopper or newer, waiting with doca_gpu_dev_verbs_wait");
    return 0;
}

static int get_bw_client(const struct ex_args *a)
{
    struct ex_buf bufs[EX_BW_NUM_SIZES];
    struct ex_remote_buf remote[EX_BW_NUM_SIZES];
    struct ex_qp_info mine, peer;
    struct ex_ctx c;
    void *stream = NULL;
    int mcst = 0;
    int fd = -1;
    int ret = -1;

    memset(bufs, 0, sizeof(bufs));
    memset(&c, 0, sizeof(c));
    /* The device (-d, -l) and the GPU first: a bad name is reported at once, not after connecting.
     */
    if (ex_ctx_open(&c, a) != 0)
        goto out;
    if (ex_oob_client(a->server_ip, a->port, &fd) != EX_OOB_OK ||
        ex_oob_hello(fd, &get_bw_info, a->iterations) != EX_OOB_OK)
        goto out;
    /* The buffers the reads land in, zeroed (the pattern never holds a 0). */
    if (ex_ctx_create_qp(&c, EX_SQ_WQES, false) != 0 ||
        ex_bw_bufs_create(&c, a->iterations, IBV_ACCESS_LOCAL_WRITE, 0, bufs) != 0)
        goto out;
    if (ex_oob_recv_bufs(fd, remote, EX_BW_NUM_SIZES) != EX_OOB_OK)
        goto out;
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        if (remote[i].len != bufs[i].len) {
            EX_ERR("the server's buffer %d holds %llu bytes, %zu expected", i,
                   (unsigned long long)remote[i].len, bufs[i].len);
            goto out;
        }
    }
    if (ex_ctx_qp_info(&c, &mine) != 0 || ex_oob_exchange_qp(fd, &mine, &peer) != EX_OOB_OK ||
        ex_ctx_connect(&c, &peer) != 0 || ex_oob_barrier(fd) != EX_OOB_OK)
        goto out;
    if (c.gpu != NULL && (ex_gpu_stream_create(&stream) != 0 || get_bw_needs_mcst(&mcst) != 0))
        goto out;

    if (c.gpu != NULL)
        printf("get_bw: GPU %s, %d blocks x %d threads (%s scope), 1 QP, NIC handler %s\n",
               c.gpu_bus_id, GET_BW_GPU_BLOCKS, GET_BW_GPU_BLOCK_THREADS,
               a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP ? "warp" : "thread",
               gdaki_nic_handler_name(c.handler));
    else
        printf("get_bw: CPU execution, %d threads, 1 QP, NIC handler %s\n", GET_BW_CPU_THREADS,
               gdaki_nic_handler_name(c.handler));
    ex_bw_table_header();
    for (int i = 0; i < EX_BW_NUM_SIZES; i++) {
        struct get_bw_job job = {
                .raddr = remote[i].addr,
                .laddr = (uint64_t)(uintptr_t)bufs[i].addr,
                .size = ex_bw_size(i),
                .rkey_be = htobe32(remote[i].rkey),
                .lkey_be = htobe32(bufs[i].mr->lkey),
                .slots = ex_bw_slots(a->iterations, ex_bw_size(i)),
                .iterations = a->iterations,
        };
        bool warp = a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP;
        double us = 0;
        int rc;

        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d before the %zu-byte run", (int)ex_signal, ex_bw_size(i));
            goto out;
        }
        rc = c.gpu != NULL ? get_bw_gpu_run(c.qp_dev, &job, warp, mcst, stream, &us)
                           : get_bw_cpu_run(c.qp_dev, &job, &us);
        if (rc != 0) {
            ex_ctx_report_qp_error(&c);
            goto out;
        }
        ex_bw_table_row(job.size, a->iterations, us);
    }
    if (ex_oob_send_code(fd, EX_OOB_CODE_RUNS_DONE) != EX_OOB_OK)
        goto out;
    EX_INFO("all runs completed: validating what was read");
    if (ex_bw_bufs_check(bufs, a->iterations) != 0) {
        ex_oob_send_code(fd, EX_OOB_CODE_VALID_FAIL);
        goto out;
    }
    if (ex_oob_send_code(fd, EX_OOB_CODE_VALID_OK) != EX_OOB_OK)
        goto out;
    EX_WARN("Validation successful! Data read correctly from server");
    ret = 0;
out:
    ex_gpu_stream_destroy(stream);
    ex_bw_bufs_destroy(&c, bufs);
    ex_ctx_close(&c);
    if (fd >= 0)
        close(fd);
    return ret;
}

int main(int argc, char **argv)
{
    struct ex_args a;
    int rc = ex_parse_args(&get_bw_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (a.server_ip != NULL && a.exec == EX_EXEC_GPU && a.iterations % GET_BW_GPU_THREADS != 0) {
        EX_ERR("-i %u: on the GPU the iterations must be a multiple of %d (the CUDA threads, "
               "which take equal shares)",
               a.iterations, GET_BW_GPU_THREADS);
        return EXIT_FAILURE;
    }
    ex_signals_install();
    rc = a.server_ip != NULL ? get_bw_client(&a) : get_bw_server(&a);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
