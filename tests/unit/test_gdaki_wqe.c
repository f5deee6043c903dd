/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path core's WQE builders (include/device/impl/gdaki_verbs_wqe.h:
 * one and two buffers, inline in one or two steps, atomics with DOCA's
 * operands, masked atomics of both sizes, the completion flags) and
 * doorbell values (gdaki_verbs_sq.h), byte for byte against WQEs assembled
 * with rdma-core's mlx5dv.h builders and the PRM's layouts; the DOCA enumerator values against
 * the numbers DOCA gives them; the completion matcher against hand-made
 * CQEs (in order, later laps, stale entries, errors, collapsed CQs); the
 * handler word the DOCA facade resolves once per call.
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

#define QPN 0x1234u

/* A QP descriptor over a ring of 16 basic blocks, for the builders. */
struct fx {
    struct doca_gpu_dev_verbs_qp qp;
    uint8_t ring[16 * 64] __attribute__((aligned(64)));
    uint8_t cqes[16 * 64] __attribute__((aligned(64)));
};

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof(*f));
    gdaki_desc_set_sq(&f->qp, f->ring, 16, QPN, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB,
                      DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    gdaki_desc_set_cq(&f->qp.cq_sq, f->cqes, 4, 0x77, 0, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, NULL);
    memset(f->cqes, 0xff, sizeof(f->cqes)); /* opcode INVALID everywhere */
}

/* The reference WQE: ctrl by mlx5dv_set_ctrl_seg, the rest by hand or mlx5dv builders. */
static void ref_ctrl(uint8_t *wqe, uint16_t idx, uint8_t opcode, uint8_t opmod, uint8_t ds,
                     uint8_t fm_ce_se, uint32_t imm_be)
{
    memset(wqe, 0, 64);
    mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)wqe, idx, opcode, opmod, QPN, fm_ce_se, ds, 0,
                        imm_be);
}

static void ref_raddr(uint8_t *seg, uint64_t raddr, uint32_t rkey)
{
    struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)seg;

    r->raddr = htobe64(raddr);
    r->rkey = htobe32(rkey);
}

static void test_rdma_write_read_imm(void **state)
{
    struct fx f;
    uint8_t ref[64];
    const uint8_t ops[] = {MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM,
                           MLX5_OPCODE_RDMA_READ};

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < sizeof(ops); i++) {
        uint64_t idx = 0x10005 + i; /* slot 5 + i; index field keeps the low 16 bits */
        uint32_t imm = ops[i] == MLX5_OPCODE_RDMA_WRITE_IMM ? htobe32(0xc0ffee) : 0;

        gdaki_wqe_rdma(&f.qp, gdaki_wqe_ptr(&f.qp, idx), idx, ops[i], MLX5_WQE_CTRL_CQ_UPDATE, imm,
                       0x1122334455667788ull, htobe32(0xabcd), 0x99aabbccddeeff00ull,
                       htobe32(0x4321), 4096);
        ref_ctrl(ref, (uint16_t)idx, ops[i], 0, 3, MLX5_WQE_CTRL_CQ_UPDATE, imm);
        ref_raddr(ref + 16, 0x1122334455667788ull, 0xabcd);
        mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 32), 4096, 0x4321,
                            0x99aabbccddeeff00ull);
        assert_memory_equal(f.ring + (5 + i) * 64, ref, 64);
    }
}

