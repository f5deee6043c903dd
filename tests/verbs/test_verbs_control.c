/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Verbs control path on softmlx5: every refusal of the API (NULL
 * arguments, bad sizes, one external UMEM of two, destroying objects in
 * use, illegal QP transitions, missing and forbidden mask bits) and the
 * objects it makes (device attributes, UMEM, UAR, CQ, QP, state machine,
 * query), and the attributes of a device without LAG, congestion-control
 * groups or a global traffic class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "verbs/verbs_internal.h" /* verbs_parse_traffic_class */
#include "verbs_test.h"

#define A(bit) DOCA_VERBS_QP_ATTR_##bit

struct fx {
    struct vt_dev d;
    doca_verbs_cq_t *cq;
    doca_verbs_qp_t *qp;
    doca_verbs_qp_attr_t *attr;
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    doca_verbs_qp_init_attr_t *ia;

    vt_open(&f->d);
    f->cq = vt_cq(f->d.dev, 64);
    ia = vt_qp_attr(f->d.dev, f->cq, 16, 16);
    if (f->cq == NULL || ia == NULL || doca_verbs_qp_create(f->d.dev, ia, &f->qp) != DOCA_SUCCESS)
        return -1;
    doca_verbs_qp_init_attr_destroy(ia);
    if (doca_verbs_qp_attr_create(&f->attr) != DOCA_SUCCESS)
        return -1;
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    doca_verbs_qp_attr_destroy(f->attr);
    doca_verbs_qp_destroy(f->qp);
    doca_verbs_cq_destroy(f->cq);
    vt_close(&f->d);
    free(f);
    return 0;
}

static doca_error_t to_init(struct fx *f)
{
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_pkey_index(f->attr, 0);
    doca_verbs_qp_attr_set_port_num(f->attr, 1);
    doca_verbs_qp_attr_set_allow_remote_write(f->attr, 1);
    doca_verbs_qp_attr_set_allow_remote_read(f->attr, 1);
    doca_verbs_qp_attr_set_atomic_mode(f->attr, DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC);
    return doca_verbs_qp_modify(f->qp, f->attr,
                                A(NEXT_STATE) | A(PKEY_INDEX) | A(PORT_NUM) |
                                        A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) |
                                        A(ATOMIC_MODE));
}

static const int rtr_mask =
        A(NEXT_STATE) | A(RQ_PSN) | A(DEST_QP_NUM) | A(PATH_MTU) | A(AH_ATTR) | A(MIN_RNR_TIMER);
static const int rts_mask =
        A(NEXT_STATE) | A(SQ_PSN) | A(ACK_TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY);

static doca_error_t to_rtr(struct fx *f)
{
    doca_verbs_ah_attr_t *ah = NULL;
    uint32_t qpn = 0;
    doca_error_t err;

    doca_verbs_qp_get_qpn(f->qp, &qpn);
    doca_verbs_ah_attr_create(f->d.dev, &ah);
    doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IPv6);
    doca_verbs_qp_attr_set_ah_attr(f->attr, ah);
    doca_verbs_ah_attr_destroy(ah);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTR);
    doca_verbs_qp_attr_set_rq_psn(f->attr, 0x123);
    doca_verbs_qp_attr_set_dest_qp_num(f->attr, qpn);
    doca_verbs_qp_attr_set_path_mtu(f->attr, DOCA_VERBS_MTU_SIZE_1K_BYTES);
    doca_verbs_qp_attr_set_min_rnr_timer(f->attr, 12);
    err = doca_verbs_qp_modify(f->qp, f->attr, rtr_mask);
    return err;
}

static doca_error_t to_rts(struct fx *f)
{
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTS);
    doca_verbs_qp_attr_set_sq_psn(f->attr, 0x456);
    doca_verbs_qp_attr_set_ack_timeout(f->attr, 14);
    doca_verbs_qp_attr_set_retry_cnt(f->attr, 7);
    doca_verbs_qp_attr_set_rnr_retry(f->attr, 7);
    return doca_verbs_qp_modify(f->qp, f->attr, rts_mask);
}

