/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * High-level QP lists and group lists on softmlx5 (no GPU: the QPs are
 * exported for CPU threads, the slabs are host memory):
 * - layout: every QP's CQ ring, CQ record, work queue and QP record lie in
 *   the list's four slabs (one UMEM each), aligned, not overlapping;
 * - use: each QP of two lists connected pairwise moves data, one CPU
 *   thread per QP, with the rings wrapping; a group list's main and
 *   companion connected to each other do too;
 * - UARs: one per QP, or one for the list with PREFER_UAR_SHARING;
 * - comp_channel: an error CQE on a list's QP or a single QP gives one
 *   event carrying that QP's qp_gverbs; a successful CQE gives none;
 *   destroy is IN_USE until the event is acknowledged;
 * - refusals, and partial failures releasing everything (the fixture's
 *   teardown fails if the device still has objects).
 */
#include <endian.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "doca_gpunetio.h"
#include "doca_gpunetio_high_level.h"
#include "gdaki_verbs.h"
#include "verbs_test.h"

#define NQPS      8
#define SQ_NWQE   32
#define PUTS      100 /* per QP: more than SQ_NWQE, so the rings wrap */
#define PUT_LEN   256
#define SRC_OFF   0x0
#define DST_OFF   0x10000
#define BUF_BYTES 0x20000
#define PAGE      4096
#define EXCL      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define AUTO      DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO

struct fx {
    struct vt_dev d;
    uint8_t *buf;
    struct ibv_mr *mr;
    uint16_t lid;
    uint8_t gid[16];
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    vt_open(&f->d);
    f->buf = aligned_alloc(PAGE, BUF_BYTES);
    if (f->buf == NULL)
        return -1;
    memset(f->buf, 0, BUF_BYTES);
    f->mr = ibv_reg_mr(f->d.pd, f->buf, BUF_BYTES,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (f->mr == NULL)
        return -1;
    vt_address(&f->d, &f->lid, f->gid);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    doca_error_t err;

    ibv_dereg_mr(f->mr);
    free(f->buf);
    /* IN_USE here means a create or destroy left an object behind. */
    err = doca_verbs_dev_close(f->d.dev);
    ibv_dealloc_pd(f->d.pd);
    ibv_close_device(f->d.ctx);
    free(f);
    return err == DOCA_SUCCESS ? 0 : -1;
}

static struct doca_gpu_verbs_qp_init_attr_hl attr_of(const struct fx *f)
{
    struct doca_gpu_verbs_qp_init_attr_hl a = {
            .net_dev = f->d.dev,
            .ibpd = f->d.pd,
            .sq_nwqe = SQ_NWQE,
            .nic_handler = AUTO,
    };

    return a;
}

/* [p, p + len) lies in the handed-out part of slab s, at an offset aligned to align. */
static size_t offset_in(const struct doca_gpu_verbs_umem_hl *s, const void *p, size_t len,
                        size_t align)
{
    uintptr_t base = (uintptr_t)s->base_gpu_ptr;
    size_t off = (uintptr_t)p - base;

    assert_true((uintptr_t)p >= base);
    assert_true(off + len <= s->next_offset);
    assert_true(s->next_offset <= s->size);
    assert_int_equal(off % align, 0);
    return off;
}

/* No two of the n pieces of len bytes at off[] overlap. */
static void assert_disjoint(const size_t *off, uint32_t n, size_t len)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            assert_true(off[i] + len <= off[j] || off[j] + len <= off[i]);
}

/* The n QPs' four pieces are in the four slabs, aligned and disjoint. */
static void check_layout(const struct doca_gpu_verbs_qp_hl *const *qps, uint32_t n,
                         struct doca_gpu_verbs_umem_hl *const slabs[4])
{
    size_t ring[2 * NQPS], cdbr[2 * NQPS], wq[2 * NQPS], qdbr[2 * NQPS];
    size_t cq_len = 0, wq_len = 0;