static void test_nop_inline_dump_wait(void **state)
{
    struct fx f;
    uint8_t ref[64];
    uint64_t value = 0x0102030405060708ull;
    struct mlx5_wqe_data_seg *d;

    (void)state;
    fx_init(&f);
    gdaki_wqe_nop(&f.qp, gdaki_wqe_ptr(&f.qp, 0), 0, MLX5_WQE_CTRL_CQ_UPDATE);
    ref_ctrl(ref, 0, MLX5_OPCODE_NOP, 0, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    assert_memory_equal(f.ring, ref, 64);

    /* Inline: ctrl, raddr, byte count with the inline bit, the bytes; 3 DS for 8 bytes. */
    gdaki_wqe_write_inl(&f.qp, gdaki_wqe_ptr(&f.qp, 1), 1, MLX5_WQE_CTRL_CQ_UPDATE, 0x1000,
                        htobe32(7), &value, 8);
    ref_ctrl(ref, 1, MLX5_OPCODE_RDMA_WRITE, 0, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x1000, 7);
    *(uint32_t *)(void *)(ref + 32) = htobe32(8 | MLX5_INLINE_SEG);
    memcpy(ref + 36, &value, 8);
    assert_memory_equal(f.ring + 64, ref, 64);
    /* 28 bytes, the most one basic block carries: 4 DS. */
    gdaki_wqe_write_inl(&f.qp, gdaki_wqe_ptr(&f.qp, 2), 2, 0, 0x1000, htobe32(7), f.cqes, 28);
    assert_int_equal(f.ring[2 * 64 + 7], 4);

    gdaki_wqe_dump(&f.qp, gdaki_wqe_ptr(&f.qp, 3), 3, MLX5_WQE_CTRL_CQ_UPDATE, 0x2000, htobe32(9),
                   1);
    ref_ctrl(ref, 3, 0x23, 0, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    d = (struct mlx5_wqe_data_seg *)(ref + 16);
    mlx5dv_set_data_seg(d, 1, 9, 0x2000);
    assert_memory_equal(f.ring + 3 * 64, ref, 64);

    /* WAIT: 8 reserved bytes, then max_index (24 bits kept) and the CQ number. */
    gdaki_wqe_wait(&f.qp, gdaki_wqe_ptr(&f.qp, 4), 4, MLX5_WQE_CTRL_CQ_UPDATE, 0x77, 0x1abcdef);
    ref_ctrl(ref, 4, 0x0f, 0, 2, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    *(uint32_t *)(void *)(ref + 24) = htobe32(0xabcdef);
    *(uint32_t *)(void *)(ref + 28) = htobe32(0x77);
    assert_memory_equal(f.ring + 4 * 64, ref, 64);
}

static void test_atomics(void **state)
{
    struct fx f;
    uint8_t ref[64];
    uint32_t masked[4];

    (void)state;
    fx_init(&f);
    gdaki_wqe_atomic(&f.qp, gdaki_wqe_ptr(&f.qp, 6), 6, MLX5_OPCODE_ATOMIC_CS,
                     MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 777, 100);
    ref_ctrl(ref, 6, MLX5_OPCODE_ATOMIC_CS, 0, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    ((struct mlx5_wqe_atomic_seg *)(void *)(ref + 32))->swap_add = htobe64(777);
    ((struct mlx5_wqe_atomic_seg *)(void *)(ref + 32))->compare = htobe64(100);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 8, 4, 0x9000);
    assert_memory_equal(f.ring + 6 * 64, ref, 64);

    /* 4-byte masked compare-swap: opmod 0x08, swap, compare, swap mask, compare mask. */
    gdaki_wqe_atomic32(&f.qp, gdaki_wqe_ptr(&f.qp, 7), 7, MLX5_OPCODE_ATOMIC_MASKED_CS,
                       MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 0xaabbccdd,
                       0x11223344, 0xffff, 0xffffffff);
    ref_ctrl(ref, 7, MLX5_OPCODE_ATOMIC_MASKED_CS, 0x08, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    masked[0] = htobe32(0xaabbccdd);
    masked[1] = htobe32(0x11223344);
    masked[2] = htobe32(0xffff);
    masked[3] = htobe32(0xffffffff);
    memcpy(ref + 32, masked, 16);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 4, 4, 0x9000);
    assert_memory_equal(f.ring + 7 * 64, ref, 64);

    /* 4-byte masked fetch-add: add, field boundary, 8 reserved bytes. */
    gdaki_wqe_atomic32(&f.qp, gdaki_wqe_ptr(&f.qp, 8), 8, MLX5_OPCODE_ATOMIC_MASKED_FA, 0, 0x8000,
                       htobe32(3), 0x9000, htobe32(4), 5, 0x80, 0, 0);
    ref_ctrl(ref, 8, MLX5_OPCODE_ATOMIC_MASKED_FA, 0x08, 4, 0, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    masked[0] = htobe32(5);
    masked[1] = htobe32(0x80);
    memcpy(ref + 32, masked, 8);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 4, 4, 0x9000);
    assert_memory_equal(f.ring + 8 * 64, ref, 64);
}

/* Two buffers: 4 DS, the second data segment in the fourth; byte counts keep 31 bits. */
static void test_two_sge(void **state)
{
    struct fx f;
    uint8_t ref[64];
    const uint8_t ops[] = {MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM,
                           MLX5_OPCODE_RDMA_READ};

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < sizeof(ops); i++) {
        uint32_t imm = ops[i] == MLX5_OPCODE_RDMA_WRITE_IMM ? htobe32(0xc0ffee) : 0;

        gdaki_wqe_rdma2(&f.qp, gdaki_wqe_ptr(&f.qp, 9 + i), 9 + i, ops[i], MLX5_WQE_CTRL_CQ_UPDATE,
                        imm, 0x1122334455667788ull, htobe32(0xabcd), 0x1000, htobe32(0x4321), 4096,
                        0x9000, htobe32(0x8765), 100);
        ref_ctrl(ref, 9 + i, ops[i], 0, 4, MLX5_WQE_CTRL_CQ_UPDATE, imm);
        ref_raddr(ref + 16, 0x1122334455667788ull, 0xabcd);
        mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 32), 4096, 0x4321, 0x1000);
        mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 100, 0x8765, 0x9000);
        assert_memory_equal(f.ring + (9 + i) * 64, ref, 64);
    }
    /* 2^31 bytes is a byte count of 0; bit 31 (inline) is never set. */
    gdaki_wqe_rdma(&f.qp, gdaki_wqe_ptr(&f.qp, 0), 0, MLX5_OPCODE_RDMA_READ, 0, 0, 0, 0, 0, 0,
                   0x80000000u);
    assert_int_equal(((struct mlx5_wqe_data_seg *)(void *)(f.ring + 32))->byte_count, 0);
}

