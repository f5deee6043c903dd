/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Data Direct calls of libmlx5 (MLX5_1.25), looked up by version as
 * programs that support several rdma-core releases do (dlvsym):
 *   test_dv_data_direct absent    a NIC without a Data Direct device: the
 *                                 path is ENODEV, a Data Direct dma-buf
 *                                 registration EOPNOTSUPP
 *   test_dv_data_direct present   SOFTMLX5_DATA_DIRECT=1: the path names the
 *                                 device, ENOSPC when it does not fit; the
 *                                 registration goes on to ibv_reg_dmabuf_mr,
 *                                 which refuses a descriptor that is not open
 * Both: an unknown mlx5_access bit is EINVAL.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devx_test.h"

typedef int (*dd_path_fn)(struct ibv_context *, char *, size_t);
typedef struct ibv_mr *(*dd_reg_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int, int);

int main(int argc, char **argv)
{
    int present = argc > 1 && strcmp(argv[1], "present") == 0;
    struct ibv_context *ctx = dt_open();
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    dd_path_fn path_of =
            (dd_path_fn)dlvsym(RTLD_DEFAULT, "mlx5dv_get_data_direct_sysfs_path", "MLX5_1.25");
    dd_reg_fn reg = (dd_reg_fn)dlvsym(RTLD_DEFAULT, "mlx5dv_reg_dmabuf_mr", "MLX5_1.25");
    char buf[256];
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

    DT_CHECK(pd != NULL && path_of != NULL && reg != NULL);
    memset(buf, 0, sizeof(buf));
    if (present) {
        DT_CHECK(path_of(ctx, buf, sizeof(buf)) == 0);
        DT_CHECK(strstr(buf, "/data_direct") != NULL &&
                 strstr(buf, ibv_get_device_name(ctx->device)) != NULL);
        DT_CHECK(path_of(ctx, buf, 8) == ENOSPC);
        errno = 0;
        DT_CHECK(reg(pd, 0, 4096, 0x1000, -1, access, 1) == NULL && errno == EBADF);
    } else {
        DT_CHECK(path_of(ctx, buf, sizeof(buf)) == ENODEV);
        errno = 0;
        DT_CHECK(reg(pd, 0, 4096, 0x1000, -1, access, 1) == NULL && errno == EOPNOTSUPP);
    }
    errno = 0;
    DT_CHECK(reg(pd, 0, 4096, 0x1000, -1, access, 2) == NULL && errno == EINVAL);
    DT_CHECK(path_of(NULL, buf, sizeof(buf)) == EINVAL);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    printf("data direct (%s): passed\n", present ? "present" : "absent");
    return 0;
}
