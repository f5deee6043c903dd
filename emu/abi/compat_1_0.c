/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IBVERBS_1.0 versions of the calls rdma-core keeps for programs linked
 * against libibverbs 1.0 (before 2006), whose structures were laid out
 * differently (ibv_create_qp@IBVERBS_1.0 and so on; programs linked since
 * bind the IBVERBS_1.1 versions). softmlx5 does not translate that layout:
 * each fails cleanly, logging "<call>@IBVERBS_1.0 is not supported by
 * softmlx5", with errno EOPNOTSUPP and the call's error value.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/unsupported.h"

#define COMPAT_1_0(type, name, value)                                    \
    __attribute__((visibility("default"))) type compat_1_0_##name(void); \
    type compat_1_0_##name(void)                                         \
    {                                                                    \
        emu_unsupported(#name "@IBVERBS_1.0");                           \
        return value;                                                    \
    }                                                                    \
    __asm__(".symver compat_1_0_" #name ", " #name "@IBVERBS_1.0");

#define COMPAT_1_0_VOID(name)                                            \
    __attribute__((visibility("default"))) void compat_1_0_##name(void); \
    void compat_1_0_##name(void)                                         \
    {                                                                    \
        emu_unsupported(#name "@IBVERBS_1.0");                           \
    }                                                                    \
    __asm__(".symver compat_1_0_" #name ", " #name "@IBVERBS_1.0");

/* Calls returning an object: NULL. */
COMPAT_1_0(void *, ibv_get_device_list, NULL)
COMPAT_1_0(void *, ibv_get_device_name, NULL)
COMPAT_1_0(void *, ibv_open_device, NULL)
COMPAT_1_0(void *, ibv_alloc_pd, NULL)
COMPAT_1_0(void *, ibv_reg_mr, NULL)
COMPAT_1_0(void *, ibv_create_cq, NULL)
COMPAT_1_0(void *, ibv_create_srq, NULL)
COMPAT_1_0(void *, ibv_create_qp, NULL)
COMPAT_1_0(void *, ibv_create_ah, NULL)
/* The GUID: 0. */
COMPAT_1_0(uint64_t, ibv_get_device_guid, 0)
/* Calls returning -1 on failure in rdma-core. */
COMPAT_1_0(int, ibv_get_async_event, -1)
COMPAT_1_0(int, ibv_get_cq_event, -1)
COMPAT_1_0(int, ibv_query_gid, -1)
COMPAT_1_0(int, ibv_query_pkey, -1)
/* Calls returning an error number. */
COMPAT_1_0(int, ibv_close_device, EOPNOTSUPP)
COMPAT_1_0(int, ibv_query_device, EOPNOTSUPP)
COMPAT_1_0(int, ibv_query_port, EOPNOTSUPP)
COMPAT_1_0(int, ibv_dealloc_pd, EOPNOTSUPP)
COMPAT_1_0(int, ibv_dereg_mr, EOPNOTSUPP)
COMPAT_1_0(int, ibv_destroy_cq, EOPNOTSUPP)
COMPAT_1_0(int, ibv_resize_cq, EOPNOTSUPP)
COMPAT_1_0(int, ibv_modify_srq, EOPNOTSUPP)
COMPAT_1_0(int, ibv_query_srq, EOPNOTSUPP)
COMPAT_1_0(int, ibv_destroy_srq, EOPNOTSUPP)
COMPAT_1_0(int, ibv_modify_qp, EOPNOTSUPP)
COMPAT_1_0(int, ibv_query_qp, EOPNOTSUPP)
COMPAT_1_0(int, ibv_destroy_qp, EOPNOTSUPP)
COMPAT_1_0(int, ibv_destroy_ah, EOPNOTSUPP)
COMPAT_1_0(int, ibv_attach_mcast, EOPNOTSUPP)
COMPAT_1_0(int, ibv_detach_mcast, EOPNOTSUPP)
/* Calls returning nothing. */
COMPAT_1_0_VOID(ibv_free_device_list)
COMPAT_1_0_VOID(ibv_ack_async_event)
COMPAT_1_0_VOID(ibv_ack_cq_events)
