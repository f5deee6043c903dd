/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * WQE layouts and builders of include/device/impl/prm/mlx5_wqe.h, checked against
 * rdma-core's installed <infiniband/mlx5dv.h> as an independent oracle, and
 * against byte sequences written out by hand from the PRM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include <infiniband/mlx5dv.h>

#include "prm/mlx5_wqe.h"

/* Same offset and size of a field in our struct and in rdma-core's. */
#define ASSERT_SAME_FIELD(ours, ofield, theirs, tfield)                                   \
    do {                                                                                  \
        assert_int_equal(offsetof(struct ours, ofield), offsetof(struct theirs, tfield)); \
        assert_int_equal(sizeof(((struct ours *)0)->ofield),                              \
                         sizeof(((struct theirs *)0)->tfield));                           \
    } while (0)

#define ASSERT_FIELD_AT(type, field, offset, size)                   \
    do {                                                             \
        assert_int_equal(offsetof(struct type, field), (offset));    \
        assert_int_equal(sizeof(((struct type *)0)->field), (size)); \
    } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_layouts_match_rdma_core(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct prm_wqe_ctrl_seg), sizeof(struct mlx5_wqe_ctrl_seg));
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, opmod_idx_opcode, mlx5_wqe_ctrl_seg, opmod_idx_opcode);
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, qpn_ds, mlx5_wqe_ctrl_seg, qpn_ds);
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, signature, mlx5_wqe_ctrl_seg, signature);
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, reserved, mlx5_wqe_ctrl_seg, dci_stream_channel_id);
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, fm_ce_se, mlx5_wqe_ctrl_seg, fm_ce_se);
    ASSERT_SAME_FIELD(prm_wqe_ctrl_seg, imm, mlx5_wqe_ctrl_seg, imm);

    assert_int_equal(sizeof(struct prm_wqe_raddr_seg), sizeof(struct mlx5_wqe_raddr_seg));
    ASSERT_SAME_FIELD(prm_wqe_raddr_seg, raddr, mlx5_wqe_raddr_seg, raddr);
    ASSERT_SAME_FIELD(prm_wqe_raddr_seg, rkey, mlx5_wqe_raddr_seg, rkey);
    ASSERT_SAME_FIELD(prm_wqe_raddr_seg, reserved, mlx5_wqe_raddr_seg, reserved);

    assert_int_equal(sizeof(struct prm_wqe_data_seg), sizeof(struct mlx5_wqe_data_seg));
    ASSERT_SAME_FIELD(prm_wqe_data_seg, byte_count, mlx5_wqe_data_seg, byte_count);
    ASSERT_SAME_FIELD(prm_wqe_data_seg, lkey, mlx5_wqe_data_seg, lkey);
    ASSERT_SAME_FIELD(prm_wqe_data_seg, addr, mlx5_wqe_data_seg, addr);

    assert_int_equal(sizeof(struct prm_wqe_inline_seg), sizeof(struct mlx5_wqe_inl_data_seg));
    ASSERT_SAME_FIELD(prm_wqe_inline_seg, byte_count, mlx5_wqe_inl_data_seg, byte_count);

    assert_int_equal(sizeof(struct prm_wqe_atomic_seg), sizeof(struct mlx5_wqe_atomic_seg));
    ASSERT_SAME_FIELD(prm_wqe_atomic_seg, swap_add, mlx5_wqe_atomic_seg, swap_add);
    ASSERT_SAME_FIELD(prm_wqe_atomic_seg, compare, mlx5_wqe_atomic_seg, compare);

    assert_int_equal(sizeof(struct prm_wqe_eth_seg), sizeof(struct mlx5_wqe_eth_seg));
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, reserved0, mlx5_wqe_eth_seg, rsvd0);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, cs_flags, mlx5_wqe_eth_seg, cs_flags);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, reserved1, mlx5_wqe_eth_seg, rsvd1);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, mss, mlx5_wqe_eth_seg, mss);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, reserved2, mlx5_wqe_eth_seg, rsvd2);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, inline_hdr_sz, mlx5_wqe_eth_seg, inline_hdr_sz);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, inline_hdr_start, mlx5_wqe_eth_seg, inline_hdr_start);
    ASSERT_SAME_FIELD(prm_wqe_eth_seg, inline_hdr, mlx5_wqe_eth_seg, inline_hdr);
}

