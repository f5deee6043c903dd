/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5dv_devx_umem_reg, mlx5dv_devx_umem_reg_ex, mlx5dv_devx_umem_dereg. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/emu_log.h"
#include "dv/dv.h"
#include "nic/mem.h"
#include "nic/umem.h"

#define DV_UMEM_ACCESS_SUPPORTED                                                 \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING)

struct dv_umem {
    struct mlx5dv_devx_umem pub; /* what the program holds */
    struct emu_umem *umem;
};

static struct mlx5dv_devx_umem *dv_umem_reg(struct ibv_context *context, const char *call,
                                            uintptr_t addr, size_t size, uint32_t access, bool gpu)
{
    struct emu_nic *nic = dv_nic_of(context, call);
    struct dv_umem *u;
    int err;

    if (nic == NULL)
        return NULL;
    if (access & ~(uint32_t)DV_UMEM_ACCESS_SUPPORTED) {
        EMU_LOG_ERR("%s: access flags 0x%x include unsupported bits 0x%x", call, access,
                    access & ~(uint32_t)DV_UMEM_ACCESS_SUPPORTED);
        errno = EINVAL;
        return NULL;
    }
    u = calloc(1, sizeof(*u));
    if (u == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    err = emu_umem_register(nic, addr, size, access, gpu, &u->umem);
    if (err != 0) {
        EMU_LOG_ERR("%s: cannot register %zu bytes at 0x%lx with access 0x%x: %s", call, size,
                    (unsigned long)addr, access,
                    err == EINVAL   ? "empty, null or wrapping range"
                    : err == EFAULT ? "some page is not mapped, or not readable (writable, for a "
                                      "writable registration) in this process (EFAULT)"
                                    : "out of umem ids");
        free(u);
        errno = err;
        return NULL;
    }
    u->pub.umem_id = u->umem->id;
    return &u->pub;
}

DV_EXPORT struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *context, void *addr,
                                                        size_t size, uint32_t access)
{
    return dv_umem_reg(context, "mlx5dv_devx_umem_reg", (uintptr_t)addr, size, access,
                       emu_mem_is_gpu((uintptr_t)addr));
}

/*
 * With a dma-buf, the file descriptor names the exporter's buffer but not
 * its address in this process: as for ibv_reg_dmabuf_mr, addr must be the
 * GPU virtual address of the registered range.
 */
DV_EXPORT struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx,
                                                           struct mlx5dv_devx_umem_in *in)
{
    struct stat st;

    if (in == NULL || (in->comp_mask & ~(uint64_t)MLX5DV_UMEM_MASK_DMABUF)) {
        EMU_LOG_ERR("mlx5dv_devx_umem_reg_ex: unsupported comp_mask 0x%llx",
                    in != NULL ? (unsigned long long)in->comp_mask : 0ULL);
        errno = EINVAL;
        return NULL;
    }
    if (!(in->comp_mask & MLX5DV_UMEM_MASK_DMABUF))
        return dv_umem_reg(ctx, "mlx5dv_devx_umem_reg_ex", (uintptr_t)in->addr, in->size,
                           in->access, emu_mem_is_gpu((uintptr_t)in->addr));
    if (in->dmabuf_fd < 0 || fstat(in->dmabuf_fd, &st) != 0) {
        EMU_LOG_ERR("mlx5dv_devx_umem_reg_ex: dmabuf_fd %d is not an open file descriptor",
                    in->dmabuf_fd);
        errno = EBADF;
        return NULL;
    }
    if (!emu_mem_is_gpu((uintptr_t)in->addr)) {
        EMU_LOG_ERR("mlx5dv_devx_umem_reg_ex: addr %p with dmabuf_fd %d is not GPU memory; "
                    "pass the GPU address of the exported range as addr",
                    in->addr, in->dmabuf_fd);
        errno = EINVAL;
        return NULL;
    }
    return dv_umem_reg(ctx, "mlx5dv_devx_umem_reg_ex", (uintptr_t)in->addr, in->size, in->access,
                       true);
}

DV_EXPORT int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *dv_umem)
{
    struct dv_umem *u = (struct dv_umem *)dv_umem;
    int err;

    if (dv_umem == NULL)
        return errno = EINVAL;
    err = emu_umem_deregister(u->umem);
    if (err != 0) {
        EMU_LOG_ERR("mlx5dv_devx_umem_dereg: umem %u still holds a ring or doorbell record of "
                    "a CQ or QP; destroy those first",
                    dv_umem->umem_id);
        return errno = err;
    }
    free(u);
    return 0;
}
