/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv_init_obj: the real ring layout of standard-verbs CQs, QPs and PDs,
 * so that a program can write WQEs, ring doorbells and poll CQEs itself.
 */
#include <errno.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/uar.h"

#define DV_OBJ_SUPPORTED   (MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_PD)
#define DV_OBJ_SUPPORTED_0 (MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ | MLX5DV_OBJ_RWQ)

static int dv_init_cq(struct ibv_cq *ibcq, struct mlx5dv_cq *out)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;
    struct emu_uar *uar;

    if (ibcq->context == NULL || !emu_context_is_ours(ibcq->context))
        return EINVAL;
    uar = dv_shared_uar(cq->nic);
    out->buf = (void *)cq->p.ring;
    out->dbrec = (__be32 *)cq->p.dbrec;
    out->cqe_cnt = 1u << cq->p.log_size;
    out->cqe_size = EMU_CQE_SIZE;
    out->cq_uar = uar != NULL ? uar->page : NULL;
    out->cqn = cq->cqn;
    out->comp_mask = 0;
    return 0;
}

static int dv_init_qp(struct ibv_qp *ibqp, struct mlx5dv_qp *out)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;
    struct emu_uar *uar;
    uint64_t requested = out->comp_mask;

    if (ibqp->context == NULL || !emu_context_is_ours(ibqp->context))
        return EINVAL;
    uar = qp->p.uar != NULL ? qp->p.uar : dv_shared_uar(qp->nic);
    if (uar == NULL)
        return ENOMEM;
    out->dbrec = (__be32 *)qp->p.dbrec;
    out->sq.buf = (void *)emu_qp_sq_base(qp);
    out->sq.wqe_cnt = 1u << qp->p.log_sq_size;
    out->sq.stride = EMU_SQ_STRIDE;
    out->rq.buf = (void *)qp->p.wq;
    out->rq.wqe_cnt = qp->p.rq_size_zero || qp->p.srq != NULL ? 0 : 1u << qp->p.log_rq_size;
    out->rq.stride = emu_qp_rq_stride(qp);
    out->bf.reg = (uint8_t *)uar->page + EMU_UAR_SQ_DB_OFFSET;
    out->bf.size = EMU_UAR_BF_SIZE;
    out->comp_mask = requested & MLX5DV_QP_MASK_UAR_MMAP_OFFSET;
    if (requested & MLX5DV_QP_MASK_UAR_MMAP_OFFSET)
        out->uar_mmap_offset = (off_t)uar->page_id << EMU_LOG_PAGE_SIZE;
    return 0;
}

static int dv_init_pd(struct ibv_pd *ibpd, struct mlx5dv_pd *out)
{
    if (ibpd->context == NULL || !emu_context_is_ours(ibpd->context))
        return EINVAL;
    out->pdn = emu_pd_of(ibpd)->pdn;
    out->comp_mask = 0;
    return 0;
}

static int dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type, uint64_t supported)
{
    int err = 0;

    if (obj == NULL)
        return EINVAL;
    if (obj_type & ~supported) {
        EMU_LOG_ERR("mlx5dv_init_obj: object types 0x%llx are not supported (QP, CQ, PD are)",
                    (unsigned long long)(obj_type & ~supported));
        return EOPNOTSUPP;
    }
    if ((obj_type & MLX5DV_OBJ_QP) && (obj->qp.in == NULL || obj->qp.out == NULL))
        return EINVAL;
    if ((obj_type & MLX5DV_OBJ_CQ) && (obj->cq.in == NULL || obj->cq.out == NULL))
        return EINVAL;
    if ((obj_type & MLX5DV_OBJ_PD) && (obj->pd.in == NULL || obj->pd.out == NULL))
        return EINVAL;
    if (obj_type & MLX5DV_OBJ_QP)
        err = dv_init_qp(obj->qp.in, obj->qp.out);
    if (err == 0 && (obj_type & MLX5DV_OBJ_CQ))
        err = dv_init_cq(obj->cq.in, obj->cq.out);
    if (err == 0 && (obj_type & MLX5DV_OBJ_PD))
        err = dv_init_pd(obj->pd.in, obj->pd.out);
    return err;
}

/* mlx5dv_init_obj@@MLX5_1.2, the default version. */
DV_EXPORT int dv_init_obj_1_2(struct mlx5dv_obj *obj, uint64_t obj_type);
int dv_init_obj_1_2(struct mlx5dv_obj *obj, uint64_t obj_type)
{
    return dv_init_obj(obj, obj_type, DV_OBJ_SUPPORTED);
}

/* mlx5dv_init_obj@MLX5_1.0: programs linked before PD and the later object types existed. */
DV_EXPORT int dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type);
int dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type)
{
    return dv_init_obj(obj, obj_type & DV_OBJ_SUPPORTED_0, DV_OBJ_SUPPORTED);
}
__asm__(".symver dv_init_obj_1_0, mlx5dv_init_obj@MLX5_1.0");
__asm__(".symver dv_init_obj_1_2, mlx5dv_init_obj@@MLX5_1.2");
