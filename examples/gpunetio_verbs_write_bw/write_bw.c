/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_bw: an ib_write_bw-like benchmark of the low-level
 * data-path API. For each message size the client reserves a send-queue
 * slot for each of its `iterations` RDMA writes into the server's buffer,
 * prepares them all, submits them with one doorbell and polls the last
 * completion, from a one-block CUDA kernel (or, with --exec cpu, from
 * WRITE_BW_CPU_THREADS CPU threads running the same core), and prints
 * bandwidth, message rate and time. The server launches nothing: once the
 * client reports that all its runs have completed it checks every byte the
 * writes delivered.
 */
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex_bw.h"
#include "ex_bw_pair.h"
#include "ex_common.h"
#include "ex_verbs.h"
#include "gdaki_verbs.h"
#include "write_bw.h"

static const struct ex_info write_bw_info = {
        .name = "gpunetio_verbs_write_bw",
        .id = 3,
        .has_exec_scope = false,
        .handlers = (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) |
                    (1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW),
        .refused_handlers = 1u << DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF,
        .refused_handler_why = "GPU SM BlueFlame is not supported in this example",
};

/* Only CPU thread 0 touches the QP's indices, as only CUDA thread 0 does in the kernel. */
#define WB_RSM DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE

/* ---- CPU execution: the kernel's steps, on the data-path core in C -------------------------- */

struct write_bw_cpu {
    struct doca_gpu_dev_verbs_qp *qp;
    struct write_bw_job job;
    uint64_t base;
    pthread_barrier_t reserved; /* thread 0 has reserved the slots */
    pthread_barrier_t prepared; /* every thread has written its WQEs */
};

/* Thread index of WRITE_BW_CPU_THREADS: prepares writes index, index + N, ... */
static int write_bw_cpu_thread(void *arg, uint32_t index)
{
    struct write_bw_cpu *run = arg;
    struct doca_gpu_dev_verbs_qp *qp = run->qp;
    const struct write_bw_job *j = &run->job;
    const uint32_t n = j->iterations;

    if (index == 0)
        run->base = gdaki_sq_reserve(qp, n, WB_RSM, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
    pthread_barrier_wait(&run->reserved);
    for (uint32_t k = index; k < n; k += WRITE_BW_CPU_THREADS) {
        uint64_t idx = run->base + k;
        uint64_t off = (uint64_t)(k % j->slots) * j->size;

        gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, idx), idx, DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE,
                       DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, 0, j->raddr + off, j->rkey_be,
                       j->laddr + off, j->lkey_be, j->size);
    }
    pthread_barrier_wait(&run->prepared);
    if (index != 0)
        return 0;
    gdaki_sq_ready(qp, run->base, run->base + n - 1, WB_RSM, DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT,
                   DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
    gdaki_sq_submit(qp, run->base + n, WB_RSM, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO,
                    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT);
    return gdaki_cq_wait(&qp->cq_sq, run->base + n - 1, WB_RSM);
}

static int write_bw_cpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_bw_job *job,
                            double *elapsed_us)
{
    struct write_bw_cpu run = {.qp = qp, .job = *job};
    int rc;

    pthread_barrier_init(&run.reserved, NULL, WRITE_BW_CPU_THREADS);
    pthread_barrier_init(&run.prepared, NULL, WRITE_BW_CPU_THREADS);
    rc = ex_bw_cpu_run(WRITE_BW_CPU_THREADS, write_bw_cpu_thread, &run, elapsed_us);
    pthread_barrier_destroy(&run.prepared);
    pthread_barrier_destroy(&run.reserved);
    if (rc != 0)
        EX_ERR("the last write of %u bytes completed in error", job->size);
    return rc;
}

/* ---- Client --------------------------------------------------------------------------------- */

static void write_bw_banner(const struct ex_ctx *c, const struct ex_args *a)
{
    (void)a;
    if (c->gpu != NULL)
        printf("write_bw: GPU %s, 1 block x %d threads, 1 QP, NIC handler %s\n", c->gpu_bus_id,
               WRITE_BW_GPU_THREADS, gdaki_nic_handler_name(c->handler));
    else
        printf("write_bw: CPU execution, %d threads, 1 QP, NIC handler %s\n", WRITE_BW_CPU_THREADS,
               gdaki_nic_handler_name(c->handler));
}

static int write_bw_run(struct ex_ctx *c, const struct ex_args *a, int size_idx,
                        const struct ex_remote_buf *remote, const struct ex_buf *local,
                        void *stream, double *elapsed_us)
{
    struct write_bw_job job = {
            .raddr = remote->addr,
            .laddr = (uint64_t)(uintptr_t)local->addr,
            .size = (uint32_t)ex_bw_size(size_idx),
            .rkey_be = htobe32(remote->rkey),
            .lkey_be = htobe32(local->mr->lkey),
            .slots = ex_bw_slots(a->iterations, ex_bw_size(size_idx)),
            .iterations = a->iterations,
    };

    return c->gpu != NULL ? write_bw_gpu_run(c->qp_dev, &job, stream, elapsed_us)
                          : write_bw_cpu_run(c->qp_dev, &job, elapsed_us);
}

static const struct ex_bw_pair_ops write_bw_ops = {
        .max_iterations = EX_SQ_WQES,
        .max_iterations_why = "the send queue size (a run posts all its writes before polling "
                              "the last completion)",
        .banner = write_bw_banner,
        .run = write_bw_run,
};

int main(int argc, char **argv)
{
    struct ex_args a;
    int rc = ex_parse_args(&write_bw_info, argc, argv, &a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    ex_signals_install();
    rc = a.server_ip != NULL ? ex_bw_pair_client(&write_bw_info, &a, &write_bw_ops)
                             : ex_bw_pair_server(&write_bw_info, &a, &write_bw_ops);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