static void test_null_arguments(void **state)
{
    struct fx *f = *state;
    doca_verbs_cq_attr_t *cqa = NULL;
    doca_verbs_umem_t *umem = NULL;
    doca_verbs_uar_t *uar = NULL;
    doca_dev_t *dev = NULL;
    uint32_t u32;
    void *p;
    char buf[64];

    assert_int_equal(doca_verbs_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_dev_open(f->d.pd, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_dev_close(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_query_device(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(NULL, 4), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_create(&cqa), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_create(NULL, cqa, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_destroy(cqa), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_get_cqn(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_get_cqn(f->cq, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, NULL, &f->qp), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(NULL, f->attr, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(f->qp, NULL, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_query(f->qp, NULL, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_get_qpn(f->qp, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_get_dbr_addr(NULL, &p), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_umem_create(f->d.dev, NULL, NULL, 64, 0,
                                            (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, &umem),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_umem_create(f->d.dev, NULL, buf, sizeof(buf), 0,
                                            (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_umem_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_umem_get_id(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_uar_create(NULL, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE, &uar),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_uar_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_uar_reg_addr_get(NULL, &p), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_ah_attr_create(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_ah_attr(f->attr, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_sq_wr(NULL, 4), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_srq_create(NULL, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_device_attr_free(NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_bad_sizes(void **state)
{
    struct fx *f = *state;
    struct doca_verbs_device_attr *da = NULL;
    doca_verbs_qp_init_attr_t *ia;
    doca_verbs_cq_attr_t *cqa = NULL;
    doca_verbs_cq_t *cq = NULL;
    doca_verbs_qp_t *qp = NULL;
    doca_verbs_umem_t *umem = NULL;
    char buf[64];

    assert_int_equal(doca_verbs_query_device(f->d.ctx, &da), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_create(&cqa), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(cqa, 0), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(
            doca_verbs_cq_attr_set_cq_size(cqa, doca_verbs_device_attr_get_max_cqe(da) + 1),
            DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_set_cq_collapsed(cqa, 2), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_destroy(cqa), DOCA_SUCCESS);

    ia = vt_qp_attr(f->d.dev, f->cq, 16, 16);
    assert_non_null(ia);
    assert_int_equal(doca_verbs_qp_init_attr_set_sq_wr(ia, 0), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_send_max_sges(ia, 0), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_user_index(ia, 1u << 24),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_qp_type(ia, 3), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_sq_wr(ia, doca_verbs_device_attr_get_max_qp_wr(da) * 2);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_sq_wr(ia, 16);
    doca_verbs_qp_init_attr_set_rq_wr(ia, doca_verbs_device_attr_get_max_qp_wr(da) * 2);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_rq_wr(ia, 16);
    doca_verbs_qp_init_attr_set_send_max_sges(ia, 1000);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_send_max_sges(ia, 1);
    doca_verbs_qp_init_attr_set_receive_max_sges(ia, 1000);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_receive_max_sges(ia, 1);
    doca_verbs_qp_init_attr_set_max_inline_data(ia, 1u << 20);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_destroy(ia);

    assert_int_equal(doca_verbs_umem_create(f->d.dev, NULL, buf, 0, 0,
                                            (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, &umem),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_rq_psn(f->attr, 1u << 24), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_dest_qp_num(f->attr, 1u << 24),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_ack_timeout(f->attr, 32), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_retry_cnt(f->attr, 8), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_path_mtu(f->attr, DOCA_VERBS_MTU_SIZE_RAW_ETHERNET),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_uar_create(f->d.dev, (enum doca_verbs_uar_allocation_type)7,
                                           &(doca_verbs_uar_t *){NULL}),
                     DOCA_ERROR_INVALID_VALUE);
    doca_verbs_device_attr_free(da);
}

/* A host UMEM of `size` bytes (page aligned). */
static doca_verbs_umem_t *host_umem(struct fx *f, size_t size, void **mem)
{
    doca_verbs_umem_t *umem = NULL;

    assert_int_equal(posix_memalign(mem, 4096, size), 0);
    memset(*mem, 0, size);
    assert_int_equal(doca_verbs_umem_create(f->d.dev, NULL, *mem, size, IBV_ACCESS_LOCAL_WRITE,
                                            (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, &umem),
                     DOCA_SUCCESS);
    return umem;
}

static void test_external_umems(void **state)
{
    struct fx *f = *state;
    doca_verbs_cq_attr_t *cqa = NULL;
    doca_verbs_qp_init_attr_t *ia;
    doca_verbs_cq_t *cq = NULL;
    doca_verbs_qp_t *qp = NULL;
    void *mem, *ring;
    uint32_t n, id;
    uint8_t esz;
    uint32_t *ci;
    doca_verbs_umem_t *umem = host_umem(f, 1 << 16, &mem);

    doca_verbs_cq_attr_create(&cqa);
    doca_verbs_cq_attr_set_cq_size(cqa, 100);
    doca_verbs_cq_attr_set_external_umem(cqa, umem, 0);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_cq_attr_set_external_umem(cqa, NULL, 0);
    doca_verbs_cq_attr_set_external_dbr_umem(cqa, umem, 0);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    /* The ring (128 CQEs, 8 KiB) does not fit 4 KiB before the end of the UMEM. */
    doca_verbs_cq_attr_set_external_umem(cqa, umem, (1 << 16) - 4096);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_cq_attr_set_external_umem(cqa, umem, 4096);
    doca_verbs_cq_attr_set_external_dbr_umem(cqa, umem, 3);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_cq_attr_set_external_dbr_umem(cqa, umem, 64);
    assert_int_equal(doca_verbs_cq_create(f->d.dev, cqa, &cq), DOCA_SUCCESS);
    doca_verbs_cq_attr_destroy(cqa);
    assert_int_equal(doca_verbs_cq_get_wq(cq, &ring, &n, &esz), DOCA_SUCCESS);
    assert_ptr_equal(ring, (uint8_t *)mem + 4096);
    assert_int_equal(n, 128);
    assert_int_equal(esz, 64);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(((uint8_t *)ring)[i * 64 + 63], 0xf0); /* opcode INVALID, owner 0 */
    assert_int_equal(doca_verbs_cq_get_dbr_addr(cq, NULL, &ci, NULL), DOCA_SUCCESS);
    assert_ptr_equal(ci, (uint8_t *)mem + 64);
    assert_int_equal(doca_verbs_umem_get_id(umem, &id), DOCA_SUCCESS);

    /* QP: the same pairing rule, then a QP whose queues live in the UMEM after the CQ. */
    ia = vt_qp_attr(f->d.dev, cq, 8, 8);
    doca_verbs_qp_init_attr_set_external_umem(ia, umem, 4096 + 8192);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_init_attr_set_external_umem_dbr(ia, umem, 128);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
    doca_verbs_qp_init_attr_destroy(ia);

    assert_int_equal(doca_verbs_umem_destroy(umem), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_cq_destroy(cq), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_umem_destroy(umem), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_cq_destroy(cq), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_umem_destroy(umem), DOCA_SUCCESS);
    free(mem);
}

static void test_destroy_in_use(void **state)
{
    struct fx *f = *state;
    doca_verbs_uar_t *uar = NULL;
    doca_verbs_qp_init_attr_t *ia;
    doca_verbs_qp_t *qp = NULL;
    doca_verbs_cq_t *cq2 = vt_cq(f->d.dev, 8);
    void *reg;

    assert_non_null(cq2);
    assert_int_equal(
            doca_verbs_uar_create(f->d.dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_BLUEFLAME, &uar),
            DOCA_SUCCESS);
    assert_int_equal(doca_verbs_uar_reg_addr_get(uar, &reg), DOCA_SUCCESS);
    assert_non_null(reg);
    ia = vt_qp_attr(f->d.dev, f->cq, 4, 4);
    doca_verbs_qp_init_attr_set_receive_cq(ia, cq2);
    doca_verbs_qp_init_attr_set_external_uar(ia, uar);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
    doca_verbs_qp_init_attr_destroy(ia);
    assert_int_equal(doca_verbs_cq_destroy(cq2), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_cq_destroy(f->cq), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_uar_destroy(uar), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_dev_close(f->d.dev), DOCA_ERROR_IN_USE);
    /* The refused objects still work. */
    assert_int_equal(doca_verbs_qp_get_uar_addr(qp, &reg), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_uar_destroy(uar), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_destroy(cq2), DOCA_SUCCESS);
}

static void test_illegal_transitions(void **state)
{
    struct fx *f = *state;

    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rtr_mask), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTS);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rts_mask), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    assert_int_equal(to_rts(f), DOCA_ERROR_INVALID_VALUE); /* INIT->RTS */
    assert_int_equal(to_rtr(f), DOCA_SUCCESS);
    assert_int_equal(to_init(f), DOCA_ERROR_INVALID_VALUE); /* RTR->INIT */
    /* RTR->RTR */
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(to_rts(f), DOCA_SUCCESS);
    assert_int_equal(to_rtr(f), DOCA_ERROR_INVALID_VALUE); /* RTS->RTR */
    /* CURRENT_STATE that is not the QP's. */
    doca_verbs_qp_attr_set_current_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTS);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE) | A(CURRENT_STATE)),
                     DOCA_ERROR_BAD_STATE);
    /* ERR -> INIT */
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_ERR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE)), DOCA_SUCCESS);
    assert_int_equal(to_init(f), DOCA_ERROR_INVALID_VALUE);
}

static void test_missing_bits(void **state)
{
    struct fx *f = *state;

    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr,
                                          A(NEXT_STATE) | A(PKEY_INDEX) | A(ALLOW_REMOTE_WRITE) |
                                                  A(ALLOW_REMOTE_READ)),
                     DOCA_ERROR_INVALID_VALUE); /* PORT_NUM */
    /* Without NEXT_STATE the QP stays in RST: RST->RST needs NEXT_STATE. */
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, 0), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    assert_int_equal(to_rtr(f) == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_UNKNOWN, DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTS);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rts_mask & ~A(SQ_PSN)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rts_mask & ~A(RNR_RETRY)),
                     DOCA_ERROR_INVALID_VALUE);
    /* Back to RST and INIT: INIT->RTR without DEST_QP_NUM. */
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RST);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE)), DOCA_SUCCESS);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rtr_mask & ~A(DEST_QP_NUM)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rtr_mask & ~A(AH_ATTR)),
                     DOCA_ERROR_INVALID_VALUE);
}

static void test_forbidden_bits(void **state)
{
    struct fx *f = *state;

    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_port_num(f->attr, 1);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr,
                                          A(NEXT_STATE) | A(PKEY_INDEX) | A(PORT_NUM) |
                                                  A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) |
                                                  A(PATH_MTU)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE) | (1 << 20)),
                     DOCA_ERROR_INVALID_VALUE);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RST);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE) | A(PORT_NUM)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rtr_mask | A(SQ_PSN)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(to_rtr(f), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RTS);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rts_mask | A(DEST_QP_NUM)),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, rts_mask | A(PORT_NUM)),
                     DOCA_ERROR_INVALID_VALUE);
    /* Values outside the device: port 2 of a one-port device. */
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RST);
    doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE));
    doca_verbs_qp_attr_set_port_num(f->attr, 9);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr,
                                          A(NEXT_STATE) | A(PKEY_INDEX) | A(PORT_NUM) |
                                                  A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ)),
                     DOCA_ERROR_INVALID_VALUE);
}

