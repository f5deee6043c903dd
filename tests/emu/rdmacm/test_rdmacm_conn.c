/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two processes through softmlx5's connection manager (run under softmlx5-run):
 * the parent listens on 127.0.0.1, the forked child connects.
 *   events            ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST (listen_id, the peer's
 *                     depths, 56 bytes of private data), ESTABLISHED on both sides (196 bytes
 *                     of the accept's private data at the client), a send each way over the
 *                     QPs the CM connected, then the client disconnects: its posted receive is
 *                     flushed, DISCONNECTED and TIMEWAIT_EXIT on both sides. The channels are
 *                     non-blocking (EAGAIN when empty) and waited for with poll.
 *   server_disconnect the same, the server disconnecting.
 *   reject            the server rejects with private data: REJECTED, status 28, at the client.
 *   refused           a connect to a port nobody listens on: REJECTED, status 8, no hang.
 *   peer_exit         the client exits while connected: DISCONNECTED at the server.
 *   self_qp           the client moves its own QP with rdma_init_qp_attr: CONNECT_RESPONSE,
 *                     then rdma_establish, then the exchange and a disconnect.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define WAIT_MS 5000
#define MSG_LEN 64

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: %s failed (errno %d: %s)\n", __FILE__, __LINE__, #cond, errno, \
                    strerror(errno));                                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const char *mode;
static const char *who = "server";

/* The next event of a channel within WAIT_MS, which must be of type want. */
static struct rdma_cm_event *expect_event(struct rdma_event_channel *ch,
                                          enum rdma_cm_event_type want)
{
    struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
    struct rdma_cm_event *ev;

    if (poll(&pfd, 1, WAIT_MS) != 1) {
        fprintf(stderr, "%s: no event within %d ms (waiting for %s)\n", who, WAIT_MS,
                rdma_event_str(want));
        exit(1);
    }
    CHECK(rdma_get_cm_event(ch, &ev) == 0);
    printf("%s: %s status %d\n", who, rdma_event_str(ev->event), ev->status);
    if (ev->event != want) {
        fprintf(stderr, "%s: %s expected\n", who, rdma_event_str(want));
        exit(1);
    }
    return ev;
}

static void expect_ack(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
    CHECK(rdma_ack_cm_event(expect_event(ch, want)) == 0);
}

static struct rdma_event_channel *nonblocking_channel(void)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_event *ev;

    CHECK(ch != NULL);
    CHECK(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) == 0);
    errno = 0;
    CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN);
    return ch;
}

static void check_pdata(const struct rdma_cm_event *ev, const char *text, unsigned len)
{
    const struct rdma_conn_param *c = &ev->param.conn;

    CHECK(c->private_data != NULL && c->private_data_len == len);
    CHECK(memcmp(c->private_data, text, strlen(text) + 1) == 0);
}

/* A connection's buffers: one message each way, registered on the QP's PD. */
struct conn {
    struct ibv_qp *qp;
    struct ibv_cq *cq; /* send and receive */
    struct ibv_mr *mr;
    char buf[2][MSG_LEN];
};

