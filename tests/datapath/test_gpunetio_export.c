/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The export, CPU proxy and high-level host API on softmlx5 (no GPU): every
 * refusal (NULL arguments, unknown handlers, a CQ that is not the QP's or
 * that stops at overrun, doorbell-record modes that do not match the QP or
 * the handler, proxy calls on QPs without a proxy, a foreign context at
 * unexport, multi-QP arrays of mixed contexts, unknown flat lists, bad
 * high-level attributes) and what a successful export resolves and reports.
 * Run with SOFTMLX5_NO_DBR=1 the device also offers send queues without
 * doorbell records, which the no-DBR cases need.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "doca_gpunetio.h"
#include "doca_gpunetio_high_level.h"
#include "verbs_test.h"

#define VALID     DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR
#define NO_DBR_HW DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW
#define NO_DBR_SW DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED
#define H(name)   DOCA_GPUNETIO_VERBS_NIC_HANDLER_##name

struct fx {
    struct vt_dev d;
    doca_verbs_cq_t *cq; /* overrun ignored */
    doca_verbs_cq_t *cq_strict;
    doca_verbs_qp_t *qp;       /* doorbell record */
    doca_verbs_qp_t *qp_nodbr; /* NO_DBR_EXT: hardware (SOFTMLX5_NO_DBR=1) or emulated */
};

