/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv_create_qp and the mlx5 view of an extended QP. A QP made here is a
 * standard-verbs QP (ibv_create_qp_ex), or a DCI or DCT (dv_dc.c); of
 * libmlx5's own attributes the device takes the create flags that change
 * nothing for it (scatter to CQE, which softmlx5 never does, allowed or
 * disabled) and refuses DCI streams and the mlx5-specific builders (memory
 * keys, raw WQEs, memcpy) with EOPNOTSUPP. Their mlx5dv_qp_ex calls are
 * there and record EOPNOTSUPP, which ibv_wr_complete returns;
 * mlx5dv_wr_set_dc_addr gives a DCI's work request its DCT.
 */
#include <errno.h>

#include "abi/verbs_qp_ex.h"
#include "common/emu_log.h"
#include "dv/dv.h"
#include "dv/dv_dc.h"

#define DV_QP_CREATE_FLAGS \
    (MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE | MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE)

static int dv_qp_attr_check(const struct mlx5dv_qp_init_attr *dv)
{
    uint64_t known = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
                     MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS | MLX5DV_QP_INIT_ATTR_MASK_DC |
                     MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;

    if (dv == NULL)
        return 0;
    if (dv->comp_mask & ~known) {
        EMU_LOG_ERR("mlx5dv_create_qp: comp_mask 0x%lx has bits this libmlx5 does not know",
                    (unsigned long)dv->comp_mask);
        return EOPNOTSUPP;
    }
    if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) &&
        !(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC)) {
        EMU_LOG_ERR("mlx5dv_create_qp: DCI streams without MLX5DV_QP_INIT_ATTR_MASK_DC");
        return EINVAL;
    }
    if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS) &&
        (dv->create_flags & ~(uint32_t)DV_QP_CREATE_FLAGS)) {
        EMU_LOG_ERR("mlx5dv_create_qp: create_flags 0x%x not supported (only the scatter-to-CQE "
                    "flags 0x%x)",
                    dv->create_flags, DV_QP_CREATE_FLAGS);
        return EOPNOTSUPP;
    }
    if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS) && dv->send_ops_flags != 0) {
        EMU_LOG_ERR("mlx5dv_create_qp: mlx5 send_ops_flags 0x%lx (memory keys, raw WQEs, memcpy) "
                    "are not supported",
                    (unsigned long)dv->send_ops_flags);
        return EOPNOTSUPP;
    }
    return 0;
}

DV_EXPORT struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context,
                                          struct ibv_qp_init_attr_ex *qp_attr,
                                          struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
    int err;

    if (dv_nic_of(context, "mlx5dv_create_qp") == NULL)
        return NULL;
    if (qp_attr == NULL) {
        EMU_LOG_ERR("mlx5dv_create_qp: the QP's attributes are required");
        errno = EINVAL;
        return NULL;
    }
    err = dv_qp_attr_check(mlx5_qp_attr);
    if (err != 0) {
        errno = err;
        return NULL;
    }
    if (mlx5_qp_attr != NULL && (mlx5_qp_attr->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC))
        return dv_dc_create(context, qp_attr, mlx5_qp_attr);
    return ibv_create_qp_ex(context, qp_attr);
}

static struct ibv_qp_ex *dv_qpx(struct mlx5dv_qp_ex *mqp)
{
    return &((struct emu_qp_wr *)((char *)mqp - offsetof(struct emu_qp_wr, dv)))->qp->ibv_ex;
}

#define DV_REFUSE(mqp, call) emu_qp_wr_fail(dv_qpx(mqp), EOPNOTSUPP, call)

static void dv_wr_set_dc_addr(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ah, uint32_t dctn,
                              uint64_t key)
{
    emu_qp_wr_set_dc_addr(dv_qpx(mqp), ah, dctn, key);
}

static void dv_wr_set_dc_addr_stream(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ah, uint32_t dctn,
                                     uint64_t key, uint16_t stream)
{
    /*
     * A DCI without streams (the only kind here) has one: the stream id
     * changes nothing, as libmlx5 puts it in the control segment regardless.
     */
    (void)stream;
    emu_qp_wr_set_dc_addr(dv_qpx(mqp), ah, dctn, key);
}

static void dv_wr_mr_interleaved(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey,
                                 uint32_t access, uint32_t repeat, uint16_t n,
                                 struct mlx5dv_mr_interleaved *data)
{
    (void)mkey, (void)access, (void)repeat, (void)n, (void)data;
    DV_REFUSE(mqp, "mlx5dv_wr_mr_interleaved");
}

