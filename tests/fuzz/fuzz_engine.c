/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target engine: softmlx5's WQE engine (emu/engine/: requester,
 * completer, responder, QP states) driven by random send-ring contents,
 * doorbells, and QP transitions racing the requester.
 *
 * The device is mlx5_0, opened through the standard verbs API in a network
 * namespace of the process's own (softmlx5_harness.h), with two RC QPs
 * connected to each other (the device dials its own endpoint): A, whose
 * 4096-byte send queue (64 basic blocks) the input fills, and B, its
 * responder, with receives posted. Each input starts with both in RTS and
 * A's ring zeroed. The input's ring contents are written at a cursor (raw
 * basic blocks, or WQEs built from compact templates with the PRM helpers,
 * naming the registered buffers), its doorbells published to the doorbell
 * record and rung with emu_engine_sq_doorbell(), so the requester runs in
 * this thread, while a second, persistent thread performs the transitions
 * the input asks for (ERR, RESET and back through INIT / RTR / RTS, by
 * ibv_modify_qp or emu_engine_qp_modify) at input-chosen moments. Then the
 * device is left to settle (bounded), the CQs are drained, and A and B go
 * to RESET and are connected again for the next input.
 *
 * Input: a configuration byte, then records (bytes an input lacks read as 0):
 *
 *   cfg  bits 0-1  A's rnr_retry 0, 1, 3, 6       bit 2  max_rd_atomic 1 (else 4)
 *        bit 3     retry_cnt 0 (else 3)            bits 4-5  receives posted to
 *        B: 16, 0, 1, 64                           bit 6  PSNs just below 2^24
 *        bit 7     transitions by emu_engine_qp_modify (else ibv_modify_qp)
 *
 *   0x00-0x7f  a WQE at the cursor (which then moves past it): opcode b & 0x0f:
 *              0 NOP, 1 WRITE, 2 WRITE_IMM, 3 SEND, 4 SEND_IMM, 5 READ, 6
 *              CS, 7 FA, 8 / 9 masked CS 4 / 8 bytes, 10 / 11 masked FA 4 / 8
 *              bytes, 12 WAIT, 13 DUMP, 14 WRITE inline, 15 the next two
 *              bytes' opcode and opmod with a data segment; b & 0x10:
 *              signalled, b & 0x20: fenced; b & 0x40: a byte x follows:
 *                x bits 0-1  local key: the local buffer's, the no-access
 *                            buffer's, the remote buffer's, none of them
 *                x bits 2-3  remote key: likewise (remote, no-access, local, none)
 *                x bit 4     a length byte follows: 64-byte units (inline:
 *                            bytes; WAIT: CQ (bits 7-6: A's, B's, none, A's) and
 *                            the index to wait for, relative to its producer
 *                            now (bits 5-0, signed))
 *                x bit 5     two data segments      x bit 7  an offset byte:
 *                x bit 6     a DS byte (the DS      x 256 bytes into the buffers
 *                            field given, any)
 *   0x80-0x8f  (b & 0x0f) + 1 raw basic blocks at the cursor (64 bytes each)
 *   0x90-0x9f  a doorbell: producer = the cursor (b & 0x0f 0), the cursor +
 *              (int8) next byte (1), the next two bytes (2), the cursor + 64
 *              x (next byte & 3) (3: whole rings ahead), the last one again (4);
 *              what the doorbells of an input publish is bounded (ENG_BUDGET:
 *              a producer past it is brought back within, or not rung)
 *   0xa0-0xaf  cursor += (int8) next byte
 *   0xb0-0xbf  a transition for the second thread (16 an input at most),
 *              the next byte's count of us after the one before: b & 7: 0 A
 *              to ERR, 1 A to RESET, 2 A to RESET and up, 3 A RTS to RTS, 4 B
 *              to ERR, 5 B to RESET and up, 6 A to ERR, RESET and up, 7 A up
 *              if in RESET
 *   0xc0-0xcf  sleep (b & 0x0f) x 20 us (0: yield)
 *   0xd0-0xdf  poll the CQs      0xe0-0xef  post (b & 0x0f) + 1 receives to B
 *   0xf0-0xff  wait until the device settled (sleeps and waits: ENG_SETTLE_NS
 *              an input in all)
 *
 * Besides the sanitizers' findings, an input aborts when: A's consumer
 * passed its producer (qp->sq_consumer against qp->sq_posted, under
 * qp->lock), its pending ring holds more than its size or fewer entries
 * than reads in flight; there are more send completions than WQEs
 * published or receive completions than receives posted, or completions
 * of a kind no WQE asked for; A is in RTS with WQEs published, none
 * outstanding, nothing to wait for and nothing moving for ENG_STUCK_NS
 * (lost-doorbell), or requests outstanding with nothing moving (no
 * response, resend or failure) that long, well past the retry timeout
 * (dead-timer);
 * the process's CPU time keeps climbing once the device settled (checked
 * on the first input and every 32nd); a RESET, a transition or the
 * settling does not return (watchdog); after RESET the QPs or the engine
 * still count work; or a frame softmlx5 sent was rejected by softmlx5 in
 * an input that reset no QP (both ends are the device: a rejection is a
 * frame it should never have sent). Findings already reported can be
 * looked past in long runs with SOFTMLX5_FUZZ_TOLERATE=<id>[,<id>]
 * (softmlx5_harness.h: reads-underflow, lost-doorbell, dead-timer,
 * retry-livelock, dead-timer-live, spin).
 *
 * Seeds: SOFTMLX5_FUZZ_SEEDS=DIR fuzz_engine X writes them to DIR (WQEs
 * built with the PRM helpers of include/device/impl/prm/mlx5_wqe.h; each one is
 * run and its completions checked first) and exits:
 * SOFTMLX5_FUZZ_SEEDS=tests/fuzz/corpus/engine build-fz/tests/fuzz_engine
 * tests/fuzz/corpus/engine. SOFTMLX5_FUZZ_VERBOSE=1 prints what each input
 * did.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "engine/engine.h"
#include "fuzz.h"
#include "nic/cq.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "softmlx5_harness.h"
#include "wire/wire.h"
#include "wire/wire_int.h"

#define ENG_LOG_SQ      6 /* A's send queue: 64 basic blocks, 4096 bytes */
#define ENG_SQ_BBS      (1u << ENG_LOG_SQ)
#define ENG_BUF_LEN     0x10000u
#define ENG_LOCAL_IOVA  0x10000000ull
#define ENG_REMOTE_IOVA 0x20000000ull
#define ENG_NONE_IOVA   0x30000000ull
#define ENG_NONE_LEN    0x1000u
#define ENG_BOGUS_KEY   0x00dead00u
#define ENG_BOGUS_CQN   0x00ffffffu
#define ENG_CQ_A        (1 << 17)
#define ENG_CQ_B        4096
#define ENG_B_RECVS     64
#define ENG_RECV_LEN    0x400u
#define ENG_MAX_OPS     16
#define ENG_RETRY_MS    10
/*
 * Settling: this long while the device works; nothing moving for ENG_STUCK_NS
 * (well past the retry timeout) is stuck.
 */
#define ENG_SETTLE_NS   60000000ull
#define ENG_STUCK_NS    80000000ull
#define ENG_WATCHDOG_NS 10000000000ull
/*
 * Basic blocks the doorbells of one input may publish (32 rings): each is
 * executed, a few tens of microseconds apiece under ASan with traffic. The
 * 16-bit producer's wrap (65536 published) is beyond it; a run can raise it
 * with SOFTMLX5_FUZZ_ENGINE_BUDGET (at most 2^20).
 */
