/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 send WQE formats: opcodes, control-segment flags, segment layouts and
 * inline builders. Shared by the host library, the GPU data path (compiled by
 * nvcc) and softmlx5, so it includes nothing host-only.
 *
 * A send WQE is a control segment followed by opcode-specific segments, sized
 * in 16-byte units (DS) and stored in 64-byte basic blocks (BB) of a ring.
 * Builders take host-order values and store big-endian fields; the one
 * exception is the immediate of the control segment, stored as given (see
 * prm_wqe_set_ctrl_seg).
 */
#ifndef DOCA_GPUNETIO_IMPL_PRM_MLX5_WQE_H
#define DOCA_GPUNETIO_IMPL_PRM_MLX5_WQE_H

#include <stdint.h>

#include "../gdaki_platform.h"

/* Last: a public header included above removes it at its end. */
#include "../gdaki_macros.h"

/* Send WQE opcodes (control segment opcode field). */
enum prm_wqe_opcode {
    PRM_WQE_OPCODE_NOP = 0x00,
    PRM_WQE_OPCODE_SEND_INVAL = 0x01,
    PRM_WQE_OPCODE_RDMA_WRITE = 0x08,
    PRM_WQE_OPCODE_RDMA_WRITE_IMM = 0x09,
    PRM_WQE_OPCODE_SEND = 0x0a,
    PRM_WQE_OPCODE_SEND_IMM = 0x0b,
    PRM_WQE_OPCODE_LSO = 0x0e,  /* also called TSO */
    PRM_WQE_OPCODE_WAIT = 0x0f, /* wait for a CQ index (or a time, on Ethernet SQs) */
    PRM_WQE_OPCODE_RDMA_READ = 0x10,
    PRM_WQE_OPCODE_ATOMIC_CS = 0x11,
    PRM_WQE_OPCODE_ATOMIC_FA = 0x12,
    PRM_WQE_OPCODE_ATOMIC_MASKED_CS = 0x14,
    PRM_WQE_OPCODE_ATOMIC_MASKED_FA = 0x15,
    PRM_WQE_OPCODE_RECV_ENABLE = 0x16,
    PRM_WQE_OPCODE_SEND_ENABLE = 0x17,
    PRM_WQE_OPCODE_FMR = 0x19,
    PRM_WQE_OPCODE_LOCAL_INVAL = 0x1b,
    PRM_WQE_OPCODE_CONFIG_CMD = 0x1f,
    PRM_WQE_OPCODE_SET_PSV = 0x20,
    /* Gathers local data without transmitting it: flushes prior RDMA READ data to memory. */
    PRM_WQE_OPCODE_DUMP = 0x23,
    PRM_WQE_OPCODE_UMR = 0x25,
    PRM_WQE_OPCODE_TAG_MATCHING = 0x28,
    PRM_WQE_OPCODE_ENHANCED_MPSW = 0x29,
    PRM_WQE_OPCODE_FLOW_TBL_ACCESS = 0x2c,
    PRM_WQE_OPCODE_ACCESS_ASO = 0x2d,
    PRM_WQE_OPCODE_MMO = 0x2f,
};

/* Opcode modifiers. Extended (masked) atomics encode the operand size: 0x8 | log2(bytes) - 2. */
enum {
    PRM_WQE_OPMOD_EXT_ATOMIC = 0x08,
    PRM_WQE_OPMOD_EXT_ATOMIC_4B = PRM_WQE_OPMOD_EXT_ATOMIC | 0x0,
    PRM_WQE_OPMOD_EXT_ATOMIC_8B = PRM_WQE_OPMOD_EXT_ATOMIC | 0x1,
    PRM_WQE_OPMOD_WAIT_TIME = 0x02, /* WAIT on a time stamp rather than on a CQ */
};

/* Control segment fm_ce_se byte: fence mode [7:5], completion mode [3:2], solicited [1]. */
enum {
    PRM_WQE_CTRL_SOLICITED = 1 << 1,

    PRM_WQE_CTRL_CE_SHIFT = 2,
    PRM_WQE_CTRL_CE_MASK = 0x3 << 2,
    PRM_WQE_CTRL_CE_ERROR_ONLY = 0x0 << 2,     /* CQE only when the WQE fails */
    PRM_WQE_CTRL_CE_FIRST_ERROR = 0x1 << 2,    /* CQE only on the first failing WQE */
    PRM_WQE_CTRL_CQ_UPDATE = 0x2 << 2,         /* always a CQE */
    PRM_WQE_CTRL_CQ_UPDATE_AND_EQE = 0x3 << 2, /* always a CQE and an EQE */

