/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * High-level one-sided operations of the data-path core: put, p (inline
 * put of one value), put_signal, p_signal, signal, get, get_wait, wait,
 * fence and the counter variants. Each posts its WQEs with reserve ->
 * prepare -> mark ready -> submit (gdaki_verbs_sq.h) and returns its
 * ticket: the SQ index of the last WQE it posted, which gdaki_wait() polls
 * for.
 *
 * Thread scope runs on a CUDA thread or a CPU thread alike; warp scope (the
 * 32 lanes of a converged warp call together, each with its own arguments)
 * is CUDA only. rsm, nic and code_opt are constants in every caller, so each
 * instantiation keeps only its own path; nic is a handler word
 * (gdaki_verbs_sq.h), which the DOCA facade resolves once per call
 * (gdaki_nic_resolve) so that the common QP gets straight code.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_ONESIDED_H
#define DOCA_GPUNETIO_IMPL_VERBS_ONESIDED_H

#include <stddef.h>
#include <stdint.h>

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_verbs_cq.h"
#include "gdaki_verbs_sq.h"
#include "gdaki_verbs_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

#if defined(__CUDACC__)
/* This thread's lane in its warp. */
__device__ static __forceinline__ uint32_t gdaki_lane_id(void)
{
    uint32_t lane;

    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

#endif

/* Every WQE asks for a CQE: completion i is WQE i (gdaki_verbs_cq.h). */
#define GDAKI_WQE_FLAGS DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE

/* WQEs a transfer of `size` bytes takes (at least one: an empty transfer is a NOP). */
GDAKI_INLINE uint32_t gdaki_transfer_wqes(size_t size)
{
    uint64_t n = ((uint64_t)size + DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE - 1) >>
                 DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT;

    return n == 0 ? 1 : (uint32_t)n;
}

/* Writes the n WQEs of a transfer (opcode RDMA_WRITE or RDMA_READ) from slot base. */
GDAKI_INLINE void gdaki_prepare_transfer(struct doca_gpu_dev_verbs_qp *qp, uint64_t base,
                                         uint32_t n, uint8_t opcode,
                                         struct doca_gpu_dev_verbs_addr raddr,
                                         struct doca_gpu_dev_verbs_addr laddr, size_t size)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = (uint64_t)i << DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT;
        uint64_t left = size - off;
        uint32_t len = (uint32_t)(left > DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE
                                          ? DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE
                                          : left);

        if (size == 0)
            gdaki_wqe_nop(qp, gdaki_wqe_ptr(qp, base + i), base + i, GDAKI_WQE_FLAGS);
        else
            gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, base + i), base + i, opcode, GDAKI_WQE_FLAGS, 0,
                           raddr.addr + off, raddr.key, laddr.addr + off, laddr.key, len);
    }
}

/* The 8-byte fetch-add of a signal: sig_val added at sig_raddr, the old value to sig_laddr. */
GDAKI_INLINE void gdaki_prepare_signal(struct doca_gpu_dev_verbs_qp *qp, uint64_t idx,
                                       struct doca_gpu_dev_verbs_addr sig_raddr,
                                       struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val)
{
    gdaki_wqe_atomic(qp, gdaki_wqe_ptr(qp, idx), idx, PRM_WQE_OPCODE_ATOMIC_FA, GDAKI_WQE_FLAGS,
                     sig_raddr.addr, sig_raddr.key, sig_laddr.addr, sig_laddr.key, sig_val, 0);
}

/* Marks [first, last] ready and submits them; returns last (the ticket). */
GDAKI_INLINE uint64_t gdaki_commit(struct doca_gpu_dev_verbs_qp *qp, uint64_t first, uint64_t last,
                                   enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                   uint32_t code_opt)
{
    gdaki_sq_mark_ready(qp, first, last, rsm);
    gdaki_sq_submit(qp, last + 1, rsm, nic, code_opt);
    return last;
}

