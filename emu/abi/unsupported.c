/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exported entry points of rdma-core's libraries that softmlx5 does not
 * implement. They are defined without rdma-core's prototypes (this file does
 * not include verbs.h): callers' arguments are ignored, and the return value
 * is NULL for calls returning a pointer, EOPNOTSUPP for calls returning an
 * int, nothing for calls returning void.
 */
#include "abi/unsupported.h"

#include <errno.h>
#include <stddef.h>

#include "common/emu_log.h"

void emu_unsupported(const char *call)
{
    EMU_LOG_ERR("%s is not supported by softmlx5", call);
    errno = EOPNOTSUPP;
}

#define UNSUPPORTED_PTR(name)  EMU_UNSUPPORTED_CALL(void *, name, NULL)
#define UNSUPPORTED_INT(name)  EMU_UNSUPPORTED_CALL(int, name, EOPNOTSUPP)
#define UNSUPPORTED_VOID(name) EMU_UNSUPPORTED_VOID_CALL(name)

/* libibverbs: path records and kernel-format copies (kernel ABI helpers). */
UNSUPPORTED_VOID(ibv_copy_path_rec_from_kern)
UNSUPPORTED_VOID(ibv_copy_path_rec_to_kern)
UNSUPPORTED_VOID(ibv_copy_qp_attr_from_kern)
UNSUPPORTED_VOID(ibv_copy_ah_attr_from_kern)
/* libibverbs: multicast, L2 resolution. */
UNSUPPORTED_INT(ibv_attach_mcast)
UNSUPPORTED_INT(ibv_detach_mcast)
UNSUPPORTED_INT(ibv_resolve_eth_l2_from_gid)
/* libibverbs: re-registration, CQ resize, ECE, object import across processes. */
UNSUPPORTED_INT(ibv_rereg_mr)
UNSUPPORTED_INT(ibv_resize_cq)
UNSUPPORTED_INT(ibv_query_ece)
UNSUPPORTED_INT(ibv_set_ece)
UNSUPPORTED_PTR(ibv_import_device)
UNSUPPORTED_PTR(ibv_import_pd)
UNSUPPORTED_VOID(ibv_unimport_pd)
UNSUPPORTED_PTR(ibv_import_mr)
UNSUPPORTED_VOID(ibv_unimport_mr)
UNSUPPORTED_PTR(ibv_import_dm)
UNSUPPORTED_VOID(ibv_unimport_dm)
UNSUPPORTED_INT(ibv_query_qp_data_in_order)
