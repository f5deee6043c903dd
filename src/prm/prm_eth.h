/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw Ethernet objects: work queue context (PRM wq) inside the RQ and SQ
 * contexts (PRM rqc, sqc), CREATE/MODIFY/DESTROY_RQ and _SQ, TIR (PRM tirc),
 * TIS (PRM tisc), PD and transport domain allocation, and the NIC RX flow
 * steering commands needed for one simple rule: match outer destination MAC,
 * ethertype and UDP destination port, forward to a TIR.
 */
#ifndef PRM_ETH_H
#define PRM_ETH_H

#include "prm/prm_bits.h"

/* wq: work queue context, nested in rqc and sqc at PRM_RQC_WQ / PRM_SQC_WQ. */
#define PRM_WQ_SIZE             0xc0
#define PRM_WQ_WQ_TYPE          0x00, 28, 4
#define PRM_WQ_WQ_SIGNATURE     0x00, 27, 1
#define PRM_WQ_END_PADDING_MODE 0x00, 25, 2
#define PRM_WQ_CD_SLAVE         0x00, 24, 1
#define PRM_WQ_PAGE_OFFSET      0x04, 16, 5
#define PRM_WQ_LWM              0x04, 0, 16
#define PRM_WQ_PD               0x08, 0, 24
#define PRM_WQ_UAR_PAGE         0x0c, 0, 24
#define PRM_WQ_DBR_ADDR         0x10, 0, 64
#define PRM_WQ_HW_COUNTER       0x18, 0, 32
#define PRM_WQ_SW_COUNTER       0x1c, 0, 32
#define PRM_WQ_LOG_WQ_STRIDE    0x20, 16, 4
#define PRM_WQ_LOG_WQ_PG_SZ     0x20, 8, 5
#define PRM_WQ_LOG_WQ_SZ        0x20, 0, 5
#define PRM_WQ_DBR_UMEM_VALID   0x24, 31, 1
#define PRM_WQ_WQ_UMEM_VALID    0x24, 30, 1
/* dbr_umem_id / wq_umem_id / wq_umem_offset: newer PRM (rdma-core / DPDK); reserved in Linux 6.1.
 */
#define PRM_WQ_DBR_UMEM_ID      0x28, 0, 32
#define PRM_WQ_WQ_UMEM_ID       0x2c, 0, 32
#define PRM_WQ_WQ_UMEM_OFFSET   0x30, 0, 64
#define PRM_WQ_PAS              0xc0

/* wq.wq_type */
#define PRM_WQ_TYPE_LINKED_LIST          0x0
#define PRM_WQ_TYPE_CYCLIC               0x1
#define PRM_WQ_TYPE_LINKED_LIST_STRIDING 0x2
#define PRM_WQ_TYPE_CYCLIC_STRIDING      0x3

/* rqc: receive queue context */
#define PRM_RQC_SIZE              0xf0
#define PRM_RQC_RLKY              0x00, 31, 1
#define PRM_RQC_DELAY_DROP_EN     0x00, 30, 1
#define PRM_RQC_SCATTER_FCS       0x00, 29, 1
#define PRM_RQC_VSD               0x00, 28, 1
#define PRM_RQC_MEM_RQ_TYPE       0x00, 24, 4
#define PRM_RQC_STATE             0x00, 20, 4
#define PRM_RQC_FLUSH_IN_ERROR_EN 0x00, 18, 1
#define PRM_RQC_TS_FORMAT         0x00, 4, 2
#define PRM_RQC_USER_INDEX        0x04, 0, 24
#define PRM_RQC_CQN               0x08, 0, 24
#define PRM_RQC_COUNTER_SET_ID    0x0c, 24, 8
#define PRM_RQC_RMPN              0x10, 0, 24
#define PRM_RQC_WQ                0x30

#define PRM_RQC_MEM_RQ_TYPE_INLINE 0x0
#define PRM_RQC_MEM_RQ_TYPE_RMP    0x1