    PRM_WQE_CTRL_FM_SHIFT = 5,
    PRM_WQE_CTRL_FM_MASK = 0x7 << 5,
    PRM_WQE_CTRL_FM_NONE = 0x0 << 5,
    PRM_WQE_CTRL_FM_INITIATOR_SMALL = 0x1 << 5, /* after prior RDMA READ/atomic responses */
    PRM_WQE_CTRL_FM_FENCE = 0x2 << 5,
    PRM_WQE_CTRL_FM_STRONG_ORDERING = 0x3 << 5,
    PRM_WQE_CTRL_FM_SMALL_AND_FENCE = 0x4 << 5, /* what IBV_SEND_FENCE maps to */
};

/* Ethernet segment cs_flags: checksum offloads. */
enum {
    PRM_WQE_ETH_L3_CSUM = 1 << 6,
    PRM_WQE_ETH_L4_CSUM = 1 << 7,
};

enum {
    PRM_WQE_BB_SIZE = 64,
    PRM_WQE_BB_SHIFT = 6,
    PRM_WQE_DS_SIZE = 16,
    PRM_WQE_DS_PER_BB = PRM_WQE_BB_SIZE / PRM_WQE_DS_SIZE,
    /* The DS field is 6 bits wide: a WQE spans at most 63 DS (1008 bytes, 16 BBs). */
    PRM_WQE_MAX_DS = 63,
    /* The largest WQE in basic blocks (63 DS round up to 16, 1024 bytes): size WQE buffers by it.
     */
    PRM_WQE_MAX_BB = 16,
    /* The control segment index field is 16 bits: the low 16 bits of the producer counter. */
    PRM_WQE_IDX_SHIFT = 8,
};
/*
 * The BlueFlame register of a UAR (0x800 of its page, or 0xa00): two
 * buffers, one after the other, each taking one WQE. Consecutive BlueFlame
 * writes alternate between them, so that a WQE still going in through a
 * write-combining path is never overwritten by the next.
 */
enum {
    PRM_WQE_BF_BUF_SIZE = 256,
    PRM_WQE_BF_BUFS = 2,
};
/* Bit 31 of an inline segment's byte count marks the segment as inline data. */
static const uint32_t PRM_WQE_INLINE_SEG_FLAG = 0x80000000u;
/* The lkey of a data segment that ends a receive WQE's scatter list early (the invalid key). */
static const uint32_t PRM_WQE_LKEY_END = 0x100u;

/* Control segment: opens every WQE. */
struct prm_wqe_ctrl_seg {
    gdaki_be32_t opmod_idx_opcode; /* opmod [31:24], WQE index [23:8], opcode [7:0] */
    gdaki_be32_t qpn_ds;           /* QP/SQ number [31:8], size in DS [5:0] */
    uint8_t signature;
    uint8_t reserved[2];
    uint8_t fm_ce_se;
    gdaki_be32_t imm; /* immediate, invalidated rkey, or UMR mkey; opcode dependent */
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_ctrl_seg) == 16, "ctrl segment is 16 bytes");
GDAKI_STATIC_ASSERT((PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE) <= (PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE),
                    "a WQE of PRM_WQE_MAX_DS fits PRM_WQE_MAX_BB basic blocks");

/*
 * XRC segment of an XRC initiator QP's send WQE, right after the control
 * segment: the XRC SRQ at the destination that the request is for.
 */
struct prm_wqe_xrc_seg {
    gdaki_be32_t xrc_srqn; /* [23:0] */
    uint8_t reserved[12];
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_xrc_seg) == 16, "XRC segment is 16 bytes");

/* Remote address segment: RDMA WRITE/READ and atomics. */
struct prm_wqe_raddr_seg {
    gdaki_be64_t raddr;
    gdaki_be32_t rkey;
    gdaki_be32_t reserved;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_raddr_seg) == 16, "raddr segment is 16 bytes");

/*
 * Datagram segment of a UD send WQE, after the control segment: the
 * address vector of the destination (PRM "datagram segment"; 48 bytes with
 * the extended, GRH part).
 */