/*
 * DOCA's atomic operands: FA adds compare_add (swap_add is ignored), CS
 * swaps in swap_add where the target equals compare_add; `bytes` is the
 * data segment's length.
 */
static void test_atomic_operand_order(void **state)
{
    struct fx f;
    uint8_t ref[64];
    struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)(void *)(ref + 32);

    (void)state;
    fx_init(&f);
    gdaki_wqe_atomic_n(&f.qp, gdaki_wqe_ptr(&f.qp, 2), 2, MLX5_OPCODE_ATOMIC_FA,
                       MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 8, 5, 99);
    ref_ctrl(ref, 2, MLX5_OPCODE_ATOMIC_FA, 0, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    a->swap_add = htobe64(5);
    a->compare = htobe64(5);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 8, 4, 0x9000);
    assert_memory_equal(f.ring + 2 * 64, ref, 64);

    gdaki_wqe_atomic_n(&f.qp, gdaki_wqe_ptr(&f.qp, 3), 3, MLX5_OPCODE_ATOMIC_CS, 0, 0x8000,
                       htobe32(3), 0x9000, htobe32(4), 4, 100, 777);
    ref_ctrl(ref, 3, MLX5_OPCODE_ATOMIC_CS, 0, 4, 0, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    a->swap_add = htobe64(777);
    a->compare = htobe64(100);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 4, 4, 0x9000);
    assert_memory_equal(f.ring + 3 * 64, ref, 64);

    /* The core's own order (swap_add, compare) writes the same FA: the addend in swap_add. */
    gdaki_wqe_atomic(&f.qp, gdaki_wqe_ptr(&f.qp, 4), 2, MLX5_OPCODE_ATOMIC_FA,
                     MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 5, 0);
    assert_memory_equal(f.ring + 4 * 64, f.ring + 2 * 64, 64);
}

