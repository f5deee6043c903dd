/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5dv_is_supported, mlx5dv_open_device, mlx5dv_query_device. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "nic/uar.h"

/* The mlx5dv_context answers this device gives (comp_mask bits it fills). */
#define DV_CONTEXT_MASK_SUPPORTED \
    (MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_DYN_BFREGS)
#define DV_CQE_VERSION 1

struct emu_nic *dv_nic_of(struct ibv_context *ctx, const char *call)
{
    if (ctx == NULL || !emu_context_is_ours(ctx)) {
        EMU_LOG_ERR("%s: context %p was not opened on a softmlx5 device", call, (void *)ctx);
        errno = EINVAL;
        return NULL;
    }
    return emu_nic_of_ctx(ctx);
}

static pthread_mutex_t dv_shared_lock = PTHREAD_MUTEX_INITIALIZER;

struct emu_uar *dv_shared_uar(struct emu_nic *nic)
{
    struct emu_uar *uar;

    pthread_mutex_lock(&dv_shared_lock);
    if (nic->dv_shared_uar == NULL && emu_uar_alloc(nic, &uar) == 0)
        nic->dv_shared_uar = uar;
    uar = nic->dv_shared_uar;
    pthread_mutex_unlock(&dv_shared_lock);
    return uar;
}

DV_EXPORT bool mlx5dv_is_supported(struct ibv_device *device)
{
    return device != NULL && emu_nic_owns_device(device);
}

DV_EXPORT struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
                                                 struct mlx5dv_context_attr *attr)
{
    if (attr != NULL && (attr->comp_mask != 0 || (attr->flags & ~MLX5DV_CONTEXT_FLAGS_DEVX))) {
        EMU_LOG_ERR("mlx5dv_open_device: flags 0x%x / comp_mask 0x%llx: only "
                    "MLX5DV_CONTEXT_FLAGS_DEVX is supported",
                    attr->flags, (unsigned long long)attr->comp_mask);
        errno = EOPNOTSUPP;
        return NULL;
    }
    return ibv_open_device(device);
}

DV_EXPORT int mlx5dv_query_device(struct ibv_context *ctx, struct mlx5dv_context *attrs)
{
    uint64_t requested;

    if (attrs == NULL || dv_nic_of(ctx, "mlx5dv_query_device") == NULL)
        return EINVAL;
    requested = attrs->comp_mask;
    attrs->version = DV_CQE_VERSION;
    attrs->flags = MLX5DV_CONTEXT_FLAGS_CQE_V1;
    attrs->comp_mask = requested & DV_CONTEXT_MASK_SUPPORTED;
    if (requested & MLX5DV_CONTEXT_MASK_CQE_COMPRESION)
        memset(&attrs->cqe_comp_caps, 0, sizeof(attrs->cqe_comp_caps)); /* no compression */
    if (requested & MLX5DV_CONTEXT_MASK_DYN_BFREGS)
        attrs->max_dynamic_bfregs = 1u << EMU_LOG_MAX_UAR;
    return 0;
}
