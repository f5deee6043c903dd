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

#include <stddef.h>
#include <stdint.h>

#include "impl/gdaki_macros.h"
#include "impl/gdaki_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions: (major << 16) | (minor << 8) | patch ---------------------------------------- */

#define DOCA_GPUNETIO_VERSION_MAJOR       2
#define DOCA_GPUNETIO_VERSION_MINOR       0
#define DOCA_GPUNETIO_VERSION_PATCH       0
#define DOCA_GPUNETIO_VERSION_MAJOR_SHIFT 16
#define DOCA_GPUNETIO_VERSION_MINOR_SHIFT 8
#define DOCA_GPUNETIO_VERSION_PATCH_SHIFT 0
#define DOCA_GPUNETIO_MAKE_VERSION(major, minor, patch)         \
    (((uint32_t)(major) << DOCA_GPUNETIO_VERSION_MAJOR_SHIFT) | \
     ((uint32_t)(minor) << DOCA_GPUNETIO_VERSION_MINOR_SHIFT) | \
     ((uint32_t)(patch) << DOCA_GPUNETIO_VERSION_PATCH_SHIFT))
#define DOCA_GPUNETIO_VERSION                                                            \
    DOCA_GPUNETIO_MAKE_VERSION(DOCA_GPUNETIO_VERSION_MAJOR, DOCA_GPUNETIO_VERSION_MINOR, \
                               DOCA_GPUNETIO_VERSION_PATCH)
/* The device headers and the host library are released together: both carry the library's. */
#define DOCA_GPUNETIO_DEVICE_CODE_VERSION            DOCA_GPUNETIO_VERSION
#define DOCA_GPUNETIO_HOST_CODE_VERSION              DOCA_GPUNETIO_VERSION
/*
 * The oldest device code and host code this library works with. Both are the
 * first version whose QP descriptor (struct doca_gpu_dev_verbs_qp below) has
 * this layout.
 */
#define DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION DOCA_GPUNETIO_MAKE_VERSION(2, 0, 0)
#define DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION   DOCA_GPUNETIO_MAKE_VERSION(2, 0, 0)

/* ---- Limits --------------------------------------------------------------------------------- */

#define DOCA_GPUNETIO_VERBS_WARP_SIZE               32
#define DOCA_GPUNETIO_VERBS_WARP_FULL_MASK          0xffffffffu
#define DOCA_GPUNETIO_VERBS_PAGE_SIZE               65536 /* GPU page: alignment of GPU rings */
#define DOCA_GPUNETIO_VERBS_CQE_CI_MASK             0xffffff
#define DOCA_GPUNETIO_VERBS_WQE_PI_MASK             0xffff
#define DOCA_GPUNETIO_VERBS_CQE_SIZE                64
#define DOCA_GPUNETIO_VERBS_WQE_IDX_SHIFT           8
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

/* x accessed once, as volatile: neither kept in a register nor left out (reads and writes). */
#define DOCA_GPUNETIO_VOLATILE(x) (*(volatile __typeof__(x) *)&(x))
#ifndef ACCESS_ONCE
#define ACCESS_ONCE(x) DOCA_GPUNETIO_VOLATILE(x)
#endif
#ifndef READ_ONCE
#define READ_ONCE(x) ACCESS_ONCE(x)
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) (ACCESS_ONCE(x) = (v))
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
    DOCA_GPUNETIO_IB_MLX5_OPCODE_DUMP = 0x23,
};

