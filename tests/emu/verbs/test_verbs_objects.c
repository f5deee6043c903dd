/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The standard-verbs objects beyond the basic QP: an extended CQ read with
 * ibv_start_poll/next_poll and the read_* accessors, an SRQ feeding a QP's
 * receives, a registration at a chosen IOVA (ibv_reg_mr_iova2) reached by a
 * remote write, and address handles. Two QPs of one device.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
#define IOVA   0x7700000000ull

/* B: its QP takes receives from an SRQ, and both its queues complete on an extended CQ. */
struct srq_end {
    struct ibv_cq_ex *cq;
    struct ibv_srq *srq;
    struct ibv_qp *qp;
    uint8_t *buf;
    struct ibv_mr *mr;      /* the buffer at its own address */
    struct ibv_mr *mr_iova; /* the same buffer at IOVA */
};

static int srq_end_create(struct vu_ctx *c, struct srq_end *b)
{
    struct ibv_cq_init_attr_ex cq_attr = {
            .cqe = 16,
            .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM,
    };
    struct ibv_srq_init_attr srq_attr = {.attr = {.max_wr = 8, .max_sge = 1}};
    struct ibv_qp_init_attr qp_attr;

    memset(b, 0, sizeof(*b));
    b->cq = ibv_create_cq_ex(c->ctx, &cq_attr);
    b->srq = ibv_create_srq(c->pd, &srq_attr);
    b->buf = aligned_alloc(4096, VU_BUF_SIZE);
    if (b->cq == NULL || b->srq == NULL || b->buf == NULL)
        return -1;
    memset(b->buf, 0, VU_BUF_SIZE);
    b->mr = ibv_reg_mr(c->pd, b->buf, VU_BUF_SIZE, ACCESS);
    b->mr_iova = ibv_reg_mr_iova2(c->pd, b->buf, VU_BUF_SIZE, IOVA, ACCESS);
    memset(&qp_attr, 0, sizeof(qp_attr));
    qp_attr.send_cq = ibv_cq_ex_to_cq(b->cq);
    qp_attr.recv_cq = ibv_cq_ex_to_cq(b->cq);
    qp_attr.srq = b->srq;
    qp_attr.qp_type = IBV_QPT_RC;
    qp_attr.cap.max_send_wr = 8;
    qp_attr.cap.max_send_sge = 1;
    b->qp = ibv_create_qp(c->pd, &qp_attr);
    return b->mr == NULL || b->mr_iova == NULL || b->qp == NULL ? -1 : 0;
}

static void srq_end_destroy(struct srq_end *b)
{
    ibv_destroy_qp(b->qp);
    ibv_dereg_mr(b->mr_iova);
    ibv_dereg_mr(b->mr);
    ibv_destroy_srq(b->srq);
    ibv_destroy_cq(ibv_cq_ex_to_cq(b->cq));
    free(b->buf);
}

