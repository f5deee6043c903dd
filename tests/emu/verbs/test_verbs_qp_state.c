/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state is the device's: after an error completion (an RDMA write
 * with a bad rkey to a peer QP of this process) ibv_query_qp answers ERR, a
 * receive posted then is flushed, the QP can be moved to ERR again and to
 * RESET, and from RESET back through INIT, RTR and RTS it works again. Also
 * the transitions ConnectX refuses (RTS -> SQD: no PRM command enters SQD).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)

static struct vu_ctx c;

static enum ibv_qp_state state_of(struct ibv_qp *qp)
{
    struct ibv_qp_init_attr init;
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init) != 0)
        return IBV_QPS_UNKNOWN;
    return a.qp_state;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
    struct ibv_qp_attr a = {.qp_state = s};

    return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* Drains the CQ: the number of completions within timeout_ms of the last one. */
static int drain(struct ibv_cq *cq, int timeout_ms)
{
    struct ibv_wc wc;
    int n = 0;

    while (vu_wait(cq, &wc, timeout_ms) == 1)
        n++;
    return n;
}

static void test_error_then_recover(void)
{
    struct vu_end a, b;
    struct vu_info ia, ib, bad;
    struct ibv_wc wc;
    int rc;

    VU_CHECK(vu_end_create(&c, &a, 64, 16, 8, ACCESS_ALL) == 0 &&
                     vu_end_create(&c, &b, 64, 16, 8, ACCESS_ALL) == 0,
             "two ends");
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "connect");
    VU_CHECK(state_of(a.qp) == IBV_QPS_RTS, "RTS after connecting");

    /* An error completion: the device moves a's QP to ERR by itself. */
    bad = ib;
    bad.rkey ^= 0x5500;
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 64, &bad, 0, IBV_SEND_SIGNALED) == 0,
             "post with a bad rkey");
    rc = vu_wait(a.cq, &wc, 5000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_REM_ACCESS_ERR && wc.wr_id == 1,
             "remote access error completion (got %d, status %d)", rc,
             rc == 1 ? (int)wc.status : -1);
    rc = state_of(a.qp);
    VU_CHECK(rc == IBV_QPS_ERR, "ibv_query_qp says ERR after the error completion (got %d)", rc);
    VU_CHECK(a.qp->state == IBV_QPS_ERR, "the public qp->state follows the query (got %d)",
             a.qp->state);

    /* A receive posted in ERR is flushed. */
    VU_CHECK(vu_post_recv(&a, 21, 0, 64) == 0, "post_recv in ERR is accepted");
    rc = vu_wait(a.cq, &wc, 2000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 21,
             "the receive is flushed (got %d, status %d, wr_id %lu)", rc,
             rc == 1 ? (int)wc.status : -1, rc == 1 ? (unsigned long)wc.wr_id : 0ul);
    /* A send posted in ERR is flushed too. */
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 22, 0, 64, &ib, 0, IBV_SEND_SIGNALED) == 0,
             "post_send in ERR is accepted");
    rc = vu_wait(a.cq, &wc, 2000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 22,
             "the send is flushed (got %d, status %d)", rc, rc == 1 ? (int)wc.status : -1);

    /* ERR -> ERR and ERR -> RESET are legal from the state the device put the QP in. */
    VU_CHECK(to_state(a.qp, IBV_QPS_RTS) == EINVAL, "ERR -> RTS refused");
    VU_CHECK(to_state(a.qp, IBV_QPS_ERR) == 0, "ERR -> ERR");
    VU_CHECK(to_state(a.qp, IBV_QPS_RESET) == 0, "ERR -> RESET");
    VU_CHECK(state_of(a.qp) == IBV_QPS_RESET, "query says RESET");
    drain(a.cq, 100);

    /* Back through INIT, RTR and RTS (b too: whatever its responder did), and work again. */
    VU_CHECK(to_state(b.qp, IBV_QPS_RESET) == 0, "peer -> RESET");
    drain(b.cq, 100);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "reconnect after RESET");
    VU_CHECK(state_of(a.qp) == IBV_QPS_RTS && state_of(b.qp) == IBV_QPS_RTS, "both RTS again");
    memset(a.buf, 0x5a, 256);
    memset(b.buf, 0, 256);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 31, 0, 256, &ib, 0, IBV_SEND_SIGNALED) == 0,
             "post a write");
    rc = vu_wait(a.cq, &wc, 5000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 31,
             "the write completes (got %d, status %d)", rc, rc == 1 ? (int)wc.status : -1);
    VU_CHECK(b.buf[0] == 0x5a && b.buf[255] == 0x5a, "the data arrived");
    VU_CHECK(vu_post_recv(&b, 41, 1024, 64) == 0, "post a receive");
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 42, 0, 64, NULL, 0, IBV_SEND_SIGNALED) == 0, "post a send");
    rc = vu_wait(a.cq, &wc, 5000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 42, "the send completes");
    rc = vu_wait(b.cq, &wc, 5000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 41 && wc.byte_len == 64,
             "the receive completes");

    /* A ConnectX has no command into SQD: RTS -> SQD is refused and the QP stays in RTS. */
    VU_CHECK(to_state(a.qp, IBV_QPS_SQD) == EINVAL, "RTS -> SQD refused");
    VU_CHECK(state_of(a.qp) == IBV_QPS_RTS, "still RTS");
    vu_end_destroy(&a);
    vu_end_destroy(&b);
}

/* The program moving a QP to ERR: query, flush of a later receive, and RESET. */
static void test_error_by_program(void)
{
    struct vu_end a, b;
    struct vu_info ia, ib;
    struct ibv_wc wc;
    int rc;

    VU_CHECK(vu_end_create(&c, &a, 64, 16, 8, ACCESS_ALL) == 0 &&
                     vu_end_create(&c, &b, 64, 16, 8, ACCESS_ALL) == 0,
             "two ends");
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "connect");
    VU_CHECK(to_state(b.qp, IBV_QPS_ERR) == 0, "RTS -> ERR");
    VU_CHECK(state_of(b.qp) == IBV_QPS_ERR, "query says ERR");
    VU_CHECK(vu_post_recv(&b, 51, 0, 64) == 0, "post_recv in ERR");
    rc = vu_wait(b.cq, &wc, 2000);
    VU_CHECK(rc == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 51,
             "the receive is flushed");
    VU_CHECK(to_state(b.qp, IBV_QPS_RESET) == 0 && state_of(b.qp) == IBV_QPS_RESET, "ERR -> RESET");
    VU_CHECK(vu_post_recv(&b, 52, 0, 64) == EINVAL, "post_recv in RESET refused");
    vu_end_destroy(&a);
    vu_end_destroy(&b);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (vu_open(&c) != 0)
        return 2;
    test_error_then_recover();
    test_error_by_program();
    vu_close(&c);
    return vu_summary("test_verbs_qp_state");
}