/*
 * One thread's posting of n WQEs: gdaki_post_begin reserves them, the caller
 * writes them, gdaki_post_end commits them. On a shared QP, the lanes of a
 * warp that reach the same call together on the same QP, with the same n and
 * options, post as a group: the lowest lane reserves for all of them (one
 * atomic), waits for the group's turn in the ready order once, and submits
 * once, so one doorbell covers the group. Each thread still gets its own
 * slots and returns only after its WQEs are submitted. A group that would
 * need more slots than the ring has posts thread by thread.
 */
struct gdaki_post {
    uint64_t base;     /* this thread's first slot */
    uint64_t grp_base; /* the group's first slot */
    uint32_t grp_n;    /* slots reserved for the whole group */
    uint32_t peers;    /* lanes of the group; 0 when the thread posts alone */
    uint32_t leader;   /* the lane that reserves and commits */
};

GDAKI_INLINE uint64_t gdaki_post_begin(struct gdaki_post *g, struct doca_gpu_dev_verbs_qp *qp,
                                       uint32_t n,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                       uint32_t code_opt)
{
#if defined(__CUDA_ARCH__)
    if (rsm != DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE) {
        /* The converged lanes, as cooperative groups' coalesced_threads() finds them. */
        const uint32_t peers = __match_any_sync(__activemask(), (unsigned long long)(uintptr_t)qp);
        const uint32_t grp_n = n * (uint32_t)__popc(peers);
        int same = 0;

        __match_all_sync(peers, ((unsigned long long)code_opt << 32) | n, &same);
        /*
         * A group's slots must fit the ring: waiting for a slot to free up
         * would otherwise wait for one of the group's own WQEs.
         */
        if (same && grp_n <= gdaki_ro_u32(&qp->sq_wqe_num)) {
            const uint32_t lane = gdaki_lane_id();
            const uint32_t leader = (uint32_t)__ffs(peers) - 1;
            uint64_t grp = 0;

            g->grp_n = grp_n;
            if (lane == leader)
                grp = gdaki_sq_reserve(qp, g->grp_n, rsm, code_opt);
            g->grp_base = __shfl_sync(peers, grp, leader);
            g->peers = peers;
            g->leader = leader;
            g->base = g->grp_base + (uint64_t)n * (uint32_t)__popc(peers & ((1u << lane) - 1));
            return g->base;
        }
    }
#endif
    g->base = gdaki_sq_reserve(qp, n, rsm, code_opt);
    g->grp_base = g->base;
    g->grp_n = n;
    g->peers = 0;
    g->leader = 0;
    return g->base;
}

/* Commits the n WQEs gdaki_post_begin reserved (and the group's); returns this thread's ticket. */
GDAKI_INLINE uint64_t gdaki_post_end(const struct gdaki_post *g, struct doca_gpu_dev_verbs_qp *qp,
                                     uint32_t n, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                     uint32_t nic, uint32_t code_opt)
{
#if defined(__CUDA_ARCH__)
    if (g->peers != 0) {
        /* Every lane's WQE stores before the leader's release of the ready index. */
        __syncwarp(g->peers);
        if (gdaki_lane_id() == g->leader)
            gdaki_commit(qp, g->grp_base, g->grp_base + g->grp_n - 1, rsm, nic, code_opt);
        /* No lane returns before its WQEs are submitted. */
        __syncwarp(g->peers);
        return g->base + n - 1;
    }
#endif
    return gdaki_commit(qp, g->base, g->base + n - 1, rsm, nic, code_opt);
}

/* RDMA write of size bytes from laddr to raddr (split into 1 GiB WQEs). */
GDAKI_INLINE uint64_t gdaki_put(struct doca_gpu_dev_verbs_qp *qp,
                                struct doca_gpu_dev_verbs_addr raddr,
                                struct doca_gpu_dev_verbs_addr laddr, size_t size,
                                enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    struct gdaki_post g;
    uint64_t base = gdaki_post_begin(&g, qp, n, rsm, code_opt);

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size);
    return gdaki_post_end(&g, qp, n, rsm, nic, code_opt);
}