    assert_true(n <= 2 * NQPS);
    for (int k = 0; k < 4; k++) {
        assert_non_null(slabs[k]);
        assert_non_null(slabs[k]->umem);
        assert_true(slabs[k]->is_system_malloc);
        assert_int_equal(slabs[k]->refcount, n);
        for (int m = 0; m < k; m++)
            assert_ptr_not_equal(slabs[k]->umem, slabs[m]->umem);
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct doca_gpu_verbs_qp_hl *q = qps[i];
        void *cq_buf = NULL, *sq_buf = NULL, *rq_buf = NULL, *qp_dbr = NULL;
        uint32_t *ci_dbr = NULL, cq_n = 0, sq_n = 0, rq_n = 0, rwqe = 0;
        uint8_t cqe_size = 0;

        /* The slabs own the memory: no per-QP registration. */
        assert_null(q->cq_sq_umem);
        assert_null(q->qp_umem);
        assert_null(q->qp_umem_dbr);
        assert_int_equal(doca_verbs_cq_get_wq(q->cq_sq, &cq_buf, &cq_n, &cqe_size), DOCA_SUCCESS);
        assert_int_equal(doca_verbs_cq_get_dbr_addr(q->cq_sq, NULL, &ci_dbr, NULL), DOCA_SUCCESS);
        assert_int_equal(doca_verbs_qp_get_wq(q->qp, &sq_buf, &sq_n, &rq_buf, &rq_n, &rwqe),
                         DOCA_SUCCESS);
        assert_int_equal(doca_verbs_qp_get_dbr_addr(q->qp, &qp_dbr), DOCA_SUCCESS);
        assert_ptr_equal(cq_buf, q->cq_sq_umem_gpu_ptr);
        assert_ptr_equal(sq_buf, q->qp_umem_gpu_ptr);
        assert_ptr_equal(qp_dbr, q->qp_umem_dbr_gpu_ptr);
        cq_len = (size_t)cq_n * cqe_size;
        wq_len = (size_t)sq_n * 64;
        ring[i] = offset_in(slabs[0], cq_buf, cq_len, PAGE);
        cdbr[i] = offset_in(slabs[1], ci_dbr, 8, 64);
        wq[i] = offset_in(slabs[2], sq_buf, wq_len, PAGE);
        qdbr[i] = offset_in(slabs[3], qp_dbr, 8, 64);
    }
    assert_disjoint(ring, n, cq_len);
    assert_disjoint(cdbr, n, 64);
    assert_disjoint(wq, n, wq_len);
    assert_disjoint(qdbr, n, 64);
}

static void check_list_layout(const struct doca_gpu_verbs_qp_list_hl *l)
{
    const struct doca_gpu_verbs_qp_hl *qps[NQPS];
    struct doca_gpu_verbs_umem_hl *slabs[4] = {l->cq_umem, l->cq_dbr_umem, l->sq_umem,
                                               l->sq_dbr_umem};

    for (uint32_t i = 0; i < l->num_qps; i++)
        qps[i] = &l->qps[i];
    check_layout(qps, l->num_qps, slabs);
}

static void connect_pair(struct fx *f, doca_verbs_qp_t *a, doca_verbs_qp_t *b)
{
    uint32_t qpn_a = 0, qpn_b = 0;

    assert_int_equal(doca_verbs_qp_get_qpn(a, &qpn_a), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_get_qpn(b, &qpn_b), DOCA_SUCCESS);
    assert_int_equal(vt_connect(&f->d, a, qpn_b, f->gid, f->lid), 0);
    assert_int_equal(vt_connect(&f->d, b, qpn_a, f->gid, f->lid), 0);
}

static struct doca_gpu_dev_verbs_addr addr_of(uint64_t a, uint32_t key)
{
    struct doca_gpu_dev_verbs_addr r = {.addr = a, .key = htobe32(key)};

    return r;
}

static uint8_t pattern(uint32_t qp, uint32_t k)
{
    return (uint8_t)(qp * 37 + k * 11 + 5);
}

/* One CPU thread driving one exported QP. */
struct worker {
    struct fx *f;
    struct doca_gpu_verbs_qp *gqp;
    uint32_t index; /* its source and destination region */
    uint32_t puts;
    int failures;
    pthread_t thread;
};

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    struct doca_gpu_dev_verbs_qp *qp = NULL;
    uint64_t src = (uintptr_t)w->f->buf + SRC_OFF + (uint64_t)w->index * PUT_LEN;
    uint64_t dst = (uintptr_t)w->f->buf + DST_OFF + (uint64_t)w->index * PUT_LEN;

    if (doca_gpu_verbs_get_qp_dev(w->gqp, &qp) != DOCA_SUCCESS) {
        w->failures++;
        return NULL;
    }
    for (uint32_t k = 0; k < w->puts; k++) {
        uint64_t t = gdaki_put(qp, addr_of(dst, w->f->mr->rkey), addr_of(src, w->f->mr->lkey),
                               PUT_LEN, EXCL, AUTO, 0);

        if (gdaki_wait(qp, t) != 0)
            w->failures++;
    }
    return NULL;
}