/* sqc: send queue context */
#define PRM_SQC_SIZE                           0xf0
#define PRM_SQC_RLKY                           0x00, 31, 1
#define PRM_SQC_CD_MASTER                      0x00, 30, 1
#define PRM_SQC_FRE                            0x00, 29, 1
#define PRM_SQC_FLUSH_IN_ERROR_EN              0x00, 28, 1
#define PRM_SQC_ALLOW_MULTI_PKT_SEND_WQE       0x00, 27, 1
#define PRM_SQC_MIN_WQE_INLINE_MODE            0x00, 24, 3
#define PRM_SQC_STATE                          0x00, 20, 4
#define PRM_SQC_REG_UMR                        0x00, 19, 1
#define PRM_SQC_ALLOW_SWP                      0x00, 18, 1
#define PRM_SQC_TS_FORMAT                      0x00, 4, 2
#define PRM_SQC_USER_INDEX                     0x04, 0, 24
#define PRM_SQC_CQN                            0x08, 0, 24
#define PRM_SQC_PACKET_PACING_RATE_LIMIT_INDEX 0x1c, 0, 16
#define PRM_SQC_TIS_LST_SZ                     0x20, 16, 16
#define PRM_SQC_TIS_NUM_0                      0x2c, 0, 24
#define PRM_SQC_WQ                             0x30

/* rqc.state / sqc.state and MODIFY_RQ rq_state / MODIFY_SQ sq_state */
#define PRM_WQ_STATE_RST 0x0
#define PRM_WQ_STATE_RDY 0x1
#define PRM_WQ_STATE_ERR 0x3

/* create_rq_in / create_rq_out */
#define PRM_CREATE_RQ_IN_SIZE  0x110
#define PRM_CREATE_RQ_IN_RQC   0x20
#define PRM_CREATE_RQ_OUT_SIZE 0x10
#define PRM_CREATE_RQ_OUT_RQN  0x08, 0, 24

/* modify_rq_in / modify_rq_out: rq_state is the current state, rqc.state the next. */
#define PRM_MODIFY_RQ_IN_SIZE           0x110
#define PRM_MODIFY_RQ_IN_RQ_STATE       0x08, 28, 4
#define PRM_MODIFY_RQ_IN_RQN            0x08, 0, 24
#define PRM_MODIFY_RQ_IN_MODIFY_BITMASK 0x10, 0, 64
#define PRM_MODIFY_RQ_IN_RQC            0x20
#define PRM_MODIFY_RQ_OUT_SIZE          0x10

/* query_rq_in / query_rq_out (the rqc as it is now) */
#define PRM_QUERY_RQ_IN_SIZE  0x10
#define PRM_QUERY_RQ_IN_RQN   0x08, 0, 24
#define PRM_QUERY_RQ_OUT_SIZE 0x110
#define PRM_QUERY_RQ_OUT_RQC  0x20

#define PRM_MODIFY_RQ_BITMASK_VSD            (1ull << 1)
#define PRM_MODIFY_RQ_BITMASK_SCATTER_FCS    (1ull << 2)
#define PRM_MODIFY_RQ_BITMASK_COUNTER_SET_ID (1ull << 3)

/* destroy_rq_in */
#define PRM_DESTROY_RQ_IN_SIZE 0x10
#define PRM_DESTROY_RQ_IN_RQN  0x08, 0, 24

/* create_sq_in / create_sq_out */
#define PRM_CREATE_SQ_IN_SIZE  0x110
#define PRM_CREATE_SQ_IN_SQC   0x20
#define PRM_CREATE_SQ_OUT_SIZE 0x10
#define PRM_CREATE_SQ_OUT_SQN  0x08, 0, 24

/* modify_sq_in: sq_state is the current state, sqc.state the next. */
#define PRM_MODIFY_SQ_IN_SIZE           0x110
#define PRM_MODIFY_SQ_IN_SQ_STATE       0x08, 28, 4
#define PRM_MODIFY_SQ_IN_SQN            0x08, 0, 24
#define PRM_MODIFY_SQ_IN_MODIFY_BITMASK 0x10, 0, 64
#define PRM_MODIFY_SQ_IN_SQC            0x20

#define PRM_MODIFY_SQ_OUT_SIZE 0x10

#define PRM_MODIFY_SQ_BITMASK_PACKET_PACING_RATE_LIMIT_INDEX (1ull << 0)

/* query_sq_in / query_sq_out (the sqc as it is now) */
#define PRM_QUERY_SQ_IN_SIZE  0x10
#define PRM_QUERY_SQ_IN_SQN   0x08, 0, 24
#define PRM_QUERY_SQ_OUT_SIZE 0x110
#define PRM_QUERY_SQ_OUT_SQC  0x20

/* destroy_sq_in */
#define PRM_DESTROY_SQ_IN_SIZE 0x10
#define PRM_DESTROY_SQ_IN_SQN  0x08, 0, 24

