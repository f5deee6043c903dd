/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XRC on softmlx5, one device: an XRC initiator QP sends to an XRC target
 * QP into two different XRC SRQs of the target's domain (each completion on
 * the SRQs' CQ, with the target's QPN and the initiator's as src_qp); RDMA
 * write, write with immediate (into the named SRQ), read and fetch-add over
 * XRC (the XRC annex allows them all); the ibv_wr_* builder's
 * ibv_wr_set_xrc_srqn before and after the data; an SRQ of another domain
 * is refused with a remote invalid request error, consuming nothing; what
 * XRC QPs do not have (receive queues, a target's send queue, ibv_open_qp);
 * XRC domains opened on a file (shared by inode, O_CREAT, O_EXCL) and the
 * destroy order (EBUSY for a domain or CQ still in use).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS                                                                   \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define SRC_OFF 0u
#define DST_OFF 65536u
#define RX1_OFF 131072u
#define RX2_OFF 196608u
#define RX3_OFF 262144u

static struct vu_ctx c;
static struct ibv_xrcd *xrcd, *other_xrcd;
static struct ibv_cq *scq, *rcq, *other_cq;
static struct ibv_srq *srq1, *srq2, *other_srq;
static uint32_t srqn1, srqn2, other_srqn;
static struct vu_end ini, tgt; /* only their qp (and ini's buffer) are used */
static uint8_t *buf;
static struct ibv_mr *mr;

static struct ibv_srq *xrc_srq(struct ibv_xrcd *d, struct ibv_cq *cq)
{
    struct ibv_srq_init_attr_ex a;

    memset(&a, 0, sizeof(a));
    a.attr.max_wr = 16;
    a.attr.max_sge = 1;
    a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
                  IBV_SRQ_INIT_ATTR_PD;
    a.srq_type = IBV_SRQT_XRC;
    a.pd = c.pd;
    a.xrcd = d;
    a.cq = cq;
    return ibv_create_srq_ex(c.ctx, &a);
}

static struct ibv_qp *xrc_qp(enum ibv_qp_type type, uint64_t send_ops)
{
    struct ibv_qp_init_attr_ex a;

    memset(&a, 0, sizeof(a));
    a.qp_type = type;
    if (type == IBV_QPT_XRC_RECV) {
        a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
        a.xrcd = xrcd;
        return ibv_create_qp_ex(c.ctx, &a);
    }
    a.comp_mask = IBV_QP_INIT_ATTR_PD | (send_ops ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0);
    a.pd = c.pd;
    a.send_cq = scq;
    a.cap.max_send_wr = 16;
    a.cap.max_send_sge = 1;
    a.send_ops_flags = send_ops;
    return ibv_create_qp_ex(c.ctx, &a);
}

static int srq_recv(struct ibv_srq *srq, uint64_t wr_id, uint32_t off, uint32_t len)
{
    struct ibv_sge sge = {(uintptr_t)buf + off, len, mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;

    return ibv_post_srq_recv(srq, &wr, &bad);
}

/* One signalled work request from the initiator into XRC SRQ srqn; its completion status. */
static int xrc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t srqn, uint32_t off,
                    uint32_t len, uint32_t roff)
{
    struct ibv_sge sge = {(uintptr_t)buf + off, len, mr->lkey};
    struct ibv_send_wr wr, *bad;
    struct ibv_wc wc;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 77;
    wr.opcode = op;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htobe32(0x1234);
    wr.qp_type.xrc.remote_srqn = srqn;
    if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        wr.wr.atomic.remote_addr = (uintptr_t)buf + roff;
        wr.wr.atomic.rkey = mr->rkey;
        wr.wr.atomic.compare_add = 5;
    } else {
        wr.wr.rdma.remote_addr = (uintptr_t)buf + roff;
        wr.wr.rdma.rkey = mr->rkey;
    }
    if (ibv_post_send(qp, &wr, &bad) != 0)
        return -2;
    return vu_wait(scq, &wc, 3000) == 1 && wc.wr_id == 77 ? (int)wc.status : -1;
}

static void fill(uint32_t off, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        buf[off + i] = (uint8_t)(seed + i);
}