/* Each of the n QPs puts its region PUTS times from its own thread; every region must arrive. */
static void move_data(struct fx *f, struct doca_gpu_verbs_qp *const *gqps, uint32_t n)
{
    struct worker w[2 * NQPS];

    assert_true(n <= 2 * NQPS);
    memset(f->buf + DST_OFF, 0, (size_t)n * PUT_LEN);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < PUT_LEN; k++)
            f->buf[SRC_OFF + i * PUT_LEN + k] = pattern(i, k);
    for (uint32_t i = 0; i < n; i++) {
        w[i] = (struct worker){.f = f, .gqp = gqps[i], .index = i, .puts = PUTS};
        assert_int_equal(pthread_create(&w[i].thread, NULL, worker_run, &w[i]), 0);
    }
    for (uint32_t i = 0; i < n; i++) {
        pthread_join(w[i].thread, NULL);
        assert_int_equal(w[i].failures, 0);
        assert_memory_equal(f->buf + DST_OFF + i * PUT_LEN, f->buf + SRC_OFF + i * PUT_LEN,
                            PUT_LEN);
    }
}

static void test_list_layout_and_data(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = attr_of(f);
    struct doca_gpu_verbs_qp_list_hl *la = NULL, *lb = NULL;
    struct doca_gpu_verbs_qp *gqps[2 * NQPS];

    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, NQPS, &la), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, NQPS, &lb), DOCA_SUCCESS);
    assert_int_equal(la->num_qps, NQPS);
    check_list_layout(la);
    check_list_layout(lb);
    for (uint32_t i = 0; i < NQPS; i++) {
        assert_non_null(la->qps[i].qp);
        assert_non_null(la->qps[i].qp_gverbs);
        assert_ptr_equal(la->qps[i].dev, f->d.dev);
        assert_false(la->qps[i].dev_opened);
        assert_int_equal(la->qps[i].nic_handler, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB);
        /* Without PREFER_UAR_SHARING every QP has a UAR of its own. */
        for (uint32_t j = 0; j < i; j++)
            assert_ptr_not_equal(la->qps[i].external_uar, la->qps[j].external_uar);
        connect_pair(f, la->qps[i].qp, lb->qps[i].qp);
        gqps[i] = la->qps[i].qp_gverbs;
        gqps[NQPS + i] = lb->qps[i].qp_gverbs;
    }
    move_data(f, gqps, 2 * NQPS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(lb), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(la), DOCA_SUCCESS);
}

static void test_list_shared_uar(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = attr_of(f);
    struct doca_gpu_verbs_qp_list_hl *l = NULL, *peer = NULL;
    struct doca_gpu_verbs_qp_hl *single = NULL;
    struct doca_gpu_verbs_qp *gqps[NQPS];

    a.flags = DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_PREFER_UAR_SHARING;
    a.net_dev = NULL; /* the list opens one device for all its QPs */
    a.cq_collapsed = true;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, NQPS, &l), DOCA_SUCCESS);
    assert_true(l->qps[0].dev_opened);
    for (uint32_t i = 1; i < NQPS; i++) {
        assert_ptr_equal(l->qps[i].external_uar, l->qps[0].external_uar);
        assert_ptr_equal(l->qps[i].dev, l->qps[0].dev);
    }
    check_list_layout(l);
    /* A single QP takes a shared UAR too. */
    a.net_dev = f->d.dev;
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &single), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(single), DOCA_SUCCESS);
    /* Usable: connected to a list on the fixture's device. */
    a.flags = 0;
    a.cq_collapsed = false;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, NQPS, &peer), DOCA_SUCCESS);
    for (uint32_t i = 0; i < NQPS; i++) {
        connect_pair(f, l->qps[i].qp, peer->qps[i].qp);
        gqps[i] = l->qps[i].qp_gverbs;
    }
    move_data(f, gqps, NQPS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(l), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(peer), DOCA_SUCCESS);
}

