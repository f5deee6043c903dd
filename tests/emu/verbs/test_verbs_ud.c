/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD queue pairs on softmlx5, two of them on one device: sends through
 * address handles with the 40-byte GRH area at the start of the receive
 * buffer (RoCE v2: the IPv4 header in its last 20 bytes; InfiniBand, run
 * with --link ib: the GRH, or none for an address handle without one, and
 * the sender's LID in the completion) and the completion's GRH flag, source
 * QP and immediate; an answer through an address handle made from the
 * completion (ibv_create_ah_from_wc); a datagram with a wrong
 * Q_Key dropped and counted, a controlled Q_Key in the work request (high
 * bit) standing for the sender QP's own; a send over the port MTU completing
 * with a local length error and the QP in SQE until moved back to RTS; a
 * datagram to a QPN nobody has, or to an endpoint that does not exist, lost
 * without a hang; RDMA operations refused at post time; a datagram without a
 * posted receive dropped.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs_util.h"

#define QKEY     0x11111111u
#define MSG      100u
#define GRH      40u
#define RECV_OFF 65536u

/* emu_rx_dropped's reasons (emu/engine/engine.h). */
enum { DROP_NO_QP = 0, DROP_QKEY = 2, DROP_NO_RECV = 4 };

static uint64_t (*dropped)(struct ibv_device *, int);
static struct vu_ctx ctx;
static struct vu_end a, b;
static struct ibv_ah *ah;
static struct ibv_port_attr port;
static union ibv_gid gid;

static int ud_send_ah(struct vu_end *e, struct ibv_ah *to, uint32_t qpn, uint32_t qkey,
                      uint32_t off, uint32_t len, enum ibv_wr_opcode op)
{
    struct ibv_sge sge = {(uintptr_t)e->buf + off, len, e->mr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = len;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = 0x5a5a0001;
    wr.wr.ud.ah = to;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = qkey;
    return ibv_post_send(e->qp, &wr, &bad);
}

static int ud_send(struct vu_end *e, uint32_t qpn, uint32_t qkey, uint32_t off, uint32_t len,
                   enum ibv_wr_opcode op)
{
    return ud_send_ah(e, ah, qpn, qkey, off, len, op);
}

/* The sender's completion of a datagram: its status. */
static int send_status(void)
{
    struct ibv_wc wc;

    return vu_wait(a.cq, &wc, 2000) == 1 ? (int)wc.status : -1;
}

static bool nothing_within(struct ibv_cq *cq, int ms)
{
    struct ibv_wc wc;

    return vu_wait(cq, &wc, ms) == 0;
}

static void test_send_recv_grh(void)
{
    const uint8_t *grh = b.buf + RECV_OFF;
    struct ibv_wc wc;

    for (uint32_t i = 0; i < MSG; i++)
        a.buf[i] = (uint8_t)(i * 7 + 1);
    VU_CHECK(vu_post_recv(&b, 1, RECV_OFF, GRH + MSG) == 0, "post receive");
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, MSG, IBV_WR_SEND_WITH_IMM) == 0, "post UD send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "the UD send completes");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1, "the datagram is received");
    VU_CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.wr_id == 1,
             "receive completion status %d opcode %d", wc.status, wc.opcode);
    VU_CHECK(wc.byte_len == GRH + MSG, "byte_len %u counts the GRH", wc.byte_len);
    VU_CHECK(wc.wc_flags & IBV_WC_GRH, "IBV_WC_GRH set (wc_flags 0x%x)", wc.wc_flags);
    VU_CHECK((wc.wc_flags & IBV_WC_WITH_IMM) && wc.imm_data == 0x5a5a0001, "immediate");
    VU_CHECK(wc.src_qp == a.qp->qp_num, "src_qp 0x%x is the sender's 0x%x", wc.src_qp,
             a.qp->qp_num);
    if (port.link_layer == IBV_LINK_LAYER_ETHERNET) {
        /* RoCE v2 over IPv4: the IPv4 header in the GRH area's last 20 bytes. */
        VU_CHECK(grh[20] == 0x45 && grh[29] == 17, "an IPv4 header of a UDP packet (0x%x, %u)",
                 grh[20], grh[29]);
        VU_CHECK(memcmp(grh + 32, "\x7f\x00\x00\x01", 4) == 0 &&
                         memcmp(grh + 36, "\x7f\x00\x00\x01", 4) == 0,
                 "source and destination 127.0.0.1");
        VU_CHECK(((grh[22] << 8) | grh[23]) == 20 + 8 + 12 + 8 + MSG + 4,
                 "total length covers IP, UDP, BTH, DETH, payload, ICRC");
        VU_CHECK(grh[28] == 64, "TTL is the hop limit");
    } else {
        /* InfiniBand: IP version 6, payload length, next header BTH, hop limit, GIDs. */
        VU_CHECK((grh[0] >> 4) == 6 && ((grh[4] << 8) | grh[5]) == 12 + 8 + MSG + 4 &&
                         grh[6] == 0x1b && grh[7] == 64,
                 "an IB GRH (0x%x, next header 0x%x, hop limit %u)", grh[0], grh[6], grh[7]);
        VU_CHECK(memcmp(grh + 8, gid.raw, 16) == 0 && memcmp(grh + 24, gid.raw, 16) == 0,
                 "source and destination GID");
        VU_CHECK(wc.slid == port.lid, "slid 0x%x is the sender's LID 0x%x", wc.slid, port.lid);
    }
    VU_CHECK(memcmp(grh + GRH, a.buf, MSG) == 0, "the message follows the GRH");
}

