/* SPDX-License-Identifier: BSD-3-Clause */
/* QP commands: golden CREATE_QP and RC transition mailboxes, opt_param_mask, QUERY_QP decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "unit/prm_test_bytes.h"

static void test_sizes_and_values(void **state)
{
    (void)state;
    assert_int_equal(PRM_QPC_SIZE, 0xe8);
    assert_int_equal(PRM_ADS_SIZE, 0x2c);
    assert_int_equal(PRM_QPC_PRIMARY_ADDRESS_PATH, 0x18);
    assert_int_equal(PRM_QPC_SECONDARY_ADDRESS_PATH, 0x44);
    assert_int_equal(PRM_CREATE_QP_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_CREATE_QP_IN_PAS, 0x110);
    assert_int_equal(PRM_QUERY_QP_OUT_QPC, 0x18);
    assert_int_equal(PRM_QP_STATE_RST, 0);
    assert_int_equal(PRM_QP_STATE_INIT, 1);
    assert_int_equal(PRM_QP_STATE_RTR, 2);
    assert_int_equal(PRM_QP_STATE_RTS, 3);
    assert_int_equal(PRM_QP_STATE_SQER, 4);
    assert_int_equal(PRM_QP_STATE_ERR, 6);
    assert_int_equal(PRM_QP_STATE_SQD, 7);
    assert_int_equal(PRM_QP_ST_RC, 0);
}

static void test_opt_param_mask_bits(void **state)
{
    (void)state;
    assert_int_equal(PRM_QP_OPTPAR_ALT_ADDR_PATH, 0x1);
    assert_int_equal(PRM_QP_OPTPAR_RRE, 0x2);
    assert_int_equal(PRM_QP_OPTPAR_RAE, 0x4);
    assert_int_equal(PRM_QP_OPTPAR_RWE, 0x8);
    assert_int_equal(PRM_QP_OPTPAR_PKEY_INDEX, 0x10);
    assert_int_equal(PRM_QP_OPTPAR_Q_KEY, 0x20);
    assert_int_equal(PRM_QP_OPTPAR_RNR_TIMEOUT, 0x40);
    assert_int_equal(PRM_QP_OPTPAR_PRIMARY_ADDR_PATH, 0x80);
    assert_int_equal(PRM_QP_OPTPAR_SRA_MAX, 0x100);
    assert_int_equal(PRM_QP_OPTPAR_RRA_MAX, 0x200);
    assert_int_equal(PRM_QP_OPTPAR_PM_STATE, 0x400);
    assert_int_equal(PRM_QP_OPTPAR_RETRY_COUNT, 0x1000);
    assert_int_equal(PRM_QP_OPTPAR_RNR_RETRY, 0x2000);
    assert_int_equal(PRM_QP_OPTPAR_ACK_TIMEOUT, 0x4000);
    assert_int_equal(PRM_QP_OPTPAR_PRI_PORT, 0x10000);
    assert_int_equal(PRM_QP_OPTPAR_SRQN, 0x40000);
    assert_int_equal(PRM_QP_OPTPAR_CQN_RCV, 0x80000);
    assert_int_equal(PRM_QP_OPTPAR_COUNTER_SET_ID, 0x2000000);
}

static void test_create_qp_golden(void **state)
{
    uint8_t in[PRM_CREATE_QP_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_QP_IN_SIZE] = {0};
    void *qpc = PRM_AT(in, PRM_CREATE_QP_IN_QPC);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_QP);
    PRM_SET(qpc, PRM_QPC_ST, PRM_QP_ST_RC);
    PRM_SET(qpc, PRM_QPC_PM_STATE, PRM_QP_PM_STATE_MIGRATED);
    PRM_SET(qpc, PRM_QPC_PD, 0xabc);
    PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, 30);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_SIZE, 4);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_STRIDE, 2);
    PRM_SET(qpc, PRM_QPC_LOG_SQ_SIZE, 6);
    PRM_SET(qpc, PRM_QPC_UAR_PAGE, 0x12);
    PRM_SET(qpc, PRM_QPC_SEND_DBR_MODE, PRM_QP_SEND_DBR_MODE_NO_DBR_EXT);
    PRM_SET(qpc, PRM_QPC_USER_INDEX, 0x55);
    PRM_SET(qpc, PRM_QPC_CQN_SND, 0x21);
    PRM_SET(qpc, PRM_QPC_CQN_RCV, 0x22);
    PRM_SET(qpc, PRM_QPC_DBR_ADDR, 0x40);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_VALID, 1);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_ID, 0x99);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_OFFSET, 0x3000);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_ID, 0x98);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_VALID, 1);

    PUT_BYTES(exp, 0x00, 0x05, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x18, 0x00, 0x00, 0x18, 0x00); /* pm_state 12..11 = 3 */
    PUT_BYTES(exp, 0x1c, 0x00, 0x00, 0x0a, 0xbc); /* pd */
    /* log_msg_max 28..24 = 30, log_rq_size 22..19 = 4, log_rq_stride 18..16 = 2, log_sq_size 14..11
     * = 6 */
    PUT_BYTES(exp, 0x20, 0x1e, 0x22, 0x30, 0x00);
    PUT_BYTES(exp, 0x24, 0x00, 0x00, 0x00, 0x12); /* uar_page */
    PUT_BYTES(exp, 0x28, 0x40, 0x00, 0x00, 0x55); /* send_dbr_mode 31..30 = 1, user_index */
    PUT_BYTES(exp, 0x94, 0x00, 0x00, 0x00, 0x21); /* cqn_snd at qpc+0x7c */
    PUT_BYTES(exp, 0xb4, 0x00, 0x00, 0x00, 0x22); /* cqn_rcv at qpc+0x9c */
    PUT_BYTES(exp, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40); /* dbr_addr */
    PUT_BYTES(exp, 0xe8, 0x10, 0x00, 0x00, 0x00); /* dbr_umem_valid at qpc+0xd0 bit 28 */
    PUT_BYTES(exp, 0xfc, 0x00, 0x00, 0x00, 0x99); /* dbr_umem_id at qpc+0xe4 */
    PUT_BYTES(exp, 0x100, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00);
    PUT_BYTES(exp, 0x108, 0x00, 0x00, 0x00, 0x98);
    PUT_BYTES(exp, 0x10c, 0x80, 0x00, 0x00, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_create_qp_out(void **state)
{
    uint8_t out[PRM_CREATE_QP_OUT_SIZE] = {0};

    (void)state;
    PUT_BYTES(out, 0x08, 0x00, 0x00, 0x01, 0x07);
    assert_int_equal(PRM_GET(out, PRM_CREATE_QP_OUT_QPN), 0x107);
}

/* Each transition: opcode, qpn at 0x08, opt_param_mask at 0x10, qpc at 0x18. */
static void test_every_transition_header(void **state)
{
    static const struct {
        uint16_t opcode;
        uint16_t expected;
        size_t size;
    } cases[] = {
            {PRM_CMD_RST2INIT_QP, 0x502, PRM_RST2INIT_QP_IN_SIZE},
            {PRM_CMD_INIT2INIT_QP, 0x50e, PRM_INIT2INIT_QP_IN_SIZE},
            {PRM_CMD_INIT2RTR_QP, 0x503, PRM_INIT2RTR_QP_IN_SIZE},
            {PRM_CMD_RTR2RTS_QP, 0x504, PRM_RTR2RTS_QP_IN_SIZE},
            {PRM_CMD_RTS2RTS_QP, 0x505, PRM_RTS2RTS_QP_IN_SIZE},
            {PRM_CMD_SQERR2RTS_QP, 0x506, PRM_SQERR2RTS_QP_IN_SIZE},
    };

    (void)state;
    assert_int_equal(PRM_OFFSET(PRM_RST2INIT_QP_IN_QPN), 0x08);
    assert_int_equal(PRM_OFFSET(PRM_INIT2INIT_QP_IN_OPT_PARAM_MASK), 0x10);
    assert_int_equal(PRM_OFFSET(PRM_INIT2RTR_QP_IN_OPT_PARAM_MASK), 0x10);
    assert_int_equal(PRM_OFFSET(PRM_RTR2RTS_QP_IN_OPT_PARAM_MASK), 0x10);
    assert_int_equal(PRM_OFFSET(PRM_RTS2RTS_QP_IN_OPT_PARAM_MASK), 0x10);
    assert_int_equal(PRM_OFFSET(PRM_SQERR2RTS_QP_IN_OPT_PARAM_MASK), 0x10);
    assert_int_equal(PRM_RST2INIT_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_INIT2INIT_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_INIT2RTR_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_RTR2RTS_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_RTS2RTS_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_SQERR2RTS_QP_IN_QPC, 0x18);
    assert_int_equal(PRM_RST2INIT_QP_OUT_SIZE, 0x10);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t in[0x110] = {0};
        uint8_t exp[0x110] = {0};

        assert_int_equal(cases[i].opcode, cases[i].expected);
        assert_int_equal(cases[i].size, 0x110);
        PRM_SET(in, PRM_CMD_OPCODE, cases[i].opcode);
        PRM_SET(in, PRM_RST2INIT_QP_IN_QPN, 0x123456);
        PRM_SET(in, PRM_RST2INIT_QP_IN_OPT_PARAM_MASK, PRM_QP_OPTPAR_RWE | PRM_QP_OPTPAR_RRE);
        PUT_BYTES(exp, 0x00, (uint8_t)(cases[i].expected >> 8), (uint8_t)cases[i].expected);
        PUT_BYTES(exp, 0x08, 0x00, 0x12, 0x34, 0x56);
        PUT_BYTES(exp, 0x10, 0x00, 0x00, 0x00, 0x0a);
        assert_memory_equal(in, exp, sizeof(in));
    }
}