struct prm_wqe_datagram_seg {
    gdaki_be32_t qkey; /* Q_Key; bit 31 set: use the QP's own Q_Key */
    gdaki_be32_t reserved0;
    gdaki_be32_t dqp_dct; /* extended AV flag [31], destination QPN [23:0] */
    uint8_t stat_rate_sl; /* static rate [7:4], SL [3:0] */
    uint8_t fl_mlid;      /* force loopback [7], source LID path bits [6:0] */
    gdaki_be16_t rlid;
    uint8_t reserved1[4];
    uint8_t rmac[6];
    uint8_t tclass;
    uint8_t hop_limit;
    gdaki_be32_t grh_gid_fl; /* GRH present [30], source GID index [27:20], flow label [19:0] */
    uint8_t rgid[16];
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_datagram_seg) == 48, "datagram segment is 48 bytes");
static const uint32_t PRM_WQE_AV_EXTENDED = 0x80000000u; /* dqp_dct */
static const uint32_t PRM_WQE_AV_GRH = 0x40000000u;      /* grh_gid_fl */
static const uint32_t PRM_WQE_AV_FLOW_LABEL_MASK = 0xfffffu;
/* A WQE Q_Key with bit 31 set asks for the QP's own Q_Key (IB: a controlled Q_Key). */
static const uint32_t PRM_WQE_QKEY_USE_QP = 0x80000000u;

/* Data (gather/scatter pointer) segment. */
struct prm_wqe_data_seg {
    gdaki_be32_t byte_count;
    gdaki_be32_t lkey;
    gdaki_be64_t addr;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_data_seg) == 16, "data segment is 16 bytes");

/*
 * Inline data segment header: byte count with PRM_WQE_INLINE_SEG_FLAG, then
 * the data itself, padded up to a whole DS.
 */
struct prm_wqe_inline_seg {
    gdaki_be32_t byte_count;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_inline_seg) == 4, "inline segment header is 4 bytes");

/* Atomic segment of ATOMIC_CS / ATOMIC_FA (8-byte operands). */
struct prm_wqe_atomic_seg {
    gdaki_be64_t swap_add; /* swap value (CS) or addend (FA) */
    gdaki_be64_t compare;  /* compare value (CS); ignored by FA */
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_atomic_seg) == 16, "atomic segment is 16 bytes");

/* Masked compare-and-swap, 4-byte operands (opmod PRM_WQE_OPMOD_EXT_ATOMIC_4B). */
struct prm_wqe_masked_cs32_seg {
    gdaki_be32_t swap;
    gdaki_be32_t compare;
    gdaki_be32_t swap_mask;
    gdaki_be32_t compare_mask;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_masked_cs32_seg) == 16, "masked CS32 is 16 bytes");

/* Masked fetch-and-add, 4-byte operands. A set bit in field_boundary ends a carry chain. */
struct prm_wqe_masked_fa32_seg {
    gdaki_be32_t add;
    gdaki_be32_t field_boundary;
    gdaki_be32_t reserved[2];
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_masked_fa32_seg) == 16, "masked FA32 is 16 bytes");

/* Masked compare-and-swap, 8-byte operands (opmod PRM_WQE_OPMOD_EXT_ATOMIC_8B). */
struct prm_wqe_masked_cs64_seg {
    gdaki_be64_t swap;
    gdaki_be64_t compare;
    gdaki_be64_t swap_mask;
    gdaki_be64_t compare_mask;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_masked_cs64_seg) == 32, "masked CS64 is 32 bytes");

/* Masked fetch-and-add, 8-byte operands. */
struct prm_wqe_masked_fa64_seg {
    gdaki_be64_t add;
    gdaki_be64_t field_boundary;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_masked_fa64_seg) == 16, "masked FA64 is 16 bytes");

/*
 * Ethernet segment of SEND/LSO on Ethernet SQs. The inlined L2 header starts
 * at inline_hdr_start and continues into inline_hdr and, past 18 bytes, into
 * the following DS.
 */
struct prm_wqe_eth_seg {
    gdaki_be32_t reserved0;
    uint8_t cs_flags;
    uint8_t reserved1;
    gdaki_be16_t mss;
    gdaki_be32_t reserved2;
    gdaki_be16_t inline_hdr_sz;
    uint8_t inline_hdr_start[2];
    uint8_t inline_hdr[16];
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_eth_seg) == 32, "eth segment is 32 bytes");

/* Wait segment of WAIT / SEND_ENABLE / RECV_ENABLE: stall until obj_num reaches max_index. */
struct prm_wqe_wait_seg {
    uint8_t reserved[8];
    gdaki_be32_t max_index; /* CQ consumer index (WAIT) or WQE counter (SEND/RECV_ENABLE) */
    gdaki_be32_t obj_num;   /* CQ number (WAIT) or QP/SQ number (SEND/RECV_ENABLE) */
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_wqe_wait_seg) == 16, "wait segment is 16 bytes");

