/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DC targets: CREATE_DCT / DESTROY_DCT / QUERY_DCT with the DCT context
 * (PRM "dctc", 0x40 bytes). A DCT is an object of its own, not a QP: it has
 * no work queues, takes its receives from an SRQ (srqn_xrqn), completes them
 * on one CQ (cqn) and answers any DC initiator that gives its dc_access_key.
 * It is created active (dctc.state ACTIVE); DRAIN_DCT moves it to DRAINING
 * and DRAINED. Laid out as the public PRM (Linux mlx5_ifc.h's dctc,
 * create_dct_in: the header, 8 reserved bytes, the dctc at 0x10).
 */
#ifndef PRM_DCT_H
#define PRM_DCT_H

#include "prm/prm_bits.h"

#define PRM_CMD_CREATE_DCT                0x710
#define PRM_CMD_DESTROY_DCT               0x711
#define PRM_CMD_DRAIN_DCT                 0x712
#define PRM_CMD_QUERY_DCT                 0x713
#define PRM_CMD_ARM_DCT_FOR_KEY_VIOLATION 0x714

/* dctc: DCT context */
#define PRM_DCTC_SIZE           0x40
#define PRM_DCTC_STATE          0x00, 24, 4
#define PRM_DCTC_USER_INDEX     0x04, 0, 24
#define PRM_DCTC_CQN            0x08, 0, 24
#define PRM_DCTC_RRE            0x0c, 19, 1
#define PRM_DCTC_RWE            0x0c, 18, 1
#define PRM_DCTC_RAE            0x0c, 17, 1
#define PRM_DCTC_MIN_RNR_NAK    0x10, 8, 5
#define PRM_DCTC_SRQN_XRQN      0x14, 0, 24
#define PRM_DCTC_PD             0x18, 0, 24
#define PRM_DCTC_TCLASS         0x1c, 24, 8
#define PRM_DCTC_FLOW_LABEL     0x1c, 0, 20
#define PRM_DCTC_DC_ACCESS_KEY  0x20, 0, 64
#define PRM_DCTC_MTU            0x28, 24, 3
#define PRM_DCTC_PORT           0x28, 16, 8
#define PRM_DCTC_PKEY_INDEX     0x28, 0, 16
#define PRM_DCTC_MY_ADDR_INDEX  0x2c, 16, 8
#define PRM_DCTC_HOP_LIMIT      0x2c, 0, 8
#define PRM_DCTC_KEY_VIOLATIONS 0x30, 0, 32

/* dctc.state */
#define PRM_DCTC_STATE_ACTIVE   0x0
#define PRM_DCTC_STATE_DRAINING 0x1
#define PRM_DCTC_STATE_DRAINED  0x2

/* create_dct_in / create_dct_out */
#define PRM_CREATE_DCT_IN_SIZE  0x80
#define PRM_CREATE_DCT_IN_DCTC  0x10 /* byte offset of the DCT context */
#define PRM_CREATE_DCT_OUT_SIZE 0x10
#define PRM_CREATE_DCT_OUT_DCTN 0x08, 0, 24

/* destroy_dct_in / destroy_dct_out, query_dct_in / query_dct_out */
#define PRM_DESTROY_DCT_IN_SIZE  0x10
#define PRM_DESTROY_DCT_IN_DCTN  0x08, 0, 24
#define PRM_DESTROY_DCT_OUT_SIZE 0x10
#define PRM_QUERY_DCT_IN_SIZE    0x10
#define PRM_QUERY_DCT_IN_DCTN    0x08, 0, 24
#define PRM_QUERY_DCT_OUT_SIZE   0x80
#define PRM_QUERY_DCT_OUT_DCTC   0x10

#endif /* PRM_DCT_H */
