/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error paths of the standard verbs, each with the ibv_wc status a ConnectX
 * gives: bad lkey, bad rkey, out of bounds, missing QP remote access, posts
 * in RESET/INIT, illegal transitions and missing attributes, destroying a CQ
 * in use, RNR with no receive, a receive buffer too small, flushes after an
 * error, CQ overrun; and completion-channel blocking and wakeup.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)

static struct vu_ctx c;

struct pair {
    struct vu_end a, b;
    struct vu_info ia, ib;
};

static int pair_make(struct pair *p, int b_qp_access, uint8_t rnr_retry, int cqe)
{
    if (vu_end_create(&c, &p->a, cqe, 16, 4, ACCESS_ALL) ||
        vu_end_create(&c, &p->b, cqe, 16, 4, ACCESS_ALL))
        return -1;
    vu_info_of(&c, &p->a, &p->ia);
    vu_info_of(&c, &p->b, &p->ib);
    return vu_connect(&p->a, &p->ib, ACCESS_ALL, rnr_retry) ||
                           vu_connect(&p->b, &p->ia, b_qp_access, rnr_retry)
                   ? -1
                   : 0;
}

static void pair_free(struct pair *p)
{
    vu_end_destroy(&p->a);
    vu_end_destroy(&p->b);
}

/* Posts one signaled WQE and returns its completion status (-1: none). */
static int status_of(struct vu_end *e, enum ibv_wr_opcode op, uint32_t len, const struct vu_info *r,
                     uint64_t roff, uint32_t lkey_override)
{
    struct ibv_sge sge = {(uintptr_t)e->buf, len, lkey_override ? lkey_override : e->mr->lkey};
    struct ibv_send_wr wr, *bad;
    struct ibv_wc wc;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 9;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = r->addr + roff;
    wr.wr.rdma.rkey = r->rkey;
    if (ibv_post_send(e->qp, &wr, &bad) != 0)
        return -1;
    return vu_wait(e->cq, &wc, 5000) == 1 ? (int)wc.status : -1;
}

static void test_keys(void)
{
    struct pair p;
    struct vu_info bad;

    pair_make(&p, ACCESS_ALL, 7, 16);
    VU_CHECK(status_of(&p.a, IBV_WR_RDMA_WRITE, 64, &p.ib, 0, 0xdead00) == IBV_WC_LOC_PROT_ERR,
             "bad lkey -> local protection error");
    VU_CHECK(status_of(&p.a, IBV_WR_RDMA_WRITE, 64, &p.ib, 0, 0) == IBV_WC_WR_FLUSH_ERR,
             "next WQE after an error is flushed");
    pair_free(&p);

    pair_make(&p, ACCESS_ALL, 7, 16);
    bad = p.ib;
    bad.rkey ^= 0x5500;
    VU_CHECK(status_of(&p.a, IBV_WR_RDMA_WRITE, 64, &bad, 0, 0) == IBV_WC_REM_ACCESS_ERR,
             "bad rkey -> remote access error");
    pair_free(&p);

    pair_make(&p, ACCESS_ALL, 7, 16);
    VU_CHECK(status_of(&p.a, IBV_WR_RDMA_READ, 4096, &p.ib, VU_BUF_SIZE - 100, 0) ==
                     IBV_WC_REM_ACCESS_ERR,
             "out-of-bounds read -> remote access error");
    pair_free(&p);

    pair_make(&p, IBV_ACCESS_REMOTE_READ, 7, 16);
    VU_CHECK(status_of(&p.a, IBV_WR_RDMA_WRITE, 64, &p.ib, 0, 0) == IBV_WC_REM_ACCESS_ERR,
             "write to a QP without remote write -> remote access error");
    pair_free(&p);
}

