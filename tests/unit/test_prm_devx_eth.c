/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw Ethernet objects: golden SQ/RQ/TIR/TIS/PD/TD and flow steering mailboxes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "unit/prm_test_bytes.h"

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(PRM_WQ_SIZE, 0xc0);
    assert_int_equal(PRM_RQC_SIZE, 0xf0);
    assert_int_equal(PRM_SQC_SIZE, 0xf0);
    assert_int_equal(PRM_RQC_WQ, 0x30);
    assert_int_equal(PRM_SQC_WQ, 0x30);
    assert_int_equal(PRM_CREATE_SQ_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_RQ_IN_SIZE, 0x110);
    assert_int_equal(PRM_CREATE_SQ_IN_SQC, 0x20);
    assert_int_equal(PRM_CREATE_RQ_IN_RQC, 0x20);
    assert_int_equal(PRM_CREATE_TIR_IN_TIRC, 0x20);
    assert_int_equal(PRM_CREATE_TIS_IN_TISC, 0x20);
    assert_int_equal(PRM_CREATE_FLOW_GROUP_IN_SIZE, 0x400);
    assert_int_equal(PRM_SET_FTE_IN_SIZE, 0x340);
    assert_int_equal(PRM_FTE_MATCH_PARAM_SIZE, 0x200);
    assert_int_equal(PRM_DEST_FORMAT_SIZE, 8);
}

