/* SPDX-License-Identifier: BSD-3-Clause */
/* Vport queries: golden inputs and decoding of hand-written HCA/NIC vport context outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_vport.h"
#include "unit/prm_test_bytes.h"

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(PRM_QUERY_HCA_VPORT_CONTEXT_OUT_SIZE, 0x210);
    assert_int_equal(PRM_QUERY_HCA_VPORT_CONTEXT_OUT_CTX, 0x10);
    assert_int_equal(PRM_QUERY_HCA_VPORT_GID_OUT_GID, 0x10);
    assert_int_equal(PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE, 0x110);
    assert_int_equal(PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX, 0x10);
}

static void test_query_inputs_golden(void **state)
{
    uint8_t in[0x10] = {0};
    uint8_t exp[0x10] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_VPORT_CONTEXT);
    PRM_SET(in, PRM_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM, 1);
    PUT_BYTES(exp, 0x00, 0x07, 0x62, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x00, 0x01, 0x00, 0x00); /* port_num 19..16 */
    assert_memory_equal(in, exp, sizeof(in));

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_VPORT_GID);
    PRM_SET(in, PRM_QUERY_HCA_VPORT_GID_IN_GID_INDEX, 3);
    PUT_BYTES(exp, 0x00, 0x07, 0x64);
    PUT_BYTES(exp, 0x0c, 0x00, 0x00, 0x00, 0x03);
    assert_memory_equal(in, exp, sizeof(in));

    memset(in, 0, sizeof(in));
    memset(exp, 0, sizeof(exp));
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_NIC_VPORT_CONTEXT);
    PRM_SET(in, PRM_QUERY_NIC_VPORT_CONTEXT_IN_OTHER_VPORT, 1);
    PRM_SET(in, PRM_QUERY_NIC_VPORT_CONTEXT_IN_VPORT_NUMBER, 2);
    PUT_BYTES(exp, 0x00, 0x07, 0x54, 0x00, 0x00);
    PUT_BYTES(exp, 0x08, 0x80, 0x00, 0x00, 0x02);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_hca_vport_context_decode(void **state)
{
    uint8_t out[PRM_QUERY_HCA_VPORT_CONTEXT_OUT_SIZE] = {0};
    const void *ctx = PRM_AT(out, PRM_QUERY_HCA_VPORT_CONTEXT_OUT_CTX);

    (void)state;
    /* ctx+0x20: port_physical_state 15..12 = LinkUp, port_state 7..4 = Active, vport_state 3..0 */
    PUT_BYTES(out, 0x30, 0x00, 0x00, 0x50, 0x44);
    PUT_BYTES(out, 0x40, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xab, 0xcd, 0xef); /* port_guid */
    PUT_BYTES(out, 0x70, 0x12, 0x34, 0x00, 0x00);                         /* lid */
    PUT_BYTES(out, 0x74, 0x00, 0x01, 0x00, 0x00);                         /* sm_lid */
    assert_int_equal(PRM_GET(ctx, PRM_HCA_VPORT_CTX_PORT_PHYSICAL_STATE),
                     PRM_PORT_PHYS_STATE_LINK_UP);
    assert_int_equal(PRM_GET(ctx, PRM_HCA_VPORT_CTX_PORT_STATE), PRM_VPORT_STATE_ACTIVE);
    assert_int_equal(PRM_GET(ctx, PRM_HCA_VPORT_CTX_VPORT_STATE), PRM_VPORT_STATE_ACTIVE);
    assert_true(PRM_GET(ctx, PRM_HCA_VPORT_CTX_PORT_GUID) == 0x0002c90300abcdefull);
    assert_int_equal(PRM_GET(ctx, PRM_HCA_VPORT_CTX_LID), 0x1234);
    assert_int_equal(PRM_GET(ctx, PRM_HCA_VPORT_CTX_SM_LID), 1);
}

static void test_hca_vport_gid_decode(void **state)
{
    static const uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
    uint8_t out[PRM_QUERY_HCA_VPORT_GID_OUT_SIZE + PRM_GID_LEN] = {0};

    (void)state;
    PUT_BYTES(out, 0x0c, 0x00, 0x01, 0x00, 0x00);
    memcpy(out + 0x10, gid, sizeof(gid));
    assert_int_equal(PRM_GET(out, PRM_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM), 1);
    assert_memory_equal(out + PRM_QUERY_HCA_VPORT_GID_OUT_GID, gid, PRM_GID_LEN);
}

static void test_nic_vport_context_decode(void **state)
{
    static const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    uint8_t out[PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE] = {0};
    const uint8_t *ctx = PRM_AT(out, PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX);

    (void)state;
    PUT_BYTES(out, 0x10, 0x01, 0x00, 0x00, 0x01); /* min_wqe_inline_mode 26..24, roce_en */
    PUT_BYTES(out, 0x34, 0x00, 0x00, 0x05, 0xdc); /* ctx+0x24: mtu 1500 */
    /* ctx+0xf4: 16 reserved bits, then the permanent MAC */
    PUT_BYTES(out, 0x104, 0x00, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55);
    assert_int_equal(PRM_GET(ctx, PRM_NIC_VPORT_CTX_MIN_WQE_INLINE_MODE), 1);
    assert_int_equal(PRM_GET(ctx, PRM_NIC_VPORT_CTX_ROCE_EN), 1);
    assert_int_equal(PRM_GET(ctx, PRM_NIC_VPORT_CTX_MTU), 1500);
    assert_int_equal(PRM_GET(ctx, PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_47_32), 0x0211);
    assert_int_equal(PRM_GET(ctx, PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_31_0), 0x22334455);
    assert_memory_equal(ctx + PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_BYTES, mac, PRM_MAC_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),
            cmocka_unit_test(test_query_inputs_golden),
            cmocka_unit_test(test_hca_vport_context_decode),
            cmocka_unit_test(test_hca_vport_gid_decode),
            cmocka_unit_test(test_nic_vport_context_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
