/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5dv_is_supported, mlx5dv_open_device, mlx5dv_query_device and mlx5dv_init_obj answers. */
#include <dlfcn.h>

#include "devx_test.h"

static void dt_init_obj_queues(struct ibv_context *ctx, struct ibv_pd *pd)
{
    struct ibv_cq *cq = NULL;
    struct ibv_qp_init_attr qattr = {0};
    struct mlx5dv_qp dvqp = {.comp_mask = MLX5DV_QP_MASK_UAR_MMAP_OFFSET};
    struct mlx5dv_cq dvcq = {0};
    struct mlx5dv_obj obj = {0};
    struct ibv_qp *qp;

    /* The standard CQ and QP come with the engine; until it is built in, skip this part. */
    if (dlsym(RTLD_DEFAULT, "ibv_create_cq") != NULL)
        cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    if (cq == NULL) {
        printf("note: ibv_create_cq unavailable (errno %d); CQ/QP layouts not checked\n", errno);
        return;
    }
    qattr.send_cq = cq;
    qattr.recv_cq = cq;
    qattr.qp_type = IBV_QPT_RC;
    qattr.cap.max_send_wr = 8;
    qattr.cap.max_recv_wr = 8;
    qattr.cap.max_send_sge = 1;
    qattr.cap.max_recv_sge = 1;
    qp = ibv_create_qp(pd, &qattr);
    DT_CHECK(qp != NULL);
    obj.cq.in = cq;
    obj.cq.out = &dvcq;
    obj.qp.in = qp;
    obj.qp.out = &dvqp;
    DT_CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ | MLX5DV_OBJ_QP) == 0);
    DT_CHECK(dvcq.buf != NULL && dvcq.dbrec != NULL && dvcq.cq_uar != NULL);
    DT_CHECK(dvcq.cqe_size == 64 && dvcq.cqe_cnt >= 16);
    DT_CHECK((dvcq.cqe_cnt & (dvcq.cqe_cnt - 1)) == 0);
    DT_CHECK(dvqp.dbrec != NULL && dvqp.sq.buf != NULL && dvqp.rq.buf != NULL);
    DT_CHECK(dvqp.sq.stride == 64 && dvqp.sq.wqe_cnt >= 8);
    DT_CHECK(dvqp.rq.wqe_cnt >= 8 && dvqp.rq.stride >= 16);
    DT_CHECK(dvqp.bf.reg != NULL && ((uintptr_t)dvqp.bf.reg & 0xfff) == 0x800);
    DT_CHECK(dvqp.bf.size == 256);
    DT_CHECK(dvqp.comp_mask & MLX5DV_QP_MASK_UAR_MMAP_OFFSET);
    DT_CHECK(ibv_destroy_qp(qp) == 0);
    DT_CHECK(ibv_destroy_cq(cq) == 0);
}

int main(void)
{
    struct mlx5dv_context_attr bad = {.flags = 1u << 7};
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct mlx5dv_context dv = {0};
    struct ibv_device_attr attr;
    struct mlx5dv_obj obj = {0};
    struct mlx5dv_pd dvpd = {0};
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    uint32_t eqn = 99;

    DT_CHECK(list != NULL && list[0] != NULL);
    DT_CHECK(mlx5dv_is_supported(list[0]));
    errno = 0;
    DT_CHECK(mlx5dv_open_device(list[0], &bad) == NULL && errno == EOPNOTSUPP);
    ibv_free_device_list(list);

    ctx = dt_open();
    dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_STRIDING_RQ;
    DT_CHECK(mlx5dv_query_device(ctx, &dv) == 0);
    DT_CHECK(dv.version == 1 && (dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1));
    DT_CHECK(dv.comp_mask == MLX5DV_CONTEXT_MASK_CQE_COMPRESION); /* no striding RQ */
    DT_CHECK(dv.cqe_comp_caps.max_num == 0 && dv.cqe_comp_caps.supported_format == 0);
    DT_CHECK(ibv_query_device(ctx, &attr) == 0);

    DT_CHECK(mlx5dv_devx_query_eqn(ctx, 0, &eqn) == 0 && eqn == 0);
    DT_CHECK(mlx5dv_devx_query_eqn(ctx, (uint32_t)ctx->num_comp_vectors, &eqn) == EINVAL);

    pd = ibv_alloc_pd(ctx);
    DT_CHECK(pd != NULL);
    obj.pd.in = pd;
    obj.pd.out = &dvpd;
    DT_CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD) == 0);
    DT_CHECK(dvpd.pdn == pd->handle);
    DT_CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_DM) == EOPNOTSUPP);
    dt_init_obj_queues(ctx, pd);
    DT_CHECK(ibv_dealloc_pd(pd) == 0);
    DT_CHECK(ibv_close_device(ctx) == 0);
    printf("ok\n");
    return 0;
}