/* tirc: transport interface receive context */
#define PRM_TIRC_SIZE                     0xf0
#define PRM_TIRC_DISP_TYPE                0x04, 28, 4
#define PRM_TIRC_LRO_TIMEOUT_PERIOD_USECS 0x10, 12, 16
#define PRM_TIRC_LRO_ENABLE_MASK          0x10, 8, 4
#define PRM_TIRC_LRO_MAX_IP_PAYLOAD_SIZE  0x10, 0, 8
#define PRM_TIRC_INLINE_RQN               0x1c, 0, 24
#define PRM_TIRC_TUNNELED_OFFLOAD_EN      0x20, 29, 1
#define PRM_TIRC_INDIRECT_TABLE           0x20, 0, 24
#define PRM_TIRC_RX_HASH_SYMMETRIC        0x20, 31, 1
#define PRM_TIRC_RX_HASH_FN               0x24, 28, 4
#define PRM_TIRC_SELF_LB_BLOCK            0x24, 24, 2
#define PRM_TIRC_TRANSPORT_DOMAIN         0x24, 0, 24
/* rx_hash_toeplitz_key: 40 bytes, the key in the order the Toeplitz function consumes it. */
#define PRM_TIRC_RX_HASH_TOEPLITZ_KEY     0x28
#define PRM_TIRC_RX_HASH_TOEPLITZ_KEY_LEN 40
/* rx_hash_field_selector_outer / _inner (rx_hash_field_select, one word each). */
#define PRM_TIRC_RX_HASH_FIELD_OUTER      0x50
#define PRM_TIRC_RX_HASH_FIELD_INNER      0x54

#define PRM_TIRC_DISP_TYPE_DIRECT   0x0
#define PRM_TIRC_DISP_TYPE_INDIRECT 0x1

/* tirc.rx_hash_fn */
#define PRM_RX_HASH_FN_NONE        0x0
#define PRM_RX_HASH_FN_INVERT_XOR8 0x1
#define PRM_RX_HASH_FN_TOEPLITZ    0x2

/* rx_hash_field_select: protocol types and the fields hashed. */
#define PRM_RX_HASH_L3_PROT_TYPE    0x00, 31, 1 /* 0 IPv4, 1 IPv6 */
#define PRM_RX_HASH_L4_PROT_TYPE    0x00, 30, 1 /* 0 TCP, 1 UDP */
#define PRM_RX_HASH_SELECTED_FIELDS 0x00, 0, 30
#define PRM_RX_HASH_L3_IPV4         0x0
#define PRM_RX_HASH_L3_IPV6         0x1
#define PRM_RX_HASH_L4_TCP          0x0
#define PRM_RX_HASH_L4_UDP          0x1
#define PRM_RX_HASH_SEL_SRC_IP      (1u << 0)
#define PRM_RX_HASH_SEL_DST_IP      (1u << 1)
#define PRM_RX_HASH_SEL_L4_SPORT    (1u << 2)
#define PRM_RX_HASH_SEL_L4_DPORT    (1u << 3)

/* create_tir_in / create_tir_out / destroy_tir_in */
#define PRM_CREATE_TIR_IN_SIZE  0x110
#define PRM_CREATE_TIR_IN_TIRC  0x20
#define PRM_CREATE_TIR_OUT_SIZE 0x10
#define PRM_CREATE_TIR_OUT_TIRN 0x08, 0, 24
#define PRM_DESTROY_TIR_IN_SIZE 0x10
#define PRM_DESTROY_TIR_IN_TIRN 0x08, 0, 24

/* tisc: transport interface send context */
#define PRM_TISC_SIZE                        0xa0
#define PRM_TISC_STRICT_LAG_TX_PORT_AFFINITY 0x00, 31, 1
#define PRM_TISC_LAG_TX_PORT_AFFINITY        0x00, 24, 4
#define PRM_TISC_PRIO                        0x00, 16, 4
#define PRM_TISC_TRANSPORT_DOMAIN            0x24, 0, 24
#define PRM_TISC_UNDERLAY_QPN                0x28, 0, 24
#define PRM_TISC_PD                          0x2c, 0, 24

/* create_tis_in / create_tis_out / destroy_tis_in */
#define PRM_CREATE_TIS_IN_SIZE  0xc0
#define PRM_CREATE_TIS_IN_TISC  0x20
#define PRM_CREATE_TIS_OUT_SIZE 0x10
#define PRM_CREATE_TIS_OUT_TISN 0x08, 0, 24
#define PRM_DESTROY_TIS_IN_SIZE 0x10
#define PRM_DESTROY_TIS_IN_TISN 0x08, 0, 24

