/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 DevX command mailboxes: the header every command shares, the command
 * opcodes, the status codes a command answers with, and the op_mod values of
 * QUERY_HCA_CAP.
 *
 * Every command input starts with opcode/uid/op_mod and every output with
 * status/syndrome at the same places (PRM "Command Interface": the common
 * input and output mailbox header, e.g. create_cq_in / create_cq_out).
 */
#ifndef PRM_CMD_H
#define PRM_CMD_H

#include "prm/prm_bits.h"

/* Input mailbox header (every *_in). */
#define PRM_CMD_OPCODE 0x00, 16, 16
#define PRM_CMD_UID    0x00, 0, 16
#define PRM_CMD_OP_MOD 0x04, 0, 16

/* Output mailbox header (every *_out). */
#define PRM_CMD_STATUS   0x00, 24, 8
#define PRM_CMD_SYNDROME 0x04, 0, 32

/* Smallest input and output mailbox: the header and one word of arguments. */
#define PRM_CMD_HDR_IN_SIZE  0x10
#define PRM_CMD_HDR_OUT_SIZE 0x10

/* Command opcodes (PRM "Command Opcodes" table). */
#define PRM_CMD_QUERY_HCA_CAP            0x100
#define PRM_CMD_CREATE_MKEY              0x200
#define PRM_CMD_QUERY_MKEY               0x201
#define PRM_CMD_DESTROY_MKEY             0x202
#define PRM_CMD_CREATE_CQ                0x400
#define PRM_CMD_DESTROY_CQ               0x401
#define PRM_CMD_QUERY_CQ                 0x402
#define PRM_CMD_MODIFY_CQ                0x403
#define PRM_CMD_CREATE_SRQ               0x700
#define PRM_CMD_DESTROY_SRQ              0x701
#define PRM_CMD_QUERY_SRQ                0x702
#define PRM_CMD_CREATE_QP                0x500
#define PRM_CMD_DESTROY_QP               0x501
#define PRM_CMD_RST2INIT_QP              0x502
#define PRM_CMD_INIT2RTR_QP              0x503
#define PRM_CMD_RTR2RTS_QP               0x504
#define PRM_CMD_RTS2RTS_QP               0x505
#define PRM_CMD_SQERR2RTS_QP             0x506
#define PRM_CMD_2ERR_QP                  0x507
#define PRM_CMD_2RST_QP                  0x50a
#define PRM_CMD_QUERY_QP                 0x50b
#define PRM_CMD_SQD_RTS_QP               0x50c
#define PRM_CMD_INIT2INIT_QP             0x50e
#define PRM_CMD_QUERY_NIC_VPORT_CONTEXT  0x754
#define PRM_CMD_MODIFY_NIC_VPORT_CONTEXT 0x755
#define PRM_CMD_QUERY_HCA_VPORT_CONTEXT  0x762
#define PRM_CMD_QUERY_HCA_VPORT_GID      0x764
#define PRM_CMD_ALLOC_PD                 0x800
#define PRM_CMD_DEALLOC_PD               0x801
#define PRM_CMD_ALLOC_TRANSPORT_DOMAIN   0x816
#define PRM_CMD_DEALLOC_TRANSPORT_DOMAIN 0x817
#define PRM_CMD_CREATE_TIR               0x900
#define PRM_CMD_DESTROY_TIR              0x902
#define PRM_CMD_CREATE_SQ                0x904
#define PRM_CMD_MODIFY_SQ                0x905
#define PRM_CMD_DESTROY_SQ               0x906
#define PRM_CMD_QUERY_SQ                 0x907
#define PRM_CMD_CREATE_RQ                0x908
#define PRM_CMD_MODIFY_RQ                0x909
#define PRM_CMD_DESTROY_RQ               0x90a
#define PRM_CMD_QUERY_RQ                 0x90b
#define PRM_CMD_CREATE_RMP               0x90c
#define PRM_CMD_MODIFY_RMP               0x90d
#define PRM_CMD_DESTROY_RMP              0x90e
#define PRM_CMD_QUERY_RMP                0x90f
#define PRM_CMD_CREATE_TIS               0x912
#define PRM_CMD_DESTROY_TIS              0x914
#define PRM_CMD_CREATE_FLOW_TABLE        0x930
#define PRM_CMD_DESTROY_FLOW_TABLE       0x931
#define PRM_CMD_CREATE_FLOW_GROUP        0x933
#define PRM_CMD_DESTROY_FLOW_GROUP       0x934
#define PRM_CMD_SET_FLOW_TABLE_ENTRY     0x936
#define PRM_CMD_DELETE_FLOW_TABLE_ENTRY  0x938
#define PRM_CMD_CREATE_GENERAL_OBJECT    0xa00
#define PRM_CMD_DESTROY_GENERAL_OBJECT   0xa03
#define PRM_CMD_CREATE_UMEM              0xa08
#define PRM_CMD_DESTROY_UMEM             0xa0a

/* Command completion status, the output mailbox's `status` byte. */
#define PRM_CMD_STAT_OK                 0x00
#define PRM_CMD_STAT_INTERNAL_ERR       0x01
#define PRM_CMD_STAT_BAD_OP             0x02
#define PRM_CMD_STAT_BAD_PARAM          0x03
#define PRM_CMD_STAT_BAD_SYS_STATE      0x04
#define PRM_CMD_STAT_BAD_RESOURCE       0x05
#define PRM_CMD_STAT_RESOURCE_BUSY      0x06
#define PRM_CMD_STAT_EXCEED_LIM         0x08
#define PRM_CMD_STAT_BAD_RES_STATE      0x09
#define PRM_CMD_STAT_BAD_INDEX          0x0a
#define PRM_CMD_STAT_NO_RESOURCES       0x0f
#define PRM_CMD_STAT_BAD_RESOURCE_STATE 0x10 /* "BAD_QP_STATE" in older tables */
#define PRM_CMD_STAT_BAD_PKT            0x30
#define PRM_CMD_STAT_BAD_SIZE           0x40 /* too many outstanding CQEs */
#define PRM_CMD_STAT_BAD_INPUT_LEN      0x50
#define PRM_CMD_STAT_BAD_OUTPUT_LEN     0x51

/*
 * QUERY_HCA_CAP op_mod: bits 15..1 select the capability group, bit 0 asks
 * for the current (1) or the maximum (0) values.
 */
#define PRM_HCA_CAP_OPMOD_MAX     0x0
#define PRM_HCA_CAP_OPMOD_CURRENT 0x1

#define PRM_HCA_CAP_TYPE_GENERAL           0x00
#define PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS 0x01
#define PRM_HCA_CAP_TYPE_ODP               0x02
#define PRM_HCA_CAP_TYPE_ATOMIC            0x03
#define PRM_HCA_CAP_TYPE_ROCE              0x04
#define PRM_HCA_CAP_TYPE_FLOW_TABLE        0x07
#define PRM_HCA_CAP_TYPE_QOS               0x0c
#define PRM_HCA_CAP_TYPE_GENERAL_2         0x20

#define PRM_HCA_CAP_OP_MOD(type, current) (((type) << 1) | ((current) ? 1 : 0))

#endif /* PRM_CMD_H */