/* softmlx5 has one port and no LAG; counter set ids go with the transitions; CC groups need the
 * SDK. */
static void test_lag_counters_cc(void **state)
{
    struct fx *f = *state;
    struct doca_verbs_device_attr *da = NULL;
    uint8_t tc = 0;

    assert_int_equal(doca_verbs_query_device(f->d.ctx, &da), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_device_attr_get_is_lag_tx_port_affinity_supported(da), 0);
    assert_int_equal(doca_verbs_device_attr_get_num_lag_ports(da), 0);
    assert_int_equal(doca_verbs_device_attr_get_is_init2_lag_tx_port_affinity_supported(da), 0);
    assert_int_equal(doca_verbs_device_attr_get_is_rts2rts_lag_tx_port_affinity_supported(da), 0);
    assert_int_equal(doca_verbs_device_attr_get_num_lag_ports(NULL), 0);
    doca_verbs_device_attr_free(da);

    assert_int_equal(doca_verbs_qp_attr_set_lag_tx_port_affinity(f->attr, 16),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_lag_tx_port_affinity(f->attr, 1), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_port_num(f->attr, 1);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr,
                                          A(NEXT_STATE) | A(PKEY_INDEX) | A(PORT_NUM) |
                                                  A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) |
                                                  A(LAG_TX_PORT_AFFINITY)),
                     DOCA_ERROR_NOT_SUPPORTED);

    assert_int_equal(doca_verbs_qp_attr_set_cc_group(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_cc_group(f->attr, NULL), DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE) | A(CC_GROUP)),
                     DOCA_ERROR_NOT_SUPPORTED);

    assert_int_equal(doca_verbs_qp_attr_set_counter_set_id(f->attr, 256), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_counter_set_id(NULL, 1), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_attr_set_counter_set_id(f->attr, 3), DOCA_SUCCESS);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    assert_int_equal(to_rtr(f), DOCA_SUCCESS);
    assert_int_equal(to_rts(f), DOCA_SUCCESS);

    assert_int_equal(doca_verbs_query_global_traffic_class(f->d.dev, 0, &tc),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_query_global_traffic_class(NULL, 1, &tc), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_query_global_traffic_class(f->d.dev, 1, &tc), DOCA_ERROR_NOT_FOUND);
    assert_int_equal(verbs_parse_traffic_class("Global tclass=106\\n", &tc), DOCA_SUCCESS);
    assert_int_equal(tc, 106);
    assert_int_equal(verbs_parse_traffic_class("Global tclass=300\\n", &tc), DOCA_ERROR_NOT_FOUND);
    assert_int_equal(verbs_parse_traffic_class("tclass=5\\n", &tc), DOCA_ERROR_NOT_FOUND);
    assert_int_equal(verbs_parse_traffic_class("Global tclass=\\n", &tc), DOCA_ERROR_NOT_FOUND);
}