/* Stores big-endian words v[0..n) at p. */
static void put_be32s(uint8_t *p, const uint32_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t be = htobe32(v[i]);

        memcpy(p + 4 * i, &be, 4);
    }
}

static void put_be64s(uint8_t *p, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t be = htobe64(v[i]);

        memcpy(p + 8 * i, &be, 8);
    }
}

/*
 * The masked atomics with DOCA's operands, every operand big-endian at the
 * PRM's offsets; the 8-byte compare-swap spans two basic blocks, its data
 * segment in the second, whose other bytes stay untouched.
 */
static void test_masked_atomics(void **state)
{
    const uint32_t fa32[2] = {5, 0x80};
    const uint64_t fa64[2] = {0x0102030405060708ull, 0x8000000000000001ull};
    const uint32_t cs32[4] = {0xaabbccdd, 0x11223344, 0xffff0000, 0x0000ffff};
    const uint64_t cs64[4] = {0x1111222233334444ull, 0x5555666677778888ull, 0xffffffff00000000ull,
                              0x00000000ffffffffull};
    struct fx f;
    uint8_t ref[64], untouched[48];

    (void)state;
    fx_init(&f);
    gdaki_wqe_atomic_ext(&f.qp, gdaki_wqe_ptr(&f.qp, 1), NULL, 1, MLX5_OPCODE_ATOMIC_MASKED_FA,
                         MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 4,
                         fa32[0], fa32[1], 0, 0, 0, 0);
    ref_ctrl(ref, 1, MLX5_OPCODE_ATOMIC_MASKED_FA, 0x08, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    put_be32s(ref + 32, fa32, 2);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 4, 4, 0x9000);
    assert_memory_equal(f.ring + 64, ref, 64);

    gdaki_wqe_atomic_ext(&f.qp, gdaki_wqe_ptr(&f.qp, 2), NULL, 2, MLX5_OPCODE_ATOMIC_MASKED_FA,
                         MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 8,
                         fa64[0], fa64[1], 0, 0, 0, 0);
    ref_ctrl(ref, 2, MLX5_OPCODE_ATOMIC_MASKED_FA, 0x09, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    put_be64s(ref + 32, fa64, 2);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 8, 4, 0x9000);
    assert_memory_equal(f.ring + 2 * 64, ref, 64);

    gdaki_wqe_atomic_ext(&f.qp, gdaki_wqe_ptr(&f.qp, 3), NULL, 3, MLX5_OPCODE_ATOMIC_MASKED_CS,
                         MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), 4, 0, 0,
                         cs32[0], cs32[1], cs32[2], cs32[3]);
    ref_ctrl(ref, 3, MLX5_OPCODE_ATOMIC_MASKED_CS, 0x08, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    put_be32s(ref + 32, cs32, 4);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ref + 48), 4, 4, 0x9000);
    assert_memory_equal(f.ring + 3 * 64, ref, 64);

    /* 8-byte compare-swap in the ring's last slot: its second basic block wraps to slot 0. */
    memset(f.ring, 0xab, 64);
    memset(untouched, 0xab, sizeof(untouched));
    gdaki_wqe_atomic_ext(&f.qp, gdaki_wqe_ptr(&f.qp, 15), gdaki_wqe_ptr(&f.qp, 16), 15,
                         MLX5_OPCODE_ATOMIC_MASKED_CS, MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3),
                         0x9000, htobe32(4), 8, 0, 0, cs64[0], cs64[1], cs64[2], cs64[3]);
    ref_ctrl(ref, 15, MLX5_OPCODE_ATOMIC_MASKED_CS, 0x09, 5, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x8000, 3);
    put_be64s(ref + 32, cs64, 4);
    assert_memory_equal(f.ring + 15 * 64, ref, 64);
    mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)ref, 8, 4, 0x9000);
    assert_memory_equal(f.ring, ref, 16);
    assert_memory_equal(f.ring + 16, untouched, sizeof(untouched));

    /* The core's 4-byte builder is the same WQE. */
    gdaki_wqe_atomic32(&f.qp, gdaki_wqe_ptr(&f.qp, 4), 3, MLX5_OPCODE_ATOMIC_MASKED_CS,
                       MLX5_WQE_CTRL_CQ_UPDATE, 0x8000, htobe32(3), 0x9000, htobe32(4), cs32[0],
                       cs32[1], cs32[2], cs32[3]);
    assert_memory_equal(f.ring + 4 * 64, f.ring + 3 * 64, 64);
}

