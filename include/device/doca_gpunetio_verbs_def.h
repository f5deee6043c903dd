/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Definitions shared by the host library, the device data path (CUDA) and
 * CPU threads running the same data path: the enumerations DOCA GPUNetIO
 * names (values as DOCA gives them), the remote-address and ticket types,
 * and the QP and CQ descriptors that doca_gpu_verbs_export_qp() builds and
 * the data-path core (gdaki_verbs_*.h) drives.
 *
 * Compiles as C11, C++ and CUDA; includes nothing host-only.
 */
#ifndef DOCA_GPUNETIO_VERBS_DEF_H
#define DOCA_GPUNETIO_VERBS_DEF_H

#include <limits.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "impl/gdaki_macros.h"
#include "impl/gdaki_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions: (major << 16) | (minor << 8) | patch ---------------------------------------- */

#define DOCA_GPUNETIO_VERSION_MAJOR       5
#define DOCA_GPUNETIO_VERSION_MINOR       0
#define DOCA_GPUNETIO_VERSION_PATCH       0
#define DOCA_GPUNETIO_VERSION_MAJOR_SHIFT 16
#define DOCA_GPUNETIO_VERSION_MINOR_SHIFT 8
#define DOCA_GPUNETIO_VERSION_PATCH_SHIFT 0
#define DOCA_GPUNETIO_MAKE_VERSION(major, minor, patch)         \
    (((uint32_t)(major) << DOCA_GPUNETIO_VERSION_MAJOR_SHIFT) | \
     ((uint32_t)(minor) << DOCA_GPUNETIO_VERSION_MINOR_SHIFT) | \
     ((uint32_t)(patch) << DOCA_GPUNETIO_VERSION_PATCH_SHIFT))
/*
 * The one version number of the project: CMake reads these three lines for
 * the library's and pkg-config's version, and doca_gpu_verbs_get_library_version
 * returns it.
 */
#define DOCA_GPUNETIO_VERSION                                                            \
    DOCA_GPUNETIO_MAKE_VERSION(DOCA_GPUNETIO_VERSION_MAJOR, DOCA_GPUNETIO_VERSION_MINOR, \
                               DOCA_GPUNETIO_VERSION_PATCH)
/* The device headers and the host library are released together: both carry the library's. */
#define DOCA_GPUNETIO_DEVICE_CODE_VERSION                  DOCA_GPUNETIO_VERSION
#define DOCA_GPUNETIO_HOST_CODE_VERSION                    DOCA_GPUNETIO_VERSION
/*
 * The oldest device code and host code this library works with. Device
 * code: the first version whose descriptors (doca_gpunetio_verbs_dev.h)
 * have this layout (4.0.1; 5.0.0 changed none of it). The descriptors carry
 * the version they were built with (layout_version). Host code: 5.0.0,
 * whose doca_gpu_verbs_export_qp takes the receive CQ and the doorbell
 * record's CPU address.
 */
#define DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_MAJOR 4
#define DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_MINOR 0
#define DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_PATCH 1
#define DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION                               \
    DOCA_GPUNETIO_MAKE_VERSION(DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_MAJOR, \
                               DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_MINOR, \
                               DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION_PATCH)
#define DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_MAJOR 5
#define DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_MINOR 0
#define DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_PATCH 0
#define DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION                               \
    DOCA_GPUNETIO_MAKE_VERSION(DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_MAJOR, \
                               DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_MINOR, \
                               DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION_PATCH)

/*
 * How a signal travels in the 32-bit immediate of an RDMA write with
 * immediate (DOCA 5.0's signal maps; host byte order): bit 0 the
 * operation (enum doca_gpu_dev_verbs_signal_op: ADD), bits 1 .. VAL_SHIFT-1
 * the signal id, the bits above the value.
 * VAL_SHIFT may be set to 24 before this header for more ids, fewer value bits.
 */
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_OP_SHIFT 0
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_OP_MASK  0x1u
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_SHIFT 1
#ifndef DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT 16
#endif
#if DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT != 16 && DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT != 24
#warning \
        "DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT is neither 16 nor 24, the two splits DOCA supports"
#endif
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_MASK                    \
    ((UINT32_C(1) << (DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT -  \
                      DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_SHIFT)) - \
     UINT32_C(1))
#define DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_MASK \
    (UINT32_MAX >> DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT)

/* ---- Limits --------------------------------------------------------------------------------- */

