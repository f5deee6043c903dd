/* SPDX-License-Identifier: BSD-3-Clause */
/* Command header, opcodes, status codes and prm_status (doca_error_t mapping, messages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_status.h"
#include "unit/prm_test_bytes.h"

static void test_header_layout(void **state)
{
    uint8_t in[PRM_CMD_HDR_IN_SIZE] = {0};
    uint8_t exp[PRM_CMD_HDR_IN_SIZE] = {0};
    uint8_t out[PRM_CMD_HDR_OUT_SIZE] = {0};

    (void)state;
    assert_int_equal(PRM_CMD_HDR_IN_SIZE, 16);
    assert_int_equal(PRM_CMD_HDR_OUT_SIZE, 16);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
    PRM_SET(in, PRM_CMD_UID, 0x1234);
    PRM_SET(in, PRM_CMD_OP_MOD, 0xbeef);
    PUT_BYTES(exp, 0x00, 0x04, 0x00, 0x12, 0x34);
    PUT_BYTES(exp, 0x04, 0x00, 0x00, 0xbe, 0xef);
    assert_memory_equal(in, exp, sizeof(in));

    PUT_BYTES(out, 0x00, 0x03, 0xaa, 0xbb, 0xcc);
    PUT_BYTES(out, 0x04, 0x00, 0x12, 0xab, 0x34);
    assert_int_equal(PRM_GET(out, PRM_CMD_STATUS), PRM_CMD_STAT_BAD_PARAM);
    assert_int_equal(PRM_GET(out, PRM_CMD_SYNDROME), 0x12ab34);
}

static void test_opcode_values(void **state)
{
    (void)state;
    assert_int_equal(PRM_CMD_QUERY_HCA_CAP, 0x100);
    assert_int_equal(PRM_CMD_CREATE_MKEY, 0x200);
    assert_int_equal(PRM_CMD_CREATE_CQ, 0x400);
    assert_int_equal(PRM_CMD_DESTROY_CQ, 0x401);
    assert_int_equal(PRM_CMD_QUERY_CQ, 0x402);
    assert_int_equal(PRM_CMD_MODIFY_CQ, 0x403);
    assert_int_equal(PRM_CMD_CREATE_QP, 0x500);
    assert_int_equal(PRM_CMD_DESTROY_QP, 0x501);
    assert_int_equal(PRM_CMD_RST2INIT_QP, 0x502);
    assert_int_equal(PRM_CMD_INIT2RTR_QP, 0x503);
    assert_int_equal(PRM_CMD_RTR2RTS_QP, 0x504);
    assert_int_equal(PRM_CMD_RTS2RTS_QP, 0x505);
    assert_int_equal(PRM_CMD_SQERR2RTS_QP, 0x506);
    assert_int_equal(PRM_CMD_2ERR_QP, 0x507);
    assert_int_equal(PRM_CMD_2RST_QP, 0x50a);
    assert_int_equal(PRM_CMD_QUERY_QP, 0x50b);
    assert_int_equal(PRM_CMD_INIT2INIT_QP, 0x50e);
    assert_int_equal(PRM_CMD_QUERY_NIC_VPORT_CONTEXT, 0x754);
    assert_int_equal(PRM_CMD_QUERY_HCA_VPORT_CONTEXT, 0x762);
    assert_int_equal(PRM_CMD_QUERY_HCA_VPORT_GID, 0x764);
    assert_int_equal(PRM_CMD_ALLOC_PD, 0x800);
    assert_int_equal(PRM_CMD_DEALLOC_PD, 0x801);
    assert_int_equal(PRM_CMD_ALLOC_TRANSPORT_DOMAIN, 0x816);
    assert_int_equal(PRM_CMD_DEALLOC_TRANSPORT_DOMAIN, 0x817);
    assert_int_equal(PRM_CMD_CREATE_TIR, 0x900);
    assert_int_equal(PRM_CMD_DESTROY_TIR, 0x902);
    assert_int_equal(PRM_CMD_CREATE_SQ, 0x904);
    assert_int_equal(PRM_CMD_MODIFY_SQ, 0x905);
    assert_int_equal(PRM_CMD_DESTROY_SQ, 0x906);
    assert_int_equal(PRM_CMD_CREATE_RQ, 0x908);
    assert_int_equal(PRM_CMD_MODIFY_RQ, 0x909);
    assert_int_equal(PRM_CMD_DESTROY_RQ, 0x90a);
    assert_int_equal(PRM_CMD_CREATE_TIS, 0x912);
    assert_int_equal(PRM_CMD_DESTROY_TIS, 0x914);
    assert_int_equal(PRM_CMD_CREATE_FLOW_TABLE, 0x930);
    assert_int_equal(PRM_CMD_DESTROY_FLOW_TABLE, 0x931);
    assert_int_equal(PRM_CMD_CREATE_FLOW_GROUP, 0x933);
    assert_int_equal(PRM_CMD_DESTROY_FLOW_GROUP, 0x934);
    assert_int_equal(PRM_CMD_SET_FLOW_TABLE_ENTRY, 0x936);
    assert_int_equal(PRM_CMD_DELETE_FLOW_TABLE_ENTRY, 0x938);
}

static void test_query_hca_cap_op_mod(void **state)
{
    (void)state;
    assert_int_equal(PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_GENERAL, 0), 0x0);
    assert_int_equal(PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_GENERAL, PRM_HCA_CAP_OPMOD_CURRENT), 0x1);
    assert_int_equal(PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS, 1), 0x3);
    assert_int_equal(PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_ROCE, 0), 0x8);
    assert_int_equal(PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_GENERAL_2, 1), 0x41);
}

static void test_every_status_maps_to_its_doca_error(void **state)
{
    static const struct {
        uint8_t status;
        uint8_t value;
        const char *name;
        doca_error_t err;
    } cases[] = {
            {PRM_CMD_STAT_OK, 0x00, "OK", DOCA_SUCCESS},
            {PRM_CMD_STAT_INTERNAL_ERR, 0x01, "INTERNAL_ERR", DOCA_ERROR_DRIVER},
            {PRM_CMD_STAT_BAD_OP, 0x02, "BAD_OP", DOCA_ERROR_NOT_SUPPORTED},
            {PRM_CMD_STAT_BAD_PARAM, 0x03, "BAD_PARAM", DOCA_ERROR_INVALID_VALUE},
            {PRM_CMD_STAT_BAD_SYS_STATE, 0x04, "BAD_SYS_STATE", DOCA_ERROR_BAD_STATE},
            {PRM_CMD_STAT_BAD_RESOURCE, 0x05, "BAD_RESOURCE", DOCA_ERROR_NOT_FOUND},
            {PRM_CMD_STAT_RESOURCE_BUSY, 0x06, "RESOURCE_BUSY", DOCA_ERROR_IN_USE},
            {PRM_CMD_STAT_EXCEED_LIM, 0x08, "EXCEED_LIM", DOCA_ERROR_FULL},
            {PRM_CMD_STAT_BAD_RES_STATE, 0x09, "BAD_RES_STATE", DOCA_ERROR_BAD_STATE},
            {PRM_CMD_STAT_BAD_INDEX, 0x0a, "BAD_INDEX", DOCA_ERROR_INVALID_VALUE},
            {PRM_CMD_STAT_NO_RESOURCES, 0x0f, "NO_RESOURCES", DOCA_ERROR_NO_MEMORY},
            {PRM_CMD_STAT_BAD_RESOURCE_STATE, 0x10, "BAD_RESOURCE_STATE", DOCA_ERROR_BAD_STATE},
            {PRM_CMD_STAT_BAD_PKT, 0x30, "BAD_PKT", DOCA_ERROR_INVALID_VALUE},
            {PRM_CMD_STAT_BAD_SIZE, 0x40, "BAD_SIZE", DOCA_ERROR_INVALID_VALUE},
            {PRM_CMD_STAT_BAD_INPUT_LEN, 0x50, "BAD_INPUT_LEN", DOCA_ERROR_INVALID_VALUE},
            {PRM_CMD_STAT_BAD_OUTPUT_LEN, 0x51, "BAD_OUTPUT_LEN", DOCA_ERROR_INVALID_VALUE},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(cases[i].status, cases[i].value);
        assert_int_equal(prm_cmd_status_to_doca(cases[i].status), cases[i].err);
        assert_string_equal(prm_cmd_status_name(cases[i].status), cases[i].name);
    }
}

static void test_unknown_status_is_unknown(void **state)
{
    (void)state;
    assert_int_equal(prm_cmd_status_to_doca(0x07), DOCA_ERROR_UNKNOWN);
    assert_int_equal(prm_cmd_status_to_doca(0xff), DOCA_ERROR_UNKNOWN);
    assert_string_equal(prm_cmd_status_name(0x07), "UNKNOWN_STATUS");
}

static void test_opcode_names(void **state)
{
    (void)state;
    assert_string_equal(prm_cmd_opcode_name(0x400), "CREATE_CQ");
    assert_string_equal(prm_cmd_opcode_name(0x507), "2ERR_QP");
    assert_string_equal(prm_cmd_opcode_name(0x50e), "INIT2INIT_QP");
    assert_string_equal(prm_cmd_opcode_name(0x936), "SET_FLOW_TABLE_ENTRY");
    assert_string_equal(prm_cmd_opcode_name(0x764), "QUERY_HCA_VPORT_GID");
    assert_string_equal(prm_cmd_opcode_name(0x123), "UNKNOWN_OPCODE");
}

static void test_describe_writes_one_line(void **state)
{
    char buf[128];
    int n;

    (void)state;
    n = prm_cmd_status_describe(buf, sizeof(buf), PRM_CMD_CREATE_CQ, PRM_CMD_STAT_BAD_PARAM,
                                0x12ab34);
    assert_string_equal(buf, "CREATE_CQ failed: status BAD_PARAM (0x3), syndrome 0x12ab34");
    assert_int_equal(n, (int)strlen(buf));

    prm_cmd_status_describe(buf, sizeof(buf), PRM_CMD_RTR2RTS_QP, PRM_CMD_STAT_BAD_INPUT_LEN, 0);
    assert_string_equal(buf, "RTR2RTS_QP failed: status BAD_INPUT_LEN (0x50), syndrome 0x0");

    prm_cmd_status_describe(buf, sizeof(buf), 0x123, 0x07, 0xdeadbeef);
    assert_string_equal(buf,
                        "opcode 0x123 failed: status UNKNOWN_STATUS (0x7), syndrome 0xdeadbeef");

    prm_cmd_status_describe(buf, sizeof(buf), PRM_CMD_ALLOC_PD, PRM_CMD_STAT_OK, 0);
    assert_string_equal(buf, "ALLOC_PD succeeded");
}

static void test_describe_truncates(void **state)
{
    char buf[10];
    int n;

    (void)state;
    memset(buf, 'x', sizeof(buf));
    n = prm_cmd_status_describe(buf, sizeof(buf), PRM_CMD_CREATE_CQ, PRM_CMD_STAT_BAD_OP, 1);
    assert_string_equal(buf, "CREATE_CQ");
    assert_true(n > (int)sizeof(buf));
    assert_int_equal(prm_cmd_status_describe(NULL, 0, PRM_CMD_CREATE_CQ, 0, 0),
                     (int)strlen("CREATE_CQ succeeded"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_header_layout),
            cmocka_unit_test(test_opcode_values),
            cmocka_unit_test(test_query_hca_cap_op_mod),
            cmocka_unit_test(test_every_status_maps_to_its_doca_error),
            cmocka_unit_test(test_unknown_status_is_unknown),
            cmocka_unit_test(test_opcode_names),
            cmocka_unit_test(test_describe_writes_one_line),
            cmocka_unit_test(test_describe_truncates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