#define ENG_BUDGET      2048u

/* A transition the second thread performs. */
struct eng_op {
    uint8_t kind;
    uint32_t delay_us; /* after the one before */
};

static struct {
    int state; /* 0 not set up, 1 ready, 77 this host cannot */
    struct sm5h_dev dev;
    struct emu_engine *e;
    struct ibv_mr *local, *remote, *none;
    uint8_t *local_buf, *remote_buf, *none_buf;
    struct ibv_cq *cqa, *cqb;
    struct ibv_qp *iba, *ibb;
    struct emu_qp *a, *b;
    uint8_t *ring;
    uint64_t inputs;

    /* This input. */
    uint8_t cfg;
    struct sm5h_conn ca, cb;
    uint32_t cursor, last_producer;
    uint64_t wqe_bound; /* WQEs the doorbells can have published, at most */
    uint64_t budget;    /* basic blocks an input may publish (ENG_BUDGET, or the environment's) */
    uint64_t waited_ns; /* in the waits and sleeps the input asked for */
    int b_recvs;        /* receives posted to B (atomic: the second thread posts too) */
    int send_cqes, ok_send, recv_cqes, ok_recv;
    bool reset_seen; /* the input reset a QP (the rejection check does not apply) */
    uint64_t rejected;

    /* The second thread. */
    pthread_t t2;
    pthread_mutex_t t2_lock;
    pthread_cond_t t2_cond;
    struct eng_op ops[ENG_MAX_OPS];
    int nops;
    bool t2_go, t2_done;

    /* The watchdog: a step that must return by its deadline (0: none). */
    pthread_t wd;
    uint64_t wd_deadline[2]; /* [0] this thread, [1] the second thread */
    const char *wd_what[2];
} fe;

/* ---- the watchdog ---- */

static void eng_wd_arm(int who, const char *what)
{
    __atomic_store_n(&fe.wd_what[who], what, __ATOMIC_RELAXED);
    __atomic_store_n(&fe.wd_deadline[who], sm5h_now_ns() + ENG_WATCHDOG_NS, __ATOMIC_RELEASE);
}

static void eng_wd_disarm(int who)
{
    __atomic_store_n(&fe.wd_deadline[who], 0, __ATOMIC_RELEASE);
}

static void *eng_watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        uint64_t now = sm5h_now_ns();

        for (int who = 0; who < 2; who++) {
            uint64_t d = __atomic_load_n(&fe.wd_deadline[who], __ATOMIC_ACQUIRE);

            if (d != 0 && now > d)
                sm5h_die("fuzz_engine: %s did not return within %llu s", fe.wd_what[who],
                         (unsigned long long)(ENG_WATCHDOG_NS / 1000000000ull));
        }
        sm5h_sleep_us(50000);
    }
    return NULL;
}

/* ---- the QPs ---- */

/* What must always hold of A: consumer within producer, the pending ring within its size. */
static void eng_check_a(const char *when)
{
    struct emu_qp *qp = fe.a;
    uint32_t posted, consumer, pending, reads;

    pthread_mutex_lock(&qp->lock);
    posted = qp->sq_posted;
    consumer = qp->sq_consumer;
    pending = qp->pending_tail - qp->pending_head;
    reads = qp->reads_in_flight;
    pthread_mutex_unlock(&qp->lock);
    if ((int32_t)(posted - consumer) < 0)
        sm5h_die("fuzz_engine: %s: the requester's consumer %u passed the producer %u", when,
                 consumer, posted);
    if (pending > qp->pending_size)
        sm5h_die("fuzz_engine: %s: %u pending WQEs in a ring of %u", when, pending,
                 qp->pending_size);
    if (reads > pending)
        sm5h_finding("reads-underflow",
                     "fuzz_engine: %s: %u reads and atomics in flight, %u WQEs pending: the count "
                     "went wrong",
                     when, reads, pending);
    if (__atomic_load_n(&fe.e->inflight, __ATOMIC_RELAXED) < 0)
        sm5h_die("fuzz_engine: %s: the engine counts %d WQEs in flight", when,
                 __atomic_load_n(&fe.e->inflight, __ATOMIC_RELAXED));
}

/* Where B's receives land: 64 slots of ENG_RECV_LEN bytes in the remote buffer's upper half. */
static void eng_post_recvs(int n)
{
    for (int i = 0; i < n; i++) {
        int k = __atomic_fetch_add(&fe.b_recvs, 1, __ATOMIC_RELAXED);
        struct ibv_sge sge[2] = {
                {ENG_REMOTE_IOVA + 0x8000 + (uint64_t)(k % 32) * ENG_RECV_LEN, ENG_RECV_LEN / 2,
                 fe.remote->lkey},
                {ENG_REMOTE_IOVA + 0x8000 + (uint64_t)(k % 32) * ENG_RECV_LEN + ENG_RECV_LEN / 2,
                 ENG_RECV_LEN / 2, fe.remote->lkey},
        };
        struct ibv_recv_wr wr = {.wr_id = (uint64_t)k, .sg_list = sge, .num_sge = 2}, *bad;

        if (ibv_post_recv(fe.ibb, &wr, &bad) != 0)
            __atomic_fetch_sub(&fe.b_recvs, 1, __ATOMIC_RELAXED);
    }
}

static void eng_count_wc(const struct ibv_wc *wc, void *arg)
{
    bool on_b = arg != NULL;
    bool recv = (wc->opcode & IBV_WC_RECV) != 0;

    sm5h_log("  %s completion: QP 0x%x opcode %d status %d (%s) byte_len %u\n", on_b ? "B" : "A",
             wc->qp_num, wc->opcode, wc->status, ibv_wc_status_str(wc->status), wc->byte_len);
    /* A only sends, B only receives: anything else is a completion no WQE asked for. */
    if (wc->qp_num != (on_b ? fe.b->qpn : fe.a->qpn) || recv != on_b)
        sm5h_die("fuzz_engine: a %s completion of QP 0x%x on %s's CQ (A is 0x%x, B 0x%x)",
                 recv ? "receive" : "send", wc->qp_num, on_b ? "B" : "A", fe.a->qpn, fe.b->qpn);
    if (on_b) {
        fe.recv_cqes++;
        fe.ok_recv += wc->status == IBV_WC_SUCCESS;
    } else {
        fe.send_cqes++;
        fe.ok_send += wc->status == IBV_WC_SUCCESS;
    }
}

static void eng_poll(void)
{
    sm5h_drain_cq(fe.cqa, eng_count_wc, NULL);
    sm5h_drain_cq(fe.cqb, eng_count_wc, &fe);
    if ((uint64_t)fe.send_cqes > fe.wqe_bound ||
        fe.recv_cqes > __atomic_load_n(&fe.b_recvs, __ATOMIC_RELAXED))
        sm5h_die("fuzz_engine: %d send completions for at most %llu WQEs published, %d receive "
                 "completions for %d receives posted",
                 fe.send_cqes, (unsigned long long)fe.wqe_bound, fe.recv_cqes, fe.b_recvs);
    if (((struct emu_cq *)fe.cqa)->overrun || ((struct emu_cq *)fe.cqb)->overrun)
        sm5h_die("fuzz_engine: harness: a CQ overran");
}

/* The PSNs that keep A and B in step: A sends what B expects next. */
static void eng_conn_a(struct sm5h_conn *c)
{
    *c = fe.ca;
    pthread_mutex_lock(&fe.b->lock);
    c->sq_psn = fe.b->expected_psn & 0xffffff;
    pthread_mutex_unlock(&fe.b->lock);
}

