/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data Direct, rdma-core's MLX5_1.25 calls: a NIC with a Data Direct
 * device (ConnectX-8) reaches GPU memory through that separate PCIe
 * function, and a dma-buf registration asks for it with
 * MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT. softmlx5 presents one when
 * SOFTMLX5_DATA_DIRECT=1, its sysfs path naming the softmlx5 device; it
 * moves data as it does for any registration. Otherwise it answers as a
 * NIC without one: the path is ENODEV, a Data Direct registration
 * EOPNOTSUPP. Debian 12's rdma-core (44) has neither call, so their
 * prototypes and flag are this file's, as rdma-core declares them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/nic.h"

/* rdma-core's enum mlx5dv_reg_dmabuf_access. */
#define DV_REG_DMABUF_ACCESS_DATA_DIRECT (1 << 0)

int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *context, char *buf, size_t buf_len);
struct ibv_mr *mlx5dv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
                                    uint64_t iova, int fd, int access, int mlx5_access);

/* Whether the devices present a Data Direct device (SOFTMLX5_DATA_DIRECT=1). */
static bool dv_data_direct(void)
{
    const char *v = getenv("SOFTMLX5_DATA_DIRECT");

    return v != NULL && strcmp(v, "1") == 0;
}

DV_EXPORT int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *context, char *buf,
                                                size_t buf_len)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_get_data_direct_sysfs_path");
    int n;

    if (nic == NULL)
        return EINVAL;
    if (buf == NULL) {
        EMU_LOG_ERR("mlx5dv_get_data_direct_sysfs_path: buf is NULL");
        return EINVAL;
    }
    if (!dv_data_direct())
        return ENODEV;
    n = snprintf(buf, buf_len, "/devices/virtual/softmlx5/%s/data_direct", nic->ibdev.name);
    if (n < 0 || (size_t)n >= buf_len) {
        EMU_LOG_ERR("mlx5dv_get_data_direct_sysfs_path: %zu bytes hold no path of %d", buf_len, n);
        return ENOSPC;
    }
    return 0;
}

DV_EXPORT struct ibv_mr *mlx5dv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
                                              uint64_t iova, int fd, int access, int mlx5_access)
{
    if ((mlx5_access & ~DV_REG_DMABUF_ACCESS_DATA_DIRECT) != 0) {
        EMU_LOG_ERR("mlx5dv_reg_dmabuf_mr: mlx5_access 0x%x: only "
                    "MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT (0x1) is known",
                    (unsigned int)mlx5_access);
        errno = EINVAL;
        return NULL;
    }
    if ((mlx5_access & DV_REG_DMABUF_ACCESS_DATA_DIRECT) && !dv_data_direct()) {
        EMU_LOG_DBG("mlx5dv_reg_dmabuf_mr: this device has no Data Direct device "
                    "(softmlx5 presents one with SOFTMLX5_DATA_DIRECT=1)");
        errno = EOPNOTSUPP;
        return NULL;
    }
    return ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access);
}
