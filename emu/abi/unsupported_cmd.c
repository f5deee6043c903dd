/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core's kernel command layer (IBVERBS_PRIVATE_34): the ibv_cmd_* calls
 * and execute_ioctl, through which providers reach the uverbs kernel driver.
 * softmlx5 has no kernel driver behind it, so each fails cleanly: one log
 * line naming the call, errno EOPNOTSUPP, and EOPNOTSUPP returned (every one
 * of them returns an error number). Arguments are not declared (see
 * unsupported.h).
 */
#include <errno.h>
#include <stddef.h>

#include "abi/unsupported.h"

#define UNSUPPORTED_CMD(name) EMU_UNSUPPORTED_CALL(int, name, EOPNOTSUPP)

UNSUPPORTED_CMD(execute_ioctl)
UNSUPPORTED_CMD(ibv_cmd_advise_mr)
UNSUPPORTED_CMD(ibv_cmd_alloc_dm)
UNSUPPORTED_CMD(ibv_cmd_alloc_mw)
UNSUPPORTED_CMD(ibv_cmd_alloc_pd)
UNSUPPORTED_CMD(ibv_cmd_attach_mcast)
UNSUPPORTED_CMD(ibv_cmd_close_xrcd)
UNSUPPORTED_CMD(ibv_cmd_create_ah)
UNSUPPORTED_CMD(ibv_cmd_create_counters)
UNSUPPORTED_CMD(ibv_cmd_create_cq)
UNSUPPORTED_CMD(ibv_cmd_create_cq_ex)
UNSUPPORTED_CMD(ibv_cmd_create_flow)
UNSUPPORTED_CMD(ibv_cmd_create_flow_action_esp)
UNSUPPORTED_CMD(ibv_cmd_create_qp)
UNSUPPORTED_CMD(ibv_cmd_create_qp_ex)
UNSUPPORTED_CMD(ibv_cmd_create_qp_ex2)
UNSUPPORTED_CMD(ibv_cmd_create_rwq_ind_table)
UNSUPPORTED_CMD(ibv_cmd_create_srq)
UNSUPPORTED_CMD(ibv_cmd_create_srq_ex)
UNSUPPORTED_CMD(ibv_cmd_create_wq)
UNSUPPORTED_CMD(ibv_cmd_dealloc_mw)
UNSUPPORTED_CMD(ibv_cmd_dealloc_pd)
UNSUPPORTED_CMD(ibv_cmd_dereg_mr)
UNSUPPORTED_CMD(ibv_cmd_destroy_ah)
UNSUPPORTED_CMD(ibv_cmd_destroy_counters)
UNSUPPORTED_CMD(ibv_cmd_destroy_cq)
UNSUPPORTED_CMD(ibv_cmd_destroy_flow)
UNSUPPORTED_CMD(ibv_cmd_destroy_flow_action)
UNSUPPORTED_CMD(ibv_cmd_destroy_qp)
UNSUPPORTED_CMD(ibv_cmd_destroy_rwq_ind_table)
UNSUPPORTED_CMD(ibv_cmd_destroy_srq)
UNSUPPORTED_CMD(ibv_cmd_destroy_wq)
UNSUPPORTED_CMD(ibv_cmd_detach_mcast)
UNSUPPORTED_CMD(ibv_cmd_free_dm)
UNSUPPORTED_CMD(ibv_cmd_get_context)
UNSUPPORTED_CMD(ibv_cmd_modify_cq)
UNSUPPORTED_CMD(ibv_cmd_modify_flow_action_esp)
UNSUPPORTED_CMD(ibv_cmd_modify_qp)
UNSUPPORTED_CMD(ibv_cmd_modify_qp_ex)
UNSUPPORTED_CMD(ibv_cmd_modify_srq)
UNSUPPORTED_CMD(ibv_cmd_modify_wq)
UNSUPPORTED_CMD(ibv_cmd_open_qp)
UNSUPPORTED_CMD(ibv_cmd_open_xrcd)
UNSUPPORTED_CMD(ibv_cmd_poll_cq)
UNSUPPORTED_CMD(ibv_cmd_post_recv)
UNSUPPORTED_CMD(ibv_cmd_post_send)
UNSUPPORTED_CMD(ibv_cmd_post_srq_recv)
UNSUPPORTED_CMD(ibv_cmd_query_context)
UNSUPPORTED_CMD(ibv_cmd_query_device_any)
UNSUPPORTED_CMD(ibv_cmd_query_mr)
UNSUPPORTED_CMD(ibv_cmd_query_port)
UNSUPPORTED_CMD(ibv_cmd_query_qp)
UNSUPPORTED_CMD(ibv_cmd_query_srq)
UNSUPPORTED_CMD(ibv_cmd_read_counters)
UNSUPPORTED_CMD(ibv_cmd_reg_dm_mr)
UNSUPPORTED_CMD(ibv_cmd_reg_dmabuf_mr)
UNSUPPORTED_CMD(ibv_cmd_reg_mr)
UNSUPPORTED_CMD(ibv_cmd_req_notify_cq)
UNSUPPORTED_CMD(ibv_cmd_rereg_mr)
UNSUPPORTED_CMD(ibv_cmd_resize_cq)