static void test_group_list(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = attr_of(f);
    struct doca_gpu_verbs_qp_group_list_hl *g = NULL;
    const struct doca_gpu_verbs_qp_hl *qps[NQPS];
    struct doca_gpu_verbs_qp *gqps[NQPS];
    const uint32_t ngroups = NQPS / 2;

    for (int share = 0; share < 2; share++) {
        a.flags = share ? DOCA_GPUNETIO_VERBS_QP_INIT_ATTR_FLAGS_PREFER_UAR_SHARING : 0;
        assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, ngroups, &g), DOCA_SUCCESS);
        assert_int_equal(g->num_qp_groups, ngroups);
        for (uint32_t i = 0; i < ngroups; i++) {
            struct doca_gpu_verbs_umem_hl *slabs[4] = {g->cq_umem, g->cq_dbr_umem, g->sq_umem,
                                                       g->sq_dbr_umem};

            assert_ptr_equal(g->qpgs[i].qp_main.external_uar, g->qpgs[i].qp_companion.external_uar);
            if (i > 0 && share)
                assert_ptr_equal(g->qpgs[i].qp_main.external_uar, g->qpgs[0].qp_main.external_uar);
            else if (i > 0)
                assert_ptr_not_equal(g->qpgs[i].qp_main.external_uar,
                                     g->qpgs[0].qp_main.external_uar);
            qps[2 * i] = &g->qpgs[i].qp_main;
            qps[2 * i + 1] = &g->qpgs[i].qp_companion;
            if (i == ngroups - 1)
                check_layout(qps, NQPS, slabs);
        }
        /* Each group's main and companion connected to each other, both moving data. */
        for (uint32_t i = 0; i < ngroups; i++) {
            connect_pair(f, g->qpgs[i].qp_main.qp, g->qpgs[i].qp_companion.qp);
            gqps[2 * i] = g->qpgs[i].qp_main.qp_gverbs;
            gqps[2 * i + 1] = g->qpgs[i].qp_companion.qp_gverbs;
        }
        move_data(f, gqps, NQPS);
        assert_int_equal(doca_gpu_verbs_destroy_qp_group_list_hl(g), DOCA_SUCCESS);
    }
}

static void test_list_refusals(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = attr_of(f);
    struct doca_gpu_verbs_qp_list_hl *l = NULL, bogus = {0};
    struct doca_gpu_verbs_qp_group_list_hl *g = NULL, gbogus = {0};
    struct doca_verbs_device_attr *da = NULL;
    uint32_t max_qp;

    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(NULL, 1, &l), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 1, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 0, &l), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(NULL, 1, &g), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, 0, &g), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, 1, NULL), DOCA_ERROR_INVALID_VALUE);
    a.sq_nwqe = 0;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 1, &l), DOCA_ERROR_INVALID_VALUE);
    a.sq_nwqe = SQ_NWQE;
    a.ibpd = NULL;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 1, &l), DOCA_ERROR_INVALID_VALUE);
    a.ibpd = f->d.pd;
    a.flags = 1u << 2;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 1, &l), DOCA_ERROR_INVALID_VALUE);
    a.flags = 0;
    a.nic_handler = (enum doca_gpu_dev_verbs_nic_handler)5;
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, 1, &g), DOCA_ERROR_INVALID_VALUE);
    a.nic_handler = AUTO;
    /* More QPs than the device has; slabs over 4 GiB. */
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, UINT32_MAX, &l),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, UINT32_MAX / 2 + 1, &g),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_query_device(f->d.ctx, &da), DOCA_SUCCESS);
    max_qp = doca_verbs_device_attr_get_max_qp(da);
    doca_verbs_device_attr_free(da);
    if (max_qp > 4096) {
        a.sq_nwqe = DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM; /* 1 MiB of work queue each */
        assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 4097, &l), DOCA_ERROR_INVALID_VALUE);
        a.sq_nwqe = SQ_NWQE;
    }
    /* Refused by the export of the first QP: everything made so far is released. */
    a.cq_type = DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST;
    assert_int_equal(doca_gpu_verbs_create_qp_group_list_hl(&a, 2, &g), DOCA_ERROR_NOT_SUPPORTED);
    a.net_dev = NULL; /* and the device the list opened is closed again */
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, NQPS, &l), DOCA_ERROR_NOT_SUPPORTED);
    assert_null(l);
    assert_null(g);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(&bogus), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_destroy_qp_group_list_hl(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_verbs_destroy_qp_group_list_hl(&gbogus), DOCA_ERROR_INVALID_VALUE);
    /* enable_umem_cpu without a GPU: everything is host memory already. */
    a.cq_type = DOCA_GPUNETIO_VERBS_CQ_64B;
    a.net_dev = f->d.dev;
    a.enable_umem_cpu = true;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 2, &l), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(l), DOCA_SUCCESS);
}

