/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control path every example runs: open the RDMA device by name, the
 * GPU by bus id (GPU execution), make the RC QP with the GPUNetIO
 * high-level helper, exchange its address with the peer and connect it with
 * DOCA Verbs, run the CPU proxy thread when the NIC handler needs one, and
 * register the buffers the data path uses.
 */
#ifndef EX_VERBS_H
#define EX_VERBS_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio.h"
#include "doca_gpunetio_high_level.h"
#include "ex_common.h"
#include "ex_oob.h"

#define EX_PORT_NUM 1
#define EX_SQ_WQES  2048 /* send queue size of every example QP */

struct ex_ctx {
    const struct ex_args *args;
    struct ibv_device **dev_list;
    struct ibv_context *ibctx;
    struct ibv_pd *pd;
    const char *dev_name;
    struct ibv_port_attr port;
    doca_gpu_t *gpu; /* NULL: CPU execution */
    char gpu_bus_id[32];
    struct doca_gpu_verbs_qp_hl *hl;             /* the high-level QP, or */
    struct ex_ll_qp *ll;                         /* the QP made with DOCA Verbs (two-sided) */
    doca_dev_t *vdev;                            /* the QP's DOCA Verbs device */
    doca_verbs_qp_t *qp;                         /* the QP, whichever way it was made */
    struct doca_gpu_verbs_qp *gqp;               /* its export */
    struct doca_gpu_dev_verbs_qp *qp_dev;        /* the descriptor the data path drives */
    enum doca_gpu_dev_verbs_nic_handler handler; /* as export resolved it (never AUTO) */
    pthread_t proxy;
    int proxy_stop;
    bool proxy_running;
};

/*
 * Opens the RDMA device (-d, or the first one), its PD and port, and with
 * --exec gpu the GPU (-g, or the first one) through doca_gpu_create.
 */
int ex_ctx_open(struct ex_ctx *c, const struct ex_args *a);

/*
 * Makes the QP (sq_wqes send WQEs, collapsed CQ or not) for the NIC
 * handler of -p, and starts the CPU proxy thread if the handler it resolved
 * to needs one.
 */
int ex_ctx_create_qp(struct ex_ctx *c, uint16_t sq_wqes, bool cq_collapsed);

/*
 * The same QP with a receive queue of rq_wqes WQEs (rq_nwqe) for RDMA writes
 * with immediate, which a service drains (doca_gpu_verbs_service_monitor_qp);
 * no CPU proxy thread is started: the service rings a CPU_PROXY QP's doorbells
 * once it monitors the QP (CPU_PROXY_FREE_FLOW is run by the library).
 */
int ex_ctx_create_qp_rq(struct ex_ctx *c, uint16_t sq_wqes, bool cq_collapsed, uint16_t rq_wqes);

/*
 * A QP whose receive queue the data path owns (two-sided sends and
 * receives): made with DOCA Verbs, sq_wqes send and rq_wqes receive WQEs,
 * its send and receive CQs of their own, all in host memory (mapped for the
 * GPU with --exec gpu), exported with the receive CQ; the CPU proxy thread
 * is started when the NIC handler needs one.
 */
int ex_ctx_create_qp_twosided(struct ex_ctx *c, uint16_t sq_wqes, uint16_t rq_wqes);

/* What the peer needs to connect to this QP. */
int ex_ctx_qp_info(struct ex_ctx *c, struct ex_qp_info *info);

/* RST -> INIT -> RTR -> RTS towards the peer's QP. */
int ex_ctx_connect(struct ex_ctx *c, const struct ex_qp_info *peer);

/* Logs the first error completion the data path met on the QP; 1 if there was one. */
int ex_ctx_report_qp_error(struct ex_ctx *c);

/* Stops the proxy and frees everything ex_ctx_open / ex_ctx_create_qp made. */
void ex_ctx_close(struct ex_ctx *c);

/* A registered buffer in GPU memory (GPU execution) or host memory. */
struct ex_buf {
    void *addr; /* as the data path and the NIC address it */
    size_t len;
    size_t alloc_len;
    bool gpu;
    struct ibv_mr *mr;
};

/* len bytes, zeroed, registered with access (IBV_ACCESS_*); in GPU memory when c has a GPU. */
int ex_buf_create(struct ex_ctx *c, size_t len, int access, struct ex_buf *b);
void ex_buf_destroy(struct ex_ctx *c, struct ex_buf *b);
/* Its descriptor for the peer. */
struct ex_remote_buf ex_buf_remote(const struct ex_buf *b);

#endif /* EX_VERBS_H */
