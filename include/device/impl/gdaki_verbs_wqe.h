/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * WQE preparation of the data-path core: each function builds one complete
 * 64-byte WQE (one basic block) in registers and stores it to its ring slot;
 * the exceptions, the two-step inline write and the 8-byte masked
 * compare-swap (two basic blocks), say what they store.
 * Remote and local addresses are host-order; memory keys and immediates are
 * big-endian already (DOCA_GPUNETIO_VERBS_MKEY_SWAPPED). Nothing here
 * publishes the WQE: mark_wqes_ready and submit (gdaki_verbs_sq.h) do.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_WQE_H
#define DOCA_GPUNETIO_IMPL_VERBS_WQE_H

#include <stddef.h>
#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "prm/mlx5_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

/*
 * Tells the compiler that p (never NULL) is a global-memory address: GPU
 * memory or host memory mapped for the GPU, as every ring a descriptor names
 * is. Stores through it are then global-space ones, without the generic
 * address check.
 */
#if defined(__CUDA_ARCH__)
#define GDAKI_ASSUME_GLOBAL(p) __builtin_assume(__isGlobal(p))
#else
#define GDAKI_ASSUME_GLOBAL(p) ((void)(p))
#endif

/*
 * A WQE under construction: the control segment and room for three more DS.
 * 16-byte aligned so that it is stored with four 16-byte stores.
 */
union __attribute__((aligned(16))) gdaki_wqe {
    struct doca_gpu_dev_verbs_wqe raw;
    uint64_t words[8];
    struct {
        struct prm_wqe_ctrl_seg ctrl;
        uint8_t seg[3][PRM_WQE_DS_SIZE];
    } s;
};

/* Address of ring slot `wqe_idx` (the index wraps). */
GDAKI_INLINE struct doca_gpu_dev_verbs_wqe *gdaki_wqe_ptr(const struct doca_gpu_dev_verbs_qp *qp,
                                                          uint64_t wqe_idx)
{
    uint8_t *ring = (uint8_t *)gdaki_ro_ptr((void *const *)&qp->sq_wqe_daddr);

    GDAKI_ASSUME_GLOBAL(ring);

    return (struct doca_gpu_dev_verbs_wqe *)(void *)(ring +
                                                     ((wqe_idx & gdaki_ro_u32(&qp->sq_wqe_mask))
                                                      << PRM_WQE_BB_SHIFT));
}

/*
 * The completion flags of a WQE posted with code_opt on a CQ of kind
 * cq_type (DOCA's cqe_ctrl_flags). On a CQ that is not collapsed every WQE
 * asks for a CQE: completions are looked for in the entry of their WQE's
 * index. A collapsed CQ's poll takes any later WQE's counter, so a WQE
 * posted without a doorbell (SKIP_DB_RINGING) may go unsignaled, its
 * completion told by the next signaled one's; otherwise `requested`.
 * UNKNOWN, which cannot be resolved without the CQ, is taken as 64B.
 */
GDAKI_INLINE uint8_t gdaki_wqe_cqe_flags(uint32_t cq_type, uint32_t code_opt, uint8_t requested)
{
    if (cq_type == DOCA_GPUNETIO_VERBS_CQ_64B || cq_type == DOCA_GPUNETIO_VERBS_CQ_UNKNOWN)
        return PRM_WQE_CTRL_CQ_UPDATE;
    if (code_opt & DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING)
        return 0;
    return requested;
}

/* Zeroes w and fills its control segment. */
GDAKI_INLINE void gdaki_wqe_begin(union gdaki_wqe *w, const struct doca_gpu_dev_verbs_qp *qp,
                                  uint64_t wqe_idx, uint8_t opcode, uint8_t opmod, uint8_t ds,
                                  uint8_t ctrl_flags, gdaki_be32_t imm)
{
    for (int i = 0; i < 8; i++)
        w->words[i] = 0;
    w->s.ctrl.opmod_idx_opcode = gdaki_htobe32(
            ((uint32_t)opmod << 24) | ((uint32_t)(wqe_idx & 0xffff) << PRM_WQE_IDX_SHIFT) | opcode);
    /* sq_num_shift8_be leaves the last byte zero: the DS count goes there. */
    w->s.ctrl.qpn_ds = gdaki_ro_u32(&qp->sq_num_shift8_be) | gdaki_htobe32(ds);
    w->s.ctrl.fm_ce_se = ctrl_flags;
    w->s.ctrl.imm = imm;
}