static void conn_init(struct conn *c, struct ibv_qp *qp, struct ibv_pd *pd)
{
    c->qp = qp;
    c->cq = qp->recv_cq;
    CHECK(qp->send_cq == qp->recv_cq);
    c->mr = ibv_reg_mr(pd, c->buf, sizeof(c->buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(c->mr != NULL);
}

static void post_recv(struct conn *c)
{
    struct ibv_sge sge = {(uintptr_t)c->buf[1], MSG_LEN, c->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;

    CHECK(ibv_post_recv(c->qp, &wr, &bad) == 0);
}

static struct ibv_wc poll_one(struct conn *c)
{
    struct timespec ts = {0, 1000000};
    struct ibv_wc wc;

    for (int i = 0; i < WAIT_MS; i++) {
        int n = ibv_poll_cq(c->cq, 1, &wc);

        CHECK(n >= 0);
        if (n == 1)
            return wc;
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "%s: no completion within %d ms\n", who, WAIT_MS);
    exit(1);
}

static void send_msg(struct conn *c, const char *text)
{
    struct ibv_sge sge = {(uintptr_t)c->buf[0], MSG_LEN, c->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = 2,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    struct ibv_wc wc;

    snprintf(c->buf[0], MSG_LEN, "%s", text);
    CHECK(ibv_post_send(c->qp, &wr, &bad) == 0);
    wc = poll_one(c);
    if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND)
        fprintf(stderr, "%s: the send's completion is %s, opcode %d, wr_id %llu\n", who,
                ibv_wc_status_str(wc.status), (int)wc.opcode, (unsigned long long)wc.wr_id);
    CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND);
}

static void recv_msg(struct conn *c, const char *text)
{
    struct ibv_wc wc = poll_one(c);

    CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV);
    CHECK(strcmp(c->buf[1], text) == 0);
    printf("%s: received \"%s\"\n", who, c->buf[1]);
}

static struct ibv_qp_init_attr qp_attr(struct ibv_cq *cq)
{
    struct ibv_qp_init_attr a = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC};

    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

/* The client moves its own QP (self_qp): the attributes come from rdma_init_qp_attr. */
static void self_modify(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state)
{
    struct ibv_qp_attr a = {.qp_state = state};
    int mask;

    CHECK(rdma_init_qp_attr(id, &a, &mask) == 0);
    CHECK(ibv_modify_qp(qp, &a, mask) == 0);
}

static void disconnect_and_wait(struct rdma_event_channel *ch, struct rdma_cm_id *id,
                                struct conn *c, bool initiator)
{
    struct ibv_wc wc;

    if (initiator)
        CHECK(rdma_disconnect(id) == 0);
    expect_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
    CHECK(rdma_disconnect(id) == 0); /* after DISCONNECTED: moves the QP to ERR, sends nothing */
    wc = poll_one(c);                /* the receive posted last is flushed */
    CHECK(wc.status == IBV_WC_WR_FLUSH_ERR);
    expect_ack(ch, RDMA_CM_EVENT_TIMEWAIT_EXIT);
}

static struct sockaddr_in loopback(uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static int client(uint16_t port)
{
    struct rdma_event_channel *ch = nonblocking_channel();
    struct sockaddr_in dst = loopback(port);
    struct rdma_conn_param param = {.private_data = "req-data",
                                    .private_data_len = 9,
                                    .responder_resources = 1,
                                    .initiator_depth = 1,
                                    .retry_count = 7,
                                    .rnr_retry_count = 7};
    bool self_qp = strcmp(mode, "self_qp") == 0;
    struct rdma_cm_event *ev;
    struct rdma_cm_id *id;
    struct ibv_qp *qp;
    struct ibv_pd *pd;
    struct conn c;

    who = "client";
    CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0);
    expect_ack(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
    CHECK(id->verbs != NULL && id->port_num == 1);
    CHECK(rdma_resolve_route(id, 2000) == 0);
    expect_ack(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
    CHECK(id->route.num_paths == 1 && id->route.path_rec != NULL);
    pd = ibv_alloc_pd(id->verbs);
    CHECK(pd != NULL);
    if (self_qp) {
        struct ibv_cq *cq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
        struct ibv_qp_init_attr a = qp_attr(cq);

        CHECK(cq != NULL);
        qp = ibv_create_qp(pd, &a);
        CHECK(qp != NULL);
        self_modify(id, qp, IBV_QPS_INIT);
        param.qp_num = qp->qp_num;
    } else {
        struct ibv_qp_init_attr a = qp_attr(NULL);

        a.send_cq = a.recv_cq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
        CHECK(a.send_cq != NULL);
        CHECK(rdma_create_qp(id, pd, &a) == 0);
        qp = id->qp;
        CHECK(qp != NULL && id->pd == pd);
    }
    conn_init(&c, qp, pd);
    post_recv(&c);
    CHECK(rdma_connect(id, &param) == 0);
    if (strcmp(mode, "reject") == 0) {
        ev = expect_event(ch, RDMA_CM_EVENT_REJECTED);
        CHECK(ev->status == 28);
        check_pdata(ev, "no-thanks", 148);
        CHECK(rdma_ack_cm_event(ev) == 0);
        return 0;
    }
    ev = expect_event(ch, self_qp ? RDMA_CM_EVENT_CONNECT_RESPONSE : RDMA_CM_EVENT_ESTABLISHED);
    check_pdata(ev, "rep-data", 196);
    CHECK(ev->param.conn.responder_resources == 1 && ev->param.conn.initiator_depth == 1);
    CHECK(rdma_ack_cm_event(ev) == 0);
    if (self_qp) {
        self_modify(id, qp, IBV_QPS_RTR);
        self_modify(id, qp, IBV_QPS_RTS);
        CHECK(rdma_establish(id) == 0);
    }
    CHECK(ntohs(rdma_get_dst_port(id)) == port && rdma_get_src_port(id) != 0);
    send_msg(&c, "ping");
    recv_msg(&c, "pong");
    if (strcmp(mode, "peer_exit") == 0)
        _exit(0); /* no disconnect: the server must notice */
    post_recv(&c);
    if (self_qp) {
        struct ibv_qp_attr err = {.qp_state = IBV_QPS_ERR};

        CHECK(ibv_modify_qp(qp, &err, IBV_QP_STATE) == 0); /* the CM does not know this QP */
    }
    disconnect_and_wait(ch, id, &c, strcmp(mode, "server_disconnect") != 0);
    if (self_qp)
        CHECK(ibv_destroy_qp(qp) == 0);
    else
        rdma_destroy_qp(id);
    CHECK(rdma_destroy_id(id) == 0);
    rdma_destroy_event_channel(ch);
    return 0;
}

/* A port nobody listens on: REJECTED with the IB CM's "invalid service ID" (8). */
static int refused(void)
{
    struct rdma_event_channel *ch = nonblocking_channel();
    struct rdma_cm_id *id, *probe;
    struct rdma_conn_param param = {.qp_num = 1};
    struct sockaddr_in a = loopback(0);
    struct rdma_cm_event *ev;
    uint16_t port;

    CHECK(rdma_create_id(ch, &probe, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_bind_addr(probe, (struct sockaddr *)&a) == 0);
    port = ntohs(rdma_get_src_port(probe));
    CHECK(rdma_destroy_id(probe) == 0); /* the port is free again, and nobody listens */
    a = loopback(port);
    CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&a, 2000) == 0);
    expect_ack(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
    CHECK(rdma_resolve_route(id, 2000) == 0);
    expect_ack(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
    CHECK(rdma_connect(id, &param) == 0);
    ev = expect_event(ch, RDMA_CM_EVENT_REJECTED);
    CHECK(ev->status == 8);
    CHECK(rdma_ack_cm_event(ev) == 0);
    CHECK(rdma_destroy_id(id) == 0);
    rdma_destroy_event_channel(ch);
    return 0;
}

static void serve(struct rdma_event_channel *ch, struct rdma_cm_id *listen, void *ctx)
{
    struct ibv_qp_init_attr a = qp_attr(NULL);
    struct rdma_conn_param param = {.private_data = "rep-data",
                                    .private_data_len = 9,
                                    .responder_resources = 1,
                                    .initiator_depth = 1,
                                    .rnr_retry_count = 7};
    struct rdma_cm_event *ev = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    struct rdma_cm_id *child = ev->id;
    struct sockaddr_in *peer = (struct sockaddr_in *)rdma_get_peer_addr(child);
    struct conn c;

    CHECK(ev->listen_id == listen && child != listen && child->context == ctx);
    CHECK(child->verbs != NULL && child->channel == ch);
    CHECK(peer->sin_family == AF_INET && peer->sin_addr.s_addr == htonl(INADDR_LOOPBACK));
    check_pdata(ev, "req-data", 56);
    CHECK(ev->param.conn.responder_resources == 1 && ev->param.conn.initiator_depth == 1);
    CHECK(ev->param.conn.retry_count == 7 && ev->param.conn.qp_num != 0);
    CHECK(rdma_ack_cm_event(ev) == 0);
    if (strcmp(mode, "reject") == 0) {
        CHECK(rdma_reject(child, "no-thanks", 10) == 0);
        CHECK(rdma_destroy_id(child) == 0);
        return;
    }
    /* No PD and no CQs given: the CM makes them. */
    CHECK(rdma_create_qp(child, NULL, &a) == 0);
    CHECK(child->pd != NULL && child->send_cq != NULL && child->recv_cq != NULL);
    c.qp = child->qp;
    c.mr = ibv_reg_mr(child->pd, c.buf, sizeof(c.buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(c.mr != NULL);
    c.cq = child->recv_cq;
    post_recv(&c);
    CHECK(rdma_accept(child, &param) == 0);
    expect_ack(ch, RDMA_CM_EVENT_ESTABLISHED);
    recv_msg(&c, "ping");
    c.cq = child->send_cq;
    send_msg(&c, "pong");
    c.cq = child->recv_cq;
    if (strcmp(mode, "peer_exit") == 0) {
        expect_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
    } else {
        post_recv(&c);
        disconnect_and_wait(ch, child, &c, strcmp(mode, "server_disconnect") == 0);
    }
    CHECK(ibv_dereg_mr(c.mr) == 0);
    rdma_destroy_qp(child);
    CHECK(child->qp == NULL);
    CHECK(rdma_destroy_id(child) == 0);
}

int main(int argc, char **argv)
{
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen;
    struct sockaddr_in a = loopback(0);
    int ctx, status, fds[2];
    uint16_t port;
    pid_t pid;

    if (argc != 2) {
        fprintf(stderr, "usage: %s events|server_disconnect|reject|refused|peer_exit|self_qp\n",
                argv[0]);
        return 2;
    }
    mode = argv[1];
    setvbuf(stdout, NULL, _IONBF, 0);
    alarm(30);
    if (strcmp(mode, "refused") == 0)
        return refused();
    /* Fork before either process uses the library: the client learns the port by a pipe. */
    CHECK(pipe(fds) == 0);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[1]);
        CHECK(read(fds[0], &port, sizeof(port)) == (ssize_t)sizeof(port));
        exit(client(port));
    }
    close(fds[0]);
    ch = nonblocking_channel();
    CHECK(rdma_create_id(ch, &listen, &ctx, RDMA_PS_TCP) == 0);
    CHECK(rdma_bind_addr(listen, (struct sockaddr *)&a) == 0);
    CHECK(listen->verbs != NULL); /* bound to a device's address */
    CHECK(rdma_listen(listen, 4) == 0);
    port = ntohs(rdma_get_src_port(listen));
    CHECK(write(fds[1], &port, sizeof(port)) == (ssize_t)sizeof(port));
    serve(ch, listen, &ctx);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(rdma_destroy_id(listen) == 0);
    rdma_destroy_event_channel(ch);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "the client failed (status 0x%x)\n", status);
        return 1;
    }
    printf("%s: passed\n", mode);
    return 0;
}