static doca_verbs_cq_t *cq_make(doca_dev_t *dev, bool overrun)
{
    doca_verbs_cq_attr_t *a = NULL;
    doca_verbs_cq_t *cq = NULL;

    doca_verbs_cq_attr_create(&a);
    doca_verbs_cq_attr_set_cq_size(a, 64);
    if (overrun)
        doca_verbs_cq_attr_set_cq_overrun(a, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    if (doca_verbs_cq_create(dev, a, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(a);
    return cq;
}

static doca_verbs_qp_t *qp_make(doca_dev_t *dev, doca_verbs_cq_t *cq, uint32_t sq_wr, bool no_dbr)
{
    doca_verbs_qp_init_attr_t *a = vt_qp_attr(dev, cq, sq_wr, 0);
    doca_verbs_qp_t *qp = NULL;

    if (no_dbr) {
        doca_verbs_qp_init_attr_set_send_dbr_mode(a, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT);
        doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(a, true);
    }
    if (doca_verbs_qp_create(dev, a, &qp) != DOCA_SUCCESS)
        qp = NULL;
    doca_verbs_qp_init_attr_destroy(a);
    return qp;
}

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    vt_open(&f->d);
    f->cq = cq_make(f->d.dev, true);
    f->cq_strict = cq_make(f->d.dev, false);
    f->qp = qp_make(f->d.dev, f->cq, 64, false);
    f->qp_nodbr = qp_make(f->d.dev, f->cq, 64, true);
    if (f->cq == NULL || f->cq_strict == NULL || f->qp == NULL || f->qp_nodbr == NULL)
        return -1;
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    doca_verbs_qp_destroy(f->qp_nodbr);
    doca_verbs_qp_destroy(f->qp);
    doca_verbs_cq_destroy(f->cq_strict);
    doca_verbs_cq_destroy(f->cq);
    vt_close(&f->d);
    free(f);
    return 0;
}

/* The mode a QP made with NO_DBR_EXT has here: hardware when softmlx5 offers it. */
static enum doca_gpu_verbs_send_dbr_mode_ext nodbr_mode(struct fx *f)
{
    return doca_verbs_qp_get_emulate_no_dbr_ext(f->qp_nodbr) ? NO_DBR_SW : NO_DBR_HW;
}

static void test_export_refusals(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *g = NULL;
    doca_verbs_cq_t *other = cq_make(f->d.dev, true);

    assert_int_equal(doca_gpu_verbs_export_qp(NULL, NULL, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, NULL, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    /* 3 is not a handler; neither is 18, past the last. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, (enum doca_gpu_dev_verbs_nic_handler)3,
                                              NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, (enum doca_gpu_dev_verbs_nic_handler)18,
                                              NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    /* Not the QP's send CQ. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, other, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    /* The CQ kind must be the CQ's (f->cq is not collapsed); no host CQ. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST, false, &g),
                     DOCA_ERROR_NOT_SUPPORTED);
    /* Data Direct: accepted, it changes nothing here (DOCA's changes GDRCopy's CPU mapping). */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_64B, true, &g),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, g), DOCA_SUCCESS);
    g = NULL;
    /* 5.0's receive side: the QP's own receive CQ with the record's CPU address, or neither. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, f->cq, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, other, (void *)f,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, (void *)f,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    /* f->qp has no receive queue (rq_wr 0); the full checks: test_gpunetio_signal. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, f->cq, (void *)f,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_null(g);
    /* The mode must be the QP's. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL,
                                              NO_DBR_HW, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp_nodbr, H(AUTO), NULL, f->cq, NULL, NULL,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    /* A doorbell-record QP has no no-DBR handler; a no-DBR QP has no record to write. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(GPU_SM_NO_DBR), NULL, f->cq, NULL,
                                              NULL, VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false,
                                              &g),
                     DOCA_ERROR_INVALID_VALUE);
    if (nodbr_mode(f) == NO_DBR_HW) {
        assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp_nodbr, H(GPU_SM_DB), NULL, f->cq,
                                                  NULL, NULL, NO_DBR_HW,
                                                  DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                         DOCA_ERROR_INVALID_VALUE);
    } else {
        enum doca_gpu_dev_verbs_nic_handler h;
        uint8_t on = 0;

        /*
         * Emulated no-DBR (the record in host memory): the data path rings, and the QP is
         * DOCA's cpu_proxy one, whose record doca_gpu_verbs_cpu_proxy_progress writes. AUTO
         * picks GPU_SM_NO_DBR, as DOCA's.
         */
        for (int i = 0; i < 2; i++) {
            assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp_nodbr,
                                                      i == 0 ? H(GPU_SM_NO_DBR) : H(AUTO), NULL,
                                                      f->cq, NULL, NULL, NO_DBR_SW,
                                                      DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                             DOCA_SUCCESS);
            assert_int_equal(doca_gpu_verbs_get_nic_handler(g, &h), DOCA_SUCCESS);
            assert_int_equal(h, H(GPU_SM_NO_DBR));
            assert_int_equal(doca_gpu_verbs_cpu_proxy_enabled(g, &on), DOCA_SUCCESS);
            assert_int_equal(on, 1);
            assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, g), DOCA_SUCCESS);
            g = NULL;
        }
    }
    /* The work queue pointer, when given, must be the QP's. */
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), (void *)f, f->cq, NULL, NULL,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_null(g);
    doca_verbs_cq_destroy(other);
}

static void test_cq_without_overrun(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *g = NULL;
    doca_verbs_qp_t *qp = qp_make(f->d.dev, f->cq_strict, 16, false);

    assert_non_null(qp);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, qp, H(AUTO), NULL, f->cq_strict, NULL, NULL,
                                              VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_null(g);
    doca_verbs_qp_destroy(qp);
}

static void test_sq_too_large(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *g = NULL;
    doca_verbs_qp_t *qp = qp_make(f->d.dev, f->cq, 2 * DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM, false);

    assert_non_null(qp);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_destroy(qp);
}

