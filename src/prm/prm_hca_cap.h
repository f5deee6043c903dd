/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QUERY_HCA_CAP and the capability fields the library reads.
 *
 * The capability block sits at PRM_QUERY_HCA_CAP_OUT_CAPABILITY in the output
 * mailbox; which block it is depends on op_mod (PRM_HCA_CAP_OP_MOD in
 * prm_cmd.h). Field offsets below are relative to the block.
 */
#ifndef PRM_HCA_CAP_H
#define PRM_HCA_CAP_H

#include "prm/prm_bits.h"

/* query_hca_cap_in / query_hca_cap_out */
#define PRM_QUERY_HCA_CAP_IN_SIZE           0x10
#define PRM_QUERY_HCA_CAP_IN_OTHER_FUNCTION 0x08, 31, 1
#define PRM_QUERY_HCA_CAP_IN_FUNCTION_ID    0x08, 0, 16
#define PRM_QUERY_HCA_CAP_OUT_SIZE          0x1010
#define PRM_QUERY_HCA_CAP_OUT_CAPABILITY    0x10
/* The capability block: the output mailbox after its 16-byte header. */
#define PRM_HCA_CAP_BLOCK_SIZE              0x1000

/* cmd_hca_cap: general device capabilities (op_mod type 0x0). */
#define PRM_CMD_HCA_CAP_SIZE                     0x100
#define PRM_HCA_CAP_VHCA_ID                      0x04, 0, 16
#define PRM_HCA_CAP_HCA_CAP_2                    0x04, 31, 1
#define PRM_HCA_CAP_LOG_MAX_SRQ_SZ               0x10, 24, 8
#define PRM_HCA_CAP_LOG_MAX_QP_SZ                0x10, 16, 8
#define PRM_HCA_CAP_LOG_MAX_QP                   0x10, 0, 5
#define PRM_HCA_CAP_LOG_MAX_SRQ                  0x14, 16, 5
#define PRM_HCA_CAP_LOG_MAX_CQ_SZ                0x18, 16, 8
#define PRM_HCA_CAP_LOG_MAX_CQ                   0x18, 0, 5
#define PRM_HCA_CAP_LOG_MAX_EQ_SZ                0x1c, 24, 8
#define PRM_HCA_CAP_LOG_MAX_MKEY                 0x1c, 16, 6
#define PRM_HCA_CAP_LOG_MAX_EQ                   0x1c, 0, 4
#define PRM_HCA_CAP_LOG_MAX_MRW_SZ               0x20, 16, 7
#define PRM_HCA_CAP_LOG_MAX_KLM_LIST_SIZE        0x20, 0, 6
#define PRM_HCA_CAP_LOG_MAX_RA_REQ_DC            0x24, 16, 6
#define PRM_HCA_CAP_LOG_MAX_RA_RES_DC            0x24, 0, 6
#define PRM_HCA_CAP_LOG_MAX_RA_REQ_QP            0x28, 16, 6
#define PRM_HCA_CAP_RTS2RTS_LAG_TX_PORT_AFFINITY 0x28, 13, 1
#define PRM_HCA_CAP_LOG_MAX_RA_RES_QP            0x28, 0, 6
#define PRM_HCA_CAP_GID_TABLE_SIZE               0x2c, 0, 16
#define PRM_HCA_CAP_PKEY_TABLE_SIZE              0x30, 0, 16
#define PRM_HCA_CAP_ETH_VIRT                     0x34, 28, 1
#define PRM_HCA_CAP_NIC_FLOW_TABLE               0x34, 25, 1
#define PRM_HCA_CAP_LOCAL_CA_ACK_DELAY           0x34, 16, 5
#define PRM_HCA_CAP_PORT_TYPE                    0x34, 8, 2
#define PRM_HCA_CAP_NUM_PORTS                    0x34, 0, 8
#define PRM_HCA_CAP_LOG_MAX_MSG                  0x38, 24, 5
#define PRM_HCA_CAP_STAT_RATE_SUPPORT            0x3c, 16, 16
#define PRM_HCA_CAP_INIT2_LAG_TX_PORT_AFFINITY   0x3c, 7, 1
#define PRM_HCA_CAP_CQE_VERSION                  0x3c, 0, 4
#define PRM_HCA_CAP_DCT                          0x40, 5, 1
#define PRM_HCA_CAP_ETH_NET_OFFLOADS             0x40, 3, 1
#define PRM_HCA_CAP_ROCE                         0x40, 2, 1
#define PRM_HCA_CAP_ATOMIC                       0x40, 1, 1
#define PRM_HCA_CAP_CQ_OI                        0x44, 31, 1
#define PRM_HCA_CAP_CQ_RESIZE                    0x44, 30, 1
#define PRM_HCA_CAP_CQ_MODERATION                0x44, 29, 1
#define PRM_HCA_CAP_XRC                          0x44, 3, 1
#define PRM_HCA_CAP_UD                           0x44, 2, 1
#define PRM_HCA_CAP_UC                           0x44, 1, 1
#define PRM_HCA_CAP_RC                           0x44, 0, 1
#define PRM_HCA_CAP_UAR_4K                       0x48, 31, 1
#define PRM_HCA_CAP_UAR_SZ                       0x48, 16, 6
#define PRM_HCA_CAP_UMEM_UID_0                   0x48, 13, 1
#define PRM_HCA_CAP_LOG_PG_SZ                    0x48, 0, 8
#define PRM_HCA_CAP_BF                           0x4c, 31, 1
#define PRM_HCA_CAP_LOG_BF_REG_SIZE              0x4c, 16, 5
#define PRM_HCA_CAP_LAG_TX_PORT_AFFINITY         0x4c, 7, 1
#define PRM_HCA_CAP_NUM_LAG_PORTS                0x4c, 0, 4
#define PRM_HCA_CAP_MAX_WQE_SZ_SQ                0x50, 0, 16
#define PRM_HCA_CAP_MAX_WQE_SZ_RQ                0x54, 0, 16
#define PRM_HCA_CAP_LOG_MAX_TRANSPORT_DOMAIN     0x64, 24, 5
#define PRM_HCA_CAP_LOG_MAX_PD                   0x64, 16, 5
#define PRM_HCA_CAP_LOG_MAX_RQ                   0x6c, 24, 5
#define PRM_HCA_CAP_LOG_MAX_SQ                   0x6c, 16, 5
#define PRM_HCA_CAP_LOG_MAX_TIR                  0x6c, 8, 5
#define PRM_HCA_CAP_LOG_MAX_TIS                  0x6c, 0, 5
#define PRM_HCA_CAP_LOG_MAX_WQ_SZ                0x78, 0, 5
#define PRM_HCA_CAP_GENERAL_OBJ_TYPES            0x80, 0, 64
#define PRM_HCA_CAP_SQ_TS_FORMAT                 0x88, 30, 2
#define PRM_HCA_CAP_RQ_TS_FORMAT                 0x88, 28, 2
#define PRM_HCA_CAP_LOG_MAX_UCTX                 0x8c, 24, 5
#define PRM_HCA_CAP_LOG_MAX_UMEM                 0x8c, 16, 5
#define PRM_HCA_CAP_LOG_UAR_PAGE_SZ              0x90, 0, 16
#define PRM_HCA_CAP_DEVICE_FREQUENCY_KHZ         0x9c, 0, 32
#define PRM_HCA_CAP_NUM_OF_UARS_PER_PAGE         0xa4, 0, 32
#define PRM_HCA_CAP_CQE_128_ALWAYS               0xb4, 2, 1
#define PRM_HCA_CAP_CQE_COMPRESSION_128          0xb4, 1, 1
#define PRM_HCA_CAP_CQE_COMPRESSION              0xb4, 0, 1
#define PRM_HCA_CAP_CQE_COMPRESSION_MAX_NUM      0xb8, 0, 16

