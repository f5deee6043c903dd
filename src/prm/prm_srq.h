/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_SRQ and the SRQ context (PRM "srqc"): the fields the DOCA Verbs SRQ
 * sets. Not yet held against a second source or a device (softmlx5 does not
 * implement DevX SRQs): check before relying on it with a real ConnectX.
 */
#ifndef PRM_SRQ_H
#define PRM_SRQ_H

#include "prm/prm_bits.h"

#define PRM_CREATE_SRQ_IN_SIZE  0x110
#define PRM_CREATE_SRQ_IN_SRQC  0x10 /* byte offset of the SRQ context */
#define PRM_CREATE_SRQ_OUT_SIZE 0x10
#define PRM_CREATE_SRQ_OUT_SRQN 0x08, 0, 24

#define PRM_SRQC_LOG_SRQ_SIZE  0x00, 24, 4
#define PRM_SRQC_CONT_SRQ      0x04, 30, 1
#define PRM_SRQC_LOG_RQ_STRIDE 0x04, 24, 3 /* log2 of the WQE size in 16-byte units */
#define PRM_SRQC_LOG_PAGE_SIZE 0x10, 24, 6
#define PRM_SRQC_PD            0x18, 0, 24
#define PRM_SRQC_DBR_ADDR      0x28, 0, 64

#endif /* PRM_SRQ_H */
