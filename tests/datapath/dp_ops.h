/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester's workloads of the data-path tests, written once over the
 * C data-path core: CPU threads call them (test_dp_cpu.c), and so do CUDA
 * kernels (tests/gpu/test_dp_gpu.cu). Each returns 0, or the 1-based number
 * of the step whose completion failed (or, for dp_error, the wait status).
 */
#ifndef DP_OPS_H
#define DP_OPS_H

#include "dp_plan.h"
#include "gdaki_verbs.h"

#define DP_CQ_UPDATE DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE

GDAKI_INLINE struct doca_gpu_dev_verbs_addr dp_addr(uint64_t base, gdaki_be32_t key, uint64_t off)
{
    struct doca_gpu_dev_verbs_addr a;

    a.addr = base + off;
    a.key = key;
    return a;
}

#define DP_R(p, off) dp_addr((p)->remote, (p)->rkey, (off))
#define DP_L(p, off) dp_addr((p)->local, (p)->lkey, (off))

/* One low-level atomic WQE (4-byte masked or 8-byte) posted and waited for. */
GDAKI_INLINE int dp_atomic(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p, int bytes8,
                           uint8_t opcode, uint64_t roff, uint64_t loff, uint64_t a, uint64_t b,
                           uint32_t swap_mask, enum doca_gpu_dev_verbs_resource_sharing_mode rsm,
                           enum doca_gpu_dev_verbs_nic_handler nic)
{
    uint64_t idx = gdaki_sq_reserve(qp, 1, rsm, 0);
    struct doca_gpu_dev_verbs_wqe *w = gdaki_wqe_ptr(qp, idx);

    if (bytes8)
        gdaki_wqe_atomic(qp, w, idx, opcode, DP_CQ_UPDATE, p->remote + roff, p->rkey,
                         p->local + loff, p->lkey, a, b);
    else
        gdaki_wqe_atomic32(qp, w, idx, opcode, DP_CQ_UPDATE, p->remote + roff, p->rkey,
                           p->local + loff, p->lkey, (uint32_t)a, (uint32_t)b, swap_mask,
                           0xffffffffu);
    return gdaki_wait(qp, gdaki_commit(qp, idx, idx, rsm, nic, 0));
}

/* Every high-level operation once, then the low-level ones the high level does not cover. */
GDAKI_INLINE int dp_ops(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p,
                        enum doca_gpu_dev_verbs_nic_handler nic)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode rsm =
            (enum doca_gpu_dev_verbs_resource_sharing_mode)p->rsm;
    const uint32_t sizes[DP_NPUTS] = DP_PUT_SIZES;
    const uint64_t adds[4] = DP_SIG_ADDS;
    struct doca_gpu_dev_verbs_addr dump = DP_L(p, DP_DUMP_OFF);
    uint8_t v8 = DP_P_U8;
    uint16_t v16 = DP_P_U16;
    uint32_t v32 = DP_P_U32, psig = DP_PSIG_U32;
    uint64_t v64 = DP_P_U64;
    uint64_t t;
    int st, step = 0;