static void test_states(void)
{
    struct vu_end e;
    struct ibv_qp_attr a;
    struct vu_info self;
    int rc;

    vu_end_create(&c, &e, 16, 4, 4, ACCESS_ALL);
    VU_CHECK(vu_post(&e, IBV_WR_RDMA_WRITE, 1, 0, 8, NULL, 0, 0) == EINVAL, "post in RESET");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    VU_CHECK(ibv_modify_qp(e.qp, &a, IBV_QP_STATE) == EINVAL, "RESET -> RTR refused");
    a.qp_state = IBV_QPS_INIT;
    VU_CHECK(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PORT) == EINVAL,
             "RESET -> INIT without PKEY_INDEX/ACCESS_FLAGS refused");
    a.port_num = 1;
    VU_CHECK(ibv_modify_qp(e.qp, &a,
                           IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS |
                                   IBV_QP_SQ_PSN) == EINVAL,
             "RESET -> INIT with an extra SQ_PSN refused");
    rc = ibv_modify_qp(e.qp, &a,
                       IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS);
    VU_CHECK(rc == 0, "RESET -> INIT");
    VU_CHECK(vu_post(&e, IBV_WR_RDMA_WRITE, 1, 0, 8, NULL, 0, 0) == EINVAL, "post in INIT");
    a.qp_state = IBV_QPS_RTR;
    VU_CHECK(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU) == EINVAL,
             "INIT -> RTR without DEST_QPN etc. refused");
    a.qp_state = IBV_QPS_RTS;
    VU_CHECK(ibv_modify_qp(e.qp, &a, IBV_QP_STATE) == EINVAL, "INIT -> RTS refused");
    vu_info_of(&c, &e, &self);
    {
        struct ibv_qp_init_attr init;
        struct ibv_qp_attr q;

        VU_CHECK(ibv_query_qp(e.qp, &q, IBV_QP_STATE, &init) == 0 && q.qp_state == IBV_QPS_INIT,
                 "query says INIT");
    }
    a.qp_state = IBV_QPS_RESET;
    VU_CHECK(ibv_modify_qp(e.qp, &a, IBV_QP_STATE) == 0, "INIT -> RESET");
    VU_CHECK(ibv_destroy_cq(e.cq) == EBUSY, "destroying a CQ in use -> EBUSY");
    vu_end_destroy(&e);
}