/*
 * The answer to a datagram's sender through an address handle made from its
 * completion and GRH area (ibv_create_ah_from_wc), as a UD server answers
 * clients it knows only from their requests (perftest's UD latency tests).
 */
static void test_reply_from_wc(void)
{
    struct ibv_grh *grh = (struct ibv_grh *)(b.buf + RECV_OFF);
    struct ibv_ah_attr attr;
    struct ibv_ah *back;
    struct ibv_wc wc;

    VU_CHECK(vu_post_recv(&b, 2, RECV_OFF, GRH + MSG) == 0 &&
                     ud_send(&a, b.qp->qp_num, QKEY, 0, MSG, IBV_WR_SEND) == 0 &&
                     send_status() == IBV_WC_SUCCESS && vu_wait(b.cq, &wc, 2000) == 1 &&
                     wc.status == IBV_WC_SUCCESS,
             "a datagram from a to b");
    VU_CHECK(ibv_init_ah_from_wc(ctx.ctx, 1, &wc, grh, &attr) == 0, "ibv_init_ah_from_wc");
    VU_CHECK(attr.is_global && memcmp(attr.grh.dgid.raw, gid.raw, 16) == 0 &&
                     attr.grh.sgid_index == 0 && attr.port_num == 1,
             "the sender's GID, our GID index 0, port 1");
    back = ibv_create_ah_from_wc(ctx.pd, &wc, grh, 1);
    VU_CHECK(back != NULL, "ibv_create_ah_from_wc");
    if (back == NULL)
        return;
    for (uint32_t i = 0; i < MSG; i++)
        b.buf[i] = (uint8_t)(i ^ 0x3c);
    VU_CHECK(vu_post_recv(&a, 3, RECV_OFF, GRH + MSG) == 0 &&
                     ud_send_ah(&b, back, wc.src_qp, QKEY, 0, MSG, IBV_WR_SEND) == 0,
             "b answers a through it");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS, "b's send completes");
    VU_CHECK(vu_wait(a.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     wc.src_qp == b.qp->qp_num && memcmp(a.buf + RECV_OFF + GRH, b.buf, MSG) == 0,
             "a receives the answer, byte for byte");
    ibv_destroy_ah(back);
    /* A completion with a GRH needs the GRH area; errors are named, nothing is made. */
    wc.wc_flags = IBV_WC_GRH;
    VU_CHECK(ibv_init_ah_from_wc(ctx.ctx, 1, &wc, NULL, &attr) == EINVAL, "no GRH area: EINVAL");
    errno = 0;
    VU_CHECK(ibv_create_ah_from_wc(NULL, &wc, grh, 1) == NULL && errno == EINVAL,
             "no PD: NULL, EINVAL");
}