#define DP_STEP(expr)    \
    do {                 \
        step++;          \
        if ((expr) != 0) \
            return step; \
    } while (0)

    for (int i = 0; i < DP_NPUTS; i++)
        DP_STEP(gdaki_wait(qp, gdaki_put(qp, DP_R(p, DP_PUT_OFF(i)), DP_L(p, DP_PUT_OFF(i)),
                                         sizes[i], rsm, nic, 0)));
    gdaki_p(qp, DP_R(p, DP_P_OFF), &v8, 1, rsm, nic, 0);
    gdaki_p(qp, DP_R(p, DP_P_OFF + 8), &v16, 2, rsm, nic, 0);
    gdaki_p(qp, DP_R(p, DP_P_OFF + 16), &v32, 4, rsm, nic, 0);
    DP_STEP(gdaki_wait(qp, gdaki_p(qp, DP_R(p, DP_P_OFF + 24), &v64, 8, rsm, nic, 0)));
    for (int i = 0; i < 2; i++)
        DP_STEP(gdaki_wait(qp,
                           gdaki_put_signal(qp, DP_R(p, DP_PUTSIG_OFF), DP_L(p, DP_PUTSIG_OFF),
                                            DP_PUTSIG_LEN, DP_R(p, DP_SIG_OFF),
                                            DP_L(p, DP_RET_OFF + 8 * i), adds[i], rsm, nic, 0)));
    DP_STEP(gdaki_wait(qp, gdaki_p_signal(qp, DP_R(p, DP_PSIG_OFF), &psig, 4, DP_R(p, DP_SIG_OFF),
                                          DP_L(p, DP_RET_OFF + 16), adds[2], rsm, nic, 0)));
    DP_STEP(gdaki_wait(qp, gdaki_signal(qp, DP_R(p, DP_SIG_OFF), DP_L(p, DP_RET_OFF + 24), adds[3],
                                        rsm, nic, 0)));
    /* A blocking get with a dump, then a plain get waited for with get_wait's dump. */
    gdaki_get(qp, DP_R(p, DP_GET_OFF), DP_L(p, DP_GET_OFF), DP_GET_LEN / 2, dump, 1, 1, &st, rsm,
              nic, 0);
    DP_STEP(st);
    t = gdaki_get(qp, DP_R(p, DP_GET_OFF + DP_GET_LEN / 2), DP_L(p, DP_GET_OFF + DP_GET_LEN / 2),
                  DP_GET_LEN / 2, dump, 0, 0, &st, rsm, nic, 0);
    DP_STEP(gdaki_get_wait(qp, dump, t, 1, rsm, nic));
    DP_STEP(dp_atomic(qp, p, 0, PRM_WQE_OPCODE_ATOMIC_MASKED_FA, DP_A32_OFF, DP_RET_OFF + 32,
                      DP_A32_FA_ADD, 0, 0, rsm, nic));
    DP_STEP(dp_atomic(qp, p, 0, PRM_WQE_OPCODE_ATOMIC_MASKED_CS, DP_A32_OFF + 4, DP_RET_OFF + 40,
                      DP_A32_CS_SWAP, DP_A32_CS_INIT, DP_A32_CS_MASK, rsm, nic));
    DP_STEP(dp_atomic(qp, p, 1, PRM_WQE_OPCODE_ATOMIC_CS, DP_CS64_OFF, DP_RET_OFF + 48,
                      DP_CS64_SWAP, DP_CS64_INIT, 0, rsm, nic));
    DP_STEP(dp_atomic(qp, p, 1, PRM_WQE_OPCODE_ATOMIC_CS, DP_CS64_OFF, DP_RET_OFF + 56, 1,
                      DP_CS64_INIT, 0, rsm, nic)); /* compare fails: the word stays 777 */
    t = gdaki_sq_reserve(qp, 1, rsm, 0);
    gdaki_wqe_nop(qp, gdaki_wqe_ptr(qp, t), t, DP_CQ_UPDATE);
    DP_STEP(gdaki_wait(qp, gdaki_commit(qp, t, t, rsm, nic, 0)));
    if (p->counters) {
        struct gdaki_counter c = {p->companion, DP_R(p, DP_COUNTER_OFF), DP_L(p, DP_RET_OFF + 64),
                                  1};

        gdaki_put_counter(qp, DP_R(p, DP_COUNTER_OFF + 64), DP_L(p, DP_COUNTER_OFF + 64), 64, &c,
                          rsm, nic, 0);
        c.laddr = DP_L(p, DP_RET_OFF + 72);
        gdaki_p_counter(qp, DP_R(p, DP_COUNTER_OFF + 128), &v32, 4, &c, rsm, nic, 0);
        c.laddr = DP_L(p, DP_RET_OFF + 80);
        gdaki_get_counter(qp, DP_R(p, DP_GET_OFF), DP_L(p, DP_COUNTER_OFF + 192), 8, &c, rsm, nic,
                          0);
        DP_STEP(gdaki_wait_all(p->companion));
    }
    /* Everything posted is complete: consuming the CQ in order must find no error. */
    if (rsm == DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE)
        DP_STEP(gdaki_cq_poll(&qp->cq_sq, (uint32_t)(qp->sq_rsvd_index - qp->cq_sq.cqe_ci)));
#undef DP_STEP
    return 0;
}

/*
 * Thread t of p->threads sharing one QP: its puts, the last with the
 * signal (two WQEs, so that on the GPU a warp's 32 of them need more slots
 * than a small ring has); waits for the signal.
 */
GDAKI_INLINE int dp_share(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p, uint32_t t,
                          enum doca_gpu_dev_verbs_nic_handler nic)
{
    const enum doca_gpu_dev_verbs_resource_sharing_mode rsm =
            (enum doca_gpu_dev_verbs_resource_sharing_mode)p->rsm;
    uint64_t off = DP_SHARE_OFF + (uint64_t)t * DP_SHARE_PUTS * 64;
    uint64_t ticket;

    for (uint32_t k = 0; k + 1 < DP_SHARE_PUTS; k++, off += 64)
        gdaki_put(qp, DP_R(p, off), DP_L(p, off), 64, rsm, nic, 0);
    ticket = gdaki_put_signal(qp, DP_R(p, off), DP_L(p, off), 64, DP_R(p, DP_SHARE_SIG_OFF),
                              DP_L(p, DP_SHARE_RET_OFF + 8 * t), 1, rsm, nic, 0);
    return gdaki_wait(qp, ticket);
}

/* A put with a wrong remote key: the wait status (-EIO expected); *ticket gets its ticket. */
GDAKI_INLINE int dp_error(struct doca_gpu_dev_verbs_qp *qp, const struct dp_plan *p,
                          enum doca_gpu_dev_verbs_nic_handler nic, uint64_t *ticket)
{
    struct doca_gpu_dev_verbs_addr bad = DP_R(p, DP_PUT_OFF(3));

    bad.key ^= gdaki_htobe32(0x5a00u);
    *ticket = gdaki_put(qp, bad, DP_L(p, DP_PUT_OFF(3)), 64,
                        (enum doca_gpu_dev_verbs_resource_sharing_mode)p->rsm, nic, 0);
    return gdaki_wait(qp, *ticket);
}

#endif /* DP_OPS_H */