/* Each handler CPU execution takes, as resolved and reported. */
static void test_export_handlers(void **state)
{
    struct fx *f = *state;
    const enum doca_gpu_dev_verbs_nic_handler asked[] = {H(AUTO), H(CPU_PROXY), H(GPU_SM_DB),
                                                         H(GPU_SM_BF), H(CPU_PROXY_FREE_FLOW)};
    const enum doca_gpu_dev_verbs_nic_handler resolved[] = {
            H(GPU_SM_DB), H(CPU_PROXY), H(GPU_SM_DB), H(GPU_SM_BF), H(CPU_PROXY_FREE_FLOW)};
    const uint8_t proxied[] = {0, 1, 0, 0, 1};

    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        struct doca_gpu_verbs_qp *g = NULL;
        struct doca_gpu_dev_verbs_qp *dev = NULL;
        enum doca_gpu_dev_verbs_nic_handler h;
        struct doca_gpu_verbs_qp_error_info info;
        uint8_t on = 9;
        bool progressed = true;
        uint32_t qpn = 0;

        assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, asked[i], NULL, f->cq, NULL, NULL,
                                                  VALID, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                         DOCA_SUCCESS);
        assert_int_equal(doca_gpu_verbs_get_nic_handler(g, &h), DOCA_SUCCESS);
        assert_int_equal(h, resolved[i]);
        assert_int_equal(doca_gpu_verbs_cpu_proxy_enabled(g, &on), DOCA_SUCCESS);
        assert_int_equal(on, proxied[i]);
        assert_int_equal(doca_gpu_verbs_get_qp_dev(g, &dev), DOCA_SUCCESS);
        doca_verbs_qp_get_qpn(f->qp, &qpn);
        /* CPU execution: the descriptor is in host memory, readable here. */
        assert_int_equal(dev->sq_num, qpn);
        assert_int_equal(dev->nic_handler, resolved[i]);
        assert_int_equal(dev->sq_wqe_num, 64);
        assert_int_equal(dev->sq_rsvd_index, 0);
        assert_int_equal(dev->cq_sq.cqe_num, 64);
        assert_true((dev->cpu_proxy_pi != NULL) == (proxied[i] != 0));
        assert_true((dev->sq_db != NULL) == (proxied[i] == 0));
        /* The proxy call is for CPU_PROXY only; with nothing published it does nothing. */
        assert_int_equal(doca_gpu_verbs_cpu_proxy_progress(g, &progressed),
                         resolved[i] == H(CPU_PROXY) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED);
        if (resolved[i] == H(CPU_PROXY))
            assert_false(progressed);
        assert_int_equal(doca_gpu_verbs_query_last_error(g, &info), DOCA_SUCCESS);
        assert_false(info.has_error);
        /* Exported, the QP and its CQ stay. */
        assert_int_equal(doca_verbs_qp_destroy(f->qp), DOCA_ERROR_IN_USE);
        assert_int_equal(doca_verbs_cq_destroy(f->cq), DOCA_ERROR_IN_USE);
        /* Unexport needs the context the QP was exported with. */
        assert_int_equal(doca_gpu_verbs_unexport_qp((doca_gpu_t *)f, g), DOCA_ERROR_INVALID_VALUE);
        assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, g), DOCA_SUCCESS);
    }
}

/*
 * reset_tracking_and_memory: only for a QP in RESET; it zeroes the
 * descriptor's counters, forgets the recorded error and marks every CQE
 * invalid, so that a WQE counted from 0 again matches no old CQE.
 */
