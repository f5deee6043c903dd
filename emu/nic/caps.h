/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the software NIC can do, in one place. The standard-verbs answers
 * (ibv_query_device, ibv_query_port) and the DevX answers (QUERY_HCA_CAP)
 * are both derived from these numbers, so the two views never disagree.
 * Values are those of a ConnectX-7-like device, sized for a software model.
 */
#ifndef EMU_CAPS_H
#define EMU_CAPS_H

#define EMU_VENDOR_ID      0x02c9 /* Mellanox / NVIDIA */
#define EMU_VENDOR_PART_ID 4129   /* ConnectX-7 (0x1021) */
#define EMU_HW_VERSION     0
#define EMU_FW_VERSION     "28.39.1002"
#define EMU_BOARD_ID       "SOFTMLX5_0001"
#define EMU_GUID_OUI       0x0002c9ULL

#define EMU_LOG_MAX_QP     16 /* 65536 QPs per device */
#define EMU_LOG_MAX_QP_SZ  15 /* 32768 WQEs per queue */
#define EMU_LOG_MAX_CQ     16
#define EMU_LOG_MAX_CQ_SZ  22 /* 4M CQEs */
#define EMU_LOG_MAX_SRQ    16
#define EMU_LOG_MAX_SRQ_SZ 15
#define EMU_LOG_MAX_PD     16
#define EMU_LOG_MAX_XRCD   16 /* XRC domains per device */
#define EMU_LOG_MAX_MKEY   16 /* memory keys (MRs) per device */
#define EMU_LOG_MAX_MSG    30 /* 1 GiB messages */
#define EMU_LOG_MAX_RA_QP  4  /* 16 outstanding reads/atomics */
#define EMU_LOG_MAX_UAR    10
#define EMU_MAX_SGE        30
#define EMU_MAX_SRQ_SGE    31
#define EMU_MAX_INLINE     828 /* inline bytes in a 16-block WQE */
#define EMU_MAX_AH         (1 << 16)
#define EMU_MAX_PKEYS      128
#define EMU_GID_TABLE_LEN  1
#define EMU_LOG_PAGE_SIZE  12
#define EMU_CQE_SIZE       64
#define EMU_SQ_STRIDE      64 /* one basic block per send WQE slot */

/* Every port's MTU (IBV_MTU_4096): the largest datagram. */
#define EMU_MTU_BYTES 4096

#endif /* EMU_CAPS_H */
