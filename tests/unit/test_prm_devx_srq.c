/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SRQ commands: golden CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ mailboxes (srqc)
 * and CREATE_RMP / DESTROY_RMP / QUERY_RMP ones (rmpc and its wq). The
 * expected bytes are worked out from the PRM's bit offsets, not from the
 * macros under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_srq.h"
#include "unit/prm_test_bytes.h"

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(PRM_SRQC_SIZE, 0x40);
    assert_int_equal(PRM_CREATE_SRQ_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_SRQ_IN_SRQC, 0x10);
    assert_int_equal(PRM_CREATE_SRQ_IN_PAS, PRM_CREATE_SRQ_IN_SRQC + PRM_SRQC_SIZE + 0xc0);
    assert_int_equal(PRM_QUERY_SRQ_OUT_SIZE, 0x110);
    assert_int_equal(PRM_WQ_SIZE, 0xc0);
    assert_int_equal(PRM_RMPC_SIZE, 0xf0);
    assert_int_equal(PRM_CREATE_RMP_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_RMP_IN_RMPC, 0x20);
    assert_int_equal(PRM_QUERY_RMP_OUT_SIZE, 0x110);
    assert_int_equal(PRM_CMD_CREATE_SRQ, 0x700);
    assert_int_equal(PRM_CMD_DESTROY_SRQ, 0x701);
    assert_int_equal(PRM_CMD_QUERY_SRQ, 0x702);
    assert_int_equal(PRM_CMD_CREATE_RMP, 0x90c);
    assert_int_equal(PRM_CMD_MODIFY_RMP, 0x90d);
    assert_int_equal(PRM_CMD_DESTROY_RMP, 0x90e);
    assert_int_equal(PRM_CMD_QUERY_RMP, 0x90f);
}

