/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NIC receive steering the way a DevX program asks a ConnectX for it:
 * mlx5dv_create_flow_matcher (a priority, match_criteria_enable and a mask
 * in the PRM's fte_match_param layout), mlx5dv_create_flow (a value under
 * that mask, and one action: MLX5DV_FLOW_ACTION_DEST_DEVX to a TIR made by
 * CREATE_TIR, or MLX5DV_FLOW_ACTION_DROP), ibv_destroy_flow (libibverbs:
 * abi/verbs_absent.c) and mlx5dv_destroy_flow_matcher. The rules live in the
 * device (nic/eth_steer.c), where the Ethernet port applies them in priority
 * order (lower first). Outer headers only: dmac, smac, ethertype, VLAN id,
 * IP version and protocol, IPv4 source and destination, TCP and UDP ports;
 * an empty mask (criteria 0) matches every frame. Anything else is refused
 * with EOPNOTSUPP and one log line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "devx/devx.h"
#include "dv/dv.h"
#include "nic/eth.h"
#include "prm/prm_eth.h"

struct mlx5dv_flow_matcher {
    struct ibv_context *context;
    struct emu_nic *nic;
    uint16_t priority;
    uint8_t criteria;
    uint8_t mask[EMU_ETH_MATCH_LEN];
};

/* A match buffer's size is valid: at most an fte_match_param. */
static bool dv_flow_size_ok(const struct mlx5dv_flow_match_parameters *m)
{
    return m != NULL && m->match_sz <= PRM_FTE_MATCH_PARAM_SIZE;
}

DV_EXPORT struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *context, struct mlx5dv_flow_matcher_attr *attr)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_create_flow_matcher");
    struct mlx5dv_flow_matcher *m;
    size_t n;

    if (nic == NULL)
        return NULL;
    if (attr == NULL || !dv_flow_size_ok(attr->match_mask) || attr->type != IBV_FLOW_ATTR_NORMAL) {
        EMU_LOG_ERR("mlx5dv_create_flow_matcher: needs attributes of type IBV_FLOW_ATTR_NORMAL "
                    "and a match mask of at most %d bytes (fte_match_param)",
                    PRM_FTE_MATCH_PARAM_SIZE);
        errno = EINVAL;
        return NULL;
    }
    if (attr->flags != 0 || (attr->comp_mask & ~(uint64_t)MLX5DV_FLOW_MATCHER_MASK_FT_TYPE) ||
        ((attr->comp_mask & MLX5DV_FLOW_MATCHER_MASK_FT_TYPE) &&
         attr->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_RX) ||
        (attr->match_criteria_enable & ~PRM_MATCH_OUTER_HEADERS) != 0 ||
        !emu_eth_mask_supported(attr->match_mask->match_buf, attr->match_mask->match_sz)) {
        EMU_LOG_ERR("mlx5dv_create_flow_matcher: softmlx5 steers received frames (the NIC RX "
                    "table, no flags) on outer headers only: dmac, smac, ethertype, VLAN id, IP "
                    "version and protocol, IPv4 addresses, TCP and UDP ports");
        errno = EOPNOTSUPP;
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    m->context = context;
    m->nic = nic;
    m->priority = attr->priority;
    m->criteria = attr->match_criteria_enable;
    n = attr->match_mask->match_sz < EMU_ETH_MATCH_LEN ? attr->match_mask->match_sz
                                                       : EMU_ETH_MATCH_LEN;
    /* Without outer criteria enabled, the mask compares nothing. */
    if (m->criteria & PRM_MATCH_OUTER_HEADERS)
        memcpy(m->mask, attr->match_mask->match_buf, n);
    return m;
}

DV_EXPORT int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
    uint32_t n;

    if (matcher == NULL)
        return EINVAL;
    n = emu_eth_flow_count(matcher->nic, matcher);
    if (n != 0) {
        EMU_LOG_ERR("mlx5dv_destroy_flow_matcher: %u flows still use the matcher; destroy them "
                    "first (ibv_destroy_flow)",
                    n);
        return EBUSY;
    }
    free(matcher);
    return 0;
}

DV_EXPORT struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
                                              struct mlx5dv_flow_match_parameters *value,
                                              size_t num_actions,
                                              struct mlx5dv_flow_action_attr actions[])
{
    uint32_t tirn = 0;
    struct ibv_flow *flow;

    if (matcher == NULL || !dv_flow_size_ok(value) || num_actions != 1 || actions == NULL) {
        EMU_LOG_ERR("mlx5dv_create_flow: needs a matcher, a match value of at most %d bytes and "
                    "exactly one action",
                    PRM_FTE_MATCH_PARAM_SIZE);
        errno = EINVAL;
        return NULL;
    }
    if (actions[0].type == MLX5DV_FLOW_ACTION_DEST_DEVX) {
        struct mlx5dv_devx_obj *obj = actions[0].obj;

        if (obj == NULL || obj->type != EMU_DEVX_OBJ_TIR || obj->nic != matcher->nic) {
            EMU_LOG_ERR("mlx5dv_create_flow: MLX5DV_FLOW_ACTION_DEST_DEVX must name a TIR made "
                        "by CREATE_TIR on the matcher's device");
            errno = EINVAL;
            return NULL;
        }
        tirn = obj->id;
    } else if (actions[0].type != MLX5DV_FLOW_ACTION_DROP) {
        EMU_LOG_ERR("mlx5dv_create_flow: action %d is not supported; softmlx5 forwards to a TIR "
                    "(MLX5DV_FLOW_ACTION_DEST_DEVX) or drops (MLX5DV_FLOW_ACTION_DROP)",
                    (int)actions[0].type);
        errno = EOPNOTSUPP;
        return NULL;
    }
    flow = emu_eth_flow_create(matcher->nic, matcher->context, matcher, matcher->priority,
                               matcher->mask, sizeof(matcher->mask), value->match_buf,
                               value->match_sz, tirn);
    if (flow == NULL)
        EMU_LOG_ERR("mlx5dv_create_flow: the rule could not be added: %m");
    return flow;
}
