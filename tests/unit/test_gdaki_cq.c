/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path core's completion polls (include/device/impl/gdaki_verbs_cq.h,
 * what doca_gpunetio_dev_verbs_cq.cuh calls) on CPU threads, over hand-made
 * CQEs: the consumer index cqe_ci they raise, poll_cq's "next count",
 * collapsed CQs, the codes 0 / EBUSY / -EIO, a CQE read half written,
 * CQE number 0 away from entry 0 (cqe_base), every blocking wait ending
 * with -EIO on an error CQE instead of spinning, and the CQ doorbell record.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <endian.h>
#include <cmocka.h>

#include <infiniband/mlx5dv.h>

#include "gdaki_verbs.h"
#include "gdaki_verbs_desc.h"

#define RING 16

static const enum doca_gpu_dev_verbs_resource_sharing_mode rsms[] = {
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA,
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU,
};
static const enum doca_gpu_dev_verbs_resource_sharing_mode gpu =
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU;

/* A CQ descriptor over a ring of RING CQEs (or one, collapsed), all free. */
struct fx {
    struct doca_gpu_dev_verbs_cq cq;
    gdaki_be32_t dbrec;
    uint8_t cqes[RING * 64] __attribute__((aligned(64)));
};

static void fx_init(struct fx *f, int collapsed)
{
    memset(f, 0, sizeof(*f));
    gdaki_desc_set_cq(&f->cq, f->cqes, 4, 0x77, collapsed, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
                      &f->dbrec);
    memset(f->cqes, 0xff, sizeof(f->cqes)); /* opcode INVALID everywhere */
}

/*
 * Writes a CQE for WQE counter `counter` at entry `slot`: the body copied
 * in as bytes (stores typed as the CQE's fields could be moved past the
 * core's 4-byte loads of the same bytes), then its last word (wqe_counter,
 * signature, op_own) with one release store, which is what hands the CQE
 * to a poller on another thread, as the NIC's last write does.
 */
static void put_cqe(struct fx *f, uint32_t slot, uint16_t counter, uint8_t opcode, uint8_t synd)
{
    union {
        struct mlx5_cqe64 ok;
        struct mlx5_err_cqe err;
    } c;
    uint8_t *cqe = f->cqes + slot * 64;
    uint32_t tail;

    memset(&c, 0, sizeof(c));
    c.ok.wqe_counter = htobe16(counter);
    if (opcode == MLX5_CQE_REQ_ERR)
        c.err.syndrome = synd;
    /* The owner bit of the lap its counter is in, as the NIC's producer sets it. */
    c.ok.op_own = (uint8_t)(opcode << 4) | (uint8_t)((counter / RING) & 1);
    memcpy(cqe, &c, 60);
    memcpy(&tail, (const uint8_t *)&c + 60, sizeof(tail));
    __atomic_store_n((uint32_t *)(void *)(cqe + 60), tail, __ATOMIC_RELEASE);
}