/*
 * The two-step inline write: the header stores the first 32 bytes only,
 * the data its byte count and bytes only, in either order; together they
 * are the one-step WQE.
 */
static void test_inline_two_steps(void **state)
{
    struct fx f;
    uint8_t ref[64], untouched[32];
    uint64_t value = 0x0102030405060708ull;
    uint8_t big[20];

    (void)state;
    fx_init(&f);
    memset(untouched, 0xab, sizeof(untouched));
    memset(f.ring + 5 * 64, 0xab, 64);
    gdaki_wqe_inl_header(&f.qp, gdaki_wqe_ptr(&f.qp, 5), 5, MLX5_WQE_CTRL_CQ_UPDATE, 0x1000,
                         htobe32(7), sizeof(value));
    ref_ctrl(ref, 5, MLX5_OPCODE_RDMA_WRITE, 0, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
    ref_raddr(ref + 16, 0x1000, 7);
    assert_memory_equal(f.ring + 5 * 64, ref, 32);
    assert_memory_equal(f.ring + 5 * 64 + 32, untouched, 32);
    gdaki_wqe_inl_data(gdaki_wqe_ptr(&f.qp, 5), &value, sizeof(value));
    *(uint32_t *)(void *)(ref + 32) = htobe32(8 | MLX5_INLINE_SEG);
    memcpy(ref + 36, &value, 8);
    assert_memory_equal(f.ring + 5 * 64, ref, 44);
    assert_memory_equal(f.ring + 5 * 64 + 44, untouched, 20);

    /* Data first, header second; 20 bytes take 4 DS. */
    for (unsigned int i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(0x40 + i);
    memset(f.ring + 6 * 64, 0, 64);
    gdaki_wqe_inl_data(gdaki_wqe_ptr(&f.qp, 6), big, sizeof(big));
    gdaki_wqe_inl_header(&f.qp, gdaki_wqe_ptr(&f.qp, 6), 6, 0, 0x1000, htobe32(7), sizeof(big));
    gdaki_wqe_write_inl(&f.qp, gdaki_wqe_ptr(&f.qp, 7), 6, 0, 0x1000, htobe32(7), big, sizeof(big));
    assert_memory_equal(f.ring + 6 * 64, f.ring + 7 * 64, 64);
    assert_int_equal(f.ring[6 * 64 + 7], 4);
}

/* DOCA's cqe_ctrl_flags: a CQE always but for a doorbell-less WQE on a collapsed CQ. */
static void test_cqe_flags(void **state)
{
    const uint32_t skip = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING;
    const uint8_t fenced = MLX5_WQE_CTRL_CQ_UPDATE | PRM_WQE_CTRL_FM_FENCE;

    (void)state;
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_64B, skip, fenced),
                     MLX5_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_64B, 0, 0),
                     MLX5_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, skip, 0),
                     MLX5_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED, skip, fenced), 0);
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED_HOST, skip, fenced),
                     0);
    assert_int_equal(gdaki_wqe_cqe_flags(DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED, 0, fenced), fenced);
}

/* The doorbell: the QP number and the producer index in a control segment's first 8 bytes. */
static void test_doorbell_value(void **state)
{
    struct fx f;
    uint64_t db;
    uint8_t ref[16];

    (void)state;
    fx_init(&f);
    db = gdaki_sq_db_value(&f.qp, 0x12345);
    memset(ref, 0, sizeof(ref));
    mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)ref, 0x2345, 0, 0, QPN, 0, 0, 0, 0);
    assert_memory_equal(&db, ref, 8);
}