/* DS counts of the common WQE shapes, derived from the segment sizes (rounded up). */
#define PRM_WQE_DS_OF(bytes) (((bytes) + PRM_WQE_DS_SIZE - 1) / PRM_WQE_DS_SIZE)
enum {
    PRM_WQE_DS_RDMA =
            PRM_WQE_DS_OF(sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_raddr_seg) +
                          sizeof(struct prm_wqe_data_seg)),
    PRM_WQE_DS_SEND =
            PRM_WQE_DS_OF(sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_data_seg)),
    PRM_WQE_DS_ATOMIC =
            PRM_WQE_DS_OF(sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_raddr_seg) +
                          sizeof(struct prm_wqe_atomic_seg) + sizeof(struct prm_wqe_data_seg)),
    PRM_WQE_DS_MASKED_CS64 =
            PRM_WQE_DS_OF(sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_raddr_seg) +
                          sizeof(struct prm_wqe_masked_cs64_seg) + sizeof(struct prm_wqe_data_seg)),
    PRM_WQE_DS_WAIT =
            PRM_WQE_DS_OF(sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_wait_seg)),
};
#undef PRM_WQE_DS_OF

/* DS count of `bytes` of segments. */
GDAKI_INLINE uint32_t prm_wqe_ds_count(uint32_t bytes)
{
    return (bytes + PRM_WQE_DS_SIZE - 1) / PRM_WQE_DS_SIZE;
}

/* DS count of an inline segment carrying `len` bytes of data (header included). */
GDAKI_INLINE uint32_t prm_wqe_inline_ds(uint32_t len)
{
    return prm_wqe_ds_count((uint32_t)sizeof(struct prm_wqe_inline_seg) + len);
}

/* Number of 64-byte basic blocks a WQE of `ds` DS occupies in the ring. */
GDAKI_INLINE uint32_t prm_wqe_bb_count(uint32_t ds)
{
    return (ds + PRM_WQE_DS_PER_BB - 1) / PRM_WQE_DS_PER_BB;
}

/*
 * Address of basic block `index` in a ring of 2^log_wqe_count BBs (the index
 * wraps). A multi-BB WQE that starts in the last BBs continues at ring_base:
 * callers place each following BB with its own prm_wqe_slot().
 */
GDAKI_INLINE void *prm_wqe_slot(void *ring_base, uint64_t index, uint32_t log_wqe_count)
{
    uint64_t mask = ((uint64_t)1 << log_wqe_count) - 1;

    return (uint8_t *)ring_base + ((index & mask) << PRM_WQE_BB_SHIFT);
}

/* Opcode modifier of an extended (masked) atomic on 2^log_size-byte operands (log_size 2 or 3). */
GDAKI_INLINE uint8_t prm_wqe_ext_atomic_opmod(uint32_t log_size)
{
    return (uint8_t)(PRM_WQE_OPMOD_EXT_ATOMIC | (log_size - 2));
}

/*
 * Fills a control segment; arguments mean what they mean to rdma-core's
 * mlx5dv_set_ctrl_seg(): wqe_index is the producer counter (low 16 bits are
 * kept), ds the WQE size in DS (at most PRM_WQE_MAX_DS), fm_ce_se a sum of
 * PRM_WQE_CTRL_* flags. imm is stored as given: pass it already big-endian
 * (as verbs' imm_data is), or htobe32(rkey) for SEND_INVAL. The reserved
 * bytes are zeroed.
 */
GDAKI_INLINE void prm_wqe_set_ctrl_seg(struct prm_wqe_ctrl_seg *seg, uint16_t wqe_index,
                                       uint8_t opcode, uint8_t opmod, uint32_t qpn,
                                       uint8_t fm_ce_se, uint8_t ds, uint8_t signature,
                                       gdaki_be32_t imm)
{
    seg->opmod_idx_opcode = gdaki_htobe32(((uint32_t)opmod << 24) |
                                          ((uint32_t)wqe_index << PRM_WQE_IDX_SHIFT) | opcode);
    seg->qpn_ds = gdaki_htobe32((qpn << 8) | ds);
    seg->signature = signature;
    seg->reserved[0] = 0;
    seg->reserved[1] = 0;
    seg->fm_ce_se = fm_ce_se;
    seg->imm = imm;
}

GDAKI_INLINE void prm_wqe_set_raddr_seg(struct prm_wqe_raddr_seg *seg, uint64_t raddr,
                                        uint32_t rkey)
{
    seg->raddr = gdaki_htobe64(raddr);
    seg->rkey = gdaki_htobe32(rkey);
    seg->reserved = 0;
}

