/* SPDX-License-Identifier: BSD-3-Clause */
#include "verbs_util.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int vu_passed, vu_failed;

int vu_open(struct vu_ctx *c)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);

    memset(c, 0, sizeof(*c));
    if (list == NULL || n == 0)
        return -1;
    c->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (c->ctx == NULL)
        return -1;
    c->pd = ibv_alloc_pd(c->ctx);
    return c->pd == NULL ? -1 : 0;
}

void vu_close(struct vu_ctx *c)
{
    ibv_dealloc_pd(c->pd);
    ibv_close_device(c->ctx);
}

static int end_create(struct vu_ctx *c, struct vu_end *e, enum ibv_qp_type type, int cqe,
                      const struct ibv_qp_cap *cap, int access, uint64_t send_ops_flags,
                      vu_make_qp_fn make_qp)
{
    struct ibv_qp_init_attr_ex a;

    memset(e, 0, sizeof(*e));
    e->cq = ibv_create_cq(c->ctx, cqe, NULL, NULL, 0);
    e->buf = aligned_alloc(4096, VU_BUF_SIZE);
    if (e->cq == NULL || e->buf == NULL)
        return -1;
    memset(e->buf, 0, VU_BUF_SIZE);
    e->mr = ibv_reg_mr(c->pd, e->buf, VU_BUF_SIZE, access);
    memset(&a, 0, sizeof(a));
    a.send_cq = e->cq;
    a.recv_cq = e->cq;
    a.qp_type = type;
    a.cap = *cap;
    a.pd = c->pd;
    a.comp_mask = IBV_QP_INIT_ATTR_PD;
    if (send_ops_flags != 0) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = send_ops_flags;
    }
    e->qp = make_qp != NULL ? make_qp(c->ctx, &a) : ibv_create_qp_ex(c->ctx, &a);
    return e->mr == NULL || e->qp == NULL ? -1 : 0;
}

int vu_end_create(struct vu_ctx *c, struct vu_end *e, int cqe, uint32_t sq, uint32_t rq, int access)
{
    return vu_end_create_type(c, e, IBV_QPT_RC, cqe, sq, rq, access);
}

int vu_end_create_type(struct vu_ctx *c, struct vu_end *e, enum ibv_qp_type type, int cqe,
                       uint32_t sq, uint32_t rq, int access)
{
    struct ibv_qp_cap cap = {.max_send_wr = sq,
                             .max_recv_wr = rq,
                             .max_send_sge = 2,
                             .max_recv_sge = 2,
                             .max_inline_data = 64};

    return end_create(c, e, type, cqe, &cap, access, 0, NULL);
}

int vu_end_create_ex(struct vu_ctx *c, struct vu_end *e, int cqe, const struct ibv_qp_cap *cap,
                     int access, uint64_t send_ops_flags, vu_make_qp_fn make_qp)
{
    return end_create(c, e, IBV_QPT_RC, cqe, cap, access, send_ops_flags, make_qp);
}

void vu_end_destroy(struct vu_end *e)
{
    if (e->qp)
        ibv_destroy_qp(e->qp);
    if (e->mr)
        ibv_dereg_mr(e->mr);
    if (e->cq)
        ibv_destroy_cq(e->cq);
    free(e->buf);
}

void vu_info_of(struct vu_ctx *c, struct vu_end *e, struct vu_info *info)
{
    info->qpn = e->qp->qp_num;
    info->rkey = e->mr->rkey;
    info->addr = (uintptr_t)e->buf;
    ibv_query_gid(c->ctx, 1, 0, &info->gid);
}

int vu_connect_rtr(struct vu_end *e, const struct vu_info *remote, int qp_access)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = (unsigned int)qp_access;
    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = remote->qpn;
    a.rq_psn = 0;
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = remote->gid;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    return ibv_modify_qp(e->qp, &a,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
                   ? -1
                   : 0;
}

int vu_connect(struct vu_end *e, const struct vu_info *remote, int qp_access, uint8_t rnr_retry)
{
    struct ibv_qp_attr a;

    if (vu_connect_rtr(e, remote, qp_access) != 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = rnr_retry;
    a.sq_psn = 0;
    a.max_rd_atomic = 4;
    return ibv_modify_qp(e->qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
                   ? -1
                   : 0;
}

int vu_connect_uc(struct vu_end *e, const struct vu_info *remote)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = remote->qpn;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = remote->gid;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

int vu_ready_ud(struct vu_end *e, uint32_t qkey)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qkey = qkey;
    if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
        return -1;
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE))
        return -1;
    a.qp_state = IBV_QPS_RTS;
    return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

static long vu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int vu_wait(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
    long end = vu_ms() + timeout_ms;

    do {
        int n = ibv_poll_cq(cq, 1, wc);

        if (n != 0)
            return n;
    } while (vu_ms() < end);
    return 0;
}

int vu_post(struct vu_end *e, enum ibv_wr_opcode op, uint64_t wr_id, uint32_t off, uint32_t len,
            const struct vu_info *remote, uint64_t roff, unsigned int flags)
{
    struct ibv_sge sge = {(uintptr_t)e->buf + off, len, e->mr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = flags;
    wr.imm_data = htonl(0x1234abcd);
    if (remote != NULL) {
        if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
            wr.wr.atomic.remote_addr = remote->addr + roff;
            wr.wr.atomic.rkey = remote->rkey;
        } else {
            wr.wr.rdma.remote_addr = remote->addr + roff;
            wr.wr.rdma.rkey = remote->rkey;
        }
    }
    return ibv_post_send(e->qp, &wr, &bad);
}

int vu_post_recv(struct vu_end *e, uint64_t wr_id, uint32_t off, uint32_t len)
{
    struct ibv_sge sge = {(uintptr_t)e->buf + off, len, e->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;

    return ibv_post_recv(e->qp, &wr, &bad);
}

int vu_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, vu_passed, vu_failed);
    return vu_failed == 0 ? 0 : 1;
}

int vu_xfer(int fd, void *p, size_t len, bool wr)
{
    uint8_t *b = p;

    while (len > 0) {
        ssize_t n = wr ? write(fd, b, len) : read(fd, b, len);

        if (n <= 0)
            return -1;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

int vu_fork_pair(int (*a)(int sock, pid_t child), int (*b)(int sock))
{
    int sv[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 2;
    pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        close(sv[0]);
        _exit(b(sv[1]));
    }
    close(sv[1]);
    return a(sv[0], pid);
}
