/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive steering (doca_gpunetio_eth_flow.h, this library's extension):
 * a matcher on the NIC receive table (mlx5dv_create_flow_matcher, match
 * criteria in PRM fte_match_param) and one rule (mlx5dv_create_flow) whose
 * action is a DevX TIR: the queue's direct TIR, or for several queues an
 * indirect TIR hashing over an RQT of their RQs (RSS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "eth_internal.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

struct dgn_eth_flow {
    struct eth_dev *edev;
    struct mlx5dv_flow_matcher *matcher;
    struct ibv_flow *rule;
    struct mlx5dv_devx_obj *rqt; /* RSS only */
    uint32_t rqtn;
    struct mlx5dv_devx_obj *tir; /* RSS only (n = 1 uses the queue's TIR) */
    uint32_t tirn;
    uint32_t n;
    struct doca_eth_rxq *rxqs[];
};

/* Priorities: lower is tried first. */
#define FLOW_PRIO_UDP 0
#define FLOW_PRIO_ALL 1

/* A fixed Toeplitz key (any 40 bytes spread the flows; this is the common symmetric-free one). */
static const uint8_t flow_rss_key[PRM_TIRC_RX_HASH_TOEPLITZ_KEY_LEN] = {
        0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
        0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
        0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

static doca_error_t flow_rss(struct dgn_eth_flow *f)
{
    size_t inlen = PRM_CREATE_RQT_IN_SIZE + PRM_RQ_NUM_SIZE * (size_t)f->n;
    uint8_t *in = calloc(1, inlen);
    uint8_t out[PRM_CREATE_RQT_OUT_SIZE];
    uint8_t tin[PRM_CREATE_TIR_IN_SIZE] = {0};
    uint8_t tout[PRM_CREATE_TIR_OUT_SIZE];
    void *rqtc, *tirc, *sel;
    uint32_t tdn;
    doca_error_t err;

    if (in == NULL) {
        DOCA_LOG_ERR("out of memory for CREATE_RQT");
        return DOCA_ERROR_NO_MEMORY;
    }
    rqtc = PRM_AT(in, PRM_CREATE_RQT_IN_RQTC);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RQT);
    PRM_SET(rqtc, PRM_RQTC_RQT_MAX_SIZE, f->n);
    PRM_SET(rqtc, PRM_RQTC_RQT_ACTUAL_SIZE, f->n);
    for (uint32_t i = 0; i < f->n; i++)
        PRM_SET(PRM_AT(rqtc, PRM_RQTC_RQ_NUM + PRM_RQ_NUM_SIZE * i), PRM_RQ_NUM_RQN,
                f->rxqs[i]->rqn);
    err = verbs_devx_create(f->edev->ctx, in, inlen, out, sizeof(out), &f->rqt);
    free(in);
    if (err != DOCA_SUCCESS)
        return err;
    f->rqtn = (uint32_t)PRM_GET(out, PRM_CREATE_RQT_OUT_RQTN);
    err = eth_dev_td(f->edev, &tdn);
    if (err != DOCA_SUCCESS)
        return err;
    tirc = PRM_AT(tin, PRM_CREATE_TIR_IN_TIRC);
    PRM_SET(tin, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIR);
    PRM_SET(tirc, PRM_TIRC_DISP_TYPE, PRM_TIRC_DISP_TYPE_INDIRECT);
    PRM_SET(tirc, PRM_TIRC_INDIRECT_TABLE, f->rqtn);
    PRM_SET(tirc, PRM_TIRC_TRANSPORT_DOMAIN, tdn);
    PRM_SET(tirc, PRM_TIRC_RX_HASH_FN, PRM_RX_HASH_FN_TOEPLITZ);
    memcpy(PRM_AT(tirc, PRM_TIRC_RX_HASH_TOEPLITZ_KEY), flow_rss_key, sizeof(flow_rss_key));
    sel = PRM_AT(tirc, PRM_TIRC_RX_HASH_FIELD_OUTER);
    PRM_SET(sel, PRM_RX_HASH_L3_PROT_TYPE, PRM_RX_HASH_L3_IPV4);
    PRM_SET(sel, PRM_RX_HASH_L4_PROT_TYPE, PRM_RX_HASH_L4_UDP);
    PRM_SET(sel, PRM_RX_HASH_SELECTED_FIELDS,
            PRM_RX_HASH_SEL_SRC_IP | PRM_RX_HASH_SEL_DST_IP | PRM_RX_HASH_SEL_L4_SPORT |
                    PRM_RX_HASH_SEL_L4_DPORT);
    err = verbs_devx_create(f->edev->ctx, tin, sizeof(tin), tout, sizeof(tout), &f->tir);
    if (err == DOCA_SUCCESS)
        f->tirn = (uint32_t)PRM_GET(tout, PRM_CREATE_TIR_OUT_TIRN);
    return err;
}

static void flow_release(struct dgn_eth_flow *f)
{
    if (f->tir != NULL)
        verbs_devx_destroy(f->tir, "TIR", f->tirn);
    if (f->rqt != NULL)
        verbs_devx_destroy(f->rqt, "RQT", f->rqtn);
    f->tir = NULL;
    f->rqt = NULL;
}

/* One flow: udp true matches IPv4 UDP to port, false everything. */
static doca_error_t flow_create(struct doca_dev *dev, bool udp, uint16_t port,
                                struct doca_eth_rxq *const rxqs[], uint32_t n,
                                struct dgn_eth_flow **flow, const char *call)
{
    const struct core_mlx5dv_ops *mlx5;
    struct mlx5dv_flow_matcher_attr mattr;
    struct mlx5dv_flow_action_attr action;
    struct mlx5dv_flow_match_parameters *mask = NULL, *value = NULL;
    const size_t msz = sizeof(*mask) + PRM_FTE_MATCH_PARAM_SIZE;
    struct dgn_eth_flow *f;
    struct eth_dev *edev;
    const struct eth_caps *caps;
    doca_error_t err;

    if (dev == NULL || rxqs == NULL || n == 0 || flow == NULL) {
        DOCA_LOG_ERR("%s: dev (%p), rxqs (%p) and flow (%p) must not be NULL, n (%u) not 0", call,
                     (void *)dev, (const void *)rxqs, (void *)flow, n);
        return DOCA_ERROR_INVALID_VALUE;
    }
    edev = eth_dev_of(dev, call);
    if (edev == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    for (uint32_t i = 0; i < n; i++) {
        if (rxqs[i] == NULL || rxqs[i]->edev != edev) {
            DOCA_LOG_ERR("%s: queue %u is %s", call, i,
                         rxqs[i] == NULL ? "NULL" : "a queue of another device");
            return DOCA_ERROR_INVALID_VALUE;
        }
        if (rxqs[i]->ctx.state != DOCA_CTX_STATE_RUNNING) {
            DOCA_LOG_ERR("%s: queue %u is not started: the order is doca_ctx_start, then the "
                         "flow (and dgn_eth_flow_destroy before doca_ctx_stop)",
                         call, i);
            return DOCA_ERROR_BAD_STATE;
        }
    }
    err = eth_devinfo_caps(&edev->info, &caps);
    if (err != DOCA_SUCCESS)
        return err;
    if (n > 1 && caps->log_max_rqt_sz != 0 && n > (1u << caps->log_max_rqt_sz)) {
        DOCA_LOG_ERR("%s: DOCA axis: %u queues; %s spreads over at most %u (rss_ind_tbl_cap)", call,
                     n, edev->info.ibdev_name, 1u << caps->log_max_rqt_sz);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    f = calloc(1, sizeof(*f) + n * sizeof(f->rxqs[0]));
    mask = calloc(1, msz);
    value = calloc(1, msz);
    if (f == NULL || mask == NULL || value == NULL) {
        DOCA_LOG_ERR("out of memory for a flow");
        err = DOCA_ERROR_NO_MEMORY;
        goto fail;
    }
    f->edev = edev;
    f->n = n;
    memcpy(f->rxqs, rxqs, n * sizeof(rxqs[0]));
    if (n > 1) {
        err = flow_rss(f);
        if (err != DOCA_SUCCESS)
            goto fail;
    }
    mask->match_sz = PRM_FTE_MATCH_PARAM_SIZE;
    value->match_sz = PRM_FTE_MATCH_PARAM_SIZE;
    if (udp) {
        void *mo = PRM_AT(mask->match_buf, PRM_FTE_MATCH_PARAM_OUTER_HEADERS);
        void *vo = PRM_AT(value->match_buf, PRM_FTE_MATCH_PARAM_OUTER_HEADERS);

        PRM_SET(mo, PRM_FTE_L24_ETHERTYPE, 0xffff);
        PRM_SET(mo, PRM_FTE_L24_IP_PROTOCOL, 0xff);
        PRM_SET(mo, PRM_FTE_L24_UDP_DPORT, 0xffff);
        PRM_SET(vo, PRM_FTE_L24_ETHERTYPE, 0x0800);
        PRM_SET(vo, PRM_FTE_L24_IP_PROTOCOL, 17);
        PRM_SET(vo, PRM_FTE_L24_UDP_DPORT, port);
    }
    memset(&mattr, 0, sizeof(mattr));
    mattr.type = IBV_FLOW_ATTR_NORMAL;
    mattr.priority = udp ? FLOW_PRIO_UDP : FLOW_PRIO_ALL;
    mattr.match_criteria_enable = udp ? PRM_MATCH_OUTER_HEADERS : 0;
    mattr.match_mask = mask;
    mattr.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
    mattr.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
    errno = 0;
    f->matcher = mlx5->create_flow_matcher(edev->ctx, &mattr);
    if (f->matcher == NULL) {
        int e = errno != 0 ? errno : EOPNOTSUPP;

        DOCA_LOG_ERR("%s: mlx5dv_create_flow_matcher on %s failed: %s (errno %d)%s", call,
                     edev->info.ibdev_name, strerror(e), e,
                     e == EOPNOTSUPP ? "; the device has no NIC receive steering" : "");
        err = e == EOPNOTSUPP ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_DRIVER;
        goto fail;
    }
    memset(&action, 0, sizeof(action));
    action.type = MLX5DV_FLOW_ACTION_DEST_DEVX;
    action.obj = n > 1 ? f->tir : eth_rxq_tir(rxqs[0]);
    errno = 0;
    f->rule = mlx5->create_flow(f->matcher, value, 1, &action);
    if (f->rule == NULL) {
        int e = errno != 0 ? errno : EIO;

        DOCA_LOG_ERR("%s: mlx5dv_create_flow on %s failed: %s (errno %d)", call,
                     edev->info.ibdev_name, strerror(e), e);
        err = e == EOPNOTSUPP ? DOCA_ERROR_NOT_SUPPORTED
              : e == EEXIST   ? DOCA_ERROR_ALREADY_EXIST
                              : DOCA_ERROR_DRIVER;
        goto fail;
    }
    free(mask);
    free(value);
    for (uint32_t i = 0; i < n; i++)
        atomic_fetch_add(&rxqs[i]->flows, 1);
    verbs_dev_hold(dev);
    if (udp)
        DOCA_LOG_INFO("flow %p on %s: IPv4 UDP to port %u to %u queue(s)%s", (void *)f,
                      edev->info.ibdev_name, port, n, n > 1 ? " by RSS" : "");
    else
        DOCA_LOG_INFO("flow %p on %s: everything to %u queue(s)%s", (void *)f,
                      edev->info.ibdev_name, n, n > 1 ? " by RSS" : "");
    *flow = f;
    return DOCA_SUCCESS;

fail:
    if (f != NULL) {
        if (f->matcher != NULL)
            mlx5->destroy_flow_matcher(f->matcher);
        flow_release(f);
    }
    free(f);
    free(mask);
    free(value);
    return err;
}

/*
 * The extension's calls have SDK routes like DOCA's: in SDK mode the SDK has no such function, so
 * they answer NOT_SUPPORTED (with the SDK router's line); steer with DOCA Flow there.
 */
doca_error_t dgn_eth_flow_create_udp(struct doca_dev *dev, uint16_t udp_dst_port,
                                     struct doca_eth_rxq *const rxqs[], uint32_t n,
                                     struct dgn_eth_flow **flow)
{
    DGN_SDK_ROUTE(dgn_eth_flow_create_udp, (dev, udp_dst_port, rxqs, n, flow),
                  DOCA_ERROR_NOT_SUPPORTED);

    return flow_create(dev, true, udp_dst_port, rxqs, n, flow, "dgn_eth_flow_create_udp");
}

doca_error_t dgn_eth_flow_create_all(struct doca_dev *dev, struct doca_eth_rxq *const rxqs[],
                                     uint32_t n, struct dgn_eth_flow **flow)
{
    DGN_SDK_ROUTE(dgn_eth_flow_create_all, (dev, rxqs, n, flow), DOCA_ERROR_NOT_SUPPORTED);

    return flow_create(dev, false, 0, rxqs, n, flow, "dgn_eth_flow_create_all");
}

doca_error_t dgn_eth_flow_destroy(struct dgn_eth_flow *flow)
{
    DGN_SDK_ROUTE(dgn_eth_flow_destroy, (flow), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err;
    int rc;

    if (flow == NULL) {
        DOCA_LOG_ERR("dgn_eth_flow_destroy: flow is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(NULL, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    rc = ibv_destroy_flow(flow->rule);
    if (rc != 0) {
        DOCA_LOG_ERR("dgn_eth_flow_destroy: ibv_destroy_flow failed: %s (errno %d)", strerror(rc),
                     rc);
        return DOCA_ERROR_DRIVER;
    }
    rc = mlx5->destroy_flow_matcher(flow->matcher);
    if (rc != 0)
        DOCA_LOG_ERR("dgn_eth_flow_destroy: mlx5dv_destroy_flow_matcher failed: %s (errno %d)",
                     strerror(rc), rc);
    flow_release(flow);
    for (uint32_t i = 0; i < flow->n; i++)
        atomic_fetch_sub(&flow->rxqs[i]->flows, 1);
    verbs_dev_put(flow->edev->dev);
    free(flow);
    return DOCA_SUCCESS;
}
