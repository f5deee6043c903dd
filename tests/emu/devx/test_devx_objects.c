/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQ and RC QP made with PRM commands, rings in a host umem: QUERY_CQ and
 * QUERY_QP answers, RST->INIT->RTR->RTS, and the refusals that need live
 * objects: a transition from the wrong state, destroying a CQ or
 * deregistering a umem still in use. Skipped until the engine is built in.
 */
#include "devx_test.h"

#define DT_UMEM_SIZE (64 * 1024)

static int dt_modify(struct mlx5dv_devx_obj *qp, uint16_t opcode, uint32_t qpn, void *in,
                     uint8_t *status)
{
    PRM_SET(in, PRM_CMD_OPCODE, opcode);
    return dt_qp_cmd(qp, opcode, qpn, in, PRM_RST2INIT_QP_IN_SIZE, status);
}

int main(void)
{
    static uint8_t in[PRM_CREATE_QP_IN_SIZE], qout[PRM_QUERY_QP_OUT_SIZE];
    struct ibv_context *ctx = dt_open();
    struct mlx5dv_devx_obj *pd, *cq, *qp;
    uint8_t out[0x10], qin[0x10] = {0}, status;
    struct mlx5dv_devx_umem *umem;
    struct mlx5dv_devx_uar *uar;
    uint32_t pdn, cqn, qpn;
    void *buf, *qpc;

    uar = mlx5dv_devx_alloc_uar(ctx, 0);
    DT_CHECK(uar != NULL);
    DT_CHECK(posix_memalign(&buf, 4096, DT_UMEM_SIZE) == 0);
    memset(buf, 0, DT_UMEM_SIZE);
    umem = mlx5dv_devx_umem_reg(ctx, buf, DT_UMEM_SIZE, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(umem != NULL);
    pd = dt_alloc_pd(ctx, &pdn);

    dt_build_create_cq(in, &(struct dt_cq_args){.log_size = 6,
                                                .uar_page = uar->page_id,
                                                .umem_id = umem->umem_id,
                                                .dbr_umem_id = umem->umem_id,
                                                .dbr_offset = DT_UMEM_SIZE - 64});
    cq = mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_CQ_IN_SIZE, out, sizeof(out));
    if (cq == NULL && dt_status(out) == PRM_CMD_STAT_INTERNAL_ERR) {
        printf("skipped: the engine is not built into softmlx5's libibverbs.so.1 yet\n");
        DT_CHECK(mlx5dv_devx_obj_destroy(pd) == 0);
        DT_CHECK(mlx5dv_devx_umem_dereg(umem) == 0);
        mlx5dv_devx_free_uar(uar);
        free(buf);
        DT_CHECK(ibv_close_device(ctx) == 0);
        return DT_SKIP;
    }
    DT_CHECK(cq != NULL);
    cqn = (uint32_t)prm_get_field(out, 0x08, 0, 24);
    /* The umem holds the CQ: it cannot go. */
    DT_CHECK(mlx5dv_devx_umem_dereg(umem) == EBUSY);

    dt_build_create_qp(in, &(struct dt_qp_args){.pdn = pdn,
                                                .cqn = cqn,
                                                .uar_page = uar->page_id,
                                                .log_sq_size = 6,
                                                .log_rq_size = 4,
                                                .umem_id = umem->umem_id,
                                                .umem_offset = 8192,
                                                .dbr_umem_id = umem->umem_id,
                                                .dbr_offset = DT_UMEM_SIZE - 128});
    /* Without SOFTMLX5_NO_DBR the device refuses doorbell-record-less send queues. */
    if (getenv("SOFTMLX5_NO_DBR") == NULL) {
        PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_SEND_DBR_MODE,
                PRM_QP_SEND_DBR_MODE_NO_DBR_EXT);
        DT_CHECK(mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_QP_IN_SIZE, out, sizeof(out)) == NULL);
        DT_CHECK(errno == EREMOTEIO && dt_status(out) == PRM_CMD_STAT_BAD_PARAM);
        PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_SEND_DBR_MODE, 0);
    }
    qp = mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_QP_IN_SIZE, out, sizeof(out));
    DT_CHECK(qp != NULL);
    qpn = (uint32_t)prm_get_field(out, 0x08, 0, 24);

    /* INIT2RTR from RST: bad resource state. */
    memset(in, 0, sizeof(in));
    DT_CHECK(dt_modify(qp, PRM_CMD_INIT2RTR_QP, qpn, in, &status) == EREMOTEIO);
    DT_CHECK(status == PRM_CMD_STAT_BAD_RES_STATE);
    /* A command on another object through this handle. */
    DT_CHECK(dt_modify(qp, PRM_CMD_RST2INIT_QP, qpn + 1, in, &status) == EINVAL);

    memset(in, 0, sizeof(in));
    qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    PRM_SET(qpc, PRM_QPC_RWE, 1);
    PRM_SET(qpc, PRM_QPC_RRE, 1);
    PRM_SET(PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH), PRM_ADS_VHCA_PORT_NUM, 1);
    DT_CHECK(dt_modify(qp, PRM_CMD_RST2INIT_QP, qpn, in, &status) == 0);
    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_MTU, PRM_QP_MTU_1K);
    PRM_SET(qpc, PRM_QPC_REMOTE_QPN, qpn);
    PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX, 2);
    DT_CHECK(dt_modify(qp, PRM_CMD_INIT2RTR_QP, qpn, in, &status) == 0);
    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX, 2);
    PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 7);
    PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, 0x123);
    DT_CHECK(dt_modify(qp, PRM_CMD_RTR2RTS_QP, qpn, in, &status) == 0);

    PRM_SET(qin, PRM_CMD_OPCODE, PRM_CMD_QUERY_QP);
    prm_set_field(qin, 0x08, 0, 24, qpn);
    DT_CHECK(mlx5dv_devx_obj_query(qp, qin, sizeof(qin), qout, sizeof(qout)) == 0);
    qpc = PRM_AT(qout, PRM_QUERY_QP_OUT_QPC);
    DT_CHECK(PRM_GET(qpc, PRM_QPC_STATE) == PRM_QP_STATE_RTS);
    DT_CHECK(PRM_GET(qpc, PRM_QPC_MTU) == PRM_QP_MTU_1K);
    DT_CHECK(PRM_GET(qpc, PRM_QPC_REMOTE_QPN) == qpn);
    DT_CHECK(PRM_GET(qpc, PRM_QPC_CQN_SND) == cqn && PRM_GET(qpc, PRM_QPC_PD) == pdn);
    DT_CHECK(PRM_GET(qpc, PRM_QPC_LOG_SQ_SIZE) == 6 && PRM_GET(qpc, PRM_QPC_RWE) == 1);

    memset(qin, 0, sizeof(qin));
    PRM_SET(qin, PRM_CMD_OPCODE, PRM_CMD_QUERY_CQ);
    prm_set_field(qin, 0x08, 0, 24, cqn);
    DT_CHECK(mlx5dv_devx_obj_query(cq, qin, sizeof(qin), qout, sizeof(qout)) == 0);
    DT_CHECK(PRM_GET(PRM_AT(qout, PRM_QUERY_CQ_OUT_CQC), PRM_CQC_LOG_CQ_SIZE) == 6);
    DT_CHECK(PRM_GET(PRM_AT(qout, PRM_QUERY_CQ_OUT_CQC), PRM_CQC_UAR_PAGE) == uar->page_id);

    /* The QP completes on the CQ: it cannot go; the PD cannot either. */
    DT_CHECK(mlx5dv_devx_obj_destroy(cq) == EBUSY);
    DT_CHECK(mlx5dv_devx_obj_destroy(pd) == EBUSY);
    memset(in, 0, sizeof(in));
    DT_CHECK(dt_qp_cmd(qp, PRM_CMD_2ERR_QP, qpn, in, PRM_2ERR_QP_IN_SIZE, &status) == 0);
    DT_CHECK(dt_qp_cmd(qp, PRM_CMD_2RST_QP, qpn, in, PRM_2RST_QP_IN_SIZE, &status) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(qp) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(cq) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(pd) == 0);
    DT_CHECK(mlx5dv_devx_umem_dereg(umem) == 0);
    mlx5dv_devx_free_uar(uar);
    free(buf);
    DT_CHECK(ibv_close_device(ctx) == 0);
    printf("ok\n");
    return 0;
}