static void test_send_two_srqs(void)
{
    struct ibv_wc wc[2];
    int got = 0;

    VU_CHECK(srq_recv(srq1, 11, RX1_OFF, 4096) == 0 && srq_recv(srq2, 22, RX2_OFF, 4096) == 0,
             "receives posted to both XRC SRQs");
    fill(SRC_OFF, 300, 1);
    VU_CHECK(xrc_post(ini.qp, IBV_WR_SEND, srqn2, SRC_OFF, 300, 0) == IBV_WC_SUCCESS,
             "send into SRQ 2 completes");
    fill(SRC_OFF + 4096, 500, 9);
    VU_CHECK(xrc_post(ini.qp, IBV_WR_SEND, srqn1, SRC_OFF + 4096, 500, 0) == IBV_WC_SUCCESS,
             "send into SRQ 1 completes");
    while (got < 2 && vu_wait(rcq, &wc[got], 3000) == 1)
        got++;
    VU_CHECK(got == 2, "two receive completions on the XRC SRQs' CQ (%d)", got);
    if (got != 2)
        return;
    VU_CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 22 && wc[0].byte_len == 300 &&
                     wc[0].opcode == IBV_WC_RECV,
             "the first send took SRQ 2's receive (wr_id %lu, %u bytes)",
             (unsigned long)wc[0].wr_id, wc[0].byte_len);
    VU_CHECK(wc[1].status == IBV_WC_SUCCESS && wc[1].wr_id == 11 && wc[1].byte_len == 500,
             "the second took SRQ 1's (wr_id %lu)", (unsigned long)wc[1].wr_id);
    VU_CHECK(wc[0].qp_num == tgt.qp->qp_num && wc[0].src_qp == ini.qp->qp_num,
             "completion names the target QP 0x%x and the initiator 0x%x as src_qp", wc[0].qp_num,
             wc[0].src_qp);
    VU_CHECK(memcmp(buf + RX2_OFF, buf + SRC_OFF, 300) == 0 &&
                     memcmp(buf + RX1_OFF, buf + SRC_OFF + 4096, 500) == 0,
             "each message landed in its SRQ's buffer");
}

static void test_write_read_atomic(void)
{
    struct ibv_wc wc;
    uint64_t v;

    fill(SRC_OFF, 8192, 3);
    VU_CHECK(xrc_post(ini.qp, IBV_WR_RDMA_WRITE, srqn1, SRC_OFF, 8192, DST_OFF) == IBV_WC_SUCCESS &&
                     memcmp(buf + DST_OFF, buf + SRC_OFF, 8192) == 0,
             "RDMA write over XRC");
    VU_CHECK(srq_recv(srq2, 33, RX2_OFF, 64) == 0, "receive posted");
    VU_CHECK(xrc_post(ini.qp, IBV_WR_RDMA_WRITE_WITH_IMM, srqn2, SRC_OFF, 64, DST_OFF + 8192) ==
                     IBV_WC_SUCCESS,
             "write with immediate over XRC");
    VU_CHECK(vu_wait(rcq, &wc, 3000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 33 &&
                     wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) &&
                     wc.imm_data == htobe32(0x1234),
             "its immediate took SRQ 2's receive");
    memset(buf + SRC_OFF, 0, 4096);
    fill(DST_OFF, 4096, 7);
    VU_CHECK(xrc_post(ini.qp, IBV_WR_RDMA_READ, srqn1, SRC_OFF, 4096, DST_OFF) == IBV_WC_SUCCESS &&
                     memcmp(buf + DST_OFF, buf + SRC_OFF, 4096) == 0,
             "RDMA read over XRC (allowed by the XRC annex)");
    v = htobe64(10);
    memcpy(buf + DST_OFF, &v, 8);
    VU_CHECK(xrc_post(ini.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, srqn1, SRC_OFF, 8, DST_OFF) ==
                     IBV_WC_SUCCESS,
             "fetch-add over XRC");
    memcpy(&v, buf + DST_OFF, 8);
    VU_CHECK(be64toh(v) == 15, "target added to (%lu)", (unsigned long)be64toh(v));
    memcpy(&v, buf + SRC_OFF, 8);
    VU_CHECK(be64toh(v) == 10, "original value returned (%lu)", (unsigned long)be64toh(v));
}

