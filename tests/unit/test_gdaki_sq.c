/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path core's send-queue protocol (include/device/impl/gdaki_verbs_sq.h,
 * what doca_gpunetio_dev_verbs_qp.cuh calls) on CPU threads, over a QP whose
 * doorbell record, UAR registers and proxy word are plain memory: BlueFlame
 * writes alternating between the register's two buffers, what each code_opt
 * makes a submit, update_dbr and ring_db write (or not), the fence scope a
 * sync_scope asks for, DOCA's ready modes, and free-flow QPs published from
 * mark_wqes_ready.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <endian.h>
#include <cmocka.h>

#include "gdaki_verbs.h"
#include "gdaki_verbs_desc.h"

#define QPN      0x1234u
#define RING     16
#define BF_WORDS (PRM_WQE_BF_BUF_SIZE / 8) /* 64-bit words in one BlueFlame buffer */

static const enum doca_gpu_dev_verbs_resource_sharing_mode excl =
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
static const enum doca_gpu_dev_verbs_resource_sharing_mode cta =
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA;
static const enum doca_gpu_dev_verbs_resource_sharing_mode gpu =
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU;
static const uint32_t auto_h = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO;

/* A QP over RING basic blocks, its doorbell record, UAR (0x800..0x9ff) and proxy word. */
struct fx {
    struct doca_gpu_dev_verbs_qp qp;
    uint8_t ring[RING * 64] __attribute__((aligned(64)));
    uint8_t cqes[RING * 64] __attribute__((aligned(64)));
    gdaki_be32_t dbrec;
    uint64_t uar[PRM_WQE_BF_BUFS * BF_WORDS] __attribute__((aligned(64)));
    uint64_t proxy_pi;
};

static void fx_init(struct fx *f, uint32_t handler)
{
    memset(f, 0, sizeof(*f));
    gdaki_desc_set_sq(&f->qp, f->ring, RING, QPN, handler, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST,
                      DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_desc_set_cq(&f->qp.cq_sq, f->cqes, 4, 0x77, 0, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, NULL);
    f->qp.sq_dbrec = &f->dbrec;
    f->qp.sq_db = f->uar;
    f->qp.cpu_proxy_pi = &f->proxy_pi;
}

/* Writes an RDMA write in slot idx, told apart from the others by its remote address. */
static void put_wqe(struct fx *f, uint64_t idx)
{
    gdaki_wqe_rdma(&f->qp, gdaki_wqe_ptr(&f->qp, idx), idx, PRM_WQE_OPCODE_RDMA_WRITE,
                   PRM_WQE_CTRL_CQ_UPDATE, 0, 0x10000 + idx * 0x100, htobe32(1), 0x2000, htobe32(2),
                   64);
}

static const uint64_t *bf_buf(const struct fx *f, int b)
{
    return f->uar + b * BF_WORDS;
}

/*
 * Consecutive BlueFlame writes go to 0x800, 0x900, 0x800, ...: the first
 * buffer, then the second, whichever sharing mode; each holds the WQE it
 * rang (the copy given, when one is), after its doorbell record.
 */
static void test_bf_alternation(void **state)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode modes[] = {excl, cta, gpu};
    struct fx f;
    uint8_t copy[64];

    (void)state;
    for (unsigned int m = 0; m < 3; m++) {
        fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF);
        for (uint64_t k = 0; k < 3; k++) {
            put_wqe(&f, k);
            gdaki_sq_submit(&f.qp, k + 1, modes[m], auto_h, 0);
            assert_memory_equal(bf_buf(&f, (int)(k & 1)), f.ring + k * 64, 64);
            assert_int_equal(f.dbrec, htobe32((uint32_t)k + 1));
            assert_int_equal(f.qp.sq_wqe_pi, k + 1);
            assert_int_equal(f.qp.sq_bf_next, (k + 1) & 1);
        }
        /* The second buffer still holds WQE 1: the third write went to the first. */
        assert_memory_equal(bf_buf(&f, 1), f.ring + 64, 64);
    }

    /* submit_bf with a copy of the WQE: the copy goes in, to the buffer whose turn it is. */
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB);
    put_wqe(&f, 0);
    memcpy(copy, f.ring, 64);
    copy[20] ^= 0xff;
    gdaki_sq_submit_wqe(&f.qp, 1, gpu, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, 0, copy);
    assert_memory_equal(bf_buf(&f, 0), copy, 64);
    /* DOCA's ring_bf takes its turn too; its ring_db writes the first buffer and takes none. */
    gdaki_sq_bf_ring(&f.qp, f.ring, auto_h);
    assert_memory_equal(bf_buf(&f, 1), f.ring, 64);
    gdaki_sq_db_ring(&f.qp, 1, auto_h, 0);
    assert_int_equal(f.uar[0], gdaki_sq_db_value(&f.qp, 1));
    assert_int_equal(f.qp.sq_bf_next, 0);
}

