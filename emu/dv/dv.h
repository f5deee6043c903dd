/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's libmlx5.so.1: mlx5 direct verbs and DevX over the device model
 * in libibverbs.so.1 (reached through its SOFTMLX5_PRIVATE emu_* calls).
 */
#ifndef EMU_DV_H
#define EMU_DV_H

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "abi/context.h"
#include "devx/devx.h"

#define DV_EXPORT __attribute__((visibility("default")))

/* The object handle: which object the CREATE command made, so that destroy can unmake it. */
struct mlx5dv_devx_obj {
    struct ibv_context *context;
    struct emu_nic *nic;
    enum emu_devx_obj type;
    uint32_t id;
};

/* The device behind a context from our libibverbs, or NULL (errno EINVAL, logged with `call`). */
struct emu_nic *dv_nic_of(struct ibv_context *ctx, const char *call);

/*
 * The UAR page that standard-verbs CQs and QPs of a device expose through
 * mlx5dv_init_obj (allocated on first use, kept for the process); NULL
 * when no page could be allocated.
 */
struct emu_uar *dv_shared_uar(struct emu_nic *nic);

#endif /* EMU_DV_H */
