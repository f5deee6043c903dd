/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events on softmlx5 (ibv_get_async_event), each raised as
 * ConnectX raises it: a remote access violation at the responder
 * (QP_ACCESS_ERR, the responder's QP in ERR), the first request a QP in RTR
 * takes (COMM_EST), a QP of an SRQ entering ERR (QP_LAST_WQE_REACHED), an
 * SRQ falling below its armed limit (SRQ_LIMIT_REACHED, then disarmed), a
 * CQ overrun (CQ_ERR, then QP_FATAL for its QP), a port going down and up (PORT_ERR, PORT_ACTIVE,
 * through the test call emu_port_set_state). Also: the async fd polls and
 * reads non-blocking as rdma-core's, and a destroy waits for the
 * acknowledgement of the events delivered for its object.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_util.h"

#define DST_OFF 65536u

static struct vu_ctx ctx;

/* The next event within ms: true and *ev, or false. */
static bool next_event(struct ibv_async_event *ev, int ms)
{
    struct pollfd p = {.fd = ctx.ctx->async_fd, .events = POLLIN};

    return poll(&p, 1, ms) == 1 && ibv_get_async_event(ctx.ctx, ev) == 0;
}

static void expect_event(enum ibv_event_type type, const void *element, const char *what)
{
    struct ibv_async_event ev;
    bool got = next_event(&ev, 2000);

    VU_CHECK(got && ev.event_type == type && (element == NULL || ev.element.qp == element),
             "%s: event %s (got %s)", what, ibv_event_type_str(type),
             got ? ibv_event_type_str(ev.event_type) : "none");
    if (got)
        ibv_ack_async_event(&ev);
}

static void expect_quiet(const char *what)
{
    struct ibv_async_event ev;
    bool got = next_event(&ev, 100);

    VU_CHECK(!got, "%s: no event (got %s)", what, got ? ibv_event_type_str(ev.event_type) : "");
    if (got)
        ibv_ack_async_event(&ev);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;

    return ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) == 0 ? attr.qp_state : IBV_QPS_UNKNOWN;
}

/* a: a CQ of cqe entries, a send queue of sq; b in RTS, or left in RTR. */
static int make_pair(struct vu_end *a, struct vu_end *b, bool b_rts, int cqe, uint32_t sq)
{
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    struct vu_info ia, ib;

    if (vu_end_create(&ctx, a, cqe, sq, 8, access) != 0 ||
        vu_end_create(&ctx, b, 16, 8, 8, access) != 0)
        return -1;
    vu_info_of(&ctx, a, &ia);
    vu_info_of(&ctx, b, &ib);
    if (vu_connect(a, &ib, access, 7) != 0)
        return -1;
    return b_rts ? vu_connect(b, &ia, access, 7) : vu_connect_rtr(b, &ia, access);
}

/* COMM_EST at the first request into a QP in RTR; then a bad rkey: QP_ACCESS_ERR, QP in ERR. */
static void test_responder_events(void)
{
    struct vu_end a, b;
    struct vu_info ib;
    struct ibv_wc wc;

    VU_CHECK(make_pair(&a, &b, false, 16, 8) == 0, "pair with the responder in RTR");
    vu_info_of(&ctx, &b, &ib);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS,
             "a write into the QP in RTR");
    expect_event(IBV_EVENT_COMM_EST, b.qp, "first request in RTR");
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 2, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 2000) == 1,
             "a second write");
    expect_quiet("second request in RTR");
    ib.rkey ^= 0x5500;
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 3, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 2000) == 1 && wc.status == IBV_WC_REM_ACCESS_ERR,
             "a write with a bad rkey: remote access error (%d)", (int)wc.status);
    expect_event(IBV_EVENT_QP_ACCESS_ERR, b.qp, "remote access violation");
    VU_CHECK(qp_state(b.qp) == IBV_QPS_ERR, "the responder's QP is in ERR (%d)", qp_state(b.qp));
    vu_end_destroy(&a);
    vu_end_destroy(&b);
}