#define DOCA_GPUNETIO_VERBS_WARP_SIZE               32
#define DOCA_GPUNETIO_VERBS_WARP_FULL_MASK          0xffffffffu
#define DOCA_GPUNETIO_VERBS_PAGE_SIZE               65536 /* GPU page: alignment of GPU rings */
#define DOCA_GPUNETIO_VERBS_CQE_CI_MASK             0xffffff
#define DOCA_GPUNETIO_VERBS_WQE_PI_MASK             0xffff
#define DOCA_GPUNETIO_VERBS_CQE_SIZE                64
#define DOCA_GPUNETIO_VERBS_WQE_IDX_SHIFT           8
#define DOCA_GPUNETIO_IB_MLX5_WQE_SQ_SHIFT          6 /* log2 of a 64-byte basic block */
#define DOCA_GPUNETIO_VERBS_MLX5_CQE_OPCODE_SHIFT   4 /* a CQE's opcode: op_own >> 4 */
/* Opmod of the masked atomics (control segment bits 31:24): 4- or 8-byte operands. */
#define DOCA_GPUNETIO_4_BYTE_ATOMIC_EXT_OPMOD       0x08000000
#define DOCA_GPUNETIO_8_BYTE_ATOMIC_EXT_OPMOD       0x09000000
/* Inline data a one-basic-block RDMA write carries (64 - ctrl 16 - raddr 16 - inline header 4). */
#define DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE         28
/* Largest transfer one WQE carries; longer puts and gets are split into WQEs of this size. */
#define DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT 30
#define DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE       (1ull << DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT)
/* Memory keys given to the data path are big-endian already (as ibv_mr's, byte-swapped once). */
#define DOCA_GPUNETIO_VERBS_MKEY_SWAPPED            1
/*
 * The largest SQ (in basic blocks) the data path takes: completions are
 * matched to WQEs by 16-bit counters compared as signed differences. For the
 * same reason a ticket must be waited for before 32768 newer WQEs are posted
 * on its QP.
 */
#define DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM          16384

/* ---- Access helpers, with DOCA's names --------------------------------------------------------
 */

#if defined(__GNUC__) || defined(__CUDACC__)
#define TYPEOF(x) __typeof__(x)
#else
#define TYPEOF(x) decltype(x)
#endif
/* x accessed once, as volatile: neither kept in a register nor left out (reads and writes). */
#define DOCA_GPUNETIO_VOLATILE(x) (*(volatile TYPEOF(x) *)&(x))
#ifndef ACCESS_ONCE
#define ACCESS_ONCE(x) DOCA_GPUNETIO_VOLATILE(x)
#endif
#ifndef READ_ONCE
#define READ_ONCE(x) ACCESS_ONCE(x)
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) (ACCESS_ONCE(x) = (v))
#endif

/*
 * DOCA_GPUNETIO_VERBS_ENABLE_DEBUG=1 (defined before the first include) turns
 * DOCA_GPUNETIO_VERBS_ASSERT into assert() and prints error CQEs.
 */
#ifndef DOCA_GPUNETIO_VERBS_ENABLE_DEBUG
#define DOCA_GPUNETIO_VERBS_ENABLE_DEBUG 0
#endif
#if DOCA_GPUNETIO_VERBS_ENABLE_DEBUG == 1
#include <assert.h>
#define DOCA_GPUNETIO_VERBS_ASSERT(x) assert(x)
#else
#define DOCA_GPUNETIO_VERBS_ASSERT(x) \
    do {                              \
    } while (0)
#endif
/*
 * 1: the acquire fence after a CQE is seen is CTA-scoped, enough on NVIDIA
 * NICs, whose CQE writes are ordered after their data at the GPU.
 */
#ifndef DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA
#define DOCA_GPUNETIO_VERBS_EXP_NIC_FENCE_ACQUIRE_CTA 1
#endif

/* ---- mlx5 opcodes and control flags, with DOCA's names ----------------------------------------
 */

enum {
    DOCA_GPUNETIO_IB_MLX5_OPCODE_NOP = 0x00,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND_INVAL = 0x01,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE = 0x08,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_WRITE_IMM = 0x09,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND = 0x0a,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_SEND_IMM = 0x0b,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_TSO = 0x0e,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_WAIT = 0x0f,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_RDMA_READ = 0x10,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_CS = 0x11,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_FA = 0x12,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_CS = 0x14,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_FA = 0x15,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_FMR = 0x19,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_LOCAL_INVAL = 0x1b,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_CONFIG_CMD = 0x1f,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_SET_PSV = 0x20,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_DUMP = 0x23,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_UMR = 0x25,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_TAG_MATCHING = 0x28,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_FLOW_TBL_ACCESS = 0x2c,
    DOCA_GPUNETIO_IB_MLX5_OPCODE_MMO = 0x2f,
};