/* What each code_opt makes a submit publish, for every way it publishes. */
static void test_submit_code_opt(void **state)
{
    const uint32_t skip = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING;
    const uint32_t async = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE;
    const uint32_t update_pi = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI;
    const uint64_t zeros[PRM_WQE_BF_BUFS * BF_WORDS] = {0};
    struct fx f;

    (void)state;
    /* SKIP_DB_RINGING: no record, no doorbell, the producer index stays. */
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB);
    gdaki_sq_submit(&f.qp, 2, gpu, auto_h, skip);
    gdaki_sq_submit(&f.qp, 2, excl, auto_h, skip | async);
    assert_int_equal(f.dbrec, 0);
    assert_memory_equal(f.uar, zeros, sizeof(zeros));
    assert_int_equal(f.qp.sq_wqe_pi, 0);
    /* ASYNC_STORE_RELEASE on a processor without it: the same stores, fenced. */
    gdaki_sq_submit(&f.qp, 2, gpu, auto_h, async);
    assert_int_equal(f.dbrec, htobe32(2));
    assert_int_equal(f.uar[0], gdaki_sq_db_value(&f.qp, 2));
    assert_int_equal(f.qp.sq_wqe_pi, 2);
    /* An index already published rings nothing, shared or not (never backwards). */
    f.uar[0] = 0;
    gdaki_sq_submit(&f.qp, 1, gpu, auto_h, 0);
    gdaki_sq_submit(&f.qp, 2, excl, auto_h, 0);
    assert_int_equal(f.uar[0], 0);
    assert_int_equal(f.dbrec, htobe32(2));
    /* A shared submit covers what other threads marked ready. */
    f.qp.sq_ready_index = 5;
    gdaki_sq_submit(&f.qp, 3, gpu, auto_h, 0);
    assert_int_equal(f.qp.sq_wqe_pi, 5);
    assert_int_equal(f.dbrec, htobe32(5));
    assert_int_equal(f.uar[0], gdaki_sq_db_value(&f.qp, 5));

    /* No doorbell record: the doorbell alone. */
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR);
    gdaki_sq_submit(&f.qp, 4, excl, auto_h, 0);
    assert_int_equal(f.dbrec, 0);
    assert_int_equal(f.uar[0], gdaki_sq_db_value(&f.qp, 4));

    /* The proxy: its word and sq_wqe_pi, with CPU_PROXY_UPDATE_PI or not; SKIP: neither. */
    for (int with_pi = 0; with_pi < 2; with_pi++) {
        fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY);
        gdaki_sq_submit(&f.qp, 3, gpu, auto_h, skip | (with_pi ? update_pi : 0));
        assert_int_equal(f.proxy_pi, 0);
        gdaki_sq_submit(&f.qp, 3, gpu, auto_h, with_pi ? update_pi : 0);
        assert_int_equal(f.proxy_pi, 3);
        assert_int_equal(f.qp.sq_wqe_pi, 3);
        assert_int_equal(f.dbrec, 0);
        assert_memory_equal(f.uar, zeros, sizeof(zeros));
    }
}

/* update_dbr writes the record alone, ring_db and write_db the register alone. */
static void test_dbr_and_db(void **state)
{
    const uint64_t zeros[PRM_WQE_BF_BUFS * BF_WORDS] = {0};
    const uint32_t async = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE;
    struct fx f;
    uint64_t reg = 0;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB);
    gdaki_sq_dbr_update(&f.qp, 0x12345, gdaki_nic_word(auto_h, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS),
                        0);
    assert_int_equal(f.dbrec, htobe32(0x2345));
    assert_memory_equal(f.uar, zeros, sizeof(zeros));
    gdaki_sq_db_ring(&f.qp, 7, gdaki_nic_word(auto_h, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD),
                     async);
    assert_int_equal(f.uar[0], gdaki_sq_db_value(&f.qp, 7));
    assert_int_equal(f.dbrec, htobe32(0x2345));
    gdaki_db_write(&reg, 0x1122334455667788ull, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU, 0);
    assert_int_equal(reg, 0x1122334455667788ull);
}

/*
 * The fence scope of a post: the QP's NIC scope, never narrower; SYS when
 * the post asks for SYS, even on a QP whose NIC scope is GPU.
 */
