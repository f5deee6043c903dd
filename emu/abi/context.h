/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A context opened on a software device: rdma-core's extended context
 * (struct verbs_context, whose embedded ibv_context is what programs hold),
 * followed by ours. Programs reach the data-path calls through
 * context->ops and the extended calls through the verbs_context ops, exactly
 * as with rdma-core's providers, so both tables are filled here.
 */
#ifndef EMU_ABI_CONTEXT_H
#define EMU_ABI_CONTEXT_H

#include <infiniband/verbs.h>
#include <stddef.h>

#include "nic/nic.h"

struct emu_context {
    struct verbs_context vctx; /* vctx.context is the ibv_context handed out */
    struct emu_nic *nic;
};

static inline struct emu_context *emu_context_of(struct ibv_context *ctx)
{
    return (struct emu_context *)((char *)ctx - offsetof(struct emu_context, vctx.context));
}

static inline struct emu_nic *emu_nic_of_ctx(struct ibv_context *ctx)
{
    return emu_context_of(ctx)->nic;
}

/* True when ctx was opened by softmlx5 (checked before trusting a pointer from a caller). */
int emu_context_is_ours(struct ibv_context *ctx);

/* Fills the data-path and extended operation tables of a new context. */
void emu_context_ops_init(struct emu_context *ectx);

/* Device and port queries of the extended table (verbs_device.c). */
void emu_device_ops_init(struct emu_context *ectx);

/* ibv_open_xrcd and ibv_close_xrcd (verbs_xrcd.c). */
void emu_xrcd_ops_init(struct emu_context *ectx);

/* Memory windows, flow steering and ibv_open_qp, which the device does not have (verbs_absent.c).
 */
void emu_absent_ops_init(struct emu_context *ectx);

/* Port attributes, shared by ibv_query_port and the extended query_port. */
int emu_query_port_attr(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
                        size_t size);

#endif /* EMU_ABI_CONTEXT_H */