GDAKI_INLINE void gdaki_wqe_raddr(void *seg, uint64_t raddr, gdaki_be32_t rkey)
{
    struct prm_wqe_raddr_seg *r = (struct prm_wqe_raddr_seg *)seg;

    r->raddr = gdaki_htobe64(raddr);
    r->rkey = rkey;
}

/*
 * A data segment. The byte count keeps 31 bits: bit 31 would mark the
 * segment inline, and 2^31 bytes is written as 0, which is what it means.
 */
GDAKI_INLINE void gdaki_wqe_data(void *seg, uint32_t bytes, gdaki_be32_t lkey, uint64_t addr)
{
    struct prm_wqe_data_seg *d = (struct prm_wqe_data_seg *)seg;

    d->byte_count = gdaki_htobe32(bytes & ~PRM_WQE_INLINE_SEG_FLAG);
    d->lkey = lkey;
    d->addr = gdaki_htobe64(addr);
}

GDAKI_INLINE void gdaki_wqe_nop(const struct doca_gpu_dev_verbs_qp *qp,
                                struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                uint8_t ctrl_flags)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, PRM_WQE_OPCODE_NOP, 0, 1, ctrl_flags, 0);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/* The control, remote-address and first data segments of an RDMA write or read of ds DS. */
GDAKI_INLINE void gdaki_wqe_rdma_head(union gdaki_wqe *w, const struct doca_gpu_dev_verbs_qp *qp,
                                      uint64_t wqe_idx, uint8_t opcode, uint8_t ds,
                                      uint8_t ctrl_flags, gdaki_be32_t imm, uint64_t raddr,
                                      gdaki_be32_t rkey, uint64_t laddr, gdaki_be32_t lkey,
                                      uint32_t bytes)
{
    gdaki_wqe_begin(w, qp, wqe_idx, opcode, 0, ds, ctrl_flags, imm);
    gdaki_wqe_raddr(w->s.seg[0], raddr, rkey);
    gdaki_wqe_data(w->s.seg[1], bytes, lkey, laddr);
}

/* RDMA write (opcode RDMA_WRITE or RDMA_WRITE_IMM) or read (RDMA_READ) of one buffer. */
GDAKI_INLINE void gdaki_wqe_rdma(const struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                 uint8_t opcode, uint8_t ctrl_flags, gdaki_be32_t imm,
                                 uint64_t raddr, gdaki_be32_t rkey, uint64_t laddr,
                                 gdaki_be32_t lkey, uint32_t bytes)
{
    union gdaki_wqe w;

    gdaki_wqe_rdma_head(&w, qp, wqe_idx, opcode, PRM_WQE_DS_RDMA, ctrl_flags, imm, raddr, rkey,
                        laddr, lkey, bytes);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/* The same of two buffers, gathered (write) or scattered (read) in order: 4 DS. */
GDAKI_INLINE void gdaki_wqe_rdma2(const struct doca_gpu_dev_verbs_qp *qp,
                                  struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                  uint8_t opcode, uint8_t ctrl_flags, gdaki_be32_t imm,
                                  uint64_t raddr, gdaki_be32_t rkey, uint64_t laddr0,
                                  gdaki_be32_t lkey0, uint32_t bytes0, uint64_t laddr1,
                                  gdaki_be32_t lkey1, uint32_t bytes1)
{
    union gdaki_wqe w;

    gdaki_wqe_rdma_head(&w, qp, wqe_idx, opcode, PRM_WQE_DS_RDMA + 1, ctrl_flags, imm, raddr, rkey,
                        laddr0, lkey0, bytes0);
    gdaki_wqe_data(w.s.seg[2], bytes1, lkey1, laddr1);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/*
 * A send (opcode SEND, or SEND_IMM with a big-endian immediate) of one
 * buffer, which the peer's next receive WQE takes: 2 DS, no remote address.
 */
GDAKI_INLINE void gdaki_wqe_send(const struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                 uint8_t opcode, uint8_t ctrl_flags, gdaki_be32_t imm,
                                 uint64_t laddr, gdaki_be32_t lkey, uint32_t bytes)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, opcode, 0, PRM_WQE_DS_SEND, ctrl_flags, imm);
    gdaki_wqe_data(w.s.seg[0], bytes, lkey, laddr);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/* A send without data (typically SEND_IMM: the immediate is the message): 1 DS. */
GDAKI_INLINE void gdaki_wqe_send_empty(const struct doca_gpu_dev_verbs_qp *qp,
                                       struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                       uint8_t opcode, uint8_t ctrl_flags, gdaki_be32_t imm)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, opcode, 0, 1, ctrl_flags, imm);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/* RDMA write of `bytes` (at most DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE) carried in the WQE. */