static void test_scope_word(void **state)
{
    const enum doca_gpu_dev_verbs_sync_scope narrower[] = {DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU,
                                                           DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA,
                                                           DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD};
    const uint32_t db = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;
    struct fx f;

    (void)state;
    fx_init(&f, db);
    for (int i = 0; i < 3; i++)
        assert_false(gdaki_sq_gpu_scope(&f.qp, gdaki_nic_word(db, narrower[i])));
    f.qp.sq_nic_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
    for (int i = 0; i < 3; i++)
        assert_true(gdaki_sq_gpu_scope(&f.qp, gdaki_nic_word(db, narrower[i])));
    assert_false(gdaki_sq_gpu_scope(&f.qp, gdaki_nic_word(db, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)));
    assert_false(gdaki_sq_gpu_scope(
            &f.qp, gdaki_nic_word(GDAKI_NIC_GPU_DB, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)));
    /* AUTO with a scope flag is still the QP's handler, flag kept; it is not the constant. */
    assert_int_equal(
            gdaki_nic_handler(&f.qp, gdaki_nic_word(auto_h, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS)),
            db | GDAKI_NIC_SCOPE_SYS);
    assert_int_equal(gdaki_nic_resolve(&f.qp, GDAKI_NIC_SCOPE_SYS), GDAKI_NIC_SCOPE_SYS);
    assert_int_equal(gdaki_nic_resolve(&f.qp, auto_h), GDAKI_NIC_GPU_DB);
}

struct advance_arg {
    uint64_t *ready;
    uint64_t from, to;
    enum doca_gpu_dev_verbs_resource_sharing_mode rsm;
    enum doca_gpu_dev_verbs_qp_ready_mode mode;
};

static void *advance_main(void *p)
{
    struct advance_arg *a = p;

    gdaki_ready_advance(a->ready, a->from, a->to, a->rsm, a->mode);
    return NULL;
}

/*
 * DOCA's ready modes: a range becomes ready only after every range before
 * it, whether the turn is waited for with compare-and-swap or with loads.
 */
static void test_ready_modes(void **state)
{
    const enum doca_gpu_dev_verbs_qp_ready_mode modes[] = {
            DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT, DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS,
            DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST};
    const enum doca_gpu_dev_verbs_resource_sharing_mode rsms[] = {cta, gpu};
    const struct timespec nap = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};

    (void)state;
    for (unsigned int m = 0; m < 3; m++) {
        for (unsigned int r = 0; r < 2; r++) {
            uint64_t ready = 0;
            struct advance_arg later = {&ready, 3, 5, rsms[r], modes[m]};
            pthread_t t;

            assert_int_equal(pthread_create(&t, NULL, advance_main, &later), 0);
            nanosleep(&nap, NULL);
            /* [3, 5] waits for [0, 2]. */
            assert_int_equal(__atomic_load_n(&ready, __ATOMIC_ACQUIRE), 0);
            gdaki_ready_advance(&ready, 0, 2, rsms[r], modes[m]);
            assert_int_equal(pthread_join(t, NULL), 0);
            assert_int_equal(ready, 6);
        }
    }
    /* EXCLUSIVE: the one thread's ranges come in order; no waiting. */
    {
        uint64_t ready = 0;

        gdaki_ready_advance(&ready, 0, 9, excl, DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS);
        assert_int_equal(ready, 10);
    }
}

/*
 * mark_wqes_ready on a free-flow QP publishes to its proxy, SKIP_DB_RINGING
 * or not (DOCA's free-flow proxy sees ready WQEs without a submit); on any
 * other QP it rings nothing.
 */
static void test_free_flow_ready(void **state)
{
    const uint32_t skip = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING;
    const uint64_t zeros[PRM_WQE_BF_BUFS * BF_WORDS] = {0};
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW);
    gdaki_sq_ready(&f.qp, 0, 1, gpu, DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS, auto_h, skip);
    assert_int_equal(f.qp.sq_ready_index, 2);
    assert_int_equal(f.proxy_pi, 2);
    assert_int_equal(f.qp.sq_wqe_pi, 2);
    /* The submit that follows has nothing left to do. */
    f.proxy_pi = 0;
    gdaki_sq_submit(&f.qp, 2, gpu, auto_h, 0);
    assert_int_equal(f.proxy_pi, 0);

    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB);
    gdaki_sq_ready(&f.qp, 0, 1, excl, DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT, auto_h, 0);
    assert_int_equal(f.qp.sq_ready_index, 2);
    assert_int_equal(f.dbrec, 0);
    assert_memory_equal(f.uar, zeros, sizeof(zeros));
    /* The handler named in the call, not the QP's, decides. */
    fx_init(&f, DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY);
    gdaki_sq_ready(&f.qp, 0, 0, cta, DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST,
                   DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW, 0);
    assert_int_equal(f.proxy_pi, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_bf_alternation), cmocka_unit_test(test_submit_code_opt),
            cmocka_unit_test(test_dbr_and_db),     cmocka_unit_test(test_scope_word),
            cmocka_unit_test(test_ready_modes),    cmocka_unit_test(test_free_flow_ready),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
