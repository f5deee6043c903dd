/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QUERY_HCA_CAP: the general, Ethernet offload and general-2 capability
 * groups, derived from nic/caps.h like ibv_query_device's answers. The
 * maximum and current values are the same: nothing is configurable.
 */
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "nic/uar.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "prm/prm_hca_cap.h"

#define DEVX_CAP_LOG_MAX_MRW_SZ   40 /* ibv_query_device: max_mr_size 1 TiB */
#define DEVX_CAP_LOG_MAX_EQ       0  /* one event queue, number 0 */
#define DEVX_CAP_LOG_MAX_EQ_SZ    12
#define DEVX_CAP_LOG_MAX_TD       10
#define DEVX_CAP_LOG_MAX_UMEM     16
#define DEVX_CAP_LOG_MAX_UCTX     7
#define DEVX_CAP_CQE_VERSION      1
#define DEVX_CAP_FREQUENCY_KHZ    1000000 /* completion timestamps count nanoseconds */
#define DEVX_CAP_MAX_WQE_SZ_SQ    (DEVX_MAX_WQE_BB * 64)
#define DEVX_CAP_MAX_WQE_SZ_RQ    512
#define DEVX_CAP_LOG_MAX_SEND_DBR 15
#define DEVX_MAX_WQE_BB           16 /* 63 DS of 16 bytes round up to 16 basic blocks */

static unsigned int devx_log2(unsigned int v)
{
    unsigned int log = 0;

    while ((1u << (log + 1)) <= v)
        log++;
    return log;
}

static void devx_cap_general(const struct emu_nic *nic, void *cap)
{
    PRM_SET(cap, PRM_HCA_CAP_VHCA_ID, nic->index);
    PRM_SET(cap, PRM_HCA_CAP_HCA_CAP_2, 1);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_SRQ_SZ, EMU_LOG_MAX_SRQ_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_QP_SZ, EMU_LOG_MAX_QP_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_QP, EMU_LOG_MAX_QP);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_SRQ, EMU_LOG_MAX_SRQ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_CQ_SZ, EMU_LOG_MAX_CQ_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_CQ, EMU_LOG_MAX_CQ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_EQ_SZ, DEVX_CAP_LOG_MAX_EQ_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_MKEY, EMU_LOG_MAX_MKEY);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_EQ, DEVX_CAP_LOG_MAX_EQ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_MRW_SZ, DEVX_CAP_LOG_MAX_MRW_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_QP, EMU_LOG_MAX_RA_QP);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_QP, EMU_LOG_MAX_RA_QP);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_DC, EMU_LOG_MAX_RA_QP);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_DC, EMU_LOG_MAX_RA_QP);
    PRM_SET(cap, PRM_HCA_CAP_GID_TABLE_SIZE, EMU_GID_TABLE_LEN);
    PRM_SET(cap, PRM_HCA_CAP_PKEY_TABLE_SIZE, EMU_MAX_PKEYS);
    PRM_SET(cap, PRM_HCA_CAP_PORT_TYPE,
            nic->link == EMU_LINK_ETH ? PRM_HCA_CAP_PORT_TYPE_ETH : PRM_HCA_CAP_PORT_TYPE_IB);
    PRM_SET(cap, PRM_HCA_CAP_NUM_PORTS, nic->port_count);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_MSG, EMU_LOG_MAX_MSG);
    PRM_SET(cap, PRM_HCA_CAP_CQE_VERSION, DEVX_CAP_CQE_VERSION);
    PRM_SET(cap, PRM_HCA_CAP_ETH_NET_OFFLOADS, nic->link == EMU_LINK_ETH);
    PRM_SET(cap, PRM_HCA_CAP_ROCE, nic->link == EMU_LINK_ETH);
    PRM_SET(cap, PRM_HCA_CAP_ATOMIC, 1);
    PRM_SET(cap, PRM_HCA_CAP_CQ_OI, 1);
    PRM_SET(cap, PRM_HCA_CAP_RC, 1);
    PRM_SET(cap, PRM_HCA_CAP_UC, 1);
    PRM_SET(cap, PRM_HCA_CAP_UD, 1);
    PRM_SET(cap, PRM_HCA_CAP_XRC, 1);
    PRM_SET(cap, PRM_HCA_CAP_DCT, 1);
    PRM_SET(cap, PRM_HCA_CAP_UAR_4K, 1);
    PRM_SET(cap, PRM_HCA_CAP_UAR_SZ, devx_log2(EMU_UAR_PAGE_SIZE) - EMU_LOG_PAGE_SIZE);
    PRM_SET(cap, PRM_HCA_CAP_UMEM_UID_0, 1);
    PRM_SET(cap, PRM_HCA_CAP_LOG_PG_SZ, EMU_LOG_PAGE_SIZE);
    PRM_SET(cap, PRM_HCA_CAP_BF, 1);
    PRM_SET(cap, PRM_HCA_CAP_LOG_BF_REG_SIZE, devx_log2(EMU_UAR_BF_SIZE));
    PRM_SET(cap, PRM_HCA_CAP_MAX_WQE_SZ_SQ, DEVX_CAP_MAX_WQE_SZ_SQ);
    PRM_SET(cap, PRM_HCA_CAP_MAX_WQE_SZ_RQ, DEVX_CAP_MAX_WQE_SZ_RQ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_TRANSPORT_DOMAIN, DEVX_CAP_LOG_MAX_TD);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_PD, EMU_LOG_MAX_PD);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_WQ_SZ, EMU_LOG_MAX_QP_SZ);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_UCTX, DEVX_CAP_LOG_MAX_UCTX);
    PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_UMEM, DEVX_CAP_LOG_MAX_UMEM);
    PRM_SET(cap, PRM_HCA_CAP_LOG_UAR_PAGE_SZ, devx_log2(EMU_UAR_PAGE_SIZE) - EMU_LOG_PAGE_SIZE);
    PRM_SET(cap, PRM_HCA_CAP_DEVICE_FREQUENCY_KHZ, DEVX_CAP_FREQUENCY_KHZ);
    PRM_SET(cap, PRM_HCA_CAP_NUM_OF_UARS_PER_PAGE, 1);
    /* No CQE compression: every CQE is a full CQE64. */
    PRM_SET(cap, PRM_HCA_CAP_CQE_COMPRESSION, 0);
    /* Raw Ethernet queues (nic/eth.h), on an Ethernet link. */
    if (nic->link == EMU_LINK_ETH) {
        PRM_SET(cap, PRM_HCA_CAP_NIC_FLOW_TABLE, 1);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RQ, EMU_ETH_LOG_MAX_OBJ - 1);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_SQ, EMU_ETH_LOG_MAX_OBJ - 1);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_TIR, EMU_ETH_LOG_MAX_OBJ);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_TIS, EMU_ETH_LOG_MAX_OBJ);
        PRM_SET(cap, PRM_HCA_CAP_BASIC_CYCLIC_RCV_WQE, 1);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RQT, EMU_ETH_LOG_MAX_OBJ);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_RQT_SIZE, EMU_ETH_LOG_MAX_RQT_SZ);
        PRM_SET(cap, PRM_HCA_CAP_LOG_MAX_TIS_PER_SQ, 0);
        PRM_SET(cap, PRM_HCA_CAP_MAX_QP_CNT, EMU_ETH_MAX_QCOUNTERS);
    }
}

