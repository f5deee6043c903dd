/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 direct-verbs calls softmlx5 does not implement (steering, flow actions,
 * crypto, scheduling, VFIO, events, DV-created queues...). As in
 * abi/unsupported.c they are defined without rdma-core's prototypes; each
 * logs one line naming the call and fails with errno EOPNOTSUPP: NULL for
 * calls returning a pointer, EOPNOTSUPP for calls returning an error number,
 * -1 for calls returning a count or a file descriptor, nothing for void calls.
 */
#include <errno.h>
#include <stddef.h>

#include "abi/unsupported.h"

#define DV_EXPORT __attribute__((visibility("default")))

#define DV_UNSUPPORTED_PTR(name) \
    DV_EXPORT void *name(void);  \
    void *name(void)             \
    {                            \
        emu_unsupported(#name);  \
        return NULL;             \
    }
#define DV_UNSUPPORTED_INT(name) \
    DV_EXPORT int name(void);    \
    int name(void)               \
    {                            \
        emu_unsupported(#name);  \
        return EOPNOTSUPP;       \
    }
#define DV_UNSUPPORTED_NEG(name) \
    DV_EXPORT long name(void);   \
    long name(void)              \
    {                            \
        emu_unsupported(#name);  \
        return -1;               \
    }
#define DV_UNSUPPORTED_VOID(name) \
    DV_EXPORT void name(void);    \
    void name(void)               \
    {                             \
        emu_unsupported(#name);   \
    }

DV_UNSUPPORTED_INT(_mlx5dv_mkey_check)
DV_UNSUPPORTED_INT(_mlx5dv_query_port)
DV_UNSUPPORTED_PTR(mlx5dv_alloc_dm)
DV_UNSUPPORTED_PTR(mlx5dv_alloc_var)
DV_UNSUPPORTED_PTR(mlx5dv_create_cq)
DV_UNSUPPORTED_PTR(mlx5dv_create_flow)
DV_UNSUPPORTED_PTR(mlx5dv_create_flow_action_esp)
DV_UNSUPPORTED_PTR(mlx5dv_create_flow_action_modify_header)
DV_UNSUPPORTED_PTR(mlx5dv_create_flow_action_packet_reformat)
DV_UNSUPPORTED_PTR(mlx5dv_create_flow_matcher)
DV_UNSUPPORTED_PTR(mlx5dv_create_mkey)
DV_UNSUPPORTED_PTR(mlx5dv_create_qp)
DV_UNSUPPORTED_PTR(mlx5dv_create_steering_anchor)
DV_UNSUPPORTED_PTR(mlx5dv_create_wq)
DV_UNSUPPORTED_INT(mlx5dv_crypto_login)
DV_UNSUPPORTED_PTR(mlx5dv_crypto_login_create)
DV_UNSUPPORTED_INT(mlx5dv_crypto_login_destroy)
DV_UNSUPPORTED_INT(mlx5dv_crypto_login_query)
DV_UNSUPPORTED_INT(mlx5dv_crypto_login_query_state)
DV_UNSUPPORTED_INT(mlx5dv_crypto_logout)
DV_UNSUPPORTED_INT(mlx5dv_dci_stream_id_reset)
DV_UNSUPPORTED_PTR(mlx5dv_dek_create)
DV_UNSUPPORTED_INT(mlx5dv_dek_destroy)
DV_UNSUPPORTED_INT(mlx5dv_dek_query)
DV_UNSUPPORTED_INT(mlx5dv_destroy_flow_matcher)
DV_UNSUPPORTED_INT(mlx5dv_destroy_mkey)
DV_UNSUPPORTED_INT(mlx5dv_destroy_steering_anchor)
DV_UNSUPPORTED_PTR(mlx5dv_devx_alloc_msi_vector)
DV_UNSUPPORTED_INT(mlx5dv_devx_cq_modify)
DV_UNSUPPORTED_INT(mlx5dv_devx_cq_query)
DV_UNSUPPORTED_PTR(mlx5dv_devx_create_cmd_comp)
DV_UNSUPPORTED_PTR(mlx5dv_devx_create_eq)
DV_UNSUPPORTED_PTR(mlx5dv_devx_create_event_channel)
DV_UNSUPPORTED_VOID(mlx5dv_devx_destroy_cmd_comp)
DV_UNSUPPORTED_INT(mlx5dv_devx_destroy_eq)
DV_UNSUPPORTED_VOID(mlx5dv_devx_destroy_event_channel)
DV_UNSUPPORTED_INT(mlx5dv_devx_free_msi_vector)
DV_UNSUPPORTED_INT(mlx5dv_devx_get_async_cmd_comp)
DV_UNSUPPORTED_NEG(mlx5dv_devx_get_event)
DV_UNSUPPORTED_INT(mlx5dv_devx_ind_tbl_modify)
DV_UNSUPPORTED_INT(mlx5dv_devx_ind_tbl_query)
DV_UNSUPPORTED_INT(mlx5dv_devx_obj_query_async)
DV_UNSUPPORTED_INT(mlx5dv_devx_qp_modify)
DV_UNSUPPORTED_INT(mlx5dv_devx_qp_query)
DV_UNSUPPORTED_INT(mlx5dv_devx_srq_modify)
DV_UNSUPPORTED_INT(mlx5dv_devx_srq_query)
DV_UNSUPPORTED_INT(mlx5dv_devx_subscribe_devx_event)
DV_UNSUPPORTED_INT(mlx5dv_devx_subscribe_devx_event_fd)
DV_UNSUPPORTED_INT(mlx5dv_devx_wq_modify)
DV_UNSUPPORTED_INT(mlx5dv_devx_wq_query)
DV_UNSUPPORTED_PTR(mlx5dv_dm_map_op_addr)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_aso)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_default_miss)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_array)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_devx_tir)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_ib_port)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_ibv_qp)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_root_table)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_table)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_dest_vport)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_drop)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_flow_counter)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_flow_meter)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_flow_sampler)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_modify_header)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_packet_reformat)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_pop_vlan)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_push_vlan)
DV_UNSUPPORTED_PTR(mlx5dv_dr_action_create_tag)
DV_UNSUPPORTED_INT(mlx5dv_dr_action_destroy)
DV_UNSUPPORTED_INT(mlx5dv_dr_action_modify_aso)
DV_UNSUPPORTED_INT(mlx5dv_dr_action_modify_flow_meter)
DV_UNSUPPORTED_INT(mlx5dv_dr_aso_other_domain_link)
DV_UNSUPPORTED_INT(mlx5dv_dr_aso_other_domain_unlink)
DV_UNSUPPORTED_VOID(mlx5dv_dr_domain_allow_duplicate_rules)
DV_UNSUPPORTED_PTR(mlx5dv_dr_domain_create)
DV_UNSUPPORTED_INT(mlx5dv_dr_domain_destroy)
DV_UNSUPPORTED_VOID(mlx5dv_dr_domain_set_reclaim_device_memory)
DV_UNSUPPORTED_INT(mlx5dv_dr_domain_sync)
DV_UNSUPPORTED_PTR(mlx5dv_dr_matcher_create)
DV_UNSUPPORTED_INT(mlx5dv_dr_matcher_destroy)
DV_UNSUPPORTED_INT(mlx5dv_dr_matcher_set_layout)
DV_UNSUPPORTED_PTR(mlx5dv_dr_rule_create)
DV_UNSUPPORTED_INT(mlx5dv_dr_rule_destroy)
DV_UNSUPPORTED_PTR(mlx5dv_dr_table_create)
DV_UNSUPPORTED_INT(mlx5dv_dr_table_destroy)
DV_UNSUPPORTED_INT(mlx5dv_dump_dr_domain)
DV_UNSUPPORTED_INT(mlx5dv_dump_dr_matcher)
DV_UNSUPPORTED_INT(mlx5dv_dump_dr_rule)
DV_UNSUPPORTED_INT(mlx5dv_dump_dr_table)
DV_UNSUPPORTED_VOID(mlx5dv_free_var)
DV_UNSUPPORTED_INT(mlx5dv_get_clock_info)
DV_UNSUPPORTED_PTR(mlx5dv_get_vfio_device_list)
DV_UNSUPPORTED_INT(mlx5dv_map_ah_to_qp)
DV_UNSUPPORTED_INT(mlx5dv_modify_qp_lag_port)
DV_UNSUPPORTED_INT(mlx5dv_modify_qp_sched_elem)
DV_UNSUPPORTED_INT(mlx5dv_modify_qp_udp_sport)
DV_UNSUPPORTED_PTR(mlx5dv_pp_alloc)
DV_UNSUPPORTED_VOID(mlx5dv_pp_free)
DV_UNSUPPORTED_INT(mlx5dv_qp_cancel_posted_send_wrs)
DV_UNSUPPORTED_PTR(mlx5dv_qp_ex_from_ibv_qp_ex)
DV_UNSUPPORTED_INT(mlx5dv_query_qp_lag_port)
DV_UNSUPPORTED_INT(mlx5dv_reserved_qpn_alloc)
DV_UNSUPPORTED_INT(mlx5dv_reserved_qpn_dealloc)
DV_UNSUPPORTED_PTR(mlx5dv_sched_leaf_create)
DV_UNSUPPORTED_INT(mlx5dv_sched_leaf_destroy)
DV_UNSUPPORTED_INT(mlx5dv_sched_leaf_modify)
DV_UNSUPPORTED_PTR(mlx5dv_sched_node_create)
DV_UNSUPPORTED_INT(mlx5dv_sched_node_destroy)
DV_UNSUPPORTED_INT(mlx5dv_sched_node_modify)
DV_UNSUPPORTED_INT(mlx5dv_set_context_attr)
DV_UNSUPPORTED_NEG(mlx5dv_vfio_get_events_fd)
DV_UNSUPPORTED_INT(mlx5dv_vfio_process_events)
