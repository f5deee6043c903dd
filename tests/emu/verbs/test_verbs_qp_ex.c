/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended QP interface on softmlx5: every ibv_wr_* builder between two
 * RC QPs of one device, one made with ibv_create_qp_ex (send_ops_flags) and
 * one with mlx5dv_create_qp, data checked byte for byte: write, write with
 * immediate (the immediate received), read, send, send with immediate, both
 * atomics (the old value returned), gather lists, inline data and inline
 * lists, several requests in one batch; wr_abort posts nothing, a batch that
 * overflows the send queue fails with ENOMEM and posts nothing, calls RC does
 * not offer fail wr_complete, as does a QP not ready to send; ibv_qp_to_qp_ex and
 * mlx5dv_qp_ex_from_ibv_qp_ex.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <string.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define SEND_OPS                                                                                   \
    (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |        \
     IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define SQ_DEPTH 16
#define SRC_OFF  0u
#define DST_OFF  (256u << 10)
#define IMM      0x5eed1234u

struct pair {
    struct vu_ctx c;
    struct vu_end a, b; /* a: ibv_create_qp_ex, b: mlx5dv_create_qp */
    struct vu_info ia, ib;
    struct ibv_qp_ex *x;
};

static void fill(uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + i * 13);
}

static bool same(const uint8_t *p, const uint8_t *q, uint32_t len)
{
    return memcmp(p, q, len) == 0;
}

static struct ibv_qp *make_dv_qp(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a)
{
    struct mlx5dv_qp_init_attr dv = {.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS};

    return mlx5dv_create_qp(ctx, a, &dv);
}

static int pair_open(struct pair *p)
{
    struct ibv_qp_cap cap = {.max_send_wr = SQ_DEPTH,
                             .max_recv_wr = 16,
                             .max_send_sge = 4,
                             .max_recv_sge = 1,
                             .max_inline_data = 128};

    memset(p, 0, sizeof(*p));
    if (vu_open(&p->c) != 0 ||
        vu_end_create_ex(&p->c, &p->a, 64, &cap, ACCESS_ALL, SEND_OPS, NULL) != 0 ||
        vu_end_create_ex(&p->c, &p->b, 64, &cap, ACCESS_ALL, SEND_OPS, make_dv_qp) != 0)
        return -1;
    vu_info_of(&p->c, &p->a, &p->ia);
    vu_info_of(&p->c, &p->b, &p->ib);
    if (vu_connect(&p->a, &p->ib, ACCESS_ALL, 7) != 0 ||
        vu_connect(&p->b, &p->ia, ACCESS_ALL, 7) != 0)
        return -1;
    p->x = ibv_qp_to_qp_ex(p->a.qp);
    return p->x == NULL ? -1 : 0;
}

static void pair_close(struct pair *p)
{
    vu_end_destroy(&p->a);
    vu_end_destroy(&p->b);
    vu_close(&p->c);
}

/* Waits for one completion of wr_id on cq; its status, or -1. */
static int wait_wc(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *wc)
{
    if (vu_wait(cq, wc, 5000) != 1 || wc->wr_id != wr_id)
        return -1;
    return wc->status;
}

static void start(struct pair *p, uint64_t wr_id)
{
    ibv_wr_start(p->x);
    p->x->wr_id = wr_id;
    p->x->wr_flags = IBV_SEND_SIGNALED;
}

static void test_write(struct pair *p)
{
    struct ibv_wc wc;

    fill(p->a.buf + SRC_OFF, 5000, 1);
    start(p, 11);
    ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF, 5000);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a write");
    VU_CHECK(wait_wc(p->a.cq, 11, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE,
             "write completes");
    VU_CHECK(same(p->b.buf + DST_OFF, p->a.buf + SRC_OFF, 5000), "write data byte for byte");
}