/* The ibv_wr_* builder: the SRQ given after the data, then before it. */
static void test_wr_set_xrc_srqn(void)
{
    struct ibv_qp *qp = xrc_qp(IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_SEND);
    struct ibv_qp_ex *qpx = qp != NULL ? ibv_qp_to_qp_ex(qp) : NULL;
    struct vu_end e = {.qp = qp};
    struct vu_info it = {.qpn = tgt.qp->qp_num};
    struct ibv_wc wc;
    int n = 0;

    VU_CHECK(qpx != NULL, "extended XRC initiator QP: %s", strerror(errno));
    if (qpx == NULL)
        return;
    /* A second initiator to the same target: the target is reset and connected to it. */
    ibv_query_gid(c.ctx, 1, 0, &it.gid);
    VU_CHECK(ibv_modify_qp(tgt.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                           IBV_QP_STATE) == 0,
             "target reset");
    {
        struct vu_info ii = {.qpn = qp->qp_num, .gid = it.gid};

        VU_CHECK(vu_connect(&tgt, &ii, ACCESS, 7) == 0 && vu_connect(&e, &it, 0, 7) == 0,
                 "extended initiator connected");
    }
    VU_CHECK(srq_recv(srq1, 44, RX1_OFF, 64) == 0 && srq_recv(srq2, 55, RX2_OFF, 64) == 0,
             "receives posted");
    ibv_wr_start(qpx);
    qpx->wr_id = 1;
    qpx->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_send(qpx);
    ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 16);
    ibv_wr_set_xrc_srqn(qpx, srqn2);
    qpx->wr_id = 2;
    ibv_wr_send(qpx);
    ibv_wr_set_xrc_srqn(qpx, srqn1);
    ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 24);
    VU_CHECK(ibv_wr_complete(qpx) == 0, "two sends built");
    while (n < 2 && vu_wait(scq, &wc, 3000) == 1 && wc.status == IBV_WC_SUCCESS)
        n++;
    VU_CHECK(n == 2, "both sends complete (%d)", n);
    VU_CHECK(vu_wait(rcq, &wc, 3000) == 1 && wc.wr_id == 55 && wc.byte_len == 16 &&
                     vu_wait(rcq, &wc, 3000) == 1 && wc.wr_id == 44 && wc.byte_len == 24,
             "each into the SRQ it named");
    ibv_wr_start(qpx);
    ibv_wr_send(qpx);
    ibv_wr_set_ud_addr(qpx, NULL, 1, 1);
    VU_CHECK(ibv_wr_complete(qpx) == EINVAL, "ibv_wr_set_ud_addr on XRC: EINVAL");
    VU_CHECK(ibv_destroy_qp(qp) == 0, "extended initiator destroyed");
    /* The first initiator's target again. */
    {
        struct vu_info ii = {.qpn = ini.qp->qp_num, .gid = it.gid};

        VU_CHECK(ibv_modify_qp(tgt.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                               IBV_QP_STATE) == 0 &&
                         ibv_modify_qp(ini.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                                       IBV_QP_STATE) == 0 &&
                         vu_connect(&tgt, &ii, ACCESS, 7) == 0 && vu_connect(&ini, &it, 0, 7) == 0,
                 "first initiator reconnected");
    }
}

/*
 * A send that reaches the target before the target is ready (still in
 * INIT, as Debian's ibv_xsrq_pingpong's server sends before its client has
 * connected its target) is dropped and sent again: it completes once the
 * target is connected.
 */
static void test_late_target(void)
{
    struct vu_info it = {.qpn = tgt.qp->qp_num}, ii = {.qpn = ini.qp->qp_num};
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    struct ibv_wc wc;
    struct timespec pause = {0, 100 * 1000 * 1000};
    int st;

    ibv_query_gid(c.ctx, 1, 0, &it.gid);
    ii.gid = it.gid;
    VU_CHECK(ibv_modify_qp(tgt.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                           IBV_QP_STATE) == 0 &&
                     ibv_modify_qp(ini.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                                   IBV_QP_STATE) == 0 &&
                     ibv_modify_qp(tgt.qp, &init,
                                   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                           IBV_QP_ACCESS_FLAGS) == 0 &&
                     vu_connect(&ini, &it, 0, 7) == 0,
             "initiator connected, target still in INIT");
    VU_CHECK(srq_recv(srq1, 88, RX1_OFF, 64) == 0, "receive posted");
    {
        struct ibv_sge sge = {(uintptr_t)buf, 16, mr->lkey};
        struct ibv_send_wr wr = {.wr_id = 78,
                                 .sg_list = &sge,
                                 .num_sge = 1,
                                 .opcode = IBV_WR_SEND,
                                 .send_flags = IBV_SEND_SIGNALED},
                           *bad;

        wr.qp_type.xrc.remote_srqn = srqn1;
        VU_CHECK(ibv_post_send(ini.qp, &wr, &bad) == 0, "send posted");
    }
    nanosleep(&pause, NULL);
    /* The rest of the target's connection (vu_connect's RTR and RTS), from INIT. */
    {
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR,
                                .path_mtu = IBV_MTU_1024,
                                .dest_qp_num = ii.qpn,
                                .max_dest_rd_atomic = 1,
                                .min_rnr_timer = 1};

        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = ii.gid;
        a.ah_attr.grh.hop_limit = 1;
        a.ah_attr.port_num = 1;
        st = ibv_modify_qp(tgt.qp, &a,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                   IBV_QP_MIN_RNR_TIMER);
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_RTS;
        a.timeout = 14;
        VU_CHECK(st == 0 && ibv_modify_qp(tgt.qp, &a,
                                          IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN) == 0,
                 "target connected late");
    }
    VU_CHECK(vu_wait(scq, &wc, 3000) == 1 && wc.wr_id == 78 && wc.status == IBV_WC_SUCCESS,
             "the send completes once sent again (status %d)", wc.status);
    VU_CHECK(vu_wait(rcq, &wc, 3000) == 1 && wc.wr_id == 88, "and is received");
}

