/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path run by CPU threads on softmlx5, across two processes: the
 * requester's QP exported for the CPU (doca_gpu_verbs_export_qp with no GPU)
 * and driven by the same C core a kernel runs (dp_ops.h).
 *
 * Usage: test_dp_cpu ops HANDLER [hl]    every operation once, with the counter
 *                                        variants on a companion QP
 *        test_dp_cpu service             ops with CPU_PROXY QPs progressed by a
 *                                        service (no proxy thread of the test)
 *        test_dp_cpu share RSM THREADS   THREADS threads on one QP of 16 WQEs
 *                                        (RSM 0 exclusive, 1 CTA, 2 GPU), so
 *                                        the SQ and the CQ wrap many times
 *        test_dp_cpu collapsed           4 threads, the CQ collapsed
 *        test_dp_cpu error               a put with a wrong key: -EIO and the
 *                                        syndrome through query_last_error
 *        test_dp_cpu multi               two QPs used through one flat list
 *        test_dp_cpu unready RSM         three writes submitted without marking
 *                                        them ready (as DOCA allows): the
 *                                        doorbell covers them all the same
 *        test_dp_cpu emulated [hl]       GPU_SM_NO_DBR on a QP whose doorbell
 *                                        record is emulated: the operations
 *                                        complete with no thread, the record
 *                                        untouched; progress then writes it
 * HANDLER is a NIC handler value (0, 1, 2, 6, 10, 17); 1 runs a proxy thread.
 */
#include <endian.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_harness.h"
#include "dp_ops.h"
#include "verbs/verbs_internal.h" /* verbs_qp_get_layout: the record's address */

static struct dp_cfg cfg_of(int handler)
{
    struct dp_cfg c = {
            .handler = (enum doca_gpu_dev_verbs_nic_handler)handler,
            .dbr_mode = handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR
                                ? DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW
                                : DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
            .sq_nwqe = 64,
    };
    return c;
}

static int run_ops(int handler, bool hl)
{
    struct dp_cfg c = cfg_of(handler);
    struct dp_side s;
    struct dp_plan p;
    struct dp_proxy px;
    int step;

    c.companion = true;
    c.use_hl = hl;
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    p.counters = 1;
    dp_fill_sources(&s);
    dp_proxy_start(&px, &s);
    step = dp_ops(s.dev[0], &p, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    dp_proxy_stop(&px);
    DP_CHECK(step == 0, "dp_ops failed at step %d", step);
    return dp_finish(&s, DP_CHECK_OPS, 0, true);
}

/* The send counter of QP i's doorbell record (host memory), as stored. */
static uint32_t send_dbr(const struct dp_side *s, int i)
{
    struct verbs_qp_layout l;

    if (!verbs_qp_get_layout(s->vqp[i], &l))
        return UINT32_MAX;
    return __atomic_load_n(&l.dbr[1], __ATOMIC_ACQUIRE);
}

/*
 * NO_DBR_SW_EMULATED under GPU_SM_NO_DBR: the data path rings without writing
 * the record, so softmlx5 acting on the doorbells alone completes every
 * operation; the record is then written by the progress call, as DOCA's
 * cpu_proxy QPs are (by the application or a service).
 */
static int run_emulated(bool hl)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR);
    struct dp_side s;
    struct dp_plan p;
    uint8_t on = 0;
    bool progressed = false;
    uint64_t pi;
    int step;

    c.dbr_mode = DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED;
    c.use_hl = hl;
    c.companion = true;
    dp_start(&s, &c);
    DP_CHECK(doca_verbs_qp_get_emulate_no_dbr_ext(s.vqp[0]),
             "the device has no-DBR send queues: run without SOFTMLX5_NO_DBR");
    DP_CHECK(doca_gpu_verbs_cpu_proxy_enabled(s.gqp[0], &on) == DOCA_SUCCESS && on == 1,
             "cpu_proxy_enabled says %u for an emulated record", on);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    p.counters = 1;
    dp_fill_sources(&s);
    step = dp_ops(s.dev[0], &p, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    DP_CHECK(step == 0, "dp_ops failed at step %d with no thread writing the record", step);
    pi = __atomic_load_n(&s.dev[0]->sq_wqe_pi, __ATOMIC_ACQUIRE);
    DP_CHECK(pi != 0, "nothing was posted");
    DP_CHECK(send_dbr(&s, 0) == 0, "the data path wrote the record (0x%x)", send_dbr(&s, 0));
    DP_CHECK(doca_gpu_verbs_cpu_proxy_progress(s.gqp[0], &progressed) == DOCA_SUCCESS && progressed,
             "progress did not write the record");
    DP_CHECK(send_dbr(&s, 0) == htobe32((uint32_t)pi & 0xffff),
             "the record holds 0x%x, the producer index is %llu", be32toh(send_dbr(&s, 0)),
             (unsigned long long)pi);
    DP_CHECK(doca_gpu_verbs_cpu_proxy_progress(s.gqp[0], &progressed) == DOCA_SUCCESS &&
                     !progressed,
             "a second progress with nothing new progressed");
    return dp_finish(&s, DP_CHECK_OPS, 0, true);
}