static void test_write_imm(struct pair *p)
{
    struct ibv_wc wc;

    fill(p->a.buf + SRC_OFF, 777, 2);
    VU_CHECK(vu_post_recv(&p->b, 21, 0, 0) == 0, "receive for the immediate posted");
    start(p, 22);
    ibv_wr_rdma_write_imm(p->x, p->ib.rkey, p->ib.addr + DST_OFF, htonl(IMM));
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF, 777);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a write with immediate");
    VU_CHECK(wait_wc(p->a.cq, 22, &wc) == IBV_WC_SUCCESS, "write with immediate completes");
    VU_CHECK(wait_wc(p->b.cq, 21, &wc) == IBV_WC_SUCCESS &&
                     wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) &&
                     ntohl(wc.imm_data) == IMM,
             "the responder receives the immediate (0x%x)", ntohl(wc.imm_data));
    VU_CHECK(same(p->b.buf + DST_OFF, p->a.buf + SRC_OFF, 777), "write-imm data byte for byte");
}

static void test_read(struct pair *p)
{
    struct ibv_wc wc;

    fill(p->b.buf + DST_OFF, 9000, 3);
    memset(p->a.buf + SRC_OFF, 0, 9000);
    start(p, 31);
    ibv_wr_rdma_read(p->x, p->ib.rkey, p->ib.addr + DST_OFF);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF, 9000);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a read");
    VU_CHECK(wait_wc(p->a.cq, 31, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_READ,
             "read completes");
    VU_CHECK(same(p->a.buf + SRC_OFF, p->b.buf + DST_OFF, 9000), "read data byte for byte");
}

/* A send of three gather entries (wr_set_sge_list) and a send with immediate of inline pieces. */
static void test_send(struct pair *p)
{
    struct ibv_sge list[3] = {{(uintptr_t)p->a.buf + 100, 10, p->a.mr->lkey},
                              {(uintptr_t)p->a.buf + 3000, 1000, p->a.mr->lkey},
                              {(uintptr_t)p->a.buf + 50000, 1, p->a.mr->lkey}};
    uint8_t expect[1011], piece1[40], piece2[60];
    struct ibv_data_buf inl[2] = {{piece1, sizeof(piece1)}, {piece2, sizeof(piece2)}};
    struct ibv_wc wc;

    fill(p->a.buf, 60000, 4);
    memcpy(expect, p->a.buf + 100, 10);
    memcpy(expect + 10, p->a.buf + 3000, 1000);
    memcpy(expect + 1010, p->a.buf + 50000, 1);
    memset(p->b.buf + DST_OFF, 0, 4096);
    VU_CHECK(vu_post_recv(&p->b, 41, DST_OFF, 4096) == 0, "receive posted");
    start(p, 42);
    ibv_wr_send(p->x);
    ibv_wr_set_sge_list(p->x, 3, list);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a send");
    VU_CHECK(wait_wc(p->a.cq, 42, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND,
             "send completes");
    VU_CHECK(wait_wc(p->b.cq, 41, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
                     wc.byte_len == sizeof(expect),
             "send received (%u bytes)", wc.byte_len);
    VU_CHECK(same(p->b.buf + DST_OFF, expect, sizeof(expect)), "gather list byte for byte");

    fill(piece1, sizeof(piece1), 5);
    fill(piece2, sizeof(piece2), 6);
    VU_CHECK(vu_post_recv(&p->b, 43, DST_OFF, 4096) == 0, "receive posted");
    start(p, 44);
    ibv_wr_send_imm(p->x, htonl(IMM + 1));
    ibv_wr_set_inline_data_list(p->x, 2, inl);
    /* Inline data is copied when set: changing the buffers now changes nothing sent. */
    memset(piece1, 0xee, sizeof(piece1));
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of an inline send with immediate");
    fill(piece1, sizeof(piece1), 5);
    VU_CHECK(wait_wc(p->a.cq, 44, &wc) == IBV_WC_SUCCESS, "inline send completes");
    VU_CHECK(wait_wc(p->b.cq, 43, &wc) == IBV_WC_SUCCESS && wc.byte_len == 100 &&
                     (wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == IMM + 1,
             "inline send with immediate received (%u bytes)", wc.byte_len);
    VU_CHECK(same(p->b.buf + DST_OFF, piece1, sizeof(piece1)) &&
                     same(p->b.buf + DST_OFF + sizeof(piece1), piece2, sizeof(piece2)),
             "inline list byte for byte");
}

static void test_inline_write(struct pair *p)
{
    uint8_t data[97];
    struct ibv_wc wc;

    fill(data, sizeof(data), 7);
    start(p, 51);
    ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF + 8);
    ibv_wr_set_inline_data(p->x, data, sizeof(data));
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of an inline write");
    VU_CHECK(wait_wc(p->a.cq, 51, &wc) == IBV_WC_SUCCESS, "inline write completes");
    VU_CHECK(same(p->b.buf + DST_OFF + 8, data, sizeof(data)), "inline write byte for byte");
}

static void test_atomics(struct pair *p)
{
    uint64_t *target = (uint64_t *)(p->b.buf + DST_OFF);
    uint64_t *old = (uint64_t *)(p->a.buf + SRC_OFF);
    struct ibv_wc wc;

    *target = htobe64(1000);
    start(p, 61);
    ibv_wr_atomic_fetch_add(p->x, p->ib.rkey, p->ib.addr + DST_OFF, 234);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)old, 8);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a fetch-add");
    VU_CHECK(wait_wc(p->a.cq, 61, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_FETCH_ADD,
             "fetch-add completes");
    VU_CHECK(be64toh(*old) == 1000 && be64toh(*target) == 1234, "fetch-add: old %lu, now %lu",
             (unsigned long)be64toh(*old), (unsigned long)be64toh(*target));

    start(p, 62);
    ibv_wr_atomic_cmp_swp(p->x, p->ib.rkey, p->ib.addr + DST_OFF, 1234, 0xabcdef);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)old, 8);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a compare-swap");
    VU_CHECK(wait_wc(p->a.cq, 62, &wc) == IBV_WC_SUCCESS && wc.opcode == IBV_WC_COMP_SWAP,
             "compare-swap completes");
    VU_CHECK(be64toh(*old) == 1234 && be64toh(*target) == 0xabcdef,
             "compare-swap: old %lu, now 0x%lx", (unsigned long)be64toh(*old),
             (unsigned long)be64toh(*target));

    start(p, 63);
    ibv_wr_atomic_cmp_swp(p->x, p->ib.rkey, p->ib.addr + DST_OFF, 1, 2);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)old, 8);
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a failing compare-swap");
    VU_CHECK(wait_wc(p->a.cq, 63, &wc) == IBV_WC_SUCCESS && be64toh(*old) == 0xabcdef &&
                     be64toh(*target) == 0xabcdef,
             "a compare that differs leaves the target and returns it");
}