/* Writes a CQE for WQE counter `counter` with `opcode` at entry `slot`. */
static void put_cqe(struct fx *f, uint32_t slot, uint16_t counter, uint8_t opcode, uint8_t synd)
{
    union {
        struct mlx5_cqe64 ok;
        struct mlx5_err_cqe err;
    } c;

    memset(&c, 0, sizeof(c));
    c.ok.wqe_counter = htobe16(counter);
    if (opcode == MLX5_CQE_REQ_ERR)
        c.err.syndrome = synd;
    /* The owner bit of the lap its counter is in (16 entries), as the NIC's producer sets it. */
    c.ok.op_own = (uint8_t)(opcode << 4) | (uint8_t)((counter / 16) & 1);
    /*
     * Copied in as bytes, as a NIC's DMA writes it: stores typed as the CQE's
     * fields could be moved past the core's 4-byte loads of the same bytes.
     */
    memcpy(f->cqes + slot * 64, &c, sizeof(c.ok));
}

static void test_completion_matching(void **state)
{
    struct fx f;
    struct doca_gpu_dev_verbs_cq *cq = &f.qp.cq_sq;

    (void)state;
    fx_init(&f);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3), EBUSY); /* nothing written yet */
    put_cqe(&f, 3, 3, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3), 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3 + 16), EBUSY); /* the same slot a lap later */
    put_cqe(&f, 3, 3 + 16, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3 + 16), 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3), 0); /* overwritten by a later completion */
    assert_int_equal(gdaki_cq_poll_one_at(cq, 3 + 32), EBUSY);
    /* Across the 16-bit counter's wrap. */
    put_cqe(&f, 15, 0xffff, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 0xffff), 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 0x1000f), EBUSY); /* 16 WQEs on: counter 0x000f */
    put_cqe(&f, 15, 0x000f, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 0x1000f), 0);
    /* An error: -EIO, recorded once with its syndrome and WQE. */
    put_cqe(&f, 4, 4, MLX5_CQE_REQ_ERR, 0x13);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 4), -EIO);
    assert_int_equal(cq->err.has_error, 1);
    assert_int_equal(cq->err.syndrome, 0x13);
    assert_int_equal(cq->err.wqe_counter, 4);
    put_cqe(&f, 5, 5, MLX5_CQE_REQ_ERR, 0x05);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 5), -EIO);
    assert_int_equal(cq->err.syndrome, 0x13); /* the first error stays */
    /* Collapsed: every completion in entry 0. */
    fx_init(&f);
    cq->collapsed = 1;
    put_cqe(&f, 0, 41, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 40), 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 41), 0);
    assert_int_equal(gdaki_cq_poll_one_at(cq, 42), EBUSY);
}

/* Slot reuse waits for the completion of the slot's previous WQE. */
static void test_reserve_waits_for_slot(void **state)
{
    struct fx f;

    (void)state;
    fx_init(&f);
    f.qp.sq_rsvd_index = 20; /* the next reservation is slots 20..21: WQEs 4 and 5 held them */
    put_cqe(&f, 5, 5, MLX5_CQE_REQ, 0);
    assert_int_equal(gdaki_sq_reserve(&f.qp, 2, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, 0),
                     20);
    assert_int_equal(f.qp.sq_rsvd_index, 22);
    /* Without the availability check nothing is waited for. */
    assert_int_equal(gdaki_sq_reserve(&f.qp, 100,
                                      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                      DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK),
                     22);
}

