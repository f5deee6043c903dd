/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQE64 layout, accessors and builders of include/device/impl/prm/mlx5_cqe.h,
 * checked against rdma-core's installed <infiniband/mlx5dv.h> as an
 * independent oracle: its structs read the same bytes, its accessors return
 * the same values.
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

#include "prm/mlx5_cqe.h"

#define ASSERT_SAME_FIELD(ours, ofield, theirs, tfield)                                   \
    do {                                                                                  \
        assert_int_equal(offsetof(struct ours, ofield), offsetof(struct theirs, tfield)); \
        assert_int_equal(sizeof(((struct ours *)0)->ofield),                              \
                         sizeof(((struct theirs *)0)->tfield));                           \
    } while (0)

/* A CQE buffer both views may read. */
union cqe_buf {
    uint8_t bytes[64];
    struct prm_cqe64 ours;
    struct mlx5_cqe64 theirs;
    struct mlx5_err_cqe theirs_err;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fill_random(union cqe_buf *buf)
{
    for (size_t i = 0; i < sizeof(buf->bytes); i += 8) {
        uint64_t r = rng_next();

        memcpy(&buf->bytes[i], &r, sizeof(r));
    }
}

static void test_layout_matches_rdma_core(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct prm_cqe64), sizeof(struct mlx5_cqe64));
    ASSERT_SAME_FIELD(prm_cqe64, wqe_id, mlx5_cqe64, wqe_id);
    ASSERT_SAME_FIELD(prm_cqe64, ml_path, mlx5_cqe64, ml_path);
    ASSERT_SAME_FIELD(prm_cqe64, slid, mlx5_cqe64, slid);
    ASSERT_SAME_FIELD(prm_cqe64, flags_rqpn, mlx5_cqe64, flags_rqpn);
    ASSERT_SAME_FIELD(prm_cqe64, hds_ip_ext, mlx5_cqe64, hds_ip_ext);
    ASSERT_SAME_FIELD(prm_cqe64, l4_hdr_type_etc, mlx5_cqe64, l4_hdr_type_etc);
    ASSERT_SAME_FIELD(prm_cqe64, vlan_info, mlx5_cqe64, vlan_info);
    ASSERT_SAME_FIELD(prm_cqe64, srqn_uidx, mlx5_cqe64, srqn_uidx);
    ASSERT_SAME_FIELD(prm_cqe64, imm_inval_pkey, mlx5_cqe64, imm_inval_pkey);
    ASSERT_SAME_FIELD(prm_cqe64, app, mlx5_cqe64, app);
    ASSERT_SAME_FIELD(prm_cqe64, app_op, mlx5_cqe64, app_op);
    ASSERT_SAME_FIELD(prm_cqe64, app_info, mlx5_cqe64, app_info);
    ASSERT_SAME_FIELD(prm_cqe64, byte_cnt, mlx5_cqe64, byte_cnt);
    ASSERT_SAME_FIELD(prm_cqe64, timestamp, mlx5_cqe64, timestamp);
    ASSERT_SAME_FIELD(prm_cqe64, sop_drop_qpn, mlx5_cqe64, sop_drop_qpn);
    ASSERT_SAME_FIELD(prm_cqe64, wqe_counter, mlx5_cqe64, wqe_counter);
    ASSERT_SAME_FIELD(prm_cqe64, signature, mlx5_cqe64, signature);
    ASSERT_SAME_FIELD(prm_cqe64, op_own, mlx5_cqe64, op_own);
    /* The PRM offsets, independently of rdma-core. */
    assert_int_equal(offsetof(struct prm_cqe64, imm_inval_pkey), 36);
    assert_int_equal(offsetof(struct prm_cqe64, byte_cnt), 44);
    assert_int_equal(offsetof(struct prm_cqe64, sop_drop_qpn), 56);
    assert_int_equal(offsetof(struct prm_cqe64, wqe_counter), 60);
    assert_int_equal(offsetof(struct prm_cqe64, signature), 62);
    assert_int_equal(offsetof(struct prm_cqe64, op_own), 63);

    assert_int_equal(sizeof(struct prm_cqe64_err), sizeof(struct mlx5_err_cqe));
    ASSERT_SAME_FIELD(prm_cqe64_err, srqn, mlx5_err_cqe, srqn);
    ASSERT_SAME_FIELD(prm_cqe64_err, vendor_err_synd, mlx5_err_cqe, vendor_err_synd);
    ASSERT_SAME_FIELD(prm_cqe64_err, syndrome, mlx5_err_cqe, syndrome);
    ASSERT_SAME_FIELD(prm_cqe64_err, s_wqe_opcode_qpn, mlx5_err_cqe, s_wqe_opcode_qpn);
    ASSERT_SAME_FIELD(prm_cqe64_err, wqe_counter, mlx5_err_cqe, wqe_counter);
    ASSERT_SAME_FIELD(prm_cqe64_err, signature, mlx5_err_cqe, signature);
    ASSERT_SAME_FIELD(prm_cqe64_err, op_own, mlx5_err_cqe, op_own);
    /* rdma-core keeps these two in its reserved bytes; the PRM places them here. */
    assert_int_equal(offsetof(struct prm_cqe64_err, hw_err_synd), 52);
    assert_int_equal(offsetof(struct prm_cqe64_err, hw_synd_type), 53);
    assert_int_equal(offsetof(struct prm_cqe64_err, vendor_err_synd), 54);
    assert_int_equal(offsetof(struct prm_cqe64_err, syndrome), 55);
}