/* rqtc: receive queue table context; the RQ numbers follow it (one word each, rq_num [23:0]). */
#define PRM_RQTC_SIZE            0xf0
#define PRM_RQTC_LIST_Q_TYPE     0x14, 24, 3
#define PRM_RQTC_RQT_MAX_SIZE    0x14, 0, 16
#define PRM_RQTC_RQT_ACTUAL_SIZE 0x18, 0, 16
#define PRM_RQTC_RQ_NUM          0xf0 /* byte offset of rq_num[0] */
#define PRM_RQ_NUM_SIZE          0x04
#define PRM_RQ_NUM_RQN           0x00, 0, 24

/* create_rqt_in / _out, destroy_rqt_in */
#define PRM_CREATE_RQT_IN_SIZE  0x110 /* with no RQ numbers: add 4 bytes per RQ */
#define PRM_CREATE_RQT_IN_RQTC  0x20
#define PRM_CREATE_RQT_OUT_SIZE 0x10
#define PRM_CREATE_RQT_OUT_RQTN 0x08, 0, 24
#define PRM_DESTROY_RQT_IN_SIZE 0x10
#define PRM_DESTROY_RQT_IN_RQTN 0x08, 0, 24

/* alloc_q_counter_out, dealloc_q_counter_in, query_q_counter_in / _out */
#define PRM_ALLOC_Q_COUNTER_IN_SIZE             0x10
#define PRM_ALLOC_Q_COUNTER_OUT_SIZE            0x10
#define PRM_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID  0x08, 0, 8
#define PRM_DEALLOC_Q_COUNTER_IN_SIZE           0x10
#define PRM_DEALLOC_Q_COUNTER_IN_COUNTER_SET_ID 0x08, 0, 8
#define PRM_QUERY_Q_COUNTER_IN_SIZE             0x20
#define PRM_QUERY_Q_COUNTER_IN_CLEAR            0x18, 31, 1
#define PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID   0x1c, 0, 8
#define PRM_QUERY_Q_COUNTER_OUT_SIZE            0x100
#define PRM_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER   0x28, 0, 32

/*
 * Opcodes of the raw Ethernet commands that prm_cmd.h does not list (PRM
 * "Command Opcodes" table).
 */
#define PRM_CMD_ALLOC_Q_COUNTER   0x771
#define PRM_CMD_DEALLOC_Q_COUNTER 0x772
#define PRM_CMD_QUERY_Q_COUNTER   0x773
#define PRM_CMD_QUERY_TIR         0x903
#define PRM_CMD_QUERY_TIS         0x915
#define PRM_CMD_CREATE_RQT        0x916
#define PRM_CMD_DESTROY_RQT       0x918

/* alloc_pd_in / alloc_pd_out / dealloc_pd_in */
#define PRM_ALLOC_PD_IN_SIZE   0x10
#define PRM_ALLOC_PD_OUT_SIZE  0x10
#define PRM_ALLOC_PD_OUT_PD    0x08, 0, 24
#define PRM_DEALLOC_PD_IN_SIZE 0x10
#define PRM_DEALLOC_PD_IN_PD   0x08, 0, 24

/* alloc_transport_domain_in / _out / dealloc_transport_domain_in */
#define PRM_ALLOC_TRANSPORT_DOMAIN_IN_SIZE   0x10
#define PRM_ALLOC_TRANSPORT_DOMAIN_OUT_SIZE  0x10
#define PRM_ALLOC_TRANSPORT_DOMAIN_OUT_TD    0x08, 0, 24
#define PRM_DEALLOC_TRANSPORT_DOMAIN_IN_SIZE 0x10
#define PRM_DEALLOC_TRANSPORT_DOMAIN_IN_TD   0x08, 0, 24

/*
 * flow_table_nic_cap (QUERY_HCA_CAP type FLOW_TABLE): the NIC receive table's
 * properties (flow_table_prop_layout at 0x40) and the match fields it supports
 * (flow_table_fields_supported at 0x60).
 */