static void test_state_machine_and_query(void **state)
{
    struct fx *f = *state;
    doca_verbs_qp_init_attr_t *ia = NULL;
    enum doca_verbs_qp_state st;
    uint32_t qpn;
    int mask = 0;

    doca_verbs_qp_init_attr_create(&ia);
    doca_verbs_qp_get_qpn(f->qp, &qpn);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    /* INIT->INIT with optional bits only. */
    doca_verbs_qp_attr_set_allow_remote_read(f->attr, 0);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(ALLOW_REMOTE_READ)), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_allow_remote_read(f->attr, 1);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(ALLOW_REMOTE_READ)), DOCA_SUCCESS);
    assert_int_equal(to_rtr(f), DOCA_SUCCESS);
    assert_int_equal(to_rts(f), DOCA_SUCCESS);
    /* RTS->RTS */
    doca_verbs_qp_attr_set_min_rnr_timer(f->attr, 5);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(MIN_RNR_TIMER)), DOCA_SUCCESS);

    assert_int_equal(doca_verbs_qp_query(f->qp, f->attr, ia, &mask), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_attr_get_current_state(f->attr, &st), DOCA_SUCCESS);
    assert_int_equal(st, DOCA_VERBS_QP_STATE_RTS);
    assert_int_equal(doca_verbs_qp_attr_get_dest_qp_num(f->attr), qpn);
    assert_int_equal(doca_verbs_qp_attr_get_rq_psn(f->attr), 0x123);
    assert_int_equal(doca_verbs_qp_attr_get_path_mtu(f->attr), DOCA_VERBS_MTU_SIZE_1K_BYTES);
    assert_int_equal(doca_verbs_qp_attr_get_allow_remote_write(f->attr), 1);
    assert_int_equal(doca_verbs_qp_attr_get_retry_cnt(f->attr), 7);
    assert_int_equal(doca_verbs_qp_attr_get_min_rnr_timer(f->attr), 5);
    assert_int_equal(doca_verbs_qp_attr_get_port_num(f->attr), 1);
    assert_int_equal(doca_verbs_qp_init_attr_get_sq_wr(ia), 16);
    assert_int_equal(doca_verbs_qp_init_attr_get_rq_wr(ia), 16);
    assert_true(mask & A(NEXT_STATE));

    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_ERR);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE)), DOCA_SUCCESS);
    doca_verbs_qp_attr_set_next_state(f->attr, DOCA_VERBS_QP_STATE_RST);
    assert_int_equal(doca_verbs_qp_modify(f->qp, f->attr, A(NEXT_STATE)), DOCA_SUCCESS);
    assert_int_equal(to_init(f), DOCA_SUCCESS);
    doca_verbs_qp_init_attr_destroy(ia);
}

