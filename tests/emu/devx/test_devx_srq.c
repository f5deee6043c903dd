/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues over DevX: CREATE_RMP / QUERY_RMP / DESTROY_RMP, an
 * RC QP made on the RMP (rq_type SRQ), and the refusals: bad contexts and
 * umems (status and syndrome), an unknown RMP number in CREATE_QP, and
 * DESTROY_RMP while a QP receives through it (RESOURCE_BUSY, EBUSY).
 */
#include "devx_test.h"
#include "prm/prm_srq.h"

#define DT_UMEM_SIZE 8192

struct dt_rmp_args {
    uint32_t pdn;
    uint32_t log_size;
    uint32_t log_stride; /* bytes */
    uint32_t umem_id;
    uint64_t umem_offset;
    uint64_t dbr_offset;
};

static void dt_build_create_rmp(uint8_t *in, const struct dt_rmp_args *a)
{
    void *rmpc = PRM_AT(in, PRM_CREATE_RMP_IN_RMPC);
    void *wq = PRM_AT(rmpc, PRM_RMPC_WQ);

    memset(in, 0, PRM_CREATE_RMP_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RMP);
    PRM_SET(rmpc, PRM_RMPC_STATE, PRM_RMPC_STATE_RDY);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_LINKED_LIST);
    PRM_SET(wq, PRM_WQ_PD, a->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, a->dbr_offset);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, a->log_stride);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, a->log_size);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, a->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, a->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, a->umem_offset);
}

static void dt_refused(struct ibv_context *ctx, const uint8_t *in, size_t inlen, uint8_t status)
{
    uint8_t out[PRM_CREATE_QP_OUT_SIZE] = {0};

    errno = 0;
    DT_CHECK(mlx5dv_devx_obj_create(ctx, in, inlen, out, sizeof(out)) == NULL);
    DT_CHECK(errno == EREMOTEIO);
    DT_CHECK(dt_status(out) == status);
    DT_CHECK(dt_syndrome(out) != 0);
}