static void test_reset_tracking(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *g = NULL;
    struct doca_gpu_dev_verbs_qp *dev = NULL;
    struct doca_gpu_verbs_qp_error_info info;
    doca_verbs_qp_attr_t *a = NULL;
    uint16_t lid;
    uint8_t gid[16];
    uint32_t qpn;

    assert_int_equal(doca_gpu_verbs_reset_tracking_and_memory(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &g),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_get_qp_dev(g, &dev), DOCA_SUCCESS);
    /* Connected (to itself): not in RESET, refused. */
    vt_address(&f->d, &lid, gid);
    assert_int_equal(doca_verbs_qp_get_qpn(f->qp, &qpn), DOCA_SUCCESS);
    assert_int_equal(vt_connect(&f->d, f->qp, qpn, gid, lid), 0);
    assert_int_equal(doca_gpu_verbs_reset_tracking_and_memory(g), DOCA_ERROR_BAD_STATE);

    /* As a data path leaves it: WQEs posted, an error recorded, CQEs written. */
    dev->sq_rsvd_index = dev->sq_ready_index = dev->sq_wqe_pi = 7;
    dev->cq_sq.cqe_ci = 7;
    dev->cq_sq.err.has_error = 1;
    dev->cq_sq.err.syndrome = 0x13;
    memset(dev->cq_sq.cqe_daddr, 0, 64); /* CQE 0: a valid requester completion of WQE 0 */

    assert_int_equal(doca_verbs_qp_attr_create(&a), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RST);
    assert_int_equal(doca_verbs_qp_modify(f->qp, a, DOCA_VERBS_QP_ATTR_NEXT_STATE), DOCA_SUCCESS);
    doca_verbs_qp_attr_destroy(a);
    assert_int_equal(doca_gpu_verbs_reset_tracking_and_memory(g), DOCA_SUCCESS);
    assert_int_equal(dev->sq_rsvd_index, 0);
    assert_int_equal(dev->sq_ready_index, 0);
    assert_int_equal(dev->sq_wqe_pi, 0);
    assert_int_equal(dev->cq_sq.cqe_ci, 0);
    assert_int_equal(dev->cq_sq.err.has_error, 0);
    assert_int_equal(doca_gpu_verbs_query_last_error(g, &info), DOCA_SUCCESS);
    assert_false(info.has_error);
    for (uint32_t i = 0; i < dev->cq_sq.cqe_num; i++)
        assert_int_equal(dev->cq_sq.cqe_daddr[i * 64 + 63] >> 4, 0xf); /* opcode INVALID */
    assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, g), DOCA_SUCCESS);
}