/* Inline RDMA write of `bytes` (1..8) of value: no local key, no local buffer read by the NIC. */
GDAKI_INLINE uint64_t gdaki_p(struct doca_gpu_dev_verbs_qp *qp,
                              struct doca_gpu_dev_verbs_addr raddr, const void *value,
                              uint32_t bytes, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                              uint32_t nic, uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t idx = gdaki_post_begin(&g, qp, 1, rsm, code_opt);

    gdaki_wqe_write_inl(qp, gdaki_wqe_ptr(qp, idx), idx, GDAKI_WQE_FLAGS, raddr.addr, raddr.key,
                        value, bytes);
    return gdaki_post_end(&g, qp, 1, rsm, nic, code_opt);
}

/*
 * put, then the signal: the fetch-add runs after the data has landed (an
 * RC responder executes a QP's requests in order).
 */
GDAKI_INLINE uint64_t gdaki_put_signal(struct doca_gpu_dev_verbs_qp *qp,
                                       struct doca_gpu_dev_verbs_addr raddr,
                                       struct doca_gpu_dev_verbs_addr laddr, size_t size,
                                       struct doca_gpu_dev_verbs_addr sig_raddr,
                                       struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                                       enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                       uint32_t nic, uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    struct gdaki_post g;
    uint64_t base = gdaki_post_begin(&g, qp, n + 1, rsm, code_opt);

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size);
    gdaki_prepare_signal(qp, base + n, sig_raddr, sig_laddr, sig_val);
    return gdaki_post_end(&g, qp, n + 1, rsm, nic, code_opt);
}

/* p, then the signal. */
GDAKI_INLINE uint64_t gdaki_p_signal(struct doca_gpu_dev_verbs_qp *qp,
                                     struct doca_gpu_dev_verbs_addr raddr, const void *value,
                                     uint32_t bytes, struct doca_gpu_dev_verbs_addr sig_raddr,
                                     struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                                     enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                     uint32_t nic, uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t base = gdaki_post_begin(&g, qp, 2, rsm, code_opt);

    gdaki_wqe_write_inl(qp, gdaki_wqe_ptr(qp, base), base, GDAKI_WQE_FLAGS, raddr.addr, raddr.key,
                        value, bytes);
    gdaki_prepare_signal(qp, base + 1, sig_raddr, sig_laddr, sig_val);
    return gdaki_post_end(&g, qp, 2, rsm, nic, code_opt);
}

/* The signal alone. */
GDAKI_INLINE uint64_t gdaki_signal(struct doca_gpu_dev_verbs_qp *qp,
                                   struct doca_gpu_dev_verbs_addr sig_raddr,
                                   struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                                   enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                   uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t idx = gdaki_post_begin(&g, qp, 1, rsm, code_opt);

    gdaki_prepare_signal(qp, idx, sig_raddr, sig_laddr, sig_val);
    return gdaki_post_end(&g, qp, 1, rsm, nic, code_opt);
}

/*
 * The immediate of a signal (doca_gpunetio_verbs_def.h's packing, host
 * order): add `value` to signal `sig_id` of the receiver's signal map.
 */
GDAKI_INLINE uint32_t gdaki_signal_imm(uint32_t sig_id, uint32_t value)
{
    return ((value & DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_MASK)
            << DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT) |
           ((sig_id & DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_MASK)
            << DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_SHIFT) |
           ((uint32_t)DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD << DOCA_GPUNETIO_VERBS_SIGNAL_IMM_OP_SHIFT);
}

/*
 * put whose last WQE is an RDMA write with immediate carrying imm (host
 * order): the receiver's QP consumes one receive WQE and gets a CQE with imm.
 */
