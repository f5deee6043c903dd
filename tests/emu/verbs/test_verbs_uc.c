/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UC queue pairs on softmlx5, a connected pair on one device: RDMA write,
 * write with immediate and send complete once sent (no ACK) and land at the
 * peer; RDMA read and atomics are refused at post time; UC's loss semantics
 * with the wire's lossy-link hook: a lost message is gone, the responder
 * sees the PSN gap, counts it and takes the next message as a fresh one
 * into the receive the lost one would have used; a write to a bad rkey or
 * a send without a posted receive is dropped silently, counted, and the QPs
 * stay in RTS; a local error on a send moves the QP to SQE, where receives
 * go on, until it is moved back to RTS.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "verbs_util.h"

#define RECV_OFF 65536u
#define DST_OFF  131072u

/* emu_rx_dropped's reasons (emu/engine/engine.h). */
enum { DROP_NO_RECV = 4, DROP_PSN_GAP = 5, DROP_REFUSED = 6 };

static uint64_t (*dropped)(struct ibv_device *, int);
static int (*lose)(struct ibv_device *, uint32_t);
static struct vu_ctx ctx;
static struct vu_end a, b;
static struct vu_info ia, ib;

static int send_status(void)
{
    struct ibv_wc wc;

    return vu_wait(a.cq, &wc, 2000) == 1 ? (int)wc.status : -1;
}

/* Waits up to a second for len bytes at b's dst to equal a's src. */
static bool arrived(uint32_t src, uint32_t dst, uint32_t len)
{
    struct ibv_wc wc;

    for (int i = 0; i < 100; i++) {
        if (memcmp(a.buf + src, b.buf + dst, len) == 0)
            return true;
        vu_wait(b.cq, &wc, 10);
    }
    return false;
}

static void fill(uint32_t off, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        a.buf[off + i] = (uint8_t)(seed + i);
}

static void test_write_send(void)
{
    struct ibv_wc wc;

    fill(0, 256, 3);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 256, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0,
             "post UC write");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "the UC write completes");
    VU_CHECK(arrived(0, DST_OFF, 256), "and is placed");
    VU_CHECK(vu_post_recv(&b, 10, RECV_OFF, 4096) == 0, "post receive");
    fill(0, 64, 9);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE_WITH_IMM, 2, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) ==
                     0,
             "post UC write with immediate");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "completes");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wr_id == 10 &&
                     (wc.wc_flags & IBV_WC_WITH_IMM) && !(wc.wc_flags & IBV_WC_GRH),
             "the immediate consumes a receive (opcode %d, flags 0x%x)", wc.opcode, wc.wc_flags);
    VU_CHECK(memcmp(a.buf, b.buf + DST_OFF, 64) == 0, "the data is in place");
    VU_CHECK(vu_post_recv(&b, 11, RECV_OFF, 4096) == 0, "post receive");
    fill(0, 3000, 17);
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 3, 0, 3000, NULL, 0, IBV_SEND_SIGNALED) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "the UC send completes");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     wc.opcode == IBV_WC_RECV && wc.byte_len == 3000 && wc.src_qp == ia.qpn,
             "received (byte_len %u, src_qp 0x%x)", wc.byte_len, wc.src_qp);
    VU_CHECK(memcmp(a.buf, b.buf + RECV_OFF, 3000) == 0, "the message is in the receive buffer");
}

static void test_refused(void)
{
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_READ, 4, 0, 8, &ib, DST_OFF, IBV_SEND_SIGNALED) == EINVAL,
             "RDMA read on UC refused");
    VU_CHECK(vu_post(&a, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 8, &ib, DST_OFF, IBV_SEND_SIGNALED) ==
                     EINVAL,
             "atomic on UC refused");
}

static void test_loss(void)
{
    struct ibv_device *dev = ctx.ctx->device;
    uint64_t gaps = dropped(dev, DROP_PSN_GAP);
    struct ibv_wc wc;

    VU_CHECK(vu_post_recv(&b, 20, RECV_OFF, 1024) == 0 &&
                     vu_post_recv(&b, 21, RECV_OFF + 1024, 1024) == 0,
             "post two receives");
    VU_CHECK(lose(dev, 1) == 0, "the next data frame is lost");
    for (uint32_t i = 0; i < 3; i++) {
        fill(i * 1024, 512, (uint8_t)(40 + i));
        VU_CHECK(vu_post(&a, IBV_WR_SEND, 30 + i, i * 1024, 512, NULL, 0, IBV_SEND_SIGNALED) == 0,
                 "post send %u", i);
    }
    for (uint32_t i = 0; i < 3; i++)
        VU_CHECK(send_status() == IBV_WC_SUCCESS, "send %u completes (lost or not)", i);
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 20,
             "the first receive gets a message");
    VU_CHECK(memcmp(b.buf + RECV_OFF, a.buf + 1024, 512) == 0,
             "the second message: the first was lost");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 21,
             "the second receive gets the next");
    VU_CHECK(memcmp(b.buf + RECV_OFF + 1024, a.buf + 2048, 512) == 0, "the third message");
    VU_CHECK(dropped(dev, DROP_PSN_GAP) == gaps + 1, "the PSN gap is counted");
    /* A lost write leaves its target untouched; the next write lands. */
    memset(b.buf + DST_OFF, 0, 64);
    fill(0, 64, 90);
    VU_CHECK(lose(dev, 1) == 0, "the next data frame is lost");
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 6, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0,
             "post write");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "a lost write completes");
    VU_CHECK(!arrived(0, DST_OFF, 64), "and is not placed");
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 7, 0, 64, &ib, DST_OFF, IBV_SEND_SIGNALED) == 0,
             "post write");
    VU_CHECK(send_status() == IBV_WC_SUCCESS && arrived(0, DST_OFF, 64), "the next one is placed");
}