static void test_rst2init_golden(void **state)
{
    uint8_t in[PRM_RST2INIT_QP_IN_SIZE] = {0};
    uint8_t exp[PRM_RST2INIT_QP_IN_SIZE] = {0};
    void *qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_RST2INIT_QP);
    PRM_SET(in, PRM_RST2INIT_QP_IN_QPN, 0x1234);
    PRM_SET(qpc, PRM_QPC_RRE, 1);
    PRM_SET(qpc, PRM_QPC_RWE, 1);
    PRM_SET(qpc, PRM_QPC_RAE, 1);
    PRM_SET(qpc, PRM_QPC_ATOMIC_MODE, PRM_QP_ATOMIC_MODE_IB_SPEC);
    PRM_SET(ads, PRM_ADS_PKEY_INDEX, 0);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    PUT_BYTES(exp, 0x00, 0x05, 0x02, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x12, 0x34);
    PUT_BYTES(exp, 0x54, 0x00, 0x01, 0x00, 0x00); /* ads+0x24 vhca_port_num 23..16 */
    /* qpc+0x90: atomic_mode 19..16 = 1, rre 15, rwe 14, rae 13 */
    PUT_BYTES(exp, 0xa8, 0x00, 0x01, 0xe0, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_init2rtr_golden(void **state)
{
    static const uint8_t gid[16] = {0xfe, 0x80, 0,    0,    0,    0,    0,    0,
                                    0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
    uint8_t in[PRM_INIT2RTR_QP_IN_SIZE] = {0};
    uint8_t exp[PRM_INIT2RTR_QP_IN_SIZE] = {0};
    void *qpc = PRM_AT(in, PRM_INIT2RTR_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_INIT2RTR_QP);
    PRM_SET(in, PRM_INIT2RTR_QP_IN_QPN, 0x1234);
    PRM_SET(qpc, PRM_QPC_MTU, PRM_QP_MTU_4K);
    PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, 30);
    PRM_SET(qpc, PRM_QPC_REMOTE_QPN, 0x5678);
    PRM_SET(ads, PRM_ADS_GRH, 1);
    PRM_SET(ads, PRM_ADS_SRC_ADDR_INDEX, 3);
    PRM_SET(ads, PRM_ADS_HOP_LIMIT, 64);
    memcpy((uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP), gid, PRM_ADS_RGID_RIP_LEN);
    PRM_SET(ads, PRM_ADS_UDP_SPORT, 0xc000);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    memcpy((uint8_t *)ads + PRM_ADS_RMAC_BYTES,
           (const uint8_t[]){0x02, 0x00, 0x11, 0x22, 0x33, 0x44}, 6);
    PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX, 3);
    PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, 12);
    PRM_SET(qpc, PRM_QPC_NEXT_RCV_PSN, 0x100);

    PUT_BYTES(exp, 0x00, 0x05, 0x03, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x12, 0x34);
    PUT_BYTES(exp, 0x20, 0xbe, 0x00, 0x00, 0x00); /* mtu 31..29 = 5, log_msg_max 28..24 = 30 */
    PUT_BYTES(exp, 0x2c, 0x00, 0x00, 0x56, 0x78); /* remote_qpn at qpc+0x14 */
    PUT_BYTES(exp, 0x34, 0x00, 0x80, 0x00, 0x00); /* ads+4: grh bit 23 */
    PUT_BYTES(exp, 0x38, 0x00, 0x03, 0x00, 0x40); /* ads+8: src_addr_index, hop_limit */
    memcpy(exp + 0x40, gid, 16);                  /* ads+0x10: rgid_rip */
    PUT_BYTES(exp, 0x50, 0x00, 0x00, 0xc0, 0x00); /* ads+0x20: udp_sport */
    PUT_BYTES(exp, 0x54, 0x00, 0x01, 0x02, 0x00); /* ads+0x24: vhca_port_num, rmac_47_32 */
    PUT_BYTES(exp, 0x58, 0x11, 0x22, 0x33, 0x44); /* ads+0x28: rmac_31_0 */
    PUT_BYTES(exp, 0xa8, 0x00, 0x60, 0x00, 0x00); /* qpc+0x90: log_rra_max 23..21 */
    PUT_BYTES(exp, 0xac, 0x0c, 0x00, 0x01, 0x00); /* qpc+0x94: min_rnr_nak, next_rcv_psn */
    assert_memory_equal(in, exp, sizeof(in));
    assert_int_equal(PRM_GET(ads, PRM_ADS_RMAC_47_32), 0x0200);
    assert_int_equal(PRM_GET(ads, PRM_ADS_RMAC_31_0), 0x11223344);
}