/* InfiniBand: an address handle without a GRH (LID only); the receive buffer gets none. */
static void test_no_grh(void)
{
    struct ibv_ah_attr aa = {.dlid = port.lid, .sl = 3, .port_num = 1};
    struct ibv_ah *grh_ah = ah;
    struct ibv_wc wc;

    ah = ibv_create_ah(ctx.pd, &aa);
    VU_CHECK(ah != NULL, "an address handle without a GRH");
    if (ah == NULL) {
        ah = grh_ah;
        return;
    }
    VU_CHECK(vu_post_recv(&b, 5, RECV_OFF, GRH + MSG) == 0, "post receive");
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, MSG, IBV_WR_SEND) == 0, "post UD send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "the UD send completes");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS, "received");
    VU_CHECK(!(wc.wc_flags & IBV_WC_GRH) && wc.sl == 3 && wc.slid == port.lid,
             "no GRH, the sender's SL and LID (flags 0x%x, sl %u, slid 0x%x)", wc.wc_flags, wc.sl,
             wc.slid);
    ibv_destroy_ah(ah);
    ah = grh_ah;
}

static void test_qkey(void)
{
    struct ibv_device *dev = ctx.ctx->device;
    uint64_t before = dropped(dev, DROP_QKEY);
    struct ibv_wc wc;

    VU_CHECK(vu_post_recv(&b, 2, RECV_OFF, GRH + MSG) == 0, "post receive");
    VU_CHECK(ud_send(&a, b.qp->qp_num, 0x22222222, 0, MSG, IBV_WR_SEND) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "a datagram with a wrong Q_Key completes");
    VU_CHECK(nothing_within(b.cq, 200), "and is not received");
    VU_CHECK(dropped(dev, DROP_QKEY) == before + 1, "the Q_Key violation is counted");
    /* Only a privileged process may give a QP a controlled Q_Key (bit 31 set). */
    {
        struct ibv_qp_attr attr = {.qkey = 0x80000001u};
        int rc = ibv_modify_qp(a.qp, &attr, IBV_QP_QKEY);

        VU_CHECK(geteuid() == 0 ? rc == 0 : rc == EPERM, "a controlled Q_Key: %d (euid %d)", rc,
                 (int)geteuid());
        attr.qkey = QKEY;
        VU_CHECK(ibv_modify_qp(a.qp, &attr, IBV_QP_QKEY) == 0, "the Q_Key back (RTS to RTS)");
    }
    /* A controlled Q_Key in the request: the sender QP's own (QKEY) goes out. */
    VU_CHECK(ud_send(&a, b.qp->qp_num, 0x80000000u, 0, MSG, IBV_WR_SEND) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "completes");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
             "received into the receive the wrong Q_Key left");
}

static void test_mtu(void)
{
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    struct ibv_wc wc;

    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, 4097, IBV_WR_SEND) == 0, "post 4097 bytes");
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, 16, IBV_WR_SEND) == 0, "post one more");
    VU_CHECK(send_status() == IBV_WC_LOC_LEN_ERR, "over the MTU: local length error");
    VU_CHECK(send_status() == IBV_WC_WR_FLUSH_ERR, "the next one is flushed");
    VU_CHECK(ibv_query_qp(a.qp, &attr, IBV_QP_STATE, &init) == 0 && attr.qp_state == IBV_QPS_SQE,
             "the QP is in SQE (state %d)", attr.qp_state);
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    VU_CHECK(ibv_modify_qp(a.qp, &attr, IBV_QP_STATE) == 0, "SQE -> RTS");
    VU_CHECK(vu_post_recv(&b, 3, RECV_OFF, GRH + 4096) == 0, "post receive");
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, 4096, IBV_WR_SEND) == 0, "post 4096 bytes");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "exactly the MTU is sent");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     wc.byte_len == GRH + 4096,
             "and received (byte_len %u)", wc.byte_len);
}

