/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two-sided data path (gdaki_verbs_twosided.h, the core of
 * doca_gpunetio_dev_verbs_twosided.cuh) run by CPU threads on softmlx5: two
 * QPs connected to each other, each exported with its own receive CQ
 * (cq_rq, no dbr_cpu_ptr) so that the data path owns its receive queue.
 *
 *   ping-pong   sends of varying sizes both ways, every receive checked for
 *               its byte count and its bytes; three times the receive
 *               queue's depth, so the receive ring and CQ wrap
 *   depth       the whole receive queue posted at once, filled by as many
 *               sends, then posted again (the deepest queue advertised)
 *   imm         send with immediate, with and without data: the receive
 *               CQE's opcode, immediate and byte count
 *   error       a send longer than the receive buffer: both sides' waits
 *               return -EIO (no spin), later receives fail at once; then
 *               reset_tracking_and_memory on both QPs, reconnected, and a
 *               ping-pong works again
 *   export      the receive CQs export refuses
 */
#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doca_gpunetio.h"
#include "gdaki_verbs.h"
#include "verbs_test.h"

#define RQ_WR 16
#define SQ_WR 64
#define MSG   256 /* bytes of a receive buffer */

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            failures++;                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

#define EXCL DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define AUTO DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO

/* One side: a QP with a send CQ and a receive CQ of its own, exported for CPU threads. */
struct side {
    doca_verbs_cq_t *scq, *rcq;
    doca_verbs_qp_t *qp;
    struct doca_gpu_verbs_qp *gqp;
    struct doca_gpu_dev_verbs_qp *dev;
    uint8_t *buf; /* RQ_WR receive buffers, then RQ_WR send buffers */
    struct ibv_mr *mr;
    uint32_t qpn;
};