static void put_ok(struct fx *f, uint64_t wqe)
{
    put_cqe(f, f->cq.collapsed ? 0 : (uint32_t)(wqe % RING), (uint16_t)wqe, MLX5_CQE_REQ, 0);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* A blocking wait run on its own thread, so that a hang fails the test instead of the run. */
enum wait_kind { WAIT_AT, WAIT_NEXT, WAIT_LEGACY_AT, WAIT_LEGACY_NEXT };

struct waiter {
    pthread_t thread;
    struct doca_gpu_dev_verbs_cq *cq;
    enum wait_kind kind;
    uint64_t arg; /* the WQE index, or the count */
    enum doca_gpu_dev_verbs_resource_sharing_mode rsm;
    int rc;
    int done; /* atomic */
};

static void *waiter_run(void *p)
{
    struct waiter *w = p;

    if (w->kind == WAIT_AT)
        w->rc = gdaki_cq_wait(w->cq, w->arg, w->rsm);
    else if (w->kind == WAIT_NEXT)
        w->rc = gdaki_cq_wait_next(w->cq, (uint32_t)w->arg, w->rsm);
    else if (w->kind == WAIT_LEGACY_AT)
        w->rc = gdaki_cq_poll_at(w->cq, w->arg);
    else
        w->rc = gdaki_cq_poll(w->cq, (uint32_t)w->arg);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void waiter_start(struct waiter *w, struct doca_gpu_dev_verbs_cq *cq, enum wait_kind kind,
                         uint64_t arg, enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    memset(w, 0, sizeof(*w));
    w->cq = cq;
    w->kind = kind;
    w->arg = arg;
    w->rsm = rsm;
    assert_int_equal(pthread_create(&w->thread, NULL, waiter_run, w), 0);
}

static int waiter_done(struct waiter *w)
{
    return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * Joins w within 10 s and returns what the wait returned; fails the test if
 * it is still waiting. Fixtures and waiters are static, so that a wait left
 * spinning reads memory that stays valid.
 */
static int waiter_join(struct waiter *w)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    if (pthread_timedjoin_np(w->thread, NULL, &until) != 0)
        fail_msg("a blocking wait (kind %d, %llu) still spins after 10 s", w->kind,
                 (unsigned long long)w->arg);
    return w->rc;
}

/* One blocking wait on its own thread: what it returned. */
static int run_wait(struct doca_gpu_dev_verbs_cq *cq, enum wait_kind kind, uint64_t arg,
                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm)
{
    static struct waiter w;

    waiter_start(&w, cq, kind, arg, rsm);
    return waiter_join(&w);
}

/* A successful poll raises cqe_ci past the WQE whose CQE it saw; below cqe_ci a poll succeeds. */
static void test_ci_advance(void **state)
{
    static struct fx f;

    (void)state;
    for (unsigned int m = 0; m < sizeof(rsms) / sizeof(rsms[0]); m++) {
        fx_init(&f, 0);
        assert_int_equal(gdaki_cq_check(&f.cq, 3, rsms[m]), EBUSY);
        assert_int_equal(f.cq.cqe_ci, 0);
        put_ok(&f, 3);
        assert_int_equal(gdaki_cq_check(&f.cq, 3, rsms[m]), 0);
        assert_int_equal(f.cq.cqe_ci, 4);
        /* Entry 1 was never written: cqe_ci says WQE 1 is done (completions are in order). */
        assert_int_equal(gdaki_cq_check(&f.cq, 1, rsms[m]), 0);
        assert_int_equal(gdaki_cq_check(&f.cq, 4, rsms[m]), EBUSY);
        /* Never lowered: a poll of an older WQE leaves it. */
        put_ok(&f, 2);
        assert_int_equal(gdaki_cq_check(&f.cq, 2, rsms[m]), 0);
        assert_int_equal(f.cq.cqe_ci, 4);
        /* The NIC overran the CQ: entry 7 holds WQE 23's CQE, which completes WQE 7 too. */
        put_ok(&f, 23);
        assert_int_equal(gdaki_cq_check(&f.cq, 7, rsms[m]), 0);
        assert_int_equal(f.cq.cqe_ci, 24);
        /* Across the 16-bit counter's wrap: cqe_ci stays 64-bit. */
        f.cq.cqe_ci = 0;
        put_ok(&f, 0x10002);
        assert_int_equal(gdaki_cq_check(&f.cq, 0x10002, rsms[m]), 0);
        assert_int_equal(f.cq.cqe_ci, 0x10003);
        /* 2^15 and more WQEs back, the counter cannot tell; cqe_ci can. */
        assert_int_equal(gdaki_cq_check(&f.cq, 0x10002 - 0x8000 - RING, rsms[m]), 0);
        f.cq.cqe_ci = 0;
        assert_int_equal(gdaki_cq_check(&f.cq, 0x10002 - 0x8000 - RING, rsms[m]), EBUSY);
    }
}

/* Threads polling one CQ together leave cqe_ci at the highest completion any of them saw. */
struct racer {
    struct doca_gpu_dev_verbs_cq *cq;
    uint32_t seed;
    int bad;
};

static void *racer_run(void *p)
{
    struct racer *r = p;

    for (int i = 0; i < 2000; i++) {
        r->seed = r->seed * 1103515245u + 12345u;
        if (gdaki_cq_check(r->cq, (r->seed >> 8) % RING, gpu) != 0)
            r->bad++;
    }
    return NULL;
}

static void test_ci_concurrent(void **state)
{
    static struct fx f;
    struct racer r[4];
    pthread_t t[4];

    (void)state;
    fx_init(&f, 0);
    for (uint64_t i = 0; i < RING; i++)
        put_ok(&f, i);
    for (int i = 0; i < 4; i++) {
        r[i] = (struct racer){&f.cq, 77u * (uint32_t)i + 1, 0};
        assert_int_equal(pthread_create(&t[i], NULL, racer_run, &r[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(r[i].bad, 0);
    }
    assert_int_equal(f.cq.cqe_ci, RING);
}

/* poll_cq(count): the WQE cqe_ci + count - 1, waiting for it; 0 at once for none. */
static void test_wait_next(void **state)
{
    static struct fx f;
    static struct waiter w;

    (void)state;
    fx_init(&f, 0);
    assert_int_equal(run_wait(&f.cq, WAIT_NEXT, 0, gpu), 0);
    put_ok(&f, 0);
    put_ok(&f, 1);
    put_ok(&f, 2);
    assert_int_equal(run_wait(&f.cq, WAIT_NEXT, 3, gpu), 0);
    assert_int_equal(f.cq.cqe_ci, 3);
    /* Two more: the wait holds until WQE 4 is there, not WQE 3. */
    waiter_start(&w, &f.cq, WAIT_NEXT, 2, gpu);
    sleep_ms(20);
    put_ok(&f, 3);
    sleep_ms(50);
    assert_false(waiter_done(&w));
    put_ok(&f, 4);
    assert_int_equal(waiter_join(&w), 0);
    assert_int_equal(f.cq.cqe_ci, 5);
    /* The form without a sharing mode is the same. */
    put_ok(&f, 5);
    assert_int_equal(run_wait(&f.cq, WAIT_LEGACY_NEXT, 1, gpu), 0);
    assert_int_equal(f.cq.cqe_ci, 6);
    /* A wait at an index returns when that CQE comes. */
    waiter_start(&w, &f.cq, WAIT_AT, 9, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE);
    sleep_ms(20);
    assert_false(waiter_done(&w));
    put_ok(&f, 9);
    assert_int_equal(waiter_join(&w), 0);
    assert_int_equal(f.cq.cqe_ci, 10);
}

/* A collapsed CQ: one entry, its counter the newest completion, cqe_ci raised past it. */
static void test_collapsed(void **state)
{
    static struct fx f;

    (void)state;
    fx_init(&f, 1);
    assert_int_equal(f.cq.cqe_num, 1);
    assert_int_equal(f.cq.cq_type, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED);
    assert_int_equal(gdaki_cq_check(&f.cq, 0, gpu), EBUSY);
    put_ok(&f, 41);
    assert_int_equal(gdaki_cq_check(&f.cq, 40, gpu), 0);
    assert_int_equal(f.cq.cqe_ci, 42); /* past 41, not just 40: DOCA's collapsed index */
    assert_int_equal(gdaki_cq_check(&f.cq, 41, gpu), 0);
    assert_int_equal(gdaki_cq_check(&f.cq, 42, gpu), EBUSY);
    assert_int_equal(gdaki_cq_check(&f.cq, 3, gpu), 0);
    /* poll_cq(1) is WQE 42. */
    put_ok(&f, 42);
    assert_int_equal(run_wait(&f.cq, WAIT_NEXT, 1, gpu), 0);
    assert_int_equal(f.cq.cqe_ci, 43);
    /* Across the wrap. */
    f.cq.cqe_ci = 0xfff0;
    put_ok(&f, 0x10001);
    assert_int_equal(gdaki_cq_check(&f.cq, 0xfffe, gpu), 0);
    assert_int_equal(f.cq.cqe_ci, 0x10002);
}

/* 0, EBUSY and -EIO, the first error recorded once, and what an error means for later WQEs. */
static void test_codes(void **state)
{
    static struct fx f;

    (void)state;
    fx_init(&f, 0);
    put_ok(&f, 2);
    assert_int_equal(gdaki_cq_check(&f.cq, 2, gpu), 0);
    assert_int_equal(gdaki_cq_check(&f.cq, 3, gpu), EBUSY);
    put_cqe(&f, 4, 4, MLX5_CQE_REQ_ERR, 0x13);
    assert_int_equal(gdaki_cq_check(&f.cq, 4, gpu), -EIO);
    assert_int_equal(f.cq.cqe_ci, 3); /* an error raises nothing */
    assert_int_equal(f.cq.err.has_error, 1);
    assert_int_equal(f.cq.err.syndrome, 0x13);
    assert_int_equal(f.cq.err.wqe_counter, 4);
    /* The QP is in error: a WQE whose CQE is not there never completes. */
    assert_int_equal(gdaki_cq_check(&f.cq, 9, gpu), -EIO);
    assert_int_equal(gdaki_cq_check(&f.cq, 3, gpu), -EIO);
    /* What completed before the error still reads as done. */
    assert_int_equal(gdaki_cq_check(&f.cq, 2, gpu), 0);
    put_ok(&f, 1);
    f.cq.cqe_ci = 0;
    assert_int_equal(gdaki_cq_check(&f.cq, 1, gpu), 0);
    /* A second error CQE: -EIO, the first one stays recorded. */
    put_cqe(&f, 5, 5, MLX5_CQE_REQ_ERR, 0x05);
    assert_int_equal(gdaki_cq_check(&f.cq, 5, gpu), -EIO);
    assert_int_equal(f.cq.err.syndrome, 0x13);

    /* An error CQE of an earlier lap in a WQE's entry: the QP was in error when it was posted. */
    fx_init(&f, 0);
    put_cqe(&f, 5, 5, MLX5_CQE_REQ_ERR, 0x05);
    assert_int_equal(gdaki_cq_check(&f.cq, 5 + RING, gpu), -EIO);
    assert_int_equal(f.cq.err.wqe_counter, 5);
    /* The same in a collapsed CQ's entry. */
    fx_init(&f, 1);
    put_cqe(&f, 0, 7, MLX5_CQE_REQ_ERR, 0x15);
    assert_int_equal(gdaki_cq_check(&f.cq, 9, gpu), -EIO);
    assert_int_equal(f.cq.err.syndrome, 0x15);
    /* A responder error is an error too. */
    fx_init(&f, 0);
    put_cqe(&f, 1, 1, MLX5_CQE_RESP_ERR, 0);
    assert_int_equal(gdaki_cq_poll_one_at(&f.cq, 1), -EIO);
}

/*
 * The NIC writes a CQE's last byte after the rest: a poll that sees the new
 * wqe_counter under the old op_own (the lap before's CQE in that entry)
 * must not take it for the completion, be it a success or an error.
 */
static void test_torn_cqe(void **state)
{
    static struct fx f;
    uint8_t *slot3 = f.cqes + 3 * 64;
    uint16_t counter_be = htobe16(3 + RING);

    (void)state;
    fx_init(&f, 0);
    put_ok(&f, 3);
    assert_int_equal(gdaki_cq_check(&f.cq, 3, gpu), 0);
    /* WQE 3 + RING's CQE on its way: its counter is in, op_own is still WQE 3's. */
    memcpy(slot3 + 60, &counter_be, sizeof(counter_be));
    assert_int_equal(gdaki_cq_check(&f.cq, 3 + RING, gpu), EBUSY);
    /* Then op_own, with the next lap's owner bit. */
    put_ok(&f, 3 + RING);
    assert_int_equal(gdaki_cq_check(&f.cq, 3 + RING, gpu), 0);
    /* An error CQE half written: no success, and no error yet either. */
    put_ok(&f, 4);
    assert_int_equal(gdaki_cq_check(&f.cq, 4, gpu), 0);
    counter_be = htobe16(4 + RING);
    memcpy(f.cqes + 4 * 64 + 60, &counter_be, sizeof(counter_be));
    f.cqes[4 * 64 + 52 + 3] = 0x13; /* the error's syndrome, before op_own */
    assert_int_equal(gdaki_cq_check(&f.cq, 4 + RING, gpu), EBUSY);
    put_cqe(&f, 4, 4 + RING, MLX5_CQE_REQ_ERR, 0x13);
    assert_int_equal(gdaki_cq_check(&f.cq, 4 + RING, gpu), -EIO);

    /* CQE number 0 where the NIC wrote next at export (entry 5), a lap with owner bit 1. */
    fx_init(&f, 0);
    f.cq.cqe_base = 5;
    f.cq.cqe_base_owner = 1;
    put_cqe(&f, 5, 0, MLX5_CQE_REQ, 0);
    f.cqes[5 * 64 + 63] |= 1; /* put_cqe's owner bit is the counter's lap; this CQ's is 1 */
    assert_int_equal(gdaki_cq_check(&f.cq, 0, gpu), 0);
    /* CQE number RING - 5 wraps to entry 0, where the owner bit flips back to 0 (put_cqe's). */
    put_cqe(&f, 0, RING - 5, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_check(&f.cq, RING - 5, gpu), 0);
    assert_int_equal(gdaki_cq_check(&f.cq, RING - 4, gpu), EBUSY);
}

/* Every blocking wait, started before an error CQE comes, returns -EIO instead of spinning. */
static void test_error_ends_waits(void **state)
{
    static struct fx f;
    static struct waiter w[6];
    const int n = (int)(sizeof(w) / sizeof(w[0]));

    (void)state;
    for (int collapsed = 0; collapsed <= 1; collapsed++) {
        fx_init(&f, collapsed);
        put_ok(&f, 0);
        assert_int_equal(gdaki_cq_check(&f.cq, 0, gpu), 0);
        waiter_start(&w[0], &f.cq, WAIT_AT, 6, gpu); /* the failing WQE */
        waiter_start(&w[1], &f.cq, WAIT_AT, 9, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA);
        waiter_start(&w[2], &f.cq, WAIT_NEXT, 12, gpu); /* WQE 12 */
        waiter_start(&w[3], &f.cq, WAIT_LEGACY_AT, 7, gpu);
        waiter_start(&w[4], &f.cq, WAIT_LEGACY_NEXT, 3, gpu); /* WQE 3 */
        waiter_start(&w[5], &f.cq, WAIT_AT, 40,
                     DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE);
        sleep_ms(50);
        for (int i = 0; i < n; i++)
            assert_false(waiter_done(&w[i]));
        put_cqe(&f, collapsed ? 0 : 6, 6, MLX5_CQE_REQ_ERR, 0x13);
        for (int i = 0; i < n; i++)
            assert_int_equal(waiter_join(&w[i]), -EIO);
        /* And a wait that starts after it. */
        assert_int_equal(run_wait(&f.cq, WAIT_AT, 100, gpu), -EIO);
        assert_int_equal(run_wait(&f.cq, WAIT_NEXT, 50, gpu), -EIO);
        assert_int_equal(f.cq.err.wqe_counter, 6);
        assert_int_equal(f.cq.cqe_ci, 1);
    }
}

/* The kinds of CQ the polls serve: UNKNOWN reads the descriptor's. */
static void test_cq_type(void **state)
{
    static struct fx f;

    (void)state;
    fx_init(&f, 0);
    assert_int_equal(f.cq.cq_type, DOCA_GPUNETIO_VERBS_CQ_64B);
    assert_true(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN));
    assert_true(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_64B));
    assert_true(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED));
    assert_true(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST));
    assert_false(gdaki_cq_type_known(&f.cq, 0x42));
    f.cq.cq_type = 0x42;
    assert_false(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN));
    assert_true(gdaki_cq_type_known(&f.cq, DOCA_GPUNETIO_VERBS_CQ_64B));
}