GDAKI_INLINE void prm_wqe_set_data_seg(struct prm_wqe_data_seg *seg, uint32_t byte_count,
                                       uint32_t lkey, uint64_t addr)
{
    seg->byte_count = gdaki_htobe32(byte_count);
    seg->lkey = gdaki_htobe32(lkey);
    seg->addr = gdaki_htobe64(addr);
}

/* Writes the inline header for `len` bytes of data; the data goes at prm_wqe_inline_data(). */
GDAKI_INLINE void prm_wqe_set_inline_seg(struct prm_wqe_inline_seg *seg, uint32_t len)
{
    seg->byte_count = gdaki_htobe32(len | PRM_WQE_INLINE_SEG_FLAG);
}

GDAKI_INLINE void *prm_wqe_inline_data(struct prm_wqe_inline_seg *seg)
{
    return seg + 1;
}

GDAKI_INLINE void prm_wqe_set_atomic_seg(struct prm_wqe_atomic_seg *seg, uint64_t swap_add,
                                         uint64_t compare)
{
    seg->swap_add = gdaki_htobe64(swap_add);
    seg->compare = gdaki_htobe64(compare);
}

GDAKI_INLINE void prm_wqe_set_masked_cs32_seg(struct prm_wqe_masked_cs32_seg *seg, uint32_t swap,
                                              uint32_t compare, uint32_t swap_mask,
                                              uint32_t compare_mask)
{
    seg->swap = gdaki_htobe32(swap);
    seg->compare = gdaki_htobe32(compare);
    seg->swap_mask = gdaki_htobe32(swap_mask);
    seg->compare_mask = gdaki_htobe32(compare_mask);
}

GDAKI_INLINE void prm_wqe_set_masked_fa32_seg(struct prm_wqe_masked_fa32_seg *seg, uint32_t add,
                                              uint32_t field_boundary)
{
    seg->add = gdaki_htobe32(add);
    seg->field_boundary = gdaki_htobe32(field_boundary);
    seg->reserved[0] = 0;
    seg->reserved[1] = 0;
}

GDAKI_INLINE void prm_wqe_set_masked_cs64_seg(struct prm_wqe_masked_cs64_seg *seg, uint64_t swap,
                                              uint64_t compare, uint64_t swap_mask,
                                              uint64_t compare_mask)
{
    seg->swap = gdaki_htobe64(swap);
    seg->compare = gdaki_htobe64(compare);
    seg->swap_mask = gdaki_htobe64(swap_mask);
    seg->compare_mask = gdaki_htobe64(compare_mask);
}

GDAKI_INLINE void prm_wqe_set_masked_fa64_seg(struct prm_wqe_masked_fa64_seg *seg, uint64_t add,
                                              uint64_t field_boundary)
{
    seg->add = gdaki_htobe64(add);
    seg->field_boundary = gdaki_htobe64(field_boundary);
}

/*
 * Fills an Ethernet segment and copies the first inline_hdr_sz header bytes
 * from `hdr` to inline_hdr_start onward. The caller makes room for headers
 * longer than the segment's 18 bytes (they spill into the next DS, which must
 * not wrap past the ring end).
 */
GDAKI_INLINE void prm_wqe_set_eth_seg(struct prm_wqe_eth_seg *seg, uint8_t cs_flags, uint16_t mss,
                                      uint16_t inline_hdr_sz, const uint8_t *hdr)
{
    seg->reserved0 = 0;
    seg->cs_flags = cs_flags;
    seg->reserved1 = 0;
    seg->mss = gdaki_htobe16(mss);
    seg->reserved2 = 0;
    seg->inline_hdr_sz = gdaki_htobe16(inline_hdr_sz);
    /* Through a pointer to the segment's tail, as the copy may run past inline_hdr_start. */
    uint8_t *dst =
            (uint8_t *)seg + sizeof(*seg) - sizeof(seg->inline_hdr) - sizeof(seg->inline_hdr_start);
    for (uint32_t i = 0; i < inline_hdr_sz; i++)
        dst[i] = hdr[i];
}

/* Wait segment: stall the SQ until object obj_num (a CQ for WAIT) reaches max_index. */
GDAKI_INLINE void prm_wqe_set_wait_seg(struct prm_wqe_wait_seg *seg, uint32_t obj_num,
                                       uint32_t max_index)
{
    for (unsigned int i = 0; i < sizeof(seg->reserved); i++)
        seg->reserved[i] = 0;
    seg->max_index = gdaki_htobe32(max_index);
    seg->obj_num = gdaki_htobe32(obj_num);
}

#endif /* DOCA_GPUNETIO_IMPL_PRM_MLX5_WQE_H */
