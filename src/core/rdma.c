/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdma.h"

#include <pthread.h>

#include "dl.h"
#include "log.h"

static struct core_ibv_ops ibv_ops;
static struct core_mlx5dv_ops mlx5_ops;

#define IBV_ENTRY(name)    {"ibv_" #name, (void **)&ibv_ops.name, false},
#define MLX5DV_ENTRY(name) {"mlx5dv_" #name, (void **)&mlx5_ops.name, false},
static const struct core_dl_symbol ibv_symbols[] = {CORE_IBV_SYMBOLS(IBV_ENTRY)};
static const struct core_dl_symbol mlx5_symbols[] = {CORE_MLX5DV_SYMBOLS(MLX5DV_ENTRY)};
#undef IBV_ENTRY
#undef MLX5DV_ENTRY

#define RDMA_REMEDY                                                                       \
    "install rdma-core (Debian: libibverbs1 ibverbs-providers) or run the program under " \
    "softmlx5-run"

static const struct core_dl_library ibv_library = {
        .what = "rdma-core verbs",
        .soname = "libibverbs.so.1",
        .env = CORE_LIBIBVERBS_ENV,
        .remedy = RDMA_REMEDY,
        .symbols = ibv_symbols,
        .symbol_count = sizeof(ibv_symbols) / sizeof(ibv_symbols[0]),
};

static const struct core_dl_library mlx5_library = {
        .what = "rdma-core mlx5 direct verbs",
        .soname = "libmlx5.so.1",
        .env = CORE_LIBMLX5_ENV,
        .remedy = RDMA_REMEDY,
        .symbols = mlx5_symbols,
        .symbol_count = sizeof(mlx5_symbols) / sizeof(mlx5_symbols[0]),
};

static pthread_once_t rdma_once = PTHREAD_ONCE_INIT;
static doca_error_t rdma_status;
static char rdma_reason[512];

static void rdma_load(void)
{
    void *ibv_handle = NULL;
    void *mlx5_handle = NULL;

    rdma_status = core_dl_load(&ibv_library, &ibv_handle, rdma_reason, sizeof(rdma_reason));
    if (rdma_status != DOCA_SUCCESS)
        return;
    rdma_status = core_dl_load(&mlx5_library, &mlx5_handle, rdma_reason, sizeof(rdma_reason));
    if (rdma_status != DOCA_SUCCESS)
        return; /* libibverbs stays loaded: unloading it is not safe once used by others */
    DOCA_LOG_DBG("rdma-core loaded from %s and %s", core_dl_file(&ibv_library),
                 core_dl_file(&mlx5_library));
}

doca_error_t core_rdma_get(const struct core_ibv_ops **ibv_out,
                           const struct core_mlx5dv_ops **mlx5_out)
{
    pthread_once(&rdma_once, rdma_load);
    if (rdma_status != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s", rdma_reason);
        return rdma_status;
    }
    if (ibv_out != NULL)
        *ibv_out = &ibv_ops;
    if (mlx5_out != NULL)
        *mlx5_out = &mlx5_ops;
    return DOCA_SUCCESS;
}

const char *core_rdma_unavailable_reason(void)
{
    pthread_once(&rdma_once, rdma_load);
    return rdma_status == DOCA_SUCCESS ? NULL : rdma_reason;
}