static void dv_wr_mr_list(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey, uint32_t access,
                          uint16_t n, struct ibv_sge *sge)
{
    (void)mkey, (void)access, (void)n, (void)sge;
    DV_REFUSE(mqp, "mlx5dv_wr_mr_list");
}

static void dv_wr_mkey_configure(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey, uint8_t n,
                                 struct mlx5dv_mkey_conf_attr *attr)
{
    (void)mkey, (void)n, (void)attr;
    DV_REFUSE(mqp, "mlx5dv_wr_mkey_configure");
}

static void dv_wr_set_mkey_access_flags(struct mlx5dv_qp_ex *mqp, uint32_t access)
{
    (void)access;
    DV_REFUSE(mqp, "mlx5dv_wr_set_mkey_access_flags");
}

static void dv_wr_set_mkey_layout_list(struct mlx5dv_qp_ex *mqp, uint16_t n,
                                       const struct ibv_sge *sge)
{
    (void)n, (void)sge;
    DV_REFUSE(mqp, "mlx5dv_wr_set_mkey_layout_list");
}

static void dv_wr_set_mkey_layout_interleaved(struct mlx5dv_qp_ex *mqp, uint32_t repeat, uint16_t n,
                                              const struct mlx5dv_mr_interleaved *d)
{
    (void)repeat, (void)n, (void)d;
    DV_REFUSE(mqp, "mlx5dv_wr_set_mkey_layout_interleaved");
}

static void dv_wr_set_mkey_sig_block(struct mlx5dv_qp_ex *mqp,
                                     const struct mlx5dv_sig_block_attr *attr)
{
    (void)attr;
    DV_REFUSE(mqp, "mlx5dv_wr_set_mkey_sig_block");
}

static void dv_wr_raw_wqe(struct mlx5dv_qp_ex *mqp, const void *wqe)
{
    (void)wqe;
    DV_REFUSE(mqp, "mlx5dv_wr_raw_wqe");
}

static void dv_wr_memcpy(struct mlx5dv_qp_ex *mqp, uint32_t dest_lkey, uint64_t dest,
                         uint32_t src_lkey, uint64_t src, size_t length)
{
    (void)dest_lkey, (void)dest, (void)src_lkey, (void)src, (void)length;
    DV_REFUSE(mqp, "mlx5dv_wr_memcpy");
}

static void dv_wr_set_mkey_crypto(struct mlx5dv_qp_ex *mqp, const struct mlx5dv_crypto_attr *attr)
{
    (void)attr;
    DV_REFUSE(mqp, "mlx5dv_wr_set_mkey_crypto");
}

DV_EXPORT struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
    struct emu_qp_wr *w;
    struct mlx5dv_qp_ex *dv;

    if (qpx == NULL) {
        /* What ibv_qp_to_qp_ex gave for a QP without send ops, passed on (perftest's DCT). */
        EMU_LOG_INFO("mlx5dv_qp_ex_from_ibv_qp_ex: NULL, no extended QP");
        errno = EINVAL;
        return NULL;
    }
    if (qpx->qp_base.context == NULL || !emu_context_is_ours(qpx->qp_base.context) ||
        emu_qp_of_ex(qpx)->wr == NULL) {
        EMU_LOG_ERR("mlx5dv_qp_ex_from_ibv_qp_ex: %p is not an extended QP of a softmlx5 device "
                    "(one from ibv_qp_to_qp_ex)",
                    (void *)qpx);
        errno = EINVAL;
        return NULL;
    }
    w = emu_qp_of_ex(qpx)->wr;
    dv = &w->dv;
    dv->comp_mask = 0;
    dv->wr_set_dc_addr = dv_wr_set_dc_addr;
    dv->wr_mr_interleaved = dv_wr_mr_interleaved;
    dv->wr_mr_list = dv_wr_mr_list;
    dv->wr_mkey_configure = dv_wr_mkey_configure;
    dv->wr_set_mkey_access_flags = dv_wr_set_mkey_access_flags;
    dv->wr_set_mkey_layout_list = dv_wr_set_mkey_layout_list;
    dv->wr_set_mkey_layout_interleaved = dv_wr_set_mkey_layout_interleaved;
    dv->wr_set_mkey_sig_block = dv_wr_set_mkey_sig_block;
    dv->wr_raw_wqe = dv_wr_raw_wqe;
    dv->wr_set_dc_addr_stream = dv_wr_set_dc_addr_stream;
    dv->wr_memcpy = dv_wr_memcpy;
    dv->wr_set_mkey_crypto = dv_wr_set_mkey_crypto;
    return dv;
}