static void test_lost(void)
{
    struct ibv_device *dev = ctx.ctx->device;
    uint64_t before = dropped(dev, DROP_NO_QP), before_recv = dropped(dev, DROP_NO_RECV);
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    VU_CHECK(ud_send(&a, b.qp->qp_num + 100, QKEY, 0, MSG, IBV_WR_SEND) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "a datagram to a QPN nobody has completes");
    VU_CHECK(ud_send(&a, (250u << 16) | 1, QKEY, 0, MSG, IBV_WR_SEND) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "so does one to an endpoint that does not exist");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    VU_CHECK(t1.tv_sec - t0.tv_sec < 2, "at once (no retry timeout)");
    for (int i = 0; i < 50 && dropped(dev, DROP_NO_QP) == before; i++)
        nothing_within(b.cq, 10);
    VU_CHECK(dropped(dev, DROP_NO_QP) == before + 1, "the unknown QPN's datagram is counted");
    /* No receive posted: the datagram is dropped, not waited for. */
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, MSG, IBV_WR_SEND) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "completes without a receive posted");
    for (int i = 0; i < 50 && dropped(dev, DROP_NO_RECV) == before_recv; i++)
        nothing_within(b.cq, 10);
    VU_CHECK(dropped(dev, DROP_NO_RECV) == before_recv + 1, "dropped for want of a receive");
    VU_CHECK(vu_post_recv(&b, 4, RECV_OFF, GRH + MSG) == 0 && nothing_within(b.cq, 100),
             "a receive posted afterwards gets nothing");
}

static void test_refused(void)
{
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, 8, IBV_WR_RDMA_WRITE) == EINVAL,
             "RDMA write on UD refused");
    VU_CHECK(ud_send(&a, b.qp->qp_num, QKEY, 0, 8, IBV_WR_RDMA_READ) == EINVAL,
             "RDMA read on UD refused");
}

int main(void)
{
    int access = IBV_ACCESS_LOCAL_WRITE;
    struct ibv_ah_attr aa;

    dropped = (uint64_t(*)(struct ibv_device *, int))dlsym(RTLD_DEFAULT, "emu_rx_dropped");
    VU_CHECK(dropped != NULL, "emu_rx_dropped is exported");
    if (dropped == NULL || vu_open(&ctx) != 0 ||
        vu_end_create_type(&ctx, &a, IBV_QPT_UD, 16, 8, 8, access) != 0 ||
        vu_end_create_type(&ctx, &b, IBV_QPT_UD, 16, 8, 8, access) != 0) {
        VU_CHECK(false, "UD set-up: %s", strerror(errno));
        return vu_summary("test_verbs_ud");
    }
    VU_CHECK(vu_ready_ud(&a, QKEY) == 0 && vu_ready_ud(&b, QKEY) == 0, "UD QPs to RTS");
    ibv_query_gid(ctx.ctx, 1, 0, &gid);
    ibv_query_port(ctx.ctx, 1, &port);
    memset(&aa, 0, sizeof(aa));
    aa.is_global = 1;
    aa.grh.dgid = gid;
    aa.grh.hop_limit = 64;
    aa.port_num = 1;
    ah = ibv_create_ah(ctx.pd, &aa);
    VU_CHECK(ah != NULL, "address handle");
    if (ah != NULL) {
        test_send_recv_grh();
        test_reply_from_wc();
        if (port.link_layer == IBV_LINK_LAYER_INFINIBAND)
            test_no_grh();
        test_qkey();
        test_mtu();
        test_lost();
        test_refused();
        ibv_destroy_ah(ah);
    }
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    vu_close(&ctx);
    return vu_summary("test_verbs_ud");
}
