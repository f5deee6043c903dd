/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5dv_devx_alloc_uar, mlx5dv_devx_free_uar: doorbell pages watched by the device. */
#include <errno.h>
#include <stdlib.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/caps.h"
#include "nic/uar.h"

#define DV_UAR_ALLOC_TYPE_LAST 0x2 /* MLX5DV_UAR_ALLOC_TYPE_NC_DEDICATED */

struct dv_uar {
    struct mlx5dv_devx_uar pub; /* what the program holds */
    struct emu_uar *uar;
};

DV_EXPORT struct mlx5dv_devx_uar *mlx5dv_devx_alloc_uar(struct ibv_context *context, uint32_t flags)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_devx_alloc_uar");
    struct dv_uar *u;
    int err;

    if (nic == NULL)
        return NULL;
    /* BF, NC or NC_DEDICATED: every software UAR page serves all three. */
    if (flags > DV_UAR_ALLOC_TYPE_LAST) {
        EMU_LOG_ERR("mlx5dv_devx_alloc_uar: unknown allocation type 0x%x", flags);
        errno = EINVAL;
        return NULL;
    }
    u = calloc(1, sizeof(*u));
    if (u == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    err = emu_uar_alloc(nic, &u->uar);
    if (err != 0) {
        free(u);
        errno = err;
        return NULL;
    }
    u->pub.base_addr = u->uar->page;
    u->pub.reg_addr = (uint8_t *)u->uar->page + EMU_UAR_SQ_DB_OFFSET;
    u->pub.page_id = u->uar->page_id;
    u->pub.mmap_off = (off_t)u->uar->page_id << EMU_LOG_PAGE_SIZE;
    u->pub.comp_mask = 0;
    return &u->pub;
}

DV_EXPORT void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *dv_devx_uar)
{
    struct dv_uar *u = (struct dv_uar *)dv_devx_uar;

    if (u == NULL)
        return;
    emu_uar_free(u->uar);
    free(u);
}