static void post_srq(struct srq_end *b, uint64_t wr_id, uint32_t off)
{
    struct ibv_sge sge = {(uintptr_t)b->buf + off, 4096, b->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;

    VU_CHECK(ibv_post_srq_recv(b->srq, &wr, &bad) == 0, "post_srq_recv");
}

/* Waits for one completion on the extended CQ and checks it with the read_* accessors. */
static void expect_cq_ex(struct srq_end *b, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
                         uint32_t imm)
{
    struct ibv_poll_cq_attr attr = {0};
    int rc = ENOENT;

    for (int spin = 0; spin < 5000000 && rc == ENOENT; spin++)
        rc = ibv_start_poll(b->cq, &attr);
    VU_CHECK(rc == 0, "extended CQ: no completion (%d)", rc);
    if (rc != 0)
        return;
    VU_CHECK(b->cq->status == IBV_WC_SUCCESS, "status %d", b->cq->status);
    VU_CHECK(b->cq->wr_id == wr_id, "wr_id %lu, expected %lu", (unsigned long)b->cq->wr_id,
             (unsigned long)wr_id);
    VU_CHECK(ibv_wc_read_opcode(b->cq) == op, "opcode %d", ibv_wc_read_opcode(b->cq));
    VU_CHECK(ibv_wc_read_byte_len(b->cq) == len, "byte_len %u", ibv_wc_read_byte_len(b->cq));
    VU_CHECK(ibv_wc_read_qp_num(b->cq) == b->qp->qp_num, "qp_num 0x%x", ibv_wc_read_qp_num(b->cq));
    if (op == IBV_WC_RECV_RDMA_WITH_IMM)
        VU_CHECK(be32toh(ibv_wc_read_imm_data(b->cq)) == imm, "imm 0x%x",
                 be32toh(ibv_wc_read_imm_data(b->cq)));
    VU_CHECK(ibv_next_poll(b->cq) == ENOENT, "a second completion");
    ibv_end_poll(b->cq);
}

int main(void)
{
    struct vu_ctx c;
    struct vu_end a;
    struct srq_end b;
    struct vu_info ia, ib;
    struct ibv_wc wc;

    if (vu_open(&c) != 0 || vu_end_create(&c, &a, 16, 16, 4, ACCESS) != 0 ||
        srq_end_create(&c, &b) != 0) {
        fprintf(stderr, "FAIL: cannot create the objects\n");
        return 1;
    }
    vu_info_of(&c, &a, &ia);
    ib.qpn = b.qp->qp_num;
    ib.rkey = b.mr->rkey;
    ib.addr = (uintptr_t)b.buf;
    ib.gid = ia.gid;
    VU_CHECK(vu_connect(&a, &ib, ACCESS, 7) == 0, "connect A");
    VU_CHECK(vu_connect((struct vu_end *)&(struct vu_end){.qp = b.qp}, &ia, ACCESS, 7) == 0,
             "connect B");

    /* Two sends land in the SRQ's buffers, in posting order. */
    post_srq(&b, 101, 0);
    post_srq(&b, 102, 4096);
    for (int i = 0; i < 2; i++) {
        memset(a.buf + 8192, 0x30 + i, 1000);
        VU_CHECK(vu_post(&a, IBV_WR_SEND, i, 8192, 1000, &ib, 0, IBV_SEND_SIGNALED) == 0,
                 "post send");
        VU_CHECK(vu_wait(a.cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS, "send completion");
        expect_cq_ex(&b, 101 + i, IBV_WC_RECV, 1000, 0);
    }
    VU_CHECK(b.buf[0] == 0x30 && b.buf[999] == 0x30 && b.buf[4096] == 0x31 &&
                     b.buf[4096 + 999] == 0x31,
             "SRQ receive data");

    /* A write with immediate through the IOVA registration consumes an SRQ receive. */
    struct vu_info at_iova = ib;

    at_iova.rkey = b.mr_iova->rkey;
    at_iova.addr = IOVA;
    post_srq(&b, 103, 8192);
    memset(a.buf + 16384, 0x5c, 512);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE_WITH_IMM, 7, 16384, 512, &at_iova, 65536,
                     IBV_SEND_SIGNALED) == 0,
             "post write with immediate at the IOVA");
    VU_CHECK(vu_wait(a.cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS, "write completion");
    expect_cq_ex(&b, 103, IBV_WC_RECV_RDMA_WITH_IMM, 512, 0x1234abcd);
    VU_CHECK(b.buf[65536] == 0x5c && b.buf[65536 + 511] == 0x5c && b.buf[65536 + 512] == 0,
             "data written at IOVA + 65536");

    /* Address handles: made from the port's GID and destroyed. */
    struct ibv_ah_attr ah_attr = {.is_global = 1, .port_num = 1, .grh = {.dgid = ia.gid}};
    struct ibv_ah *ah = ibv_create_ah(c.pd, &ah_attr);

    VU_CHECK(ah != NULL, "ibv_create_ah");
    if (ah != NULL)
        VU_CHECK(ibv_destroy_ah(ah) == 0, "ibv_destroy_ah");

    srq_end_destroy(&b);
    vu_end_destroy(&a);
    vu_close(&c);
    return vu_summary("objects");
}