static void test_create_sq_golden(void **state)
{
    uint8_t in[PRM_CREATE_SQ_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_SQ_IN_SIZE] = {0};
    void *sqc = PRM_AT(in, PRM_CREATE_SQ_IN_SQC);
    void *wq = PRM_AT(sqc, PRM_SQC_WQ);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_SQ);
    PRM_SET(sqc, PRM_SQC_FLUSH_IN_ERROR_EN, 1);
    PRM_SET(sqc, PRM_SQC_MIN_WQE_INLINE_MODE, 1);
    PRM_SET(sqc, PRM_SQC_STATE, PRM_WQ_STATE_RST);
    PRM_SET(sqc, PRM_SQC_CQN, 0x33);
    PRM_SET(sqc, PRM_SQC_TIS_LST_SZ, 1);
    PRM_SET(sqc, PRM_SQC_TIS_NUM_0, 0x44);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, 0xabc);
    PRM_SET(wq, PRM_WQ_UAR_PAGE, 0x12);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, 0x80);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, 6);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, 10);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, 5);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, 6);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, 0x2000);

    PUT_BYTES(exp, 0x00, 0x09, 0x04, 0x00, 0x00);
    /* sqc word 0: flush_in_error_en bit 28, min_wqe_inline_mode 26..24 = 1 */
    PUT_BYTES(exp, 0x20, 0x11, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x28, 0x00, 0x00, 0x00, 0x33); /* cqn */
    PUT_BYTES(exp, 0x40, 0x00, 0x01, 0x00, 0x00); /* tis_lst_sz */
    PUT_BYTES(exp, 0x4c, 0x00, 0x00, 0x00, 0x44); /* tis_num_0 */
    PUT_BYTES(exp, 0x50, 0x10, 0x00, 0x00, 0x00); /* wq_type 31..28 */
    PUT_BYTES(exp, 0x58, 0x00, 0x00, 0x0a, 0xbc); /* pd */
    PUT_BYTES(exp, 0x5c, 0x00, 0x00, 0x00, 0x12); /* uar_page */
    PUT_BYTES(exp, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80);
    PUT_BYTES(exp, 0x70, 0x00, 0x06, 0x00, 0x0a); /* log_wq_stride 19..16, log_wq_sz 4..0 */
    PUT_BYTES(exp, 0x74, 0xc0, 0x00, 0x00, 0x00); /* dbr_umem_valid, wq_umem_valid */
    PUT_BYTES(exp, 0x78, 0x00, 0x00, 0x00, 0x05);
    PUT_BYTES(exp, 0x7c, 0x00, 0x00, 0x00, 0x06);
    PUT_BYTES(exp, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_modify_sq_and_rq_golden(void **state)
{
    uint8_t in[PRM_MODIFY_SQ_IN_SIZE] = {0};
    uint8_t exp[PRM_MODIFY_SQ_IN_SIZE] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_MODIFY_SQ);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQ_STATE, PRM_WQ_STATE_RST);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQN, 0x1234);
    PRM_SET(PRM_AT(in, PRM_MODIFY_SQ_IN_SQC), PRM_SQC_STATE, PRM_WQ_STATE_RDY);
    PUT_BYTES(exp, 0x00, 0x09, 0x05, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x12, 0x34);
    PUT_BYTES(exp, 0x20, 0x00, 0x10, 0x00, 0x00); /* sqc.state 23..20 */
    assert_memory_equal(in, exp, sizeof(in));

    memset(in, 0, sizeof(in));
    memset(exp, 0, sizeof(exp));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_MODIFY_RQ);
    PRM_SET(in, PRM_MODIFY_RQ_IN_RQ_STATE, PRM_WQ_STATE_RDY);
    PRM_SET(in, PRM_MODIFY_RQ_IN_RQN, 0x55);
    PRM_SET(in, PRM_MODIFY_RQ_IN_MODIFY_BITMASK, PRM_MODIFY_RQ_BITMASK_VSD);
    PRM_SET(PRM_AT(in, PRM_MODIFY_RQ_IN_RQC), PRM_RQC_VSD, 1);
    PRM_SET(PRM_AT(in, PRM_MODIFY_RQ_IN_RQC), PRM_RQC_STATE, PRM_WQ_STATE_ERR);
    PUT_BYTES(exp, 0x00, 0x09, 0x09, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x10, 0x00, 0x00, 0x55); /* rq_state 31..28, rqn */
    PUT_BYTES(exp, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02);
    PUT_BYTES(exp, 0x20, 0x10, 0x30, 0x00, 0x00); /* vsd bit 28, state 23..20 = 3 */
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_create_rq_golden(void **state)
{
    uint8_t in[PRM_CREATE_RQ_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_RQ_IN_SIZE] = {0};
    void *rqc = PRM_AT(in, PRM_CREATE_RQ_IN_RQC);

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RQ);
    PRM_SET(rqc, PRM_RQC_MEM_RQ_TYPE, PRM_RQC_MEM_RQ_TYPE_INLINE);
    PRM_SET(rqc, PRM_RQC_FLUSH_IN_ERROR_EN, 1);
    PRM_SET(rqc, PRM_RQC_CQN, 0x34);
    PRM_SET(PRM_AT(rqc, PRM_RQC_WQ), PRM_WQ_LOG_WQ_STRIDE, 4);
    PRM_SET(PRM_AT(rqc, PRM_RQC_WQ), PRM_WQ_LOG_WQ_SZ, 9);
    PUT_BYTES(exp, 0x00, 0x09, 0x08, 0x00, 0x00);
    PUT_BYTES(exp, 0x20, 0x00, 0x04, 0x00, 0x00); /* flush_in_error_en bit 18 */
    PUT_BYTES(exp, 0x28, 0x00, 0x00, 0x00, 0x34);
    PUT_BYTES(exp, 0x70, 0x00, 0x04, 0x00, 0x09);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_outputs_decode_object_numbers(void **state)
{
    uint8_t out[0x10] = {0};

    (void)state;
    PUT_BYTES(out, 0x08, 0xee, 0x00, 0x0c, 0x01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_SQ_OUT_SQN), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_RQ_OUT_RQN), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_TIR_OUT_TIRN), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_TIS_OUT_TISN), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_ALLOC_PD_OUT_PD), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_ALLOC_TRANSPORT_DOMAIN_OUT_TD), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_FLOW_TABLE_OUT_TABLE_ID), 0xc01);
    assert_int_equal(PRM_GET(out, PRM_CREATE_FLOW_GROUP_OUT_GROUP_ID), 0xc01);
}