/* An SRQ below its armed limit, once; a QP of the SRQ entering ERR. */
static void test_srq_events(void)
{
    struct ibv_srq_init_attr sattr = {.attr = {.max_wr = 16, .max_sge = 1}};
    struct ibv_qp_init_attr qattr;
    struct ibv_srq_attr limit = {.srq_limit = 4};
    struct ibv_qp_attr to_err = {.qp_state = IBV_QPS_ERR};
    struct ibv_srq *srq = ibv_create_srq(ctx.pd, &sattr);
    struct vu_end a, b;
    struct vu_info ia, ib;
    struct ibv_wc wc;
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

    VU_CHECK(srq != NULL, "SRQ made");
    if (srq == NULL)
        return;
    VU_CHECK(vu_end_create(&ctx, &a, 16, 8, 8, access) == 0, "sender made");
    memset(&b, 0, sizeof(b));
    b.cq = ibv_create_cq(ctx.ctx, 16, NULL, NULL, 0);
    b.buf = aligned_alloc(4096, VU_BUF_SIZE);
    b.mr = ibv_reg_mr(ctx.pd, b.buf, VU_BUF_SIZE, access);
    memset(&qattr, 0, sizeof(qattr));
    qattr.send_cq = qattr.recv_cq = b.cq;
    qattr.srq = srq;
    qattr.qp_type = IBV_QPT_RC;
    qattr.cap.max_send_wr = 8;
    qattr.cap.max_send_sge = 1;
    b.qp = ibv_create_qp(ctx.pd, &qattr);
    VU_CHECK(b.cq != NULL && b.mr != NULL && b.qp != NULL, "receiver of the SRQ made");
    vu_info_of(&ctx, &a, &ia);
    vu_info_of(&ctx, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, access, 7) == 0 && vu_connect(&b, &ia, access, 7) == 0,
             "connected");
    for (int i = 0; i < 8; i++) {
        struct ibv_sge sge = {(uintptr_t)b.buf + 1024u * i, 1024, b.mr->lkey};
        struct ibv_recv_wr wr = {.wr_id = 100u + i, .sg_list = &sge, .num_sge = 1}, *bad;

        VU_CHECK(ibv_post_srq_recv(srq, &wr, &bad) == 0, "SRQ receive %d posted", i);
    }
    VU_CHECK(ibv_modify_srq(srq, &limit, IBV_SRQ_LIMIT) == 0, "limit 4 armed");
    /* 8 posted, limit 4: 7, 6, 5 and 4 left are not below it; 3 is. */
    for (int i = 0; i < 5; i++) {
        VU_CHECK(vu_post(&a, IBV_WR_SEND, 10u + i, 0, 32, NULL, 0, IBV_SEND_SIGNALED) == 0 &&
                         vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS,
                 "send %d received from the SRQ", i);
        vu_wait(a.cq, &wc, 2000);
        if (i < 4)
            expect_quiet("receives left at or above the limit");
    }
    expect_event(IBV_EVENT_SRQ_LIMIT_REACHED, srq, "below the limit");
    VU_CHECK(ibv_query_srq(srq, &limit) == 0 && limit.srq_limit == 0, "the limit is disarmed (%u)",
             limit.srq_limit);
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 20, 0, 32, NULL, 0, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(b.cq, &wc, 2000) == 1,
             "one more send");
    vu_wait(a.cq, &wc, 2000);
    expect_quiet("a disarmed limit");
    VU_CHECK(ibv_modify_qp(b.qp, &to_err, IBV_QP_STATE) == 0, "the SRQ's QP to ERR");
    expect_event(IBV_EVENT_QP_LAST_WQE_REACHED, b.qp, "QP of an SRQ in ERR");
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    VU_CHECK(ibv_destroy_srq(srq) == 0, "SRQ destroyed");
}

/*
 * More completions than a CQ holds, never polled: CQ_ERR, then QP_FATAL for
 * the QP completing on it, which enters ERR; the peer, on its own CQ, lives.
 */
