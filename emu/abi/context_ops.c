/* SPDX-License-Identifier: BSD-3-Clause */
/* The operation tables of a context: what programs reach through context->ops and verbs_context. */
#include <errno.h>

#include "abi/context.h"
#include "abi/unsupported.h"

static int emu_ops_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
    emu_unsupported("ibv_poll_cq");
    return -1;
}

static int emu_ops_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
    emu_unsupported("ibv_req_notify_cq");
    return EOPNOTSUPP;
}

static int emu_ops_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    emu_unsupported("ibv_post_send");
    *bad = wr;
    return EOPNOTSUPP;
}

static int emu_ops_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    emu_unsupported("ibv_post_recv");
    *bad = wr;
    return EOPNOTSUPP;
}

static int emu_ops_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
                                 struct ibv_recv_wr **bad)
{
    emu_unsupported("ibv_post_srq_recv");
    *bad = wr;
    return EOPNOTSUPP;
}

void emu_context_ops_init(struct emu_context *ectx)
{
    struct ibv_context_ops *ops = &ectx->vctx.context.ops;

    ops->poll_cq = emu_ops_poll_cq;
    ops->req_notify_cq = emu_ops_req_notify_cq;
    ops->post_send = emu_ops_post_send;
    ops->post_recv = emu_ops_post_recv;
    ops->post_srq_recv = emu_ops_post_srq_recv;
    emu_device_ops_init(ectx);
}
