/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two processes on softmlx5 for the data-path tests: the parent is the
 * requester, whose QP is exported to the data path (CPU threads or a GPU)
 * and drives the workloads of dp_ops.h; the child is the responder, whose
 * buffer the workloads target and which checks it byte for byte when told
 * the workload is done. The peers trade QP numbers, addresses and keys over
 * a socketpair.
 */
#ifndef DP_HARNESS_H
#define DP_HARNESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "doca_gpunetio.h"
#include "doca_gpunetio_high_level.h"
#include "dp_plan.h"
#include "verbs_test.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the requester's QP is made and exported. */
struct dp_cfg {
    /* The GPU to export to (opened by the requester after the fork); NULL: CPU threads. */
    const char *gpu_bus_id;
    bool use_hl; /* doca_gpu_verbs_create_qp_hl (with a GPU: rings in GPU memory), or a
                    plain QP in host memory exported with doca_gpu_verbs_export_qp */
    enum doca_gpu_dev_verbs_nic_handler handler;
    enum doca_gpu_verbs_send_dbr_mode_ext dbr_mode;
    uint16_t sq_nwqe;
    uint8_t collapsed;
    bool companion; /* a second QP for the counter variants */
};

/* What the responder checks. */
enum dp_check {
    DP_CHECK_OPS,   /* dp_ops() */
    DP_CHECK_SHARE, /* dp_share() by `threads` threads */
    DP_CHECK_ERROR, /* dp_error(): nothing landed */
    DP_CHECK_WARP,  /* the GPU warp workload: `threads` lanes */
};

struct dp_side {
    struct vt_dev d;
    doca_gpu_t *gpu;                    /* the requester's export context (NULL: CPU threads) */
    struct doca_gpu_verbs_qp_hl *hl[2]; /* main and companion (create_qp_hl) */
    doca_verbs_cq_t *cq[2];             /* or a plain CQ and QP in host memory, exported */
    doca_verbs_qp_t *vqp[2];
    struct doca_gpu_verbs_qp *gqp[2];
    struct doca_gpu_dev_verbs_qp *dev[2]; /* the descriptors the data path uses */
    int nqps;
    uint8_t *buf;
    struct ibv_mr *mr;
    int sock;
    pid_t child;
    uint64_t peer_addr;
    uint32_t peer_rkey;
};

/*
 * Forks; both processes open the device, make their QPs (the requester
 * with cfg, the responder plain ones in host memory), connect and
 * synchronise. Returns true in the requester; the responder never returns
 * (it serves checks and exits). Exits 77 without an RDMA device.
 */
bool dp_start(struct dp_side *s, const struct dp_cfg *cfg);

/* The plan for the requester's workloads, from the pair. */
void dp_plan_of(const struct dp_side *s, struct dp_plan *p);

/*
 * Requester: asks the responder to check `what` (threads for SHARE / WARP)
 * and checks the requester's own returned values; 0 when both are right.
 * Then tears everything down and reaps the responder: 0 only if it exited 0.
 */
int dp_finish(struct dp_side *s, enum dp_check what, uint32_t threads, bool counters);

/* Requester: fills the local sources the workloads send. */
void dp_fill_sources(struct dp_side *s);

/*
 * A CPU thread running doca_gpu_verbs_cpu_proxy_progress() on the QPs exported with CPU_PROXY
 * or with an emulated doorbell record.
 */
struct dp_proxy {
    struct doca_gpu_verbs_qp *qp[2];
    int n;
    int stop; /* set (__atomic) to end the thread */
    pthread_t thread;
};

/* Starts the proxy thread if the requester's QPs need one; dp_proxy_stop() ends it. */
void dp_proxy_start(struct dp_proxy *p, struct dp_side *s);
void dp_proxy_stop(struct dp_proxy *p);

/* Printed with every failure: counts failures for the test's exit status. */
extern int dp_failures;
#define DP_CHECK(cond, ...)                                      \
    do {                                                         \
        if (!(cond)) {                                           \
            dp_failures++;                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* DP_HARNESS_H */