/* port_type values */
#define PRM_HCA_CAP_PORT_TYPE_IB  0x0
#define PRM_HCA_CAP_PORT_TYPE_ETH 0x1

/* cmd_hca_cap_2: general device capabilities 2 (op_mod type 0x20). */
#define PRM_HCA_CAP2_SW_VHCA_ID_VALID            0x44, 30, 1
#define PRM_HCA_CAP2_SW_VHCA_ID                  0x44, 16, 14
/*
 * Doorbell-record-less send queues (QPC send_dbr_mode, see prm_qp.h). Not in
 * the Linux 6.1 layout; taken from rdma-core's PRM structures
 * (tests/mlx5_prm_structs.py, CmdHcaCap2): the word after
 * max_enh_strwq_supported_profile.
 */
#define PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_INT    0x5c, 31, 1
#define PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_EXT    0x5c, 30, 1
#define PRM_HCA_CAP2_LOG_MAX_SEND_DBR_LESS_QP_SQ 0x5c, 24, 5

/*
 * per_protocol_networking_offload_caps: Ethernet offload capabilities
 * (op_mod type 0x1).
 */
#define PRM_ETH_CAP_CSUM_CAP                    0x00, 31, 1
#define PRM_ETH_CAP_VLAN_CAP                    0x00, 30, 1
#define PRM_ETH_CAP_LRO_CAP                     0x00, 29, 1
#define PRM_ETH_CAP_WQE_VLAN_INSERT             0x00, 24, 1
#define PRM_ETH_CAP_SELF_LB_EN_MODIFIABLE       0x00, 23, 1
#define PRM_ETH_CAP_MAX_LSO_CAP                 0x00, 16, 5
#define PRM_ETH_CAP_MULTI_PKT_SEND_WQE          0x00, 14, 2
#define PRM_ETH_CAP_WQE_INLINE_MODE             0x00, 12, 2
#define PRM_ETH_CAP_RSS_IND_TBL_CAP             0x00, 8, 4
#define PRM_ETH_CAP_SCATTER_FCS                 0x00, 6, 1
#define PRM_ETH_CAP_ENHANCED_MULTI_PKT_SEND_WQE 0x00, 5, 1
#define PRM_ETH_CAP_SWP                         0x04, 31, 1
#define PRM_ETH_CAP_CQE_CHECKSUM_FULL           0x04, 28, 1
#define PRM_ETH_CAP_LRO_MIN_MSS_SIZE            0x08, 0, 16

/* wqe_inline_mode values: what the SQ must inline in each send WQE. */
#define PRM_ETH_CAP_INLINE_MODE_L2           0x0
#define PRM_ETH_CAP_INLINE_MODE_VPORT_CTX    0x1
#define PRM_ETH_CAP_INLINE_MODE_NOT_REQUIRED 0x2

#endif /* PRM_HCA_CAP_H */
