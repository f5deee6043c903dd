/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An exported QP (export.c) and its CPU proxy (proxy.c).
 *
 * Two views of one send queue are kept:
 * - desc: the data-path descriptor as built, with the addresses the
 *   executing processor uses (GPU addresses for a kernel, host addresses for
 *   CPU threads); copied to `dev` (GPU memory, or host memory for CPU
 *   execution), where the data path keeps its counters;
 * - host_view: the same queue as the CPU proxy reaches it (host addresses of
 *   the doorbell record and the UAR register), rung with the same core
 *   function the data path uses (gdaki_sq_ring).
 */
#ifndef GPUNETIO_QP_H
#define GPUNETIO_QP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cuda_driver.h"
#include "doca_gpunetio.h"
#include "doca_gpunetio_verbs_def.h"
#include "verbs/verbs_internal.h"

/* Host memory of the QP mapped for the GPU, unmapped at unexport. */
#define GPUNETIO_QP_MAPS 8

/*
 * The receive side of an exported QP (receive.c): receive WQEs without
 * scatter entries, for RDMA writes with immediate, whose CQEs a service
 * drains from a receive CQ in host memory, handing each WQE back.
 */
struct gpunetio_rq {
    doca_verbs_cq_t *cq; /* NULL: no receive side */
    uint32_t *dbrec;     /* the QP's doorbell record (word 0: receive counter), host memory */
    uint32_t posted;     /* receive WQEs handed to the NIC */
    uint32_t ci;         /* CQEs consumed */
    bool fatal;          /* an error CQE: no more draining */
    bool logged;         /* an unexpected CQE or dropped immediate was logged */
};

struct doca_gpu_verbs_qp {
    doca_gpu_t *gpu; /* NULL: exported for CPU threads */
    doca_verbs_qp_t *qp;
    doca_verbs_cq_t *cq;
    enum doca_gpu_dev_verbs_nic_handler nic_handler; /* resolved */
    enum doca_gpu_verbs_send_dbr_mode_ext dbr_mode;
    struct doca_gpu_dev_verbs_qp desc;
    struct doca_gpu_dev_verbs_qp *dev;
    core_cu_stream stream; /* reads of dev while kernels run (GPU export) */
    void *maps[GPUNETIO_QP_MAPS];
    int nmaps;

    /* CPU proxy */
    struct doca_gpu_dev_verbs_qp host_view;
    uint64_t *proxy_pi;  /* host word the data path publishes its producer index in */
    uint64_t proxy_last; /* last producer index rung */
    pthread_mutex_t proxy_lock;
    pthread_t free_flow; /* CPU_PROXY_FREE_FLOW: the library's proxy thread */
    bool free_flow_running;
    atomic_bool free_flow_stop;

    atomic_int event_users; /* net-event objects the QP is subscribed to (cq_events.c) */
    _Atomic(struct doca_gpu_verbs_service *) monitored_by; /* the service progressing it */
    struct gpunetio_rq rq;     /* a service's receive side (receive.c) */
    doca_verbs_cq_t *cq_rq_dp; /* the receive CQ the data path polls (NULL: none) */
};

/* VALID_DBR, NO_DBR_HW, NO_DBR_SW_EMULATED (export.c). */
const char *gpunetio_dbr_mode_name(enum doca_gpu_verbs_send_dbr_mode_ext mode);

/* Writes gqp->desc where the data path reads it (export.c). */
doca_error_t gpunetio_qp_write_desc(struct doca_gpu_verbs_qp *gqp);

/* Copies the descriptor as the data path left it (qp_query.c). */
doca_error_t gpunetio_qp_read_desc(struct doca_gpu_verbs_qp *gqp,
                                   struct doca_gpu_dev_verbs_qp *out);

/*
 * GPU_SM_NO_DBR on a QP whose doorbell record is emulated (NO_DBR_SW_EMULATED):
 * the data path rings the doorbell itself and publishes its producer index in
 * the proxy word; a CPU thread copies it into the record.
 */
static inline bool gpunetio_qp_emulated_dbr(const struct doca_gpu_verbs_qp *gqp)
{
    return (gqp->nic_handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) != 0 &&
           gqp->dbr_mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED;
}

/*
 * Whether gqp needs a CPU thread calling the proxy round (DOCA's cpu_proxy):
 * CPU_PROXY, or an emulated doorbell record. CPU_PROXY_FREE_FLOW has the
 * library's own thread.
 */
static inline bool gpunetio_qp_proxied(const struct doca_gpu_verbs_qp *gqp)
{
    return gqp->nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY ||
           gpunetio_qp_emulated_dbr(gqp);
}

/*
 * What the data path published, if it moved: rung (the proxy handlers) or
 * written to the emulated doorbell record; true if it moved.
 */
bool gpunetio_proxy_round(struct doca_gpu_verbs_qp *gqp);
/*
 * How a proxy thread waits between rounds: at once after a round that did
 * something, yielding for 1024 idle rounds, then sleeping 50 us a round.
 */
void gpunetio_proxy_pace(bool progressed, unsigned int *idle);
/* CPU_PROXY_FREE_FLOW: start / stop the thread that runs the proxy. */
doca_error_t gpunetio_free_flow_start(struct doca_gpu_verbs_qp *gqp);
void gpunetio_free_flow_stop(struct doca_gpu_verbs_qp *gqp);

/*
 * What NIC handler AUTO stands for, and why (logged, naming `who`): the
 * doorbell rung by the executing threads when the UAR maps for the GPU (or
 * for CPU execution), else the CPU proxy, which needs the doorbell record in
 * host memory (dbr_in_host) unless the QP has none.
 */
doca_error_t gpunetio_auto_handler(doca_gpu_t *gpu, enum doca_gpu_verbs_send_dbr_mode_ext mode,
                                   void *uar_reg, bool dbr_in_host, const char *who,
                                   enum doca_gpu_dev_verbs_nic_handler *out);

/*
 * A service's receive side, asked for at export with dbr_cpu_ptr (and
 * cq_rq): checked, every WQE handed over.
 */
doca_error_t gpunetio_rq_setup(struct doca_gpu_verbs_qp *gqp, doca_verbs_cq_t *cq_rq,
                               void *dbr_cpu_ptr);
/* After a QP reset: the receive WQEs, the CQ and the counters start over (no-op without one). */
doca_error_t gpunetio_rq_reset(struct doca_gpu_verbs_qp *gqp);

struct doca_gpu_verbs_signal_map;
/*
 * Consumes up to budget receive CQEs: each immediate applied to map (or
 * dropped when NULL), each WQE handed back. True if any CQE was consumed.
 */
bool gpunetio_rq_drain(struct doca_gpu_verbs_qp *gqp, struct doca_gpu_verbs_signal_map *map,
                       unsigned int budget);

#endif /* GPUNETIO_QP_H */