static void test_create_tir_tis_golden(void **state)
{
    uint8_t in[PRM_CREATE_TIR_IN_SIZE] = {0};
    uint8_t exp[PRM_CREATE_TIR_IN_SIZE] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIR);
    PRM_SET(PRM_AT(in, PRM_CREATE_TIR_IN_TIRC), PRM_TIRC_DISP_TYPE, PRM_TIRC_DISP_TYPE_INDIRECT);
    PRM_SET(PRM_AT(in, PRM_CREATE_TIR_IN_TIRC), PRM_TIRC_INLINE_RQN, 0x77);
    PRM_SET(PRM_AT(in, PRM_CREATE_TIR_IN_TIRC), PRM_TIRC_TRANSPORT_DOMAIN, 9);
    PUT_BYTES(exp, 0x00, 0x09, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x24, 0x10, 0x00, 0x00, 0x00); /* tirc+4: disp_type 31..28 */
    PUT_BYTES(exp, 0x3c, 0x00, 0x00, 0x00, 0x77); /* tirc+0x1c: inline_rqn */
    PUT_BYTES(exp, 0x44, 0x00, 0x00, 0x00, 0x09); /* tirc+0x24: transport_domain */
    assert_memory_equal(in, exp, sizeof(in));

    uint8_t tis[PRM_CREATE_TIS_IN_SIZE] = {0};
    uint8_t tis_exp[PRM_CREATE_TIS_IN_SIZE] = {0};

    assert_int_equal(sizeof(tis), 0xc0);
    PRM_SET(tis, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIS);
    PRM_SET(PRM_AT(tis, PRM_CREATE_TIS_IN_TISC), PRM_TISC_TRANSPORT_DOMAIN, 9);
    PRM_SET(PRM_AT(tis, PRM_CREATE_TIS_IN_TISC), PRM_TISC_PD, 0xabc);
    PUT_BYTES(tis_exp, 0x00, 0x09, 0x12, 0x00, 0x00);
    PUT_BYTES(tis_exp, 0x44, 0x00, 0x00, 0x00, 0x09); /* tisc+0x24 */
    PUT_BYTES(tis_exp, 0x4c, 0x00, 0x00, 0x0a, 0xbc); /* tisc+0x2c */
    assert_memory_equal(tis, tis_exp, sizeof(tis));
}

