/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pair commands: the QP context (PRM qpc) with its address path (PRM
 * ads), CREATE_QP, the state transition commands, QUERY_QP and DESTROY_QP.
 */
#ifndef PRM_QP_H
#define PRM_QP_H

#include "prm/prm_bits.h"

/* ads: address path, nested in qpc (primary and secondary). */
#define PRM_ADS_SIZE           0x2c
#define PRM_ADS_FL             0x00, 31, 1
#define PRM_ADS_FREE_AR        0x00, 30, 1
#define PRM_ADS_PKEY_INDEX     0x00, 0, 16
#define PRM_ADS_GRH            0x04, 23, 1
#define PRM_ADS_MLID           0x04, 16, 7
#define PRM_ADS_RLID           0x04, 0, 16
#define PRM_ADS_ACK_TIMEOUT    0x08, 27, 5
#define PRM_ADS_SRC_ADDR_INDEX 0x08, 16, 8
#define PRM_ADS_STAT_RATE      0x08, 8, 4
#define PRM_ADS_HOP_LIMIT      0x08, 0, 8
#define PRM_ADS_TCLASS         0x0c, 20, 8
#define PRM_ADS_FLOW_LABEL     0x0c, 0, 20
/* 16-byte remote GID / IP, network order: byte array, use PRM_OFFSET. */
#define PRM_ADS_RGID_RIP       0x10, 0, 128
#define PRM_ADS_RGID_RIP_LEN   16
#define PRM_ADS_F_DSCP         0x20, 27, 1
#define PRM_ADS_F_ECN          0x20, 26, 1
#define PRM_ADS_F_ETH_PRIO     0x20, 24, 1
#define PRM_ADS_ECN            0x20, 22, 2
#define PRM_ADS_DSCP           0x20, 16, 6
#define PRM_ADS_UDP_SPORT      0x20, 0, 16
#define PRM_ADS_ETH_PRIO       0x24, 28, 3
#define PRM_ADS_SL             0x24, 24, 4
#define PRM_ADS_VHCA_PORT_NUM  0x24, 16, 8
#define PRM_ADS_RMAC_47_32     0x24, 0, 16
#define PRM_ADS_RMAC_31_0      0x28, 0, 32
/* The 6 MAC bytes in wire order start 2 bytes into the rmac_47_32 word. */
#define PRM_ADS_RMAC_BYTES     (PRM_OFFSET(PRM_ADS_RMAC_47_32) + 2)

/* qpc: QP context */
#define PRM_QPC_SIZE                   0xe8
#define PRM_QPC_STATE                  0x00, 28, 4
#define PRM_QPC_LAG_TX_PORT_AFFINITY   0x00, 24, 4
#define PRM_QPC_LAG_TX_PORT_AFFINITY   0x00, 24, 4
#define PRM_QPC_ST                     0x00, 16, 8
#define PRM_QPC_PM_STATE               0x00, 11, 2
#define PRM_QPC_OFFLOAD_TYPE           0x00, 4, 4
#define PRM_QPC_END_PADDING_MODE       0x00, 2, 2
#define PRM_QPC_WQ_SIGNATURE           0x04, 31, 1
#define PRM_QPC_BLOCK_LB_MC            0x04, 30, 1
#define PRM_QPC_PD                     0x04, 0, 24
#define PRM_QPC_MTU                    0x08, 29, 3
#define PRM_QPC_LOG_MSG_MAX            0x08, 24, 5
#define PRM_QPC_LOG_RQ_SIZE            0x08, 19, 4
#define PRM_QPC_LOG_RQ_STRIDE          0x08, 16, 3
#define PRM_QPC_NO_SQ                  0x08, 15, 1
#define PRM_QPC_LOG_SQ_SIZE            0x08, 11, 4
#define PRM_QPC_TS_FORMAT              0x08, 6, 2
#define PRM_QPC_RLKY                   0x08, 4, 1
#define PRM_QPC_COUNTER_SET_ID         0x0c, 24, 8
#define PRM_QPC_UAR_PAGE               0x0c, 0, 24
/*
 * send_dbr_mode: top bits of the user_index word in newer PRM (rdma-core
 * tests/mlx5_prm_structs.py QPC); reserved in Linux 6.1.
 */