static void eng_conn_b(struct sm5h_conn *c)
{
    struct emu_qp *a = fe.a;

    *c = fe.cb;
    pthread_mutex_lock(&a->lock);
    c->rq_psn = (a->pending_head != a->pending_tail
                         ? a->pending[a->pending_head & (a->pending_size - 1)].psn
                         : a->next_psn) &
                0xffffff;
    pthread_mutex_unlock(&a->lock);
}

static int eng_to(struct ibv_qp *qp, uint8_t to)
{
    uint8_t from;

    if (!(fe.cfg & 0x80))
        return sm5h_qp_to(qp, to == PRM_QP_STATE_RST ? IBV_QPS_RESET : IBV_QPS_ERR);
    from = sm5h_qp_state(qp);
    if (from == to)
        return 0;
    if (emu_engine_qp_modify(sm5h_emu_qp(qp), from, to, NULL) != 0)
        return EINVAL;
    if (to == PRM_QP_STATE_RST)
        sm5h_sw_reset(qp);
    return 0;
}

/* RESET (when not there) and up to RTS; a transition the device refused is no finding. */
static void eng_up(struct ibv_qp *qp, const struct sm5h_conn *c)
{
    if (eng_to(qp, PRM_QP_STATE_RST) != 0)
        return;
    if (fe.cfg & 0x80)
        sm5h_emu_up(qp, c);
    else
        sm5h_qp_up(qp, c, NULL);
}

static void eng_t2_op(uint8_t kind)
{
    struct sm5h_conn c;

    switch (kind & 7) {
    case 0:
        eng_to(fe.iba, PRM_QP_STATE_ERR);
        break;
    case 1:
        eng_to(fe.iba, PRM_QP_STATE_RST);
        break;
    case 2:
        eng_conn_a(&c);
        eng_up(fe.iba, &c);
        break;
    case 3: {
        struct emu_qp_attr a;

        pthread_mutex_lock(&fe.a->lock);
        a = fe.a->attr;
        pthread_mutex_unlock(&fe.a->lock);
        emu_engine_qp_modify(fe.a, PRM_QP_STATE_RTS, PRM_QP_STATE_RTS, &a);
        break;
    }
    case 4:
        eng_to(fe.ibb, PRM_QP_STATE_ERR);
        break;
    case 5:
        eng_conn_b(&c);
        eng_up(fe.ibb, &c);
        eng_post_recvs(16);
        break;
    case 6:
        eng_to(fe.iba, PRM_QP_STATE_ERR);
        eng_conn_a(&c);
        eng_up(fe.iba, &c);
        break;
    default:
        if (sm5h_qp_state(fe.iba) == PRM_QP_STATE_RST) {
            eng_conn_a(&c);
            eng_up(fe.iba, &c);
        }
        break;
    }
    eng_check_a("after a transition");
}

static void eng_delay(uint32_t us)
{
    if (us == 0)
        return;
    if (us >= 60) {
        sm5h_sleep_us(us);
        return;
    }
    for (uint64_t end = sm5h_now_ns() + us * 1000ull; sm5h_now_ns() < end;)
        sched_yield();
}

static void *eng_t2_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&fe.t2_lock);
    for (;;) {
        int n;

        while (!fe.t2_go)
            pthread_cond_wait(&fe.t2_cond, &fe.t2_lock);
        fe.t2_go = false;
        n = fe.nops;
        pthread_mutex_unlock(&fe.t2_lock);
        for (int i = 0; i < n; i++) {
            eng_delay(fe.ops[i].delay_us);
            eng_wd_arm(1, "a transition of the second thread");
            eng_t2_op(fe.ops[i].kind);
            eng_wd_disarm(1);
        }
        pthread_mutex_lock(&fe.t2_lock);
        fe.t2_done = true;
        pthread_cond_broadcast(&fe.t2_cond);
    }
    return NULL;
}

/* ---- the device settling ---- */

static uint32_t eng_cq_producer(struct ibv_cq *ibcq)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;
    uint32_t p;

    pthread_mutex_lock(&cq->lock);
    p = cq->producer;
    pthread_mutex_unlock(&cq->lock);
    return p;
}

enum eng_settle { ENG_BUSY, ENG_SETTLED, ENG_STALLED };

/* What moves while the device works on A's queue: unchanged, nothing happened. */
struct eng_progress {
    uint32_t consumer, posted, head, tail, next_psn, expected, produced;
    uint64_t wire_bytes; /* in the device's sockets and transmit queues */
    uint8_t state;
};

/* Bytes the device's connections hold, unread or waiting to be sent (a frame in progress: 1). */
static uint64_t eng_wire_bytes(void)
{
    struct emu_wire *wire = fe.e->wire;
    uint64_t bytes = 0;

    pthread_mutex_lock(&wire->lock);
    for (struct emu_conn *c = wire->conns; c != NULL; c = c->next) {
        int n = 0;

        if (ioctl(c->fd, FIONREAD, &n) == 0 && n > 0)
            bytes += (uint64_t)n;
        bytes += __atomic_load_n(&c->tx_bytes, __ATOMIC_RELAXED);
        bytes += c->rlen != c->roff || c->rx.active;
    }
    pthread_mutex_unlock(&wire->lock);
    return bytes;
}

/*
 * A is done with what was published, or waits for something that may
 * legitimately never come (a WAIT, a state that does not send), or is
 * stalled: in RTS with WQEs published, nothing outstanding and nothing to
 * wait for (it should be running).
 */
static enum eng_settle eng_settled(struct eng_progress *g)
{
    struct emu_qp *qp = fe.a;
    enum eng_settle r = ENG_BUSY;

    pthread_mutex_lock(&qp->lock);
    g->consumer = qp->sq_consumer;
    g->posted = qp->sq_posted;
    g->head = qp->pending_head;
    g->tail = qp->pending_tail;
    g->next_psn = qp->next_psn;
    g->state = qp->state;
    if (qp->reads_in_flight > qp->pending_tail - qp->pending_head) {
        /* Reported by eng_check_a (reads-underflow); the requester waits on it for good. */
        r = ENG_SETTLED;
    } else if (qp->state == PRM_QP_STATE_RST || qp->pending_head == qp->pending_tail) {
        if (qp->state == PRM_QP_STATE_RST || qp->sq_consumer == qp->sq_posted || qp->wait_active ||
            qp->state == PRM_QP_STATE_INIT || qp->state == PRM_QP_STATE_RTR)
            r = ENG_SETTLED;
        else if (qp->state == PRM_QP_STATE_RTS && qp->rnr_resume_ns == 0 && !qp->tx_stalled &&
                 !qp->sq_rerun)
            r = ENG_STALLED;
    }
    pthread_mutex_unlock(&qp->lock);
    pthread_mutex_lock(&fe.b->lock);
    g->expected = fe.b->expected_psn;
    pthread_mutex_unlock(&fe.b->lock);
    g->produced = eng_cq_producer(fe.cqa);
    /* Settled is the whole device idle: B done with what A sent, its answers in. */
    g->wire_bytes = eng_wire_bytes();
    if (r == ENG_SETTLED && g->wire_bytes != 0)
        r = ENG_BUSY;
    return r;
}

/*
 * Waits for A to settle, polling the CQs, ENG_SETTLE_NS at most while
 * it keeps moving (then the input ends anyway: it is bounded). The final wait also judges what it
 * saw: stalled without any progress for ENG_STUCK_NS is a lost doorbell; requests outstanding
 * without any progress (no response, no retry, no failure) for ENG_STUCK_NS, well past the retry
 * timeout, are a dead timer.
 */