/* Several requests in one batch, the first ones unsignaled: all land, in order. */
static void test_batch(struct pair *p)
{
    struct ibv_wc wc;

    fill(p->a.buf + SRC_OFF, 4 * 512, 8);
    memset(p->b.buf + DST_OFF, 0, 4 * 512);
    ibv_wr_start(p->x);
    for (uint32_t i = 0; i < 4; i++) {
        p->x->wr_id = 70 + i;
        p->x->wr_flags = i == 3 ? IBV_SEND_SIGNALED : 0;
        ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF + i * 512);
        ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF + i * 512, 512);
    }
    VU_CHECK(ibv_wr_complete(p->x) == 0, "wr_complete of a batch of 4");
    VU_CHECK(wait_wc(p->a.cq, 73, &wc) == IBV_WC_SUCCESS, "the batch's signaled WQE completes");
    VU_CHECK(same(p->b.buf + DST_OFF, p->a.buf + SRC_OFF, 4 * 512), "batch data byte for byte");
}

/* Nothing completes on a's CQ and the target keeps its bytes. */
static void expect_nothing_posted(struct pair *p, const char *what)
{
    struct ibv_wc wc;

    VU_CHECK(vu_wait(p->a.cq, &wc, 100) == 0, "%s: no completion", what);
    VU_CHECK(p->b.buf[DST_OFF] == 0x5a, "%s: the target is untouched", what);
}

