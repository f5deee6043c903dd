/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the one-sided calls promise beyond posting, run by a CPU thread on
 * softmlx5 with the C core the DOCA facade calls (one core function per
 * facade call: wait(qp) is gdaki_wait_all, get_wait(qp, daddr) is
 * gdaki_get_wait_all, fence(qp) is gdaki_qp_fence, *_counter are
 * gdaki_*_counter).
 *
 * Usage: test_dp_onesided fresh            waits on QPs nothing was posted on
 *                                          return at once and post nothing
 *        test_dp_onesided error            a wait that meets an error CQE
 *                                          returns -EIO (every wait form)
 *        test_dp_onesided fence HANDLER    a write posted after fence() gathers
 *                                          what a read posted before it brought;
 *                                          without the fence it does not
 *        test_dp_onesided counter HANDLER  each counter variant's counter moves
 *                                          only once its operation completed
 *        test_dp_onesided netevent         a net-event object names the QP whose
 *                                          put met an error CQE, once, and no
 *                                          QP for successful completions
 * A watchdog ends a test that hangs. HANDLER is a NIC handler value (1 runs a
 * proxy thread).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_harness.h"
#include "dp_ops.h"

#define EXCL     DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define AUTO     DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define NO_RING  DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING
#define WATCHDOG 60 /* seconds: a wait that spins forever fails the test */

/* Regions of both buffers this test uses (dp_plan.h's are left alone, but DP_GET_OFF's source). */
#define FENCE_LEN     256u
#define FENCE_GATHER  0x200000u /* local: what the read brings, then the write sends */
#define FENCE_DST     0x200000u /* remote: where the write lands */
#define FENCE_CHECK   0x201000u /* local: the write's target, read back */
#define FENCE_WAR     0x210000u /* remote: read, then overwritten */
#define FENCE_WAR_OLD 0x211000u /* local: its old contents, then what the read brought */
#define FENCE_WAR_NEW 0x212000u /* local: its new contents */
#define FENCE_ROUNDS  4
#define CTR_PUT       0x220000u /* remote: put_counter's and put_signal_counter's data */
#define CTR_P         0x220100u /* remote: p_counter's value */
#define CTR_SIG       0x220200u /* remote: the signal word of the signal variants */
#define CTR_GET       0x221000u /* local: get_counter's data */
#define CTR_WORD      0x230000u /* remote: the counter */
#define CTR_RET       0x231000u /* local: each fetch-add's old value */
#define CTR_SRC       0x232000u /* local: the put sources */
#define CTR_HOLD_US   30000     /* how long the counter must stay put while the op is held */
#define CTR_OPS       5

static struct dp_cfg cfg_of(int handler, bool companion)
{
    struct dp_cfg c = {
            .handler = (enum doca_gpu_dev_verbs_nic_handler)handler,
            .dbr_mode = DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
            .sq_nwqe = 64,
            .companion = companion,
    };
    return c;
}

static uint64_t be64_at(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return be64toh(v);
}

/* Reads len bytes of the responder's buffer at roff into ours at loff; 0 or the wait's status. */
static int read_back(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p, uint64_t roff,
                     uint64_t loff, uint32_t len)
{
    int st = 0;

    gdaki_get(qp, DP_R(p, roff), DP_L(p, loff), len, DP_L(p, DP_DUMP_OFF), 0, 1, &st, EXCL, AUTO,
              0);
    return st;
}

/* Writes len bytes of ours at loff to the responder's buffer at roff, and waits. */
static int write_through(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p, uint64_t roff,
                         uint64_t loff, uint32_t len)
{
    return gdaki_wait(qp, gdaki_put(qp, DP_R(p, roff), DP_L(p, loff), len, EXCL, AUTO, 0));
}

/* Bytes of buf[off, off + len) that differ from pattern i. */
static int count_bad(const uint8_t *buf, uint64_t off, uint32_t len, uint32_t i)
{
    int bad = 0;

    for (uint32_t k = 0; k < len; k++)
        bad += buf[off + k] != dp_pattern(i, k);
    return bad;
}