GDAKI_INLINE uint64_t gdaki_put_imm(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_addr raddr,
                                    struct doca_gpu_dev_verbs_addr laddr, size_t size, uint32_t imm,
                                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                    uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    uint64_t off = (uint64_t)(n - 1) << DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE_SHIFT;
    struct gdaki_post g;
    uint64_t base = gdaki_post_begin(&g, qp, n, rsm, code_opt);

    if (n > 1)
        gdaki_prepare_transfer(qp, base, n - 1, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, off);
    gdaki_wqe_rdma(qp, gdaki_wqe_ptr(qp, base + n - 1), base + n - 1, PRM_WQE_OPCODE_RDMA_WRITE_IMM,
                   GDAKI_WQE_FLAGS, gdaki_htobe32(imm), raddr.addr + off, raddr.key,
                   laddr.addr + off, laddr.key, (uint32_t)(size - off));
    return gdaki_post_end(&g, qp, n, rsm, nic, code_opt);
}

/* Waits for the WQE named by ticket: 0, or -EIO on an error completion (qp's CQ records it). */
GDAKI_INLINE int gdaki_wait(struct doca_gpu_dev_verbs_qp *qp, uint64_t ticket)
{
    return gdaki_cq_poll_at(&qp->cq_sq, ticket);
}

/* A dump WQE on daddr (one byte of registered local memory); returns its ticket. */
GDAKI_INLINE uint64_t gdaki_dump(struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_addr daddr,
                                 enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                                 uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t idx = gdaki_post_begin(&g, qp, 1, rsm, code_opt);

    gdaki_wqe_dump(qp, gdaki_wqe_ptr(qp, idx), idx, GDAKI_WQE_FLAGS, daddr.addr, daddr.key, 1);
    return gdaki_post_end(&g, qp, 1, rsm, nic, code_opt);
}

/*
 * RDMA read of size bytes at raddr into laddr. mcst: a dump on daddr
 * follows the reads. blocking: waits for the completion before returning
 * (*status gets its result; 0 when not blocking).
 */
GDAKI_INLINE uint64_t gdaki_get(struct doca_gpu_dev_verbs_qp *qp,
                                struct doca_gpu_dev_verbs_addr raddr,
                                struct doca_gpu_dev_verbs_addr laddr, size_t size,
                                struct doca_gpu_dev_verbs_addr daddr, int mcst, int blocking,
                                int *status, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                uint32_t nic, uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    uint32_t total = n + (mcst ? 1 : 0);
    struct gdaki_post g;
    uint64_t base = gdaki_post_begin(&g, qp, total, rsm, code_opt);
    uint64_t ticket;

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_READ, raddr, laddr, size);
    if (mcst)
        gdaki_wqe_dump(qp, gdaki_wqe_ptr(qp, base + n), base + n, GDAKI_WQE_FLAGS, daddr.addr,
                       daddr.key, 1);
    ticket = gdaki_post_end(&g, qp, total, rsm, nic, code_opt);
    *status = blocking ? gdaki_wait(qp, ticket) : 0;
    return ticket;
}

/*
 * Waits for a get: with mcst, first posts a dump on daddr and waits for it
 * instead (it completes after every WQE before it, ticket included). The
 * dump is reserved and rung without options, as DOCA's mcst() does.
 */
GDAKI_INLINE int gdaki_get_wait(struct doca_gpu_dev_verbs_qp *qp,
                                struct doca_gpu_dev_verbs_addr daddr, uint64_t ticket, int mcst,
                                enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic)
{
    if (mcst)
        ticket = gdaki_dump(qp, daddr, rsm, nic, 0);
    return gdaki_wait(qp, ticket);
}

/* Whether anything was ever reserved on qp; *last gets the last slot reserved so far. */
GDAKI_INLINE int gdaki_last_reserved(struct doca_gpu_dev_verbs_qp *qp, uint64_t *last)
{
    uint64_t reserved = gdaki_load_volatile_u64(&qp->sq_rsvd_index);

    *last = reserved - 1;
    return reserved != 0;
}