GDAKI_INLINE void gdaki_wqe_write_inl(const struct doca_gpu_dev_verbs_qp *qp,
                                      struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                      uint8_t ctrl_flags, uint64_t raddr, gdaki_be32_t rkey,
                                      const void *data, uint32_t bytes)
{
    union gdaki_wqe w;
    uint8_t *inl = w.s.seg[1];
    const uint8_t *src = (const uint8_t *)data;

    gdaki_wqe_begin(&w, qp, wqe_idx, PRM_WQE_OPCODE_RDMA_WRITE, 0,
                    (uint8_t)(2 + prm_wqe_inline_ds(bytes)), ctrl_flags, 0);
    gdaki_wqe_raddr(w.s.seg[0], raddr, rkey);
    prm_wqe_set_inline_seg((struct prm_wqe_inline_seg *)(void *)inl, bytes);
    for (uint32_t i = 0; i < bytes; i++)
        inl[sizeof(struct prm_wqe_inline_seg) + i] = src[i];
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/*
 * The inline write in two steps: the header stores the control segment
 * (its DS count for `bytes` of data) and the remote address, the first 32
 * bytes; gdaki_wqe_inl_data stores the inline segment. Either may come
 * first; the two must agree on the size.
 */
GDAKI_INLINE void gdaki_wqe_inl_header(const struct doca_gpu_dev_verbs_qp *qp,
                                       struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                       uint8_t ctrl_flags, uint64_t raddr, gdaki_be32_t rkey,
                                       uint32_t bytes)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, PRM_WQE_OPCODE_RDMA_WRITE, 0,
                    (uint8_t)(2 + prm_wqe_inline_ds(bytes)), ctrl_flags, 0);
    gdaki_wqe_raddr(w.s.seg[0], raddr, rkey);
    gdaki_store_wqe_seg(wqe_ptr, &w.words[0]);
    gdaki_store_wqe_seg((uint8_t *)wqe_ptr + sizeof(w.s.ctrl), &w.words[2]);
}

/* The inline segment of a two-step inline write: its byte count, then `bytes` of data. */
GDAKI_INLINE void gdaki_wqe_inl_data(struct doca_gpu_dev_verbs_wqe *wqe_ptr, const void *data,
                                     uint32_t bytes)
{
    uint8_t *seg =
            wqe_ptr->inl_data + sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_raddr_seg);
    uint8_t *dst = (uint8_t *)prm_wqe_inline_data((struct prm_wqe_inline_seg *)(void *)seg);
    const uint8_t *src = (const uint8_t *)data;
    uint32_t i = 0;

    prm_wqe_set_inline_seg((struct prm_wqe_inline_seg *)(void *)seg, bytes);
    /* 4 bytes a store: the data starts 4-byte aligned, 36 bytes into the basic block. */
    for (; i + sizeof(uint32_t) <= bytes; i += sizeof(uint32_t)) {
        uint32_t v;

        __builtin_memcpy(&v, src + i, sizeof(v));
        *(uint32_t *)(void *)(dst + i) = v;
    }
    for (; i < bytes; i++)
        dst[i] = src[i];
}

/*
 * Atomic with DOCA's operands: opcode ATOMIC_FA adds compare_add to
 * *raddr; ATOMIC_CS writes swap_add there if it equals compare_add. The old
 * value (`bytes` of it) lands big-endian at laddr.
 */
GDAKI_INLINE void gdaki_wqe_atomic_n(const struct doca_gpu_dev_verbs_qp *qp,
                                     struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                     uint8_t opcode, uint8_t ctrl_flags, uint64_t raddr,
                                     gdaki_be32_t rkey, uint64_t laddr, gdaki_be32_t lkey,
                                     uint32_t bytes, uint64_t compare_add, uint64_t swap_add)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, opcode, 0, PRM_WQE_DS_ATOMIC, ctrl_flags, 0);
    gdaki_wqe_raddr(w.s.seg[0], raddr, rkey);
    /* The NIC takes FA's addend from the swap_add field and ignores its compare field. */
    prm_wqe_set_atomic_seg((struct prm_wqe_atomic_seg *)(void *)w.s.seg[1],
                           opcode == PRM_WQE_OPCODE_ATOMIC_FA ? compare_add : swap_add,
                           compare_add);
    gdaki_wqe_data(w.s.seg[2], bytes, lkey, laddr);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/*
 * 8-byte atomic: opcode ATOMIC_FA (swap_add is the addend) or ATOMIC_CS
 * (swap if *raddr == compare). The old value lands big-endian at laddr.
 */
