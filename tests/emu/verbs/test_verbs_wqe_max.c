/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The largest send WQEs ibv_post_send can build: an RDMA write and a send
 * gathering max_sge entries, and an RDMA write and a send of the QP's whole
 * max_inline_data. Each must complete and place every byte where it belongs.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define PIECE    37    /* bytes per gather entry: odd, so entries do not line up */
#define RECV_OFF 65536 /* where receives land in the responder's buffer */

static struct vu_ctx c;

/* An end whose QP takes max_sge gather entries and inline_req inline bytes. */
static int end_create(struct vu_end *e, uint32_t max_sge, uint32_t inline_req,
                      struct ibv_qp_cap *cap)
{
    struct ibv_qp_init_attr a;

    memset(e, 0, sizeof(*e));
    e->cq = ibv_create_cq(c.ctx, 64, NULL, NULL, 0);
    e->buf = aligned_alloc(4096, VU_BUF_SIZE);
    if (e->cq == NULL || e->buf == NULL)
        return -1;
    memset(e->buf, 0, VU_BUF_SIZE);
    e->mr = ibv_reg_mr(c.pd, e->buf, VU_BUF_SIZE, ACCESS_ALL);
    memset(&a, 0, sizeof(a));
    a.send_cq = e->cq;
    a.recv_cq = e->cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = 8;
    a.cap.max_recv_wr = 8;
    a.cap.max_send_sge = max_sge;
    a.cap.max_recv_sge = max_sge;
    a.cap.max_inline_data = inline_req;
    e->qp = ibv_create_qp(c.pd, &a);
    *cap = a.cap;
    return e->mr == NULL || e->qp == NULL ? -1 : 0;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* Posts one WQE; 0 when it and (for a send) the receive completed successfully. */
static int post_wait(struct vu_end *src, struct vu_end *dst, struct ibv_send_wr *wr, bool with_recv,
                     uint32_t expect_len)
{
    struct ibv_send_wr *bad_s;
    struct ibv_wc wc;
    int rc = ibv_post_send(src->qp, wr, &bad_s);

    if (rc != 0) {
        fprintf(stderr, "ibv_post_send: %d\n", rc);
        return -1;
    }
    if (vu_wait(src->cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != wr->wr_id) {
        fprintf(stderr, "requester completion missing or failed\n");
        return -1;
    }
    if (with_recv && (vu_wait(dst->cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS ||
                      wc.byte_len != expect_len)) {
        fprintf(stderr, "receive completion missing, failed or of the wrong length\n");
        return -1;
    }
    return 0;
}

static void test_gather(struct vu_end *a, struct vu_end *b, const struct vu_info *ib, int nsge,
                        enum ibv_wr_opcode op)
{
    struct ibv_sge *sge = calloc((size_t)nsge, sizeof(*sge));
    uint8_t *expect = malloc((size_t)nsge * PIECE);
    struct ibv_send_wr wr;
    uint32_t total = (uint32_t)nsge * PIECE;
    uint8_t *target = op == IBV_WR_SEND ? b->buf + RECV_OFF : b->buf;

    memset(b->buf, 0, VU_BUF_SIZE);
    for (int i = 0; i < nsge; i++) {
        /* Entries scattered over the buffer, in reverse order. */
        uint32_t off = (uint32_t)(nsge - 1 - i) * 4096 + 100;

        fill(a->buf + off, PIECE, (uint8_t)(i + op));
        memcpy(expect + (size_t)i * PIECE, a->buf + off, PIECE);
        sge[i] = (struct ibv_sge){(uintptr_t)a->buf + off, PIECE, a->mr->lkey};
    }
    if (op == IBV_WR_SEND) {
        struct ibv_sge rs = {(uintptr_t)b->buf + RECV_OFF, total, b->mr->lkey};
        struct ibv_recv_wr rwr = {.wr_id = 7, .sg_list = &rs, .num_sge = 1}, *bad_r;

        VU_CHECK(ibv_post_recv(b->qp, &rwr, &bad_r) == 0, "post the receive");
    }
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 100 + (uint64_t)op;
    wr.sg_list = sge;
    wr.num_sge = nsge;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = ib->addr;
    wr.wr.rdma.rkey = ib->rkey;
    VU_CHECK(post_wait(a, b, &wr, op == IBV_WR_SEND, total) == 0,
             "%s of %d gather entries completes", op == IBV_WR_SEND ? "send" : "write", nsge);
    VU_CHECK(memcmp(target, expect, total) == 0 && target[total] == 0,
             "%s of %d gather entries: every byte in place, nothing after",
             op == IBV_WR_SEND ? "send" : "write", nsge);
    free(expect);
    free(sge);
}

static void test_inline(struct vu_end *a, struct vu_end *b, const struct vu_info *ib, uint32_t len,
                        enum ibv_wr_opcode op)
{
    uint8_t *src = malloc(len); /* inline data need not be registered */
    struct ibv_sge sge[2];
    struct ibv_send_wr wr;
    uint8_t *target = op == IBV_WR_SEND ? b->buf + RECV_OFF : b->buf;

    memset(b->buf, 0, VU_BUF_SIZE);
    fill(src, len, (uint8_t)(0x40 + op));
    /* Two entries, to cover the copy of several pieces into the inline segment. */
    sge[0] = (struct ibv_sge){(uintptr_t)src, len / 3, 0};
    sge[1] = (struct ibv_sge){(uintptr_t)src + len / 3, len - len / 3, 0};
    if (op == IBV_WR_SEND) {
        struct ibv_sge rs = {(uintptr_t)b->buf + RECV_OFF, len, b->mr->lkey};
        struct ibv_recv_wr rwr = {.wr_id = 8, .sg_list = &rs, .num_sge = 1}, *bad_r;

        VU_CHECK(ibv_post_recv(b->qp, &rwr, &bad_r) == 0, "post the receive");
    }
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 200 + (uint64_t)op;
    wr.sg_list = sge;
    wr.num_sge = 2;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
    wr.wr.rdma.remote_addr = ib->addr;
    wr.wr.rdma.rkey = ib->rkey;
    VU_CHECK(post_wait(a, b, &wr, op == IBV_WR_SEND, len) == 0, "inline %s of %u bytes completes",
             op == IBV_WR_SEND ? "send" : "write", len);
    VU_CHECK(memcmp(target, src, len) == 0 && target[len] == 0,
             "inline %s of %u bytes: every byte in place, nothing after",
             op == IBV_WR_SEND ? "send" : "write", len);
    /* One byte more than the QP offers is refused, not truncated. */
    sge[1].length++;
    VU_CHECK(ibv_post_send(a->qp, &wr, &(struct ibv_send_wr *){NULL}) == EINVAL,
             "inline %s of %u bytes refused", op == IBV_WR_SEND ? "send" : "write", len + 1);
    free(src);
}

int main(void)
{
    struct ibv_device_attr dev;
    struct ibv_qp_cap cap_a, cap_b;
    struct vu_end a, b;
    struct vu_info ia, ib;

    signal(SIGPIPE, SIG_IGN);
    if (vu_open(&c) != 0 || ibv_query_device(c.ctx, &dev) != 0)
        return 2;
    /* Gather: max_sge entries; inline: the most the device accepts at creation. */
    VU_CHECK(end_create(&a, (uint32_t)dev.max_sge, 0, &cap_a) == 0 &&
                     end_create(&b, (uint32_t)dev.max_sge, 0, &cap_b) == 0,
             "QPs of max_sge %d", dev.max_sge);
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "connect");
    test_gather(&a, &b, &ib, dev.max_sge, IBV_WR_RDMA_WRITE);
    test_gather(&a, &b, &ib, dev.max_sge, IBV_WR_SEND);
    vu_end_destroy(&a);
    vu_end_destroy(&b);

    /* Ask for ever more inline data until the device refuses: the largest QP it makes. */
    {
        uint32_t req = 64;
        struct ibv_qp_init_attr qa;
        struct ibv_cq *cq = ibv_create_cq(c.ctx, 4, NULL, NULL, 0);

        for (;;) {
            struct ibv_qp *qp;

            memset(&qa, 0, sizeof(qa));
            qa.send_cq = qa.recv_cq = cq;
            qa.qp_type = IBV_QPT_RC;
            qa.cap.max_send_wr = 1;
            qa.cap.max_recv_wr = 1;
            qa.cap.max_send_sge = 1;
            qa.cap.max_recv_sge = 1;
            qa.cap.max_inline_data = req + 1;
            qp = ibv_create_qp(c.pd, &qa);
            if (qp == NULL)
                break;
            ibv_destroy_qp(qp);
            req++;
        }
        ibv_destroy_cq(cq);
        VU_CHECK(end_create(&a, 2, req, &cap_a) == 0 && end_create(&b, 2, req, &cap_b) == 0,
                 "QPs of max_inline_data %u", req);
    }
    VU_CHECK(cap_a.max_inline_data >= 512, "max_inline_data %u", cap_a.max_inline_data);
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "connect");
    test_inline(&a, &b, &ib, cap_a.max_inline_data, IBV_WR_RDMA_WRITE);
    test_inline(&a, &b, &ib, cap_a.max_inline_data, IBV_WR_SEND);
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    vu_close(&c);
    return vu_summary("test_verbs_wqe_max");
}