#define PRM_QPC_SEND_DBR_MODE          0x10, 30, 2
#define PRM_QPC_USER_INDEX             0x10, 0, 24
#define PRM_QPC_LOG_PAGE_SIZE          0x14, 24, 5
#define PRM_QPC_REMOTE_QPN             0x14, 0, 24
#define PRM_QPC_PRIMARY_ADDRESS_PATH   0x18
#define PRM_QPC_SECONDARY_ADDRESS_PATH 0x44
#define PRM_QPC_LOG_ACK_REQ_FREQ       0x70, 28, 4
#define PRM_QPC_LOG_SRA_MAX            0x70, 21, 3
#define PRM_QPC_RETRY_COUNT            0x70, 16, 3
#define PRM_QPC_RNR_RETRY              0x70, 13, 3
#define PRM_QPC_FRE                    0x70, 11, 1
#define PRM_QPC_CUR_RNR_RETRY          0x70, 8, 3
#define PRM_QPC_CUR_RETRY_COUNT        0x70, 5, 3
#define PRM_QPC_NEXT_SEND_PSN          0x78, 0, 24
#define PRM_QPC_CQN_SND                0x7c, 0, 24
#define PRM_QPC_DETH_SQPN              0x80, 0, 24
#define PRM_QPC_LAST_ACKED_PSN         0x88, 0, 24
#define PRM_QPC_SSN                    0x8c, 0, 24
#define PRM_QPC_LOG_RRA_MAX            0x90, 21, 3
#define PRM_QPC_ATOMIC_MODE            0x90, 16, 4
#define PRM_QPC_RRE                    0x90, 15, 1
#define PRM_QPC_RWE                    0x90, 14, 1
#define PRM_QPC_RAE                    0x90, 13, 1
#define PRM_QPC_PAGE_OFFSET            0x90, 6, 6
#define PRM_QPC_CD_SLAVE_RECEIVE       0x90, 2, 1
#define PRM_QPC_CD_SLAVE_SEND          0x90, 1, 1
#define PRM_QPC_CD_MASTER              0x90, 0, 1
#define PRM_QPC_MIN_RNR_NAK            0x94, 24, 5
#define PRM_QPC_NEXT_RCV_PSN           0x94, 0, 24
#define PRM_QPC_XRCD                   0x98, 0, 24
#define PRM_QPC_CQN_RCV                0x9c, 0, 24
#define PRM_QPC_DBR_ADDR               0xa0, 0, 64
#define PRM_QPC_Q_KEY                  0xa8, 0, 32
#define PRM_QPC_RQ_TYPE                0xac, 24, 3
#define PRM_QPC_SRQN_RMPN_XRQN         0xac, 0, 24
#define PRM_QPC_RMSN                   0xb0, 0, 24
#define PRM_QPC_HW_SQ_WQEBB_COUNTER    0xb4, 16, 16
#define PRM_QPC_SW_SQ_WQEBB_COUNTER    0xb4, 0, 16
#define PRM_QPC_HW_RQ_COUNTER          0xb8, 0, 32
#define PRM_QPC_SW_RQ_COUNTER          0xbc, 0, 32
#define PRM_QPC_DBR_UMEM_VALID         0xd0, 28, 1
/* dbr_umem_id: last word of qpc in newer PRM (rdma-core / DPDK); reserved in Linux 6.1. */
#define PRM_QPC_DBR_UMEM_ID            0xe4, 0, 32

/* qpc.state (QPC encoding: 5 is not used; SQD is 7) */
#define PRM_QP_STATE_RST       0x0
#define PRM_QP_STATE_INIT      0x1
#define PRM_QP_STATE_RTR       0x2
#define PRM_QP_STATE_RTS       0x3
#define PRM_QP_STATE_SQER      0x4
#define PRM_QP_STATE_ERR       0x6
#define PRM_QP_STATE_SQD       0x7
#define PRM_QP_STATE_SUSPENDED 0x9

/* qpc.st */
#define PRM_QP_ST_RC           0x0
#define PRM_QP_ST_UC           0x1
#define PRM_QP_ST_UD           0x2
#define PRM_QP_ST_XRC          0x3
#define PRM_QP_ST_DCI          0x5
#define PRM_QP_ST_RAW_DATAGRAM 0x9
#define PRM_QP_ST_REG_UMR      0xc

/* qpc.pm_state */
#define PRM_QP_PM_STATE_ARMED    0x0
#define PRM_QP_PM_STATE_REARM    0x1
#define PRM_QP_PM_STATE_MIGRATED 0x3