/* One put on gqp to the fixture's buffer with rkey: the wait's result. */
static int put_once(struct fx *f, struct doca_gpu_verbs_qp *gqp, uint32_t rkey)
{
    struct doca_gpu_dev_verbs_qp *qp = NULL;
    uint64_t t;

    assert_int_equal(doca_gpu_verbs_get_qp_dev(gqp, &qp), DOCA_SUCCESS);
    t = gdaki_put(qp, addr_of((uintptr_t)f->buf + DST_OFF, rkey),
                  addr_of((uintptr_t)f->buf + SRC_OFF, f->mr->lkey), 64, EXCL, AUTO, 0);
    return gdaki_wait(qp, t);
}

static void test_comp_channel(void **state)
{
    struct fx *f = *state;
    struct doca_gpu_verbs_qp_init_attr_hl a = attr_of(f);
    struct doca_gpu_verbs_qp_list_hl *l = NULL, *peer = NULL;
    struct doca_gpu_verbs_qp_hl *single = NULL;
    doca_verbs_comp_channel_t *ch = NULL;
    doca_error_t err = doca_verbs_comp_channel_create(f->d.dev, &ch);
    void *ctx = NULL;
    int bad = 0; /* answers of the channel but SUCCESS and AGAIN */

    if (err == DOCA_ERROR_NOT_SUPPORTED)
        skip(); /* the device gives no DevX events */
    assert_int_equal(err, DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 3, &peer), DOCA_SUCCESS);
    a.comp_channel = ch;
    assert_int_equal(doca_gpu_verbs_create_qp_list_hl(&a, 2, &l), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_create_qp_hl(&a, &single), DOCA_SUCCESS);
    connect_pair(f, l->qps[0].qp, peer->qps[0].qp);
    connect_pair(f, l->qps[1].qp, peer->qps[1].qp);
    connect_pair(f, single->qp, peer->qps[2].qp);
    assert_int_equal(doca_verbs_get_cq_comp_channel_event(ch, &ctx), DOCA_ERROR_AGAIN);
    assert_null(ctx);

    /* Armed for solicited and error CQEs only: a successful put fires nothing. */
    assert_int_equal(put_once(f, l->qps[0].qp_gverbs, f->mr->rkey), 0);
    assert_int_equal(put_once(f, single->qp_gverbs, f->mr->rkey), 0);
    assert_null(vt_wait_cq_event(ch, 50, &bad));
    /* A wrong rkey: an error CQE, one event carrying that QP. */
    assert_int_equal(put_once(f, l->qps[1].qp_gverbs, f->mr->rkey ^ 0xffff00), -EIO);
    assert_ptr_equal(vt_wait_cq_event(ch, 5000, &bad), l->qps[1].qp_gverbs);
    assert_null(vt_wait_cq_event(ch, 50, &bad));
    assert_int_equal(put_once(f, single->qp_gverbs, f->mr->rkey ^ 0xffff00), -EIO);
    assert_ptr_equal(vt_wait_cq_event(ch, 5000, &bad), single->qp_gverbs);
    assert_int_equal(bad, 0);

    /* Destroy waits for the events to be acknowledged, freeing nothing until then. */
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(l), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(single), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_ack_cq_events(l->qps[1].cq_sq, 1), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_ack_cq_events(single->cq_sq, 1), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(l), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_hl(single), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_destroy_qp_list_hl(peer), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_comp_channel_destroy(ch), DOCA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_list_layout_and_data, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_list_shared_uar, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_group_list, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_list_refusals, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_comp_channel, fx_setup, fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