static doca_verbs_cq_t *make_cq(doca_dev_t *dev, uint32_t size, bool overrun)
{
    doca_verbs_cq_attr_t *ca = NULL;
    doca_verbs_cq_t *cq = NULL;

    doca_verbs_cq_attr_create(&ca);
    doca_verbs_cq_attr_set_cq_size(ca, size);
    if (overrun)
        doca_verbs_cq_attr_set_cq_overrun(ca, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    if (doca_verbs_cq_create(dev, ca, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(ca);
    return cq;
}

static doca_error_t export_rq(struct side *s, doca_verbs_cq_t *cq_rq)
{
    return doca_gpu_verbs_export_qp(NULL, s->qp, AUTO, NULL, s->scq, cq_rq, NULL,
                                    DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                    DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &s->gqp);
}

static int side_make(struct vt_dev *d, struct side *s)
{
    doca_verbs_qp_init_attr_t *qa;

    s->scq = make_cq(d->dev, SQ_WR, true);
    s->rcq = make_cq(d->dev, RQ_WR, true);
    qa = vt_qp_attr(d->dev, s->scq, SQ_WR, RQ_WR);
    if (s->scq == NULL || s->rcq == NULL || qa == NULL)
        return -1;
    doca_verbs_qp_init_attr_set_receive_cq(qa, s->rcq);
    if (doca_verbs_qp_create(d->dev, qa, &s->qp) != DOCA_SUCCESS)
        return -1;
    doca_verbs_qp_init_attr_destroy(qa);
    s->buf = calloc(2 * RQ_WR, MSG);
    s->mr = s->buf == NULL ? NULL
                           : ibv_reg_mr(d->pd, s->buf, 2 * RQ_WR * MSG, IBV_ACCESS_LOCAL_WRITE);
    doca_verbs_qp_get_qpn(s->qp, &s->qpn);
    if (s->mr == NULL || export_rq(s, s->rcq) != DOCA_SUCCESS ||
        doca_gpu_verbs_get_qp_dev(s->gqp, &s->dev) != DOCA_SUCCESS)
        return -1;
    CHECK(s->dev->rq_wqe_num == RQ_WR && s->dev->rcv_wqe_size >= 16 && s->dev->rq_num == s->qpn,
          "the descriptor's receive queue: %u WQEs of %u bytes, QP 0x%x", s->dev->rq_wqe_num,
          s->dev->rcv_wqe_size, s->dev->rq_num);
    return 0;
}

static void side_free(struct side *s)
{
    CHECK(doca_gpu_verbs_unexport_qp(NULL, s->gqp) == DOCA_SUCCESS, "unexport");
    CHECK(doca_verbs_qp_destroy(s->qp) == DOCA_SUCCESS, "QP destroy");
    CHECK(doca_verbs_cq_destroy(s->scq) == DOCA_SUCCESS &&
                  doca_verbs_cq_destroy(s->rcq) == DOCA_SUCCESS,
          "CQ destroy");
    ibv_dereg_mr(s->mr);
    free(s->buf);
}

static struct doca_gpu_dev_verbs_addr addr_of(const struct side *s, uint8_t *p)
{
    struct doca_gpu_dev_verbs_addr a = {(uintptr_t)p, htobe32(s->mr->lkey)};

    return a;
}

/* Receive buffer i (of RQ_WR) and send buffer i of a side. */
static uint8_t *rbuf(const struct side *s, uint64_t i)
{
    return s->buf + (i % RQ_WR) * MSG;
}

static uint8_t *sbuf(const struct side *s, uint64_t i)
{
    return s->buf + (RQ_WR + i % RQ_WR) * MSG;
}

static uint64_t post_recv(struct side *s, uint64_t i)
{
    memset(rbuf(s, i), 0, MSG);
    return gdaki_recv(s->dev, addr_of(s, rbuf(s, i)), MSG, EXCL);
}

/* from sends message i (size bytes of pattern i) to `to`, whose receive `ticket` must get it. */
static bool send_one(struct side *from, struct side *to, uint64_t i, uint32_t size, uint64_t ticket)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    uint64_t t;
    int rc;

    memset(sbuf(from, i), (int)(0x40 + i), size);
    t = gdaki_send_msg(from->dev, addr_of(from, sbuf(from, i)), size, 0, 0, EXCL, AUTO, 0);
    CHECK(gdaki_wait(from->dev, t) == 0, "send %llu of %u bytes", (unsigned long long)i, size);
    rc = gdaki_recv_wait(to->dev, ticket, EXCL, 0, &cqe);
    CHECK(rc == 0, "receive %llu: %d", (unsigned long long)ticket, rc);
    if (rc != 0)
        return false;
    CHECK(gdaki_cqe_bytes(cqe) == size, "receive %llu: %u bytes, sent %u",
          (unsigned long long)ticket, gdaki_cqe_bytes(cqe), size);
    CHECK(gdaki_cqe_opcode(cqe) == PRM_CQE_OPCODE_RESP_SEND, "receive opcode 0x%x",
          gdaki_cqe_opcode(cqe));
    for (uint32_t b = 0; b < size; b++)
        if (rbuf(to, ticket)[b] != (uint8_t)(0x40 + i)) {
            CHECK(false, "receive %llu: byte %u is 0x%x", (unsigned long long)ticket, b,
                  rbuf(to, ticket)[b]);
            return false;
        }
    CHECK(size == MSG || rbuf(to, ticket)[size] == 0, "receive %llu wrote past %u bytes",
          (unsigned long long)ticket, size);
    return true;
}

/* Message sizes: empty, one byte, odd, the whole buffer. */
static uint32_t size_of(uint64_t i)
{
    static const uint32_t sizes[] = {0, 1, 7, 64, 100, MSG};

    return sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void ping_pong(struct side *a, struct side *b, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        uint64_t rb = post_recv(b, (uint64_t)i);
        uint64_t ra = post_recv(a, (uint64_t)i);

        if (!send_one(a, b, (uint64_t)i, size_of((uint64_t)i), rb) ||
            !send_one(b, a, (uint64_t)i + 1, size_of((uint64_t)i + 1), ra))
            return;
    }
}

/* Every receive slot posted before any send arrives; then as many sends fill them. */
static void depth(struct side *a, struct side *b)
{
    uint64_t first = post_recv(b, 0);

    for (uint64_t i = 1; i < RQ_WR; i++)
        CHECK(post_recv(b, i) == first + i, "receive tickets in order");
    CHECK(b->dev->rq_wqe_pi == first + RQ_WR, "the record covers the %u receives posted", RQ_WR);
    for (uint64_t i = 0; i < RQ_WR; i++)
        if (!send_one(a, b, i, 32, first + i))
            return;
}

static void imm(struct side *a, struct side *b)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    uint64_t r0 = post_recv(b, 0), r1 = post_recv(b, 1);
    uint64_t t;

    t = gdaki_send_msg(a->dev, addr_of(a, sbuf(a, 0)), 0, 1, 0xfeed0001u, EXCL, AUTO, 0);
    CHECK(gdaki_wait(a->dev, t) == 0, "empty send with immediate");
    memset(sbuf(a, 1), 0x5a, 12);
    t = gdaki_send_msg(a->dev, addr_of(a, sbuf(a, 1)), 12, 1, 0xfeed0002u, EXCL, AUTO, 0);
    CHECK(gdaki_wait(a->dev, t) == 0, "send with immediate and data");
    CHECK(gdaki_recv_wait(b->dev, r0, EXCL, 0, &cqe) == 0 &&
                  gdaki_cqe_opcode(cqe) == PRM_CQE_OPCODE_RESP_SEND_IMM &&
                  gdaki_cqe_imm(cqe) == 0xfeed0001u && gdaki_cqe_bytes(cqe) == 0,
          "empty send with immediate: opcode 0x%x imm 0x%x bytes %u", gdaki_cqe_opcode(cqe),
          gdaki_cqe_imm(cqe), gdaki_cqe_bytes(cqe));
    CHECK(gdaki_recv_wait(b->dev, r1, EXCL, 0, &cqe) == 0 && gdaki_cqe_imm(cqe) == 0xfeed0002u &&
                  gdaki_cqe_bytes(cqe) == 12 && rbuf(b, 1)[11] == 0x5a,
          "send with immediate and data");
    CHECK(gdaki_cqe_inline_scatter(cqe) == 0, "no inline scatter");
    CHECK(gdaki_recv_wait(b->dev, r1 + 1, EXCL, 1, &cqe) == EBUSY, "no receive beyond the last");
}

/* QP moved to RESET, its tracking reset, connected again to peer_qpn. */
static void reset_side(struct vt_dev *d, struct side *s, uint32_t peer_qpn)
{
    doca_verbs_qp_attr_t *a = NULL;
    uint16_t lid;
    uint8_t gid[16];

    doca_verbs_qp_attr_create(&a);
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RST);
    CHECK(doca_verbs_qp_modify(s->qp, a, DOCA_VERBS_QP_ATTR_NEXT_STATE) == DOCA_SUCCESS,
          "to RESET");
    doca_verbs_qp_attr_destroy(a);
    CHECK(doca_gpu_verbs_reset_tracking_and_memory(s->gqp) == DOCA_SUCCESS, "reset tracking");
    CHECK(s->dev->rq_rsvd_index == 0 && s->dev->rq_wqe_pi == 0 && s->dev->cq_rq.cqe_ci == 0 &&
                  s->dev->cq_rq.err.has_error == 0,
          "the receive side's tracking starts over");
    vt_address(d, &lid, gid);
    CHECK(vt_connect(d, s->qp, peer_qpn, gid, lid) == 0, "reconnect");
}

