/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target wire: softmlx5's wire frame parser (emu/wire/rx.c) and what
 * it hands frames to (emu/engine/: receive dispatch, responder, completer),
 * including frames that answer requests in flight.
 *
 * The device is mlx5_0, opened through the standard verbs API in a network
 * namespace of the process's own (softmlx5_harness.h), with one RC QP whose
 * remote QPN names a fake endpoint (WIRE_FAKE_EP) that this harness listens
 * on: moving the QP to RTR makes the device dial it, and the harness plays
 * the peer (it accepts, answers the HELLO's single-copy offer with its own,
 * and reads every frame the device sends). Every input starts from the
 * same state: the QP is brought up (RESET -> INIT -> RTR -> RTS with the
 * PSNs the input's first byte picks), receives and requests are posted (a
 * read, an atomic, a signalled write: PSNs sq_psn, sq_psn + 1, ...), then
 * the input's frames are written to the device's socket and handled in
 * this thread, with the device's receive lock held (its loop thread waits),
 * until its socket is drained. Afterwards the QP goes back to RESET; a
 * connection the device dropped, or one left in the middle of a frame, is
 * closed and dialed again by the next input.
 *
 * Input: a configuration byte, then records (bytes an input lacks read as 0):
 *
 *   cfg  bits 0-1  requests posted: 0 read + atomic + signalled write,
 *                  1 those + an unsignalled send, 2 a signalled write, 3 none
 *        bit 2     max_rd_atomic 1 (else 4)      bit 3  retry_cnt 0 (else 7)
 *        bits 4-5  rnr_retry 7, 0, 1, 3          bit 6  PSNs just below 2^24
 *        bit 7     no receives posted (else 4)
 *
 *   0x00-0x7f  a frame from a template: type = b & 0x0f (1..12 the wire type,
 *              13 ACK, 14 NAK, 15 READ_RESP, 0: the next byte, any value, so
 *              DC_CONNECT as 0 then 13);
 *              then, in this order:
 *                b & 0x10 clear: 1 byte d, psn = base + (int8)d, base being
 *                         sq_psn for responses (the requests in flight) and
 *                         for requests rq_psn plus the template requests so
 *                         far (d = 0: the next in order); set: 4 bytes psn
 *                b & 0x40 1 byte m, then for each bit of m set: 0 flags,
 *                         1 syndrome, 2 src_qpn (4), 3 dst_qpn (4), 4 imm (4),
 *                         5 rkey (4) + raddr (8), 6 dma_len (4), 7 op, opmod,
 *                         xrc_srq (4) + swap_add (8) + compare (8)
 *                b & 0x20 2 bytes payload length L, then the payload from the
 *                         input (zero-padded to L); clear: the type's own
 *                         length (READ_RESP 64, ATOMIC_RESP 8, data 16,
 *                         masked compare-swap 16; a pull frame: one entry)
 *              Fields not given hold what a valid frame for the QP holds
 *              (QPNs, keys and addresses of the registered buffer).
 *   0x80-0xbf  raw bytes: ((b & 0x3f) << 8 | next byte) of them, as they are
 *   0xc0-0xff  an action, b & 0x0f: 0 handle what was written so far, 1
 *              answer the device's requests as a peer does (ACK, READ_RESP,
 *              ATOMIC_RESP), 2 let the retransmit timers run (it sleeps past
 *              the retry period, WIRE_RETRY_MS / (retry_cnt + 1); twice an
 *              input at most), 3 post the requests again, 4 post a receive,
 *              5 QP to ERR, 6 close the connection, 7 QP to RESET and up
 *              again, 8 write the frames so far split after the next byte's
 *              count of bytes; else as 0.
 *
 * Besides the sanitizers' findings, an input aborts when: a frame the
 * device sends is malformed or names another QP; the requester's consumer
 * passed its producer, the pending ring holds more than its size or fewer
 * entries than reads in flight; there are more send completions than
 * requests posted or receive completions than receives posted; or after
 * RESET the QP or the engine still counts outstanding work. A finding
 * already reported can be looked past in long runs with
 * SOFTMLX5_FUZZ_TOLERATE=<id> (softmlx5_harness.h; reads-underflow).
 *
 * Seeds: SOFTMLX5_FUZZ_SEEDS=DIR fuzz_wire X writes them to DIR (built with
 * emu_wire_hdr_init and the templates; each one is run and checked first)
 * and exits: SOFTMLX5_FUZZ_SEEDS=tests/fuzz/corpus/wire
 * build-fz/tests/fuzz_wire tests/fuzz/corpus/wire. SOFTMLX5_FUZZ_VERBOSE=1
 * prints what each input did.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine/engine.h"
#include "fuzz.h"
#include "prm/mlx5_cqe.h"
#include "prm/prm_qp.h"
#include "softmlx5_harness.h"
#include "wire/proto.h"
#include "wire/wire.h"
#include "wire/wire_int.h"

#define WIRE_FAKE_EP    250u
#define WIRE_FAKE_QPN   ((WIRE_FAKE_EP << EMU_OBJ_INDEX_BITS) | 1u)
#define WIRE_MR_LEN     0x20000u
#define WIRE_IOVA       0x5100000000ull
/* Where the requests posted to the QP put their data (offsets in the registered buffer). */
#define WIRE_READ_DST   0x0000u
#define WIRE_READ_LEN   64u
#define WIRE_ATOMIC_DST 0x0100u
#define WIRE_WRITE_SRC  0x0200u
#define WIRE_WRITE_LEN  32u
#define WIRE_SEND_SRC   0x0300u
#define WIRE_SEND_LEN   48u
#define WIRE_RECV_AT    0x10000u
#define WIRE_RECV_LEN   0x4000u
#define WIRE_RECVS      4
/* Where a template request of the fake peer points (in the same buffer). */
#define WIRE_T_WRITE    0x8000u
#define WIRE_T_READ     0x9000u
#define WIRE_T_ATOMIC   0xa000u
/* The remote buffer the QP's own requests name (on the fake peer: never checked). */
#define WIRE_PEER_ADDR  0x1000u
#define WIRE_PEER_RKEY  0x1234u
#define WIRE_OUT_MAX    (512u * 1024)
#define WIRE_MAX_REQS   64
/* The retry timeout (SOFTMLX5_RETRY_TIMEOUT_MS): short, as action 2 waits for it. */
#define WIRE_RETRY_MS   1u

/* A request the device sent to the fake peer, for action 1. */
struct wire_dev_req {
    uint8_t type;
    uint32_t psn, dma_len;
};