static void test_layout_and_modes(void **state)
{
    struct fx *f = *state;
    struct doca_verbs_device_attr *da = NULL;
    doca_verbs_qp_init_attr_t *ia = vt_qp_attr(f->d.dev, f->cq, 10, 5);
    doca_verbs_qp_t *qp = NULL;
    void *sq, *rq, *dbr, *uar;
    uint32_t sqn, rqn, rsz;

    doca_verbs_qp_init_attr_set_receive_max_sges(ia, 3);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_get_wq(qp, &sq, &sqn, &rq, &rqn, &rsz), DOCA_SUCCESS);
    assert_int_equal(rsz, 64); /* 16 * 4 (3 SGEs rounded up) */
    assert_int_equal(rqn, 8);  /* 5 rounded up */
    assert_int_equal(sqn, 16); /* 10 rounded up, 64-byte WQEs */
    assert_ptr_equal(sq, (uint8_t *)rq + rqn * rsz);
    assert_int_equal(doca_verbs_qp_get_dbr_addr(qp, &dbr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_get_uar_addr(qp, &uar), DOCA_SUCCESS);
    assert_false(doca_verbs_qp_get_emulate_no_dbr_ext(qp));
    assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);

    /* Ordering semantic: IBTA by default; any mode is taken (placement stays in order). */
    enum doca_verbs_qp_ordering_semantic os = DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_ALL;
    assert_int_equal(doca_verbs_qp_init_attr_get_ordering_semantic(ia, &os), DOCA_SUCCESS);
    assert_int_equal(os, DOCA_VERBS_QP_ORDERING_SEMANTIC_IBTA);
    assert_int_equal(doca_verbs_qp_init_attr_set_ordering_semantic(
                             ia, (enum doca_verbs_qp_ordering_semantic)3),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_ordering_semantic(NULL, os),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_get_ordering_semantic(ia, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_qp_init_attr_set_ordering_semantic(
                             ia, DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_RW),
                     DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_init_attr_get_ordering_semantic(ia, &os), DOCA_SUCCESS);
    assert_int_equal(os, DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_RW);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);
    doca_verbs_qp_init_attr_set_ordering_semantic(ia, DOCA_VERBS_QP_ORDERING_SEMANTIC_IBTA);

    assert_int_equal(doca_verbs_query_device(f->d.ctx, &da), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_device_attr_get_is_qp_type_supported(da, DOCA_VERBS_QP_TYPE_RC),
                     DOCA_SUCCESS);
    assert_int_equal(doca_verbs_device_attr_get_is_qp_type_supported(da, 5),
                     DOCA_ERROR_INVALID_VALUE);
    assert_true(doca_verbs_device_attr_get_max_qp(da) > 0);
    assert_true(doca_verbs_device_attr_get_max_sge(da) > 0);
    assert_true(doca_verbs_device_attr_get_max_pkeys(da) > 0);
    doca_verbs_qp_init_attr_set_send_dbr_mode(ia, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT);
    if (!doca_verbs_device_attr_get_send_dbr_mode_no_dbr_ext(da)) {
        assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_NOT_SUPPORTED);
        doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(ia, true);
        assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
        assert_true(doca_verbs_qp_get_emulate_no_dbr_ext(qp));
        assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);
    }
    doca_verbs_qp_init_attr_set_send_dbr_mode(ia, DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID);
    doca_verbs_qp_init_attr_set_core_direct_master(ia, 1);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_NOT_SUPPORTED);
    doca_verbs_qp_init_attr_set_core_direct_master(ia, 0);
    doca_verbs_qp_init_attr_set_send_cq(ia, NULL);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_device_attr_free(da);
    doca_verbs_qp_init_attr_destroy(ia);
}

