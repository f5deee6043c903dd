/* SPDX-License-Identifier: BSD-3-Clause */
/* The operation tables of a context: what programs reach through context->ops and verbs_context. */
#include <errno.h>

#include "abi/context.h"
#include "abi/verbs_int.h"

void emu_context_ops_init(struct emu_context *ectx)
{
    struct ibv_context_ops *ops = &ectx->vctx.context.ops;

    ops->poll_cq = emu_verbs_poll_cq;
    ops->req_notify_cq = emu_verbs_req_notify_cq;
    ops->post_send = emu_verbs_post_send;
    ops->post_recv = emu_verbs_post_recv;
    ops->post_srq_recv = emu_verbs_post_srq_recv;
    ectx->vctx.create_cq_ex = emu_verbs_create_cq_ex;
    ectx->vctx.create_qp_ex = emu_verbs_create_qp_ex;
    ectx->vctx.create_srq_ex = emu_verbs_create_srq_ex;
    ectx->vctx.get_srq_num = emu_verbs_get_srq_num;
    emu_device_ops_init(ectx);
    emu_xrcd_ops_init(ectx);
    emu_absent_ops_init(ectx);
}