/* One direction of the stream cut into frames: the header so far, the payload still to come. */
struct wire_splitter {
    uint8_t hdr[sizeof(struct emu_wire_hdr)];
    size_t hlen;
    uint64_t skip;
};

/* The fake peer's reading of the device's stream. */
struct wire_peer_rx {
    struct wire_splitter split;
    bool hello, pull_ok;
    uint64_t offer_pid; /* the HELLO's single-copy offer */
};

/*
 * The (source, destination) QPNs of the fake peer's frames on this
 * connection (as far as WIRE_MAX_PAIRS holds them): a DC target refuses a
 * DCI's request with a NAK from the QPN the request named to the DCI, the
 * one frame the device may send between other QPs than its own and the
 * fake peer's.
 */
#define WIRE_MAX_PAIRS 256
struct wire_qpn_pair {
    uint32_t src, dst;
};
struct wire_peer_tx {
    struct wire_splitter split;
    struct wire_qpn_pair pair[WIRE_MAX_PAIRS];
    int npairs;
    bool overflow;
};

static struct {
    int state; /* 0 not set up, 1 ready, 77 this host cannot */
    struct sm5h_dev dev;
    struct ibv_mr *mr;
    uint8_t *buf;
    struct ibv_cq *cq;
    struct ibv_qp *ibqp;
    struct emu_qp *qp;
    struct emu_engine *e;
    int listen_fd;
    int peer_fd;           /* the fake peer's end of the connection, -1: none */
    struct emu_conn *conn; /* the device's end (qp->peer) while peer_fd is open */
    uint64_t probe;        /* the fake peer's single-copy probe word */
    uint8_t pull_src[256]; /* what the fake peer's pull frames point at */
    struct wire_peer_rx prx;
    struct wire_peer_tx ptx;

    /* This input. */
    uint8_t cfg;
    struct sm5h_conn conn_attr;
    uint32_t reqs_made; /* template requests so far */
    struct wire_dev_req reqs[WIRE_MAX_REQS];
    int nreqs;
    uint8_t *out;
    size_t outlen;
    int send_wrs, recv_wrs, send_cqes, recv_cqes, ok_send, ok_recv;
    int frames_in;  /* frames the device sent */
    int timer_runs; /* action 2 so far */
} fw;

/* ---- the fake peer's socket ---- */

static bool wire_is_response(uint8_t type)
{
    return type == EMU_WIRE_ACK || type == EMU_WIRE_NAK || type == EMU_WIRE_READ_RESP ||
           type == EMU_WIRE_ATOMIC_RESP;
}

static bool wire_is_data(uint8_t type)
{
    return type == EMU_WIRE_WRITE || type == EMU_WIRE_WRITE_IMM || type == EMU_WIRE_SEND ||
           type == EMU_WIRE_SEND_IMM;
}

/* Sends a whole frame from the fake peer at once (handshake answers). */
static void wire_peer_send_now(const struct emu_wire_hdr *h)
{
    if (send(fw.peer_fd, h, sizeof(*h), MSG_NOSIGNAL) != (ssize_t)sizeof(*h))
        sm5h_die("fuzz_wire: the fake peer cannot send: %s", strerror(errno));
}

/* Whether the fake peer sent a frame from src to dst on this connection. */
static bool wire_peer_sent_pair(uint32_t src, uint32_t dst)
{
    for (int i = 0; i < fw.ptx.npairs; i++)
        if (fw.ptx.pair[i].src == src && fw.ptx.pair[i].dst == dst)
            return true;
    return fw.ptx.overflow;
}

/* One frame header the device sent: it must be well formed, from our QP to the fake peer. */
static void wire_peer_frame(const struct emu_wire_hdr *h)
{
    uint32_t len = be32toh(h->payload_len), masks;

    fw.frames_in++;
    if (be32toh(h->magic) != EMU_WIRE_MAGIC || h->version != EMU_WIRE_VERSION ||
        h->type < EMU_WIRE_HELLO || h->type >= EMU_WIRE_TYPE_END ||
        (h->xrc_srq != 0 && !(h->flags & EMU_WIRE_F_XRC)) || len > EMU_WIRE_MAX_PAYLOAD)
        sm5h_die("fuzz_wire: the device sent a malformed frame (type %u, payload %u)", h->type,
                 len);
    if (h->type != EMU_WIRE_ATOMIC && (h->op != 0 || h->opmod != 0))
        sm5h_die("fuzz_wire: the device sent frame type %u with atomic opcode 0x%x/0x%x", h->type,
                 h->op, h->opmod);
    if ((h->type == EMU_WIRE_ACK || h->type == EMU_WIRE_NAK || h->type == EMU_WIRE_READ_REQ ||
         h->type == EMU_WIRE_HELLO || h->type == EMU_WIRE_PULL_OK ||
         h->type == EMU_WIRE_DC_CONNECT) &&
        len != 0)
        sm5h_die("fuzz_wire: the device sent frame type %u with a %u-byte payload", h->type, len);
    if (h->type == EMU_WIRE_ATOMIC_RESP && len != 4 && len != 8)
        sm5h_die("fuzz_wire: the device sent a %u-byte atomic response", len);
    if (h->type == EMU_WIRE_ATOMIC &&
        (emu_wire_atomic_size(h->op, h->opmod, &masks) == 0 || len != masks ||
         be32toh(h->dma_len) != emu_wire_atomic_size(h->op, h->opmod, &masks)))
        sm5h_die("fuzz_wire: the device sent an atomic it cannot mean (op 0x%x opmod 0x%x, "
                 "payload %u)",
                 h->op, h->opmod, len);
    if (h->type == EMU_WIRE_HELLO) {
        if (fw.prx.hello || be32toh(h->src_qpn) != fw.dev.nic->endpoint_id)
            sm5h_die("fuzz_wire: unexpected HELLO from the device (endpoint %u)",
                     be32toh(h->src_qpn));
        fw.prx.hello = true;
        fw.prx.offer_pid = be64toh(h->compare);
        return;
    }
    if (h->type == EMU_WIRE_PULL_OK) {
        if (fw.prx.pull_ok || !fw.prx.hello)
            sm5h_die("fuzz_wire: unexpected PULL_OK from the device");
        fw.prx.pull_ok = true;
        return;
    }
    if (h->type == EMU_WIRE_NAK &&
        (be32toh(h->src_qpn) != fw.qp->qpn || be32toh(h->dst_qpn) != WIRE_FAKE_QPN) &&
        wire_peer_sent_pair(be32toh(h->dst_qpn), be32toh(h->src_qpn))) {
        sm5h_log("  device -> peer: NAK from 0x%x to 0x%x, syndrome 0x%x\n", be32toh(h->src_qpn),
                 be32toh(h->dst_qpn), h->syndrome);
        return;
    }
    if (be32toh(h->src_qpn) != fw.qp->qpn || be32toh(h->dst_qpn) != WIRE_FAKE_QPN)
        sm5h_die("fuzz_wire: the device sent type %u from QPN 0x%x to 0x%x (its QP is 0x%x, the "
                 "peer 0x%x)",
                 h->type, be32toh(h->src_qpn), be32toh(h->dst_qpn), fw.qp->qpn, WIRE_FAKE_QPN);
    sm5h_log("  device -> peer: type %u psn 0x%x len %u syndrome 0x%x\n", h->type, be32toh(h->psn),
             len, h->syndrome);
    if (!wire_is_response(h->type) && fw.nreqs < WIRE_MAX_REQS)
        fw.reqs[fw.nreqs++] = (struct wire_dev_req){h->type, be32toh(h->psn), be32toh(h->dma_len)};
}

