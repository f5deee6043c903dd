/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Syndromes of the software device's command failures. Firmware syndromes
 * are opaque 32-bit values naming the exact check that failed; these are
 * softmlx5's, one per check, so that a log line or a test pins the cause.
 */
#ifndef EMU_DEVX_SYNDROME_H
#define EMU_DEVX_SYNDROME_H

enum devx_syndrome {
    DEVX_SYND_BAD_OPCODE = 0x5f000001,
    DEVX_SYND_INPUT_LEN = 0x5f000002,
    DEVX_SYND_OUTPUT_LEN = 0x5f000003,
    DEVX_SYND_UID = 0x5f000004,
    DEVX_SYND_INTERNAL = 0x5f000005,
    DEVX_SYND_NO_RESOURCES = 0x5f000006,

    DEVX_SYND_CAP_TYPE = 0x5f000101,

    DEVX_SYND_PD_UNKNOWN = 0x5f000201,
    DEVX_SYND_PD_BUSY = 0x5f000202,

    DEVX_SYND_CQ_UMEM_INVALID = 0x5f000301,
    DEVX_SYND_CQ_UMEM_ID = 0x5f000302,
    DEVX_SYND_CQ_UMEM_RANGE = 0x5f000303,
    DEVX_SYND_CQ_DBR_UMEM_ID = 0x5f000304,
    DEVX_SYND_CQ_DBR_RANGE = 0x5f000305,
    DEVX_SYND_CQ_CQE_SIZE = 0x5f000306,
    DEVX_SYND_CQ_LOG_SIZE = 0x5f000307,
    DEVX_SYND_CQ_UAR = 0x5f000308,
    DEVX_SYND_CQ_EQN = 0x5f000309,
    DEVX_SYND_CQ_COMPRESSION = 0x5f00030a,
    DEVX_SYND_CQ_UNKNOWN = 0x5f00030b,
    DEVX_SYND_CQ_BUSY = 0x5f00030c,
    DEVX_SYND_CQ_DBR_ALIGN = 0x5f00030d,
    DEVX_SYND_CQ_ST = 0x5f00030e,

    DEVX_SYND_QP_TYPE = 0x5f000401,
    DEVX_SYND_QP_UMEM_INVALID = 0x5f000402,
    DEVX_SYND_QP_UMEM_ID = 0x5f000403,
    DEVX_SYND_QP_UMEM_RANGE = 0x5f000404,
    DEVX_SYND_QP_DBR_UMEM_ID = 0x5f000405,
    DEVX_SYND_QP_DBR_RANGE = 0x5f000406,
    DEVX_SYND_QP_LOG_SQ_SIZE = 0x5f000407,
    DEVX_SYND_QP_LOG_RQ_SIZE = 0x5f000408,
    DEVX_SYND_QP_RQ_TYPE = 0x5f000409,
    DEVX_SYND_QP_CQN_SND = 0x5f00040a,
    DEVX_SYND_QP_CQN_RCV = 0x5f00040b,
    DEVX_SYND_QP_PD = 0x5f00040c,
    DEVX_SYND_QP_UAR = 0x5f00040d,
    DEVX_SYND_QP_DBR_MODE = 0x5f00040e,
    DEVX_SYND_QP_UNKNOWN = 0x5f00040f,
    DEVX_SYND_QP_STATE = 0x5f000410,
    DEVX_SYND_QP_ATTR = 0x5f000411,
    DEVX_SYND_QP_MTU = 0x5f000412,
    DEVX_SYND_QP_RA = 0x5f000413,
    DEVX_SYND_QP_PORT = 0x5f000414,
    DEVX_SYND_QP_DBR_ALIGN = 0x5f000415,
    DEVX_SYND_QP_RQ_STRIDE = 0x5f000416,
    DEVX_SYND_QP_SRQ = 0x5f000417,

    DEVX_SYND_SRQ_UMEM_INVALID = 0x5f000501,
    DEVX_SYND_SRQ_UMEM_ID = 0x5f000502,
    DEVX_SYND_SRQ_UMEM_RANGE = 0x5f000503,
    DEVX_SYND_SRQ_DBR_UMEM_ID = 0x5f000504,
    DEVX_SYND_SRQ_DBR_RANGE = 0x5f000505,
    DEVX_SYND_SRQ_DBR_ALIGN = 0x5f000506,
    DEVX_SYND_SRQ_LOG_SIZE = 0x5f000507,
    DEVX_SYND_SRQ_STRIDE = 0x5f000508,
    DEVX_SYND_SRQ_WQ_TYPE = 0x5f000509,
    DEVX_SYND_SRQ_STATE = 0x5f00050a,
    DEVX_SYND_SRQ_PD = 0x5f00050b,
    DEVX_SYND_SRQ_UNKNOWN = 0x5f00050c,
    DEVX_SYND_SRQ_BUSY = 0x5f00050d,

