/* SPDX-License-Identifier: BSD-3-Clause */
/* DC QPs of mlx5dv_create_qp (dv_dc.c). */
#ifndef EMU_DV_DC_H
#define EMU_DV_DC_H

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

/* A DCI or DCT as mlx5dv_create_qp's DC attributes ask (checked; NULL with errno). */
struct ibv_qp *dv_dc_create(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
                            const struct mlx5dv_qp_init_attr *dv);

#endif /* EMU_DV_DC_H */