static void test_recv_errors(void)
{
    struct pair p;
    struct ibv_wc wc;
    int st;

    /* RNR: no receive posted, rnr_retry 1. */
    pair_make(&p, ACCESS_ALL, 1, 16);
    st = status_of(&p.a, IBV_WR_SEND, 64, &p.ib, 0, 0);
    VU_CHECK(st == IBV_WC_RNR_RETRY_EXC_ERR, "send without a receive -> RNR retry exceeded (%d)",
             st);
    pair_free(&p);

    /* Receive buffer too small. */
    pair_make(&p, ACCESS_ALL, 7, 16);
    vu_post_recv(&p.b, 55, 0, 16);
    VU_CHECK(status_of(&p.a, IBV_WR_SEND, 64, &p.ib, 0, 0) == IBV_WC_REM_INV_REQ_ERR,
             "send larger than the receive -> remote invalid request");
    VU_CHECK(vu_wait(p.b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_LOC_LEN_ERR && wc.wr_id == 55,
             "responder: local length error");
    pair_free(&p);

    /* RNR then a late receive: rnr_retry 7 retries until it is there. */
    pair_make(&p, ACCESS_ALL, 7, 16);
    VU_CHECK(vu_post(&p.a, IBV_WR_SEND, 3, 0, 32, NULL, 0, IBV_SEND_SIGNALED) == 0, "post");
    VU_CHECK(vu_wait(p.a.cq, &wc, 50) == 0, "send waits for a receive");
    vu_post_recv(&p.b, 56, 0, 64);
    VU_CHECK(vu_wait(p.a.cq, &wc, 3000) == 1 && wc.status == IBV_WC_SUCCESS,
             "send completes after the late receive");
    VU_CHECK(vu_wait(p.b.cq, &wc, 3000) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 32,
             "late receive completes");
    /* Flush of receives on error. */
    vu_post_recv(&p.b, 57, 0, 64);
    {
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

        VU_CHECK(ibv_modify_qp(p.b.qp, &a, IBV_QP_STATE) == 0, "-> ERR");
    }
    VU_CHECK(vu_wait(p.b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 57,
             "posted receive flushed");
    pair_free(&p);
}

static void test_overrun(void)
{
    struct pair p;
    struct ibv_wc wc[8];
    int n, total = 0;

    pair_make(&p, ACCESS_ALL, 7, 1); /* 2 entries */
    for (int i = 0; i < 4; i++)
        vu_post(&p.a, IBV_WR_RDMA_WRITE, (uint64_t)i, 0, 8, &p.ib, 0, IBV_SEND_SIGNALED);
    for (int i = 0; i < 200; i++) {
        struct timespec ts = {0, 1000000};

        nanosleep(&ts, NULL);
    }
    while ((n = ibv_poll_cq(p.a.cq, 8, wc)) > 0)
        total += n;
    VU_CHECK(total == 2 && n == -1 && errno == EOVERFLOW,
             "overrun reported after the 2 CQEs that fit (got %d, then %d)", total, n);
    pair_free(&p);
}

static void test_channel(void)
{
    struct ibv_comp_channel *ch = ibv_create_comp_channel(c.ctx);
    struct pair p;
    struct ibv_cq *cq, *ev_cq;
    struct ibv_qp_init_attr qa;
    struct ibv_wc wc;
    void *ev_ctx;
    struct pollfd pfd;

    VU_CHECK(ch != NULL, "comp channel");
    pair_make(&p, ACCESS_ALL, 7, 16);
    /* A channel CQ for a third QP connected to b... simpler: a's QP on a channel CQ. */
    cq = ibv_create_cq(c.ctx, 16, (void *)0x1234, ch, 0);
    ibv_destroy_qp(p.a.qp);
    memset(&qa, 0, sizeof(qa));
    qa.send_cq = cq;
    qa.recv_cq = cq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = 4;
    qa.cap.max_recv_wr = 4;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    p.a.qp = ibv_create_qp(c.pd, &qa);
    vu_info_of(&c, &p.a, &p.ia);
    {
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_RESET};

        ibv_modify_qp(p.b.qp, &a, IBV_QP_STATE);
    }
    VU_CHECK(vu_connect(&p.a, &p.ib, ACCESS_ALL, 7) == 0 &&
                     vu_connect(&p.b, &p.ia, ACCESS_ALL, 7) == 0,
             "reconnect");
    VU_CHECK(ibv_req_notify_cq(cq, 0) == 0, "arm");
    pfd.fd = ch->fd;
    pfd.events = POLLIN;
    VU_CHECK(poll(&pfd, 1, 100) == 0, "no event before any completion");
    vu_post(&p.a, IBV_WR_RDMA_WRITE, 11, 0, 64, &p.ib, 0, IBV_SEND_SIGNALED);
    VU_CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0 && ev_cq == cq && ev_ctx == (void *)0x1234,
             "blocking get_cq_event wakes up");
    ibv_ack_cq_events(ev_cq, 1);
    VU_CHECK(ibv_poll_cq(cq, 1, &wc) == 1 && wc.wr_id == 11 && wc.status == IBV_WC_SUCCESS,
             "completion after the event");
    VU_CHECK(ibv_destroy_comp_channel(ch) == EBUSY, "channel in use");
    ibv_destroy_qp(p.a.qp);
    p.a.qp = NULL;
    VU_CHECK(ibv_destroy_cq(cq) == 0, "destroy channel CQ");
    VU_CHECK(ibv_destroy_comp_channel(ch) == 0, "destroy channel");
    pair_free(&p);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (vu_open(&c) != 0)
        return 2;
    test_keys();
    test_states();
    test_recv_errors();
    test_overrun();
    test_channel();
    vu_close(&c);
    return vu_summary("test_verbs_errors");
}