/* Completion-request (CE) values of the control segment's fm_ce_se byte (bits 3:2). */
enum {
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ON_CQE_ERROR = 0x0,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ON_FIRST_CQE_ERROR = 0x1,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ALWAYS = 0x2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_AND_EQE = 0x3,
};

/* Fence-mode (FM) values of the fm_ce_se byte (bits 7:5); CUSTOM is outside the field. */
enum {
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_NO_FENCE = 0x0,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_INITIATOR_SMALL_FENCE = 0x1,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_FENCE = 0x2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_STRONG_ORDERING = 0x3,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_FENCE_AND_INITIATOR_SMALL_FENCE = 0x4,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_CUSTOM = 0x100,
};

/* fm_ce_se byte of the control segment. */
enum doca_gpu_dev_verbs_wqe_ctrl_flags {
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_ERROR_UPDATE =
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ON_CQE_ERROR << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_FIRST_CQE_ERROR =
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ON_FIRST_CQE_ERROR << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE = DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CE_CQE_ALWAYS << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_SOLICITED = 1 << 1,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE =
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_INITIATOR_SMALL_FENCE << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE = DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_FENCE << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_STRONG_ORDERING =
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FM_STRONG_ORDERING << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE_FENCE =
            DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE | DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE,
};

/* The two words of a QP's doorbell record. */
enum {
    DOCA_GPUNETIO_IB_MLX5_RCV_DBR = 0,
    DOCA_GPUNETIO_IB_MLX5_SND_DBR = 1,
};

/* Segments (16-byte units) of the WQE shapes the data path writes. */
enum {
    DOCA_GPUNETIO_VERBS_WQE_SEG_CNT_RDMA_WRITE_INL_MIN = 3,
    DOCA_GPUNETIO_VERBS_WQE_SEG_CNT_RDMA_WRITE_INL_MAX = 4,
    DOCA_GPUNETIO_VERBS_WQE_SEG_CNT_ATOMIC_FA_CAS = 4,
    DOCA_GPUNETIO_VERBS_WQE_SEG_CNT_WAIT = 2,
};

/* Bit 31 of an inline data segment's byte count. */
enum {
    DOCA_GPUNETIO_IB_MLX5_INLINE_SEG = (int)0x80000000u,
};

/* The CQE's op_own byte: owner bit, and the opcode in bits 7:4. */
enum {
    DOCA_GPUNETIO_IB_MLX5_CQE_OWNER_MASK = 1,
    DOCA_GPUNETIO_IB_MLX5_CQE_REQ = 0,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESP_WR_IMM = 1,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESP_SEND = 2,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESP_SEND_IMM = 3,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESP_SEND_INV = 4,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESIZE_CQ = 5,
    DOCA_GPUNETIO_IB_MLX5_CQE_NO_PACKET = 6,
    DOCA_GPUNETIO_IB_MLX5_CQE_SIG_ERR = 12,
    DOCA_GPUNETIO_IB_MLX5_CQE_REQ_ERR = 13,
    DOCA_GPUNETIO_IB_MLX5_CQE_RESP_ERR = 14,
    DOCA_GPUNETIO_IB_MLX5_CQE_INVALID = 15,
};

/* ---- Modes the data path is compiled or run in ------------------------------------------------
 */

/* Which processor rings the NIC's doorbell. A bit mask: */
enum {
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY = 1 << 0, /* a CPU thread rings it */
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_GPU_SM = 1 << 1,    /* the posting thread rings it */
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_BF = 1 << 2,        /* the WQE itself is the doorbell */
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR = 1 << 3,    /* no doorbell record update */
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_FREE_FLOW = 1 << 4, /* the library runs the proxy */
};

enum doca_gpu_dev_verbs_nic_handler {
    /* Resolved at export to the fastest handler the machine can do (logged). */
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO = 0,
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY = DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY,
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB = DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_GPU_SM,
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF =
            DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_GPU_SM | DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_BF,
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR = DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_GPU_SM |
                                                    DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR,
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW =
            DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY |
            DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_FREE_FLOW,
};

/* A NIC handler's name as DOCA spells it after DOCA_GPUNETIO_VERBS_NIC_HANDLER_ ("unknown" else).
 */
GDAKI_INLINE const char *gdaki_nic_handler_name(uint32_t nic_handler)
{
    switch (nic_handler) {
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO:
        return "AUTO";
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY:
        return "CPU_PROXY";
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB:
        return "GPU_SM_DB";
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF:
        return "GPU_SM_BF";
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR:
        return "GPU_SM_NO_DBR";
    case DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW:
        return "CPU_PROXY_FREE_FLOW";
    default:
        return "unknown";
    }
}