/* fm_ce_se byte of the control segment. */
enum doca_gpu_dev_verbs_wqe_ctrl_flags {
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_ERROR_UPDATE = 0x0 << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_FIRST_CQE_ERROR = 0x1 << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE = 0x2 << 2,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_SOLICITED = 1 << 1,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE = 0x1 << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE = 0x2 << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_STRONG_ORDERING = 0x3 << 5,
    DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE_FENCE = (0x2 << 2) | (0x2 << 5),
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
    DOCA_GPUNETIO_VERBS_NIC_HANDLER_TYPE_MAX,
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
    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_MAX,
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
    DOCA_GPUNETIO_VERBS_SYNC_SCOPE_MAX,
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

enum doca_gpu_dev_verbs_signal_op {
    DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD = 0, /* 8-byte remote fetch-add */
};

enum doca_gpu_dev_verbs_atomic_ext_bytes {
    DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_4 = 4,
    DOCA_GPUNETIO_VERBS_ATOMIC_EXT_BYTES_8 = 8,
};

enum doca_gpu_dev_verbs_qp_type {
    DOCA_GPUNETIO_VERBS_QP_SQ = 0,
};

/* Where a QP's rings live. */
enum doca_gpu_dev_verbs_mem_type {
    DOCA_GPUNETIO_VERBS_MEM_TYPE_AUTO = 0,
    DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST = 1,
    DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU = 2,
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
};

/* ---- Data-path types ------------------------------------------------------------------------- */

/* A ticket names the SQ index of the last WQE an operation posted; wait() polls the CQ for it. */
typedef uint64_t doca_gpu_dev_verbs_ticket_t;

/* Remote or local memory: an address and its memory key, big-endian (htobe32(mr->rkey)). */
struct doca_gpu_dev_verbs_addr {
    uint64_t addr;
    gdaki_be32_t key;
};

/* A 64-byte WQE basic block. */
struct doca_gpu_dev_verbs_wqe {
    uint8_t bytes[64];
};

/*
 * What the data path records of the first error CQE it meets on a CQ (host:
 * doca_gpu_verbs_query_last_error). Written once, under has_error's 0 -> 1
 * compare-and-swap.
 */
struct doca_gpu_dev_verbs_qp_err {
    uint32_t has_error;
    uint8_t syndrome;
    uint8_t vendor_err_synd;
    uint8_t hw_err_synd;
    uint8_t hw_synd_type;
    uint32_t wqe_counter;
    uint32_t reserved;
};

/*
 * A completion queue as the data path sees it. Every WQE the data path
 * posts asks for a CQE and takes one basic block, so CQE number i completes
 * WQE number i: the CQ has as many entries as the SQ has basic blocks, or one
 * when collapsed (the NIC writes every CQE to entry 0). The NIC may overrun
 * it (created with overrun ignored): the data path matches CQEs to WQEs by
 * their wqe_counter, not by consuming them in order.
 */
struct doca_gpu_dev_verbs_cq {
    uint8_t *cqe_daddr;  /* the ring, as the executing processor addresses it */
    uint32_t cqe_num;    /* entries (a power of two; 1 when collapsed) */
    uint32_t cqe_mask;   /* cqe_num - 1 */
    uint32_t cq_num;     /* CQ number (WAIT WQEs name it) */
    uint32_t collapsed;  /* 1: every CQE lands in entry 0 */
    gdaki_be32_t *dbrec; /* consumer-index doorbell record */
    uint32_t mem_type;   /* enum doca_gpu_dev_verbs_mem_type of the ring */
    uint32_t reserved;
    uint64_t cqe_ci; /* CQEs consumed by poll_cq() */
    struct doca_gpu_dev_verbs_qp_err err;
};

/*
 * A send queue as the data path sees it: built by doca_gpu_verbs_export_qp()
 * in memory the executing processor reaches (GPU memory for kernels, host
 * memory for CPU threads). The first line (the SQ's fields and its CQ) is
 * read-only after export but for the CQ's consumer state. The counters,
 * shared by the threads using the QP and only ever growing, are on a cache
 * line of their own, so that writing them does not evict the read-only
 * fields every operation loads:
 *   sq_rsvd_index  slots handed out by reserve_wq_slots (atomic add);
 *   sq_ready_index every WQE below it is written (mark_wqes_ready, in order);
 *   sq_wqe_pi      producer index last published to the NIC or the proxy
 *                  (under sq_lock, so it never moves backwards).
 * sq_nic_scope: GPU when the ring and the doorbell record are in GPU memory
 * and the data path rings the NIC itself. The NIC reads GPU memory through
 * the GPU's L2, the point where GPU-scope stores are ordered, so a
 * GPU-scope release orders them for it too. SYS otherwise: host memory,
 * which the NIC reads without passing the L2, or a CPU proxy.
 */
#define DOCA_GPUNETIO_VERBS_QP_LINE 128 /* bytes: a GPU L1/L2 cache line */

struct doca_gpu_dev_verbs_qp {
    uint8_t *sq_wqe_daddr;         /* ring of sq_wqe_num 64-byte basic blocks */
    uint32_t sq_wqe_num;           /* a power of two, at most DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM */
    uint32_t sq_wqe_mask;          /* sq_wqe_num - 1 */
    uint32_t sq_num;               /* QP number */
    gdaki_be32_t sq_num_shift8_be; /* htobe32(sq_num << 8): the control segment's qpn_ds */
    uint32_t nic_handler;          /* enum doca_gpu_dev_verbs_nic_handler, resolved (never AUTO) */
    uint32_t mem_type;             /* enum doca_gpu_dev_verbs_mem_type of the ring */
    gdaki_be32_t *sq_dbrec;        /* send word of the doorbell record (NULL without one) */
    uint64_t *sq_db;               /* UAR doorbell / BlueFlame register (NULL under a proxy) */
    uint64_t *cpu_proxy_pi;        /* proxy: host word the producer index is published in */
    uint32_t sq_nic_scope;         /* enum doca_gpu_dev_verbs_sync_scope of the NIC fences */
    uint32_t reserved0;

    struct doca_gpu_dev_verbs_cq cq_sq;

    /* Second line (the descriptor is placed 128-byte aligned). */
    uint64_t sq_rsvd_index;
    uint64_t sq_ready_index;
    uint64_t sq_wqe_pi;
    uint32_t sq_lock;
    uint8_t reserved1[DOCA_GPUNETIO_VERBS_QP_LINE - 28];
};

GDAKI_STATIC_ASSERT(offsetof(struct doca_gpu_dev_verbs_qp, sq_rsvd_index) ==
                            DOCA_GPUNETIO_VERBS_QP_LINE,
                    "the QP counters start the descriptor's second cache line");
GDAKI_STATIC_ASSERT(sizeof(struct doca_gpu_dev_verbs_qp) == 2 * DOCA_GPUNETIO_VERBS_QP_LINE,
                    "a QP descriptor is two cache lines (arrays of them stay aligned)");

#ifdef __cplusplus
}
#endif

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_VERBS_DEF_H */