static void test_doca_values(void **state)
{
    (void)state;
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY, 1);
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB, 2);
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF, 6);
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR, 10);
    assert_int_equal(DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW, 17);
    assert_int_equal(DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU, 2);
    assert_int_equal(DOCA_GPUNETIO_VERBS_SYNC_SCOPE_THREAD, 3);
    assert_int_equal(DOCA_GPUNETIO_VERBS_MCST_ENABLED, 1);
    assert_int_equal(DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_CPU_PROXY_UPDATE_PI, 8);
    assert_int_equal(DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED, 2);
    assert_int_equal(DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_CQ_UPDATE, MLX5_WQE_CTRL_CQ_UPDATE);
    /* DOCA's FENCE is fence mode 2; rdma-core's MLX5_WQE_CTRL_FENCE is mode 4 (small and fence). */
    assert_int_equal(DOCA_GPUNETIO_IB_MLX5_WQE_CTRL_FENCE, PRM_WQE_CTRL_FM_FENCE);
    assert_int_equal(DOCA_GPUNETIO_IB_MLX5_OPCODE_ATOMIC_MASKED_FA, MLX5_OPCODE_ATOMIC_MASKED_FA);
    assert_int_equal(DOCA_GPUNETIO_VERSION, 0x050000);
    /* The signal immediate's default split: 15 id bits, 16 value bits. */
    assert_int_equal(DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_MASK, 0x7fff);
    assert_int_equal(DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_MASK, 0xffff);
    assert_int_equal(sizeof(struct doca_gpu_dev_verbs_wqe), 64);
}

/* The descriptor helpers: ring geometry, the byte-swapped QP number, and the NIC fence rule. */
static void test_descriptor(void **state)
{
    const uint32_t db = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;
    const uint32_t proxy = DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY;
    const uint32_t no_dbr = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR;
    const enum doca_gpu_dev_verbs_sync_scope gpu = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
    const enum doca_gpu_dev_verbs_sync_scope sys = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS;
    struct fx f;

    (void)state;
    fx_init(&f);
    assert_int_equal(f.qp.sq_wqe_mask, 15);
    assert_int_equal(f.qp.sq_num_shift8_be, htobe32(QPN << 8));
    assert_int_equal(f.qp.sq_nic_scope, sys);
    assert_int_equal(f.qp.cq_sq.cqe_num, 16);
    assert_int_equal(f.qp.cq_sq.cqe_mask, 15);
    gdaki_desc_set_cq(&f.qp.cq_sq, f.cqes, 4, 0x77, 1, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, NULL);
    assert_int_equal(f.qp.cq_sq.cqe_num, 1);
    assert_int_equal(f.qp.cq_sq.cqe_mask, 0);

    /* GPU scope only for a GPU ringing the NIC itself with ring and record in GPU memory. */
    assert_int_equal(gdaki_desc_nic_scope(1, db, 1, 1), gpu);
    assert_int_equal(gdaki_desc_nic_scope(1, no_dbr, 1, 0), gpu);
    assert_int_equal(gdaki_desc_nic_scope(1, db, 1, 0), sys);
    assert_int_equal(gdaki_desc_nic_scope(1, db, 0, 1), sys);
    assert_int_equal(gdaki_desc_nic_scope(1, proxy, 1, 1), sys);
    assert_int_equal(gdaki_desc_nic_scope(0, db, 1, 1), sys);

    /* Three lines: their stores to the CQ or the counters leave the read-only line alone. */
    assert_int_equal(offsetof(struct doca_gpu_dev_verbs_qp, cq_sq), DOCA_GPUNETIO_VERBS_QP_LINE);
    assert_int_equal(offsetof(struct doca_gpu_dev_verbs_qp, sq_rsvd_index),
                     2 * DOCA_GPUNETIO_VERBS_QP_LINE);
    /* DOCA's names for what export writes: the qpn_ds words, the CQ's kind, the layout. */
    assert_int_equal(f.qp.sq_num_shift8, QPN << 8);
    assert_int_equal(f.qp.sq_num_shift8_be_3ds, htobe32((QPN << 8) | 3));
    assert_int_equal(f.qp.sq_num_shift8_be_5ds, htobe32((QPN << 8) | 5));
    assert_int_equal(f.qp.layout_version, DOCA_GPUNETIO_DEVICE_CODE_VERSION);
    assert_int_equal(f.qp.layout_size, sizeof(f.qp));
    assert_int_equal(f.qp.cq_sq.cq_type, DOCA_GPUNETIO_VERBS_CQ_64B_COLLAPSED);
    assert_int_equal(f.qp.cq_sq.cqe_size, 64);
}

