/* SPDX-License-Identifier: BSD-3-Clause */
/* CQ commands: golden CREATE_CQ / MODIFY_CQ / DESTROY_CQ mailboxes and QUERY_CQ decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "unit/prm_test_bytes.h"

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(PRM_CQC_SIZE, 0x40);
    assert_int_equal(PRM_CREATE_CQ_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_CQ_IN_CQC, 0x10);
    assert_int_equal(PRM_CREATE_CQ_IN_PAS, 0x110);
    assert_int_equal(PRM_QUERY_CQ_OUT_SIZE, 0x110);
    assert_int_equal(PRM_QUERY_CQ_OUT_CQC, 0x10);
    assert_int_equal(PRM_MODIFY_CQ_IN_CQC, 0x10);
}

static void test_create_cq_golden(void **state)
{
    uint8_t in[PRM_CREATE_CQ_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_CQ_IN_SIZE] = {0};
    void *cqc = PRM_AT(in, PRM_CREATE_CQ_IN_CQC);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
    PRM_SET(in, PRM_CMD_UID, 5);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_VALID, 1);
    PRM_SET(cqc, PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_128);
    PRM_SET(cqc, PRM_CQC_CC, 1);
    PRM_SET(cqc, PRM_CQC_OI, 1);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_ID, 0x11223344);
    PRM_SET(cqc, PRM_CQC_LOG_CQ_SIZE, 7);
    PRM_SET(cqc, PRM_CQC_UAR_PAGE, 0x12);
    PRM_SET(cqc, PRM_CQC_C_EQN, 3);
    PRM_SET(cqc, PRM_CQC_LOG_PAGE_SIZE, 4);
    PRM_SET(cqc, PRM_CQC_DBR_ADDR, 0x123456789a00ull);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET, 0x1000);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_ID, 0x77);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_VALID, 1);

    PUT_BYTES(exp, 0x00, 0x04, 0x00, 0x00, 0x05);
    /* cqc word 0: dbr_umem_valid bit 25, cqe_sz bits 23..21 = 1, cc bit 20, oi bit 17 */
    PUT_BYTES(exp, 0x10, 0x02, 0x32, 0x00, 0x00);
    PUT_BYTES(exp, 0x14, 0x11, 0x22, 0x33, 0x44);
    /* log_cq_size 28..24, uar_page 23..0 */
    PUT_BYTES(exp, 0x1c, 0x07, 0x00, 0x00, 0x12);
    PUT_BYTES(exp, 0x24, 0x00, 0x00, 0x00, 0x03);
    /* log_page_size 28..24 of cqc word 6 */
    PUT_BYTES(exp, 0x28, 0x04, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x48, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a, 0x00);
    PUT_BYTES(exp, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00);
    PUT_BYTES(exp, 0x58, 0x00, 0x00, 0x00, 0x77);
    PUT_BYTES(exp, 0x5c, 0x80, 0x00, 0x00, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_create_cq_out_decodes_cqn(void **state)
{
    uint8_t out[PRM_CREATE_CQ_OUT_SIZE] = {0};

    (void)state;
    /* reserved bits 31..24 around the cqn must not leak into it */
    PUT_BYTES(out, 0x08, 0xff, 0x00, 0x04, 0xd2);
    assert_int_equal(PRM_GET(out, PRM_CMD_STATUS), 0);
    assert_int_equal(PRM_GET(out, PRM_CREATE_CQ_OUT_CQN), 0x4d2);
}

static void test_destroy_and_query_cq_in(void **state)
{
    uint8_t in[PRM_DESTROY_CQ_IN_SIZE] = {0};
    uint8_t exp[PRM_DESTROY_CQ_IN_SIZE] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_DESTROY_CQ);
    PRM_SET(in, PRM_DESTROY_CQ_IN_CQN, 0xabcdef);
    PUT_BYTES(exp, 0x00, 0x04, 0x01, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0xab, 0xcd, 0xef);
    assert_memory_equal(in, exp, sizeof(in));

    memset(in, 0, sizeof(in));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_CQ);
    PRM_SET(in, PRM_QUERY_CQ_IN_CQN, 0xabcdef);
    PUT_BYTES(exp, 0x00, 0x04, 0x02, 0x00, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_query_cq_out_decodes_cqc(void **state)
{
    uint8_t out[PRM_QUERY_CQ_OUT_SIZE] = {0};
    const void *cqc = PRM_AT(out, PRM_QUERY_CQ_OUT_CQC);

    (void)state;
    PUT_BYTES(out, 0x10, 0x90, 0x00, 0x40, 0x00); /* status 9 (overflow), cqe_comp_en bit 14 */
    PUT_BYTES(out, 0x1c, 0x0a, 0x00, 0x01, 0x00); /* log_cq_size 10, uar_page 0x100 */
    PUT_BYTES(out, 0x38, 0x00, 0x00, 0x01, 0x23); /* consumer_counter */
    PUT_BYTES(out, 0x3c, 0x00, 0x00, 0x04, 0x56); /* producer_counter */
    PUT_BYTES(out, 0x48, 0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x40);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_STATUS), PRM_CQC_STATUS_OVERFLOW);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_CQE_COMP_EN), 1);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_CQE_SZ), 0);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_LOG_CQ_SIZE), 10);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_UAR_PAGE), 0x100);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_CONSUMER_COUNTER), 0x123);
    assert_int_equal(PRM_GET(cqc, PRM_CQC_PRODUCER_COUNTER), 0x456);
    assert_true(PRM_GET(cqc, PRM_CQC_DBR_ADDR) == 0x7f0000001040ull);
}

static void test_modify_cq_golden(void **state)
{
    uint8_t in[PRM_MODIFY_CQ_IN_SIZE] = {0};
    uint8_t exp[PRM_MODIFY_CQ_IN_SIZE] = {0};
    void *cqc = PRM_AT(in, PRM_MODIFY_CQ_IN_CQC);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_MODIFY_CQ);
    PRM_SET(in, PRM_CMD_OP_MOD, PRM_MODIFY_CQ_OPMOD_MODIFY);
    PRM_SET(in, PRM_MODIFY_CQ_IN_CQN, 0x42);
    PRM_SET(in, PRM_MODIFY_CQ_IN_MODIFY_FIELD_SELECT,
            PRM_MODIFY_CQ_SELECT_PERIOD | PRM_MODIFY_CQ_SELECT_COUNT);
    PRM_SET(cqc, PRM_CQC_CQ_PERIOD, 0x10);
    PRM_SET(cqc, PRM_CQC_CQ_MAX_COUNT, 0x20);
    PUT_BYTES(exp, 0x00, 0x04, 0x03, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x00, 0x42);
    PUT_BYTES(exp, 0x0c, 0x00, 0x00, 0x00, 0x03);
    /* cq_period 27..16, cq_max_count 15..0 */
    PUT_BYTES(exp, 0x20, 0x00, 0x10, 0x00, 0x20);
    assert_memory_equal(in, exp, sizeof(in));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),
            cmocka_unit_test(test_create_cq_golden),
            cmocka_unit_test(test_create_cq_out_decodes_cqn),
            cmocka_unit_test(test_destroy_and_query_cq_in),
            cmocka_unit_test(test_query_cq_out_decodes_cqc),
            cmocka_unit_test(test_modify_cq_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
