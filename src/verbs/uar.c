/* SPDX-License-Identifier: BSD-3-Clause */
/* UAR pages (mlx5dv_devx_alloc_uar): where CQ and QP doorbells are rung. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "verbs_internal.h"

/* mlx5dv_devx_alloc_uar flags (rdma-core's MLX5DV_UAR_ALLOC_TYPE_*). */
#define VERBS_UAR_FLAG_BF           0x0
#define VERBS_UAR_FLAG_NC           0x1
#define VERBS_UAR_FLAG_NC_DEDICATED 0x2

/* Offset of the CQ doorbell (arm) register in a UAR page. */
#define VERBS_UAR_CQ_DB_OFFSET 0x20

static doca_error_t verbs_uar_alloc(doca_dev_t *dev, enum doca_verbs_uar_allocation_type type,
                                    doca_verbs_uar_t **out)
{
    const struct core_mlx5dv_ops *mlx5;
    doca_verbs_uar_t *uar;
    uint32_t flags;
    doca_error_t err = verbs_rdma(NULL, &mlx5);

    if (err != DOCA_SUCCESS)
        return err;
    switch (type) {
    case DOCA_VERBS_UAR_ALLOCATION_TYPE_BLUEFLAME:
        flags = VERBS_UAR_FLAG_BF;
        break;
    case DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE:
        flags = VERBS_UAR_FLAG_NC;
        break;
    case DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED:
        flags = VERBS_UAR_FLAG_NC_DEDICATED;
        break;
    default:
        DOCA_LOG_ERR("allocation_type %d is unknown: use BLUEFLAME, NONCACHE or "
                     "NONCACHE_DEDICATED",
                     (int)type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    uar = calloc(1, sizeof(*uar));
    if (uar == NULL) {
        DOCA_LOG_ERR("out of memory for a UAR object");
        return DOCA_ERROR_NO_MEMORY;
    }
    errno = 0;
    uar->uar = mlx5->devx_alloc_uar(dev->ctx, flags);
    if (uar->uar == NULL) {
        int e = errno != 0 ? errno : EIO;

        DOCA_LOG_ERR("mlx5dv_devx_alloc_uar(type %d) failed: %s (errno %d)", (int)type, strerror(e),
                     e);
        free(uar);
        return DOCA_ERROR_DRIVER;
    }
    uar->dev = dev;
    uar->type = type;
    atomic_init(&uar->users, 0);
    verbs_dev_hold(dev);
    *out = uar;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_uar_create(doca_dev_t *net_dev,
                                   enum doca_verbs_uar_allocation_type allocation_type,
                                   doca_verbs_uar_t **uar_obj)
{
    DGN_SDK_ROUTE(doca_verbs_uar_create, (net_dev, allocation_type, uar_obj),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (net_dev == NULL || uar_obj == NULL) {
        DOCA_LOG_ERR("net_dev (%p) and uar_obj (%p) must not be NULL", (void *)net_dev,
                     (void *)uar_obj);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return verbs_uar_alloc(net_dev, allocation_type, uar_obj);
}

doca_error_t doca_verbs_uar_destroy(doca_verbs_uar_t *uar_obj)
{
    DGN_SDK_ROUTE(doca_verbs_uar_destroy, (uar_obj), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err;
    int users;

    if (uar_obj == NULL) {
        DOCA_LOG_ERR("uar_obj is NULL: pass the UAR doca_verbs_uar_create() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    users = atomic_load(&uar_obj->users);
    if (users != 0) {
        DOCA_LOG_ERR("UAR page %u still rings the doorbells of %d CQs/QPs; destroy them first",
                     uar_obj->uar->page_id, users);
        return DOCA_ERROR_IN_USE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    mlx5->devx_free_uar(uar_obj->uar);
    verbs_dev_put(uar_obj->dev);
    free(uar_obj);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_uar_id_get(const doca_verbs_uar_t *uar, uint32_t *id)
{
    DGN_SDK_ROUTE(doca_verbs_uar_id_get, (uar, id), DOCA_ERROR_NOT_SUPPORTED);

    if (uar == NULL || id == NULL) {
        DOCA_LOG_ERR("uar (%p) and id (%p) must not be NULL", (const void *)uar, (void *)id);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *id = uar->uar->page_id;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_uar_reg_addr_get(const doca_verbs_uar_t *uar_obj, void **reg_addr)
{
    DGN_SDK_ROUTE(doca_verbs_uar_reg_addr_get, (uar_obj, reg_addr), DOCA_ERROR_NOT_SUPPORTED);

    if (uar_obj == NULL || reg_addr == NULL) {
        DOCA_LOG_ERR("uar_obj (%p) and reg_addr (%p) must not be NULL", (const void *)uar_obj,
                     (void *)reg_addr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *reg_addr = uar_obj->uar->reg_addr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_uar_dbr_less_addr_get(const doca_verbs_uar_t *uar_obj, void **dbr_less_addr)
{
    DGN_SDK_ROUTE(doca_verbs_uar_dbr_less_addr_get, (uar_obj, dbr_less_addr),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (uar_obj == NULL || dbr_less_addr == NULL) {
        DOCA_LOG_ERR("uar_obj (%p) and dbr_less_addr (%p) must not be NULL", (const void *)uar_obj,
                     (void *)dbr_less_addr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!uar_obj->dev->caps.no_dbr_ext) {
        DOCA_LOG_ERR("the device has no send queues without doorbell record "
                     "(send_dbr_mode_no_dbr_ext is 0)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    /* A doorbell-record-less SQ is rung with its doorbell on the send register itself. */
    *dbr_less_addr = uar_obj->uar->reg_addr;
    return DOCA_SUCCESS;
}

doca_error_t verbs_uar_take(doca_dev_t *dev, doca_verbs_uar_t *external, doca_verbs_uar_t **uar,
                            bool *internal)
{
    doca_error_t err;

    if (external != NULL) {
        if (external->dev->ctx != dev->ctx) {
            DOCA_LOG_ERR("the external UAR belongs to another device context");
            return DOCA_ERROR_INVALID_VALUE;
        }
        atomic_fetch_add(&external->users, 1);
        *uar = external;
        *internal = false;
        return DOCA_SUCCESS;
    }
    err = verbs_uar_alloc(dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE, uar);
    if (err != DOCA_SUCCESS)
        return err;
    atomic_fetch_add(&(*uar)->users, 1);
    *internal = true;
    return DOCA_SUCCESS;
}

void verbs_uar_drop(doca_verbs_uar_t *uar, bool internal)
{
    if (uar == NULL)
        return;
    atomic_fetch_sub(&uar->users, 1);
    if (internal)
        doca_verbs_uar_destroy(uar);
}

void *verbs_uar_cq_db(const doca_verbs_uar_t *uar)
{
    return (uint8_t *)uar->uar->base_addr + VERBS_UAR_CQ_DB_OFFSET;
}
