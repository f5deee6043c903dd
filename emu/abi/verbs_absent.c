/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Options programs probe for that this device answers as a ConnectX without
 * them: memory windows, flow steering through ibv_create_flow (ibv_destroy_flow
 * destroys the rules of mlx5dv_create_flow, dv/dv_flow.c), and opening another process's XRC
 * target QP (ibv_open_qp; each process has a device of its own). The context's tables point to
 * these calls (rather than leaving them empty, which rdma-core's inline wrappers also answer with
 * EOPNOTSUPP) so that each refusal logs one line. On-demand paging (IBV_ACCESS_ON_DEMAND refused by
 * ibv_reg_mr, zero ODP capabilities) and completion timestamps (refused by ibv_create_cq_ex) are
 * answered where those calls live.
 */
#include <errno.h>

#include "abi/context.h"
#include "common/emu_log.h"
#include "nic/eth.h"

static struct ibv_mw *absent_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
    (void)pd;
    EMU_LOG_ERR("ibv_alloc_mw: memory windows (type %d) are not supported by this device", type);
    errno = EOPNOTSUPP;
    return NULL;
}

static int absent_dealloc_mw(struct ibv_mw *mw)
{
    (void)mw;
    EMU_LOG_ERR("ibv_dealloc_mw: this device has no memory windows");
    return EOPNOTSUPP;
}

static int absent_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
    (void)qp, (void)mw, (void)bind;
    EMU_LOG_ERR("ibv_bind_mw: this device has no memory windows");
    return EOPNOTSUPP;
}

static struct ibv_flow *absent_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
    (void)qp, (void)attr;
    EMU_LOG_ERR("ibv_create_flow: flow steering is not supported by this device");
    errno = EOPNOTSUPP;
    return NULL;
}

/* Flows exist only as mlx5dv_create_flow's rules (nic/eth_steer.c). */
static int absent_destroy_flow(struct ibv_flow *flow)
{
    if (emu_eth_flow_destroy(flow) == 0)
        return 0;
    EMU_LOG_ERR("ibv_destroy_flow: %p is no flow of this device (only mlx5dv_create_flow makes "
                "them)",
                (void *)flow);
    return EINVAL;
}

static struct ibv_qp *absent_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *attr)
{
    (void)context;
    EMU_LOG_ERR("ibv_open_qp: XRC target QP 0x%x cannot be opened: softmlx5 shares no XRC "
                "target QP between handles or processes",
                attr != NULL ? attr->qp_num : 0);
    errno = EOPNOTSUPP;
    return NULL;
}

void emu_absent_ops_init(struct emu_context *ectx)
{
    ectx->vctx.context.ops.alloc_mw = absent_alloc_mw;
    ectx->vctx.context.ops.dealloc_mw = absent_dealloc_mw;
    ectx->vctx.context.ops.bind_mw = absent_bind_mw;
    ectx->vctx.ibv_create_flow = absent_create_flow;
    ectx->vctx.ibv_destroy_flow = absent_destroy_flow;
    ectx->vctx.open_qp = absent_open_qp;
}