/* Waits for everything reserved on qp so far: 0 at once when nothing ever was. */
GDAKI_INLINE int gdaki_wait_all(struct doca_gpu_dev_verbs_qp *qp)
{
    uint64_t last;

    return gdaki_last_reserved(qp, &last) ? gdaki_wait(qp, last) : 0;
}

/* gdaki_get_wait for everything reserved so far: 0 at once, posting nothing, when none was. */
GDAKI_INLINE int gdaki_get_wait_all(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_addr daddr, int mcst,
                                    enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic)
{
    uint64_t last;

    return gdaki_last_reserved(qp, &last) ? gdaki_get_wait(qp, daddr, last, mcst, rsm, nic) : 0;
}

/*
 * Fence: a NOP with the fence bit. The NIC starts it only once every read
 * and atomic posted before it on qp has completed (its data is in memory),
 * and runs a send queue in order, so every WQE posted after it waits as
 * well: a later write then gathers what an earlier read brought. Returns
 * its ticket.
 */
GDAKI_INLINE uint64_t gdaki_qp_fence(struct doca_gpu_dev_verbs_qp *qp,
                                     enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                     uint32_t nic, uint32_t code_opt)
{
    struct gdaki_post g;
    uint64_t idx = gdaki_post_begin(&g, qp, 1, rsm, code_opt);

    gdaki_wqe_nop(qp, gdaki_wqe_ptr(qp, idx), idx,
                  GDAKI_WQE_FLAGS | DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE);
    return gdaki_post_end(&g, qp, 1, rsm, nic, code_opt);
}

/* Submits every WQE below prods[i] of qps[i], in the order given, as gdaki_sq_submit does. */
GDAKI_INLINE void gdaki_submit_qps(struct doca_gpu_dev_verbs_qp *const *qps, const uint64_t *prods,
                                   uint32_t n, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                   uint32_t nic, uint32_t code_opt)
{
    for (uint32_t i = 0; i < n; i++)
        gdaki_sq_submit(qps[i], prods[i], rsm, nic, code_opt);
}

/* The counter of the counter variants: counter_val is added at raddr, the old value to laddr. */
struct gdaki_counter {
    struct doca_gpu_dev_verbs_qp *companion_qp;
    struct doca_gpu_dev_verbs_addr raddr;
    struct doca_gpu_dev_verbs_addr laddr;
    uint64_t val;
};

/*
 * Counter variants: the main operation's WQEs [base, last], written on qp,
 * are marked ready; the companion QP then gets a WAIT until qp's CQ has
 * produced last + 1 CQEs (CQE i completes WQE i, and the NIC's WAIT counts
 * CQEs produced), then the counter's fetch-add. Both queues are rung once
 * both are written, the main one first, so the counter moves only after the
 * operation completed, with no thread waiting for it. Returns last.
 */
GDAKI_INLINE uint64_t gdaki_counter_commit(struct doca_gpu_dev_verbs_qp *qp, uint64_t base,
                                           uint64_t last, const struct gdaki_counter *c,
                                           enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                           uint32_t nic, uint32_t code_opt)
{
    struct doca_gpu_dev_verbs_qp *const qps[2] = {qp, c->companion_qp};
    uint64_t prods[2];
    uint64_t idx;

    gdaki_sq_mark_ready(qp, base, last, rsm);
    idx = gdaki_sq_reserve(c->companion_qp, 2, rsm, code_opt);
    gdaki_wqe_wait(c->companion_qp, gdaki_wqe_ptr(c->companion_qp, idx), idx, GDAKI_WQE_FLAGS,
                   gdaki_ro_u32(&qp->cq_sq.cq_num), (uint32_t)(last + 1));
    gdaki_prepare_signal(c->companion_qp, idx + 1, c->raddr, c->laddr, c->val);
    gdaki_sq_mark_ready(c->companion_qp, idx, idx + 1, rsm);
    prods[0] = last + 1;
    prods[1] = idx + 2;
    gdaki_submit_qps(qps, prods, 2, rsm, nic, code_opt);
    return last;
}