GDAKI_INLINE void gdaki_wqe_atomic(const struct doca_gpu_dev_verbs_qp *qp,
                                   struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                   uint8_t opcode, uint8_t ctrl_flags, uint64_t raddr,
                                   gdaki_be32_t rkey, uint64_t laddr, gdaki_be32_t lkey,
                                   uint64_t swap_add, uint64_t compare)
{
    gdaki_wqe_atomic_n(qp, wqe_ptr, wqe_idx, opcode, ctrl_flags, raddr, rkey, laddr, lkey, 8,
                       opcode == PRM_WQE_OPCODE_ATOMIC_FA ? swap_add : compare, swap_add);
}

/*
 * Masked (extended) atomic on `bytes` (4 or 8) byte operands, DOCA's
 * operands, each stored big-endian as the NIC reads it. ATOMIC_MASKED_FA
 * adds add_data, a carry stopping at each set bit of field_boundary (0:
 * one plain add); ATOMIC_MASKED_CS writes swap_data under swap_mask where
 * *raddr equals compare_data under compare_mask. The old value lands
 * big-endian at laddr.
 *
 * The 8-byte compare-swap has four 8-byte operands, 5 DS: the WQE spans two
 * basic blocks, wqe_ptr0 and wqe_ptr1 (the ring's next slot), which takes
 * the data segment. Every other form is one basic block; wqe_ptr1 is unused.
 */
GDAKI_INLINE void gdaki_wqe_atomic_ext(const struct doca_gpu_dev_verbs_qp *qp,
                                       struct doca_gpu_dev_verbs_wqe *wqe_ptr0,
                                       struct doca_gpu_dev_verbs_wqe *wqe_ptr1, uint64_t wqe_idx,
                                       uint8_t opcode, uint8_t ctrl_flags, uint64_t raddr,
                                       gdaki_be32_t rkey, uint64_t laddr, gdaki_be32_t lkey,
                                       uint32_t bytes, uint64_t add_data, uint64_t field_boundary,
                                       uint64_t swap_data, uint64_t compare_data,
                                       uint64_t swap_mask, uint64_t compare_mask)
{
    const int cs = opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS;
    const int wide = bytes == 8;
    union gdaki_wqe w;
    void *seg = w.s.seg[1];

    gdaki_wqe_begin(&w, qp, wqe_idx, opcode,
                    wide ? PRM_WQE_OPMOD_EXT_ATOMIC_8B : PRM_WQE_OPMOD_EXT_ATOMIC_4B,
                    cs && wide ? PRM_WQE_DS_MASKED_CS64 : PRM_WQE_DS_ATOMIC, ctrl_flags, 0);
    gdaki_wqe_raddr(w.s.seg[0], raddr, rkey);
    if (cs && wide)
        prm_wqe_set_masked_cs64_seg((struct prm_wqe_masked_cs64_seg *)seg, swap_data, compare_data,
                                    swap_mask, compare_mask);
    else if (cs)
        prm_wqe_set_masked_cs32_seg((struct prm_wqe_masked_cs32_seg *)seg, (uint32_t)swap_data,
                                    (uint32_t)compare_data, (uint32_t)swap_mask,
                                    (uint32_t)compare_mask);
    else if (wide)
        prm_wqe_set_masked_fa64_seg((struct prm_wqe_masked_fa64_seg *)seg, add_data,
                                    field_boundary);
    else
        prm_wqe_set_masked_fa32_seg((struct prm_wqe_masked_fa32_seg *)seg, (uint32_t)add_data,
                                    (uint32_t)field_boundary);
    if (cs && wide) {
        struct prm_wqe_data_seg d;

        gdaki_wqe_data(&d, bytes, lkey, laddr);
        gdaki_store_wqe(wqe_ptr0, &w.raw);
        gdaki_store_wqe_seg(wqe_ptr1, &d);
        return;
    }
    gdaki_wqe_data(w.s.seg[2], bytes, lkey, laddr);
    gdaki_store_wqe(wqe_ptr0, &w.raw);
}