/* Waits and get_waits on QPs that were never posted on: 0 at once, nothing posted. */
static int run_fresh(void)
{
    struct dp_cfg c = cfg_of(AUTO, true);
    struct doca_gpu_dev_verbs_addr dump;
    struct dp_side s;
    struct dp_plan p;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    dump = DP_L(&p, DP_DUMP_OFF);
    for (int i = 0; i < 2; i++) {
        struct doca_gpu_dev_verbs_qp *qp = s.dev[i];

        DP_CHECK(gdaki_wait_all(qp) == 0, "QP %d: wait on a fresh QP", i);
        DP_CHECK(gdaki_get_wait_all(qp, dump, 0, EXCL, AUTO) == 0, "QP %d: get_wait", i);
        DP_CHECK(gdaki_get_wait_all(qp, dump, 1, EXCL, AUTO) == 0, "QP %d: get_wait MCST", i);
        DP_CHECK(qp->sq_rsvd_index == 0 && qp->sq_wqe_pi == 0,
                 "QP %d: a wait on a fresh QP posted (reserved %llu, rung %llu)", i,
                 (unsigned long long)qp->sq_rsvd_index, (unsigned long long)qp->sq_wqe_pi);
    }
    /* Used once, the same calls wait for what was posted. */
    DP_CHECK(read_back(s.dev[0], &p, DP_GET_OFF, CTR_GET, 64) == 0, "get");
    DP_CHECK(gdaki_wait_all(s.dev[0]) == 0, "wait after a get");
    DP_CHECK(gdaki_get_wait_all(s.dev[0], dump, 1, EXCL, AUTO) == 0, "get_wait MCST after a get");
    DP_CHECK(s.dev[0]->sq_rsvd_index == 2, "%llu WQEs after a get and get_wait's dump",
             (unsigned long long)s.dev[0]->sq_rsvd_index);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

/* Every wait form meets the error CQE of a put with a wrong key, or the flush after it. */
static int run_error(void)
{
    struct dp_cfg c = cfg_of(AUTO, false);
    struct doca_gpu_dev_verbs_addr dump;
    struct dp_side s;
    struct dp_plan p;
    struct doca_gpu_dev_verbs_qp *qp;
    uint64_t t = 0;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    qp = s.dev[0];
    dump = DP_L(&p, DP_DUMP_OFF);
    DP_CHECK(dp_error(qp, &p, AUTO, &t) == -EIO, "wait(ticket) on a put with a wrong key");
    DP_CHECK(gdaki_wait_all(qp) == -EIO, "wait() after the error");
    DP_CHECK(gdaki_get_wait(qp, dump, t, 0, EXCL, AUTO) == -EIO, "get_wait(ticket)");
    DP_CHECK(gdaki_get_wait_all(qp, dump, 0, EXCL, AUTO) == -EIO, "get_wait()");
    /* With MCST the dump is posted on a QP in error: flushed, and said so. */
    DP_CHECK(gdaki_get_wait(qp, dump, t, 1, EXCL, AUTO) == -EIO, "get_wait(ticket) MCST");
    DP_CHECK(gdaki_get_wait_all(qp, dump, 1, EXCL, AUTO) == -EIO, "get_wait() MCST");
    DP_CHECK(qp->sq_rsvd_index == 3, "%llu WQEs: the put and two dumps expected",
             (unsigned long long)qp->sq_rsvd_index);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

/*
 * A read into a local buffer, then a write of that buffer, rung together:
 * whether the write sent what the read brought (the responder's DP_GET_OFF
 * pattern) or the zeros the buffer held before. softmlx5 gathers a write's
 * data when it starts the WQE, and starts the write right after sending the
 * read's request, long before the response is back: without a fence it
 * sends the zeros, which is what a fence exists for.
 */
static bool gather_after_read(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p,
                              uint8_t *buf, bool fence)
{
    memset(buf + FENCE_GATHER, 0, FENCE_LEN);
    memset(buf + FENCE_CHECK, 0xee, FENCE_LEN);
    gdaki_get(qp, DP_R(p, DP_GET_OFF), DP_L(p, FENCE_GATHER), FENCE_LEN, DP_L(p, DP_DUMP_OFF), 0, 0,
              &(int){0}, EXCL, AUTO, NO_RING);
    if (fence)
        gdaki_qp_fence(qp, EXCL, AUTO, NO_RING);
    DP_CHECK(write_through(qp, p, FENCE_DST, FENCE_GATHER, FENCE_LEN) == 0, "write after the read");
    DP_CHECK(read_back(qp, p, FENCE_DST, FENCE_CHECK, FENCE_LEN) == 0, "reading the write back");
    DP_CHECK(count_bad(buf, FENCE_GATHER, FENCE_LEN, 40) == 0, "the read brought wrong data");
    return count_bad(buf, FENCE_CHECK, FENCE_LEN, 40) == 0;
}

static int run_fence(int handler)
{
    struct dp_cfg c = cfg_of(handler, false);
    struct dp_side s;
    struct dp_plan p;
    struct dp_proxy px;
    struct doca_gpu_dev_verbs_qp *qp;
    int stale = 0;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    dp_proxy_start(&px, &s);
    qp = s.dev[0];
    for (int r = 0; r < FENCE_ROUNDS; r++) {
        DP_CHECK(gather_after_read(qp, &p, s.buf, true),
                 "round %d: a write after fence() sent its buffer before the read filled it", r);
        stale += !gather_after_read(qp, &p, s.buf, false);
    }
    /*
     * Without the fence the write overtakes the read; were it never to, the
     * rounds above would not show that fence() is what orders them.
     */
    DP_CHECK(stale > 0, "without fence() no write of %d overtook the read", FENCE_ROUNDS);
    /*
     * A read, then a write over what it reads: the read must return the old
     * contents. softmlx5's responder executes a QP's requests in order and
     * takes a read's data when it executes it, so this holds with or without
     * the fence there; a NIC may return the read's data later than it places
     * the write's (IB lets it), and the fence keeps the write back.
     */
    for (uint32_t k = 0; k < FENCE_LEN; k++) {
        s.buf[FENCE_WAR_OLD + k] = dp_pattern(70, k);
        s.buf[FENCE_WAR_NEW + k] = dp_pattern(71, k);
    }
    DP_CHECK(write_through(qp, &p, FENCE_WAR, FENCE_WAR_OLD, FENCE_LEN) == 0, "old contents");
    memset(s.buf + FENCE_WAR_OLD, 0, FENCE_LEN);
    gdaki_get(qp, DP_R(&p, FENCE_WAR), DP_L(&p, FENCE_WAR_OLD), FENCE_LEN, DP_L(&p, DP_DUMP_OFF), 0,
              0, &(int){0}, EXCL, AUTO, NO_RING);
    gdaki_qp_fence(qp, EXCL, AUTO, NO_RING);
    DP_CHECK(write_through(qp, &p, FENCE_WAR, FENCE_WAR_NEW, FENCE_LEN) == 0, "new contents");
    DP_CHECK(count_bad(s.buf, FENCE_WAR_OLD, FENCE_LEN, 70) == 0,
             "a read before fence() returned what a write after it wrote");
    DP_CHECK(read_back(qp, &p, FENCE_WAR, FENCE_WAR_OLD, FENCE_LEN) == 0 &&
                     count_bad(s.buf, FENCE_WAR_OLD, FENCE_LEN, 71) == 0,
             "the write after fence() did not land");
    dp_proxy_stop(&px);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

/* Counter variant op with code_opt; returns the main QP's last WQE. */
static uint64_t counter_op(int op, struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p,
                           const struct gdaki_counter *c, uint32_t code_opt)
{
    const uint64_t v = DP_P_U64;

    switch (op) {
    case 0:
        return gdaki_put_counter(qp, DP_R(p, CTR_PUT), DP_L(p, CTR_SRC), 64, c, EXCL, AUTO,
                                 code_opt);
    case 1:
        return gdaki_p_counter(qp, DP_R(p, CTR_P), &v, 8, c, EXCL, AUTO, code_opt);
    case 2:
        return gdaki_put_signal_counter(qp, DP_R(p, CTR_PUT), DP_L(p, CTR_SRC), 64,
                                        DP_R(p, CTR_SIG), DP_L(p, CTR_RET + 0x100), 1, c, EXCL,
                                        AUTO, code_opt);
    case 3:
        return gdaki_signal_counter(qp, DP_R(p, CTR_SIG), DP_L(p, CTR_RET + 0x108), 1, c, EXCL,
                                    AUTO, code_opt);
    default:
        return gdaki_get_counter(qp, DP_R(p, DP_GET_OFF), DP_L(p, CTR_GET), 64, c, EXCL, AUTO,
                                 code_opt);
    }
}

/* Whether WQE idx of qp stays without a completion for CTR_HOLD_US. */
static bool stays_incomplete(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx)
{
    for (int us = 0; us < CTR_HOLD_US; us += 100) {
        if (gdaki_cq_poll_one_at(&qp->cq_sq, idx) != EBUSY)
            return false;
        usleep(100);
    }
    return true;
}

/*
 * Each counter variant, its doorbells held back (SKIP_DB_RINGING): the
 * companion is rung alone first, and its WAIT must hold the fetch-add until
 * the main QP, rung afterwards, completed the operation. A WAIT for one CQE
 * fewer (the operation's own index) would pass at once: the main CQ already
 * has that many from the rounds before. Then every variant rung as the
 * facade rings it, both queues at once.
 */
static int run_counter(int handler)
{
    struct dp_cfg cfg = cfg_of(handler, true);
    struct dp_side s;
    struct dp_plan p;
    struct dp_proxy px;
    struct doca_gpu_dev_verbs_qp *qp, *comp;
    struct gdaki_counter c;

    dp_start(&s, &cfg);
    dp_plan_of(&s, &p);
    dp_proxy_start(&px, &s);
    qp = s.dev[0];
    comp = s.dev[1];
    for (uint32_t k = 0; k < 64; k++)
        s.buf[CTR_SRC + k] = dp_pattern(60, k);
    c = (struct gdaki_counter){comp, DP_R(&p, CTR_WORD), DP_L(&p, CTR_RET), 1};
    for (int op = 0; op < 2 * CTR_OPS; op++) {
        bool held = op < CTR_OPS;
        uint64_t last, fa;

        c.laddr = DP_L(&p, CTR_RET + 8 * (uint64_t)op);
        last = counter_op(op % CTR_OPS, qp, &p, &c, held ? NO_RING : 0);
        fa = comp->sq_rsvd_index - 1;
        if (held) {
            gdaki_sq_submit(comp, fa + 1, EXCL, AUTO, 0);
            DP_CHECK(stays_incomplete(comp, fa),
                     "op %d: the counter moved before its operation was even rung", op);
            gdaki_sq_submit(qp, last + 1, EXCL, AUTO, 0);
        }
        DP_CHECK(gdaki_wait(comp, fa) == 0, "op %d: the counter's fetch-add", op);
        DP_CHECK(gdaki_cq_poll_one_at(&qp->cq_sq, last) == 0,
                 "op %d: the counter moved before the operation completed", op);
        DP_CHECK(be64_at(s.buf + CTR_RET + 8 * (uint64_t)op) == (uint64_t)op,
                 "op %d: the counter was %llu before it", op,
                 (unsigned long long)be64_at(s.buf + CTR_RET + 8 * (uint64_t)op));
    }
    DP_CHECK(gdaki_wait_all(qp) == 0 && gdaki_wait_all(comp) == 0, "waiting for both QPs");
    DP_CHECK(count_bad(s.buf, CTR_GET, 64, 40) == 0, "get_counter() data differs");
    DP_CHECK(
            read_back(qp, &p, CTR_WORD, CTR_GET, 8) == 0 && be64_at(s.buf + CTR_GET) == 2 * CTR_OPS,
            "counter %llu, expected %d", (unsigned long long)be64_at(s.buf + CTR_GET), 2 * CTR_OPS);
    DP_CHECK(read_back(qp, &p, CTR_PUT, CTR_GET, 64) == 0 && count_bad(s.buf, CTR_GET, 64, 60) == 0,
             "put_counter() data differs");
    DP_CHECK(read_back(qp, &p, CTR_SIG, CTR_GET, 8) == 0 && be64_at(s.buf + CTR_GET) == 4,
             "signal word %llu, expected 4", (unsigned long long)be64_at(s.buf + CTR_GET));
    dp_proxy_stop(&px);
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

/* The QP a net-event object names within a second, or NULL. */
static struct doca_gpu_verbs_qp *next_net_event(doca_gpu_net_event_t ev)
{
    struct doca_gpu_verbs_qp *qp = NULL;

    for (int ms = 0; ms < 1000 && qp == NULL; ms++) {
        DP_CHECK(doca_gpu_net_event_get(ev, &qp) == DOCA_SUCCESS, "net_event_get");
        if (qp == NULL)
            usleep(1000);
    }
    return qp;
}

/* An exported QP's send CQ armed through a net-event object: only its error CQE reports. */
static int run_net_event(void)
{
    struct dp_cfg c = cfg_of(AUTO, false);
    doca_gpu_net_event_t ev = NULL;
    struct doca_gpu_verbs_qp *none = NULL;
    struct dp_side s;
    struct dp_plan p;
    uint64_t t = 0;

    dp_start(&s, &c);
    dp_plan_of(&s, &p);
    DP_CHECK(doca_gpu_verbs_req_notify_cq(NULL, NULL) == DOCA_ERROR_INVALID_VALUE, "NULL CQ");
    DP_CHECK(doca_gpu_net_event_create(NULL, &ev) == DOCA_ERROR_INVALID_VALUE, "NULL device");
    DP_CHECK(doca_gpu_net_event_create(s.d.dev, &ev) == DOCA_SUCCESS, "net_event_create");
    DP_CHECK(doca_gpu_net_event_subscribe(ev, s.gqp, 0) == DOCA_ERROR_INVALID_VALUE, "0 QPs");
    DP_CHECK(doca_gpu_net_event_subscribe(ev, &none, 1) == DOCA_ERROR_INVALID_VALUE, "NULL QP");
    DP_CHECK(doca_gpu_net_event_subscribe(ev, s.gqp, 1) == DOCA_SUCCESS, "subscribe");
    DP_CHECK(doca_gpu_net_event_subscribe(ev, s.gqp, 1) == DOCA_SUCCESS, "subscribe again");
    DP_CHECK(doca_gpu_verbs_unexport_qp(s.gpu, s.gqp[0]) == DOCA_ERROR_IN_USE,
             "unexport while subscribed");
    DP_CHECK(read_back(s.dev[0], &p, DP_GET_OFF, CTR_GET, 64) == 0, "get");
    DP_CHECK(next_net_event(ev) == NULL, "an event for a successful completion");
    DP_CHECK(dp_error(s.dev[0], &p, AUTO, &t) == -EIO, "put with a wrong key");
    DP_CHECK(next_net_event(ev) == s.gqp[0], "no event naming the QP of the error CQE");
    DP_CHECK(next_net_event(ev) == NULL, "a second event from one arm");
    DP_CHECK(doca_gpu_net_event_destroy(ev) == DOCA_SUCCESS, "net_event_destroy");
    return dp_finish(&s, DP_CHECK_ERROR, 0, false);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int handler = argc > 2 ? atoi(argv[2]) : AUTO;
    int rc;

    alarm(WATCHDOG);
    if (strcmp(mode, "fresh") == 0)
        rc = run_fresh();
    else if (strcmp(mode, "error") == 0)
        rc = run_error();
    else if (strcmp(mode, "fence") == 0)
        rc = run_fence(handler);
    else if (strcmp(mode, "counter") == 0)
        rc = run_counter(handler);
    else if (strcmp(mode, "netevent") == 0)
        rc = run_net_event();
    else {
        fprintf(stderr, "usage: test_dp_onesided fresh | error | fence [HANDLER] | "
                        "counter [HANDLER] | netevent\n");
        return 2;
    }
    printf("%s: %s (%d failures)\n", mode, rc == 0 ? "passed" : "FAILED", dp_failures);
    return rc;
}