/* put (a write of 1 GiB WQEs), then the counter. */
GDAKI_INLINE uint64_t gdaki_put_counter(struct doca_gpu_dev_verbs_qp *qp,
                                        struct doca_gpu_dev_verbs_addr raddr,
                                        struct doca_gpu_dev_verbs_addr laddr, size_t size,
                                        const struct gdaki_counter *c,
                                        enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                        uint32_t nic, uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    uint64_t base = gdaki_sq_reserve(qp, n, rsm, code_opt);

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size);
    return gdaki_counter_commit(qp, base, base + n - 1, c, rsm, nic, code_opt);
}

/* p (an inline write of `bytes` of value), then the counter. */
GDAKI_INLINE uint64_t gdaki_p_counter(struct doca_gpu_dev_verbs_qp *qp,
                                      struct doca_gpu_dev_verbs_addr raddr, const void *value,
                                      uint32_t bytes, const struct gdaki_counter *c,
                                      enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                      uint32_t nic, uint32_t code_opt)
{
    uint64_t idx = gdaki_sq_reserve(qp, 1, rsm, code_opt);

    gdaki_wqe_write_inl(qp, gdaki_wqe_ptr(qp, idx), idx, GDAKI_WQE_FLAGS, raddr.addr, raddr.key,
                        value, bytes);
    return gdaki_counter_commit(qp, idx, idx, c, rsm, nic, code_opt);
}

/* put_signal, then the counter: it waits for the signal's completion. */
GDAKI_INLINE uint64_t gdaki_put_signal_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, const struct gdaki_counter *c,
        enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic, uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    uint64_t base = gdaki_sq_reserve(qp, n + 1, rsm, code_opt);

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size);
    gdaki_prepare_signal(qp, base + n, sig_raddr, sig_laddr, sig_val);
    return gdaki_counter_commit(qp, base, base + n, c, rsm, nic, code_opt);
}

/* signal, then the counter. */
GDAKI_INLINE uint64_t gdaki_signal_counter(struct doca_gpu_dev_verbs_qp *qp,
                                           struct doca_gpu_dev_verbs_addr sig_raddr,
                                           struct doca_gpu_dev_verbs_addr sig_laddr,
                                           uint64_t sig_val, const struct gdaki_counter *c,
                                           enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                           uint32_t nic, uint32_t code_opt)
{
    uint64_t idx = gdaki_sq_reserve(qp, 1, rsm, code_opt);

    gdaki_prepare_signal(qp, idx, sig_raddr, sig_laddr, sig_val);
    return gdaki_counter_commit(qp, idx, idx, c, rsm, nic, code_opt);
}

/* get (reads of 1 GiB WQEs, no dump), then the counter: it moves once the data is in memory. */
GDAKI_INLINE uint64_t gdaki_get_counter(struct doca_gpu_dev_verbs_qp *qp,
                                        struct doca_gpu_dev_verbs_addr raddr,
                                        struct doca_gpu_dev_verbs_addr laddr, size_t size,
                                        const struct gdaki_counter *c,
                                        enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                                        uint32_t nic, uint32_t code_opt)
{
    uint32_t n = gdaki_transfer_wqes(size);
    uint64_t base = gdaki_sq_reserve(qp, n, rsm, code_opt);

    gdaki_prepare_transfer(qp, base, n, PRM_WQE_OPCODE_RDMA_READ, raddr, laddr, size);
    return gdaki_counter_commit(qp, base, base + n - 1, c, rsm, nic, code_opt);
}

#if defined(__CUDACC__)
/* ---- Warp scope (CUDA): each lane brings its own arguments; lane 0 reserves and submits ---- */