#define PRM_FT_CAP_NIC_RX_FT_SUPPORT      0x40, 31, 1
#define PRM_FT_CAP_NIC_RX_LOG_MAX_FT_SIZE 0x44, 24, 6
#define PRM_FT_CAP_NIC_RX_MAX_FT_LEVEL    0x44, 0, 8
#define PRM_FT_CAP_NIC_RX_LOG_MAX_FT_NUM  0x4c, 0, 8
#define PRM_FT_CAP_NIC_RX_LOG_MAX_DEST    0x50, 0, 8
#define PRM_FT_CAP_NIC_RX_LOG_MAX_FLOW    0x54, 0, 8
#define PRM_FT_CAP_NIC_RX_FIELDS          0x60, 0, 32
#define PRM_FT_FIELD_OUTER_DMAC           (1u << 31)
#define PRM_FT_FIELD_OUTER_SMAC           (1u << 30)
#define PRM_FT_FIELD_OUTER_ETHER_TYPE     (1u << 29)
#define PRM_FT_FIELD_OUTER_IP_VERSION     (1u << 28)
#define PRM_FT_FIELD_OUTER_SIP            (1u << 19)
#define PRM_FT_FIELD_OUTER_DIP            (1u << 18)
#define PRM_FT_FIELD_OUTER_IP_PROTOCOL    (1u << 16)
#define PRM_FT_FIELD_OUTER_UDP_SPORT      (1u << 13)
#define PRM_FT_FIELD_OUTER_UDP_DPORT      (1u << 12)
#define PRM_FT_FIELD_OUTER_TCP_SPORT      (1u << 11)
#define PRM_FT_FIELD_OUTER_TCP_DPORT      (1u << 10)

/* cmd_hca_cap (general capabilities) fields of raw Ethernet that prm_hca_cap.h does not list. */
#define PRM_HCA_CAP_MAX_QP_CNT           0x30, 16, 10 /* Q counters */
#define PRM_HCA_CAP_BASIC_CYCLIC_RCV_WQE 0x70, 31, 1
#define PRM_HCA_CAP_LOG_MAX_RQT          0x70, 16, 5
#define PRM_HCA_CAP_LOG_MAX_RQT_SIZE     0x70, 8, 5
#define PRM_HCA_CAP_LOG_MAX_TIS_PER_SQ   0x70, 0, 5

/* Flow tables: table_type values */
#define PRM_FLOW_TABLE_TYPE_NIC_RX 0x0
#define PRM_FLOW_TABLE_TYPE_NIC_TX 0x1

/* flow_table_context, nested in create_flow_table_in */
#define PRM_FLOW_TABLE_CTX_TABLE_MISS_ACTION 0x00, 24, 4
#define PRM_FLOW_TABLE_CTX_LEVEL             0x00, 16, 8
#define PRM_FLOW_TABLE_CTX_LOG_SIZE          0x00, 0, 8
#define PRM_FLOW_TABLE_CTX_TABLE_MISS_ID     0x04, 0, 24

/* create_flow_table_in / _out, destroy_flow_table_in */
#define PRM_CREATE_FLOW_TABLE_IN_SIZE        0x40
#define PRM_CREATE_FLOW_TABLE_IN_TABLE_TYPE  0x10, 24, 8
#define PRM_CREATE_FLOW_TABLE_IN_CTX         0x18
#define PRM_CREATE_FLOW_TABLE_OUT_SIZE       0x10
#define PRM_CREATE_FLOW_TABLE_OUT_TABLE_ID   0x08, 0, 24
#define PRM_DESTROY_FLOW_TABLE_IN_SIZE       0x40
#define PRM_DESTROY_FLOW_TABLE_IN_TABLE_TYPE 0x10, 24, 8
#define PRM_DESTROY_FLOW_TABLE_IN_TABLE_ID   0x14, 0, 24

/* fte_match_param: match criteria (masks) and match values; outer headers first. */
#define PRM_FTE_MATCH_PARAM_SIZE          0x200
#define PRM_FTE_MATCH_PARAM_OUTER_HEADERS 0x00

/* fte_match_set_lyr_2_4: outer L2-L4 header fields */
#define PRM_FTE_L24_SMAC_47_16  0x00, 0, 32
#define PRM_FTE_L24_SMAC_15_0   0x04, 16, 16
#define PRM_FTE_L24_ETHERTYPE   0x04, 0, 16
#define PRM_FTE_L24_DMAC_47_16  0x08, 0, 32
#define PRM_FTE_L24_DMAC_15_0   0x0c, 16, 16
#define PRM_FTE_L24_FIRST_VID   0x0c, 0, 12
#define PRM_FTE_L24_IP_PROTOCOL 0x10, 24, 8
#define PRM_FTE_L24_CVLAN_TAG   0x10, 15, 1
#define PRM_FTE_L24_IP_VERSION  0x10, 9, 4
#define PRM_FTE_L24_TCP_SPORT   0x18, 16, 16
#define PRM_FTE_L24_TCP_DPORT   0x18, 0, 16
#define PRM_FTE_L24_UDP_SPORT   0x1c, 16, 16
#define PRM_FTE_L24_UDP_DPORT   0x1c, 0, 16
#define PRM_FTE_L24_SRC_IPV4    0x2c, 0, 32
#define PRM_FTE_L24_DST_IPV4    0x3c, 0, 32

