/* SPDX-License-Identifier: BSD-3-Clause */
#include "rc_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_qp_init_attr init;
    struct ibv_port_attr port;
    struct rc_peer_info me, peer;
    union ibv_gid gid;

    memset(p, 0, sizeof(*p));
    if (list == NULL || list[0] == NULL) {
        fprintf(stderr, "no RDMA device (run under softmlx5-run)\n");
        return -1;
    }
    p->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (p->ctx == NULL)
        return -1;
    p->pd = ibv_alloc_pd(p->ctx);
    p->cq = ibv_create_cq(p->ctx, queue_depth * 2, NULL, NULL, 0);
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
    init.cap.max_send_wr = (uint32_t)queue_depth;
    init.cap.max_recv_wr = 1;
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
    if (p->pd)
        ibv_dealloc_pd(p->pd);
    if (p->ctx)
        ibv_close_device(p->ctx);
    free(p->buf);
}

int rc_pair_write(struct rc_pair *p, size_t local, size_t remote, size_t len, int signaled,
                  uint64_t wr_id)
{
    struct ibv_sge sge = {(uintptr_t)p->buf + local, (uint32_t)len, p->mr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (len <= 64 ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = p->peer_addr + remote;
    wr.wr.rdma.rkey = p->peer_rkey;
    return ibv_post_send(p->qp, &wr, &bad);
}

/* Polls up to max completions; their number, or -1 on an error completion. */
static int rc_pair_poll(struct rc_pair *p, int max)
{
    struct ibv_wc wc[16];
    int got = ibv_poll_cq(p->cq, max < 16 ? max : 16, wc);

    for (int i = 0; i < got; i++) {
        if (wc[i].status != IBV_WC_SUCCESS) {
            fprintf(stderr, "completion error: %s\n", ibv_wc_status_str(wc[i].status));
            return -1;
        }
    }
    return got;
}

int rc_pair_reap(struct rc_pair *p)
{
    return rc_pair_poll(p, 16);
}

int rc_pair_wait(struct rc_pair *p, int n)
{
    while (n > 0) {
        int got = rc_pair_poll(p, n);

        if (got < 0)
            return -1;
        n -= got;
    }
    return 0;
}
