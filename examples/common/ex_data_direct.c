/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_data_direct.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ex_common.h"
#include "ex_gpu.h"

/* rdma-core's MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT. */
#define EX_DD_ACCESS_DATA_DIRECT (1 << 0)

typedef int (*ex_dd_path_fn)(struct ibv_context *, char *, size_t);
typedef struct ibv_mr *(*ex_dd_reg_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int, int);

static ex_dd_path_fn ex_dd_path;
static ex_dd_reg_fn ex_dd_reg_dmabuf;

/* The two MLX5_1.25 calls from the process's libmlx5 (softmlx5's under its launcher). */
static int ex_dd_resolve(void)
{
    void *lib = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_GLOBAL);

    if (lib == NULL) {
        EX_ERR("-z 1: cannot open libmlx5.so.1 (%s)", dlerror());
        return -1;
    }
    ex_dd_path = (ex_dd_path_fn)dlvsym(lib, "mlx5dv_get_data_direct_sysfs_path", "MLX5_1.25");
    ex_dd_reg_dmabuf = (ex_dd_reg_fn)dlvsym(lib, "mlx5dv_reg_dmabuf_mr", "MLX5_1.25");
    if (ex_dd_path == NULL || ex_dd_reg_dmabuf == NULL) {
        EX_ERR("-z 1: this libmlx5 has no Data Direct calls (mlx5dv_get_data_direct_sysfs_path "
               "and mlx5dv_reg_dmabuf_mr of MLX5_1.25, rdma-core 54 or newer)");
        return -1;
    }
    return 0;
}

int ex_dd_check(struct ibv_context *ctx, const char *dev_name)
{
    char path[256];
    char why[160];
    int rc;

    if (ex_dd_resolve() != 0)
        return -1;
    rc = ex_dd_path(ctx, path, sizeof(path));
    if (rc != 0) {
        EX_ERR("-z 1: %s has no Data Direct device (%s); run without -z 1 (softmlx5 presents "
               "one with SOFTMLX5_DATA_DIRECT=1)",
               dev_name, strerror(rc));
        return -1;
    }
    if (ex_gpu_dmabuf_pcie_supported(why, sizeof(why)) != 0) {
        EX_ERR("-z 1: %s", why);
        return -1;
    }
    EX_INFO("Data Direct device of %s: /sys%s", dev_name, path);
    return 0;
}

struct ibv_mr *ex_dd_reg(struct ibv_pd *pd, void *addr, size_t len, int access)
{
    struct ibv_mr *mr;
    int fd = -1;

    if (ex_gpu_dmabuf_pcie_fd(addr, len, &fd) != 0)
        return NULL;
    mr = ex_dd_reg_dmabuf(pd, 0, len, (uint64_t)(uintptr_t)addr, fd, access,
                          EX_DD_ACCESS_DATA_DIRECT);
    if (mr == NULL)
        EX_ERR("-z 1: mlx5dv_reg_dmabuf_mr of %zu bytes of GPU memory through the Data Direct "
               "device: %s",
               len, strerror(errno));
    close(fd);
    return mr;
}