/* How a QP's send doorbell record is kept (doca_gpu_verbs_export_qp derives it from the QP). */
enum doca_gpu_verbs_send_dbr_mode_ext {
    DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR = 0,
    DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW = 1,          /* the NIC needs no record */
    DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED = 2, /* a CPU thread writes it */
};

/* Who may use one QP at a time. */
enum doca_gpu_dev_verbs_resource_sharing_mode {
    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE = 0, /* one thread */
    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA = 1,       /* threads of one block */
    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU = 2,       /* any thread of the GPU */
    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_MAX = INT_MAX,
};

/* Who calls an operation: one thread, or the 32 lanes of a warp together. */
enum doca_gpu_dev_verbs_exec_scope {
    DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD = 0,
    DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP = 1,
};

/* Scope of a memory fence. */
enum doca_gpu_dev_verbs_sync_scope {
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS = 0,
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU = 1,
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_CTA = 2,
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD = 3, /* no fence */
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_MAX = INT_MAX,
};

/* ENABLED: a get also posts a Dump WQE, which makes the read data visible to the GPU. */
enum doca_gpu_dev_verbs_mcst_mode {
    DOCA_GPUNETIO_VERBS_MCST_DISABLED = 0,
    DOCA_GPUNETIO_VERBS_MCST_ENABLED = 1,
};

enum doca_gpu_dev_verbs_blocking_mode {
    DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED = 0,
    DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED = 1,
};

/* How mark_wqes_ready() waits for its turn: both are correct in every sharing mode. */
enum doca_gpu_dev_verbs_qp_ready_mode {
    DOCA_GPUNETIO_VERBS_READY_MODE_DEFAULT = 0,
    DOCA_GPUNETIO_VERBS_READY_MODE_ATOMIC_CAS = 1,
    DOCA_GPUNETIO_VERBS_READY_MODE_LD_ST = 2,
};

/* CQ kinds, bit flags: */
enum {
    DOCA_GPUNETIO_VERBS_CQ_FLAG_COLLAPSED = 1 << 0, /* the NIC writes every CQE to entry 0 */
    DOCA_GPUNETIO_VERBS_CQ_FLAG_HOST = 1 << 1,      /* a CPU proxy advances cqe_ci */
    DOCA_GPUNETIO_VERBS_CQ_FLAG_UNKNOWN = 1 << 7,   /* read the kind from the descriptor */
};

/*
 * How a CQ is polled; a template argument of the polls and posts, resolved
 * from the CQ descriptor's cq_type when UNKNOWN. One byte in the descriptor.
 */
