/* SPDX-License-Identifier: BSD-3-Clause */
/* doca_verbs_dev_open / _close: the device object every other object is made on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "verbs_internal.h"

doca_error_t doca_verbs_dev_open(struct ibv_pd *verbs_pd, doca_dev_t **net_dev)
{
    DGN_SDK_ROUTE(doca_verbs_dev_open, (verbs_pd, net_dev), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    struct mlx5dv_pd dv_pd = {0};
    struct mlx5dv_obj obj = {0};
    doca_dev_t *dev;
    doca_error_t err;
    int rc;

    if (verbs_pd == NULL || net_dev == NULL || verbs_pd->context == NULL) {
        DOCA_LOG_ERR("verbs_pd (%p, context %p) and net_dev (%p) must not be NULL: pass a PD "
                     "from ibv_alloc_pd()",
                     (void *)verbs_pd, verbs_pd != NULL ? (void *)verbs_pd->context : NULL,
                     (void *)net_dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    if (verbs_pd->context->device == NULL || !mlx5->is_supported(verbs_pd->context->device)) {
        DOCA_LOG_ERR("the PD's device is not an mlx5 device: DOCA Verbs needs a ConnectX NIC "
                     "(or softmlx5)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    dev = calloc(1, sizeof(*dev));
    if (dev == NULL) {
        DOCA_LOG_ERR("out of memory for the device object");
        return DOCA_ERROR_NO_MEMORY;
    }
    dev->pd = verbs_pd;
    dev->ctx = verbs_pd->context;
    obj.pd.in = verbs_pd;
    obj.pd.out = &dv_pd;
    rc = mlx5->init_obj(&obj, MLX5DV_OBJ_PD);
    if (rc != 0) {
        DOCA_LOG_ERR("mlx5dv_init_obj(PD) failed: %s (errno %d); the PD number is needed for "
                     "DevX objects",
                     strerror(rc), rc);
        err = DOCA_ERROR_DRIVER;
        goto free_dev;
    }
    dev->pdn = dv_pd.pdn;
    err = verbs_query_caps(dev->ctx, &dev->caps);
    if (err != DOCA_SUCCESS)
        goto free_dev;
    rc = mlx5->devx_query_eqn(dev->ctx, 0, &dev->eqn);
    if (rc != 0) {
        DOCA_LOG_ERR("mlx5dv_devx_query_eqn(vector 0) failed: %s (errno %d)", strerror(rc), rc);
        err = DOCA_ERROR_DRIVER;
        goto free_dev;
    }
    atomic_init(&dev->users, 0);
    DOCA_LOG_INFO("device %s opened: PD 0x%x, EQ %u", dev->ctx->device->name, dev->pdn, dev->eqn);
    *net_dev = dev;
    return DOCA_SUCCESS;

free_dev:
    free(dev);
    return err;
}

doca_error_t doca_verbs_dev_close(doca_dev_t *net_dev)
{
    DGN_SDK_ROUTE(doca_verbs_dev_close, (net_dev), DOCA_ERROR_NOT_SUPPORTED);

    int users;

    if (net_dev == NULL) {
        DOCA_LOG_ERR("net_dev is NULL: pass the device from doca_verbs_dev_open()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    users = atomic_load(&net_dev->users);
    if (users != 0) {
        DOCA_LOG_ERR("device still has %d objects (UMEMs, UARs, CQs, QPs); destroy them first",
                     users);
        return DOCA_ERROR_IN_USE;
    }
    free(net_dev);
    return DOCA_SUCCESS;
}