/* Feeds n bytes of one direction to its splitter; frame() gets each whole header. */
static void wire_split(struct wire_splitter *sp, const uint8_t *p, size_t n,
                       void (*frame)(const struct emu_wire_hdr *))
{
    size_t at = 0;

    while (at < n) {
        if (sp->skip > 0) {
            size_t take = n - at < sp->skip ? n - at : sp->skip;

            sp->skip -= take;
            at += take;
            continue;
        }
        while (at < n && sp->hlen < sizeof(sp->hdr))
            sp->hdr[sp->hlen++] = p[at++];
        if (sp->hlen == sizeof(sp->hdr)) {
            struct emu_wire_hdr h;

            memcpy(&h, sp->hdr, sizeof(h));
            sp->hlen = 0;
            frame(&h);
            sp->skip = be32toh(h.payload_len);
        }
    }
}

/* Reads what the device sent to the fake peer, frame by frame. */
static void wire_peer_drain(void)
{
    static uint8_t in[65536];

    while (fw.peer_fd >= 0) {
        ssize_t n = recv(fw.peer_fd, in, sizeof(in), MSG_DONTWAIT);

        if (n <= 0)
            return; /* nothing yet, or the device closed its end (the caller sees it) */
        wire_split(&fw.prx.split, in, (size_t)n, wire_peer_frame);
    }
}

/* A frame the fake peer wrote: the device may answer it between the QPNs it names. */
static void wire_peer_sent(const struct emu_wire_hdr *h)
{
    uint32_t src = be32toh(h->src_qpn), dst = be32toh(h->dst_qpn);

    if (wire_peer_sent_pair(src, dst))
        return;
    if (fw.ptx.npairs == WIRE_MAX_PAIRS)
        fw.ptx.overflow = true;
    else
        fw.ptx.pair[fw.ptx.npairs++] = (struct wire_qpn_pair){src, dst};
}

/* The device handles what its socket holds, in this thread (receive lock held), until drained. */
static void wire_process(void)
{
    struct emu_wire *wire = fw.e->wire;

    for (int round = 0; fw.conn != NULL && round < 4096; round++) {
        int avail = 0;

        if (emu_conn_dead(fw.conn)) {
            emu_wire_event(wire, fw.conn, EPOLLIN); /* drops it: the QP's work fails */
            wire_peer_drain();
            return;
        }
        if (ioctl(fw.conn->fd, FIONREAD, &avail) != 0)
            avail = 0;
        emu_wire_event(wire, fw.conn, EPOLLIN | EPOLLOUT);
        wire_peer_drain();
        if (avail == 0)
            return;
    }
}

static void wire_peer_close(void)
{
    if (fw.peer_fd >= 0)
        close(fw.peer_fd);
    fw.peer_fd = -1;
    /* The device sees the end of the stream and drops its end. */
    wire_process();
    fw.conn = NULL;
    memset(&fw.prx, 0, sizeof(fw.prx));
    memset(&fw.ptx, 0, sizeof(fw.ptx));
}