static bool eng_settle(bool final)
{
    uint64_t start = sm5h_now_ns(), moved = start;
    struct eng_progress g, last;
    enum eng_settle r;
    unsigned int us = 5;

    /* Waits the input asks for (record 0xf0) share one bound, ENG_SETTLE_NS an input. */
    if (!final && fe.waited_ns >= ENG_SETTLE_NS)
        return false;

    eng_wd_arm(0, "settling");
    eng_poll();
    r = eng_settled(&last);
    while (r != ENG_SETTLED) {
        uint64_t now;

        sm5h_sleep_us(us);
        if (us < 1000)
            us *= 2;
        eng_poll();
        eng_check_a("settling");
        r = eng_settled(&g);
        now = sm5h_now_ns();
        if (memcmp(&g, &last, sizeof(g)) != 0) {
            last = g;
            moved = now;
        }
        /* Still moving after ENG_SETTLE_NS: enough (bounded); not moving: judged at ENG_STUCK_NS.
         */
        if (r == ENG_SETTLED || now - moved > ENG_STUCK_NS ||
            (!final && fe.waited_ns + (now - start) >= ENG_SETTLE_NS) ||
            (now - start > ENG_SETTLE_NS && now - moved < 5000000ull))
            break;
    }
    eng_wd_disarm(0);
    if (!final)
        fe.waited_ns += sm5h_now_ns() - start;
    if (!final || r == ENG_SETTLED || sm5h_now_ns() - moved <= ENG_STUCK_NS)
        return r == ENG_SETTLED;
    if (r == ENG_STALLED) {
        const struct prm_wqe_ctrl_seg *ctrl = prm_wqe_slot(fe.ring, g.consumer, ENG_LOG_SQ);

        sm5h_finding("lost-doorbell",
                     "fuzz_engine: lost doorbell: A is in RTS with send WQEs published up to %u, "
                     "the requester stopped at %u (WQE there: opcode 0x%x, DS %u, fm_ce_se "
                     "0x%x), nothing outstanding, nothing to wait for, nothing moved for %llu ms",
                     g.posted, g.consumer, be32toh(ctrl->opmod_idx_opcode) & 0xff,
                     be32toh(ctrl->qpn_ds) & 0x3f, ctrl->fm_ce_se,
                     (unsigned long long)(ENG_STUCK_NS / 1000000));
    } else if (g.state != PRM_QP_STATE_RST && g.head != g.tail) {
        struct emu_qp *qp = fe.a;
        const char *id = g.state == PRM_QP_STATE_ERR ? "dead-timer" : "dead-timer-live";
        char head[256] = "";

        pthread_mutex_lock(&qp->lock);
        if (qp->pending_head != qp->pending_tail) {
            const struct emu_pending *e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];

            /* Resent again and again, the retry count back to full each time: a livelock. */
            if (g.state == PRM_QP_STATE_RTS && !e->done && e->needs_response &&
                qp->attr.retry_count > 0 && qp->retries_left == qp->attr.retry_count &&
                e->deadline_ns > sm5h_now_ns() - ENG_RETRY_MS * 1000000ull)
                id = "retry-livelock";
            snprintf(head, sizeof(head),
                     "; the oldest: PSN 0x%x opcode 0x%x %s%s, deadline %+lld ms; %u reads in "
                     "flight, %u of %u retries left, resend %s",
                     e->psn, e->opcode, e->done ? "done" : "not done",
                     e->needs_response ? ", awaits data" : "",
                     (long long)((int64_t)(e->deadline_ns - sm5h_now_ns()) / 1000000),
                     qp->reads_in_flight, qp->retries_left, qp->attr.retry_count,
                     qp->rnr_resume_ns != 0 ? "due" : "not due");
        }
        pthread_mutex_unlock(&qp->lock);
        /*
         * dead-timer: in ERR, requests the requester sent as the QP went there;
         * retry-livelock: the oldest, a read or an atomic, resent for ever (the
         * ACKs of the ones after it give the retry count back); else new.
         */
        sm5h_finding(id,
                     "fuzz_engine: A (state %u) has %u requests outstanding and nothing moved for "
                     "%llu ms (retry timeout %u ms): none answered, none failed%s",
                     g.state, g.tail - g.head, (unsigned long long)(ENG_STUCK_NS / 1000000),
                     ENG_RETRY_MS, head);
    }
    return false;
}

/* CPU time of each thread of the process (/proc/self/task/<tid>/schedstat, ns) and its name. */
struct eng_task {
    int tid;
    uint64_t ns;
    char name[32];
};

static int eng_tasks(struct eng_task *t, int max)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;
    int n = 0;

    while (d != NULL && n < max && (de = readdir(d)) != NULL) {
        char path[64];
        FILE *f;

        if (de->d_name[0] == '.')
            continue;
        t[n].tid = atoi(de->d_name);
        t[n].ns = 0;
        snprintf(t[n].name, sizeof(t[n].name), "?");
        snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", t[n].tid);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%" SCNu64, &t[n].ns) != 1)
                t[n].ns = 0;
            fclose(f);
        }
        snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t[n].tid);
        if ((f = fopen(path, "r")) != NULL) {
            if (fgets(t[n].name, sizeof(t[n].name), f) != NULL)
                t[n].name[strcspn(t[n].name, "\n")] = '\0';
            fclose(f);
        }
        n++;
    }
    if (d != NULL)
        closedir(d);
    return n;
}

/* Settled means idle: the process's CPU time must not climb (no thread spins). */
static void eng_check_cpu(void)
{
    struct eng_task before[64], after[64];
    char who[512] = "";
    int nb = 0, na;

    for (int attempt = 0; attempt < 3; attempt++) {
        uint64_t cpu0 = sm5h_cpu_ns(), t0 = sm5h_now_ns(), cpu, wall;

        if (attempt == 2)
            nb = eng_tasks(before, 64);
        sm5h_sleep_us(attempt == 0 ? 5000 : 20000);
        cpu = sm5h_cpu_ns() - cpu0;
        wall = sm5h_now_ns() - t0;
        if (cpu * 10 < wall * 6)
            return;
        sm5h_log("  %llu us of CPU in %llu us settled\n", (unsigned long long)(cpu / 1000),
                 (unsigned long long)(wall / 1000));
    }
    /* Who: the threads that ran in the last window. */
    na = eng_tasks(after, 64);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (after[i].tid == before[j].tid && after[i].ns - before[j].ns > 2000000) {
                size_t len = strlen(who);

                snprintf(who + len, sizeof(who) - len, " %s (tid %d%s): %llu us;", after[i].name,
                         after[i].tid, after[i].tid == getpid() ? ", main" : "",
                         (unsigned long long)((after[i].ns - before[j].ns) / 1000));
            }
    sm5h_finding("spin",
                 "fuzz_engine: the device settled, yet the process keeps using over 60%% of a "
                 "CPU (a thread spins); in 20 ms:%s",
                 who);
}

/* ---- the ring ---- */

static void eng_ring_put(uint32_t bb, const uint8_t *data, uint32_t nbb)
{
    for (uint32_t i = 0; i < nbb; i++)
        memcpy(prm_wqe_slot(fe.ring, bb + i, ENG_LOG_SQ), data + i * PRM_WQE_BB_SIZE,
               PRM_WQE_BB_SIZE);
}