static void test_missing(void)
{
    struct ibv_sge sge = {(uintptr_t)buf, 8, mr->lkey};
    struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *rbad;
    struct ibv_send_wr swr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND}, *sbad;
    struct ibv_qp_open_attr oa = {.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
                                               IBV_QP_OPEN_ATTR_TYPE,
                                  .qp_num = tgt.qp->qp_num,
                                  .xrcd = xrcd,
                                  .qp_type = IBV_QPT_XRC_RECV};
    uint32_t n = 0;

    VU_CHECK(ibv_post_recv(ini.qp, &rwr, &rbad) == EINVAL, "initiator has no receive queue");
    VU_CHECK(ibv_post_recv(tgt.qp, &rwr, &rbad) == EINVAL, "target has no receive queue");
    VU_CHECK(ibv_post_send(tgt.qp, &swr, &sbad) == EINVAL, "target has no send queue");
    VU_CHECK(ibv_open_qp(c.ctx, &oa) == NULL && errno == EOPNOTSUPP, "ibv_open_qp: EOPNOTSUPP");
    VU_CHECK(ibv_get_srq_num(srq1, &n) == 0 && n == srqn1, "ibv_get_srq_num");
}

/* Last: the refusal moves the initiator to ERR. */
static void test_wrong_domain(void)
{
    struct ibv_wc wc;
    int st;

    VU_CHECK(srq_recv(other_srq, 66, RX3_OFF, 64) == 0, "receive posted to the other domain");
    st = xrc_post(ini.qp, IBV_WR_SEND, other_srqn, SRC_OFF, 32, 0);
    VU_CHECK(st == IBV_WC_REM_INV_REQ_ERR, "SRQ of another domain: remote invalid request (%d)",
             st);
    VU_CHECK(vu_wait(other_cq, &wc, 200) == 0 && vu_wait(rcq, &wc, 50) == 0,
             "nothing received anywhere");
    /* An SRQN of no SRQ on the target's device fails as well (the initiator reconnected). */
    {
        struct vu_info it = {.qpn = tgt.qp->qp_num}, ii = {.qpn = ini.qp->qp_num};

        ibv_query_gid(c.ctx, 1, 0, &it.gid);
        ii.gid = it.gid;
        VU_CHECK(ibv_modify_qp(tgt.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                               IBV_QP_STATE) == 0 &&
                         ibv_modify_qp(ini.qp, &(struct ibv_qp_attr){.qp_state = IBV_QPS_RESET},
                                       IBV_QP_STATE) == 0 &&
                         vu_connect(&tgt, &ii, ACCESS, 7) == 0 && vu_connect(&ini, &it, 0, 7) == 0,
                 "reconnected");
    }
    st = xrc_post(ini.qp, IBV_WR_RDMA_WRITE, srqn1 ^ (1u << 23), SRC_OFF, 32, DST_OFF);
    VU_CHECK(st == IBV_WC_REM_INV_REQ_ERR, "SRQN of another device: remote invalid request (%d)",
             st);
}