int main(void)
{
    static uint8_t in[PRM_CREATE_QP_IN_SIZE], qout[PRM_QUERY_RMP_OUT_SIZE];
    struct ibv_context *ctx = dt_open();
    struct mlx5dv_devx_obj *pd, *cq, *rmp, *qp;
    uint8_t out[0x10], qin[PRM_QUERY_RMP_IN_SIZE] = {0};
    struct mlx5dv_devx_umem *umem;
    struct mlx5dv_devx_uar *uar;
    struct dt_rmp_args r;
    struct dt_cq_args c;
    struct dt_qp_args q;
    uint32_t pdn, cqn, rmpn;
    const void *wq = PRM_AT(qout, PRM_QUERY_RMP_OUT_RMPC + PRM_RMPC_WQ);
    void *buf;

    pd = dt_alloc_pd(ctx, &pdn);
    uar = mlx5dv_devx_alloc_uar(ctx, 0);
    DT_CHECK(uar != NULL);
    DT_CHECK(posix_memalign(&buf, 4096, DT_UMEM_SIZE) == 0);
    memset(buf, 0, DT_UMEM_SIZE);
    umem = mlx5dv_devx_umem_reg(ctx, buf, DT_UMEM_SIZE, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(umem != NULL);

    /* RMP: 16 WQEs of 64 bytes at 0, doorbell record at 1024. */
    r = (struct dt_rmp_args){.pdn = pdn,
                             .log_size = 4,
                             .log_stride = 6,
                             .umem_id = umem->umem_id,
                             .dbr_offset = 1024};
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, 0x40, PRM_CMD_STAT_BAD_INPUT_LEN);
    PRM_SET(PRM_AT(in, PRM_CREATE_RMP_IN_RMPC), PRM_RMPC_STATE, PRM_RMPC_STATE_RST);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    dt_build_create_rmp(in, &r);
    PRM_SET(PRM_AT(in, PRM_CREATE_RMP_IN_RMPC + PRM_RMPC_WQ), PRM_WQ_WQ_UMEM_VALID, 0);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.log_size = 20;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.log_size = 4;
    r.log_stride = 3;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.log_stride = 6;
    r.pdn = pdn + 1000;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_RESOURCE);
    r.pdn = pdn;
    r.dbr_offset = 1028;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.dbr_offset = DT_UMEM_SIZE;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.dbr_offset = 1024;
    r.umem_offset = DT_UMEM_SIZE - 512;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_PARAM);
    r.umem_offset = 0;
    r.umem_id = umem->umem_id + 77;
    dt_build_create_rmp(in, &r);
    dt_refused(ctx, in, PRM_CREATE_RMP_IN_SIZE, PRM_CMD_STAT_BAD_RESOURCE);
    r.umem_id = umem->umem_id;
    dt_build_create_rmp(in, &r);
    rmp = mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_RMP_IN_SIZE, out, sizeof(out));
    DT_CHECK(rmp != NULL);
    rmpn = (uint32_t)PRM_GET(out, PRM_CREATE_RMP_OUT_RMPN);

    PRM_SET(qin, PRM_CMD_OPCODE, PRM_CMD_QUERY_RMP);
    PRM_SET(qin, PRM_QUERY_RMP_IN_RMPN, rmpn);
    DT_CHECK(mlx5dv_devx_obj_query(rmp, qin, sizeof(qin), qout, sizeof(qout)) == 0);
    DT_CHECK(PRM_GET(PRM_AT(qout, PRM_QUERY_RMP_OUT_RMPC), PRM_RMPC_STATE) == PRM_RMPC_STATE_RDY);
    DT_CHECK(PRM_GET(wq, PRM_WQ_PD) == pdn);
    DT_CHECK(PRM_GET(wq, PRM_WQ_LOG_WQ_SZ) == 4 && PRM_GET(wq, PRM_WQ_LOG_WQ_STRIDE) == 6);
    DT_CHECK(PRM_GET(wq, PRM_WQ_DBR_ADDR) == 1024 && PRM_GET(wq, PRM_WQ_HW_COUNTER) == 0);
    DT_CHECK(PRM_GET(wq, PRM_WQ_WQ_UMEM_ID) == umem->umem_id);

    /* A CQ at 2048 (16 CQEs, record at 4096 + 64) and a QP on the RMP at 5120. */
    c = (struct dt_cq_args){.log_size = 4,
                            .uar_page = uar->page_id,
                            .umem_id = umem->umem_id,
                            .umem_offset = 2048,
                            .dbr_umem_id = umem->umem_id,
                            .dbr_offset = 4096 + 64};
    dt_build_create_cq(in, &c);
    cq = mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_CQ_IN_SIZE, out, sizeof(out));
    DT_CHECK(cq != NULL);
    cqn = (uint32_t)PRM_GET(out, PRM_CREATE_CQ_OUT_CQN);
    q = (struct dt_qp_args){.pdn = pdn,
                            .cqn = cqn,
                            .uar_page = uar->page_id,
                            .log_sq_size = 4,
                            .umem_id = umem->umem_id,
                            .umem_offset = 5120,
                            .dbr_umem_id = umem->umem_id,
                            .dbr_offset = 4096 + 128};
    dt_build_create_qp(in, &q);
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_LOG_RQ_SIZE, 0);
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_LOG_RQ_STRIDE, 0);
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_RQ_TYPE, PRM_QP_RQ_TYPE_SRQ);
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_SRQN_RMPN_XRQN, rmpn + 1);
    dt_refused(ctx, in, PRM_CREATE_QP_IN_SIZE, PRM_CMD_STAT_BAD_RESOURCE);
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_SRQN_RMPN_XRQN, rmpn);
    qp = mlx5dv_devx_obj_create(ctx, in, PRM_CREATE_QP_IN_SIZE, out, sizeof(out));
    DT_CHECK(qp != NULL);

    /* In use: refused as the kernel reports a busy resource. */
    DT_CHECK(mlx5dv_devx_obj_destroy(rmp) == EBUSY);
    DT_CHECK(mlx5dv_devx_obj_destroy(qp) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(rmp) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(cq) == 0);
    DT_CHECK(mlx5dv_devx_umem_dereg(umem) == 0);
    mlx5dv_devx_free_uar(uar);
    DT_CHECK(mlx5dv_devx_obj_destroy(pd) == 0);
    free(buf);
    DT_CHECK(ibv_close_device(ctx) == 0);
    printf("devx srq: passed\n");
    return 0;
}
