/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library on a machine where rdma-core's mlx5 library cannot be loaded
 * (the test runs with DOCA_GPUNETIO_LIBMLX5 naming a file that does not
 * exist): it still loads, and a public call that needs mlx5 answers
 * DOCA_ERROR_NOT_SUPPORTED, its log line naming the missing library.
 */
#include <infiniband/verbs.h>
#include <stdio.h>

#include "doca_verbs.h"

int main(void)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
    struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
    doca_dev_t *dev = NULL;
    doca_error_t err;

    if (pd == NULL) {
        fprintf(stderr, "FAIL: no device to make a PD on\n");
        return 1;
    }
    err = doca_verbs_dev_open(pd, &dev);
    printf("doca_verbs_dev_open: %s\n", doca_error_get_name(err));
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return err == DOCA_ERROR_NOT_SUPPORTED && dev == NULL ? 0 : 1;
}