/* Domains on a file, and the destroy order. */
static void test_domains(void)
{
    char path[] = "/tmp/test_verbs_xrc.XXXXXX";
    int fd = mkstemp(path);
    struct ibv_xrcd_init_attr a = {
            .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, .fd = fd, .oflags = 0};
    struct ibv_xrcd *d1, *d2;
    struct ibv_srq *s;

    VU_CHECK(fd >= 0, "temporary file");
    VU_CHECK(ibv_open_xrcd(c.ctx, &a) == NULL && errno == EINVAL,
             "a file without a domain, no O_CREAT: EINVAL");
    a.oflags = O_CREAT;
    d1 = ibv_open_xrcd(c.ctx, &a);
    VU_CHECK(d1 != NULL, "O_CREAT makes the file's domain");
    a.oflags = O_CREAT | O_EXCL;
    VU_CHECK(ibv_open_xrcd(c.ctx, &a) == NULL && errno == EEXIST, "O_EXCL on it: EEXIST");
    a.oflags = 0;
    d2 = ibv_open_xrcd(c.ctx, &a);
    VU_CHECK(d2 != NULL, "the file's domain opened again");
    s = d1 != NULL ? xrc_srq(d1, rcq) : NULL;
    VU_CHECK(s != NULL, "XRC SRQ in it");
    VU_CHECK(d1 != NULL && ibv_close_xrcd(d1) == 0, "one opener closes while the other holds it");
    VU_CHECK(d2 != NULL && ibv_close_xrcd(d2) == EBUSY, "the last opener, SRQ in it: EBUSY");
    VU_CHECK(s != NULL && ibv_destroy_srq(s) == 0 && d2 != NULL && ibv_close_xrcd(d2) == 0,
             "closes once the SRQ is gone");
    close(fd);
    unlink(path);
    VU_CHECK(ibv_close_xrcd(xrcd) == EBUSY, "domain with SRQs and a target QP: EBUSY");
    VU_CHECK(ibv_destroy_cq(rcq) == EBUSY, "the XRC SRQs' CQ: EBUSY");
}

static void teardown(void)
{
    VU_CHECK(ibv_destroy_qp(tgt.qp) == 0 && ibv_destroy_qp(ini.qp) == 0, "QPs destroyed");
    VU_CHECK(ibv_close_xrcd(xrcd) == EBUSY, "SRQs still in the domain: EBUSY");
    VU_CHECK(ibv_destroy_srq(srq1) == 0 && ibv_destroy_srq(srq2) == 0 &&
                     ibv_destroy_srq(other_srq) == 0,
             "SRQs destroyed");
    VU_CHECK(ibv_close_xrcd(xrcd) == 0 && ibv_close_xrcd(other_xrcd) == 0, "domains closed");
    VU_CHECK(ibv_destroy_cq(rcq) == 0 && ibv_destroy_cq(other_cq) == 0 && ibv_destroy_cq(scq) == 0,
             "CQs destroyed");
    ibv_dereg_mr(mr);
    free(buf);
    vu_close(&c);
}

int main(void)
{
    struct ibv_xrcd_init_attr xa = {.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
                                    .fd = -1,
                                    .oflags = O_CREAT};
    struct vu_info it, ii;

    if (vu_open(&c) != 0 || (xrcd = ibv_open_xrcd(c.ctx, &xa)) == NULL ||
        (other_xrcd = ibv_open_xrcd(c.ctx, &xa)) == NULL ||
        (scq = ibv_create_cq(c.ctx, 16, NULL, NULL, 0)) == NULL ||
        (rcq = ibv_create_cq(c.ctx, 16, NULL, NULL, 0)) == NULL ||
        (other_cq = ibv_create_cq(c.ctx, 16, NULL, NULL, 0)) == NULL ||
        (srq1 = xrc_srq(xrcd, rcq)) == NULL || (srq2 = xrc_srq(xrcd, rcq)) == NULL ||
        (other_srq = xrc_srq(other_xrcd, other_cq)) == NULL || ibv_get_srq_num(srq1, &srqn1) ||
        ibv_get_srq_num(srq2, &srqn2) || ibv_get_srq_num(other_srq, &other_srqn) ||
        (ini.qp = xrc_qp(IBV_QPT_XRC_SEND, 0)) == NULL ||
        (tgt.qp = xrc_qp(IBV_QPT_XRC_RECV, 0)) == NULL ||
        posix_memalign((void **)&buf, 4096, VU_BUF_SIZE) != 0 ||
        (mr = ibv_reg_mr(c.pd, buf, VU_BUF_SIZE, ACCESS)) == NULL) {
        VU_CHECK(false, "XRC set-up: %s", strerror(errno));
        return vu_summary("test_verbs_xrc");
    }
    VU_CHECK(srqn1 != srqn2 && tgt.qp->srq == NULL && tgt.qp->send_cq == NULL,
             "two SRQ numbers; the target has no SRQ or CQ of its own");
    it.qpn = tgt.qp->qp_num;
    ii.qpn = ini.qp->qp_num;
    ibv_query_gid(c.ctx, 1, 0, &it.gid);
    ii.gid = it.gid;
    VU_CHECK(vu_connect(&tgt, &ii, ACCESS, 7) == 0 && vu_connect(&ini, &it, 0, 7) == 0,
             "initiator and target connected");
    test_send_two_srqs();
    test_write_read_atomic();
    test_wr_set_xrc_srqn();
    test_late_target();
    test_missing();
    test_domains();
    test_wrong_domain();
    teardown();
    return vu_summary("test_verbs_xrc");
}