/* cq_update_dbrec: 24-bit consumer index in cqe_ci, the record written unless overrun. */
static void test_update_dbrec(void **state)
{
    static struct fx f;

    (void)state;
    fx_init(&f, 0);
    assert_int_equal(gdaki_cq_update_dbrec(&f.cq, 3, 1), 3);
    assert_int_equal(f.cq.cqe_ci, 3);
    assert_int_equal(f.dbrec, htobe32(3));
    f.cq.cqe_ci = 0xfffffe;
    assert_int_equal(gdaki_cq_update_dbrec(&f.cq, 3, 1), 1);
    assert_int_equal(f.cq.cqe_ci, 1);
    assert_int_equal(f.dbrec, htobe32(1));
    /* The NIC ignores overrun: the record stays. */
    assert_int_equal(gdaki_cq_update_dbrec(&f.cq, 5, 0), 6);
    assert_int_equal(f.cq.cqe_ci, 6);
    assert_int_equal(f.dbrec, htobe32(1));
    assert_int_equal(gdaki_cq_update_dbrec(&f.cq, 0, 1), 6);
    assert_int_equal(f.dbrec, htobe32(6));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_ci_advance),
            cmocka_unit_test(test_ci_concurrent),
            cmocka_unit_test(test_wait_next),
            cmocka_unit_test(test_collapsed),
            cmocka_unit_test(test_codes),
            cmocka_unit_test(test_torn_cqe),
            cmocka_unit_test(test_error_ends_waits),
            cmocka_unit_test(test_cq_type),
            cmocka_unit_test(test_update_dbrec),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