#ifdef __cplusplus
enum doca_gpu_dev_verbs_cq_type : uint8_t {
#else
enum doca_gpu_dev_verbs_cq_type {
#endif
    DOCA_GPUNETIO_VERBS_CQ_64B = 0,
    DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED = DOCA_GPUNETIO_VERBS_CQ_FLAG_COLLAPSED,
    DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST =
            DOCA_GPUNETIO_VERBS_CQ_FLAG_COLLAPSED | DOCA_GPUNETIO_VERBS_CQ_FLAG_HOST,
    DOCA_GPUNETIO_VERBS_CQ_UNKNOWN = DOCA_GPUNETIO_VERBS_CQ_FLAG_UNKNOWN,
};

/* Whether a get posts a Dump WQE after its reads (AUTO: when the memory needs it). */
enum doca_gpu_dev_verbs_dump_mode {
    DOCA_GPUNETIO_VERBS_DUMP = 0,
    DOCA_GPUNETIO_VERBS_NODUMP = 1,
    DOCA_GPUNETIO_VERBS_DUMP_AUTO = 2,
};

enum doca_gpu_dev_verbs_signal_op {
    DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD = 0, /* 8-byte remote fetch-add */
};

enum doca_gpu_dev_verbs_atomic_ext_bytes {
    DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4 = 4,
    DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_8 = 8,
};

/* The queue of a QP a call works on: send, or receive (the DOCA SDK's two-sided calls). */
enum doca_gpu_dev_verbs_qp_type {
    DOCA_GPUNETIO_VERBS_QP_SQ = 0,
    DOCA_GPUNETIO_VERBS_QP_RQ = 1,
};

/* Where a QP's rings live. */
enum doca_gpu_dev_verbs_mem_type {
    DOCA_GPUNETIO_VERBS_MEM_TYPE_AUTO = 0,
    DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST = 1,
    DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU = 2,
    DOCA_GPUNETIO_VERBS_MEM_TYPE_MAX = INT_MAX,
};

/* Run-time options of the data path, OR-ed. */
enum doca_gpu_dev_verbs_gpu_code_opt {
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT = 0,
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_ASYNC_STORE_RELEASE = 1 << 0,
    /* Do not wait for a free ring slot: the caller guarantees the ring never overflows. */
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK = 1 << 1,
    /* Publish the producer index but ring no doorbell (a later submit rings for both). */
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING = 1 << 2,
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI = 1 << 3,
    DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_MAX = INT_MAX,
};

/* ---- mlx5 segments and CQEs, with DOCA's names (big-endian fields) ----------------------- */

struct __attribute__((__packed__)) doca_gpunetio_ib_mlx5_wqe_data_seg {
    __be32 byte_count;
    __be32 lkey;
    __be64 addr;
};

struct __attribute__((__packed__, __aligned__(4))) doca_gpunetio_ib_mlx5_wqe_ctrl_seg {
    __be32 opmod_idx_opcode;
    __be32 qpn_ds;
    union {
        struct __attribute__((__packed__)) {
            uint8_t signature;
            __be16 dci_stream_channel_id;
            uint8_t fm_ce_se;
        };
        struct __attribute__((__packed__)) {
            __be32 signature_fm_ce_se;
        };
    };
    __be32 imm;
};

struct __attribute__((__packed__)) doca_gpunetio_ib_mlx5_wqe_raddr_seg {
    __be64 raddr;
    __be32 rkey;
    __be32 reserved;
};

struct __attribute__((__packed__)) doca_gpunetio_ib_mlx5_wqe_atomic_seg {
    __be64 swap_add;
    __be64 compare;
};

struct doca_gpunetio_ib_mlx5_wqe_inl_data_seg {
    uint32_t byte_count;
};

struct __attribute__((__packed__)) doca_gpunetio_ib_mlx5_wqe_wait_seg {
    uint32_t resv[2];
    __be32 max_index;
    __be32 qpn_cqn;
};

/* Tag-matching views of a CQE's first 16 bytes. */
struct doca_gpunetio_ib_mlx5_tm_cqe {
    __be32 success;
    __be16 hw_phase_cnt;
    uint8_t rsvd0[12];
};

struct doca_gpunetio_ib_ibv_tmh {
    uint8_t opcode;
    uint8_t reserved[3];
    __be32 app_ctx;
    __be64 tag;
};

struct doca_gpunetio_ib_mlx5_cqe64 {
    union {
        struct {
            uint8_t rsvd0[2];
            __be16 wqe_id;
            uint8_t rsvd4[13];
            uint8_t ml_path;
            uint8_t rsvd20[4];
            __be16 slid;
            __be32 flags_rqpn;
            uint8_t hds_ip_ext;
            uint8_t l4_hdr_type_etc;
            __be16 vlan_info;
        };
        struct doca_gpunetio_ib_mlx5_tm_cqe tm_cqe;
        struct doca_gpunetio_ib_ibv_tmh tmh;
    };
    __be32 srqn_uidx;
    __be32 imm_inval_pkey;
    uint8_t app;
    uint8_t app_op;
    __be16 app_info;
    __be32 byte_cnt;
    __be64 timestamp;
    __be32 sop_drop_qpn;
    union {
        struct {
            __be16 wqe_counter;
            uint8_t signature;
            uint8_t op_own;
        };
        __be32 wqe_counter_sig_op_own_raw;
    };
};

/* An error CQE: the syndromes in place of the CQE64's byte count and timestamp. */
struct doca_gpunetio_ib_mlx5_err_cqe_ex {
    uint8_t rsvd0[32];
    __be32 srqn;
    uint8_t rsvd1[16];
    uint8_t hw_err_synd;
    uint8_t hw_synd_type;
    uint8_t vendor_err_synd;
    uint8_t syndrome;
    __be32 s_wqe_opcode_qpn;
    __be16 wqe_counter;
    uint8_t signature;
    uint8_t op_own;
};

GDAKI_STATIC_ASSERT(sizeof(struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg) == 16, "ctrl segment");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpunetio_ib_mlx5_cqe64) == 64, "CQE64");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpunetio_ib_mlx5_err_cqe_ex) == 64, "error CQE");

#ifdef __cplusplus
}
#endif

#include "impl/gdaki_macros_end.h"

/* The data-path types (DOCA declares them in doca_gpunetio_verbs_dev.h). */
#include "doca_gpunetio_verbs_dev.h"

#endif /* DOCA_GPUNETIO_VERBS_DEF_H */
