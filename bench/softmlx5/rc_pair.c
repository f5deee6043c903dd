/* SPDX-License-Identifier: BSD-3-Clause */
#include "rc_pair.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "watchdog.h"

struct rc_peer_info {
    uint32_t qpn;
    uint32_t rkey;
    uint64_t addr;
    uint16_t lid;
    uint8_t gid[16];
};

double bench_now_sec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_full_io(int fd, void *buf, size_t len, int writing)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int rc_pair_sync(int fd)
{
    char c = 's';

    return bench_full_io(fd, &c, 1, 1) || bench_full_io(fd, &c, 1, 0) ? -1 : 0;
}

static int rc_connect(struct rc_pair *p, const struct rc_peer_info *peer)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(p->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_4096;
    a.dest_qp_num = peer->qpn;
    a.max_dest_rd_atomic = 16;
    a.min_rnr_timer = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.dlid = peer->lid;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.hop_limit = 64;
    memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
    if (ibv_modify_qp(p->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 16;
    return ibv_modify_qp(p->qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
                   ? -1
                   : 0;
}

int rc_pair_open(struct rc_pair *p, int fd, size_t buf_size, int queue_depth)
{
    struct rc_pair_opts opts = {.buf_size = buf_size, .send_depth = queue_depth, .recv_depth = 1};

    return rc_pair_open_opts(p, fd, &opts);
}

int rc_pair_open_opts(struct rc_pair *p, int fd, const struct rc_pair_opts *opts)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_qp_init_attr init;
    struct ibv_port_attr port;
    struct rc_peer_info me, peer;
    union ibv_gid gid;
    size_t buf_size = opts->buf_size;

    memset(p, 0, sizeof(*p));
    if (list == NULL || list[0] == NULL) {
        fprintf(stderr, "no RDMA device (run under softmlx5-run)\n");
        if (list != NULL)
            ibv_free_device_list(list);
        return -1;
    }
    p->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (p->ctx == NULL)
        return -1;
    p->pd = ibv_alloc_pd(p->ctx);
    if (opts->events) {
        p->channel = ibv_create_comp_channel(p->ctx);
        if (p->channel == NULL) {
            fprintf(stderr, "cannot create a completion channel\n");
            return -1;
        }
    }
    p->cq = ibv_create_cq(p->ctx, (opts->send_depth + opts->recv_depth) * 2, NULL, p->channel, 0);
    if (posix_memalign(&p->buf, 4096, buf_size) != 0)
        return -1;
    memset(p->buf, 0, buf_size);
    p->buf_size = buf_size;
    p->mr = ibv_reg_mr(p->pd, p->buf, buf_size,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    memset(&init, 0, sizeof(init));
    init.send_cq = p->cq;
    init.recv_cq = p->cq;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = (uint32_t)opts->send_depth;
    init.cap.max_recv_wr = (uint32_t)(opts->recv_depth > 0 ? opts->recv_depth : 1);
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = 64;
    p->qp = p->pd && p->cq && p->mr ? ibv_create_qp(p->pd, &init) : NULL;
    if (p->qp == NULL || ibv_query_port(p->ctx, 1, &port) || ibv_query_gid(p->ctx, 1, 0, &gid)) {
        fprintf(stderr, "cannot create the RC QP\n");
        return -1;
    }
    memset(&me, 0, sizeof(me));
    me.qpn = p->qp->qp_num;
    me.rkey = p->mr->rkey;
    me.addr = (uintptr_t)p->buf;
    me.lid = port.lid;
    memcpy(me.gid, gid.raw, 16);
    if (bench_full_io(fd, &me, sizeof(me), 1) || bench_full_io(fd, &peer, sizeof(peer), 0))
        return -1;
    p->peer_addr = peer.addr;
    p->peer_rkey = peer.rkey;
    if (rc_connect(p, &peer)) {
        fprintf(stderr, "cannot connect the RC QP\n");
        return -1;
    }
    return rc_pair_sync(fd);
}

void rc_pair_close(struct rc_pair *p)
{
    if (p->qp)
        ibv_destroy_qp(p->qp);
    if (p->mr)
        ibv_dereg_mr(p->mr);
    if (p->cq)
        ibv_destroy_cq(p->cq);
    if (p->channel)
        ibv_destroy_comp_channel(p->channel);
    if (p->pd)
        ibv_dealloc_pd(p->pd);
    if (p->ctx)
        ibv_close_device(p->ctx);
    free(p->buf);
}

static int rc_pair_post(struct rc_pair *p, enum ibv_wr_opcode opcode, size_t local, size_t remote,
                        size_t len, int signaled, uint64_t wr_id, uint32_t imm)
{
    struct ibv_sge sge = {(uintptr_t)p->buf + local, (uint32_t)len, p->mr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode;
    wr.imm_data = htonl(imm);
    wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (len <= 64 ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = p->peer_addr + remote;
    wr.wr.rdma.rkey = p->peer_rkey;
    return ibv_post_send(p->qp, &wr, &bad);
}

int rc_pair_write(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                  uint64_t wr_id)
{
    return rc_pair_post(p, IBV_WR_RDMA_WRITE, local, remote, len, signaled, wr_id, 0);
}

int rc_pair_write_imm(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                      uint64_t wr_id, uint32_t imm)
{
    return rc_pair_post(p, IBV_WR_RDMA_WRITE_WITH_IMM, local, remote, len, signaled, wr_id, imm);
}

int rc_pair_post_recv(struct rc_pair *p, size_t local, size_t len, uint64_t wr_id)
{
    struct ibv_sge sge = {(uintptr_t)p->buf + local, (uint32_t)len, p->mr->lkey};
    struct ibv_recv_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    return ibv_post_recv(p->qp, &wr, &bad);
}

int rc_pair_next(struct rc_pair *p, struct ibv_wc *wc, int max, int sleep)
{
    for (;;) {
        int got = ibv_poll_cq(p->cq, max < 16 ? max : 16, wc);
        struct ibv_cq *ev_cq;
        void *ev_ctx;

        if (got < 0) {
            fprintf(stderr, "ibv_poll_cq failed\n");
            return -1;
        }
        for (int i = 0; i < got; i++) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                fprintf(stderr, "completion error: %s (wr_id %llu)\n",
                        ibv_wc_status_str(wc[i].status), (unsigned long long)wc[i].wr_id);
                return -1;
            }
        }
        if (got > 0 || !sleep)
            return got;
        if (!p->armed) {
            /* Arm, then poll again: a completion that came before the arming raises no event. */
            if (ibv_req_notify_cq(p->cq, 0)) {
                fprintf(stderr, "ibv_req_notify_cq failed\n");
                return -1;
            }
            p->armed = 1;
            continue;
        }
        if (ibv_get_cq_event(p->channel, &ev_cq, &ev_ctx)) {
            fprintf(stderr, "ibv_get_cq_event failed\n");
            return -1;
        }
        ibv_ack_cq_events(ev_cq, 1);
        p->armed = 0;
    }
}

int rc_pair_reap(struct rc_pair *p)
{
    struct ibv_wc wc[16];

    return rc_pair_next(p, wc, 16, 0);
}

int rc_pair_wait(struct rc_pair *p, int n)
{
    struct ibv_wc wc[16];

    while (n > 0) {
        int got = rc_pair_next(p, wc, n, 0);

        if (got < 0)
            return -1;
        n -= got;
    }
    return 0;
}

double rc_pair_stream(struct rc_pair *p, const struct rc_stream *s, double *secs)
{
    size_t posted = 0, done = 0;
    double t0 = bench_now_sec(), t1 = t0;
    int stop = 0;

    while (done < posted || (!stop && posted < s->count)) {
        int reaped;

        while (!stop && posted < s->count && posted - done < (size_t)s->depth) {
            size_t off = (posted % s->slots) * s->size;

            if (rc_pair_write(p, off, s->remote_base + off, s->size, 1, posted))
                return -1;
            posted++;
        }
        reaped = rc_pair_reap(p);
        if (reaped < 0)
            return -1;
        if (reaped > 0) {
            done += (size_t)reaped;
            bench_tick();
        }
        t1 = bench_now_sec();
        if (t1 - t0 > s->max_secs)
            stop = 1;
    }
    *secs = t1 - t0;
    return (double)(done * s->size);
}
