/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one-sided core (include/device/impl/gdaki_verbs_onesided.h) on QP
 * descriptors over plain memory, with no NIC: waits on a QP that was never
 * used, waits that meet an error CQE, the fence's WQE, and what a counter
 * variant posts and rings on both QPs (the WAIT's CQ and max_index). The
 * same operations against softmlx5 are in tests/datapath/test_dp_onesided.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include <infiniband/mlx5dv.h>

#include "gdaki_verbs.h"
#include "gdaki_verbs_desc.h"

#define NWQE 16

/* A QP descriptor over a ring of NWQE basic blocks and a CQ of NWQE entries, rung into memory. */
struct fx {
    struct doca_gpu_dev_verbs_qp qp;
    uint8_t ring[NWQE * 64] __attribute__((aligned(64)));
    uint8_t cqes[NWQE * 64] __attribute__((aligned(64)));
    gdaki_be32_t dbrec;
    uint64_t db[8];
};

static const enum doca_gpu_dev_verbs_resource_sharing_mode EXCL =
        DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
static const uint32_t AUTO = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO;
static const struct doca_gpu_dev_verbs_addr RADDR = {0x5000, 0x11000000};
static const struct doca_gpu_dev_verbs_addr LADDR = {0x6000, 0x22000000};

static void fx_init(struct fx *f, uint32_t qpn, uint32_t cqn)
{
    memset(f, 0, sizeof(*f));
    gdaki_desc_set_sq(&f->qp, f->ring, NWQE, qpn, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB,
                      DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_desc_set_cq(&f->qp.cq_sq, f->cqes, 4, cqn, 0, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, NULL);
    f->qp.sq_dbrec = &f->dbrec;
    f->qp.sq_db = f->db;
    memset(f->cqes, 0xff, sizeof(f->cqes)); /* opcode INVALID everywhere: nothing completed */
}

/* The NIC's completion of WQE idx (REQ, or REQ_ERR with a syndrome), copied in as a DMA would. */
static void complete(struct fx *f, uint64_t idx, int error)
{
    union {
        struct mlx5_cqe64 ok;
        struct mlx5_err_cqe err;
    } c;

    memset(&c, 0, sizeof(c));
    c.ok.wqe_counter = htobe16((uint16_t)idx);
    if (error)
        c.err.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
    c.ok.op_own = (uint8_t)((error ? MLX5_CQE_REQ_ERR : MLX5_CQE_REQ) << 4) |
                  (uint8_t)((idx / NWQE) & 1); /* the owner bit of the lap */
    memcpy(f->cqes + (idx % NWQE) * 64, &c, sizeof(c.ok));
}

static const struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg *ctrl_at(const struct fx *f, uint64_t idx)
{
    return (const struct doca_gpunetio_ib_mlx5_wqe_ctrl_seg *)(const void *)(f->ring +
                                                                             (idx % NWQE) * 64);
}

static uint8_t opcode_at(const struct fx *f, uint64_t idx)
{
    return (uint8_t)be32toh(ctrl_at(f, idx)->opmod_idx_opcode);
}

/* Nothing reserved yet: every wait returns at once and posts nothing (no dump either). */
static void test_wait_fresh_qp(void **state)
{
    struct fx f;
    const struct doca_gpu_dev_verbs_addr daddr = {0x7000, 0x33000000};

    (void)state;
    fx_init(&f, 0x100, 0x200);
    assert_int_equal(gdaki_wait_all(&f.qp), 0);
    assert_int_equal(gdaki_get_wait_all(&f.qp, daddr, 0, EXCL, AUTO), 0);
    assert_int_equal(gdaki_get_wait_all(&f.qp, daddr, 1, EXCL, AUTO), 0);
    assert_int_equal(f.qp.sq_rsvd_index, 0);
    assert_int_equal(f.qp.sq_wqe_pi, 0);
    /* Once something was posted and completed, the wait is for it. */
    assert_int_equal(gdaki_put(&f.qp, RADDR, LADDR, 8, EXCL, AUTO, 0), 0);
    complete(&f, 0, 0);
    assert_int_equal(gdaki_wait_all(&f.qp), 0);
}

/* An error CQE ends every wait with -EIO, with and without a ticket, with and without a dump. */
static void test_wait_error(void **state)
{
    struct fx f;
    const struct doca_gpu_dev_verbs_addr daddr = {0x7000, 0x33000000};
    uint64_t t;

    (void)state;
    fx_init(&f, 0x100, 0x200);
    t = gdaki_put(&f.qp, RADDR, LADDR, 8, EXCL, AUTO, 0);
    complete(&f, t, 1);
    assert_int_equal(gdaki_wait(&f.qp, t), -EIO);
    assert_int_equal(gdaki_wait_all(&f.qp), -EIO);
    assert_int_equal(gdaki_get_wait_all(&f.qp, daddr, 0, EXCL, AUTO), -EIO);
    assert_int_equal(gdaki_get_wait(&f.qp, daddr, t, 0, EXCL, AUTO), -EIO);
    /* With a dump: the QP is in error, so the NIC flushes it (its CQE is written first here). */
    complete(&f, 1, 1);
    assert_int_equal(gdaki_get_wait(&f.qp, daddr, t, 1, EXCL, AUTO), -EIO);
    assert_int_equal(opcode_at(&f, 1), DOCA_GPUNETIO_IB_MLX5_OPCODE_DUMP);
    complete(&f, 2, 1);
    assert_int_equal(gdaki_get_wait_all(&f.qp, daddr, 1, EXCL, AUTO), -EIO);
    assert_int_equal(opcode_at(&f, 2), DOCA_GPUNETIO_IB_MLX5_OPCODE_DUMP);
    assert_int_equal(f.qp.cq_sq.err.has_error, 1);
}

/* The fence: one NOP asking for a CQE, with fence mode FENCE, rung like any WQE. */
static void test_fence_wqe(void **state)
{
    struct fx f;
    uint8_t ref[64];

    (void)state;
    fx_init(&f, 0x100, 0x200);
    gdaki_get(&f.qp, RADDR, LADDR, 64, RADDR, 0, 0, &(int){0}, EXCL, AUTO, 0);
    assert_int_equal(gdaki_qp_fence(&f.qp, EXCL, AUTO, 0), 1);
    memset(ref, 0, sizeof(ref));
    mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)ref, 1, MLX5_OPCODE_NOP, 0, 0x100,
                        DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE, 1, 0, 0);
    assert_memory_equal(f.ring + 64, ref, 64);
    assert_int_equal(f.qp.sq_wqe_pi, 2);
    assert_int_equal(f.dbrec, htobe32(2));
}