/*
 * The handler word: only a QP rung as GPU_SM_DB at GPU scope resolves to
 * the constant GDAKI_NIC_GPU_DB; a put with it writes the same WQE, record
 * and doorbell as the run-time path, and leaves the same counters.
 */
static void test_nic_resolve(void **state)
{
    const uint32_t auto_h = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO;
    const uint32_t db = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;
    const uint32_t bf = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF;
    const uint32_t no_dbr = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR;
    const struct doca_gpu_dev_verbs_addr raddr = {0x5000, htobe32(0x11)};
    const struct doca_gpu_dev_verbs_addr laddr = {0x6000, htobe32(0x22)};
    const enum doca_gpu_dev_verbs_resource_sharing_mode excl =
            DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE;
    const uint32_t skip = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_AVAILABILITY_CHECK;
    struct fx f, g;
    gdaki_be32_t dbr_f = 0, dbr_g = 0;
    uint64_t db_f[8] = {0}, db_g[8] = {0};

    (void)state;
    fx_init(&f);
    assert_int_equal(gdaki_nic_resolve(&f.qp, auto_h), auto_h); /* system scope: run time */
    f.qp.sq_nic_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU;
    assert_int_equal(gdaki_nic_resolve(&f.qp, auto_h), GDAKI_NIC_GPU_DB);
    assert_int_equal(gdaki_nic_resolve(&f.qp, db), GDAKI_NIC_GPU_DB);
    assert_int_equal(gdaki_nic_resolve(&f.qp, bf), bf); /* a named handler stays itself */
    assert_int_equal(gdaki_nic_resolve(&f.qp, no_dbr), no_dbr);
    f.qp.nic_handler = bf;
    assert_int_equal(gdaki_nic_resolve(&f.qp, auto_h), auto_h);
    f.qp.nic_handler = db;

    f.qp.sq_dbrec = &dbr_f;
    f.qp.sq_db = db_f;
    memcpy(&g, &f, sizeof(f));
    g.qp.sq_wqe_daddr = g.ring;
    g.qp.cq_sq.cqe_daddr = g.cqes;
    g.qp.sq_dbrec = &dbr_g;
    g.qp.sq_db = db_g;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gdaki_put(&f.qp, raddr, laddr, 8, excl, auto_h, skip), i);
        assert_int_equal(gdaki_put(&g.qp, raddr, laddr, 8, excl, GDAKI_NIC_GPU_DB, skip), i);
    }
    assert_memory_equal(f.ring, g.ring, sizeof(f.ring));
    assert_int_equal(dbr_f, htobe32(3));
    assert_int_equal(dbr_g, dbr_f);
    assert_int_equal(db_f[0], gdaki_sq_db_value(&f.qp, 3));
    assert_memory_equal(db_g, db_f, sizeof(db_f));
    assert_int_equal(g.qp.sq_rsvd_index, 3);
    assert_int_equal(g.qp.sq_ready_index, 3);
    assert_int_equal(g.qp.sq_wqe_pi, 3);
    assert_int_equal(f.qp.sq_wqe_pi, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rdma_write_read_imm),
            cmocka_unit_test(test_nop_inline_dump_wait),
            cmocka_unit_test(test_atomics),
            cmocka_unit_test(test_two_sge),
            cmocka_unit_test(test_atomic_operand_order),
            cmocka_unit_test(test_masked_atomics),
            cmocka_unit_test(test_inline_two_steps),
            cmocka_unit_test(test_cqe_flags),
            cmocka_unit_test(test_doorbell_value),
            cmocka_unit_test(test_completion_matching),
            cmocka_unit_test(test_reserve_waits_for_slot),
            cmocka_unit_test(test_doca_values),
            cmocka_unit_test(test_descriptor),
            cmocka_unit_test(test_nic_resolve),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