/* qpc.mtu */
#define PRM_QP_MTU_256     0x1
#define PRM_QP_MTU_512     0x2
#define PRM_QP_MTU_1K      0x3
#define PRM_QP_MTU_2K      0x4
#define PRM_QP_MTU_4K      0x5
#define PRM_QP_MTU_RAW_ETH 0x7

/* qpc.rq_type */
#define PRM_QP_RQ_TYPE_REGULAR   0x0
#define PRM_QP_RQ_TYPE_SRQ       0x1
#define PRM_QP_RQ_TYPE_ZERO_SIZE 0x3

/* qpc.atomic_mode */
#define PRM_QP_ATOMIC_MODE_IB_SPEC    0x1
#define PRM_QP_ATOMIC_MODE_ONLY_8B    0x2
#define PRM_QP_ATOMIC_MODE_UP_TO_8B   0x3
#define PRM_QP_ATOMIC_MODE_UP_TO_16B  0x4
#define PRM_QP_ATOMIC_MODE_UP_TO_32B  0x5
#define PRM_QP_ATOMIC_MODE_UP_TO_64B  0x6
#define PRM_QP_ATOMIC_MODE_UP_TO_128B 0x7
#define PRM_QP_ATOMIC_MODE_UP_TO_256B 0x8

/* qpc.send_dbr_mode */
#define PRM_QP_SEND_DBR_MODE_DBR_VALID  0x0
#define PRM_QP_SEND_DBR_MODE_NO_DBR_EXT 0x1
#define PRM_QP_SEND_DBR_MODE_NO_DBR_INT 0x2

/*
 * opt_param_mask bits of the transition commands: which optional qpc fields
 * the command applies (the PRM lists, per transition, which are allowed).
 */
#define PRM_QP_OPTPAR_ALT_ADDR_PATH     (1u << 0)
#define PRM_QP_OPTPAR_RRE               (1u << 1)
#define PRM_QP_OPTPAR_RAE               (1u << 2)
#define PRM_QP_OPTPAR_RWE               (1u << 3)
#define PRM_QP_OPTPAR_PKEY_INDEX        (1u << 4)
#define PRM_QP_OPTPAR_Q_KEY             (1u << 5)
#define PRM_QP_OPTPAR_RNR_TIMEOUT       (1u << 6)
#define PRM_QP_OPTPAR_PRIMARY_ADDR_PATH (1u << 7)
#define PRM_QP_OPTPAR_SRA_MAX           (1u << 8)
#define PRM_QP_OPTPAR_RRA_MAX           (1u << 9)
#define PRM_QP_OPTPAR_PM_STATE          (1u << 10)
#define PRM_QP_OPTPAR_RETRY_COUNT       (1u << 12)
#define PRM_QP_OPTPAR_RNR_RETRY         (1u << 13)
#define PRM_QP_OPTPAR_ACK_TIMEOUT       (1u << 14)
#define PRM_QP_OPTPAR_LAG_TX_AFF        (1u << 15)
#define PRM_QP_OPTPAR_PRI_PORT          (1u << 16)
#define PRM_QP_OPTPAR_SRQN              (1u << 18)
#define PRM_QP_OPTPAR_CQN_RCV           (1u << 19)
#define PRM_QP_OPTPAR_DC_HS             (1u << 20)
#define PRM_QP_OPTPAR_DC_KEY            (1u << 21)
#define PRM_QP_OPTPAR_COUNTER_SET_ID    (1u << 25)

/* create_qp_in / create_qp_out; the page list (pas) follows. */
#define PRM_CREATE_QP_IN_SIZE           0x110
#define PRM_CREATE_QP_IN_INPUT_QPN      0x08, 0, 24
#define PRM_CREATE_QP_IN_OPT_PARAM_MASK 0x10, 0, 32
#define PRM_CREATE_QP_IN_ECE            0x14, 0, 32
#define PRM_CREATE_QP_IN_QPC            0x18
/* wq_umem_offset / wq_umem_id: newer PRM (rdma-core / DPDK); reserved in Linux 6.1. */
#define PRM_CREATE_QP_IN_WQ_UMEM_OFFSET 0x100, 0, 64
#define PRM_CREATE_QP_IN_WQ_UMEM_ID     0x108, 0, 32
#define PRM_CREATE_QP_IN_WQ_UMEM_VALID  0x10c, 31, 1
#define PRM_CREATE_QP_IN_PAS            0x110
#define PRM_CREATE_QP_OUT_SIZE          0x10
#define PRM_CREATE_QP_OUT_QPN           0x08, 0, 24
#define PRM_CREATE_QP_OUT_ECE           0x0c, 0, 32