static void test_accessor_refusals(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *g = NULL;
    struct doca_gpu_dev_verbs_qp *dev = NULL;
    struct doca_gpu_verbs_qp_error_info info;
    enum doca_gpu_dev_verbs_nic_handler h;
    uint8_t on;
    bool can;

    assert_int_equal(doca_gpu_verbs_get_qp_dev(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_get_nic_handler(NULL, &h), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_cpu_proxy_enabled(NULL, &on), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_cpu_proxy_progress(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_query_last_error(NULL, &info), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_can_gpu_register_uar(NULL, &can), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_uar(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_unexport_uar(NULL), DOCA_ERROR_INVALID_VALUE);
    /* No CUDA context here (no driver, or none current): nothing maps for a GPU. */
    can = true;
    assert_int_equal(doca_gpu_verbs_can_gpu_register_uar(f, &can), DOCA_SUCCESS);
    assert_false(can);
    assert_int_not_equal(doca_gpu_verbs_export_uar((uint64_t *)f, (uint64_t **)&dev), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_unexport_uar((uint64_t *)f), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_64B, false, &g),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_get_qp_dev(g, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_query_last_error(g, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, g), DOCA_SUCCESS);
}

static void test_multi_refusals(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp *qps[3] = {NULL, NULL, NULL};
    struct doca_gpu_dev_verbs_qp *array = NULL;

    assert_int_equal(doca_gpu_verbs_export_qp(NULL, f->qp, H(AUTO), NULL, f->cq, NULL, NULL, VALID,
                                              DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &qps[0]),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_export_multi_qps_dev(NULL, NULL, 1, &array),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_multi_qps_dev(NULL, qps, 0, &array),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_export_multi_qps_dev(NULL, qps, 3, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    /* QPs exported for CPU threads do not go into an array of a GPU context. */
    assert_int_equal(doca_gpu_verbs_export_multi_qps_dev((doca_gpu_t *)f, qps, 3, &array),
                     DOCA_ERROR_INVALID_VALUE);
    /* Holes are allowed and stay zeroed. */
    assert_int_equal(doca_gpu_verbs_export_multi_qps_dev(NULL, qps, 3, &array), DOCA_SUCCESS);
    assert_int_equal(array[0].sq_wqe_num, 64);
    assert_int_equal(array[1].sq_wqe_num, 0);
    assert_int_equal(doca_gpu_verbs_unexport_multi_qps_dev(NULL, qps, 3, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_unexport_multi_qps_dev(NULL, qps, 3, array), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_unexport_qp(NULL, qps[0]), DOCA_SUCCESS);
}

static void test_hl_refusals(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = {.ibpd = f->d.pd, .sq_nwqe = 32};
    struct doca_gpu_verbs_qp_hl *hl = NULL;
    struct doca_gpu_verbs_qp_group_hl *g = NULL;
    struct doca_gpu_dev_verbs_qp *list = NULL;
    struct doca_gpu_verbs_qp_list_hl *qpl = NULL;

    assert_int_equal(doca_gpu_verbs_create_qp_hl(NULL, &hl), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, NULL), DOCA_ERROR_INVALID_VALUE);
    a.sq_nwqe = 0;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_INVALID_VALUE);
    a.sq_nwqe = 32;
    a.mreg_type = DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_MAX;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_INVALID_VALUE);
    a.mreg_type = DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT;
    a.send_dbr_mode_ext = (enum doca_gpu_verbs_send_dbr_mode_ext)7;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_INVALID_VALUE);
    a.send_dbr_mode_ext = VALID;
    a.flags = 0x4; /* not a flag (0x2 is PREFER_UAR_SHARING) */
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_INVALID_VALUE);
    /* Data Direct changes only descriptors mapped for the CPU (GDRCopy's): accepted, as DOCA. */
    a.flags = DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_SUPPORT_DATA_DIRECT;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(hl), DOCA_SUCCESS);
    hl = NULL;
    a.flags = DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_NONE;
    a.rq_nwqe = 16; /* a receive queue: single QPs only, as DOCA's */
    assert_int_equal(doca_gpu_verbs_create_qp_group_hl(&a, &g), DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 2, &qpl), DOCA_ERROR_NOT_SUPPORTED);
    a.rq_nwqe = 0;
    a.cq_type = DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_NOT_SUPPORTED);
    a.cq_type = DOCA_GPUNETIO_VERBS_CQ_64B;
    a.nic_handler = (enum doca_gpu_dev_verbs_nic_handler)5;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_ERROR_INVALID_VALUE);
    assert_null(hl);
    a.nic_handler = H(AUTO);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_destroy_qp_group_hl(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_qp_flat_list_create_hl(NULL, 1, &list),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_qp_flat_list_destroy_hl((struct doca_gpu_dev_verbs_qp *)f),
                     DOCA_ERROR_INVALID_VALUE);
    /* And what they make when the attributes are right. */
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_SUCCESS);
    assert_int_equal(hl->nic_handler, H(GPU_SM_DB));
    assert_null(hl->qp_umem_gpu_ptr); /* no GPU: library host memory */
    assert_int_equal(doca_gpu_verbs_create_qp_group_hl(&a, &g), DOCA_SUCCESS);
    assert_ptr_equal(g->qp_main.external_uar, g->qp_companion.external_uar);
    assert_int_equal(doca_gpu_verbs_destroy_qp_group_hl(g), DOCA_SUCCESS);
    assert_int_equal(hl->send_dbr_mode_ext, VALID);
    assert_true(hl->dev_opened);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(hl), DOCA_SUCCESS);

    /* DOCA 4.0's fields: the caller's device (kept open), a collapsed cq_type, OOO ordering. */
    a.net_dev = f->d.dev;
    a.cq_type = DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED;
    a.ordering_semantic = DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_RW;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &hl), DOCA_SUCCESS);
    assert_ptr_equal(hl->dev, f->d.dev);
    assert_false(hl->dev_opened);
    assert_int_equal(doca_gpu_verbs_get_qp_dev(hl->qp_gverbs, &list), DOCA_SUCCESS);
    assert_int_equal(list->cq_sq.cq_type, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(hl), DOCA_SUCCESS);
    /* f->d.dev is still open: the fixture's teardown closes it. */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_export_refusals, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_cq_without_overrun, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_sq_too_large, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_export_handlers, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_accessor_refusals, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_reset_tracking, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_multi_refusals, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_hl_refusals, fx_setup, fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