static void test_cq_overrun(void)
{
    struct vu_end a, b;
    struct vu_info ib;
    int cqe;

    VU_CHECK(make_pair(&a, &b, true, 8, 256) == 0, "pair");
    vu_info_of(&ctx, &b, &ib);
    cqe = a.cq->cqe; /* as mlx5: one less than the ring's entries */
    for (int i = 0; i < cqe + 2; i++)
        VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 50u + i, 0, 16, &ib, DST_OFF, IBV_SEND_SIGNALED) ==
                         0,
                 "write %d posted", i);
    expect_event(IBV_EVENT_CQ_ERR, a.cq, "CQ overrun");
    expect_event(IBV_EVENT_QP_FATAL, a.qp, "its QP cannot report completions");
    VU_CHECK(qp_state(a.qp) == IBV_QPS_ERR, "the QP of the CQ in error is in ERR (%d)",
             qp_state(a.qp));
    VU_CHECK(qp_state(b.qp) == IBV_QPS_RTS, "the peer's QP is still in RTS (%d)", qp_state(b.qp));
    expect_quiet("one QP_FATAL, nothing for the peer");
    vu_end_destroy(&a);
    vu_end_destroy(&b);
}

/* Port down and up again, on every context; ibv_query_port follows. */
static void test_port_events(void)
{
    int (*set_state)(struct ibv_device *, int) =
            (int (*)(struct ibv_device *, int))dlsym(RTLD_DEFAULT, "emu_port_set_state");
    struct ibv_port_attr port;

    VU_CHECK(set_state != NULL, "emu_port_set_state is exported");
    if (set_state == NULL)
        return;
    VU_CHECK(set_state(ctx.ctx->device, 0) == 0, "port down");
    expect_event(IBV_EVENT_PORT_ERR, NULL, "port down");
    VU_CHECK(ibv_query_port(ctx.ctx, 1, &port) == 0 && port.state == IBV_PORT_DOWN,
             "query_port: down (%d)", port.state);
    VU_CHECK(set_state(ctx.ctx->device, 0) == 0, "port down again");
    expect_quiet("no change");
    VU_CHECK(set_state(ctx.ctx->device, 1) == 0, "port up");
    expect_event(IBV_EVENT_PORT_ACTIVE, NULL, "port up");
    VU_CHECK(ibv_query_port(ctx.ctx, 1, &port) == 0 && port.state == IBV_PORT_ACTIVE,
             "query_port: active (%d)", port.state);
}

struct destroy_arg {
    struct vu_end *e;
    volatile bool done;
};

static void *destroy_thread(void *p)
{
    struct destroy_arg *d = p;

    vu_end_destroy(d->e);
    d->done = true;
    return NULL;
}

/* A delivered, unacknowledged event holds its QP's destroy; the fd reads non-blocking. */
static void test_destroy_waits_for_ack(void)
{
    struct vu_end a, b;
    struct vu_info ib;
    struct ibv_async_event ev;
    struct ibv_wc wc;
    struct destroy_arg d = {.e = &b};
    pthread_t t;
    int flags = fcntl(ctx.ctx->async_fd, F_GETFL);

    VU_CHECK(fcntl(ctx.ctx->async_fd, F_SETFL, flags | O_NONBLOCK) == 0, "async fd non-blocking");
    VU_CHECK(ibv_get_async_event(ctx.ctx, &ev) == -1 && errno == EAGAIN,
             "nothing queued: EAGAIN (%s)", strerror(errno));
    VU_CHECK(make_pair(&a, &b, false, 16, 8) == 0, "pair with the responder in RTR");
    vu_info_of(&ctx, &b, &ib);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 2000) == 1,
             "a write into the QP in RTR");
    VU_CHECK(next_event(&ev, 2000) && ev.event_type == IBV_EVENT_COMM_EST, "COMM_EST delivered");
    VU_CHECK(pthread_create(&t, NULL, destroy_thread, &d) == 0, "destroy thread");
    usleep(200000);
    VU_CHECK(!d.done, "the destroy waits for the acknowledgement");
    ibv_ack_async_event(&ev);
    pthread_join(t, NULL);
    VU_CHECK(d.done, "and ends after it");
    vu_end_destroy(&a);
    fcntl(ctx.ctx->async_fd, F_SETFL, flags);
}

int main(void)
{
    if (vu_open(&ctx) != 0) {
        VU_CHECK(false, "device: %s", strerror(errno));
        return vu_summary("test_verbs_async");
    }
    test_responder_events();
    test_srq_events();
    test_cq_overrun();
    test_port_events();
    test_destroy_waits_for_ack();
    expect_quiet("nothing left over");
    vu_close(&ctx);
    return vu_summary("test_verbs_async");
}