/* Lane 0 reserves n slots per lane for the warp; every lane gets the first. */
__device__ static __forceinline__ uint64_t
gdaki_warp_reserve(struct doca_gpu_dev_verbs_qp *qp, uint32_t per_lane,
                   enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t code_opt)
{
    uint64_t base = 0;

    if (gdaki_lane_id() == 0)
        base = gdaki_sq_reserve(qp, per_lane * DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, code_opt);
    return __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, base, 0);
}

/* After every lane wrote its WQEs: lane 0 marks them ready and submits. */
__device__ static __forceinline__ void
gdaki_warp_commit(struct doca_gpu_dev_verbs_qp *qp, uint64_t base, uint32_t count,
                  enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic,
                  uint32_t code_opt)
{
    /* Orders every lane's WQE stores before lane 0's release of the ready index. */
    __syncwarp();
    if (gdaki_lane_id() == 0)
        gdaki_commit(qp, base, base + count - 1, rsm, nic, code_opt);
    __syncwarp();
}

/* One RDMA write or read per lane (size at most DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE). */
__device__ static __forceinline__ uint64_t gdaki_transfer_warp(
        struct doca_gpu_dev_verbs_qp *qp, uint8_t opcode, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size,
        enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic, uint32_t code_opt)
{
    uint64_t base = gdaki_warp_reserve(qp, 1, rsm, code_opt);
    uint64_t idx = base + gdaki_lane_id();

    gdaki_prepare_transfer(qp, idx, 1, opcode, raddr, laddr, size);
    gdaki_warp_commit(qp, base, DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, nic, code_opt);
    return idx;
}

/* One inline write per lane. */
__device__ static __forceinline__ uint64_t
gdaki_p_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
             const void *value, uint32_t bytes, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
             uint32_t nic, uint32_t code_opt)
{
    uint64_t base = gdaki_warp_reserve(qp, 1, rsm, code_opt);
    uint64_t idx = base + gdaki_lane_id();

    gdaki_wqe_write_inl(qp, gdaki_wqe_ptr(qp, idx), idx, GDAKI_WQE_FLAGS, raddr.addr, raddr.key,
                        value, bytes);
    gdaki_warp_commit(qp, base, DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, nic, code_opt);
    return idx;
}

/* One signal per lane. */
__device__ static __forceinline__ uint64_t gdaki_signal_warp(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
        enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic, uint32_t code_opt)
{
    uint64_t base = gdaki_warp_reserve(qp, 1, rsm, code_opt);
    uint64_t idx = base + gdaki_lane_id();

    gdaki_prepare_signal(qp, idx, sig_raddr, sig_laddr, sig_val);
    gdaki_warp_commit(qp, base, DOCA_GPUNETIO_VERBS_WARP_SIZE, rsm, nic, code_opt);
    return idx;
}

/*
 * One put per lane, then one signal: lane 0's sig_raddr / sig_laddr /
 * sig_val, after every lane's data. Every lane gets the signal's ticket.
 */
__device__ static __forceinline__ uint64_t gdaki_put_signal_warp(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
        enum doca_gpu_dev_verbs_resource_sharing_mode rsm, uint32_t nic, uint32_t code_opt)
{
    uint32_t lane = gdaki_lane_id();
    uint64_t base = 0;
    uint64_t last;

    if (lane == 0)
        base = gdaki_sq_reserve(qp, DOCA_GPUNETIO_VERBS_WARP_SIZE + 1, rsm, code_opt);
    base = __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, base, 0);
    last = base + DOCA_GPUNETIO_VERBS_WARP_SIZE;
    gdaki_prepare_transfer(qp, base + lane, 1, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size);
    if (lane == 0)
        gdaki_prepare_signal(qp, last, sig_raddr, sig_laddr, sig_val);
    gdaki_warp_commit(qp, base, DOCA_GPUNETIO_VERBS_WARP_SIZE + 1, rsm, nic, code_opt);
    return last;
}
#endif /* __CUDACC__ */

#undef GDAKI_WQE_FLAGS

#endif /* DOCA_GPUNETIO_IMPL_VERBS_ONESIDED_H */
