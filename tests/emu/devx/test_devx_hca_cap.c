/* SPDX-License-Identifier: BSD-3-Clause */
/* QUERY_HCA_CAP through mlx5dv_devx_general_cmd, decoded with src/prm, against ibv_query_device. */
#include "devx_test.h"

static void dt_query_cap(struct ibv_context *ctx, unsigned int type, int current, uint8_t *out)
{
    uint8_t in[PRM_QUERY_HCA_CAP_IN_SIZE] = {0};

    memset(out, 0xab, PRM_QUERY_HCA_CAP_OUT_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    PRM_SET(in, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(type, current));
    DT_CHECK(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, PRM_QUERY_HCA_CAP_OUT_SIZE) == 0);
    DT_CHECK(dt_status(out) == PRM_CMD_STAT_OK && dt_syndrome(out) == 0);
}

int main(void)
{
    static uint8_t out[PRM_QUERY_HCA_CAP_OUT_SIZE], max[PRM_QUERY_HCA_CAP_OUT_SIZE];
    struct ibv_context *ctx = dt_open();
    struct ibv_port_attr port;
    struct ibv_device_attr a;
    const void *cap;

    DT_CHECK(ibv_query_device(ctx, &a) == 0);
    DT_CHECK(ibv_query_port(ctx, 1, &port) == 0);
    dt_query_cap(ctx, PRM_HCA_CAP_TYPE_GENERAL, 1, out);
    dt_query_cap(ctx, PRM_HCA_CAP_TYPE_GENERAL, 0, max);
    DT_CHECK(memcmp(out, max, sizeof(out)) == 0); /* nothing is configurable */
    cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP)) == a.max_qp);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP_SZ)) == a.max_qp_wr);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ)) == a.max_cq);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ_SZ)) - 1 == a.max_cqe);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MKEY)) == a.max_mr);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_PD)) == a.max_pd);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_QP)) == a.max_qp_rd_atom);
    DT_CHECK((1 << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_QP)) == a.max_qp_init_rd_atom);
    DT_CHECK((1ULL << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MRW_SZ)) == a.max_mr_size);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_NUM_PORTS) == a.phys_port_cnt);
    DT_CHECK((1ULL << PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MSG)) == port.max_msg_sz);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_PORT_TYPE) == (port.link_layer == IBV_LINK_LAYER_ETHERNET
                                                             ? PRM_HCA_CAP_PORT_TYPE_ETH
                                                             : PRM_HCA_CAP_PORT_TYPE_IB));
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_RC) == 1 && PRM_GET(cap, PRM_HCA_CAP_CQE_VERSION) == 1);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_UC) == 1 && PRM_GET(cap, PRM_HCA_CAP_UD) == 1);
    /* XRC and DC targets, as the device makes them (UCX and perftest check these bits). */
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_XRC) == 1 && PRM_GET(cap, PRM_HCA_CAP_DCT) == 1);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_DC) ==
                     PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_QP) &&
             PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_DC) ==
                     PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_QP));
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_CQE_COMPRESSION) == 0);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_LOG_PG_SZ) == 12 && PRM_GET(cap, PRM_HCA_CAP_UAR_4K) == 1);
    DT_CHECK(PRM_GET(cap, PRM_HCA_CAP_HCA_CAP_2) == 1);
    /* The bytes past the answer are zero: the device wrote the whole mailbox. */
    DT_CHECK(out[sizeof(out) - 1] == 0);

    dt_query_cap(ctx, PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS, 1, out);
    cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    DT_CHECK(PRM_GET(cap, PRM_ETH_CAP_WQE_INLINE_MODE) == PRM_ETH_CAP_INLINE_MODE_NOT_REQUIRED);

    dt_query_cap(ctx, PRM_HCA_CAP_TYPE_GENERAL_2, 1, out);
    cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    {
        const char *v = getenv("SOFTMLX5_NO_DBR");
        int no_dbr = v != NULL && strcmp(v, "1") == 0;

        DT_CHECK(PRM_GET(cap, PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_EXT) == (uint64_t)no_dbr);
    }
    DT_CHECK(ibv_close_device(ctx) == 0);
    printf("ok\n");
    return 0;
}