/* Every operation on CPU_PROXY QPs that a service rings for: no proxy loop in the test. */
static int run_service(void)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY);
    doca_gpu_verbs_service_t svc = NULL, other = NULL;
    struct dp_side s;
    struct dp_plan p;
    int step;

    c.companion = true;
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    p.counters = 1;
    dp_fill_sources(&s);
    DP_CHECK(doca_gpu_verbs_create_service(NULL) == DOCA_ERROR_INVALID_VALUE, "NULL service");
    DP_CHECK(doca_gpu_verbs_create_service(&svc) == DOCA_SUCCESS &&
                     doca_gpu_verbs_create_service(&other) == DOCA_SUCCESS,
             "create_service");
    DP_CHECK(doca_gpu_verbs_service_monitor_qp(svc, NULL) == DOCA_ERROR_INVALID_VALUE, "NULL QP");
    for (int i = 0; i < s.nqps; i++)
        DP_CHECK(doca_gpu_verbs_service_monitor_qp(svc, s.gqp[i]) == DOCA_SUCCESS &&
                         doca_gpu_verbs_service_monitor_qp(svc, s.gqp[i]) == DOCA_SUCCESS,
                 "monitor QP %d", i);
    DP_CHECK(doca_gpu_verbs_service_monitor_qp(other, s.gqp[0]) == DOCA_ERROR_IN_USE,
             "a second service on one QP");
    DP_CHECK(doca_gpu_verbs_unexport_qp(s.gpu, s.gqp[0]) == DOCA_ERROR_IN_USE,
             "unexport while monitored");
    step = dp_ops(s.dev[0], &p, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    DP_CHECK(step == 0, "dp_ops failed at step %d", step);
    DP_CHECK(doca_gpu_verbs_destroy_service(other) == DOCA_SUCCESS &&
                     doca_gpu_verbs_destroy_service(svc) == DOCA_SUCCESS,
             "destroy_service");
    DP_CHECK(doca_gpu_verbs_destroy_service(NULL) == DOCA_ERROR_INVALID_VALUE, "NULL destroy");
    return dp_finish(&s, DP_CHECK_OPS, 0, true);
}

struct share_arg {
    struct doca_gpu_dev_verbs_qp *qp;
    const struct dp_plan *plan;
    uint32_t t;
    int rc;
};

static void *share_main(void *arg)
{
    struct share_arg *a = arg;

    a->rc = dp_share(a->qp, a->plan, a->t, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    return NULL;
}

/* threads threads, thread t on qps[t % nqps]. */
static void run_threads(struct doca_gpu_dev_verbs_qp **qps, int nqps, const struct dp_plan *p,
                        uint32_t threads)
{
    pthread_t tid[DP_SHARE_MAX_THR];
    struct share_arg a[DP_SHARE_MAX_THR];

    for (uint32_t t = 0; t < threads; t++) {
        a[t] = (struct share_arg){.qp = qps[t % (uint32_t)nqps], .plan = p, .t = t};
        if (pthread_create(&tid[t], NULL, share_main, &a[t]) != 0) {
            DP_CHECK(0, "pthread_create");
            a[t].rc = -1;
            tid[t] = 0;
        }
    }
    for (uint32_t t = 0; t < threads; t++) {
        if (tid[t] != 0)
            pthread_join(tid[t], NULL);
        DP_CHECK(a[t].rc == 0, "thread %u: its signal completed with %d", t, a[t].rc);
    }
}

static int run_share(uint32_t rsm, uint32_t threads, bool collapsed)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    struct dp_side s;
    struct dp_plan p;

    if (threads == 0 || threads > DP_SHARE_MAX_THR ||
        (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE && threads != 1)) {
        fprintf(stderr, "share: 1..%d threads, exactly 1 when exclusive\n", DP_SHARE_MAX_THR);
        return 2;
    }
    c.sq_nwqe = 16;
    c.collapsed = collapsed;
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = rsm;
    p.threads = threads;
    dp_fill_sources(&s);
    run_threads(&s.dev[0], 1, &p, threads);
    return dp_finish(&s, DP_CHECK_SHARE, threads, false);
}