struct eng_rd {
    const uint8_t *p;
    size_t n;
};

static uint8_t rd_u8(struct eng_rd *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint32_t eng_key(uint32_t sel, bool remote)
{
    switch (sel & 3) {
    case 0:
        return remote ? fe.remote->rkey : fe.local->lkey;
    case 1:
        return remote ? fe.none->rkey : fe.none->lkey;
    case 2:
        return remote ? fe.local->rkey : fe.remote->lkey;
    default:
        return ENG_BOGUS_KEY;
    }
}

static uint64_t eng_iova(uint32_t sel, bool remote)
{
    switch (sel & 3) {
    case 0:
        return remote ? ENG_REMOTE_IOVA : ENG_LOCAL_IOVA;
    case 1:
        return ENG_NONE_IOVA;
    case 2:
        return remote ? ENG_LOCAL_IOVA : ENG_REMOTE_IOVA;
    default:
        return 0x4000;
    }
}

static const uint8_t eng_opcodes[15] = {
        PRM_WQE_OPCODE_NOP,
        PRM_WQE_OPCODE_RDMA_WRITE,
        PRM_WQE_OPCODE_RDMA_WRITE_IMM,
        PRM_WQE_OPCODE_SEND,
        PRM_WQE_OPCODE_SEND_IMM,
        PRM_WQE_OPCODE_RDMA_READ,
        PRM_WQE_OPCODE_ATOMIC_CS,
        PRM_WQE_OPCODE_ATOMIC_FA,
        PRM_WQE_OPCODE_ATOMIC_MASKED_CS,
        PRM_WQE_OPCODE_ATOMIC_MASKED_CS,
        PRM_WQE_OPCODE_ATOMIC_MASKED_FA,
        PRM_WQE_OPCODE_ATOMIC_MASKED_FA,
        PRM_WQE_OPCODE_WAIT,
        PRM_WQE_OPCODE_DUMP,
        PRM_WQE_OPCODE_RDMA_WRITE,
};

/* A WQE from the template (the input format above), written at the cursor. */
static void eng_wqe(struct eng_rd *r, uint8_t b)
{
    uint8_t buf[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE];
    uint8_t sel = b & 0x0f, x = (b & 0x40) ? rd_u8(r) : 0;
    uint8_t opcode, opmod = 0, lenb = 0, dsb = 0, offb = 0;
    uint8_t fm_ce_se =
            (uint8_t)(((b & 0x10) ? PRM_WQE_CTRL_CQ_UPDATE : 0) |
                      ((b & 0x20) ? PRM_WQE_CTRL_FM_SMALL_AND_FENCE : 0) | PRM_WQE_CTRL_SOLICITED);
    uint32_t off = sizeof(struct prm_wqe_ctrl_seg), len = 64, size = 0, ds;
    uint64_t loff, roff;
    bool atomic, inl = sel == 14;

    if (sel == 15) {
        opcode = rd_u8(r);
        opmod = rd_u8(r);
    } else {
        opcode = eng_opcodes[sel];
        if (sel == 8 || sel == 10)
            opmod = PRM_WQE_OPMOD_EXT_ATOMIC_4B;
        else if (sel == 9 || sel == 11)
            opmod = PRM_WQE_OPMOD_EXT_ATOMIC_8B;
    }
    if (x & 0x10)
        lenb = rd_u8(r);
    if (x & 0x40)
        dsb = rd_u8(r);
    if (x & 0x80)
        offb = rd_u8(r);
    loff = (uint64_t)offb * 256;
    roff = (uint64_t)offb * 256;
    memset(buf, 0, sizeof(buf));
    atomic = opcode == PRM_WQE_OPCODE_ATOMIC_CS || opcode == PRM_WQE_OPCODE_ATOMIC_FA ||
             opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS || opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_FA;
    if (x & 0x10)
        len = inl ? lenb : (uint32_t)lenb * 64;
    else if (inl)
        len = 16;
    if (opcode == PRM_WQE_OPCODE_WAIT) {
        struct ibv_cq *cq = (x & 0x10) && (lenb >> 6) == 1 ? fe.cqb : fe.cqa;
        uint32_t cqn = (x & 0x10) && (lenb >> 6) == 2 ? ENG_BOGUS_CQN : ((struct emu_cq *)cq)->cqn;
        int32_t delta = (x & 0x10) ? (int8_t)(uint8_t)(lenb << 2) >> 2 : 1;

        prm_wqe_set_wait_seg((void *)(buf + off), cqn,
                             (eng_cq_producer(cq) + (uint32_t)delta) & 0xffffff);
        off += sizeof(struct prm_wqe_wait_seg);
    } else if (opcode != PRM_WQE_OPCODE_NOP && opcode != PRM_WQE_OPCODE_SEND &&
               opcode != PRM_WQE_OPCODE_SEND_IMM && opcode != PRM_WQE_OPCODE_DUMP) {
        /* Remote address: aligned for atomics, as the target must be. */
        prm_wqe_set_raddr_seg((void *)(buf + off),
                              eng_iova(x >> 2, true) + (atomic ? roff & ~7ull : roff) + 0x100,
                              eng_key(x >> 2, true));
        off += sizeof(struct prm_wqe_raddr_seg);
    }
    if (atomic) {
        uint32_t masks;

        size = emu_wire_atomic_size(opcode, opmod, &masks);
        if (opcode == PRM_WQE_OPCODE_ATOMIC_CS || opcode == PRM_WQE_OPCODE_ATOMIC_FA) {
            prm_wqe_set_atomic_seg((void *)(buf + off), 3, 0);
            off += sizeof(struct prm_wqe_atomic_seg);
        } else if (opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS && size == 4) {
            prm_wqe_set_masked_cs32_seg((void *)(buf + off), 5, 0, 0xffff, 0xffff);
            off += sizeof(struct prm_wqe_masked_cs32_seg);
        } else if (opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS) {
            prm_wqe_set_masked_cs64_seg((void *)(buf + off), 5, 0, ~0ull, 0xffffffffull);
            off += sizeof(struct prm_wqe_masked_cs64_seg);
        } else if (size == 4) {
            prm_wqe_set_masked_fa32_seg((void *)(buf + off), 1, 0x80);
            off += sizeof(struct prm_wqe_masked_fa32_seg);
        } else {
            prm_wqe_set_masked_fa64_seg((void *)(buf + off), 1, 0x8000);
            off += sizeof(struct prm_wqe_masked_fa64_seg);
        }
        if (!(x & 0x10))
            len = size != 0 ? size : 8;
    }
    if (inl) {
        uint32_t room = PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE - off - sizeof(struct prm_wqe_inline_seg);

        if (len > room)
            len = room;
        prm_wqe_set_inline_seg((void *)(buf + off), len);
        memset(buf + off + sizeof(struct prm_wqe_inline_seg), 0x5a, len);
        off += prm_wqe_inline_ds(len) * PRM_WQE_DS_SIZE;
    } else if (opcode != PRM_WQE_OPCODE_NOP && opcode != PRM_WQE_OPCODE_WAIT && len > 0) {
        uint32_t nseg = (x & 0x20) ? 2 : 1, first = (x & 0x20) ? len / 2 : len;
        uint64_t base = eng_iova(x, false) + loff;

        prm_wqe_set_data_seg((void *)(buf + off), first, eng_key(x, false), base);
        off += sizeof(struct prm_wqe_data_seg);
        if (nseg == 2) {
            prm_wqe_set_data_seg((void *)(buf + off), len - first, eng_key(x, false),
                                 base + first + 64);
            off += sizeof(struct prm_wqe_data_seg);
        }
    }
    ds = (x & 0x40) ? (dsb & 0x3f) : prm_wqe_ds_count(off);
    prm_wqe_set_ctrl_seg((void *)buf, (uint16_t)fe.cursor, opcode, opmod, fe.a->qpn, fm_ce_se,
                         (uint8_t)ds, 0, htobe32(0xc0ffee00u | sel));
    /* What the WQE claims (its DS) is what goes into the ring, at least one basic block. */
    ds = prm_wqe_bb_count(ds > 0 ? ds : 1);
    if (ds * PRM_WQE_BB_SIZE < off)
        ds = prm_wqe_bb_count(prm_wqe_ds_count(off));
    eng_ring_put(fe.cursor, buf, ds);
    fe.cursor += ds;
}

/* A doorbell: the producer into the doorbell record, then rung (the requester runs here). */
static void eng_doorbell(uint32_t producer)
{
    uint32_t p = producer & 0xffff, inc = (p - fe.last_producer) & 0xffff;
    /* Since the last doorbell the QP may have been reset (its producer back to 0). */
    uint32_t cost = inc > p ? inc : p;

    /* Within the input's budget of published basic blocks: each one is executed. */
    if (fe.wqe_bound + cost > fe.budget) {
        uint32_t room = (uint32_t)(fe.budget - fe.wqe_bound), k = inc < room ? inc : room;

        p = (fe.last_producer + k) & 0xffff;
        cost = k > p ? k : p;
        if (fe.wqe_bound + cost > fe.budget)
            return;
    }
    fe.wqe_bound += cost;
    fe.last_producer = p;
    __atomic_store_n((uint32_t *)fe.a->p.dbrec + 1, htobe32(p), __ATOMIC_RELEASE);
    emu_engine_sq_doorbell(fe.a, p);
    eng_check_a("after a doorbell");
    eng_poll();
}

/* One record; transitions are only collected (first pass), everything else done (second). */
static void eng_record(struct eng_rd *r, bool collect)
{
    uint8_t b = rd_u8(r), v;

    if (b < 0x80) {
        if (collect) {
            /* Skip it as eng_wqe reads it. */
            uint8_t x = (b & 0x40) ? rd_u8(r) : 0;

            if ((b & 0x0f) == 15) {
                rd_u8(r);
                rd_u8(r);
            }
            for (int bit = 4; bit <= 7; bit++)
                if (bit != 5 && (x & (1u << bit)))
                    rd_u8(r);
            return;
        }
        eng_wqe(r, b);
        return;
    }
    if (b < 0x90) {
        uint32_t nbb = (b & 0x0f) + 1u;
        uint8_t raw[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
        size_t take = nbb * PRM_WQE_BB_SIZE < r->n ? nbb * PRM_WQE_BB_SIZE : r->n;

        memcpy(raw, r->p, take);
        r->p += take;
        r->n -= take;
        if (!collect) {
            eng_ring_put(fe.cursor, raw, nbb);
            fe.cursor += nbb;
        }
        return;
    }
    switch (b >> 4) {
    case 0x9:
        switch (b & 0x0f) {
        case 1:
            v = rd_u8(r);
            if (!collect)
                eng_doorbell(fe.cursor + (uint32_t)(int32_t)(int8_t)v);
            break;
        case 2: {
            uint32_t hi = rd_u8(r);

            v = rd_u8(r);
            if (!collect)
                eng_doorbell(hi << 8 | v);
            break;
        }
        case 3:
            v = rd_u8(r);
            if (!collect)
                eng_doorbell(fe.cursor + ENG_SQ_BBS * (v & 3u));
            break;
        case 4:
            if (!collect)
                eng_doorbell(fe.last_producer);
            break;
        default:
            if (!collect)
                eng_doorbell(fe.cursor);
            break;
        }
        break;
    case 0xa:
        v = rd_u8(r);
        if (!collect)
            fe.cursor += (uint32_t)(int32_t)(int8_t)v;
        break;
    case 0xb:
        v = rd_u8(r);
        if (collect && fe.nops < ENG_MAX_OPS) {
            fe.ops[fe.nops++] = (struct eng_op){(uint8_t)(b & 7), v};
            if ((b & 7) == 1 || (b & 7) == 2 || (b & 7) == 5 || (b & 7) == 6)
                fe.reset_seen = true;
        }
        break;
    case 0xc:
        if (!collect) {
            if ((b & 0x0f) == 0) {
                sched_yield();
            } else if (fe.waited_ns < ENG_SETTLE_NS) {
                eng_delay((b & 0x0fu) * 20u);
                fe.waited_ns += (b & 0x0fu) * 20000ull;
            }
        }
        break;
    case 0xd:
        if (!collect)
            eng_poll();
        break;
    case 0xe:
        if (!collect)
            eng_post_recvs((b & 0x0f) + 1);
        break;
    default:
        if (!collect)
            eng_settle(false);
        break;
    }
}

/* ---- one input ---- */

static void eng_reset_both(void)
{
    struct emu_engine *e = fe.e;
    bool clean = true;

    eng_wd_arm(0, "RESET of A and B");
    if (sm5h_qp_to(fe.iba, IBV_QPS_RESET) != 0 || sm5h_qp_to(fe.ibb, IBV_QPS_RESET) != 0)
        sm5h_die("fuzz_engine: ibv_modify_qp to RESET failed");
    eng_wd_disarm(0);
    for (int i = 0; i < 2; i++) {
        struct emu_qp *qp = i == 0 ? fe.a : fe.b;

        pthread_mutex_lock(&qp->lock);
        clean &= qp->sq_posted == 0 && qp->sq_consumer == 0 &&
                 qp->pending_head == qp->pending_tail && qp->reads_in_flight == 0 &&
                 !qp->wait_active && !qp->tx_stalled && !qp->rq_err_watch && qp->rnr_resume_ns == 0;
        pthread_mutex_unlock(&qp->lock);
    }
    if (!clean || __atomic_load_n(&e->inflight, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&e->waiting, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&e->tx_stalled, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&e->err_rqs, __ATOMIC_RELAXED) != 0)
        sm5h_die("fuzz_engine: after RESET of every QP: QPs %s, the engine counts %d in flight, %d "
                 "waiting, %d stalled, %d receive queues in error",
                 clean ? "clean" : "still hold work", e->inflight, e->waiting, e->tx_stalled,
                 e->err_rqs);
}

static void eng_begin(uint8_t cfg)
{
    static const uint8_t rnr[4] = {0, 1, 3, 6};
    static const int recvs[4] = {16, 0, 1, ENG_B_RECVS};
    uint32_t base = ((cfg & 0x40) ? 0xfffff8u : 0x1000u) + (uint32_t)(fe.inputs & 1) * 0x400000u;
    const char *step;
    int err;

    fe.cfg = cfg;
    fe.ca = (struct sm5h_conn){.remote_qpn = fe.b->qpn,
                               .rq_psn = 0x300,
                               .sq_psn = base & 0xffffff,
                               .retry_cnt = (cfg & 0x08) ? 0 : 3,
                               .rnr_retry = rnr[cfg & 3],
                               .max_rd_atomic = (cfg & 0x04) ? 1 : 4,
                               .min_rnr_timer = 1,
                               .timeout = 14};
    fe.cb = fe.ca;
    fe.cb.remote_qpn = fe.a->qpn;
    fe.cb.rq_psn = base & 0xffffff;
    fe.cb.sq_psn = 0x300;
    fe.cursor = fe.last_producer = 0;
    fe.wqe_bound = 0;
    fe.waited_ns = 0;
    fe.b_recvs = 0;
    fe.send_cqes = fe.ok_send = fe.recv_cqes = fe.ok_recv = 0;
    fe.reset_seen = false;
    fe.nops = 0;
    memset(fe.ring, 0, ENG_SQ_BBS * PRM_WQE_BB_SIZE);
    memset(fe.local_buf, 0, ENG_BUF_LEN);
    memset(fe.remote_buf, 0, ENG_BUF_LEN);
    if ((err = sm5h_qp_up(fe.iba, &fe.ca, &step)) != 0 ||
        (err = sm5h_qp_up(fe.ibb, &fe.cb, &step)) != 0)
        sm5h_die("fuzz_engine: ibv_modify_qp to %s: %s", step, strerror(err));
    eng_post_recvs(recvs[(cfg >> 4) & 3]);
    fe.rejected = emu_wire_rejected(fe.e->wire);
}

static void eng_end(void)
{
    uint64_t rejected, t0 = sm5h_now_ns(), t1, t2;

    eng_wd_arm(0, "the second thread's transitions");
    pthread_mutex_lock(&fe.t2_lock);
    while (!fe.t2_done)
        pthread_cond_wait(&fe.t2_cond, &fe.t2_lock);
    pthread_mutex_unlock(&fe.t2_lock);
    eng_wd_disarm(0);
    t1 = sm5h_now_ns();
    if (eng_settle(true) && fe.inputs % 32 == 0)
        eng_check_cpu();
    t2 = sm5h_now_ns();
    eng_poll();
    rejected = emu_wire_rejected(fe.e->wire);
    sm5h_log("  end: %d/%d send completions ok (at most %llu WQEs), %d/%d receives ok of %d, "
             "A in state %u, %llu frames rejected\n",
             fe.ok_send, fe.send_cqes, (unsigned long long)fe.wqe_bound, fe.ok_recv, fe.recv_cqes,
             fe.b_recvs, sm5h_qp_state(fe.iba), (unsigned long long)(rejected - fe.rejected));
    if (rejected != fe.rejected && !fe.reset_seen)
        sm5h_die("fuzz_engine: softmlx5 rejected %llu frame(s) that softmlx5 sent (the device "
                 "talks to itself; no QP was reset)",
                 (unsigned long long)(rejected - fe.rejected));
    eng_reset_both();
    eng_poll();
    sm5h_log("  took: %llu us for the transitions, %llu us settling, %llu us to reset\n",
             (unsigned long long)(t1 - t0) / 1000, (unsigned long long)(t2 - t1) / 1000,
             (unsigned long long)(sm5h_now_ns() - t2) / 1000);
}

static void eng_run(const uint8_t *data, size_t size)
{
    struct eng_rd r = {data, size};
    uint8_t cfg = rd_u8(&r);

    eng_begin(cfg);
    /* First pass: the transitions, for the second thread. */
    for (struct eng_rd c = r; c.n > 0;)
        eng_record(&c, true);
    pthread_mutex_lock(&fe.t2_lock);
    fe.t2_done = false;
    fe.t2_go = true;
    pthread_cond_broadcast(&fe.t2_cond);
    pthread_mutex_unlock(&fe.t2_lock);
    while (r.n > 0)
        eng_record(&r, false);
    eng_end();
    fe.inputs++;
}

static int eng_setup(void)
{
    int rc;

    if (fe.state != 0)
        return fe.state == 1 ? 0 : fe.state;
    fe.budget = ENG_BUDGET;
    if (getenv("SOFTMLX5_FUZZ_ENGINE_BUDGET") != NULL) {
        fe.budget = strtoull(getenv("SOFTMLX5_FUZZ_ENGINE_BUDGET"), NULL, 0);
        if (fe.budget == 0 || fe.budget > (1u << 20))
            fe.budget = ENG_BUDGET;
    }
    rc = sm5h_open(&fe.dev, ENG_RETRY_MS);
    if (rc != 0) {
        fe.state = rc;
        return rc;
    }
    fe.e = fe.dev.nic->engine;
    fe.local = sm5h_mr(&fe.dev, ENG_BUF_LEN, ENG_LOCAL_IOVA,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                               IBV_ACCESS_REMOTE_ATOMIC,
                       (void **)&fe.local_buf);
    fe.remote = sm5h_mr(&fe.dev, ENG_BUF_LEN, ENG_REMOTE_IOVA,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                IBV_ACCESS_REMOTE_ATOMIC,
                        (void **)&fe.remote_buf);
    fe.none = sm5h_mr(&fe.dev, ENG_NONE_LEN, ENG_NONE_IOVA, 0, (void **)&fe.none_buf);
    fe.cqa = sm5h_cq(&fe.dev, ENG_CQ_A);
    fe.cqb = sm5h_cq(&fe.dev, ENG_CQ_B);
    fe.iba = sm5h_qp(&fe.dev, fe.cqa, ENG_SQ_BBS, 1, 1, 0);
    fe.ibb = sm5h_qp(&fe.dev, fe.cqb, 1, ENG_B_RECVS, 2, 0);
    fe.a = sm5h_emu_qp(fe.iba);
    fe.b = sm5h_emu_qp(fe.ibb);
    if (fe.a->p.log_sq_size != ENG_LOG_SQ)
        sm5h_die("fuzz_engine: A's send queue has 2^%u basic blocks, not 2^%u", fe.a->p.log_sq_size,
                 ENG_LOG_SQ);
    fe.ring = (uint8_t *)emu_qp_sq_base(fe.a);
    pthread_mutex_init(&fe.t2_lock, NULL);
    pthread_cond_init(&fe.t2_cond, NULL);
    fe.t2_done = true;
    if (pthread_create(&fe.t2, NULL, eng_t2_main, NULL) != 0 ||
        pthread_create(&fe.wd, NULL, eng_watchdog, NULL) != 0)
        sm5h_die("fuzz_engine: cannot start the harness's threads");
    fe.state = 1;
    return 0;
}

/* ---- seeds ---- */

/* A raw record of a WQE built in wqe (its DS count given), at ring index `at`. */
static void seed_raw(struct sm5h_seed *s, uint8_t *wqe, uint32_t at, uint8_t opcode, uint8_t opmod,
                     uint8_t fm_ce_se, uint32_t ds, uint32_t bbs)
{
    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)at, opcode, opmod, fe.a->qpn, fm_ce_se, (uint8_t)ds,
                         0, 0);
    sm5h_seed_u8(s, (uint8_t)(0x80 | (bbs - 1)));
    sm5h_seed_put(s, wqe, bbs * PRM_WQE_BB_SIZE);
}