static void error_then_reset(struct vt_dev *d, struct side *a, struct side *b)
{
    struct doca_gpunetio_ib_mlx5_cqe64 *cqe = NULL;
    struct doca_gpu_verbs_qp_error_info info;
    uint64_t r = gdaki_recv(b->dev, addr_of(b, rbuf(b, 0)), 8, EXCL);
    uint64_t t = gdaki_send_msg(a->dev, addr_of(a, sbuf(a, 0)), 64, 0, 0, EXCL, AUTO, 0);

    int rc = gdaki_recv_wait(b->dev, r, EXCL, 0, &cqe);

    CHECK(rc == -EIO, "a receive of 8 bytes taking 64 fails: %d, opcode 0x%x, %u bytes", rc,
          gdaki_cqe_opcode(cqe), gdaki_cqe_bytes(cqe));
    rc = gdaki_wait(a->dev, t);
    CHECK(rc == -EIO, "the send it NAKed fails: %d", rc);
    CHECK(b->dev->cq_rq.err.has_error == 1 &&
                  b->dev->cq_rq.err.syndrome == PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR,
          "receive error recorded: syndrome 0x%x", b->dev->cq_rq.err.syndrome);
    CHECK(doca_gpu_verbs_query_last_error(b->gqp, &info) == DOCA_SUCCESS && info.has_error &&
                  info.syndrome == PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR,
          "the receiver's error is reported: syndrome 0x%x", info.syndrome);
    /* The receive side is in error: a later receive fails at once instead of waiting forever. */
    r = gdaki_recv(b->dev, addr_of(b, rbuf(b, 1)), MSG, EXCL);
    CHECK(gdaki_recv_wait(b->dev, r, EXCL, 0, &cqe) == -EIO, "a receive on a QP in error");
    CHECK(doca_gpu_verbs_query_last_error(a->gqp, &info) == DOCA_SUCCESS && info.has_error,
          "the sender's error is reported");
    reset_side(d, a, b->qpn);
    reset_side(d, b, a->qpn);
    ping_pong(a, b, 4);
}

