/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a device offers the Ethernet queues: the port's link layer, the
 * general capabilities (eth_net_offloads, nic_flow_table, log_max_wq_sz,
 * log_max_cq_sz), the Ethernet offload capabilities (csum_cap,
 * wqe_inline_mode, rss_ind_tbl_cap) and the vport's permanent address and
 * MTU (QUERY_NIC_VPORT_CONTEXT). Read once per devinfo (dev.c caches them).
 */
#include <stdlib.h>
#include <string.h>

#include "eth_internal.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "prm/prm_hca_cap.h"
#include "prm/prm_vport.h"

/* The vport's MAC and MTU; false when the device does not answer. */
static bool caps_vport(struct ibv_context *ctx, struct eth_caps *caps)
{
    uint8_t in[PRM_QUERY_NIC_VPORT_CONTEXT_IN_SIZE] = {0};
    uint8_t out[PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE];
    const uint8_t *vctx;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_NIC_VPORT_CONTEXT);
    if (verbs_devx_general(ctx, in, sizeof(in), out, sizeof(out)) != DOCA_SUCCESS)
        return false;
    vctx = PRM_AT(out, PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX);
    memcpy(caps->mac, vctx + PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_BYTES, PRM_MAC_LEN);
    caps->mtu = (uint32_t)PRM_GET(vctx, PRM_NIC_VPORT_CTX_MTU);
    return true;
}

doca_error_t eth_caps_query(struct ibv_context *ctx, struct eth_caps *caps)
{
    const struct core_ibv_ops *ibv;
    struct ibv_port_attr port;
    uint8_t *out;
    void *cap;
    doca_error_t err = verbs_rdma(&ibv, NULL);
    int rc;

    if (err != DOCA_SUCCESS)
        return err;
    memset(caps, 0, sizeof(*caps));
    memset(&port, 0, sizeof(port));
    rc = ibv->query_port(ctx, 1, (struct _compat_ibv_port_attr *)(void *)&port);
    if (rc != 0) {
        DOCA_LOG_ERR("ibv_query_port(%s, port 1) failed: %s (errno %d)", ctx->device->name,
                     strerror(rc), rc);
        return DOCA_ERROR_DRIVER;
    }
    caps->eth_link = port.link_layer == IBV_LINK_LAYER_ETHERNET;
    out = calloc(1, PRM_QUERY_HCA_CAP_OUT_SIZE);
    if (out == NULL) {
        DOCA_LOG_ERR("out of memory for the QUERY_HCA_CAP mailbox");
        return DOCA_ERROR_NO_MEMORY;
    }
    cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    err = verbs_query_cap_group(ctx, PRM_HCA_CAP_TYPE_GENERAL, out);
    if (err == DOCA_SUCCESS) {
        caps->eth_net_offloads = PRM_GET(cap, PRM_HCA_CAP_ETH_NET_OFFLOADS) != 0;
        caps->nic_flow_table = PRM_GET(cap, PRM_HCA_CAP_NIC_FLOW_TABLE) != 0;
        caps->log_max_wq_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_WQ_SZ);
        caps->log_max_cq_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ_SZ);
        caps->log_max_rqt_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RQT_SIZE);
        caps->q_counters = PRM_GET(cap, PRM_HCA_CAP_MAX_QP_CNT) != 0;
    }
    if (err == DOCA_SUCCESS && caps->eth_net_offloads &&
        verbs_query_cap_group(ctx, PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS, out) == DOCA_SUCCESS) {
        caps->csum_cap = PRM_GET(cap, PRM_ETH_CAP_CSUM_CAP) != 0;
        caps->wqe_inline_mode = (uint8_t)PRM_GET(cap, PRM_ETH_CAP_WQE_INLINE_MODE);
    }
    free(out);
    if (err != DOCA_SUCCESS)
        return err;
    if (caps->eth_link)
        caps->mac_valid = caps_vport(ctx, caps);
    DOCA_LOG_DBG("%s: link %s, eth_net_offloads %d, nic_flow_table %d, csum %d, log_max_wq_sz %u, "
                 "mtu %u",
                 ctx->device->name, caps->eth_link ? "Ethernet" : "InfiniBand",
                 caps->eth_net_offloads, caps->nic_flow_table, caps->csum_cap, caps->log_max_wq_sz,
                 caps->mtu);
    return DOCA_SUCCESS;
}