static void test_silent_drops(void)
{
    struct ibv_device *dev = ctx.ctx->device;
    uint64_t refused = dropped(dev, DROP_REFUSED), no_recv = dropped(dev, DROP_NO_RECV);
    struct vu_info bad = ib;
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;

    bad.rkey ^= 0x5a5a00;
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 8, 0, 64, &bad, DST_OFF, IBV_SEND_SIGNALED) == 0,
             "post write to a bad rkey");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "completes at the requester");
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 9, 0, 64, NULL, 0, IBV_SEND_SIGNALED) == 0,
             "post send without a receive at the peer");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "completes at the requester");
    for (int i = 0; i < 100 && (dropped(dev, DROP_REFUSED) == refused ||
                                dropped(dev, DROP_NO_RECV) == no_recv);
         i++)
        vu_wait(b.cq, &(struct ibv_wc){0}, 10);
    VU_CHECK(dropped(dev, DROP_REFUSED) == refused + 1, "the bad write is dropped and counted");
    VU_CHECK(dropped(dev, DROP_NO_RECV) == no_recv + 1, "the send is dropped and counted");
    VU_CHECK(ibv_query_qp(b.qp, &attr, IBV_QP_STATE, &init) == 0 && attr.qp_state == IBV_QPS_RTS &&
                     init.qp_type == IBV_QPT_UC,
             "the responder stays in RTS (state %d)", attr.qp_state);
}

/* A local error on a UC send: SQE (the send queue flushed, receives go on), then RTS again. */
static void test_sq_error(void)
{
    struct ibv_sge sge = {(uintptr_t)a.buf, 64, a.mr->lkey ^ 0x77700};
    struct ibv_send_wr wr = {.wr_id = 40,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    struct ibv_wc wc;

    VU_CHECK(ibv_post_send(a.qp, &wr, &bad) == 0, "post a send with a bad lkey");
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 41, 0, 64, NULL, 0, IBV_SEND_SIGNALED) == 0, "and one more");
    VU_CHECK(send_status() == IBV_WC_LOC_PROT_ERR, "local protection error");
    VU_CHECK(send_status() == IBV_WC_WR_FLUSH_ERR, "the next one flushed");
    VU_CHECK(ibv_query_qp(a.qp, &attr, IBV_QP_STATE, &init) == 0 && attr.qp_state == IBV_QPS_SQE,
             "the QP is in SQE (state %d)", attr.qp_state);
    /* Receives go on in SQE. */
    VU_CHECK(vu_post_recv(&a, 42, RECV_OFF, 1024) == 0, "post a receive at the QP in SQE");
    VU_CHECK(vu_post(&b, IBV_WR_SEND, 43, 0, 64, NULL, 0, 0) == 0, "the peer sends");
    VU_CHECK(vu_wait(a.cq, &wc, 2000) == 1 && wc.wr_id == 42 && wc.status == IBV_WC_SUCCESS,
             "received in SQE");
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    VU_CHECK(ibv_modify_qp(a.qp, &attr, IBV_QP_STATE) == 0, "SQE -> RTS");
    VU_CHECK(vu_post_recv(&b, 44, RECV_OFF, 1024) == 0, "post receive");
    VU_CHECK(vu_post(&a, IBV_WR_SEND, 45, 0, 64, NULL, 0, IBV_SEND_SIGNALED) == 0, "post send");
    VU_CHECK(send_status() == IBV_WC_SUCCESS, "sends again");
    VU_CHECK(vu_wait(b.cq, &wc, 2000) == 1 && wc.wr_id == 44, "and the peer receives");
}

int main(void)
{
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

    dropped = (uint64_t(*)(struct ibv_device *, int))dlsym(RTLD_DEFAULT, "emu_rx_dropped");
    lose = (int (*)(struct ibv_device *, uint32_t))dlsym(RTLD_DEFAULT, "emu_wire_lose_frames");
    VU_CHECK(dropped != NULL && lose != NULL, "the test calls are exported");
    if (dropped == NULL || lose == NULL || vu_open(&ctx) != 0 ||
        vu_end_create_type(&ctx, &a, IBV_QPT_UC, 16, 8, 8, access) != 0 ||
        vu_end_create_type(&ctx, &b, IBV_QPT_UC, 16, 8, 8, access) != 0) {
        VU_CHECK(false, "UC set-up: %s", strerror(errno));
        return vu_summary("test_verbs_uc");
    }
    vu_info_of(&ctx, &a, &ia);
    vu_info_of(&ctx, &b, &ib);
    VU_CHECK(vu_connect_uc(&a, &ib) == 0 && vu_connect_uc(&b, &ia) == 0, "UC QPs connected");
    test_write_send();
    test_refused();
    test_loss();
    test_silent_drops();
    test_sq_error();
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    vu_close(&ctx);
    return vu_summary("test_verbs_uc");
}