static void test_flow_table_and_group_golden(void **state)
{
    uint8_t ft[PRM_CREATE_FLOW_TABLE_IN_SIZE] = {0};
    uint8_t ft_exp[PRM_CREATE_FLOW_TABLE_IN_SIZE] = {0};
    static uint8_t fg[PRM_CREATE_FLOW_GROUP_IN_SIZE];
    static uint8_t fg_exp[PRM_CREATE_FLOW_GROUP_IN_SIZE];
    void *crit;

    (void)state;
    PRM_SET(ft, PRM_CMD_OPCODE, PRM_CMD_CREATE_FLOW_TABLE);
    PRM_SET(ft, PRM_CREATE_FLOW_TABLE_IN_TABLE_TYPE, PRM_FLOW_TABLE_TYPE_NIC_TX);
    PRM_SET(PRM_AT(ft, PRM_CREATE_FLOW_TABLE_IN_CTX), PRM_FLOW_TABLE_CTX_LOG_SIZE, 4);
    PRM_SET(PRM_AT(ft, PRM_CREATE_FLOW_TABLE_IN_CTX), PRM_FLOW_TABLE_CTX_LEVEL, 1);
    PUT_BYTES(ft_exp, 0x00, 0x09, 0x30, 0x00, 0x00);
    PUT_BYTES(ft_exp, 0x10, 0x01, 0x00, 0x00, 0x00); /* table_type 31..24 */
    PUT_BYTES(ft_exp, 0x18, 0x00, 0x01, 0x00, 0x04); /* level 23..16, log_size 7..0 */
    assert_memory_equal(ft, ft_exp, sizeof(ft));

    memset(fg, 0, sizeof(fg));
    memset(fg_exp, 0, sizeof(fg_exp));
    PRM_SET(fg, PRM_CMD_OPCODE, PRM_CMD_CREATE_FLOW_GROUP);
    PRM_SET(fg, PRM_CREATE_FLOW_GROUP_IN_TABLE_TYPE, PRM_FLOW_TABLE_TYPE_NIC_RX);
    PRM_SET(fg, PRM_CREATE_FLOW_GROUP_IN_TABLE_ID, 0x12);
    PRM_SET(fg, PRM_CREATE_FLOW_GROUP_IN_START_FLOW_INDEX, 0);
    PRM_SET(fg, PRM_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX, 3);
    PRM_SET(fg, PRM_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE, PRM_MATCH_OUTER_HEADERS);
    crit = PRM_AT(fg, PRM_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA + PRM_FTE_MATCH_PARAM_OUTER_HEADERS);
    PRM_SET(crit, PRM_FTE_L24_DMAC_47_16, 0xffffffff);
    PRM_SET(crit, PRM_FTE_L24_DMAC_15_0, 0xffff);
    PRM_SET(crit, PRM_FTE_L24_ETHERTYPE, 0xffff);
    PRM_SET(crit, PRM_FTE_L24_IP_PROTOCOL, 0xff);
    PRM_SET(crit, PRM_FTE_L24_UDP_DPORT, 0xffff);
    PUT_BYTES(fg_exp, 0x00, 0x09, 0x33, 0x00, 0x00);
    PUT_BYTES(fg_exp, 0x14, 0x00, 0x00, 0x00, 0x12);
    PUT_BYTES(fg_exp, 0x24, 0x00, 0x00, 0x00, 0x03);
    PUT_BYTES(fg_exp, 0x3c, 0x00, 0x00, 0x00, 0x01);
    PUT_BYTES(fg_exp, 0x44, 0x00, 0x00, 0xff, 0xff); /* ethertype */
    PUT_BYTES(fg_exp, 0x48, 0xff, 0xff, 0xff, 0xff); /* dmac_47_16 */
    PUT_BYTES(fg_exp, 0x4c, 0xff, 0xff, 0x00, 0x00); /* dmac_15_0 */
    PUT_BYTES(fg_exp, 0x50, 0xff, 0x00, 0x00, 0x00); /* ip_protocol */
    PUT_BYTES(fg_exp, 0x5c, 0x00, 0x00, 0xff, 0xff); /* udp_dport */
    assert_memory_equal(fg, fg_exp, sizeof(fg));
}