/* After RTR: a connection the device dialed is accepted and its single-copy offer answered. */
static void wire_peer_sync(void)
{
    struct emu_wire_hdr h;
    struct pollfd p;
    int size = 8 << 20;

    if (fw.qp->peer == NULL)
        sm5h_die("fuzz_wire: the QP has no connection after RTR");
    if (fw.qp->peer == fw.conn && fw.peer_fd >= 0)
        return;
    if (fw.peer_fd >= 0) {
        close(fw.peer_fd);
        fw.peer_fd = -1;
    }
    memset(&fw.prx, 0, sizeof(fw.prx));
    memset(&fw.ptx, 0, sizeof(fw.ptx));
    fw.conn = fw.qp->peer;
    fw.peer_fd = accept4(fw.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fw.peer_fd < 0)
        sm5h_die("fuzz_wire: the device dialed, but accept fails: %s", strerror(errno));
    if (setsockopt(fw.peer_fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fw.peer_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    if (setsockopt(fw.peer_fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fw.peer_fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    p = (struct pollfd){.fd = fw.peer_fd, .events = POLLIN};
    for (int i = 0; i < 100 && !fw.prx.hello; i++) {
        poll(&p, 1, 10);
        wire_peer_drain();
    }
    if (!fw.prx.hello)
        sm5h_die("fuzz_wire: the device dialed but sent no HELLO");
    if (fw.prx.offer_pid != 0) {
        /* Granted (the device's word is ours to read: same process), with our own offer. */
        emu_wire_hdr_init(&h, EMU_WIRE_PULL_OK, 0, 0, 0);
        h.flags = EMU_WIRE_F_PULL_GRANTED;
        h.compare = htobe64((uint64_t)getpid());
        h.raddr = htobe64((uint64_t)(uintptr_t)&fw.probe);
        h.swap_add = htobe64(fw.probe);
        wire_peer_send_now(&h);
        wire_process();
    }
}

/* ---- the QP ---- */

static void wire_count_wc(const struct ibv_wc *wc, void *arg)
{
    (void)arg;
    if (wc->qp_num != fw.qp->qpn)
        sm5h_die("fuzz_wire: a completion names QP 0x%x", wc->qp_num);
    if (wc->opcode & IBV_WC_RECV) {
        fw.recv_cqes++;
        fw.ok_recv += wc->status == IBV_WC_SUCCESS;
    } else {
        fw.send_cqes++;
        fw.ok_send += wc->status == IBV_WC_SUCCESS;
    }
    sm5h_log("  completion: opcode %d status %d (%s) byte_len %u\n", wc->opcode, wc->status,
             ibv_wc_status_str(wc->status), wc->byte_len);
}

static void wire_drain_cq(void)
{
    sm5h_drain_cq(fw.cq, wire_count_wc, NULL);
    if (fw.send_cqes > fw.send_wrs || fw.recv_cqes > fw.recv_wrs)
        sm5h_die("fuzz_wire: %d send and %d receive completions for %d requests and %d receives "
                 "posted",
                 fw.send_cqes, fw.recv_cqes, fw.send_wrs, fw.recv_wrs);
}

static void wire_post_recv(void)
{
    struct ibv_sge sge = {.addr = WIRE_IOVA + WIRE_RECV_AT +
                                  (uint64_t)(fw.recv_wrs % WIRE_RECVS) * WIRE_RECV_LEN,
                          .length = WIRE_RECV_LEN,
                          .lkey = fw.mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 100, .sg_list = &sge, .num_sge = 1}, *bad;

    if (ibv_post_recv(fw.ibqp, &wr, &bad) == 0)
        fw.recv_wrs++;
}

static void wire_post_one(enum ibv_wr_opcode op, uint32_t off, uint32_t len, bool signaled)
{
    struct ibv_sge sge = {.addr = WIRE_IOVA + off, .length = len, .lkey = fw.mr->lkey};
    struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op}, *bad;

    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        wr.wr.atomic.remote_addr = WIRE_PEER_ADDR;
        wr.wr.atomic.rkey = WIRE_PEER_RKEY;
        wr.wr.atomic.compare_add = 1;
    } else {
        wr.wr.rdma.remote_addr = WIRE_PEER_ADDR;
        wr.wr.rdma.rkey = WIRE_PEER_RKEY;
    }
    if (ibv_post_send(fw.ibqp, &wr, &bad) == 0)
        fw.send_wrs++;
}

/* The requests the configuration asks for; PSNs sq_psn onwards, in this order. */
static void wire_post_requests(void)
{
    switch (fw.cfg & 3) {
    case 0:
    case 1:
        wire_post_one(IBV_WR_RDMA_READ, WIRE_READ_DST, WIRE_READ_LEN, true);
        wire_post_one(IBV_WR_ATOMIC_FETCH_AND_ADD, WIRE_ATOMIC_DST, 8, true);
        wire_post_one(IBV_WR_RDMA_WRITE, WIRE_WRITE_SRC, WIRE_WRITE_LEN, true);
        if ((fw.cfg & 3) == 1)
            wire_post_one(IBV_WR_SEND, WIRE_SEND_SRC, WIRE_SEND_LEN, false);
        break;
    case 2:
        wire_post_one(IBV_WR_RDMA_WRITE, WIRE_WRITE_SRC, WIRE_WRITE_LEN, true);
        break;
    default:
        break;
    }
}

static void wire_qp_up(void)
{
    const char *step;
    int err = sm5h_qp_up(fw.ibqp, &fw.conn_attr, &step);

    if (err != 0)
        sm5h_die("fuzz_wire: ibv_modify_qp to %s: %s", step, strerror(err));
    wire_peer_sync();
    if (!(fw.cfg & 0x80))
        for (int i = 0; i < WIRE_RECVS; i++)
            wire_post_recv();
    wire_post_requests();
    wire_process();
}

/* What must hold of the QP whenever the device is between frames (receive lock held). */
static void wire_check_qp(void)
{
    struct emu_qp *qp = fw.qp;
    uint32_t posted, consumer, pending, reads;

    pthread_mutex_lock(&qp->lock);
    posted = qp->sq_posted;
    consumer = qp->sq_consumer;
    pending = qp->pending_tail - qp->pending_head;
    reads = qp->reads_in_flight;
    pthread_mutex_unlock(&qp->lock);
    if ((int32_t)(posted - consumer) < 0)
        sm5h_die("fuzz_wire: the requester's consumer %u passed the producer %u", consumer, posted);
    if (pending > qp->pending_size)
        sm5h_die("fuzz_wire: %u pending WQEs in a ring of %u", pending, qp->pending_size);
    if (reads > pending)
        sm5h_finding("reads-underflow",
                     "fuzz_wire: %u reads and atomics in flight, %u WQEs pending: the count went "
                     "wrong (below zero: the requester stalls on it for good)",
                     reads, pending);
    if (__atomic_load_n(&fw.e->inflight, __ATOMIC_RELAXED) < 0)
        sm5h_die("fuzz_wire: the engine counts %d WQEs in flight",
                 __atomic_load_n(&fw.e->inflight, __ATOMIC_RELAXED));
}

/* After RESET nothing may be outstanding, on the QP or in the engine (it is the only QP). */
static void wire_check_reset(void)
{
    struct emu_qp *qp = fw.qp;
    bool clean;

    pthread_mutex_lock(&qp->lock);
    clean = qp->state == PRM_QP_STATE_RST && qp->sq_posted == 0 && qp->sq_consumer == 0 &&
            qp->pending_head == qp->pending_tail && qp->reads_in_flight == 0 && !qp->wait_active &&
            !qp->tx_stalled && !qp->rq_err_watch && qp->rnr_resume_ns == 0;
    pthread_mutex_unlock(&qp->lock);
    if (!clean)
        sm5h_die("fuzz_wire: after RESET the QP still holds work (state %u, posted %u, consumer "
                 "%u, pending %u, reads %u)",
                 qp->state, qp->sq_posted, qp->sq_consumer, qp->pending_tail - qp->pending_head,
                 qp->reads_in_flight);
    if (__atomic_load_n(&fw.e->inflight, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&fw.e->waiting, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&fw.e->tx_stalled, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&fw.e->err_rqs, __ATOMIC_RELAXED) != 0)
        sm5h_die("fuzz_wire: after RESET of its only QP the engine counts %d in flight, %d "
                 "waiting, %d stalled, %d receive queues in error",
                 fw.e->inflight, fw.e->waiting, fw.e->tx_stalled, fw.e->err_rqs);
}

static void wire_qp_reset(void)
{
    int err = sm5h_qp_to(fw.ibqp, IBV_QPS_RESET);

    if (err != 0)
        sm5h_die("fuzz_wire: ibv_modify_qp to RESET: %s", strerror(err));
    wire_check_reset();
}

/* ---- the input ---- */

struct wire_rd {
    const uint8_t *p;
    size_t n;
};

static uint8_t rd_u8(struct wire_rd *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint16_t rd_be16(struct wire_rd *r)
{
    uint16_t v = rd_u8(r);

    return (uint16_t)(v << 8 | rd_u8(r));
}

static uint32_t rd_be32(struct wire_rd *r)
{
    uint32_t v = rd_be16(r);

    return v << 16 | rd_be16(r);
}

static uint64_t rd_be64(struct wire_rd *r)
{
    uint64_t v = rd_be32(r);

    return v << 32 | rd_be32(r);
}

/* Writes the frames buffered so far (the device reads them as they go). */
static void wire_flush(size_t upto)
{
    size_t at = 0;

    if (upto > fw.outlen)
        upto = fw.outlen;
    while (at < upto && fw.peer_fd >= 0 && fw.conn != NULL && !emu_conn_dead(fw.conn)) {
        ssize_t n = send(fw.peer_fd, fw.out + at, upto - at, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n > 0) {
            wire_split(&fw.ptx.split, fw.out + at, (size_t)n, wire_peer_sent);
            at += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            break;
        wire_process(); /* the device's socket is full: let it read */
    }
    memmove(fw.out, fw.out + upto, fw.outlen - upto);
    fw.outlen -= upto;
    wire_process();
}

static void wire_out(const void *data, size_t len)
{
    if (fw.outlen + len > WIRE_OUT_MAX)
        wire_flush(fw.outlen);
    if (len > WIRE_OUT_MAX)
        len = WIRE_OUT_MAX;
    memcpy(fw.out + fw.outlen, data, len);
    fw.outlen += len;
}

static void wire_out_zero(size_t len)
{
    static const uint8_t zero[4096];

    while (len > 0) {
        size_t take = len < sizeof(zero) ? len : sizeof(zero);

        wire_out(zero, take);
        len -= take;
    }
}

/* A frame's header and payload; the payload is data[0..have) then zeros up to len. */
static void wire_out_frame(struct emu_wire_hdr *h, const uint8_t *data, size_t have, uint32_t len)
{
    h->payload_len = htobe32(len);
    wire_out(h, sizeof(*h));
    if (have > len)
        have = len;
    if (have > 0)
        wire_out(data, have);
    wire_out_zero(len - have);
}

static const uint8_t wire_type_map[16] = {
        0,
        EMU_WIRE_HELLO,
        EMU_WIRE_WRITE,
        EMU_WIRE_WRITE_IMM,
        EMU_WIRE_SEND,
        EMU_WIRE_SEND_IMM,
        EMU_WIRE_READ_REQ,
        EMU_WIRE_READ_RESP,
        EMU_WIRE_ATOMIC,
        EMU_WIRE_ATOMIC_RESP,
        EMU_WIRE_ACK,
        EMU_WIRE_NAK,
        EMU_WIRE_PULL_OK,
        EMU_WIRE_ACK,
        EMU_WIRE_NAK,
        EMU_WIRE_READ_RESP,
};

/* A frame from the template (the input format above). */
static void wire_template(struct wire_rd *r, uint8_t b)
{
    uint8_t type = (b & 0x0f) == 0 ? rd_u8(r) : wire_type_map[b & 0x0f];
    bool request = !wire_is_response(type) && type != EMU_WIRE_HELLO && type != EMU_WIRE_PULL_OK;
    uint32_t psn, len = 0, masks = 0;
    struct emu_wire_hdr h;
    uint8_t list[EMU_WIRE_PULL_ENTRY];
    const uint8_t *data = NULL;
    size_t have = 0;

    if (b & 0x10) {
        psn = rd_be32(r);
    } else {
        int8_t d = (int8_t)rd_u8(r);

        psn = (request ? fw.conn_attr.rq_psn + fw.reqs_made : fw.conn_attr.sq_psn) +
              (uint32_t)(int32_t)d;
    }
    if (request)
        fw.reqs_made++;
    emu_wire_hdr_init(&h, type, WIRE_FAKE_QPN, fw.qp->qpn, psn);
    switch (type) {
    case EMU_WIRE_HELLO:
        h.src_qpn = htobe32(WIRE_FAKE_EP);
        h.imm = htobe32(SM5H_IPV4);
        break;
    case EMU_WIRE_WRITE:
    case EMU_WIRE_WRITE_IMM:
        h.rkey = htobe32(fw.mr->rkey);
        h.raddr = htobe64(WIRE_IOVA + WIRE_T_WRITE);
        /* fallthrough */
    case EMU_WIRE_SEND:
    case EMU_WIRE_SEND_IMM:
        h.flags = EMU_WIRE_F_ACK_REQ;
        h.imm = htobe32(0x11223344);
        len = 16;
        break;
    case EMU_WIRE_READ_REQ:
        h.rkey = htobe32(fw.mr->rkey);
        h.raddr = htobe64(WIRE_IOVA + WIRE_T_READ);
        h.dma_len = htobe32(WIRE_READ_LEN);
        break;
    case EMU_WIRE_ATOMIC:
        h.rkey = htobe32(fw.mr->rkey);
        h.raddr = htobe64(WIRE_IOVA + WIRE_T_ATOMIC);
        h.op = PRM_WQE_OPCODE_ATOMIC_FA;
        h.dma_len = htobe32(8);
        h.swap_add = htobe64(1);
        break;
    case EMU_WIRE_READ_RESP:
        len = WIRE_READ_LEN;
        break;
    case EMU_WIRE_ATOMIC_RESP:
        len = 8;
        break;
    case EMU_WIRE_NAK:
        h.syndrome = PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR;
        break;
    case EMU_WIRE_PULL_OK:
        h.flags = EMU_WIRE_F_PULL_GRANTED;
        break;
    default:
        break;
    }
    if (b & 0x40) {
        uint8_t m = rd_u8(r);

        if (m & 0x01)
            h.flags = rd_u8(r);
        if (m & 0x02)
            h.syndrome = rd_u8(r);
        if (m & 0x04)
            h.src_qpn = htobe32(rd_be32(r));
        if (m & 0x08)
            h.dst_qpn = htobe32(rd_be32(r));
        if (m & 0x10)
            h.imm = htobe32(rd_be32(r));
        if (m & 0x20) {
            h.rkey = htobe32(rd_be32(r));
            h.raddr = htobe64(rd_be64(r));
        }
        if (m & 0x40)
            h.dma_len = htobe32(rd_be32(r));
        if (m & 0x80) {
            h.op = rd_u8(r);
            h.opmod = rd_u8(r);
            h.xrc_srq = htobe16(rd_be16(r));
            h.swap_add = htobe64(rd_be64(r));
            h.compare = htobe64(rd_be64(r));
        }
    }
    if (type == EMU_WIRE_ATOMIC && emu_wire_atomic_size(h.op, h.opmod, &masks) != 0)
        len = masks;
    if (wire_is_data(type) && (h.flags & EMU_WIRE_F_PULL)) {
        /* One entry naming the fake peer's own memory (the device reads it by single copy). */
        uint64_t addr = htobe64((uint64_t)(uintptr_t)fw.pull_src), n;
        uint32_t want = be32toh(h.dma_len);

        if (want == 0 || want > sizeof(fw.pull_src))
            want = 64;
        n = htobe64(want);
        if (!(b & 0x40) || h.dma_len == 0)
            h.dma_len = htobe32(want);
        memcpy(list, &addr, 8);
        memcpy(list + 8, &n, 8);
        data = list;
        have = len = sizeof(list);
    }
    if (b & 0x20) {
        len = rd_be16(r);
        have = len < r->n ? len : r->n;
        data = r->p;
        r->p += have;
        r->n -= have;
    }
    wire_out_frame(&h, data, have, len);
}

/* Action 1: answer what the device asked the fake peer, as a peer does. */
static void wire_answer(void)
{
    for (int i = 0; i < fw.nreqs; i++) {
        const struct wire_dev_req *q = &fw.reqs[i];
        struct emu_wire_hdr h;

        if (q->type == EMU_WIRE_READ_REQ) {
            emu_wire_hdr_init(&h, EMU_WIRE_READ_RESP, WIRE_FAKE_QPN, fw.qp->qpn, q->psn);
            wire_out_frame(&h, NULL, 0, q->dma_len <= WIRE_MR_LEN ? q->dma_len : 0);
        } else if (q->type == EMU_WIRE_ATOMIC) {
            emu_wire_hdr_init(&h, EMU_WIRE_ATOMIC_RESP, WIRE_FAKE_QPN, fw.qp->qpn, q->psn);
            wire_out_frame(&h, NULL, 0, q->dma_len == 4 ? 4 : 8);
        } else {
            emu_wire_hdr_init(&h, EMU_WIRE_ACK, WIRE_FAKE_QPN, fw.qp->qpn, q->psn);
            wire_out_frame(&h, NULL, 0, 0);
        }
    }
    fw.nreqs = 0;
}

static void wire_action(struct wire_rd *r, uint8_t a)
{
    switch (a) {
    case 1:
        wire_flush(fw.outlen);
        wire_answer();
        break;
    case 2: {
        /*
         * The retransmit timers (run by the loop, or here): retries, then
         * retry-exceeded. Due once the retry period (WIRE_RETRY_MS / (retry_cnt
         * + 1)) passed and the loop's last scan is LOOP_TIMER_SCAN_NS (2 ms) old.
         */
        uint64_t now = sm5h_now_ns(), due = fw.e->last_timer_ns + 2100000ull;
        uint64_t wait = due > now ? due - now : 0;
        uint64_t period = WIRE_RETRY_MS * 1000000ull / (fw.conn_attr.retry_cnt + 1u) + 50000;

        wire_flush(fw.outlen);
        if (fw.timer_runs++ >= 2) /* bounded: each one sleeps */
            break;
        if (wait < period)
            wait = period;
        /* Slept with the receive lock held: no scan runs before the deadlines passed. */
        sm5h_sleep_us((unsigned int)(wait / 1000));
        pthread_mutex_unlock(&fw.e->rx_lock);
        emu_engine_poll(fw.dev.nic);
        pthread_mutex_lock(&fw.e->rx_lock);
        wire_process();
        break;
    }
    case 3:
        wire_flush(fw.outlen);
        wire_post_requests();
        wire_process();
        break;
    case 4:
        wire_post_recv();
        break;
    case 5:
        wire_flush(fw.outlen);
        if (sm5h_qp_to(fw.ibqp, IBV_QPS_ERR) != 0)
            sm5h_die("fuzz_wire: ibv_modify_qp to ERR failed");
        wire_process();
        break;
    case 6:
        wire_flush(fw.outlen);
        wire_peer_close();
        break;
    case 7:
        wire_flush(fw.outlen);
        wire_drain_cq();
        wire_qp_reset();
        fw.nreqs = 0;
        fw.reqs_made = 0;
        wire_qp_up();
        break;
    case 8:
        wire_flush(rd_u8(r));
        break;
    default:
        wire_flush(fw.outlen);
        break;
    }
    wire_check_qp();
}

static void wire_begin(uint8_t cfg)
{
    static const uint8_t rnr[4] = {7, 0, 1, 3};
    bool high = cfg & 0x40;

    fw.cfg = cfg;
    fw.conn_attr = (struct sm5h_conn){
            .remote_qpn = WIRE_FAKE_QPN,
            .rq_psn = high ? 0xffffffu : 0x200u,
            .sq_psn = high ? 0xfffffeu : 0x100u,
            .retry_cnt = (cfg & 0x08) ? 0 : 7,
            .rnr_retry = rnr[(cfg >> 4) & 3],
            .max_rd_atomic = (cfg & 0x04) ? 1 : 4,
            .min_rnr_timer = 1,
            .timeout = 14,
    };
    fw.reqs_made = 0;
    fw.nreqs = 0;
    fw.outlen = 0;
    fw.send_wrs = fw.recv_wrs = fw.send_cqes = fw.recv_cqes = fw.ok_send = fw.ok_recv = 0;
    fw.frames_in = 0;
    fw.timer_runs = 0;
    memset(fw.buf, 0, WIRE_MR_LEN);
    for (size_t i = 0; i < sizeof(fw.pull_src); i++)
        fw.pull_src[i] = (uint8_t)i;
    if (fw.conn != NULL && emu_conn_dead(fw.conn))
        wire_peer_close();
    wire_qp_up();
}

static void wire_end(void)
{
    bool partial;

    wire_flush(fw.outlen);
    wire_check_qp();
    wire_drain_cq();
    /* A stream left inside a frame cannot start the next input: close it, dial again. */
    partial = fw.conn != NULL &&
              (emu_conn_dead(fw.conn) || fw.conn->rx.active || fw.conn->rlen != fw.conn->roff ||
               fw.prx.split.hlen != 0 || fw.prx.split.skip != 0);
    sm5h_log("  end: %d/%d send completions ok of %d posted, %d/%d receive of %d, %d frames "
             "from the device, connection %s, %lu rejected so far\n",
             fw.ok_send, fw.send_cqes, fw.send_wrs, fw.ok_recv, fw.recv_cqes, fw.recv_wrs,
             fw.frames_in,
             fw.conn == NULL ? "closed"
             : partial       ? "dropped or mid-frame"
                             : "kept",
             (unsigned long)emu_wire_rejected(fw.e->wire));
    if (partial || fw.peer_fd < 0)
        wire_peer_close();
    wire_qp_reset();
    wire_drain_cq();
    wire_peer_drain();
}

static int wire_setup(void)
{
    struct sockaddr_un addr;
    unsigned int alen;
    int rc;

    if (fw.state != 0)
        return fw.state == 1 ? 0 : fw.state;
    rc = sm5h_open(&fw.dev, WIRE_RETRY_MS);
    if (rc != 0) {
        fw.state = rc;
        return rc;
    }
    fw.e = fw.dev.nic->engine;
    fw.mr = sm5h_mr(&fw.dev, WIRE_MR_LEN, WIRE_IOVA,
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                            IBV_ACCESS_REMOTE_ATOMIC,
                    (void **)&fw.buf);
    fw.cq = sm5h_cq(&fw.dev, 4096);
    fw.ibqp = sm5h_qp(&fw.dev, fw.cq, 16, 16, 2, 64);
    fw.qp = sm5h_emu_qp(fw.ibqp);
    fw.out = malloc(WIRE_OUT_MAX);
    if (fw.out == NULL)
        sm5h_die("fuzz_wire: out of memory");
    fw.probe = 0x5eed0fa4e0000001ull;
    fw.peer_fd = -1;
    /* The fake endpoint: the name the device dials for QPNs of endpoint WIRE_FAKE_EP. */
    fw.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    alen = emu_wire_endpoint_addr(&addr, SM5H_IPV4, WIRE_FAKE_EP);
    if (fw.listen_fd < 0 || bind(fw.listen_fd, (struct sockaddr *)&addr, alen) != 0 ||
        listen(fw.listen_fd, 16) != 0)
        sm5h_die("fuzz_wire: cannot listen as endpoint %u: %s", WIRE_FAKE_EP, strerror(errno));
    fw.state = 1;
    return 0;
}

/* Runs one input (receive lock held throughout but while the timers run). */
static void wire_run(const uint8_t *data, size_t size)
{
    struct wire_rd r = {data, size};

    pthread_mutex_lock(&fw.e->rx_lock);
    wire_begin(rd_u8(&r));
    while (r.n > 0) {
        uint8_t b = rd_u8(&r);

        if (b < 0x80) {
            wire_template(&r, b);
        } else if (b < 0xc0) {
            size_t n = (size_t)(b & 0x3f) << 8 | rd_u8(&r);

            if (n > r.n)
                n = r.n;
            wire_out(r.p, n);
            r.p += n;
            r.n -= n;
        } else {
            wire_action(&r, b & 0x0f);
        }
    }
    wire_end();
    pthread_mutex_unlock(&fw.e->rx_lock);
}

/* ---- seeds ---- */

/* A raw record holding one frame built with emu_wire_hdr_init (payload zeros). */
static void seed_raw(struct sm5h_seed *s, struct emu_wire_hdr *h, uint32_t len)
{
    size_t n = sizeof(*h) + len;

    h->payload_len = htobe32(len);
    sm5h_seed_u8(s, (uint8_t)(0x80 | (n >> 8)));
    sm5h_seed_u8(s, (uint8_t)n);
    sm5h_seed_put(s, h, sizeof(*h));
    for (uint32_t i = 0; i < len; i++)
        sm5h_seed_u8(s, 0);
}

static void wire_write_seeds(const char *dir)
{
    static struct sm5h_seed seeds[40];
    const uint32_t S = 0x100, R = 0x200, qpn = fw.qp->qpn, rkey = fw.mr->rkey;
    struct emu_wire_hdr h;
    struct sm5h_seed *s;
    int n = 0;

#define SEED(nm, send, recv) \
    (s = &seeds[n++], s->name = (nm), s->ok_send = (send), s->ok_recv = (recv))
    /* Responses to the read (S), the atomic (S + 1) and the write (S + 2) in flight. */
    SEED("resp_all_raw", 3, -1);
    sm5h_seed_u8(s, 0x00);
    emu_wire_hdr_init(&h, EMU_WIRE_READ_RESP, WIRE_FAKE_QPN, qpn, S);
    seed_raw(s, &h, WIRE_READ_LEN);
    emu_wire_hdr_init(&h, EMU_WIRE_ATOMIC_RESP, WIRE_FAKE_QPN, qpn, S + 1);
    seed_raw(s, &h, 8);
    emu_wire_hdr_init(&h, EMU_WIRE_ACK, WIRE_FAKE_QPN, qpn, S + 2);
    seed_raw(s, &h, 0);
    SEED("resp_all_tmpl", 3, -1);
    sm5h_seed_put(s, "\x00\x0f\x00\x09\x01\x0a\x02", 7);
    SEED("ack_write", 1, -1);
    sm5h_seed_put(s, "\x02\x0a\x00", 3);
    SEED("ack_write_raw", 1, -1);
    sm5h_seed_u8(s, 0x02);
    emu_wire_hdr_init(&h, EMU_WIRE_ACK, WIRE_FAKE_QPN, qpn, S);
    seed_raw(s, &h, 0);
    SEED("nak_read", 0, -1);
    sm5h_seed_u8(s, 0x00);
    emu_wire_hdr_init(&h, EMU_WIRE_NAK, WIRE_FAKE_QPN, qpn, S);
    h.syndrome = PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR;
    seed_raw(s, &h, 0);
    SEED("nak_rnr_write", -1, -1);
    sm5h_seed_u8(s, 0x22); /* a write alone, rnr_retry 1 */
    emu_wire_hdr_init(&h, EMU_WIRE_NAK, WIRE_FAKE_QPN, qpn, S);
    h.syndrome = EMU_WIRE_NAK_RNR;
    h.imm = htobe32(1);
    seed_raw(s, &h, 0);
    sm5h_seed_put(s, "\xc2\xc1", 2); /* the timer resends it; answered */
    SEED("read_resp", 1, -1);
    sm5h_seed_u8(s, 0x00);
    emu_wire_hdr_init(&h, EMU_WIRE_READ_RESP, WIRE_FAKE_QPN, qpn, S);
    seed_raw(s, &h, WIRE_READ_LEN);
    SEED("read_resp_short", 1, -1);
    sm5h_seed_put(s, "\x00\x2f\x00\x00\x10", 5);
    sm5h_seed_put(s, "0123456789abcdef", 16);
    SEED("atomic_resp", 3, -1);
    sm5h_seed_u8(s, 0x04); /* max_rd_atomic 1: the atomic waits for the read's response */
    emu_wire_hdr_init(&h, EMU_WIRE_ATOMIC_RESP, WIRE_FAKE_QPN, qpn, S + 1);
    seed_raw(s, &h, 8);
    sm5h_seed_put(s, "\x0f\x00\xc1", 3);
    SEED("answer_all", 3, -1);
    sm5h_seed_put(s, "\x01\xc1", 2);
    SEED("answer_all_rd1", 3, -1);
    sm5h_seed_put(s, "\x04\xc1\xc1\xc1", 4);
    SEED("req_write", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_WRITE, WIRE_FAKE_QPN, qpn, R);
    h.rkey = htobe32(rkey);
    h.raddr = htobe64(WIRE_IOVA + WIRE_T_WRITE);
    h.flags = EMU_WIRE_F_ACK_REQ;
    seed_raw(s, &h, 64);
    SEED("req_write_imm", -1, 1);
    sm5h_seed_put(s, "\x03\x03\x00", 3);
    SEED("req_send", -1, 1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_SEND, WIRE_FAKE_QPN, qpn, R);
    seed_raw(s, &h, 100);
    SEED("req_send_imm_two", -1, 2);
    sm5h_seed_put(s, "\x03\x05\x00\x04\x00", 5);
    SEED("req_send_rnr", -1, 0);
    sm5h_seed_put(s, "\x83\x04\x00", 3);
    SEED("req_read", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_READ_REQ, WIRE_FAKE_QPN, qpn, R);
    h.rkey = htobe32(rkey);
    h.raddr = htobe64(WIRE_IOVA + WIRE_T_READ);
    h.dma_len = htobe32(256);
    seed_raw(s, &h, 0);
    SEED("req_atomic_fa", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_ATOMIC, WIRE_FAKE_QPN, qpn, R);
    h.rkey = htobe32(rkey);
    h.raddr = htobe64(WIRE_IOVA + WIRE_T_ATOMIC);
    h.op = PRM_WQE_OPCODE_ATOMIC_FA;
    h.dma_len = htobe32(8);
    h.swap_add = htobe64(5);
    seed_raw(s, &h, 0);
    SEED("req_atomic_masked_cs", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_ATOMIC, WIRE_FAKE_QPN, qpn, R);
    h.rkey = htobe32(rkey);
    h.raddr = htobe64(WIRE_IOVA + WIRE_T_ATOMIC);
    h.op = PRM_WQE_OPCODE_ATOMIC_MASKED_CS;
    h.opmod = PRM_WQE_OPMOD_EXT_ATOMIC_4B;
    h.dma_len = htobe32(4);
    h.swap_add = htobe64(0xabcd);
    seed_raw(s, &h, EMU_WIRE_ATOMIC_MASKS_LEN);
    SEED("req_dup_read", -1, -1);
    sm5h_seed_put(s, "\x03\x06\x00\x06\x00\x06\xff", 7);
    SEED("req_write_large", -1, -1);
    sm5h_seed_put(s, "\x03\x22\x00\x50\x00", 5); /* 20480-byte payload: the sink path */
    SEED("req_send_large_split", -1, 1);
    sm5h_seed_put(s, "\x03\x24\x00\x17\x00\xc8\x30\xc8\x50", 9);
    SEED("req_pull_write", -1, -1);
    sm5h_seed_put(s, "\x03\x42\x00\x01\x02", 5); /* flags F_PULL: one entry of the fake peer's */
    SEED("req_pull_send", -1, 1);
    sm5h_seed_put(s, "\x03\x44\x00\x41\x02\x00\x00\x00\x80", 9);
    SEED("psn_wrap", 3, -1);
    sm5h_seed_put(s, "\x40\x0f\x00\x09\x01\x0a\x02\x02\x00\x02\x00", 11);
    SEED("timeout_retry", -1, -1);
    sm5h_seed_put(s, "\x02\xc2\xc1", 3);
    SEED("timeout_exceeded", 0, -1);
    sm5h_seed_put(s, "\x0a\xc2\xc2\xc2", 4);
    SEED("conn_lost", 0, -1);
    sm5h_seed_put(s, "\x00\xc6", 2);
    SEED("reset_stale", -1, -1);
    sm5h_seed_put(s, "\x00\xc7\x0a\x02\xc1", 5);
    SEED("err_then_resp", 0, -1);
    sm5h_seed_put(s, "\x00\xc5\x0f\x00\x0a\x02", 6);
    /* Version 4: a DC_CONNECT for the RC QP (no DCT), a write with F_XRC (no XRC target). */
    SEED("req_dc_connect", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_DC_CONNECT, WIRE_FAKE_QPN, qpn, R);
    h.compare = htobe64(0x1122334455667788ull);
    seed_raw(s, &h, 0);
    SEED("req_write_xrc", -1, -1);
    sm5h_seed_u8(s, 0x03);
    emu_wire_hdr_init(&h, EMU_WIRE_WRITE, WIRE_FAKE_QPN, qpn, R);
    h.flags = EMU_WIRE_F_XRC | EMU_WIRE_F_ACK_REQ;
    h.xrc_srq = htobe16(1);
    h.rkey = htobe32(rkey);
    h.raddr = htobe64(WIRE_IOVA + WIRE_T_WRITE);
    seed_raw(s, &h, 16);
    SEED("bad_frames", -1, -1);
    sm5h_seed_put(s, "\x03\x01\x00\x0c\x00\x00\x0e\x00\x20\x00\x08SML5xxxx", 17);
    SEED("garbage", -1, -1);
    sm5h_seed_put(s, "\x00\x80\x40", 3);
    for (int i = 0; i < 64; i++)
        sm5h_seed_u8(s, (uint8_t)(i * 37 + 11));
#undef SEED

    sm5h_write_seeds(&(struct sm5h_target){"fuzz_wire", wire_run, &fw.ok_send, &fw.ok_recv, false},
                     dir, seeds, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *seeds = getenv("SOFTMLX5_FUZZ_SEEDS");
    int rc = wire_setup();

    (void)argc;
    (void)argv;
    if (rc != 0)
        exit(rc);
    if (seeds != NULL)
        wire_write_seeds(seeds);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (wire_setup() != 0)
        exit(77);
    sm5h_log("input of %zu bytes:\n", size);
    wire_run(data, size);
    return 0;
}