static void test_abort_and_errors(struct pair *p)
{
    uint8_t one = 1;
    int err;

    memset(p->b.buf + DST_OFF, 0x5a, 64);
    memset(p->a.buf + SRC_OFF, 0x11, 64);
    start(p, 81);
    ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF, 64);
    ibv_wr_abort(p->x);
    expect_nothing_posted(p, "wr_abort");

    /* More requests than the send queue holds: ENOMEM, and none of them is posted. */
    ibv_wr_start(p->x);
    p->x->wr_flags = IBV_SEND_SIGNALED;
    for (int i = 0; i < 4 * SQ_DEPTH * 16; i++) {
        p->x->wr_id = 1000 + (uint64_t)i;
        ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF);
        ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf + SRC_OFF, 64);
    }
    err = ibv_wr_complete(p->x);
    VU_CHECK(err == ENOMEM, "a batch overflowing the send queue: %d (ENOMEM expected)", err);
    expect_nothing_posted(p, "overflowing batch");

    /* An RC QP has no UD address: the batch fails with EINVAL. */
    start(p, 82);
    ibv_wr_send(p->x);
    ibv_wr_set_ud_addr(p->x, NULL, 1, 1);
    ibv_wr_set_inline_data(p->x, &one, 1);
    err = ibv_wr_complete(p->x);
    VU_CHECK(err == EINVAL, "wr_set_ud_addr on RC: %d (EINVAL expected)", err);
    /* Memory windows are not offered: EOPNOTSUPP. */
    start(p, 83);
    ibv_wr_local_inv(p->x, 5);
    err = ibv_wr_complete(p->x);
    VU_CHECK(err == EOPNOTSUPP, "wr_local_inv: %d (EOPNOTSUPP expected)", err);
    /* A data call with no operation before it. */
    start(p, 84);
    ibv_wr_set_sge(p->x, p->a.mr->lkey, (uintptr_t)p->a.buf, 8);
    err = ibv_wr_complete(p->x);
    VU_CHECK(err == EINVAL, "wr_set_sge without an operation: %d (EINVAL expected)", err);
    /* Missing lists, and more inline data than the QP holds. */
    start(p, 85);
    ibv_wr_send(p->x);
    ibv_wr_set_sge_list(p->x, 2, NULL);
    VU_CHECK(ibv_wr_complete(p->x) == EINVAL, "wr_set_sge_list of no list: EINVAL");
    start(p, 86);
    ibv_wr_send(p->x);
    ibv_wr_set_inline_data_list(p->x, 1, NULL);
    VU_CHECK(ibv_wr_complete(p->x) == EINVAL, "wr_set_inline_data_list of no list: EINVAL");
    start(p, 87);
    ibv_wr_rdma_write(p->x, p->ib.rkey, p->ib.addr + DST_OFF);
    ibv_wr_set_inline_data(p->x, p->a.buf, 4096);
    VU_CHECK(ibv_wr_complete(p->x) == EINVAL, "4096 inline bytes (more than max_inline): EINVAL");
    expect_nothing_posted(p, "refused batches");
    /* wr_complete with no wr_start. */
    VU_CHECK(ibv_wr_complete(p->x) == EINVAL, "wr_complete without wr_start is refused");

    /* After all that the queue works. */
    test_write(p);
}

