/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queue commands: the CQ context (PRM cqc) and
 * CREATE_CQ / DESTROY_CQ / QUERY_CQ / MODIFY_CQ.
 */
#ifndef PRM_CQ_H
#define PRM_CQ_H

#include "prm/prm_bits.h"

/* cqc: CQ context */
#define PRM_CQC_SIZE                     0x40
#define PRM_CQC_STATUS                   0x00, 28, 4
#define PRM_CQC_DBR_UMEM_VALID           0x00, 25, 1
#define PRM_CQC_CQE_SZ                   0x00, 21, 3
#define PRM_CQC_CC                       0x00, 20, 1
#define PRM_CQC_SCQE_BREAK_MODERATION_EN 0x00, 18, 1
#define PRM_CQC_OI                       0x00, 17, 1
#define PRM_CQC_CQ_PERIOD_MODE           0x00, 15, 2
#define PRM_CQC_CQE_COMP_EN              0x00, 14, 1
#define PRM_CQC_MINI_CQE_RES_FORMAT      0x00, 12, 2
#define PRM_CQC_ST                       0x00, 8, 4
/* dbr_umem_id: newer PRM (rdma-core / DPDK cqc); reserved in Linux 6.1. */
#define PRM_CQC_DBR_UMEM_ID              0x04, 0, 32
#define PRM_CQC_PAGE_OFFSET              0x08, 6, 6
#define PRM_CQC_LOG_CQ_SIZE              0x0c, 24, 5
#define PRM_CQC_UAR_PAGE                 0x0c, 0, 24
#define PRM_CQC_CQ_PERIOD                0x10, 16, 12
#define PRM_CQC_CQ_MAX_COUNT             0x10, 0, 16
#define PRM_CQC_C_EQN                    0x14, 0, 32
#define PRM_CQC_LOG_PAGE_SIZE            0x18, 24, 5
#define PRM_CQC_LAST_NOTIFIED_INDEX      0x20, 0, 24
#define PRM_CQC_LAST_SOLICIT_INDEX       0x24, 0, 24
#define PRM_CQC_CONSUMER_COUNTER         0x28, 0, 24
#define PRM_CQC_PRODUCER_COUNTER         0x2c, 0, 24
#define PRM_CQC_DBR_ADDR                 0x38, 0, 64

/* cqc.status */
#define PRM_CQC_STATUS_OK         0x0
#define PRM_CQC_STATUS_OVERFLOW   0x9
#define PRM_CQC_STATUS_WRITE_FAIL 0xa

/* cqc.st: the event state a CQ is created in (the arm doorbell moves it later). */
#define PRM_CQC_ST_NO_ACTION                        0x0
#define PRM_CQC_ST_SOLICITED_NOTIFICATION_REQ_ARMED 0x6
#define PRM_CQC_ST_NOTIFICATION_REQ_ARMED           0x9
#define PRM_CQC_ST_FIRED                            0xa

/* The CQ arm doorbell (UAR offset 0x20 and word [1] of the doorbell record):
 * big-endian (sn << 28 | cmd | consumer index), with the CQN in the low
 * word of the 64-bit UAR store. */
#define PRM_CQ_DB_CMD_REQ_NOT     (0x0u << 24) /* an event on the next CQE */
#define PRM_CQ_DB_CMD_REQ_NOT_SOL (0x1u << 24) /* only on a solicited or error CQE */
#define PRM_CQ_DB_SN_SHIFT        28
#define PRM_CQ_DB_CI_MASK         0xffffffu

/* cqc.cqe_sz */
#define PRM_CQC_CQE_SZ_64  0x0
#define PRM_CQC_CQE_SZ_128 0x1

/* cqc.cq_period_mode */
#define PRM_CQC_PERIOD_MODE_START_FROM_EQE 0x0
#define PRM_CQC_PERIOD_MODE_START_FROM_CQE 0x1

/* create_cq_in / create_cq_out; the page list (pas, 8 bytes each) follows. */
#define PRM_CREATE_CQ_IN_SIZE           0x110
#define PRM_CREATE_CQ_IN_CQC            0x10
/* cq_umem_offset / cq_umem_id: newer PRM (rdma-core / DPDK); reserved in Linux 6.1. */
#define PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET 0x50, 0, 64
#define PRM_CREATE_CQ_IN_CQ_UMEM_ID     0x58, 0, 32
#define PRM_CREATE_CQ_IN_CQ_UMEM_VALID  0x5c, 31, 1
#define PRM_CREATE_CQ_IN_PAS            0x110
#define PRM_CREATE_CQ_OUT_SIZE          0x10
#define PRM_CREATE_CQ_OUT_CQN           0x08, 0, 24

/* destroy_cq_in / destroy_cq_out */
#define PRM_DESTROY_CQ_IN_SIZE  0x10
#define PRM_DESTROY_CQ_IN_CQN   0x08, 0, 24
#define PRM_DESTROY_CQ_OUT_SIZE 0x10

/* query_cq_in / query_cq_out */
#define PRM_QUERY_CQ_IN_SIZE  0x10
#define PRM_QUERY_CQ_IN_CQN   0x08, 0, 24
#define PRM_QUERY_CQ_OUT_SIZE 0x110
#define PRM_QUERY_CQ_OUT_CQC  0x10

/* modify_cq_in / modify_cq_out (op_mod 0: modify fields, 1: resize) */
#define PRM_MODIFY_CQ_IN_SIZE                0x110
#define PRM_MODIFY_CQ_IN_CQN                 0x08, 0, 24
#define PRM_MODIFY_CQ_IN_MODIFY_FIELD_SELECT 0x0c, 0, 32
#define PRM_MODIFY_CQ_IN_CQC                 0x10
#define PRM_MODIFY_CQ_OUT_SIZE               0x10

#define PRM_MODIFY_CQ_OPMOD_MODIFY 0x0
#define PRM_MODIFY_CQ_OPMOD_RESIZE 0x1

/* modify_field_select bits */
#define PRM_MODIFY_CQ_SELECT_PERIOD  (1u << 0)
#define PRM_MODIFY_CQ_SELECT_COUNT   (1u << 1)
#define PRM_MODIFY_CQ_SELECT_OVERRUN (1u << 2)

#endif /* PRM_CQ_H */
