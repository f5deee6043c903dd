/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_bw: an ib_write_bw-like benchmark of the high-level
 * put. The client runs, for each message size, `iterations` RDMA writes
 * into the server's buffer of that size, from a CUDA kernel of 512 threads
 * in 2 blocks sharing one QP (or, with --exec cpu, from PUT_BW_CPU_THREADS
 * CPU threads sharing it), and prints bandwidth, message rate and time.
 * The server launches nothing: once the client reports that all its runs
 * have completed it checks every byte the puts wrote.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex_bw.h"
#include "ex_bw_pair.h"
#include "ex_common.h"
#include "ex_gpu.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "put_bw.h"

static const struct ex_info put_bw_info = {
        .name = "gpunetio_verbs_put_bw",
        .id = 1,
        .has_exec_scope = true,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
        /* The seed's list for this example has no 6 (write_lat has BlueFlame). */
        .refused_handlers = 1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
        .refused_handler_why = "GPU SM BlueFlame is not in this example's handlers",
};

/* ---- Client, CPU execution ------------------------------------------------------------------ */

struct put_bw_cpu {
    struct doca_gpu_dev_verbs_qp *qp;
    struct put_bw_job job;
};

/* Thread index of PUT_BW_CPU_THREADS: puts index, index + N, ..., then waits for its last. */
static int put_bw_cpu_thread(void *arg, uint32_t index)
{
    struct put_bw_cpu *run = arg;
    const struct put_bw_job *j = &run->job;
    uint64_t ticket = 0;
    bool posted = false;

    for (uint32_t k = index; k < j->iterations; k += PUT_BW_CPU_THREADS) {
        uint64_t off = (uint64_t)(k % j->slots) * j->size;
        struct doca_gpu_dev_verbs_addr raddr = {j->raddr + off, j->rkey_be};
        struct doca_gpu_dev_verbs_addr laddr = {j->laddr + off, j->lkey_be};

        ticket = gdaki_put(
                run->qp, raddr, laddr, j->size, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
                DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
        posted = true;
    }
    return posted ? gdaki_wait(run->qp, ticket) : 0;
}

static int put_bw_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct put_bw_job *job,
                          double *elapsed_us)
{
    struct put_bw_cpu run = {.qp = qp, .job = *job};

    if (ex_bw_cpu_run(PUT_BW_CPU_THREADS, put_bw_cpu_thread, &run, elapsed_us) != 0) {
        EX_ERR("a put of %llu bytes completed in error", (unsigned long long)job->size);
        return -1;
    }
    return 0;
}

/* ---- Client --------------------------------------------------------------------------------- */

static void put_bw_banner(const struct ex_ctx *c, const struct ex_args *a)
{
    if (c->gpu != NULL)
        printf("put_bw: GPU %s, %d blocks x %d threads (%s scope), 1 QP, NIC handler %s\n",
               c->gpu_bus_id, PUT_BW_GPU_BLOCKS, PUT_BW_GPU_BLOCK_THREADS,
               a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP ? "warp" : "thread",
               gdaki_nic_handler_name(c->handler));
    else
        printf("put_bw: CPU execution, %d threads, 1 QP, NIC handler %s\n", PUT_BW_CPU_THREADS,
               gdaki_nic_handler_name(c->handler));
}

static int put_bw_run(struct ex_ctx *c, const struct ex_args *a, int size_idx,
                      const struct ex_remote_buf *remote, const struct ex_buf *local, void *stream,
                      double *elapsed_us)
{
    struct put_bw_job job = {
            .raddr = remote->addr,
            .laddr = (uint64_t)(uintptr_t)local->addr,
            .size = ex_bw_size(size_idx),
            .rkey_be = htobe32(remote->rkey),
            .lkey_be = htobe32(local->mr->lkey),
            .slots = ex_bw_slots(a->iterations, ex_bw_size(size_idx)),
            .iterations = a->iterations,
    };

    return c->gpu != NULL ? put_bw_gpu_run(c->qp_dev, &job,
                                           a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP,
                                           stream, elapsed_us)
                          : put_bw_cpu_run(c->qp_dev, &job, elapsed_us);
}

static const struct ex_bw_pair_ops put_bw_ops = {
        .banner = put_bw_banner,
        .run = put_bw_run,
};

int main(int argc, char **argv)
{
    struct ex_args a;
    int rc = ex_parse_args(&put_bw_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (a.server_ip != NULL && a.exec == EX_EXEC_GPU && a.iterations % PUT_BW_GPU_THREADS != 0) {
        EX_ERR("-i %u: on the GPU the iterations must be a multiple of %d (the CUDA threads, "
               "which take equal shares)",
               a.iterations, PUT_BW_GPU_THREADS);
        return EXIT_FAILURE;
    }
    ex_signals_install();
    rc = a.server_ip != NULL ? ex_bw_pair_client(&put_bw_info, &a, &put_bw_ops)
                             : ex_bw_pair_server(&put_bw_info, &a, &put_bw_ops);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