/*
 * Ethernet offloads: checksums (IPv4 header, TCP/UDP over IPv4, computed on
 * send and checked on receive), no inline header required, RSS tables of up
 * to 2^EMU_ETH_LOG_MAX_RQT_SZ RQs. No LSO, LRO, VLAN insertion or stripping,
 * multi-packet WQEs or FCS scatter.
 */
static void devx_cap_ethernet(void *cap)
{
    PRM_SET(cap, PRM_ETH_CAP_CSUM_CAP, 1);
    PRM_SET(cap, PRM_ETH_CAP_SELF_LB_EN_MODIFIABLE, 1);
    PRM_SET(cap, PRM_ETH_CAP_WQE_INLINE_MODE, PRM_ETH_CAP_INLINE_MODE_NOT_REQUIRED);
    PRM_SET(cap, PRM_ETH_CAP_RSS_IND_TBL_CAP, EMU_ETH_LOG_MAX_RQT_SZ);
}

/* NIC flow tables: the receive table mlx5dv_create_flow fills, and the fields it matches. */
static void devx_cap_flow_table(void *cap)
{
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_FT_SUPPORT, 1);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_LOG_MAX_FT_SIZE, EMU_ETH_LOG_MAX_RULES);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_MAX_FT_LEVEL, 1);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_LOG_MAX_FT_NUM, 0);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_LOG_MAX_DEST, 0);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_LOG_MAX_FLOW, EMU_ETH_LOG_MAX_RULES);
    PRM_SET(cap, PRM_FT_CAP_NIC_RX_FIELDS,
            PRM_FT_FIELD_OUTER_DMAC | PRM_FT_FIELD_OUTER_SMAC | PRM_FT_FIELD_OUTER_ETHER_TYPE |
                    PRM_FT_FIELD_OUTER_IP_VERSION | PRM_FT_FIELD_OUTER_SIP |
                    PRM_FT_FIELD_OUTER_DIP | PRM_FT_FIELD_OUTER_IP_PROTOCOL |
                    PRM_FT_FIELD_OUTER_UDP_SPORT | PRM_FT_FIELD_OUTER_UDP_DPORT |
                    PRM_FT_FIELD_OUTER_TCP_SPORT | PRM_FT_FIELD_OUTER_TCP_DPORT);
}

static void devx_cap_general_2(void *cap)
{
    if (!emu_devx_no_dbr_supported())
        return;
    PRM_SET(cap, PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_EXT, 1);
    PRM_SET(cap, PRM_HCA_CAP2_LOG_MAX_SEND_DBR_LESS_QP_SQ, DEVX_CAP_LOG_MAX_SEND_DBR);
}

uint8_t devx_query_hca_cap(struct devx_cmd *c)
{
    void *cap = devx_out_at(c, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    unsigned int type = c->op_mod >> 1;

    if (PRM_GET(c->in, PRM_QUERY_HCA_CAP_IN_OTHER_FUNCTION))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CAP_TYPE,
                         "other_function: the device has no other functions");
    switch (type) {
    case PRM_HCA_CAP_TYPE_GENERAL:
        devx_cap_general(c->nic, cap);
        return PRM_CMD_STAT_OK;
    case PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS:
        devx_cap_ethernet(cap);
        return PRM_CMD_STAT_OK;
    case PRM_HCA_CAP_TYPE_FLOW_TABLE:
        devx_cap_flow_table(cap);
        return PRM_CMD_STAT_OK;
    case PRM_HCA_CAP_TYPE_GENERAL_2:
        devx_cap_general_2(cap);
        return PRM_CMD_STAT_OK;
    default:
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_CAP_TYPE,
                         "capability group not implemented by the device");
    }
}