static int run_error(void)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    struct doca_gpu_verbs_qp_error_info info;
    struct dp_side s;
    struct dp_plan p;
    uint64_t ticket = 0;
    int rc;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    dp_fill_sources(&s);
    rc = dp_error(s.dev[0], &p, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, &ticket);
    DP_CHECK(rc == -EIO, "a put with a wrong key completed with %d, expected -EIO", rc);
    DP_CHECK(doca_gpu_verbs_query_last_error(s.gqp[0], &info) == DOCA_SUCCESS, "query_last_error");
    DP_CHECK(info.has_error && info.syndrome == PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR &&
                     info.wqe_counter == (int)(ticket & 0xffff),
             "last error: has_error %d syndrome 0x%x wqe_counter %d (ticket %llu)", info.has_error,
             info.syndrome, info.wqe_counter, (unsigned long long)ticket);
    /* The QP is in error now: what follows is flushed, and said so. */
    rc = gdaki_wait(s.dev[0], gdaki_put(s.dev[0], DP_R(&p, 0), DP_L(&p, 0), 8,
                                        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                        DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0));
    DP_CHECK(rc == -EIO, "a put after the error completed with %d, expected -EIO", rc);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

/* Two QPs exported together: the flat list's descriptors drive them (one thread each). */
/* Polls WQE idx's completion for at most 5 s: 0, EIO (error CQE) or EBUSY (none came). */
static int poll_bounded(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx)
{
    for (long spins = 0; spins < 5000000; spins++) {
        int rc = gdaki_cq_poll_one_at(&qp->cq_sq, idx);

        if (rc != EBUSY)
            return rc;
        usleep(1);
    }
    return EBUSY;
}

static int run_unready(uint32_t rsm)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    struct doca_gpu_dev_verbs_qp *qp;
    struct dp_side s;
    struct dp_plan p;
    uint64_t idx;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    dp_fill_sources(&s);
    qp = s.dev[0];
    idx = gdaki_sq_reserve(qp, 3, (enum doca_gpu_dev_verbs_resource_sharing_mode)rsm, 0);
    for (uint64_t i = 0; i < 3; i++)
        gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, idx + i), idx + i, PRM_WQE_OPCODE_RDMA_WRITE,
                       DP_CQ_UPDATE, 0, p.remote + DP_PUT_OFF(0) + 8 * i, p.rkey,
                       p.local + DP_PUT_OFF(0) + 8 * i, p.lkey, 8);
    /* No mark_wqes_ready: submit alone rings up to the index it is given. */
    gdaki_sq_submit(qp, idx + 3, (enum doca_gpu_dev_verbs_resource_sharing_mode)rsm,
                    DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
    for (uint64_t i = 0; i < 3; i++) {
        int rc = poll_bounded(qp, idx + i);

        DP_CHECK(rc == 0, "write %llu submitted without being marked ready: %s",
                 (unsigned long long)i, rc == EBUSY ? "no completion in 5 s" : "error CQE");
    }
    DP_CHECK(qp->sq_wqe_pi == idx + 3, "producer index %llu after the submit, expected %llu",
             (unsigned long long)qp->sq_wqe_pi, (unsigned long long)(idx + 3));
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

static int run_multi(void)
{
    struct dp_cfg c = cfg_of(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO);
    struct doca_gpu_dev_verbs_qp *array = NULL;
    struct doca_gpu_dev_verbs_qp *qps[2];
    struct dp_side s;
    struct dp_plan p;
    int rc;

    c.use_hl = true;
    c.companion = true;
    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    p.rsm = DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    p.threads = 2;
    dp_fill_sources(&s);
    rc = doca_gpu_verbs_qp_flat_list_create_hl(s.hl, 2, &array);
    DP_CHECK(rc == DOCA_SUCCESS, "flat list: %d", rc);
    if (rc != DOCA_SUCCESS)
        return 1;
    qps[0] = &array[0];
    qps[1] = &array[1];
    run_threads(qps, 2, &p, 2);
    DP_CHECK(doca_gpu_verbs_qp_flat_list_destroy_hl(array) == DOCA_SUCCESS, "flat list destroy");
    return dp_finish(&s, DP_CHECK_SHARE, 2, false);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc;

    if (strcmp(mode, "ops") == 0 && argc > 2)
        rc = run_ops(atoi(argv[2]), argc > 3 && strcmp(argv[3], "hl") == 0);
    else if (strcmp(mode, "share") == 0 && argc > 3)
        rc = run_share((uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), false);
    else if (strcmp(mode, "collapsed") == 0)
        rc = run_share(DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, 4, true);
    else if (strcmp(mode, "error") == 0)
        rc = run_error();
    else if (strcmp(mode, "multi") == 0)
        rc = run_multi();
    else if (strcmp(mode, "service") == 0)
        rc = run_service();
    else if (strcmp(mode, "unready") == 0 && argc > 2)
        rc = run_unready((uint32_t)atoi(argv[2]));
    else if (strcmp(mode, "emulated") == 0)
        rc = run_emulated(argc > 2 && strcmp(argv[2], "hl") == 0);
    else {
        fprintf(stderr, "usage: test_dp_cpu ops HANDLER [hl] | share RSM THREADS | collapsed | "
                        "error | multi | unready RSM | service | emulated [hl]\n");
        return 2;
    }
    printf("%s: %s (%d failures)\n", mode, rc == 0 ? "passed" : "FAILED", dp_failures);
    return rc;
}
