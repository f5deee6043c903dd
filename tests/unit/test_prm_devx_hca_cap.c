/* SPDX-License-Identifier: BSD-3-Clause */
/* QUERY_HCA_CAP: golden input and decoding of hand-written capability blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_hca_cap.h"
#include "unit/prm_test_bytes.h"

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(PRM_QUERY_HCA_CAP_IN_SIZE, 0x10);
    assert_int_equal(PRM_QUERY_HCA_CAP_OUT_SIZE, 0x1010);
    assert_int_equal(PRM_QUERY_HCA_CAP_OUT_CAPABILITY, 0x10);
    assert_int_equal(PRM_HCA_CAP_BLOCK_SIZE, 0x1000);
    assert_int_equal(PRM_CMD_HCA_CAP_SIZE, 0x100);
}

static void test_query_hca_cap_in_golden(void **state)
{
    uint8_t in[PRM_QUERY_HCA_CAP_IN_SIZE] = {0};
    uint8_t exp[PRM_QUERY_HCA_CAP_IN_SIZE] = {0};

    (void)state;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    PRM_SET(in, PRM_CMD_OP_MOD,
            PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS, PRM_HCA_CAP_OPMOD_CURRENT));
    PUT_BYTES(exp, 0x00, 0x01, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x04, 0x00, 0x00, 0x00, 0x03);
    assert_memory_equal(in, exp, sizeof(in));
}

static void test_general_caps_decode(void **state)
{
    static uint8_t out[PRM_QUERY_HCA_CAP_OUT_SIZE];
    const void *cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);

    (void)state;
    memset(out, 0, sizeof(out));
    /* offsets are 0x10 (mailbox header) + the cmd_hca_cap offset */
    PUT_BYTES(out, 0x14, 0x80, 0x00, 0x00, 0x42); /* hca_cap_2, vhca_id */
    PUT_BYTES(out, 0x20, 0x0e, 0x0f, 0x00, 0x11); /* log_max_srq_sz, log_max_qp_sz, log_max_qp */
    PUT_BYTES(out, 0x24, 0x00, 0x17, 0x00, 0x00); /* log_max_srq */
    PUT_BYTES(out, 0x28, 0x00, 0x16, 0x00, 0x18); /* log_max_cq_sz, log_max_cq */
    PUT_BYTES(out, 0x30, 0x00, 0x25, 0x00, 0x10); /* log_max_mrw_sz 0x25, klm 0x10 */
    PUT_BYTES(out, 0x38, 0x00, 0x04, 0x00, 0x05); /* log_max_ra_req_qp, log_max_ra_res_qp */
    PUT_BYTES(out, 0x44, 0x00, 0x00, 0x01, 0x01); /* port_type ETH, num_ports 1 */
    PUT_BYTES(out, 0x48, 0x1e, 0x00, 0x00, 0x00); /* log_max_msg */
    PUT_BYTES(out, 0x4c, 0x00, 0x00, 0x00, 0x01); /* cqe_version */
    PUT_BYTES(out, 0x50, 0x00, 0x00, 0x00, 0x06); /* roce, atomic */
    PUT_BYTES(out, 0x54, 0x80, 0x00, 0x00, 0x01); /* cq_oi, rc */
    PUT_BYTES(out, 0x58, 0x00, 0x06, 0x20, 0x0c); /* uar_sz 6, umem_uid_0, log_pg_sz 12 */
    PUT_BYTES(out, 0x5c, 0x80, 0x09, 0x00, 0x00); /* bf, log_bf_reg_size 9 */
    PUT_BYTES(out, 0x60, 0x00, 0x00, 0x04, 0x00); /* max_wqe_sz_sq */
    PUT_BYTES(out, 0x74, 0x00, 0x17, 0x00, 0x00); /* log_max_pd */
    PUT_BYTES(out, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x40); /* general_obj_types */
    PUT_BYTES(out, 0xc4, 0x00, 0x00, 0x00, 0x01);                         /* cqe_compression */

    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_HCA_CAP_2), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_VHCA_ID), 0x42);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_SRQ_SZ), 0x0e);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP_SZ), 0x0f);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP), 0x11);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_SRQ), 0x17);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ_SZ), 0x16);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ), 0x18);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MRW_SZ), 0x25);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_KLM_LIST_SIZE), 0x10);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_QP), 4);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_QP), 5);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_PORT_TYPE), PRM_HCA_CAP_PORT_TYPE_ETH);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_NUM_PORTS), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MSG), 30);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_CQE_VERSION), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_ROCE), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_ATOMIC), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_ETH_NET_OFFLOADS), 0);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_CQ_OI), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_RC), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_UAR_SZ), 6);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_UMEM_UID_0), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_PG_SZ), 12);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_BF), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_BF_REG_SIZE), 9);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_MAX_WQE_SZ_SQ), 0x400);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_PD), 0x17);
    assert_true(PRM_GET(cap, PRM_HCA_CAP_GENERAL_OBJ_TYPES) == 0x140);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP_CQE_COMPRESSION), 1);
}

static void test_eth_offload_caps_decode(void **state)
{
    uint8_t cap[PRM_CMD_HCA_CAP_SIZE] = {0};

    (void)state;
    /* csum 31, lro 29, max_lso_cap 20..16 = 18, wqe_inline_mode 13..12 = 2 */
    PUT_BYTES(cap, 0x00, 0xa0, 0x12, 0x20, 0x00);
    PUT_BYTES(cap, 0x08, 0x00, 0x00, 0x05, 0x36); /* lro_min_mss_size */
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_CSUM_CAP), 1);
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_VLAN_CAP), 0);
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_LRO_CAP), 1);
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_MAX_LSO_CAP), 18);
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_WQE_INLINE_MODE),
                     PRM_ETH_CAP_INLINE_MODE_NOT_REQUIRED);
    assert_int_equal(PRM_GET(cap, PRM_ETH_CAP_LRO_MIN_MSS_SIZE), 0x536);
}

static void test_hca_cap_2_dbr_less_decode(void **state)
{
    uint8_t cap[PRM_CMD_HCA_CAP_SIZE] = {0};

    (void)state;
    PUT_BYTES(cap, 0x5c, 0x4a, 0x00, 0x00, 0x00); /* no_dbr_ext, log_max_send_dbr_less 10 */
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_INT), 0);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_EXT), 1);
    assert_int_equal(PRM_GET(cap, PRM_HCA_CAP2_LOG_MAX_SEND_DBR_LESS_QP_SQ), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),
            cmocka_unit_test(test_query_hca_cap_in_golden),
            cmocka_unit_test(test_general_caps_decode),
            cmocka_unit_test(test_eth_offload_caps_decode),
            cmocka_unit_test(test_hca_cap_2_dbr_less_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