static void test_constants_match_rdma_core(void **state)
{
    (void)state;
    assert_int_equal(PRM_CQE_OPCODE_REQ, MLX5_CQE_REQ);
    assert_int_equal(PRM_CQE_OPCODE_RESP_WR_IMM, MLX5_CQE_RESP_WR_IMM);
    assert_int_equal(PRM_CQE_OPCODE_RESP_SEND, MLX5_CQE_RESP_SEND);
    assert_int_equal(PRM_CQE_OPCODE_RESP_SEND_IMM, MLX5_CQE_RESP_SEND_IMM);
    assert_int_equal(PRM_CQE_OPCODE_RESP_SEND_INV, MLX5_CQE_RESP_SEND_INV);
    assert_int_equal(PRM_CQE_OPCODE_RESIZE_CQ, MLX5_CQE_RESIZE_CQ);
    assert_int_equal(PRM_CQE_OPCODE_NO_PACKET, MLX5_CQE_NO_PACKET);
    assert_int_equal(PRM_CQE_OPCODE_SIG_ERR, MLX5_CQE_SIG_ERR);
    assert_int_equal(PRM_CQE_OPCODE_REQ_ERR, MLX5_CQE_REQ_ERR);
    assert_int_equal(PRM_CQE_OPCODE_RESP_ERR, MLX5_CQE_RESP_ERR);
    assert_int_equal(PRM_CQE_OPCODE_INVALID, MLX5_CQE_INVALID);

    assert_int_equal(PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_LOCAL_PROT_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_WR_FLUSH_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_MW_BIND_ERR, MLX5_CQE_SYNDROME_MW_BIND_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_BAD_RESP_ERR, MLX5_CQE_SYNDROME_BAD_RESP_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_LOCAL_ACCESS_ERR, MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_REMOTE_OP_ERR, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
                     MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_RNR_RETRY_EXC_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
    assert_int_equal(PRM_CQE_SYNDROME_REMOTE_ABORTED_ERR, MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);

    assert_int_equal(PRM_CQE_OWNER_MASK, MLX5_CQE_OWNER_MASK);
    /* rdma-core spells the inline-scatter formats as op_own values. */
    assert_int_equal(PRM_CQE_FORMAT_INLINE_32 << PRM_CQE_FORMAT_SHIFT, MLX5_INLINE_SCATTER_32);
    assert_int_equal(PRM_CQE_FORMAT_INLINE_64 << PRM_CQE_FORMAT_SHIFT, MLX5_INLINE_SCATTER_64);
    assert_int_equal(PRM_CQE_FORMAT_COMPRESSED << PRM_CQE_FORMAT_SHIFT, PRM_CQE_FORMAT_MASK);
}

/* Every op_own value, with random bytes around it: our accessors read what rdma-core's read. */
static void test_accessors_match_rdma_core(void **state)
{
    (void)state;
    for (int round = 0; round < 64; round++) {
        for (int op_own = 0; op_own < 256; op_own++) {
            union cqe_buf buf;

            fill_random(&buf);
            buf.bytes[63] = (uint8_t)op_own;
            assert_int_equal(prm_cqe_opcode(&buf.ours), mlx5dv_get_cqe_opcode(&buf.theirs));
            assert_int_equal(prm_cqe_owner(&buf.ours), mlx5dv_get_cqe_owner(&buf.theirs));
            assert_int_equal(prm_cqe_se(&buf.ours), mlx5dv_get_cqe_se(&buf.theirs));
            assert_int_equal(prm_cqe_format(&buf.ours), mlx5dv_get_cqe_format(&buf.theirs));
            assert_int_equal(prm_cqe_is_compressed(&buf.ours),
                             mlx5dv_get_cqe_format(&buf.theirs) == 3);
            assert_int_equal(prm_cqe_is_error(&buf.ours),
                             mlx5dv_get_cqe_opcode(&buf.theirs) == MLX5_CQE_REQ_ERR ||
                                     mlx5dv_get_cqe_opcode(&buf.theirs) == MLX5_CQE_RESP_ERR);
            /* Fields with no mlx5dv accessor: read through rdma-core's struct. */
            assert_int_equal(prm_cqe_wqe_counter(&buf.ours), be16toh(buf.theirs.wqe_counter));
            assert_int_equal(prm_cqe_byte_cnt(&buf.ours), be32toh(buf.theirs.byte_cnt));
            assert_int_equal(prm_cqe_qpn(&buf.ours), be32toh(buf.theirs.sop_drop_qpn) & 0xffffff);
            assert_int_equal(prm_cqe_wqe_opcode(&buf.ours),
                             be32toh(buf.theirs_err.s_wqe_opcode_qpn) >> 24);
            assert_int_equal(prm_cqe_imm(&buf.ours), buf.theirs.imm_inval_pkey);
            assert_int_equal(prm_cqe_timestamp(&buf.ours), be64toh(buf.theirs.timestamp));
            assert_int_equal(prm_cqe_syndrome(&buf.ours), buf.theirs_err.syndrome);
            assert_int_equal(prm_cqe_vendor_syndrome(&buf.ours), buf.theirs_err.vendor_err_synd);
        }
    }
}

/* A CQE spelled out byte by byte from the PRM. */
static void test_accessors_on_known_bytes(void **state)
{
    union cqe_buf buf;

    (void)state;
    memset(&buf, 0, sizeof(buf));
    buf.bytes[36] = 0xaa; /* imm_inval_pkey */
    buf.bytes[39] = 0xbb;
    buf.bytes[44] = 0x00; /* byte_cnt 0x00012345 */
    buf.bytes[45] = 0x01;
    buf.bytes[46] = 0x23;
    buf.bytes[47] = 0x45;
    buf.bytes[55] = PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR;
    buf.bytes[54] = 0x88;
    buf.bytes[56] = 0x08; /* failed WQE: RDMA_WRITE */
    buf.bytes[57] = 0x12; /* qpn 0x123456 */
    buf.bytes[58] = 0x34;
    buf.bytes[59] = 0x56;
    buf.bytes[60] = 0xbe; /* wqe_counter 0xbeef */
    buf.bytes[61] = 0xef;
    buf.bytes[63] = 0xd1; /* REQ_ERR, uncompressed, owner 1 */

    assert_int_equal(prm_cqe_opcode(&buf.ours), PRM_CQE_OPCODE_REQ_ERR);
    assert_int_equal(prm_cqe_owner(&buf.ours), 1);
    assert_true(prm_cqe_is_error(&buf.ours));
    assert_false(prm_cqe_is_compressed(&buf.ours));
    assert_int_equal(prm_cqe_byte_cnt(&buf.ours), 0x12345);
    assert_int_equal(prm_cqe_qpn(&buf.ours), 0x123456);
    assert_int_equal(prm_cqe_wqe_opcode(&buf.ours), 0x08);
    assert_int_equal(prm_cqe_wqe_counter(&buf.ours), 0xbeef);
    assert_int_equal(prm_cqe_syndrome(&buf.ours), PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    assert_int_equal(prm_cqe_vendor_syndrome(&buf.ours), 0x88);
    assert_int_equal(be32toh(prm_cqe_imm(&buf.ours)), 0xaa0000bb);

    buf.bytes[63] = 0x2c; /* RESP_SEND, compressed, owner 0 */
    assert_true(prm_cqe_is_compressed(&buf.ours));
    assert_false(prm_cqe_is_error(&buf.ours));
    assert_int_equal(prm_cqe_owner(&buf.ours), 0);
}

static void test_set_owner_matches_rdma_core(void **state)
{
    static const uint8_t owners[] = {0, 1, 2, 3, 0xfe, 0xff};

    (void)state;
    for (int op_own = 0; op_own < 256; op_own++) {
        for (size_t i = 0; i < sizeof(owners); i++) {
            union cqe_buf ours;
            union cqe_buf theirs;

            fill_random(&ours);
            memcpy(&theirs, &ours, sizeof(ours));
            ours.bytes[63] = theirs.bytes[63] = (uint8_t)op_own;
            prm_cqe_set_owner(&ours.ours, owners[i]);
            mlx5dv_set_cqe_owner(&theirs.theirs, owners[i]);
            assert_memory_equal(&ours, &theirs, sizeof(ours));
        }
    }
}

/* rdma-core's poll test, written independently: HW-owned when owner != !!(ci & cqe_count). */
static int oracle_sw_owned(uint8_t op_own, uint64_t ci, uint32_t log_size)
{
    uint64_t cqe_count = 1ull << log_size;

    if ((op_own >> 4) == MLX5_CQE_INVALID)
        return 0;
    return !((op_own & MLX5_CQE_OWNER_MASK) ^ !!(ci & cqe_count));
}

static void test_sw_owned_over_wraps(void **state)
{
    static const uint32_t logs[] = {0, 1, 2, 5};

    (void)state;
    for (size_t l = 0; l < sizeof(logs) / sizeof(logs[0]); l++) {
        uint32_t log_size = logs[l];
        uint32_t count = 1u << log_size;
        union cqe_buf *ring = calloc(count, sizeof(*ring));

        assert_non_null(ring);
        /* A new CQ: every entry invalid with owner 0, so nothing is software-owned. */
        for (uint32_t i = 0; i < count; i++)
            ring[i].bytes[63] = PRM_CQE_OPCODE_INVALID << PRM_CQE_OPCODE_SHIFT;
        for (uint64_t ci = 0; ci < count; ci++)
            assert_false(prm_cqe_sw_owned(&ring[ci & (count - 1)].ours, ci, log_size));

        /* Producer and consumer in step over five passes of the ring. */
        for (uint64_t n = 0; n < 5ull * count; n++) {
            union cqe_buf *slot = &ring[n & (count - 1)];

            /* Before the producer writes entry n, the consumer at n sees last pass's CQE. */
            assert_false(prm_cqe_sw_owned(&slot->ours, n, log_size));
            assert_int_equal(prm_cqe_sw_owned(&slot->ours, n, log_size),
                             oracle_sw_owned(slot->bytes[63], n, log_size));

            uint8_t op_own = prm_cqe_fill_req(&slot->ours, 0x08, 0x42, (uint16_t)n, 0,
                                              prm_cqe_owner_for_index(n, log_size));
            slot->bytes[63] = op_own;
            assert_true(prm_cqe_sw_owned(&slot->ours, n, log_size));
            assert_true(prm_cqe_op_own_sw_owned(op_own, n, log_size));
            assert_int_equal(prm_cqe_sw_owned(&slot->ours, n, log_size),
                             oracle_sw_owned(op_own, n, log_size));
            /* The same entry seen from the next or previous pass is not new. */
            assert_false(prm_cqe_sw_owned(&slot->ours, n + count, log_size));
            if (n >= count)
                assert_false(prm_cqe_sw_owned(&slot->ours, n - count, log_size));
        }

        /* Exhaustively against the oracle, counters across 32-bit wrap included. */
        static const uint64_t bases[] = {0, 0xfffffff0ull, 0xfffffffffffffff0ull};
        for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++)
            for (uint64_t ci = bases[b]; ci - bases[b] < 64; ci++)
                for (int op_own = 0; op_own < 256; op_own++)
                    assert_int_equal(prm_cqe_op_own_sw_owned((uint8_t)op_own, ci, log_size),
                                     oracle_sw_owned((uint8_t)op_own, ci, log_size));
        free(ring);
    }
}

static void test_fill_req(void **state)
{
    union cqe_buf buf;

    (void)state;
    memset(&buf, 0xa5, sizeof(buf));
    uint8_t op_own = prm_cqe_fill_req(&buf.ours, 0x12 /* ATOMIC_FA */, 0xabcdef, 0xffff, 8, 1);

    /* Everything but op_own written, op_own left to the caller. */
    assert_int_equal(buf.bytes[63], 0xa5);
    assert_int_equal(op_own, 0x01);
    buf.bytes[63] = op_own;
    assert_int_equal(mlx5dv_get_cqe_opcode(&buf.theirs), MLX5_CQE_REQ);
    assert_int_equal(mlx5dv_get_cqe_owner(&buf.theirs), 1);
    assert_int_equal(mlx5dv_get_cqe_format(&buf.theirs), 0);
    assert_int_equal(be32toh(buf.theirs.sop_drop_qpn), 0x12abcdef);
    assert_int_equal(be16toh(buf.theirs.wqe_counter), 0xffff);
    assert_int_equal(be32toh(buf.theirs.byte_cnt), 8);
    for (size_t i = 0; i < offsetof(struct mlx5_cqe64, byte_cnt); i++)
        assert_int_equal(buf.bytes[i], 0);
    assert_int_equal(buf.theirs.timestamp, 0);
    assert_int_equal(buf.theirs.signature, 0);
}

static void test_fill_resp(void **state)
{
    union cqe_buf buf;
    const uint8_t imm_bytes[4] = {0x01, 0x02, 0x03, 0x04};
    uint32_t imm;

    (void)state;
    memcpy(&imm, imm_bytes, sizeof(imm));
    memset(&buf, 0xa5, sizeof(buf));
    uint8_t op_own = prm_cqe_fill_resp(&buf.ours, PRM_CQE_OPCODE_RESP_WR_IMM, 0x000001, 0,
                                       0x40000000, imm, 0);

    assert_int_equal(buf.bytes[63], 0xa5);
    buf.bytes[63] = op_own;
    assert_int_equal(mlx5dv_get_cqe_opcode(&buf.theirs), MLX5_CQE_RESP_WR_IMM);
    assert_int_equal(mlx5dv_get_cqe_owner(&buf.theirs), 0);
    /* The immediate keeps wire order: its bytes sit in the CQE as given. */
    assert_memory_equal(&buf.bytes[offsetof(struct mlx5_cqe64, imm_inval_pkey)], imm_bytes, 4);
    assert_int_equal(be32toh(buf.theirs.byte_cnt), 0x40000000);
    assert_int_equal(be32toh(buf.theirs.sop_drop_qpn) & 0xffffff, 1);
    assert_int_equal(be16toh(buf.theirs.wqe_counter), 0);
    assert_int_equal(buf.theirs.srqn_uidx, 0);
}

static void test_fill_error(void **state)
{
    union cqe_buf buf;

    (void)state;
    memset(&buf, 0xa5, sizeof(buf));
    uint8_t op_own = prm_cqe_fill_error(&buf.ours, PRM_CQE_OPCODE_REQ_ERR,
                                        PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, 0x88, 0x10 /* READ */,
                                        0xfedcba, 0x1234, 1);

    assert_int_equal(buf.bytes[63], 0xa5);
    assert_int_equal(op_own, 0xd1);
    buf.bytes[63] = op_own;
    assert_int_equal(mlx5dv_get_cqe_opcode(&buf.theirs), MLX5_CQE_REQ_ERR);
    assert_int_equal(buf.theirs_err.syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    assert_int_equal(buf.theirs_err.vendor_err_synd, 0x88);
    assert_int_equal(be32toh(buf.theirs_err.s_wqe_opcode_qpn), 0x10fedcba);
    assert_int_equal(be16toh(buf.theirs_err.wqe_counter), 0x1234);
    assert_int_equal(buf.theirs_err.srqn, 0);
    assert_true(prm_cqe_is_error(&buf.ours));
    assert_int_equal(prm_cqe_syndrome(&buf.ours), PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);

    /* Flush errors on the responder side, qpn truncated to 24 bits. */
    memset(&buf, 0xa5, sizeof(buf));
    buf.bytes[63] = prm_cqe_fill_error(&buf.ours, PRM_CQE_OPCODE_RESP_ERR,
                                       PRM_CQE_SYNDROME_WR_FLUSH_ERR, 0, 0, 0xff000001, 0, 0);
    assert_int_equal(mlx5dv_get_cqe_opcode(&buf.theirs), MLX5_CQE_RESP_ERR);
    assert_int_equal(buf.theirs_err.syndrome, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
    assert_int_equal(be32toh(buf.theirs_err.s_wqe_opcode_qpn), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_layout_matches_rdma_core),
            cmocka_unit_test(test_constants_match_rdma_core),
            cmocka_unit_test(test_accessors_match_rdma_core),
            cmocka_unit_test(test_accessors_on_known_bytes),
            cmocka_unit_test(test_set_owner_matches_rdma_core),
            cmocka_unit_test(test_sw_owned_over_wraps),
            cmocka_unit_test(test_fill_req),
            cmocka_unit_test(test_fill_resp),
            cmocka_unit_test(test_fill_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