/* Segments rdma-core's public header does not define: offsets from the PRM. */
static void test_layouts_without_rdma_core_counterpart(void **state)
{
    (void)state;
    ASSERT_FIELD_AT(prm_wqe_wait_seg, reserved, 0, 8);
    ASSERT_FIELD_AT(prm_wqe_wait_seg, max_index, 8, 4);
    ASSERT_FIELD_AT(prm_wqe_wait_seg, obj_num, 12, 4);

    ASSERT_FIELD_AT(prm_wqe_masked_cs32_seg, swap, 0, 4);
    ASSERT_FIELD_AT(prm_wqe_masked_cs32_seg, compare, 4, 4);
    ASSERT_FIELD_AT(prm_wqe_masked_cs32_seg, swap_mask, 8, 4);
    ASSERT_FIELD_AT(prm_wqe_masked_cs32_seg, compare_mask, 12, 4);

    ASSERT_FIELD_AT(prm_wqe_masked_fa32_seg, add, 0, 4);
    ASSERT_FIELD_AT(prm_wqe_masked_fa32_seg, field_boundary, 4, 4);
    ASSERT_FIELD_AT(prm_wqe_masked_fa32_seg, reserved, 8, 8);

    ASSERT_FIELD_AT(prm_wqe_masked_cs64_seg, swap, 0, 8);
    ASSERT_FIELD_AT(prm_wqe_masked_cs64_seg, compare, 8, 8);
    ASSERT_FIELD_AT(prm_wqe_masked_cs64_seg, swap_mask, 16, 8);
    ASSERT_FIELD_AT(prm_wqe_masked_cs64_seg, compare_mask, 24, 8);
    assert_int_equal(sizeof(struct prm_wqe_masked_cs64_seg), 32);

    ASSERT_FIELD_AT(prm_wqe_masked_fa64_seg, add, 0, 8);
    ASSERT_FIELD_AT(prm_wqe_masked_fa64_seg, field_boundary, 8, 8);
}

