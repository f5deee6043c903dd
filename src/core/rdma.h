/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core, reached through function pointers resolved at run time.
 * The rest of the project calls `ibv->open_device(...)` and
 * `mlx5->devx_obj_create(...)` on the tables returned by core_rdma_get(),
 * never the rdma-core symbols themselves, so the library loads on machines
 * without rdma-core. Members drop the ibv_/mlx5dv_ prefix so that rdma-core's
 * function-like macros (ibv_reg_mr, ibv_query_port) never rewrite them.
 */
#ifndef CORE_RDMA_H
#define CORE_RDMA_H

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "doca_error.h"

/* X(member): member is the symbol's name without "ibv_". */
#define CORE_IBV_SYMBOLS(X) \
    X(get_device_list)      \
    X(free_device_list)     \
    X(get_device_name)      \
    X(open_device)          \
    X(close_device)         \
    X(query_device)         \
    X(query_port)           \
    X(query_gid)            \
    X(alloc_pd)             \
    X(dealloc_pd)           \
    X(reg_mr)               \
    X(reg_mr_iova2)         \
    X(reg_dmabuf_mr)        \
    X(dereg_mr)             \
    X(create_comp_channel)  \
    X(destroy_comp_channel) \
    X(create_cq)            \
    X(destroy_cq)

/* X(member): member is the symbol's name without "mlx5dv_". */
#define CORE_MLX5DV_SYMBOLS(X)    \
    X(is_supported)               \
    X(open_device)                \
    X(query_device)               \
    X(init_obj)                   \
    X(devx_general_cmd)           \
    X(devx_obj_create)            \
    X(devx_obj_modify)            \
    X(devx_obj_query)             \
    X(devx_obj_destroy)           \
    X(devx_umem_reg)              \
    X(devx_umem_reg_ex)           \
    X(devx_umem_dereg)            \
    X(devx_alloc_uar)             \
    X(devx_free_uar)              \
    X(devx_query_eqn)             \
    X(devx_create_event_channel)  \
    X(devx_destroy_event_channel) \
    X(devx_subscribe_devx_event)  \
    X(devx_get_event)             \
    X(create_flow_matcher)        \
    X(destroy_flow_matcher)       \
    X(create_flow)

#define CORE_IBV_MEMBER(name)    __typeof__(&ibv_##name) name;
#define CORE_MLX5DV_MEMBER(name) __typeof__(&mlx5dv_##name) name;

struct core_ibv_ops {
    CORE_IBV_SYMBOLS(CORE_IBV_MEMBER)
};

struct core_mlx5dv_ops {
    CORE_MLX5DV_SYMBOLS(CORE_MLX5DV_MEMBER)
};

#undef CORE_IBV_MEMBER
#undef CORE_MLX5DV_MEMBER

/* Environment variables that name another file to load instead of the default soname. */
#define CORE_LIBIBVERBS_ENV "DOCA_GPUNETIO_LIBIBVERBS"
#define CORE_LIBMLX5_ENV    "DOCA_GPUNETIO_LIBMLX5"

/*
 * Loads libibverbs.so.1 and libmlx5.so.1 on first use (thread-safe) and
 * returns their tables. Returns DOCA_ERROR_NOT_SUPPORTED, after logging
 * which library or symbol is missing, when rdma-core cannot be used; the
 * outcome of the first attempt is kept for the life of the process.
 */
doca_error_t core_rdma_get(const struct core_ibv_ops **ibv_out,
                           const struct core_mlx5dv_ops **mlx5_out);

/* Why rdma-core is unusable (one line), or NULL when it loaded. */
const char *core_rdma_unavailable_reason(void);

#endif /* CORE_RDMA_H */
