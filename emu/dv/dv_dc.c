/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv_create_qp's DC QPs (qp_type IBV_QPT_DRIVER, MLX5DV_QP_INIT_ATTR_MASK_DC):
 * a DCI, the send side, whose work requests name their DCT with
 * mlx5dv_wr_set_dc_addr (so it needs send_ops_flags: ibv_post_send has no
 * DC address), and a DCT, the receive side, with an SRQ, a receive CQ and
 * its DC access key. DCI streams are refused with EOPNOTSUPP.
 */
#include <errno.h>

#include "abi/verbs_qp_ex.h"
#include "common/emu_log.h"
#include "dv/dv.h"
#include "dv/dv_dc.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"

/* The DC attributes' checks; 0 or an errno value (logged). */
static int dv_dc_check(const struct ibv_qp_init_attr_ex *a, const struct mlx5dv_qp_init_attr *dv)
{
    if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) {
        EMU_LOG_ERR("mlx5dv_create_qp: DCI streams are not supported");
        return EOPNOTSUPP;
    }
    if (a->qp_type != IBV_QPT_DRIVER) {
        EMU_LOG_ERR("mlx5dv_create_qp: a DC QP has qp_type IBV_QPT_DRIVER (%d), not %d",
                    IBV_QPT_DRIVER, a->qp_type);
        return EINVAL;
    }
    switch (dv->dc_init_attr.dc_type) {
    case MLX5DV_DCTYPE_DCI:
        if (!(a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
            EMU_LOG_ERR("mlx5dv_create_qp: a DCI posts with ibv_wr_* and mlx5dv_wr_set_dc_addr: "
                        "give it IBV_QP_INIT_ATTR_SEND_OPS_FLAGS");
            return EINVAL;
        }
        return 0;
    case MLX5DV_DCTYPE_DCT:
        if (a->srq == NULL || a->recv_cq == NULL) {
            EMU_LOG_ERR("mlx5dv_create_qp: a DCT needs an SRQ and a receive CQ");
            return EINVAL;
        }
        return 0;
    default:
        EMU_LOG_ERR("mlx5dv_create_qp: dc_type %d is neither MLX5DV_DCTYPE_DCT nor _DCI",
                    dv->dc_init_attr.dc_type);
        return EINVAL;
    }
}

struct ibv_qp *dv_dc_create(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
                            const struct mlx5dv_qp_init_attr *dv)
{
    struct ibv_qp_init_attr_ex a = *qp_attr;
    bool dct = dv->dc_init_attr.dc_type == MLX5DV_DCTYPE_DCT;
    struct ibv_qp *qp;
    int err = dv_dc_check(qp_attr, dv);

    if (err != 0) {
        errno = err;
        return NULL;
    }
    if (dct) {
        /*
         * A DCT has no send queue: its send CQ, if given, is never written,
         * and its ibv_wr_* calls (send_ops_flags) post nothing it executes.
         */
        a.send_cq = a.recv_cq;
        a.cap.max_send_wr = 0;
        a.cap.max_send_sge = 0;
        a.cap.max_inline_data = 0;
    }
    qp = emu_verbs_create_qp_st(context, &a, dct ? PRM_QP_ST_DCT : PRM_QP_ST_DCI);
    if (qp == NULL)
        return NULL;
    if (dct)
        ((struct emu_qp *)qp)->dc.key = dv->dc_init_attr.dct_access_key;
    else
        qp_attr->cap = a.cap;
    return qp;
}
