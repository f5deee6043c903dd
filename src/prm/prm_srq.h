/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ with the SRQ
 * context (PRM "srqc"), and CREATE_RMP / DESTROY_RMP / QUERY_RMP with the
 * RMP context (PRM "rmpc") and its work queue (PRM "wq").
 *
 * Checked against the public PRM layouts (Linux include/linux/mlx5/mlx5_ifc.h,
 * and the same structures in UCX's DevX code, whose rmpc/wq match):
 *  - srqc is 0x40 bytes; CREATE_SRQ's input is the header, 8 reserved bytes,
 *    the srqc at 0x10, reserved bytes to 0x110 and then the page list (pas).
 *    Neither CREATE_SRQ nor srqc has umem fields (no srq_umem_id/offset/
 *    valid, no dbr_umem_id): the ring is given by physical page addresses,
 *    which user space cannot provide. CREATE_SRQ is thus not the DevX way to
 *    an SRQ in a umem (the kernel, with ISSI 1, makes basic SRQs as RMPs).
 *  - An RMP is the ISSI-1 form of a basic SRQ: rmpc holds a "wq" whose
 *    dbr_umem_valid / wq_umem_valid / dbr_umem_id / wq_umem_id /
 *    wq_umem_offset place the ring and the doorbell record in umems, as
 *    CREATE_CQ / CREATE_QP do. A QP takes it as rq_type SRQ with its RMP
 *    number in srqn_rmpn_xrqn. DOCA Verbs makes its SRQs this way.
 *  - wq.log_wq_stride is log2 of the WQE size in bytes (srqc.log_rq_stride
 *    is log2 in 16-byte units); wq.log_wq_sz is log2 of the WQE count.
 * Not yet held against a device.
 */
#ifndef PRM_SRQ_H
#define PRM_SRQ_H

#include "prm/prm_bits.h"

/* srqc: SRQ context */
#define PRM_SRQC_SIZE          0x40
#define PRM_SRQC_STATE         0x00, 28, 4
#define PRM_SRQC_LOG_SRQ_SIZE  0x00, 24, 4
#define PRM_SRQC_WQ_SIGNATURE  0x04, 31, 1
#define PRM_SRQC_CONT_SRQ      0x04, 30, 1
#define PRM_SRQC_RLKY          0x04, 28, 1
#define PRM_SRQC_LOG_RQ_STRIDE 0x04, 24, 3 /* log2 of the WQE size in 16-byte units */
#define PRM_SRQC_XRCD          0x04, 0, 24
#define PRM_SRQC_PAGE_OFFSET   0x08, 26, 6
#define PRM_SRQC_CQN           0x08, 0, 24
#define PRM_SRQC_LOG_PAGE_SIZE 0x10, 24, 6
#define PRM_SRQC_PD            0x18, 0, 24
#define PRM_SRQC_LWM           0x1c, 16, 16
#define PRM_SRQC_WQE_CNT       0x1c, 0, 16
#define PRM_SRQC_DBR_ADDR      0x28, 0, 64

/* srqc.state */
#define PRM_SRQC_STATE_GOOD  0x0
#define PRM_SRQC_STATE_ERROR 0x1

/* create_srq_in / create_srq_out; the page list (pas, 8 bytes each) follows. */
#define PRM_CREATE_SRQ_IN_SIZE  0x110
#define PRM_CREATE_SRQ_IN_SRQC  0x10 /* byte offset of the SRQ context */
#define PRM_CREATE_SRQ_IN_PAS   0x110
#define PRM_CREATE_SRQ_OUT_SIZE 0x10
#define PRM_CREATE_SRQ_OUT_SRQN 0x08, 0, 24

/* destroy_srq_in / destroy_srq_out */
#define PRM_DESTROY_SRQ_IN_SIZE  0x10
#define PRM_DESTROY_SRQ_IN_SRQN  0x08, 0, 24
#define PRM_DESTROY_SRQ_OUT_SIZE 0x10

/* query_srq_in / query_srq_out (the context at 0x10, the page list at 0x110) */
#define PRM_QUERY_SRQ_IN_SIZE  0x10
#define PRM_QUERY_SRQ_IN_SRQN  0x08, 0, 24
#define PRM_QUERY_SRQ_OUT_SIZE 0x110
#define PRM_QUERY_SRQ_OUT_SRQC 0x10
#define PRM_QUERY_SRQ_OUT_PAS  0x110

/* wq: a work queue (of RQs, SQs and RMPs); 0xc0 bytes, then its page list. */
#define PRM_WQ_SIZE           0xc0
#define PRM_WQ_WQ_TYPE        0x00, 28, 4
#define PRM_WQ_WQ_SIGNATURE   0x00, 27, 1
#define PRM_WQ_END_PADDING    0x00, 25, 2
#define PRM_WQ_PAGE_OFFSET    0x04, 16, 5
#define PRM_WQ_LWM            0x04, 0, 16
#define PRM_WQ_PD             0x08, 0, 24
#define PRM_WQ_UAR_PAGE       0x0c, 0, 24
#define PRM_WQ_DBR_ADDR       0x10, 0, 64
#define PRM_WQ_HW_COUNTER     0x18, 0, 32
#define PRM_WQ_SW_COUNTER     0x1c, 0, 32
#define PRM_WQ_LOG_WQ_STRIDE  0x20, 16, 4 /* log2 of the WQE size in bytes */
#define PRM_WQ_LOG_WQ_PG_SZ   0x20, 8, 5
#define PRM_WQ_LOG_WQ_SZ      0x20, 0, 5
#define PRM_WQ_DBR_UMEM_VALID 0x24, 31, 1
#define PRM_WQ_WQ_UMEM_VALID  0x24, 30, 1
#define PRM_WQ_DBR_UMEM_ID    0x28, 0, 32
#define PRM_WQ_WQ_UMEM_ID     0x2c, 0, 32
#define PRM_WQ_WQ_UMEM_OFFSET 0x30, 0, 64

/* wq.wq_type */
#define PRM_WQ_TYPE_LINKED_LIST 0x0
#define PRM_WQ_TYPE_CYCLIC      0x1

/* rmpc: RMP context, its wq at 0x30 */
#define PRM_RMPC_SIZE                 (0x30 + PRM_WQ_SIZE)
#define PRM_RMPC_STATE                0x00, 20, 4
#define PRM_RMPC_BASIC_CYCLIC_RCV_WQE 0x04, 31, 1
#define PRM_RMPC_WQ                   0x30

/* rmpc.state */
#define PRM_RMPC_STATE_RST 0x0
#define PRM_RMPC_STATE_RDY 0x1

/* create_rmp_in / create_rmp_out */
#define PRM_CREATE_RMP_IN_SIZE  (0x20 + PRM_RMPC_SIZE)
#define PRM_CREATE_RMP_IN_RMPC  0x20
#define PRM_CREATE_RMP_OUT_SIZE 0x10
#define PRM_CREATE_RMP_OUT_RMPN 0x08, 0, 24

/* destroy_rmp_in / destroy_rmp_out */
#define PRM_DESTROY_RMP_IN_SIZE  0x10
#define PRM_DESTROY_RMP_IN_RMPN  0x08, 0, 24
#define PRM_DESTROY_RMP_OUT_SIZE 0x10

/* query_rmp_in / query_rmp_out */
#define PRM_QUERY_RMP_IN_SIZE  0x10
#define PRM_QUERY_RMP_IN_RMPN  0x08, 0, 24
#define PRM_QUERY_RMP_OUT_SIZE (0x20 + PRM_RMPC_SIZE)
#define PRM_QUERY_RMP_OUT_RMPC 0x20

#endif /* PRM_SRQ_H */