    DEVX_SYND_DCT_STATE = 0x5f000d01,
    DEVX_SYND_DCT_PD = 0x5f000d02,
    DEVX_SYND_DCT_CQN = 0x5f000d03,
    DEVX_SYND_DCT_SRQ = 0x5f000d04,
    DEVX_SYND_DCT_PORT = 0x5f000d05,
    DEVX_SYND_DCT_MTU = 0x5f000d06,
    DEVX_SYND_DCT_UNKNOWN = 0x5f000d07,

    /* Raw Ethernet objects (eth_*.c). */
    DEVX_SYND_ETH_STATE = 0x5f000e01,    /* created in a state other than RST */
    DEVX_SYND_ETH_WQ_TYPE = 0x5f000e02,  /* not a cyclic work queue */
    DEVX_SYND_ETH_STRIDE = 0x5f000e03,   /* log_wq_stride: 6 (SQ) or 4 (RQ) */
    DEVX_SYND_ETH_LOG_SIZE = 0x5f000e04, /* log_wq_sz above log_max_wq_sz */
    DEVX_SYND_ETH_CQN = 0x5f000e05,      /* cqn names no DevX CQ */
    DEVX_SYND_ETH_PD = 0x5f000e06,       /* pd names no protection domain */
    DEVX_SYND_ETH_UAR = 0x5f000e07,      /* uar_page is not an allocated UAR */
    DEVX_SYND_ETH_UMEM_INVALID = 0x5f000e08,
    DEVX_SYND_ETH_UMEM_ID = 0x5f000e09,
    DEVX_SYND_ETH_UMEM_RANGE = 0x5f000e0a,
    DEVX_SYND_ETH_DBR_UMEM_ID = 0x5f000e0b,
    DEVX_SYND_ETH_DBR_RANGE = 0x5f000e0c,
    DEVX_SYND_ETH_DBR_ALIGN = 0x5f000e0d,
    DEVX_SYND_ETH_TIS = 0x5f000e0e, /* tis_num_0 names no TIS */
    DEVX_SYND_ETH_MEM_RQ_TYPE = 0x5f000e0f,
    DEVX_SYND_ETH_COUNTER = 0x5f000e10, /* counter_set_id names no Q counter */
    DEVX_SYND_ETH_SQ_UNKNOWN = 0x5f000e11,
    DEVX_SYND_ETH_RQ_UNKNOWN = 0x5f000e12,
    DEVX_SYND_ETH_TRANSITION =
            0x5f000e13, /* the current state is not sq_state/rq_state, or no such transition */
    DEVX_SYND_ETH_BUSY = 0x5f000e14, /* still named by another object */
    DEVX_SYND_ETH_TD = 0x5f000e15,   /* transport_domain names no domain */
    DEVX_SYND_ETH_TD_UNKNOWN = 0x5f000e16,
    DEVX_SYND_ETH_TIS_UNKNOWN = 0x5f000e17,
    DEVX_SYND_ETH_TIR_UNKNOWN = 0x5f000e18,
    DEVX_SYND_ETH_TIR_RQ = 0x5f000e19,      /* inline_rqn names no RQ */
    DEVX_SYND_ETH_TIR_RQT = 0x5f000e1a,     /* indirect_table names no RQT */
    DEVX_SYND_ETH_TIR_DISP = 0x5f000e1b,    /* disp_type neither direct nor indirect */
    DEVX_SYND_ETH_TIR_HASH = 0x5f000e1c,    /* a hash function or field not implemented */
    DEVX_SYND_ETH_TIR_OFFLOAD = 0x5f000e1d, /* LRO or tunnel offload asked for */
    DEVX_SYND_ETH_RQT_SIZE = 0x5f000e1e,
    DEVX_SYND_ETH_RQT_RQ = 0x5f000e1f, /* an rq_num names no RQ */
    DEVX_SYND_ETH_RQT_UNKNOWN = 0x5f000e20,
    DEVX_SYND_ETH_RQT_TYPE = 0x5f000e21,
    DEVX_SYND_ETH_QCOUNTER_UNKNOWN = 0x5f000e22,
    DEVX_SYND_ETH_VPORT = 0x5f000e23, /* other_vport: the device has no other vports */
};

#endif /* EMU_DEVX_SYNDROME_H */