/* The companion's WAIT: on the main QP's CQ, until it has produced max_index CQEs. */
static void check_wait(const struct fx *comp, uint64_t idx, uint32_t cqn, uint32_t max_index)
{
    const struct doca_gpunetio_ib_mlx5_wqe_wait_seg *w =
            (const struct doca_gpunetio_ib_mlx5_wqe_wait_seg *)(const void *)(comp->ring +
                                                                              (idx % NWQE) * 64 +
                                                                              16);

    assert_int_equal(opcode_at(comp, idx), DOCA_GPUNETIO_IB_MLX5_OPCODE_WAIT);
    assert_int_equal(ctrl_at(comp, idx)->fm_ce_se, MLX5_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(be32toh(w->qpn_cqn), cqn);
    assert_int_equal(be32toh(w->max_index), max_index);
}

/*
 * Each counter variant: the operation's WQEs on the main QP, then on the
 * companion the WAIT for the (last + 1)th CQE of the main CQ (CQE i is WQE
 * i's) and the counter's fetch-add; both QPs rung, up to their last WQE.
 */
static void test_counter_variants(void **state)
{
    struct fx m, c;
    const uint64_t v = 0xabcd;
    const struct gdaki_counter ctr = {&c.qp, {0x8000, 0x44000000}, {0x9000, 0x55000000}, 3};
    uint64_t comp = 0;

    (void)state;
    fx_init(&m, 0x100, 0x200);
    fx_init(&c, 0x101, 0x201);
    /* The main QP has posted 5 WQEs before: WQE 5 is the 6th CQE. */
    m.qp.sq_rsvd_index = m.qp.sq_ready_index = m.qp.sq_wqe_pi = 5;
    for (int op = 0; op < 5; op++) {
        uint64_t first = m.qp.sq_rsvd_index, last;

        if (op == 0)
            last = gdaki_put_counter(&m.qp, RADDR, LADDR, 64, &ctr, EXCL, AUTO, 0);
        else if (op == 1)
            last = gdaki_p_counter(&m.qp, RADDR, &v, 8, &ctr, EXCL, AUTO, 0);
        else if (op == 2)
            last = gdaki_put_signal_counter(&m.qp, RADDR, LADDR, 0, RADDR, LADDR, 1, &ctr, EXCL,
                                            AUTO, 0);
        else if (op == 3)
            last = gdaki_signal_counter(&m.qp, RADDR, LADDR, 1, &ctr, EXCL, AUTO, 0);
        else
            last = gdaki_get_counter(&m.qp, RADDR, LADDR, 64, &ctr, EXCL, AUTO, 0);
        assert_int_equal(last, m.qp.sq_rsvd_index - 1);
        assert_int_equal(last - first, op == 2 ? 1 : 0); /* put_signal: a NOP, then the signal */
        assert_int_equal(opcode_at(&m, last), op == 0   ? MLX5_OPCODE_RDMA_WRITE
                                              : op == 1 ? MLX5_OPCODE_RDMA_WRITE
                                              : op == 4 ? MLX5_OPCODE_RDMA_READ
                                                        : MLX5_OPCODE_ATOMIC_FA);
        check_wait(&c, comp, 0x200, (uint32_t)last + 1);
        assert_int_equal(opcode_at(&c, comp + 1), MLX5_OPCODE_ATOMIC_FA);
        assert_int_equal(
                be64toh(*(const uint64_t *)(const void *)(c.ring + ((comp + 1) % NWQE) * 64 + 32)),
                3);
        comp += 2;
        /* Both rung, each up to its last WQE. */
        assert_int_equal(m.qp.sq_wqe_pi, last + 1);
        assert_int_equal(m.dbrec, htobe32((uint32_t)last + 1));
        assert_int_equal(c.qp.sq_wqe_pi, comp);
        assert_int_equal(c.dbrec, htobe32((uint32_t)comp));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_wait_fresh_qp),
            cmocka_unit_test(test_wait_error),
            cmocka_unit_test(test_fence_wqe),
            cmocka_unit_test(test_counter_variants),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