static void export_refusals(struct vt_dev *d, struct side *a)
{
    doca_verbs_cq_t *plain = make_cq(d->dev, RQ_WR, false);
    struct doca_gpu_verbs_qp *saved = a->gqp;

    CHECK(export_rq(a, a->scq) == DOCA_ERROR_INVALID_VALUE, "the send CQ as cq_rq");
    CHECK(export_rq(a, plain) == DOCA_ERROR_INVALID_VALUE, "a CQ that is not the QP's");
    CHECK(doca_gpu_verbs_export_qp(NULL, a->qp, AUTO, NULL, a->scq, NULL, a->rcq,
                                   DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                   DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false,
                                   &a->gqp) == DOCA_ERROR_INVALID_VALUE,
          "dbr_cpu_ptr without cq_rq");
    a->gqp = saved;
    doca_verbs_cq_destroy(plain);
}

/* A QP whose receive CQ overruns not, or is smaller than its receive queue: refused. */
static void export_refusals_cq(struct vt_dev *d)
{
    struct side s = {0};
    doca_verbs_qp_init_attr_t *qa;
    doca_verbs_cq_t *small = make_cq(d->dev, RQ_WR / 2, true);
    doca_verbs_cq_t *plain = make_cq(d->dev, RQ_WR, false);

    s.scq = make_cq(d->dev, SQ_WR, true);
    for (int i = 0; i < 2; i++) {
        qa = vt_qp_attr(d->dev, s.scq, SQ_WR, RQ_WR);
        doca_verbs_qp_init_attr_set_receive_cq(qa, i == 0 ? small : plain);
        CHECK(doca_verbs_qp_create(d->dev, qa, &s.qp) == DOCA_SUCCESS, "QP");
        doca_verbs_qp_init_attr_destroy(qa);
        CHECK(export_rq(&s, i == 0 ? small : plain) == DOCA_ERROR_INVALID_VALUE,
              i == 0 ? "a receive CQ smaller than the receive queue"
                     : "a receive CQ without overrun");
        doca_verbs_qp_destroy(s.qp);
    }
    qa = vt_qp_attr(d->dev, s.scq, SQ_WR, 0);
    doca_verbs_qp_init_attr_set_receive_cq(qa, plain);
    CHECK(doca_verbs_qp_create(d->dev, qa, &s.qp) == DOCA_SUCCESS, "QP without receive queue");
    doca_verbs_qp_init_attr_destroy(qa);
    CHECK(export_rq(&s, plain) == DOCA_ERROR_INVALID_VALUE,
          "cq_rq on a QP without a receive queue");
    doca_verbs_qp_destroy(s.qp);
    doca_verbs_cq_destroy(s.scq);
    doca_verbs_cq_destroy(small);
    doca_verbs_cq_destroy(plain);
}

int main(void)
{
    struct side a = {0}, b = {0};
    struct vt_dev d;
    uint16_t lid = 0;
    uint8_t gid[16];

    vt_open(&d);
    if (side_make(&d, &a) != 0 || side_make(&d, &b) != 0) {
        fprintf(stderr, "FAIL: cannot make the QPs\n");
        return 1;
    }
    vt_address(&d, &lid, gid);
    if (vt_connect(&d, a.qp, b.qpn, gid, lid) != 0 || vt_connect(&d, b.qp, a.qpn, gid, lid) != 0) {
        fprintf(stderr, "FAIL: cannot connect the QPs\n");
        return 1;
    }
    ping_pong(&a, &b, 3 * RQ_WR);
    depth(&a, &b);
    imm(&a, &b);
    export_refusals(&d, &a);
    export_refusals_cq(&d);
    error_then_reset(&d, &a, &b);
    side_free(&a);
    side_free(&b);
    vt_close(&d);
    printf("two-sided: %s (%d failures)\n", failures == 0 ? "passed" : "FAILED", failures);
    return failures != 0;
}