static void test_dv(struct pair *p)
{
    struct ibv_qp_ex *bx = ibv_qp_to_qp_ex(p->b.qp);
    struct mlx5dv_qp_ex *dv = bx != NULL ? mlx5dv_qp_ex_from_ibv_qp_ex(bx) : NULL;
    struct ibv_qp_init_attr_ex a;
    struct mlx5dv_qp_init_attr dva;
    struct ibv_wc wc;

    VU_CHECK(bx != NULL && &bx->qp_base == p->b.qp, "ibv_qp_to_qp_ex of an mlx5dv_create_qp QP");
    VU_CHECK(p->x != NULL && &p->x->qp_base == p->a.qp, "qp_base of the extended QP is the QP");
    VU_CHECK(dv != NULL, "mlx5dv_qp_ex_from_ibv_qp_ex");
    if (dv == NULL)
        return;
    /* b, the mlx5dv QP, writes to a with the standard builders. */
    fill(p->b.buf + SRC_OFF, 300, 9);
    ibv_wr_start(bx);
    bx->wr_id = 91;
    bx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(bx, p->ia.rkey, p->ia.addr + DST_OFF);
    ibv_wr_set_sge(bx, p->b.mr->lkey, (uintptr_t)p->b.buf + SRC_OFF, 300);
    VU_CHECK(ibv_wr_complete(bx) == 0, "the mlx5dv QP's write");
    VU_CHECK(wait_wc(p->b.cq, 91, &wc) == IBV_WC_SUCCESS, "the mlx5dv QP's write completes");
    VU_CHECK(same(p->a.buf + DST_OFF, p->b.buf + SRC_OFF, 300), "its data byte for byte");
    /* mlx5's own builders are not offered. */
    ibv_wr_start(bx);
    mlx5dv_wr_memcpy(dv, p->b.mr->lkey, (uintptr_t)p->b.buf, p->b.mr->lkey,
                     (uintptr_t)p->b.buf + 64, 8);
    VU_CHECK(ibv_wr_complete(bx) == EOPNOTSUPP, "mlx5dv_wr_memcpy fails the batch");

    /* Creation refusals. */
    memset(&a, 0, sizeof(a));
    a.qp_type = IBV_QPT_RC;
    a.send_cq = a.recv_cq = p->a.cq;
    a.pd = p->c.pd;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    a.send_ops_flags = IBV_QP_EX_WITH_BIND_MW;
    errno = 0;
    VU_CHECK(ibv_create_qp_ex(p->c.ctx, &a) == NULL && errno == EOPNOTSUPP,
             "send_ops_flags with BIND_MW refused with EOPNOTSUPP");
    memset(&dva, 0, sizeof(dva));
    dva.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
    a.send_ops_flags = IBV_QP_EX_WITH_SEND;
    errno = 0;
    VU_CHECK(mlx5dv_create_qp(p->c.ctx, &a, &dva) == NULL && errno == EINVAL,
             "mlx5dv_create_qp of a DC QP of qp_type RC refused with EINVAL");
    dva.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
    dva.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
    a.qp_type = IBV_QPT_DRIVER;
    errno = 0;
    VU_CHECK(mlx5dv_create_qp(p->c.ctx, &a, &dva) == NULL && errno == EOPNOTSUPP,
             "mlx5dv_create_qp of a DCI with streams refused with EOPNOTSUPP");
    a.qp_type = IBV_QPT_RC;
    dva.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
    dva.send_ops_flags = MLX5DV_QP_EX_WITH_RAW_WQE;
    errno = 0;
    VU_CHECK(mlx5dv_create_qp(p->c.ctx, &a, &dva) == NULL && errno == EOPNOTSUPP,
             "mlx5dv_create_qp with mlx5 send ops refused with EOPNOTSUPP");
}

static void test_plain_and_reset_qps(struct pair *p)
{
    struct ibv_qp_cap cap = {
            .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1};
    struct ibv_qp_ex *rx;
    struct vu_end e;
    struct ibv_wc wc;

    VU_CHECK(vu_end_create(&p->c, &e, 8, 4, 4, ACCESS_ALL) == 0, "a plain QP");
    errno = 0;
    VU_CHECK(ibv_qp_to_qp_ex(e.qp) == NULL && errno == EINVAL,
             "ibv_qp_to_qp_ex of a QP made without send_ops_flags: NULL, EINVAL");
    vu_end_destroy(&e);

    /* An extended QP still in RESET cannot send: wr_complete refuses, as ibv_post_send does. */
    VU_CHECK(vu_end_create_ex(&p->c, &e, 8, &cap, ACCESS_ALL, IBV_QP_EX_WITH_SEND, NULL) == 0,
             "an extended QP");
    rx = ibv_qp_to_qp_ex(e.qp);
    VU_CHECK(rx != NULL, "its extended interface");
    if (rx != NULL) {
        ibv_wr_start(rx);
        rx->wr_id = 1;
        rx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_send(rx);
        ibv_wr_set_sge(rx, e.mr->lkey, (uintptr_t)e.buf, 8);
        VU_CHECK(ibv_wr_complete(rx) == EINVAL, "wr_complete on a QP in RESET: EINVAL");
        VU_CHECK(vu_wait(e.cq, &wc, 50) == 0, "and nothing was posted");
    }
    vu_end_destroy(&e);
}

int main(void)
{
    struct pair p;

    if (pair_open(&p) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    test_write(&p);
    test_write_imm(&p);
    test_read(&p);
    test_send(&p);
    test_inline_write(&p);
    test_atomics(&p);
    test_batch(&p);
    test_abort_and_errors(&p);
    test_dv(&p);
    test_plain_and_reset_qps(&p);
    pair_close(&p);
    return vu_summary("test_verbs_qp_ex");
}