static void test_rtr2rts_golden(void **state)
{
    uint8_t in[PRM_RTR2RTS_QP_IN_SIZE] = {0};
    uint8_t exp[PRM_RTR2RTS_QP_IN_SIZE] = {0};
    void *qpc = PRM_AT(in, PRM_RTR2RTS_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_RTR2RTS_QP);
    PRM_SET(in, PRM_RTR2RTS_QP_IN_QPN, 0x1234);
    PRM_SET(in, PRM_RTR2RTS_QP_IN_OPT_PARAM_MASK, PRM_QP_OPTPAR_RNR_TIMEOUT);
    PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, 14);
    PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX, 3);
    PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 7);
    PRM_SET(qpc, PRM_QPC_RNR_RETRY, 7);
    PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, 0x100);
    PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, 12);

    PUT_BYTES(exp, 0x00, 0x05, 0x04, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x12, 0x34);
    PUT_BYTES(exp, 0x10, 0x00, 0x00, 0x00, 0x40);
    PUT_BYTES(exp, 0x38, 0x70, 0x00, 0x00, 0x00); /* ads+8: ack_timeout 31..27 */
    /* qpc+0x70: log_sra_max 23..21, retry_count 18..16, rnr_retry 15..13 */
    PUT_BYTES(exp, 0x88, 0x00, 0x67, 0xe0, 0x00);
    PUT_BYTES(exp, 0x90, 0x00, 0x00, 0x01, 0x00); /* qpc+0x78: next_send_psn */
    PUT_BYTES(exp, 0xac, 0x0c, 0x00, 0x00, 0x00); /* qpc+0x94: min_rnr_nak */
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_2err_2rst_destroy(void **state)
{
    uint8_t in[0x10] = {0};
    uint8_t exp[0x10] = {0};

    (void)state;
    assert_int_equal(PRM_2ERR_QP_IN_SIZE, 0x10);
    assert_int_equal(PRM_2RST_QP_IN_SIZE, 0x10);
    assert_int_equal(PRM_DESTROY_QP_IN_SIZE, 0x10);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_2ERR_QP);
    PRM_SET(in, PRM_2ERR_QP_IN_QPN, 0x77);
    PUT_BYTES(exp, 0x00, 0x05, 0x07);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x00, 0x77);
    assert_memory_equal(in, exp, sizeof(in));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_2RST_QP);
    PRM_SET(in, PRM_2RST_QP_IN_QPN, 0x77);
    PUT_BYTES(exp, 0x00, 0x05, 0x0a);
    assert_memory_equal(in, exp, sizeof(in));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_DESTROY_QP);
    PRM_SET(in, PRM_DESTROY_QP_IN_QPN, 0x77);
    PUT_BYTES(exp, 0x00, 0x05, 0x01);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_query_qp_out_decodes_state(void **state)
{
    uint8_t out[PRM_QUERY_QP_OUT_SIZE] = {0};
    const void *qpc = PRM_AT(out, PRM_QUERY_QP_OUT_QPC);

    (void)state;
    PUT_BYTES(out, 0x18, 0x30, 0x00, 0x18, 0x00); /* state RTS, pm_state MIGRATED */
    PUT_BYTES(out, 0x88, 0x00, 0x67, 0xe0, 0x00);
    PUT_BYTES(out, 0xcc, 0x00, 0x05, 0x00, 0x09); /* hw/sw sq wqebb counters at qpc+0xb4 */
    assert_int_equal(PRM_GET(qpc, PRM_QPC_STATE), PRM_QP_STATE_RTS);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_PM_STATE), PRM_QP_PM_STATE_MIGRATED);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_LOG_SRA_MAX), 3);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_RETRY_COUNT), 7);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_RNR_RETRY), 7);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_HW_SQ_WQEBB_COUNTER), 5);
    assert_int_equal(PRM_GET(qpc, PRM_QPC_SW_SQ_WQEBB_COUNTER), 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes_and_values),
            cmocka_unit_test(test_opt_param_mask_bits),
            cmocka_unit_test(test_create_qp_golden),
            cmocka_unit_test(test_create_qp_out),
            cmocka_unit_test(test_every_transition_header),
            cmocka_unit_test(test_rst2init_golden),
            cmocka_unit_test(test_init2rtr_golden),
            cmocka_unit_test(test_rtr2rts_golden),
            cmocka_unit_test(test_2err_2rst_destroy),
            cmocka_unit_test(test_query_qp_out_decodes_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