static void test_set_fte_forward_to_tir_golden(void **state)
{
    static uint8_t in[PRM_SET_FTE_IN_SIZE + PRM_DEST_FORMAT_SIZE];
    static uint8_t exp[PRM_SET_FTE_IN_SIZE + PRM_DEST_FORMAT_SIZE];
    void *fc = PRM_AT(in, PRM_SET_FTE_IN_FLOW_CONTEXT);
    void *match = PRM_AT(fc, PRM_FLOW_CTX_MATCH_VALUE + PRM_FTE_MATCH_PARAM_OUTER_HEADERS);
    void *dest = PRM_AT(fc, PRM_FLOW_CTX_DESTINATION);

    (void)state;
    memset(in, 0, sizeof(in));
    memset(exp, 0, sizeof(exp));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_SET_FLOW_TABLE_ENTRY);
    PRM_SET(in, PRM_SET_FTE_IN_TABLE_TYPE, PRM_FLOW_TABLE_TYPE_NIC_RX);
    PRM_SET(in, PRM_SET_FTE_IN_TABLE_ID, 0x12);
    PRM_SET(in, PRM_SET_FTE_IN_FLOW_INDEX, 2);
    PRM_SET(fc, PRM_FLOW_CTX_GROUP_ID, 7);
    PRM_SET(fc, PRM_FLOW_CTX_ACTION, PRM_FLOW_ACTION_FWD_DEST);
    PRM_SET(fc, PRM_FLOW_CTX_DESTINATION_LIST_SIZE, 1);
    PRM_SET(match, PRM_FTE_L24_DMAC_47_16, 0x02000000);
    PRM_SET(match, PRM_FTE_L24_DMAC_15_0, 0x0001);
    PRM_SET(match, PRM_FTE_L24_ETHERTYPE, 0x0800);
    PRM_SET(match, PRM_FTE_L24_IP_PROTOCOL, 17);
    PRM_SET(match, PRM_FTE_L24_UDP_DPORT, 4791);
    PRM_SET(dest, PRM_DEST_FORMAT_DESTINATION_TYPE, PRM_FLOW_DEST_TYPE_TIR);
    PRM_SET(dest, PRM_DEST_FORMAT_DESTINATION_ID, 0x55);

    PUT_BYTES(exp, 0x00, 0x09, 0x36, 0x00, 0x00);
    PUT_BYTES(exp, 0x14, 0x00, 0x00, 0x00, 0x12);
    PUT_BYTES(exp, 0x20, 0x00, 0x00, 0x00, 0x02);
    PUT_BYTES(exp, 0x44, 0x00, 0x00, 0x00, 0x07); /* flow_context+4: group_id */
    PUT_BYTES(exp, 0x4c, 0x00, 0x00, 0x00, 0x04); /* flow_context+0xc: action */
    PUT_BYTES(exp, 0x50, 0x00, 0x00, 0x00, 0x01); /* flow_context+0x10: destination_list_size */
    /* match value at flow_context+0x40 = 0x80 */
    PUT_BYTES(exp, 0x84, 0x00, 0x00, 0x08, 0x00);
    PUT_BYTES(exp, 0x88, 0x02, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x8c, 0x00, 0x01, 0x00, 0x00);
    PUT_BYTES(exp, 0x90, 0x11, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x9c, 0x00, 0x00, 0x12, 0xb7);
    /* destination list at flow_context+0x300 = 0x340 */
    PUT_BYTES(exp, 0x340, 0x02, 0x00, 0x00, 0x55);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_pd_td_and_destroys(void **state)
{
    uint8_t in[0x10] = {0};
    uint8_t exp[0x10] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_DEALLOC_PD);
    PRM_SET(in, PRM_DEALLOC_PD_IN_PD, 0x33);
    PUT_BYTES(exp, 0x00, 0x08, 0x01);
    PUT_BYTES(exp, 0x08, 0x00, 0x00, 0x00, 0x33);
    assert_memory_equal(in, exp, sizeof(in));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_DEALLOC_TRANSPORT_DOMAIN);
    PRM_SET(in, PRM_DEALLOC_TRANSPORT_DOMAIN_IN_TD, 0x33);
    PUT_BYTES(exp, 0x00, 0x08, 0x17);
    assert_memory_equal(in, exp, sizeof(in));
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_SQ_IN_SQN), 0x08);
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_RQ_IN_RQN), 0x08);
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_TIR_IN_TIRN), 0x08);
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_TIS_IN_TISN), 0x08);
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_FLOW_TABLE_IN_TABLE_ID), 0x14);
    assert_int_equal(PRM_OFFSET(PRM_DESTROY_FLOW_GROUP_IN_GROUP_ID), 0x18);
    assert_int_equal(PRM_OFFSET(PRM_DELETE_FTE_IN_FLOW_INDEX), 0x20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),
            cmocka_unit_test(test_create_sq_golden),
            cmocka_unit_test(test_modify_sq_and_rq_golden),
            cmocka_unit_test(test_create_rq_golden),
            cmocka_unit_test(test_outputs_decode_object_numbers),
            cmocka_unit_test(test_create_tir_tis_golden),
            cmocka_unit_test(test_flow_table_and_group_golden),
            cmocka_unit_test(test_set_fte_forward_to_tir_golden),
            cmocka_unit_test(test_pd_td_and_destroys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