static void eng_write_seeds(const char *dir)
{
    static struct sm5h_seed seeds[32];
    const uint8_t sig = PRM_WQE_CTRL_CQ_UPDATE;
    uint8_t w[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE];
    struct prm_wqe_ctrl_seg *c = (void *)w;
    uint8_t *seg = w + sizeof(*c);
    struct sm5h_seed *s;
    uint32_t ds;
    int n = 0;

#define SEED(nm, send, recv) \
    (s = &seeds[n++], s->name = (nm), s->ok_send = (send), s->ok_recv = (recv))
#define CLEAR() memset(w, 0, sizeof(w))
    SEED("nop", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    seed_raw(s, w, 0, PRM_WQE_OPCODE_NOP, 0, sig, 1, 1);
    sm5h_seed_u8(s, 0x90);

    SEED("write_inline", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA + 0x40, fe.remote->rkey);
    prm_wqe_set_inline_seg((void *)(seg + 16), 16);
    memcpy(seg + 20, "inline write 16B", 16);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_RDMA_WRITE, 0, sig, 2 + prm_wqe_inline_ds(16), 1);
    sm5h_seed_u8(s, 0x90);

    SEED("write_keyed", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA + 0x100, fe.remote->rkey);
    prm_wqe_set_data_seg((void *)(seg + 16), 256, fe.local->lkey, ENG_LOCAL_IOVA + 0x200);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_RDMA_WRITE, 0, sig, PRM_WQE_DS_RDMA, 1);
    sm5h_seed_u8(s, 0x90);

    SEED("read", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA + 0x100, fe.remote->rkey);
    prm_wqe_set_data_seg((void *)(seg + 16), 128, fe.local->lkey, ENG_LOCAL_IOVA + 0x400);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_RDMA_READ, 0, sig, PRM_WQE_DS_RDMA, 1);
    sm5h_seed_u8(s, 0x90);

    SEED("atomic_fa", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA + 0x1000, fe.remote->rkey);
    prm_wqe_set_atomic_seg((void *)(seg + 16), 7, 0);
    prm_wqe_set_data_seg((void *)(seg + 32), 8, fe.local->lkey, ENG_LOCAL_IOVA + 0x1000);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_ATOMIC_FA, 0, sig, PRM_WQE_DS_ATOMIC, 1);
    sm5h_seed_u8(s, 0x90);

    SEED("wait_index0", 2, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_wait_seg((void *)seg, ((struct emu_cq *)fe.cqb)->cqn, 0);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_WAIT, 0, sig, PRM_WQE_DS_WAIT, 1);
    CLEAR();
    seed_raw(s, w, 1, PRM_WQE_OPCODE_NOP, 0, sig, 1, 1);
    sm5h_seed_u8(s, 0x90);

    SEED("ds63_inline_write", 1, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA + 0x2000, fe.remote->rkey);
    ds = PRM_WQE_MAX_DS - 2;
    prm_wqe_set_inline_seg((void *)(seg + 16), ds * PRM_WQE_DS_SIZE - 4);
    memset(seg + 20, 0x63, ds * PRM_WQE_DS_SIZE - 4);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_RDMA_WRITE, 0, sig, PRM_WQE_MAX_DS, PRM_WQE_MAX_BB);
    sm5h_seed_u8(s, 0x90);

    SEED("claims_more_than_posted", 0, 0);
    sm5h_seed_u8(s, 0x00);
    CLEAR();
    prm_wqe_set_raddr_seg((void *)seg, ENG_REMOTE_IOVA, fe.remote->rkey);
    prm_wqe_set_data_seg((void *)(seg + 16), 64, fe.local->lkey, ENG_LOCAL_IOVA);
    seed_raw(s, w, 0, PRM_WQE_OPCODE_RDMA_WRITE, 0, sig, PRM_WQE_MAX_DS, 1);
    sm5h_seed_put(s, "\x91\x01", 2); /* 16 basic blocks claimed, 1 published */

    /* Templates: every opcode once, signalled; then rung. */
    SEED("all_opcodes", 14, 3);
    sm5h_seed_u8(s, 0x00);
    sm5h_seed_put(s, "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1d\x1e", 14);
    sm5h_seed_u8(s, 0x90);
    SEED("fenced_read_then_write", 2, 0);
    sm5h_seed_put(s, "\x00\x15\x31\x90", 4);
    SEED("two_sge_send_large", 1, 1);
    sm5h_seed_put(s, "\x00\x53\x30\x0c\x90", 5); /* 12 x 64 bytes over 2 segments */
    SEED("write_large_pull", 1, 0);
    sm5h_seed_put(s, "\x00\x51\x10\x80\x90", 5); /* 8 KiB: single copy */
    SEED("wait_for_b", 3, 1);
    sm5h_seed_put(s, "\x00\x13\x5c\x10\x41\x10\x90", 7); /* send; WAIT on B's CQ + 1; nop */
    SEED("wait_never", 0, 0);
    sm5h_seed_put(s, "\x00\x5c\x10\x1f\x10\x90", 6);
    SEED("bad_keys", 0, 0);
    sm5h_seed_put(s, "\x00\x51\x03\x90", 4);
    SEED("remote_access_error", 0, 0);
    sm5h_seed_put(s, "\x00\x51\x0c\x90", 4);
    SEED("rnr_exceeded", 0, 0);
    sm5h_seed_put(s, "\x11\x13\x90", 3); /* no receives on B, rnr_retry 1 */
    SEED("masked_atomics", 4, 0);
    sm5h_seed_put(s, "\x04\x18\x19\x1a\x1b\x90", 6);
    SEED("ring_wrap", 2, 0);
    sm5h_seed_u8(s, 0x00);
    for (int i = 0; i < 62; i++)
        sm5h_seed_u8(s, 0x00); /* unsignalled NOPs up to basic block 62, rung */
    sm5h_seed_put(s, "\x90\x5e\x10\xc8\x90\x10\x90", 7); /* a 4-BB inline write across the end */
    SEED("producer_past_written", 1, 0);
    sm5h_seed_put(s, "\x00\x10\x91\x28", 4);
    SEED("producer_far", 1, 0);
    sm5h_seed_put(s, "\x00\x10\x92\xff\xf0", 5);
    SEED("whole_rings_ahead", -1, 0);
    sm5h_seed_put(s, "\x00\x10\x93\x01", 4);
    SEED("psn_wrap", 4, 0);
    sm5h_seed_put(s, "\x40\x11\x15\x17\x11\x90", 6);
    SEED("err_mid_stream", -1, 0);
    sm5h_seed_put(s, "\x00\xb0\x05\x11\x11\x11\x11\x90\xc5\x11\x11\x90", 12);
    SEED("reset_and_up_mid_stream", -1, -1);
    sm5h_seed_put(s, "\x00\xb2\x02\x11\x15\x11\x90\xc8\x11\x17\x90", 11);
    SEED("reset_left_down", -1, -1);
    sm5h_seed_put(s, "\x00\xb1\x00\xc9\x11\x90\xb7\x10\x11\x90", 10);
    SEED("b_err_timeout", -1, 0);
    sm5h_seed_put(s, "\x00\xb4\x00\xc9\x11\x90", 6);
    SEED("b_reset_up", -1, -1);
    sm5h_seed_put(s, "\x00\xb5\x00\x13\x90\xc9\x13\x90", 8);
    SEED("emu_modify_err_up", -1, -1);
    sm5h_seed_put(s, "\x80\xb6\x04\x11\x15\x13\x90\xb3\x00\x11\x90", 11);
    SEED("rts2rts_read_limit", -1, 0);
    sm5h_seed_put(s, "\x04\xb3\x01\x15\x15\x15\x17\x90", 8);
#undef CLEAR
#undef SEED

    sm5h_write_seeds(&(struct sm5h_target){"fuzz_engine", eng_run, &fe.ok_send, &fe.ok_recv, true},
                     dir, seeds, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *seeds = getenv("SOFTMLX5_FUZZ_SEEDS");
    int rc = eng_setup();

    (void)argc;
    (void)argv;
    if (rc != 0)
        exit(rc);
    if (seeds != NULL)
        eng_write_seeds(seeds);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (eng_setup() != 0)
        exit(77);
    sm5h_log("input of %zu bytes:\n", size);
    eng_run(data, size);
    return 0;
}
