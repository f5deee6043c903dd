/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port and vport queries: QUERY_HCA_VPORT_CONTEXT (PRM hca_vport_context),
 * QUERY_HCA_VPORT_GID and QUERY_NIC_VPORT_CONTEXT (PRM nic_vport_context).
 */
#ifndef PRM_VPORT_H
#define PRM_VPORT_H

#include "prm/prm_bits.h"

/* query_hca_vport_context_in / _out */
#define PRM_QUERY_HCA_VPORT_CONTEXT_IN_SIZE         0x10
#define PRM_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT  0x08, 31, 1
#define PRM_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM     0x08, 16, 4
#define PRM_QUERY_HCA_VPORT_CONTEXT_IN_VPORT_NUMBER 0x08, 0, 16
#define PRM_QUERY_HCA_VPORT_CONTEXT_OUT_SIZE        0x210
#define PRM_QUERY_HCA_VPORT_CONTEXT_OUT_CTX         0x10

/* hca_vport_context */
#define PRM_HCA_VPORT_CONTEXT_SIZE               0x200
#define PRM_HCA_VPORT_CTX_FIELD_SELECT           0x00, 0, 32
#define PRM_HCA_VPORT_CTX_HAS_SMI                0x20, 30, 1
#define PRM_HCA_VPORT_CTX_HAS_RAW                0x20, 29, 1
#define PRM_HCA_VPORT_CTX_GRH_REQUIRED           0x20, 28, 1
#define PRM_HCA_VPORT_CTX_PORT_PHYSICAL_STATE    0x20, 12, 4
#define PRM_HCA_VPORT_CTX_VPORT_STATE_POLICY     0x20, 8, 4
#define PRM_HCA_VPORT_CTX_PORT_STATE             0x20, 4, 4
#define PRM_HCA_VPORT_CTX_VPORT_STATE            0x20, 0, 4
#define PRM_HCA_VPORT_CTX_SYSTEM_IMAGE_GUID      0x28, 0, 64
#define PRM_HCA_VPORT_CTX_PORT_GUID              0x30, 0, 64
#define PRM_HCA_VPORT_CTX_NODE_GUID              0x38, 0, 64
#define PRM_HCA_VPORT_CTX_CAP_MASK1              0x40, 0, 32
#define PRM_HCA_VPORT_CTX_CAP_MASK2              0x48, 0, 32
#define PRM_HCA_VPORT_CTX_LID                    0x60, 16, 16
#define PRM_HCA_VPORT_CTX_INIT_TYPE_REPLY        0x60, 8, 4
#define PRM_HCA_VPORT_CTX_LMC                    0x60, 5, 3
#define PRM_HCA_VPORT_CTX_SUBNET_TIMEOUT         0x60, 0, 5
#define PRM_HCA_VPORT_CTX_SM_LID                 0x64, 16, 16
#define PRM_HCA_VPORT_CTX_SM_SL                  0x64, 12, 4
#define PRM_HCA_VPORT_CTX_QKEY_VIOLATION_COUNTER 0x68, 16, 16
#define PRM_HCA_VPORT_CTX_PKEY_VIOLATION_COUNTER 0x68, 0, 16

/* port_state / vport_state values (IB PortInfo encoding) */
#define PRM_VPORT_STATE_DOWN   0x1
#define PRM_VPORT_STATE_INIT   0x2
#define PRM_VPORT_STATE_ARMED  0x3
#define PRM_VPORT_STATE_ACTIVE 0x4

/* port_physical_state values (IB PortInfo encoding) */
#define PRM_PORT_PHYS_STATE_SLEEP    0x1
#define PRM_PORT_PHYS_STATE_POLLING  0x2
#define PRM_PORT_PHYS_STATE_DISABLED 0x3
#define PRM_PORT_PHYS_STATE_LINK_UP  0x5

/* query_hca_vport_gid_in / _out; GIDs (16 bytes each) follow the header. */
#define PRM_QUERY_HCA_VPORT_GID_IN_SIZE         0x10
#define PRM_QUERY_HCA_VPORT_GID_IN_OTHER_VPORT  0x08, 31, 1
#define PRM_QUERY_HCA_VPORT_GID_IN_PORT_NUM     0x08, 16, 4
#define PRM_QUERY_HCA_VPORT_GID_IN_VPORT_NUMBER 0x08, 0, 16
#define PRM_QUERY_HCA_VPORT_GID_IN_GID_INDEX    0x0c, 0, 16
#define PRM_QUERY_HCA_VPORT_GID_OUT_SIZE        0x10
#define PRM_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM    0x0c, 16, 16
#define PRM_QUERY_HCA_VPORT_GID_OUT_GID         0x10
#define PRM_GID_LEN                             16

/* query_nic_vport_context_in / _out */
#define PRM_QUERY_NIC_VPORT_CONTEXT_IN_SIZE              0x10
#define PRM_QUERY_NIC_VPORT_CONTEXT_IN_OTHER_VPORT       0x08, 31, 1
#define PRM_QUERY_NIC_VPORT_CONTEXT_IN_VPORT_NUMBER      0x08, 0, 16
#define PRM_QUERY_NIC_VPORT_CONTEXT_IN_ALLOWED_LIST_TYPE 0x0c, 24, 3
#define PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE             0x110
#define PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX              0x10

/* nic_vport_context */
#define PRM_NIC_VPORT_CONTEXT_SIZE                0x100
#define PRM_NIC_VPORT_CTX_MIN_WQE_INLINE_MODE     0x00, 24, 3
#define PRM_NIC_VPORT_CTX_DISABLE_MC_LOCAL_LB     0x00, 2, 1
#define PRM_NIC_VPORT_CTX_DISABLE_UC_LOCAL_LB     0x00, 1, 1
#define PRM_NIC_VPORT_CTX_ROCE_EN                 0x00, 0, 1
#define PRM_NIC_VPORT_CTX_MTU                     0x24, 0, 16
#define PRM_NIC_VPORT_CTX_SYSTEM_IMAGE_GUID       0x28, 0, 64
#define PRM_NIC_VPORT_CTX_PORT_GUID               0x30, 0, 64
#define PRM_NIC_VPORT_CTX_NODE_GUID               0x38, 0, 64
#define PRM_NIC_VPORT_CTX_PROMISC_UC              0xf0, 31, 1
#define PRM_NIC_VPORT_CTX_PROMISC_MC              0xf0, 30, 1
#define PRM_NIC_VPORT_CTX_PROMISC_ALL             0xf0, 29, 1
#define PRM_NIC_VPORT_CTX_ALLOWED_LIST_TYPE       0xf0, 24, 3
#define PRM_NIC_VPORT_CTX_ALLOWED_LIST_SIZE       0xf0, 0, 12
/* permanent_address: mac_address_layout (16 reserved bits, then the MAC). */
#define PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_47_32 0xf4, 0, 16
#define PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_31_0  0xf8, 0, 32
/* The 6 MAC bytes in wire order. */
#define PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_BYTES \
    (PRM_OFFSET(PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_47_32) + 2)
#define PRM_MAC_LEN 6

#endif /* PRM_VPORT_H */