#define PRM_FTE_L24_SIZE 0x40

/* match_criteria_enable bits */
#define PRM_MATCH_OUTER_HEADERS   (1u << 0)
#define PRM_MATCH_MISC_PARAMETERS (1u << 1)
#define PRM_MATCH_INNER_HEADERS   (1u << 2)

/* create_flow_group_in / _out, destroy_flow_group_in */
#define PRM_CREATE_FLOW_GROUP_IN_SIZE                  0x400
#define PRM_CREATE_FLOW_GROUP_IN_TABLE_TYPE            0x10, 24, 8
#define PRM_CREATE_FLOW_GROUP_IN_TABLE_ID              0x14, 0, 24
#define PRM_CREATE_FLOW_GROUP_IN_START_FLOW_INDEX      0x1c, 0, 32
#define PRM_CREATE_FLOW_GROUP_IN_END_FLOW_INDEX        0x24, 0, 32
#define PRM_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA_ENABLE 0x3c, 0, 8
#define PRM_CREATE_FLOW_GROUP_IN_MATCH_CRITERIA        0x40
#define PRM_CREATE_FLOW_GROUP_OUT_SIZE                 0x10
#define PRM_CREATE_FLOW_GROUP_OUT_GROUP_ID             0x08, 0, 24
#define PRM_DESTROY_FLOW_GROUP_IN_SIZE                 0x40
#define PRM_DESTROY_FLOW_GROUP_IN_TABLE_TYPE           0x10, 24, 8
#define PRM_DESTROY_FLOW_GROUP_IN_TABLE_ID             0x14, 0, 24
#define PRM_DESTROY_FLOW_GROUP_IN_GROUP_ID             0x18, 0, 32

/* flow_context, nested in set_fte_in; destinations follow it. */
#define PRM_FLOW_CTX_SIZE                   0x300
#define PRM_FLOW_CTX_GROUP_ID               0x04, 0, 32
#define PRM_FLOW_CTX_FLOW_TAG               0x08, 0, 24
#define PRM_FLOW_CTX_ACTION                 0x0c, 0, 16
#define PRM_FLOW_CTX_DESTINATION_LIST_SIZE  0x10, 0, 24
#define PRM_FLOW_CTX_FLOW_COUNTER_LIST_SIZE 0x14, 0, 24
#define PRM_FLOW_CTX_MATCH_VALUE            0x40
#define PRM_FLOW_CTX_DESTINATION            0x300

/* flow_context.action bits */
#define PRM_FLOW_ACTION_ALLOW    (1u << 0)
#define PRM_FLOW_ACTION_DROP     (1u << 1)
#define PRM_FLOW_ACTION_FWD_DEST (1u << 2)

/* dest_format_struct: one destination entry */
#define PRM_DEST_FORMAT_SIZE             0x08
#define PRM_DEST_FORMAT_DESTINATION_TYPE 0x00, 24, 8
#define PRM_DEST_FORMAT_DESTINATION_ID   0x00, 0, 24

#define PRM_FLOW_DEST_TYPE_VPORT      0x0
#define PRM_FLOW_DEST_TYPE_FLOW_TABLE 0x1
#define PRM_FLOW_DEST_TYPE_TIR        0x2

/* set_fte_in / set_fte_out, delete_fte_in */
#define PRM_SET_FTE_IN_SIZE          0x340 /* without destinations */
#define PRM_SET_FTE_IN_TABLE_TYPE    0x10, 24, 8
#define PRM_SET_FTE_IN_TABLE_ID      0x14, 0, 24
#define PRM_SET_FTE_IN_FLOW_INDEX    0x20, 0, 32
#define PRM_SET_FTE_IN_FLOW_CONTEXT  0x40
#define PRM_SET_FTE_OUT_SIZE         0x10
#define PRM_DELETE_FTE_IN_SIZE       0x40
#define PRM_DELETE_FTE_IN_TABLE_TYPE 0x10, 24, 8
#define PRM_DELETE_FTE_IN_TABLE_ID   0x14, 0, 24
#define PRM_DELETE_FTE_IN_FLOW_INDEX 0x20, 0, 32

#endif /* PRM_ETH_H */