static void test_srq(void **state)
{
    struct fx *f = *state;
    struct doca_verbs_srq_init_attr *sa = NULL;
    struct doca_verbs_srq *srq = NULL;
    doca_verbs_qp_init_attr_t *ia;
    doca_verbs_qp_t *qp = NULL;
    void *buf = NULL;
    uint32_t n = 0, sz = 0;

    assert_int_equal(doca_verbs_srq_init_attr_create(&sa), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_srq_init_attr_set_srq_wr(sa, 0), DOCA_ERROR_INVALID_VALUE);
    doca_verbs_srq_init_attr_set_srq_wr(sa, 64);
    doca_verbs_srq_init_attr_set_receive_max_sges(sa, 2);
    assert_int_equal(doca_verbs_srq_create(f->d.ctx, sa, &srq),
                     DOCA_ERROR_INVALID_VALUE); /* no PD */
    doca_verbs_srq_init_attr_set_pd(sa, f->d.pd);
    assert_int_equal(doca_verbs_srq_create(f->d.ctx, sa, &srq), DOCA_SUCCESS);
    assert_true(doca_verbs_srq_get_srqn(srq) != 0);
    doca_verbs_srq_get_wq(srq, &buf, &n, &sz);
    assert_non_null(buf);
    assert_int_equal(n, 64);
    assert_int_equal(sz, 64); /* next segment and 2 SGEs, rounded up to a power of two */
    /* The doorbell record follows the ring (internal memory). */
    assert_ptr_equal(doca_verbs_srq_get_dbr_addr(srq), (uint8_t *)buf + (size_t)n * sz);

    /* A QP receiving through it holds it: destroy answers IN_USE until the QP is gone. */
    ia = vt_qp_attr(f->d.dev, f->cq, 16, 0);
    doca_verbs_qp_init_attr_set_srq(ia, srq);
    assert_int_equal(doca_verbs_qp_create(f->d.dev, ia, &qp), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_srq_destroy(srq), DOCA_ERROR_IN_USE);
    assert_int_equal(doca_verbs_qp_destroy(qp), DOCA_SUCCESS);
    doca_verbs_qp_init_attr_destroy(ia);
    assert_int_equal(doca_verbs_srq_destroy(srq), DOCA_SUCCESS);

    /* Contiguous SRQs are made too. */
    doca_verbs_srq_init_attr_set_type(sa, DOCA_VERBS_SRQ_TYPE_CONTIGUOUS);
    doca_verbs_srq_init_attr_set_srq_wr(sa, 5);
    assert_int_equal(doca_verbs_srq_create(f->d.ctx, sa, &srq), DOCA_SUCCESS);
    doca_verbs_srq_get_wq(srq, NULL, &n, NULL);
    assert_int_equal(n, 8);
    assert_int_equal(doca_verbs_srq_destroy(srq), DOCA_SUCCESS);
    doca_verbs_srq_init_attr_destroy(sa);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_null_arguments, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_bad_sizes, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_external_umems, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_destroy_in_use, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_illegal_transitions, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_missing_bits, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_forbidden_bits, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_state_machine_and_query, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_layout_and_modes, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_srq, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_lag_counters_cc, fx_setup, fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