static void test_constants_match_rdma_core(void **state)
{
    (void)state;
    assert_int_equal(PRM_WQE_OPCODE_NOP, MLX5_OPCODE_NOP);
    assert_int_equal(PRM_WQE_OPCODE_SEND_INVAL, MLX5_OPCODE_SEND_INVAL);
    assert_int_equal(PRM_WQE_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE);
    assert_int_equal(PRM_WQE_OPCODE_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_WRITE_IMM);
    assert_int_equal(PRM_WQE_OPCODE_SEND, MLX5_OPCODE_SEND);
    assert_int_equal(PRM_WQE_OPCODE_SEND_IMM, MLX5_OPCODE_SEND_IMM);
    assert_int_equal(PRM_WQE_OPCODE_LSO, MLX5_OPCODE_TSO);
    assert_int_equal(PRM_WQE_OPCODE_RDMA_READ, MLX5_OPCODE_RDMA_READ);
    assert_int_equal(PRM_WQE_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_CS);
    assert_int_equal(PRM_WQE_OPCODE_ATOMIC_FA, MLX5_OPCODE_ATOMIC_FA);
    assert_int_equal(PRM_WQE_OPCODE_ATOMIC_MASKED_CS, MLX5_OPCODE_ATOMIC_MASKED_CS);
    assert_int_equal(PRM_WQE_OPCODE_ATOMIC_MASKED_FA, MLX5_OPCODE_ATOMIC_MASKED_FA);
    assert_int_equal(PRM_WQE_OPCODE_FMR, MLX5_OPCODE_FMR);
    assert_int_equal(PRM_WQE_OPCODE_LOCAL_INVAL, MLX5_OPCODE_LOCAL_INVAL);
    assert_int_equal(PRM_WQE_OPCODE_CONFIG_CMD, MLX5_OPCODE_CONFIG_CMD);
    assert_int_equal(PRM_WQE_OPCODE_SET_PSV, MLX5_OPCODE_SET_PSV);
    assert_int_equal(PRM_WQE_OPCODE_UMR, MLX5_OPCODE_UMR);
    assert_int_equal(PRM_WQE_OPCODE_TAG_MATCHING, MLX5_OPCODE_TAG_MATCHING);
    assert_int_equal(PRM_WQE_OPCODE_FLOW_TBL_ACCESS, MLX5_OPCODE_FLOW_TBL_ACCESS);
    assert_int_equal(PRM_WQE_OPCODE_MMO, MLX5_OPCODE_MMO);

    assert_int_equal(PRM_WQE_CTRL_CQ_UPDATE, MLX5_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(PRM_WQE_CTRL_SOLICITED, MLX5_WQE_CTRL_SOLICITED);
    assert_int_equal(PRM_WQE_CTRL_FM_SMALL_AND_FENCE, MLX5_WQE_CTRL_FENCE);
    assert_int_equal(PRM_WQE_CTRL_FM_INITIATOR_SMALL, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);

    assert_int_equal(PRM_WQE_BB_SIZE, MLX5_SEND_WQE_BB);
    assert_int_equal(1 << PRM_WQE_BB_SHIFT, PRM_WQE_BB_SIZE);
    assert_int_equal(PRM_WQE_BB_SHIFT, MLX5_SEND_WQE_SHIFT);
    assert_int_equal(PRM_WQE_INLINE_SEG_FLAG, MLX5_INLINE_SEG);
    assert_int_equal(PRM_WQE_ETH_L3_CSUM, MLX5_ETH_WQE_L3_CSUM);
    assert_int_equal(PRM_WQE_ETH_L4_CSUM, MLX5_ETH_WQE_L4_CSUM);
}

/*
 * Values the installed mlx5dv.h does not carry, as the PRM, the Linux mlx5
 * driver and DOCA GPUNetIO's device headers give them.
 */
static void test_constants_without_rdma_core_counterpart(void **state)
{
    (void)state;
    assert_int_equal(PRM_WQE_OPCODE_WAIT, 0x0f);
    assert_int_equal(PRM_WQE_OPCODE_RECV_ENABLE, 0x16);
    assert_int_equal(PRM_WQE_OPCODE_SEND_ENABLE, 0x17);
    assert_int_equal(PRM_WQE_OPCODE_DUMP, 0x23);
    assert_int_equal(PRM_WQE_OPCODE_ENHANCED_MPSW, 0x29);
    assert_int_equal(PRM_WQE_OPCODE_ACCESS_ASO, 0x2d);
    assert_int_equal(PRM_WQE_CTRL_CE_ERROR_ONLY, 0x00);
    assert_int_equal(PRM_WQE_CTRL_CE_FIRST_ERROR, 0x04);
    assert_int_equal(PRM_WQE_CTRL_CQ_UPDATE_AND_EQE, 0x0c);
    assert_int_equal(PRM_WQE_CTRL_FM_FENCE, 0x40);
    assert_int_equal(PRM_WQE_CTRL_FM_STRONG_ORDERING, 0x60);
    assert_int_equal(PRM_WQE_CTRL_FM_SMALL_AND_FENCE, 0x80);
    /* The modes are distinct values inside their masks. */
    assert_int_equal(PRM_WQE_CTRL_CE_MASK & PRM_WQE_CTRL_FM_MASK, 0);
    assert_int_equal((PRM_WQE_CTRL_CE_MASK | PRM_WQE_CTRL_FM_MASK) & PRM_WQE_CTRL_SOLICITED, 0);
    assert_int_equal(PRM_WQE_CTRL_CQ_UPDATE_AND_EQE, PRM_WQE_CTRL_CE_MASK);
}

static void check_ctrl_seg(uint16_t pi, uint8_t opcode, uint8_t opmod, uint32_t qpn,
                           uint8_t fm_ce_se, uint8_t ds, uint8_t signature, uint32_t imm)
{
    struct prm_wqe_ctrl_seg ours;
    struct mlx5_wqe_ctrl_seg theirs;

    memset(&ours, 0xa5, sizeof(ours));
    memset(&theirs, 0, sizeof(theirs));
    prm_wqe_set_ctrl_seg(&ours, pi, opcode, opmod, qpn, fm_ce_se, ds, signature, imm);
    mlx5dv_set_ctrl_seg(&theirs, pi, opcode, opmod, qpn, fm_ce_se, ds, signature, imm);
    if (memcmp(&ours, &theirs, sizeof(ours)) != 0)
        fail_msg("ctrl seg differs: pi %#x opcode %#x opmod %#x qpn %#x fm_ce_se %#x ds %u sig "
                 "%#x imm %#x",
                 pi, opcode, opmod, qpn, fm_ce_se, ds, signature, imm);
}

static void test_ctrl_seg_matches_mlx5dv(void **state)
{
    static const uint16_t pis[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1234, 0x8000, 0xfffe, 0xffff};
    static const uint8_t opcodes[] = {PRM_WQE_OPCODE_NOP,       PRM_WQE_OPCODE_RDMA_WRITE,
                                      PRM_WQE_OPCODE_RDMA_READ, PRM_WQE_OPCODE_ATOMIC_FA,
                                      PRM_WQE_OPCODE_DUMP,      PRM_WQE_OPCODE_ATOMIC_MASKED_CS,
                                      PRM_WQE_OPCODE_WAIT,      0xff};
    static const uint8_t opmods[] = {0, PRM_WQE_OPMOD_EXT_ATOMIC_4B, PRM_WQE_OPMOD_EXT_ATOMIC_8B,
                                     0xff};
    static const uint32_t qpns[] = {0, 1, 0x123456, 0xfffffe, 0xffffff};
    static const uint8_t flags[] = {0, PRM_WQE_CTRL_CQ_UPDATE,
                                    PRM_WQE_CTRL_CQ_UPDATE | PRM_WQE_CTRL_SOLICITED |
                                            PRM_WQE_CTRL_FM_STRONG_ORDERING,
                                    0xff};
    static const uint8_t dss[] = {0, 1, 2, 3, 4, 5, 62, 63};
    static const uint8_t sigs[] = {0, 0xff};
    static const uint32_t imms[] = {0, 0x01020304, 0xffffffff};

    (void)state;
    for (size_t a = 0; a < sizeof(pis) / sizeof(pis[0]); a++)
        for (size_t b = 0; b < sizeof(opcodes); b++)
            for (size_t c = 0; c < sizeof(opmods); c++)
                for (size_t d = 0; d < sizeof(qpns) / sizeof(qpns[0]); d++)
                    for (size_t e = 0; e < sizeof(flags); e++)
                        for (size_t f = 0; f < sizeof(dss); f++)
                            for (size_t g = 0; g < sizeof(sigs); g++)
                                for (size_t h = 0; h < sizeof(imms) / sizeof(imms[0]); h++)
                                    check_ctrl_seg(pis[a], opcodes[b], opmods[c], qpns[d], flags[e],
                                                   dss[f], sigs[g], imms[h]);
    for (int i = 0; i < 100000; i++) {
        uint64_t r = rng_next();
        uint64_t s = rng_next();

        check_ctrl_seg((uint16_t)r, (uint8_t)(r >> 16), (uint8_t)(r >> 24),
                       (uint32_t)(r >> 32) & 0xffffff, (uint8_t)(r >> 56), (uint8_t)(s % 64),
                       (uint8_t)(s >> 8), (uint32_t)(s >> 32));
    }
}

/* One control segment spelled out byte by byte, independently of rdma-core. */
static void test_ctrl_seg_bytes(void **state)
{
    static const uint8_t expected[16] = {
            0x09, 0x12, 0x34, PRM_WQE_OPCODE_ATOMIC_MASKED_FA, /* opmod, index, opcode */
            0xab, 0xcd, 0xef, 0x04,                            /* qpn, ds */
            0x7e, 0x00, 0x00, 0x88,                            /* signature, reserved, flags */
            0xde, 0xad, 0xbe, 0xef,                            /* imm as given */
    };
    struct prm_wqe_ctrl_seg seg;
    const uint8_t imm_bytes[4] = {0xde, 0xad, 0xbe, 0xef};
    uint32_t imm;

    (void)state;
    memcpy(&imm, imm_bytes, sizeof(imm));
    memset(&seg, 0xff, sizeof(seg));
    prm_wqe_set_ctrl_seg(&seg, 0x1234, PRM_WQE_OPCODE_ATOMIC_MASKED_FA, prm_wqe_ext_atomic_opmod(3),
                         0xabcdef, PRM_WQE_CTRL_CQ_UPDATE | PRM_WQE_CTRL_FM_SMALL_AND_FENCE, 4,
                         0x7e, imm);
    assert_memory_equal(&seg, expected, sizeof(expected));
}

static void check_data_seg(uint32_t len, uint32_t lkey, uint64_t addr)
{
    struct prm_wqe_data_seg ours;
    struct mlx5_wqe_data_seg theirs;

    memset(&ours, 0xa5, sizeof(ours));
    memset(&theirs, 0x5a, sizeof(theirs));
    prm_wqe_set_data_seg(&ours, len, lkey, addr);
    mlx5dv_set_data_seg(&theirs, len, lkey, (uintptr_t)addr);
    if (memcmp(&ours, &theirs, sizeof(ours)) != 0)
        fail_msg("data seg differs: len %#x lkey %#x addr %#llx", len, lkey,
                 (unsigned long long)addr);
}

static void test_data_seg_matches_mlx5dv(void **state)
{
    static const uint32_t u32s[] = {0, 1, 0x80, 0x12345678, 0x7fffffff, 0x80000000, 0xffffffff};
    static const uint64_t addrs[] = {
            0, 1, 0x1000, 0x00007f0012345678ull, 0x8000000000000000ull, 0xffffffffffffffffull};

    (void)state;
    for (size_t a = 0; a < sizeof(u32s) / sizeof(u32s[0]); a++)
        for (size_t b = 0; b < sizeof(u32s) / sizeof(u32s[0]); b++)
            for (size_t c = 0; c < sizeof(addrs) / sizeof(addrs[0]); c++)
                check_data_seg(u32s[a], u32s[b], addrs[c]);
    for (int i = 0; i < 100000; i++) {
        uint64_t r = rng_next();

        check_data_seg((uint32_t)r, (uint32_t)(r >> 32), rng_next());
    }

    struct prm_wqe_data_seg seg;
    static const uint8_t expected[16] = {0x00, 0x00, 0x10, 0x00, 0x11, 0x22, 0x33, 0x44,
                                         0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

    prm_wqe_set_data_seg(&seg, 0x1000, 0x11223344, 0x0102030405060708ull);
    assert_memory_equal(&seg, expected, sizeof(expected));
}

/* The installed mlx5dv.h has no raddr builder: compare with its struct filled field by field. */
static void test_raddr_seg(void **state)
{
    (void)state;
    for (int i = 0; i < 100000; i++) {
        uint64_t raddr = i == 0 ? 0 : i == 1 ? UINT64_MAX : rng_next();
        uint32_t rkey = i == 0 ? 0 : i == 1 ? UINT32_MAX : (uint32_t)rng_next();
        struct prm_wqe_raddr_seg ours;
        struct mlx5_wqe_raddr_seg theirs;

        memset(&ours, 0xa5, sizeof(ours));
        theirs.raddr = htobe64(raddr);
        theirs.rkey = htobe32(rkey);
        theirs.reserved = 0;
        prm_wqe_set_raddr_seg(&ours, raddr, rkey);
        assert_memory_equal(&ours, &theirs, sizeof(ours));
    }

    struct prm_wqe_raddr_seg seg;
    static const uint8_t expected[16] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
                                         0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x00};

    memset(&seg, 0xff, sizeof(seg));
    prm_wqe_set_raddr_seg(&seg, 0x1020304050607080ull, 0xcafebabe);
    assert_memory_equal(&seg, expected, sizeof(expected));
}

static void test_atomic_segs(void **state)
{
    (void)state;
    for (int i = 0; i < 10000; i++) {
        uint64_t swap_add = rng_next();
        uint64_t compare = rng_next();
        struct prm_wqe_atomic_seg ours;
        struct mlx5_wqe_atomic_seg theirs;

        theirs.swap_add = htobe64(swap_add);
        theirs.compare = htobe64(compare);
        prm_wqe_set_atomic_seg(&ours, swap_add, compare);
        assert_memory_equal(&ours, &theirs, sizeof(ours));
    }

    struct prm_wqe_masked_cs32_seg cs32;
    static const uint8_t cs32_bytes[16] = {0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
                                           0xff, 0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0xff};
    prm_wqe_set_masked_cs32_seg(&cs32, 0x11111111, 0x22222222, 0xff00ff00, 0x00ff00ff);
    assert_memory_equal(&cs32, cs32_bytes, sizeof(cs32_bytes));

    struct prm_wqe_masked_fa32_seg fa32;
    static const uint8_t fa32_bytes[16] = {0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    memset(&fa32, 0xff, sizeof(fa32));
    prm_wqe_set_masked_fa32_seg(&fa32, 1, 0x80000000);
    assert_memory_equal(&fa32, fa32_bytes, sizeof(fa32_bytes));

    struct prm_wqe_masked_cs64_seg cs64;
    uint8_t cs64_bytes[32];
    for (int i = 0; i < 32; i++)
        cs64_bytes[i] = (uint8_t)(i + 1);
    prm_wqe_set_masked_cs64_seg(&cs64, 0x0102030405060708ull, 0x090a0b0c0d0e0f10ull,
                                0x1112131415161718ull, 0x191a1b1c1d1e1f20ull);
    assert_memory_equal(&cs64, cs64_bytes, sizeof(cs64_bytes));

    struct prm_wqe_masked_fa64_seg fa64;
    prm_wqe_set_masked_fa64_seg(&fa64, 0x0102030405060708ull, 0x090a0b0c0d0e0f10ull);
    assert_memory_equal(&fa64, cs64_bytes, sizeof(fa64));
}

/* Extended atomics: operand size in the opmod, as NVSHMEM's IBGDA 0x08000000 / 0x09000000. */
static void test_ext_atomic_opmod(void **state)
{
    struct prm_wqe_ctrl_seg seg;

    (void)state;
    assert_int_equal(prm_wqe_ext_atomic_opmod(2), PRM_WQE_OPMOD_EXT_ATOMIC_4B);
    assert_int_equal(prm_wqe_ext_atomic_opmod(3), PRM_WQE_OPMOD_EXT_ATOMIC_8B);
    assert_int_equal(PRM_WQE_OPMOD_EXT_ATOMIC_4B, 0x08);
    assert_int_equal(PRM_WQE_OPMOD_EXT_ATOMIC_8B, 0x09);
    prm_wqe_set_ctrl_seg(&seg, 0x0102, PRM_WQE_OPCODE_ATOMIC_MASKED_FA, prm_wqe_ext_atomic_opmod(2),
                         0, 0, 4, 0, 0);
    assert_int_equal(be32toh(seg.opmod_idx_opcode), 0x08000000u | (0x0102u << 8) | 0x15u);
    prm_wqe_set_ctrl_seg(&seg, 0xffff, PRM_WQE_OPCODE_ATOMIC_MASKED_CS, prm_wqe_ext_atomic_opmod(3),
                         0, 0, 5, 0, 0);
    assert_int_equal(be32toh(seg.opmod_idx_opcode), 0x09000000u | (0xffffu << 8) | 0x14u);
}

static void test_inline_seg(void **state)
{
    static const uint32_t lens[] = {0, 1, 12, 13, 28, 29, 44, 0x7fffffff};

    (void)state;
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        struct prm_wqe_inline_seg ours;
        struct mlx5_wqe_inl_data_seg theirs;

        theirs.byte_count = htobe32(lens[i] | MLX5_INLINE_SEG);
        prm_wqe_set_inline_seg(&ours, lens[i]);
        assert_memory_equal(&ours, &theirs, sizeof(ours));
    }
    /* The 4-byte header and the data share DS: 12 bytes fit the first one. */
    assert_int_equal(prm_wqe_inline_ds(0), 1);
    assert_int_equal(prm_wqe_inline_ds(12), 1);
    assert_int_equal(prm_wqe_inline_ds(13), 2);
    assert_int_equal(prm_wqe_inline_ds(28), 2);
    assert_int_equal(prm_wqe_inline_ds(29), 3);

    uint8_t wqe[64];
    struct prm_wqe_inline_seg *seg = (struct prm_wqe_inline_seg *)(void *)wqe;
    assert_ptr_equal(prm_wqe_inline_data(seg), wqe + 4);
}

static void test_eth_seg_matches_mlx5dv(void **state)
{
    static const uint16_t hdr_sizes[] = {0, 2, 14, 18, 42};
    uint8_t hdr[64];

    (void)state;
    for (size_t i = 0; i < sizeof(hdr); i++)
        hdr[i] = (uint8_t)(0x30 + i);
    for (size_t i = 0; i < sizeof(hdr_sizes) / sizeof(hdr_sizes[0]); i++) {
        /* Room for headers that spill past the segment into the next DS. */
        _Alignas(8) uint8_t ours[64];
        _Alignas(8) uint8_t theirs[64];

        memset(ours, 0, sizeof(ours));
        memset(theirs, 0, sizeof(theirs));
        prm_wqe_set_eth_seg((struct prm_wqe_eth_seg *)(void *)ours,
                            PRM_WQE_ETH_L3_CSUM | PRM_WQE_ETH_L4_CSUM, 1448, hdr_sizes[i], hdr);
        mlx5dv_set_eth_seg((struct mlx5_wqe_eth_seg *)(void *)theirs,
                           MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM, 1448, hdr_sizes[i], hdr);
        assert_memory_equal(ours, theirs, sizeof(ours));
    }

    struct prm_wqe_eth_seg seg;
    memset(&seg, 0xff, sizeof(seg));
    prm_wqe_set_eth_seg(&seg, 0, 0, 2, hdr);
    assert_int_equal(seg.reserved0, 0);
    assert_int_equal(seg.reserved1, 0);
    assert_int_equal(seg.reserved2, 0);
    assert_int_equal(seg.mss, 0);
    assert_int_equal(be16toh(seg.inline_hdr_sz), 2);
}

static void test_wait_seg(void **state)
{
    struct prm_wqe_wait_seg seg;
    static const uint8_t expected[16] = {0,    0,    0,    0,    0,    0,    0,    0,
                                         0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x04, 0x21};

    (void)state;
    memset(&seg, 0xff, sizeof(seg));
    prm_wqe_set_wait_seg(&seg, 0x421, 0xffff);
    assert_memory_equal(&seg, expected, sizeof(expected));
}

static void test_ds_and_bb_counts(void **state)
{
    (void)state;
    assert_int_equal(PRM_WQE_DS_SIZE * 4, PRM_WQE_BB_SIZE);
    assert_int_equal(PRM_WQE_DS_PER_BB, 4);
    assert_int_equal(PRM_WQE_DS_SEND, 2);
    assert_int_equal(PRM_WQE_DS_RDMA, 3);
    assert_int_equal(PRM_WQE_DS_ATOMIC, 4);
    assert_int_equal(PRM_WQE_DS_MASKED_CS64, 5);
    assert_int_equal(PRM_WQE_DS_WAIT, 2);

    assert_int_equal(prm_wqe_ds_count(0), 0);
    assert_int_equal(prm_wqe_ds_count(1), 1);
    assert_int_equal(prm_wqe_ds_count(16), 1);
    assert_int_equal(prm_wqe_ds_count(17), 2);
    assert_int_equal(prm_wqe_ds_count(PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE), PRM_WQE_MAX_DS);

    for (uint32_t ds = 1; ds <= PRM_WQE_MAX_DS; ds++)
        assert_int_equal(prm_wqe_bb_count(ds), (ds * 16 + 63) / 64);
    assert_int_equal(prm_wqe_bb_count(4), 1);
    assert_int_equal(prm_wqe_bb_count(5), 2);
    assert_int_equal(prm_wqe_bb_count(PRM_WQE_MAX_DS), 16);
    /* PRM_WQE_MAX_BB sizes WQE buffers: the largest WQE's basic blocks, 1024 bytes. */
    assert_int_equal(PRM_WQE_MAX_BB, prm_wqe_bb_count(PRM_WQE_MAX_DS));
    assert_int_equal(PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE, 1024);
}

static void test_slot_wraps(void **state)
{
    static const uint32_t logs[] = {0, 1, 3, 6, 15, 16};
    uint8_t *ring = malloc((size_t)PRM_WQE_BB_SIZE << 16);

    (void)state;
    assert_non_null(ring);
    for (size_t l = 0; l < sizeof(logs) / sizeof(logs[0]); l++) {
        uint64_t size = 1ull << logs[l];

        for (uint64_t i = 0; i < 3 * size && i < 300000; i++) {
            uint8_t *slot = prm_wqe_slot(ring, i, logs[l]);

            assert_int_equal(slot - ring, (i % size) * PRM_WQE_BB_SIZE);
            assert_ptr_equal(prm_wqe_slot(ring, i + size, logs[l]), slot);
            assert_ptr_equal(prm_wqe_slot(ring, i + 7 * size, logs[l]), slot);
        }
        /* 64-bit counters: the last index of the counter space is the last slot. */
        assert_int_equal((uint8_t *)prm_wqe_slot(ring, UINT64_MAX, logs[l]) - ring,
                         (size - 1) * PRM_WQE_BB_SIZE);
        assert_ptr_equal(prm_wqe_slot(ring, 1ull << 32, logs[l]), ring);
    }
    /* The 16-bit WQE index the NIC sees wraps in step with a 2^16-entry ring. */
    assert_ptr_equal(prm_wqe_slot(ring, 0xffffu + 1, 16), ring);
    free(ring);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_layouts_match_rdma_core),
            cmocka_unit_test(test_layouts_without_rdma_core_counterpart),
            cmocka_unit_test(test_constants_match_rdma_core),
            cmocka_unit_test(test_constants_without_rdma_core_counterpart),
            cmocka_unit_test(test_ctrl_seg_matches_mlx5dv),
            cmocka_unit_test(test_ctrl_seg_bytes),
            cmocka_unit_test(test_data_seg_matches_mlx5dv),
            cmocka_unit_test(test_raddr_seg),
            cmocka_unit_test(test_atomic_segs),
            cmocka_unit_test(test_ext_atomic_opmod),
            cmocka_unit_test(test_inline_seg),
            cmocka_unit_test(test_eth_seg_matches_mlx5dv),
            cmocka_unit_test(test_wait_seg),
            cmocka_unit_test(test_ds_and_bb_counts),
            cmocka_unit_test(test_slot_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