static void test_create_srq_golden(void **state)
{
    uint8_t in[PRM_CREATE_SRQ_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_SRQ_IN_SIZE] = {0};
    void *srqc = PRM_AT(in, PRM_CREATE_SRQ_IN_SRQC);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_SRQ);
    PRM_SET(srqc, PRM_SRQC_STATE, PRM_SRQC_STATE_ERROR);
    PRM_SET(srqc, PRM_SRQC_LOG_SRQ_SIZE, 0xa);
    PRM_SET(srqc, PRM_SRQC_WQ_SIGNATURE, 1);
    PRM_SET(srqc, PRM_SRQC_CONT_SRQ, 1);
    PRM_SET(srqc, PRM_SRQC_RLKY, 1);
    PRM_SET(srqc, PRM_SRQC_LOG_RQ_STRIDE, 5);
    PRM_SET(srqc, PRM_SRQC_XRCD, 0x123456);
    PRM_SET(srqc, PRM_SRQC_PAGE_OFFSET, 0x2a);
    PRM_SET(srqc, PRM_SRQC_CQN, 0xabcdef);
    PRM_SET(srqc, PRM_SRQC_LOG_PAGE_SIZE, 0x15);
    PRM_SET(srqc, PRM_SRQC_PD, 0x654321);
    PRM_SET(srqc, PRM_SRQC_LWM, 0x1234);
    PRM_SET(srqc, PRM_SRQC_WQE_CNT, 0x5678);
    PRM_SET(srqc, PRM_SRQC_DBR_ADDR, 0x1122334455667788ull);

    PUT_BYTES(exp, 0x00, 0x07, 0x00, 0x00, 0x00);
    /* srqc bits 0x00..0x07: state 1, log_srq_size 0xa */
    PUT_BYTES(exp, 0x10, 0x1a, 0x00, 0x00, 0x00);
    /* wq_signature 0x20, cont_srq 0x21, rlky 0x23, log_rq_stride 0x25..0x27, xrcd 0x28.. */
    PUT_BYTES(exp, 0x14, 0xd5, 0x12, 0x34, 0x56);
    /* page_offset 0x40..0x45, cqn 0x48.. */
    PUT_BYTES(exp, 0x18, 0xa8, 0xab, 0xcd, 0xef);
    /* log_page_size 0x82..0x87 */
    PUT_BYTES(exp, 0x20, 0x15, 0x00, 0x00, 0x00);
    /* pd 0xc8.., lwm 0xe0.., wqe_cnt 0xf0.. */
    PUT_BYTES(exp, 0x28, 0x00, 0x65, 0x43, 0x21, 0x12, 0x34, 0x56, 0x78);
    /* dbr_addr 0x140.. */
    PUT_BYTES(exp, 0x38, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_srq_numbers(void **state)
{
    uint8_t d[PRM_DESTROY_SRQ_IN_SIZE] = {0}, q[PRM_QUERY_SRQ_IN_SIZE] = {0};
    uint8_t exp[PRM_DESTROY_SRQ_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_SRQ_OUT_SIZE] = {0};

    (void)state;
    PRM_SET(d, PRM_CMD_OPCODE, PRM_CMD_DESTROY_SRQ);
    PRM_SET(d, PRM_DESTROY_SRQ_IN_SRQN, 0x10203);
    PUT_BYTES(exp, 0x00, 0x07, 0x01, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x01, 0x02, 0x03);
    assert_memory_equal(d, exp, sizeof(d));
    PRM_SET(q, PRM_CMD_OPCODE, PRM_CMD_QUERY_SRQ);
    PRM_SET(q, PRM_QUERY_SRQ_IN_SRQN, 0x10203);
    PUT_BYTES(exp, 0x00, 0x07, 0x02, 0x00, 0x00);
    assert_memory_equal(q, exp, sizeof(q));
    /* reserved bits 31..24 around the srqn must not leak into it */
    PUT_BYTES(out, 0x08, 0xff, 0x00, 0x04, 0xd2);
    assert_int_equal(PRM_GET(out, PRM_CREATE_SRQ_OUT_SRQN), 0x4d2);
}

static void test_query_srq_out_decodes_srqc(void **state)
{
    uint8_t out[PRM_QUERY_SRQ_OUT_SIZE] = {0};
    const void *srqc = PRM_AT(out, PRM_QUERY_SRQ_OUT_SRQC);

    (void)state;
    PUT_BYTES(out, 0x10, 0x07, 0xff, 0xff, 0xff);
    PUT_BYTES(out, 0x2c, 0xff, 0xff, 0xff, 0xff); /* srqc + 0x1c */
    PUT_BYTES(out, 0x38, 0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x40);
    assert_int_equal(PRM_GET(srqc, PRM_SRQC_STATE), 0);
    assert_int_equal(PRM_GET(srqc, PRM_SRQC_LOG_SRQ_SIZE), 7);
    assert_int_equal(PRM_GET(srqc, PRM_SRQC_LWM), 0xffff);
    assert_int_equal(PRM_GET(srqc, PRM_SRQC_WQE_CNT), 0xffff);
    assert_true(PRM_GET(srqc, PRM_SRQC_DBR_ADDR) == 0x7f0000001040ull);
}

static void test_create_rmp_golden(void **state)
{
    uint8_t in[PRM_CREATE_RMP_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_RMP_IN_SIZE] = {0};
    void *rmpc = PRM_AT(in, PRM_CREATE_RMP_IN_RMPC);
    void *wq = PRM_AT(rmpc, PRM_RMPC_WQ);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RMP);
    PRM_SET(in, PRM_CMD_UID, 9);
    PRM_SET(rmpc, PRM_RMPC_STATE, PRM_RMPC_STATE_RDY);
    PRM_SET(rmpc, PRM_RMPC_BASIC_CYCLIC_RCV_WQE, 1);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_WQ_SIGNATURE, 1);
    PRM_SET(wq, PRM_WQ_END_PADDING, 1);
    PRM_SET(wq, PRM_WQ_PAGE_OFFSET, 0x13);
    PRM_SET(wq, PRM_WQ_LWM, 0xbeef);
    PRM_SET(wq, PRM_WQ_PD, 0x0abcde);
    PRM_SET(wq, PRM_WQ_UAR_PAGE, 0x777);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, 0x0102030405060708ull);
    PRM_SET(wq, PRM_WQ_HW_COUNTER, 0xa1a2a3a4);
    PRM_SET(wq, PRM_WQ_SW_COUNTER, 0xb1b2b3b4);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, 5);
    PRM_SET(wq, PRM_WQ_LOG_WQ_PG_SZ, 0x11);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, 0xf);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, 0x01020304);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, 0x0a0b0c0d);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, 0x123000);

    PUT_BYTES(exp, 0x00, 0x09, 0x0c, 0x00, 0x09);
    /* rmpc: state bits 0x08..0x0b, basic_cyclic_rcv_wqe bit 0x20; the wq at rmpc bit 0x180 */
    PUT_BYTES(exp, 0x20, 0x00, 0x10, 0x00, 0x00, 0x80);
    /* wq_type 0..3 = 1, wq_signature 4, end_padding_mode 5..6 = 1 */
    PUT_BYTES(exp, 0x50, 0x1a);
    /* page_offset 0x2b..0x2f, lwm 0x30..0x3f */
    PUT_BYTES(exp, 0x54, 0x00, 0x13, 0xbe, 0xef);
    PUT_BYTES(exp, 0x58, 0x00, 0x0a, 0xbc, 0xde, 0x00, 0x00, 0x07, 0x77);
    PUT_BYTES(exp, 0x60, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08);
    PUT_BYTES(exp, 0x68, 0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4);
    /* log_wq_stride 0x10c..0x10f, log_wq_pg_sz 0x113..0x117, log_wq_sz 0x11b..0x11f */
    PUT_BYTES(exp, 0x70, 0x00, 0x05, 0x11, 0x0f);
    /* dbr_umem_valid 0x120, wq_umem_valid 0x121 */
    PUT_BYTES(exp, 0x74, 0xc0, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x78, 0x01, 0x02, 0x03, 0x04, 0x0a, 0x0b, 0x0c, 0x0d);
    PUT_BYTES(exp, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x30, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_rmp_numbers(void **state)
{
    uint8_t d[PRM_DESTROY_RMP_IN_SIZE] = {0}, q[PRM_QUERY_RMP_IN_SIZE] = {0};
    uint8_t exp[PRM_DESTROY_RMP_IN_SIZE] = {0};
    uint8_t out[PRM_CREATE_RMP_OUT_SIZE] = {0};
    uint8_t qout[PRM_QUERY_RMP_OUT_SIZE] = {0};
    const void *wq = PRM_AT(qout, PRM_QUERY_RMP_OUT_RMPC + PRM_RMPC_WQ);

    (void)state;
    PRM_SET(d, PRM_CMD_OPCODE, PRM_CMD_DESTROY_RMP);
    PRM_SET(d, PRM_DESTROY_RMP_IN_RMPN, 0xfedcba);
    PUT_BYTES(exp, 0x00, 0x09, 0x0e, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0xfe, 0xdc, 0xba);
    assert_memory_equal(d, exp, sizeof(d));
    PRM_SET(q, PRM_CMD_OPCODE, PRM_CMD_QUERY_RMP);
    PRM_SET(q, PRM_QUERY_RMP_IN_RMPN, 0xfedcba);
    PUT_BYTES(exp, 0x00, 0x09, 0x0f, 0x00, 0x00);
    assert_memory_equal(q, exp, sizeof(q));
    PUT_BYTES(out, 0x08, 0xff, 0x00, 0x04, 0xd2);
    assert_int_equal(PRM_GET(out, PRM_CREATE_RMP_OUT_RMPN), 0x4d2);
    /* QUERY_RMP: the rmpc at 0x20, its wq at 0x50 */
    PUT_BYTES(qout, 0x20, 0xff, 0x1f, 0xff, 0xff);
    PUT_BYTES(qout, 0x68, 0x00, 0x00, 0x00, 0x2a);
    PUT_BYTES(qout, 0x70, 0xff, 0xf6, 0xe0, 0xe7);
    assert_int_equal(PRM_GET(PRM_AT(qout, PRM_QUERY_RMP_OUT_RMPC), PRM_RMPC_STATE), 1);
    assert_int_equal(PRM_GET(wq, PRM_WQ_HW_COUNTER), 0x2a);
    assert_int_equal(PRM_GET(wq, PRM_WQ_LOG_WQ_STRIDE), 6);
    assert_int_equal(PRM_GET(wq, PRM_WQ_LOG_WQ_PG_SZ), 0);
    assert_int_equal(PRM_GET(wq, PRM_WQ_LOG_WQ_SZ), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),
            cmocka_unit_test(test_create_srq_golden),
            cmocka_unit_test(test_srq_numbers),
            cmocka_unit_test(test_query_srq_out_decodes_srqc),
            cmocka_unit_test(test_create_rmp_golden),
            cmocka_unit_test(test_rmp_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
