/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program linked with the system's libefa.so.1 (a provider library, which
 * needs IBVERBS_PRIVATE_34's ibv_cmd_* and provider calls and registers
 * itself when loaded) starts on softmlx5, lists softmlx5's devices, and
 * libefa's direct verb refuses a device that is not EFA's. Linked with
 * immediate binding (-z now), so every symbol libefa needs resolves at start.
 */
#include <infiniband/efadv.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    struct efadv_device_attr attr;
    struct ibv_device **list;
    struct ibv_context *ctx;
    int n = 0, err;

    list = ibv_get_device_list(&n);
    if (list == NULL || n < 1 || strcmp(ibv_get_device_name(list[0]), "mlx5_0") != 0) {
        fprintf(stderr, "softmlx5's device is not listed\n");
        return 1;
    }
    ctx = ibv_open_device(list[0]);
    if (ctx == NULL) {
        fprintf(stderr, "ibv_open_device failed\n");
        return 1;
    }
    memset(&attr, 0, sizeof(attr));
    err = efadv_query_device(ctx, &attr, sizeof(attr));
    printf("%d device(s), %s; efadv_query_device: %d\n", n, ibv_get_device_name(list[0]), err);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return err != 0 ? 0 : 1;
}