/* destroy_qp_in / destroy_qp_out */
#define PRM_DESTROY_QP_IN_SIZE  0x10
#define PRM_DESTROY_QP_IN_QPN   0x08, 0, 24
#define PRM_DESTROY_QP_OUT_SIZE 0x10

/*
 * Transition commands carrying a qpc: rst2init_qp_in, init2init_qp_in,
 * init2rtr_qp_in, rtr2rts_qp_in, rts2rts_qp_in, sqerr2rts_qp_in. Their
 * outputs are the plain header (plus ece on some).
 */
#define PRM_RST2INIT_QP_IN_SIZE            0x110
#define PRM_RST2INIT_QP_IN_QPN             0x08, 0, 24
#define PRM_RST2INIT_QP_IN_OPT_PARAM_MASK  0x10, 0, 32
#define PRM_RST2INIT_QP_IN_QPC             0x18
#define PRM_RST2INIT_QP_OUT_SIZE           0x10
#define PRM_INIT2INIT_QP_IN_SIZE           0x110
#define PRM_INIT2INIT_QP_IN_QPN            0x08, 0, 24
#define PRM_INIT2INIT_QP_IN_OPT_PARAM_MASK 0x10, 0, 32
#define PRM_INIT2INIT_QP_IN_QPC            0x18
#define PRM_INIT2INIT_QP_OUT_SIZE          0x10
#define PRM_INIT2RTR_QP_IN_SIZE            0x110
#define PRM_INIT2RTR_QP_IN_QPN             0x08, 0, 24
#define PRM_INIT2RTR_QP_IN_OPT_PARAM_MASK  0x10, 0, 32
#define PRM_INIT2RTR_QP_IN_QPC             0x18
#define PRM_INIT2RTR_QP_OUT_SIZE           0x10
#define PRM_RTR2RTS_QP_IN_SIZE             0x110
#define PRM_RTR2RTS_QP_IN_QPN              0x08, 0, 24
#define PRM_RTR2RTS_QP_IN_OPT_PARAM_MASK   0x10, 0, 32
#define PRM_RTR2RTS_QP_IN_QPC              0x18
#define PRM_RTR2RTS_QP_OUT_SIZE            0x10
#define PRM_RTS2RTS_QP_IN_SIZE             0x110
#define PRM_RTS2RTS_QP_IN_QPN              0x08, 0, 24
#define PRM_RTS2RTS_QP_IN_OPT_PARAM_MASK   0x10, 0, 32
#define PRM_RTS2RTS_QP_IN_QPC              0x18
#define PRM_RTS2RTS_QP_OUT_SIZE            0x10
#define PRM_SQERR2RTS_QP_IN_SIZE           0x110
#define PRM_SQERR2RTS_QP_IN_QPN            0x08, 0, 24
#define PRM_SQERR2RTS_QP_IN_OPT_PARAM_MASK 0x10, 0, 32
#define PRM_SQERR2RTS_QP_IN_QPC            0x18
#define PRM_SQERR2RTS_QP_OUT_SIZE          0x10
#define PRM_RST2INIT_QP_IN_ECE             0x14, 0, 32
#define PRM_INIT2RTR_QP_IN_ECE             0x14, 0, 32
#define PRM_RTR2RTS_QP_IN_ECE              0x14, 0, 32

/* Transitions without a qpc: qp_2err_in, qp_2rst_in. */
#define PRM_2ERR_QP_IN_SIZE  0x10
#define PRM_2ERR_QP_IN_QPN   0x08, 0, 24
#define PRM_2ERR_QP_OUT_SIZE 0x10
#define PRM_2RST_QP_IN_SIZE  0x10
#define PRM_2RST_QP_IN_QPN   0x08, 0, 24
#define PRM_2RST_QP_OUT_SIZE 0x10

/* query_qp_in / query_qp_out */
#define PRM_QUERY_QP_IN_SIZE            0x10
#define PRM_QUERY_QP_IN_QPN             0x08, 0, 24
#define PRM_QUERY_QP_OUT_SIZE           0x110
#define PRM_QUERY_QP_OUT_OPT_PARAM_MASK 0x10, 0, 32
#define PRM_QUERY_QP_OUT_QPC            0x18

#endif /* PRM_QP_H */