/*
 * Extended atomic on 4-byte operands (opcode ATOMIC_MASKED_FA or
 * ATOMIC_MASKED_CS). FA: a = addend, b = field boundary (0: one 32-bit add).
 * CS: a = swap, b = compare, applied under swap_mask / compare_mask
 * (all ones: a plain 4-byte compare-and-swap). The old value lands
 * big-endian at laddr (4 bytes).
 */
GDAKI_INLINE void gdaki_wqe_atomic32(const struct doca_gpu_dev_verbs_qp *qp,
                                     struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                     uint8_t opcode, uint8_t ctrl_flags, uint64_t raddr,
                                     gdaki_be32_t rkey, uint64_t laddr, gdaki_be32_t lkey,
                                     uint32_t a, uint32_t b, uint32_t swap_mask,
                                     uint32_t compare_mask)
{
    gdaki_wqe_atomic_ext(qp, wqe_ptr, NULL, wqe_idx, opcode, ctrl_flags, raddr, rkey, laddr, lkey,
                         4, a, b, a, b, swap_mask, compare_mask);
}

/* Stalls the SQ until CQ cqn has produced max_index CQEs (core-direct WAIT). */
GDAKI_INLINE void gdaki_wqe_wait(const struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                 uint8_t ctrl_flags, uint32_t cqn, uint32_t max_index)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, PRM_WQE_OPCODE_WAIT, 0, PRM_WQE_DS_WAIT, ctrl_flags, 0);
    prm_wqe_set_wait_seg((struct prm_wqe_wait_seg *)(void *)w.s.seg[0], cqn,
                         max_index & DOCA_GPUNETIO_VERBS_CQE_CI_MASK);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/*
 * Dump: the NIC gathers [addr, addr + bytes) and sends nothing. Posted
 * after RDMA reads, its completion means the read data is in memory.
 */
GDAKI_INLINE void gdaki_wqe_dump(const struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_wqe *wqe_ptr, uint64_t wqe_idx,
                                 uint8_t ctrl_flags, uint64_t addr, gdaki_be32_t lkey,
                                 uint32_t bytes)
{
    union gdaki_wqe w;

    gdaki_wqe_begin(&w, qp, wqe_idx, PRM_WQE_OPCODE_DUMP, 0, PRM_WQE_DS_SEND, ctrl_flags, 0);
    gdaki_wqe_data(w.s.seg[0], bytes, lkey, addr);
    gdaki_store_wqe(wqe_ptr, &w.raw);
}

/* Address of receive slot `wqe_idx` (the index wraps). */
GDAKI_INLINE struct doca_gpunetio_ib_mlx5_wqe_data_seg *
gdaki_rwqe_ptr(const struct doca_gpu_dev_verbs_qp *qp, uint64_t wqe_idx)
{
    uint8_t *ring = (uint8_t *)gdaki_ro_ptr((void *const *)&qp->rq_wqe_daddr);

    GDAKI_ASSUME_GLOBAL(ring);
    return (struct doca_gpunetio_ib_mlx5_wqe_data_seg
                    *)(void *)(ring + (wqe_idx & gdaki_ro_u32(&qp->rq_wqe_mask)) *
                                              gdaki_ro_u32(&qp->rcv_wqe_size));
}

/*
 * A receive WQE of one buffer: its data segment, then, when the WQE has
 * room for more, one with the list-ending key, so the NIC scatters into
 * the first only. The lkey is big-endian already.
 */
GDAKI_INLINE void gdaki_rwqe_prepare(const struct doca_gpu_dev_verbs_qp *qp,
                                     struct doca_gpunetio_ib_mlx5_wqe_data_seg *rwqe, uint64_t addr,
                                     gdaki_be32_t lkey, uint32_t bytes)
{
    uint8_t *seg = (uint8_t *)(void *)rwqe;

    gdaki_wqe_data(seg, bytes, lkey, addr);
    if (gdaki_ro_u32(&qp->rcv_wqe_size) > PRM_WQE_DS_SIZE)
        gdaki_wqe_data(seg + PRM_WQE_DS_SIZE, 0, gdaki_htobe32(PRM_WQE_LKEY_END), 0);
}

#undef GDAKI_ASSUME_GLOBAL

#endif /* DOCA_GPUNETIO_IMPL_VERBS_WQE_H */
