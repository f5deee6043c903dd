/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device makes progress on its own. Each subtest runs two processes
 * (fork before either opens its device; they trade QPN, GID, key and
 * address over a socketpair) in which the side that waits for the peer does
 * NOT call into the library while it waits: it spins on its own memory, or
 * blocks in ibv_get_cq_event, or in a read() of the socketpair. A device
 * that only moves when the program calls ibv_poll_cq or ibv_post_send fails
 * them all (the watchdog fires); a real NIC passes them.
 *
 *   spin      2000 round trips of 8-byte RDMA writes; both sides only spin on
 *             memory while they wait (unsignaled writes but every 64th; the
 *             CQ is polled only to free send-queue room).
 *   channel   the receiver blocks in ibv_get_cq_event (armed before each
 *             wait); 500 writes with immediate and sends, one at a time,
 *             each answered by an 8-byte RDMA write back.
 *   bidir     both processes stream 4096 signaled 64 KiB RDMA writes (depth
 *             64, 256 MiB each way) at each other at once; both finish, with
 *             no 5 s without a completion; the last 64 writes' data checked.
 *   bigwrite  one 64 MiB RDMA write (the target spins on a flag written after
 *             it completed) and one 64 MiB RDMA read, checked byte for byte.
 *
 * Every wait is bounded by a watchdog (alarm) that names what did not happen
 * and fails the test; nothing asserts speed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu_test_io.h"
#include "verbs_util.h"

#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* --- watchdog ------------------------------------------------------------------------- */

static char wd_what[256] = "the test";
static const char *wd_side = "parent";
static volatile pid_t wd_child;
static volatile long wd_iter = -1;

static void wd_fire(int sig)
{
    char msg[512];
    int n;

    (void)sig;
    if (wd_iter >= 0)
        n = snprintf(msg, sizeof(msg), "FAIL (%s, pid %d): watchdog: %s did not happen (at %ld)\n",
                     wd_side, (int)getpid(), wd_what, wd_iter);
    else
        n = snprintf(msg, sizeof(msg), "FAIL (%s, pid %d): watchdog: %s did not happen\n", wd_side,
                     (int)getpid(), wd_what);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        n = 0;
    if (wd_child > 0)
        kill(wd_child, SIGKILL);
    _exit(1);
}

/* Arms the watchdog: within seconds, `what` must have happened (the next call re-arms it). */
static void watchdog(unsigned int seconds, const char *what)
{
    snprintf(wd_what, sizeof(wd_what), "%s", what);
    wd_iter = -1;
    alarm(seconds);
}

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static inline uint64_t load64(const void *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static inline void store64(void *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

/* --- two processes -------------------------------------------------------------------- */

/* What a peer needs: the QP and two registrations (the small vu_end buffer and a big one). */
struct peer_info {
    struct vu_info vi;
    uint64_t big_addr;
    uint32_t big_rkey;
    uint32_t pad;
};

struct side {
    bool parent;
    int sock;
    struct vu_ctx c;
    struct vu_end e;    /* QP, its CQ (send and, unless rcq, receive), small buffer */
    struct ibv_cq *rcq; /* receive CQ when not e.cq */
    struct ibv_comp_channel *ch;
    uint8_t *big;
    size_t big_len;
    struct ibv_mr *big_mr;
    struct peer_info me, peer;
};

/* A byte to the peer / the peer's byte (blocking read: this process does not call the library). */
static int sync_send(struct side *s, char v)
{
    return emu_test_full_io(s->sock, &v, 1, true);
}

static int sync_recv(struct side *s, char *v)
{
    return emu_test_full_io(s->sock, v, 1, false);
}

struct side_opts {
    int cqe;
    uint32_t sq, rq;
    size_t big_len;
    bool channel_rcq; /* a separate receive CQ on a completion channel */
};

/* Opens the device, makes the QP and buffers, trades infos and connects (RTS both sides). */
static int side_setup(struct side *s, const struct side_opts *o)
{
    struct ibv_qp_init_attr a;
    char go;

    if (vu_open(&s->c) != 0) {
        fprintf(stderr, "%s: no device\n", wd_side);
        return -1;
    }
    memset(&s->e, 0, sizeof(s->e));
    s->e.cq = ibv_create_cq(s->c.ctx, o->cqe, NULL, NULL, 0);
    s->e.buf = aligned_alloc(4096, VU_BUF_SIZE);
    if (s->e.cq == NULL || s->e.buf == NULL)
        return -1;
    memset(s->e.buf, 0, VU_BUF_SIZE);
    s->e.mr = ibv_reg_mr(s->c.pd, s->e.buf, VU_BUF_SIZE, ACCESS_ALL);
    if (o->channel_rcq) {
        s->ch = ibv_create_comp_channel(s->c.ctx);
        s->rcq = s->ch != NULL ? ibv_create_cq(s->c.ctx, o->cqe, NULL, s->ch, 0) : NULL;
        if (s->rcq == NULL)
            return -1;
    }
    memset(&a, 0, sizeof(a));
    a.send_cq = s->e.cq;
    a.recv_cq = s->rcq != NULL ? s->rcq : s->e.cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = o->sq;
    a.cap.max_recv_wr = o->rq;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    s->e.qp = ibv_create_qp(s->c.pd, &a);
    if (s->e.mr == NULL || s->e.qp == NULL)
        return -1;
    if (o->big_len > 0) {
        s->big_len = o->big_len;
        s->big = aligned_alloc(4096, o->big_len);
        if (s->big == NULL)
            return -1;
        memset(s->big, 0, o->big_len);
        s->big_mr = ibv_reg_mr(s->c.pd, s->big, o->big_len, ACCESS_ALL);
        if (s->big_mr == NULL)
            return -1;
    }
    memset(&s->me, 0, sizeof(s->me));
    vu_info_of(&s->c, &s->e, &s->me.vi);
    s->me.big_addr = (uintptr_t)s->big;
    s->me.big_rkey = s->big_mr != NULL ? s->big_mr->rkey : 0;
    if (emu_test_full_io(s->sock, &s->me, sizeof(s->me), true) != 0 ||
        emu_test_full_io(s->sock, &s->peer, sizeof(s->peer), false) != 0)
        return -1;
    if (vu_connect(&s->e, &s->peer.vi, ACCESS_ALL, 7) != 0) {
        fprintf(stderr, "%s: connect failed\n", wd_side);
        return -1;
    }
    /* Both sides in RTS before either sends. */
    if (sync_send(s, 'c') != 0 || sync_recv(s, &go) != 0)
        return -1;
    return 0;
}

static void side_teardown(struct side *s)
{
    watchdog(20, "teardown (ibv_destroy_qp, ibv_destroy_cq, ibv_dereg_mr, ibv_close_device)");
    if (s->e.qp)
        ibv_destroy_qp(s->e.qp);
    s->e.qp = NULL; /* before its CQs; vu_end_destroy frees the rest of the end */
    if (s->rcq)
        ibv_destroy_cq(s->rcq);
    if (s->ch)
        ibv_destroy_comp_channel(s->ch);
    if (s->big_mr)
        ibv_dereg_mr(s->big_mr);
    free(s->big);
    vu_end_destroy(&s->e);
    vu_close(&s->c);
    alarm(0);
}

static int post_one(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr,
                    uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, uint32_t imm_host,
                    unsigned int flags)
{
    struct ibv_sge sge = {(uintptr_t)laddr, len, lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = flags;
    wr.imm_data = htonl(imm_host);
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    return ibv_post_send(qp, &wr, &bad);
}

/*
 * A sender of mostly unsignaled WQEs: every 64th is signaled, and the CQ is
 * polled only when the send queue is full (each completion frees 64 slots).
 */
#define SIG_EVERY 64

struct sender {
    struct side *s;
    uint32_t depth;
    uint32_t posted; /* WQEs posted */
    uint32_t held;   /* posted WQEs whose slots are not freed yet */
    int errors;
};

static int sender_post(struct sender *t, enum ibv_wr_opcode op, void *laddr, uint32_t len,
                       uint64_t raddr, uint32_t rkey, uint32_t imm)
{
    bool sig = (t->posted + 1) % SIG_EVERY == 0;
    int rc;

    if (t->held + 1 > t->depth) {
        struct ibv_wc wc;

        /* Room: the signaled WQE of the oldest 64 completed long ago, normally. */
        if (vu_wait(t->s->e.cq, &wc, 5000) != 1) {
            fprintf(stderr, "%s: no send completion within 5 s to free send-queue room\n", wd_side);
            t->errors++;
            return -1;
        }
        if (wc.status != IBV_WC_SUCCESS) {
            fprintf(stderr, "%s: send completion %lu: status %d (%s)\n", wd_side,
                    (unsigned long)wc.wr_id, (int)wc.status, ibv_wc_status_str(wc.status));
            t->errors++;
            return -1;
        }
        t->held -= SIG_EVERY;
    }
    rc = post_one(t->s->e.qp, op, t->posted, laddr, len, t->s->e.mr->lkey, raddr, rkey, imm,
                  sig ? IBV_SEND_SIGNALED : 0);
    if (rc != 0) {
        fprintf(stderr, "%s: ibv_post_send: %s\n", wd_side, strerror(rc));
        t->errors++;
        return -1;
    }
    t->posted++;
    t->held++;
    return 0;
}

/* Runs child(side) in a child process and parent(side) here; the test's exit status. */
static int run_two(const char *name, int (*parent)(struct side *), int (*child)(struct side *))
{
    int sv[2], status = 0, bad;
    struct side s;
    pid_t pid;

    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, wd_fire);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("socketpair");
        return 1;
    }
    memset(&s, 0, sizeof(s));
    /* Fork before either process opens its device. */
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        close(sv[0]);
        wd_side = "child";
        s.sock = sv[1];
        _exit(child(&s) == 0 ? 0 : 1);
    }
    close(sv[1]);
    wd_child = pid;
    s.parent = true;
    s.sock = sv[0];
    bad = parent(&s);
    VU_CHECK(bad == 0, "%s: the parent's side failed", name);
    /* The child's verdict: it exits on its own (its watchdog bounds it). */
    watchdog(30, "the child's exit");
    if (waitpid(pid, &status, 0) != pid)
        status = -1;
    alarm(0);
    wd_child = 0;
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the child's side failed (0x%x)",
             name, status);
    return vu_summary(name);
}

/* --- spin ----------------------------------------------------------------------------- */

#define SPIN_ITERS 2000
#define SPIN_DEPTH 128
#define SLOT_PING  0u  /* in the child's small buffer */
#define SLOT_PONG  64u /* in the parent's small buffer */
#define SLOT_SRC   128u

static uint64_t spin_tag(uint32_t i, bool ping)
{
    return ((uint64_t)(ping ? 0x5049u : 0x504fu) << 48) | ((uint64_t)i << 16) | (i * 37u & 0xffff);
}

static const struct side_opts spin_opts = {.cqe = 64, .sq = SPIN_DEPTH, .rq = 1};

/* Spins (no library call) until *slot holds want; false when another value than prev shows up. */
static bool spin_until(const uint8_t *slot, uint64_t want, uint64_t prev, uint32_t i)
{
    uint64_t v;

    wd_iter = i;
    while ((v = load64(slot)) != want) {
        if (v != prev) {
            fprintf(stderr, "%s: round %u: 0x%016lx in the slot, expected 0x%016lx\n", wd_side, i,
                    (unsigned long)v, (unsigned long)want);
            return false;
        }
        cpu_relax();
    }
    return true;
}

static int spin_parent(struct side *s)
{
    struct sender t = {.s = s, .depth = SPIN_DEPTH};
    long start;
    int bad = 0;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &spin_opts) != 0)
        return 1;
    start = now_ms();
    watchdog(60, "every pong of the spin ping-pong (both sides spinning on memory)");
    for (uint32_t i = 1; i <= SPIN_ITERS && bad == 0; i++) {
        store64(s->e.buf + SLOT_SRC, spin_tag(i, true));
        if (sender_post(&t, IBV_WR_RDMA_WRITE, s->e.buf + SLOT_SRC, 8, s->peer.vi.addr + SLOT_PING,
                        s->peer.vi.rkey, 0) != 0) {
            bad++;
            break;
        }
        if (!spin_until(s->e.buf + SLOT_PONG, spin_tag(i, false),
                        i > 1 ? spin_tag(i - 1, false) : 0, i))
            bad++;
    }
    alarm(0);
    printf("spin: %d round trips in %ld ms, both sides spinning on memory\n", SPIN_ITERS,
           now_ms() - start);
    VU_CHECK(bad == 0 && t.errors == 0, "every pong arrived with its value (%d bad)", bad);
    VU_CHECK(load64(s->e.buf + SLOT_PONG) == spin_tag(SPIN_ITERS, false), "last pong's value");
    /* The child's last pong landed (we saw it): tell it, then tear down. */
    watchdog(20, "the child's goodbye");
    if (sync_send(s, bad == 0 ? 'd' : 'x') != 0 || sync_recv(s, &c) != 0)
        bad++;
    alarm(0);
    side_teardown(s);
    return bad;
}

static int spin_child(struct side *s)
{
    struct sender t = {.s = s, .depth = SPIN_DEPTH};
    int bad = 0;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &spin_opts) != 0)
        return 1;
    watchdog(60, "every ping of the spin ping-pong (both sides spinning on memory)");
    for (uint32_t i = 1; i <= SPIN_ITERS && bad == 0; i++) {
        if (!spin_until(s->e.buf + SLOT_PING, spin_tag(i, true), i > 1 ? spin_tag(i - 1, true) : 0,
                        i)) {
            bad++;
            break;
        }
        store64(s->e.buf + SLOT_SRC, spin_tag(i, false));
        if (sender_post(&t, IBV_WR_RDMA_WRITE, s->e.buf + SLOT_SRC, 8, s->peer.vi.addr + SLOT_PONG,
                        s->peer.vi.rkey, 0) != 0)
            bad++;
    }
    watchdog(20, "the parent's word that the last pong landed");
    if (sync_recv(s, &c) != 0 || c != 'd')
        bad++;
    alarm(0);
    if (bad == 0 && load64(s->e.buf + SLOT_PING) != spin_tag(SPIN_ITERS, true))
        bad++;
    if (t.errors)
        bad++;
    sync_send(s, 'b');
    side_teardown(s);
    return bad;
}

/* --- channel -------------------------------------------------------------------------- */

#define CH_MSGS     500
#define CH_RECVS    8
#define CH_RECV_OFF 4096u /* receive slots, 64 bytes each, in the child's small buffer */
#define CH_WIMM_OFF 8192u /* write-with-immediate targets, 8 bytes each (by message % 8) */

static uint64_t ch_tag(uint32_t i, bool back)
{
    return ((uint64_t)(back ? 0x4241u : 0x4348u) << 48) | ((uint64_t)i << 20) | (i * 11u & 0xfffff);
}

static uint32_t ch_imm(uint32_t i)
{
    return 0x1e000000u | i;
}

/* The child blocks in ibv_get_cq_event; its pongs are unsignaled (but the last): no CQ polling. */
static const struct side_opts ch_child_opts = {
        .cqe = 64, .sq = CH_MSGS + 8, .rq = CH_RECVS, .channel_rcq = true};
static const struct side_opts ch_parent_opts = {.cqe = 64, .sq = 128, .rq = 1};

static int ch_parent(struct side *s)
{
    struct sender t = {.s = s, .depth = 128};
    int bad = 0;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &ch_parent_opts) != 0)
        return 1;
    watchdog(20, "the child's first arm");
    if (sync_recv(s, &c) != 0)
        return 1;
    watchdog(60, "every answer of the child blocked in ibv_get_cq_event");
    for (uint32_t i = 0; i < CH_MSGS && bad == 0; i++) {
        store64(s->e.buf + SLOT_SRC, ch_tag(i, false));
        if (i % 2 == 0)
            bad += sender_post(&t, IBV_WR_RDMA_WRITE_WITH_IMM, s->e.buf + SLOT_SRC, 8,
                               s->peer.vi.addr + CH_WIMM_OFF + (i % 8) * 8, s->peer.vi.rkey,
                               ch_imm(i)) != 0;
        else
            bad += sender_post(&t, IBV_WR_SEND_WITH_IMM, s->e.buf + SLOT_SRC, 8, 0, 0, ch_imm(i)) !=
                   0;
        /* The answer: an 8-byte write back, waited for on memory. */
        if (bad == 0 &&
            !spin_until(s->e.buf + SLOT_PONG, ch_tag(i, true), i > 0 ? ch_tag(i - 1, true) : 0, i))
            bad++;
    }
    alarm(0);
    VU_CHECK(bad == 0 && t.errors == 0, "every message woke the blocked child and was answered");
    watchdog(20, "the child's verdict");
    if (sync_send(s, bad == 0 ? 'd' : 'x') != 0 || sync_recv(s, &c) != 0 || c != 'k')
        bad++;
    alarm(0);
    side_teardown(s);
    return bad;
}

static int ch_child(struct side *s)
{
    char what[128];
    int bad = 0, recv_next = 0;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &ch_child_opts) != 0)
        return 1;
    for (int r = 0; r < CH_RECVS; r++) {
        if (vu_post_recv(&(struct vu_end){.qp = s->e.qp, .buf = s->e.buf, .mr = s->e.mr},
                         (uint64_t)r, CH_RECV_OFF + (uint32_t)r * 64, 64) != 0)
            bad++;
    }
    for (uint32_t i = 0; i < CH_MSGS && bad == 0; i++) {
        struct ibv_cq *ev_cq = NULL;
        void *ev_ctx = NULL;
        struct ibv_wc wc[4];
        uint64_t got;
        int n;

        /* Armed while the CQ is empty: the peer sends message i only after our answer to i-1. */
        if (ibv_req_notify_cq(s->rcq, 0) != 0) {
            fprintf(stderr, "child: ibv_req_notify_cq failed\n");
            bad++;
            break;
        }
        if (i == 0) {
            if (sync_send(s, 'a') != 0)
                bad++;
        } else {
            store64(s->e.buf + SLOT_SRC + ((i - 1) % 8) * 8, ch_tag(i - 1, true));
            if (post_one(s->e.qp, IBV_WR_RDMA_WRITE, i - 1, s->e.buf + SLOT_SRC + ((i - 1) % 8) * 8,
                         8, s->e.mr->lkey, s->peer.vi.addr + SLOT_PONG, s->peer.vi.rkey, 0, 0) != 0)
                bad++;
        }
        snprintf(what, sizeof(what),
                 "a completion event for message %u (child blocked in "
                 "ibv_get_cq_event)",
                 i);
        watchdog(10, what);
        if (ibv_get_cq_event(s->ch, &ev_cq, &ev_ctx) != 0 || ev_cq != s->rcq) {
            fprintf(stderr, "child: ibv_get_cq_event failed for message %u\n", i);
            bad++;
            break;
        }
        alarm(0);
        ibv_ack_cq_events(ev_cq, 1);
        n = ibv_poll_cq(s->rcq, 4, wc);
        if (n != 1) {
            fprintf(stderr, "child: message %u: %d completions after the event, expected 1\n", i,
                    n);
            bad++;
            break;
        }
        if (wc[0].status != IBV_WC_SUCCESS || !(wc[0].wc_flags & IBV_WC_WITH_IMM) ||
            ntohl(wc[0].imm_data) != ch_imm(i) ||
            wc[0].opcode != (i % 2 == 0 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV) ||
            (i % 2 == 1 && wc[0].byte_len != 8) || wc[0].wr_id != (uint64_t)recv_next) {
            fprintf(stderr,
                    "child: message %u: status %d opcode %d flags 0x%x imm 0x%x byte_len %u "
                    "wr_id %lu\n",
                    i, (int)wc[0].status, (int)wc[0].opcode, wc[0].wc_flags, ntohl(wc[0].imm_data),
                    wc[0].byte_len, (unsigned long)wc[0].wr_id);
            bad++;
            break;
        }
        got = i % 2 == 0 ? load64(s->e.buf + CH_WIMM_OFF + (i % 8) * 8)
                         : load64(s->e.buf + CH_RECV_OFF + (uint32_t)recv_next * 64);
        if (got != ch_tag(i, false)) {
            fprintf(stderr, "child: message %u: data 0x%016lx, expected 0x%016lx\n", i,
                    (unsigned long)got, (unsigned long)ch_tag(i, false));
            bad++;
        }
        if (vu_post_recv(&(struct vu_end){.qp = s->e.qp, .buf = s->e.buf, .mr = s->e.mr},
                         (uint64_t)recv_next, CH_RECV_OFF + (uint32_t)recv_next * 64, 64) != 0)
            bad++;
        recv_next = (recv_next + 1) % CH_RECVS;
    }
    if (bad == 0) {
        /* The last answer, signaled: its completion is the only send completion polled. */
        struct ibv_wc wc;

        store64(s->e.buf + SLOT_SRC + 8 * 8, ch_tag(CH_MSGS - 1, true));
        if (post_one(s->e.qp, IBV_WR_RDMA_WRITE, CH_MSGS - 1, s->e.buf + SLOT_SRC + 8 * 8, 8,
                     s->e.mr->lkey, s->peer.vi.addr + SLOT_PONG, s->peer.vi.rkey, 0,
                     IBV_SEND_SIGNALED) != 0 ||
            vu_wait(s->e.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
            fprintf(stderr, "child: the last answer did not complete\n");
            bad++;
        }
    }
    watchdog(20, "the parent's goodbye");
    if (sync_recv(s, &c) != 0 || c != 'd')
        bad++;
    sync_send(s, bad == 0 ? 'k' : 'x');
    alarm(0);
    side_teardown(s);
    return bad;
}

/* --- bidir ---------------------------------------------------------------------------- */

#define BD_WRITES   4096u
#define BD_DEPTH    64u
#define BD_LEN      65536u
#define BD_SRC      0u                          /* 64 source slots of 64 KiB */
#define BD_DST      ((size_t)BD_DEPTH * BD_LEN) /* 64 target slots of 64 KiB */
#define BD_BIG      (2 * BD_DST)
#define BD_STALL_MS 5000

static uint64_t bd_word(uint32_t write, uint32_t w, bool from_parent)
{
    return ((uint64_t)(from_parent ? 0xa0u : 0xb0u) << 56) | ((uint64_t)write << 24) | w;
}

static void bd_fill(uint8_t *p, uint32_t write, bool from_parent)
{
    uint64_t *q = (uint64_t *)(void *)p;

    for (uint32_t w = 0; w < BD_LEN / 8; w++)
        q[w] = bd_word(write, w, from_parent);
}

static const struct side_opts bd_opts = {.cqe = 256, .sq = BD_DEPTH, .rq = 1, .big_len = BD_BIG};

static int bd_run(struct side *s)
{
    uint32_t posted = 0, done = 0;
    long start, last;
    int bad = 0;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &bd_opts) != 0)
        return 1;
    /* The whole exchange, both directions at once, within 60 s. */
    watchdog(60, "both directions' 4096 writes of 64 KiB (at full rate at once)");
    start = last = now_ms();
    while (done < BD_WRITES && bad == 0) {
        struct ibv_wc wc[16];
        int n;

        while (posted < BD_WRITES && posted - done < BD_DEPTH) {
            uint32_t slot = posted % BD_DEPTH;
            uint8_t *src = s->big + BD_SRC + (size_t)slot * BD_LEN;

            bd_fill(src, posted, s->parent);
            if (post_one(s->e.qp, IBV_WR_RDMA_WRITE, posted, src, BD_LEN, s->big_mr->lkey,
                         s->peer.big_addr + BD_DST + (size_t)slot * BD_LEN, s->peer.big_rkey, 0,
                         IBV_SEND_SIGNALED) != 0) {
                fprintf(stderr, "%s: ibv_post_send of write %u failed\n", wd_side, posted);
                bad++;
                break;
            }
            posted++;
        }
        n = ibv_poll_cq(s->e.cq, 16, wc);
        if (n < 0) {
            bad++;
            break;
        }
        for (int i = 0; i < n; i++) {
            if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != done) {
                fprintf(stderr, "%s: completion %u: wr_id %lu status %d (%s)\n", wd_side, done,
                        (unsigned long)wc[i].wr_id, (int)wc[i].status,
                        ibv_wc_status_str(wc[i].status));
                bad++;
            }
            done++;
        }
        if (n > 0) {
            last = now_ms();
        } else if (now_ms() - last > BD_STALL_MS) {
            fprintf(stderr,
                    "FAIL %s: no completion for %d ms (%u of %u writes completed, %u posted)\n",
                    wd_side, BD_STALL_MS, done, BD_WRITES, posted);
            bad++;
        }
    }
    if (bad == 0)
        printf("%s: %u writes of %u bytes completed in %ld ms\n", wd_side, BD_WRITES, BD_LEN,
               now_ms() - start);
    /* Ours are done; the peer's writes into us must go on while we wait here, in read(). */
    if (sync_send(s, bad == 0 ? 'd' : 'x') != 0 || sync_recv(s, &c) != 0 || c != 'd') {
        fprintf(stderr, "%s: the peer did not complete its writes\n", wd_side);
        bad++;
    }
    if (bad == 0) {
        /* Slot k holds the peer's write BD_WRITES - BD_DEPTH + k: the last 64. */
        for (uint32_t k = 0; k < BD_DEPTH && bad == 0; k++) {
            const uint64_t *q =
                    (const uint64_t *)(const void *)(s->big + BD_DST + (size_t)k * BD_LEN);
            uint32_t write = BD_WRITES - BD_DEPTH + k;

            for (uint32_t w = 0; w < BD_LEN / 8; w++) {
                if (q[w] != bd_word(write, w, !s->parent)) {
                    fprintf(stderr, "%s: write %u, word %u: 0x%016lx, expected 0x%016lx\n", wd_side,
                            write, w, (unsigned long)q[w],
                            (unsigned long)bd_word(write, w, !s->parent));
                    bad++;
                    break;
                }
            }
        }
    }
    if (sync_send(s, 'e') != 0 || sync_recv(s, &c) != 0)
        bad++;
    alarm(0);
    side_teardown(s);
    return bad;
}

static int bd_parent(struct side *s)
{
    int bad = bd_run(s);

    VU_CHECK(bad == 0, "parent: its writes completed and the child's last 64 writes' data landed");
    return bad;
}

/* --- bigwrite ------------------------------------------------------------------------- */

#define BW_LEN     ((size_t)64 << 20)
#define BW_FLAG    256u /* in the child's small buffer */
#define BW_FLAGSRC 512u /* in the parent's small buffer */
#define BW_FLAGVAL 0xf1a6f1a6f1a60001ull

static uint64_t bw_word(size_t w, unsigned int seed)
{
    return (w * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)seed << 56) ^ (w >> 3);
}

static void bw_fill(uint8_t *p, unsigned int seed)
{
    uint64_t *q = (uint64_t *)(void *)p;

    for (size_t w = 0; w < BW_LEN / 8; w++)
        q[w] = bw_word(w, seed);
}

/* Byte for byte (as 64-bit words, reporting the first different byte). */
static bool bw_check(const uint8_t *p, unsigned int seed, const char *what)
{
    const uint64_t *q = (const uint64_t *)(const void *)p;

    for (size_t w = 0; w < BW_LEN / 8; w++) {
        uint64_t want = bw_word(w, seed);

        if (q[w] != want) {
            const uint8_t *g = (const uint8_t *)&q[w], *e = (const uint8_t *)&want;
            size_t b = 0;

            while (b < 7 && g[b] == e[b])
                b++;
            fprintf(stderr, "%s: byte %zu of %zu: 0x%02x, expected 0x%02x\n", what, w * 8 + b,
                    BW_LEN, g[b], e[b]);
            return false;
        }
    }
    return true;
}

static const struct side_opts bw_parent_opts = {
        .cqe = 16, .sq = 16, .rq = 1, .big_len = 2 * BW_LEN};
static const struct side_opts bw_child_opts = {.cqe = 16, .sq = 16, .rq = 1, .big_len = BW_LEN};

static int bw_parent(struct side *s)
{
    struct ibv_wc wc;
    int bad = 0, rc;
    long start;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &bw_parent_opts) != 0)
        return 1;
    bw_fill(s->big, 1);
    /* The write: 64 MiB in one WQE. */
    watchdog(30, "the 64 MiB RDMA write's completion");
    start = now_ms();
    rc = post_one(s->e.qp, IBV_WR_RDMA_WRITE, 1, s->big, (uint32_t)BW_LEN, s->big_mr->lkey,
                  s->peer.big_addr, s->peer.big_rkey, 0, IBV_SEND_SIGNALED);
    rc = rc == 0 ? vu_wait(s->e.cq, &wc, 25000) : -1;
    VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
             "the 64 MiB write completed (%d, status %d)", rc, rc == 1 ? (int)wc.status : -1);
    printf("64 MiB write completed in %ld ms\n", now_ms() - start);
    bad += rc != 1 || wc.status != IBV_WC_SUCCESS;
    /* Then the flag the child spins on: placed after the write completed. */
    store64(s->e.buf + BW_FLAGSRC, BW_FLAGVAL);
    rc = post_one(s->e.qp, IBV_WR_RDMA_WRITE, 2, s->e.buf + BW_FLAGSRC, 8, s->e.mr->lkey,
                  s->peer.vi.addr + BW_FLAG, s->peer.vi.rkey, 0, IBV_SEND_SIGNALED);
    rc = rc == 0 ? vu_wait(s->e.cq, &wc, 5000) : -1;
    VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS, "the flag write completed");
    /* The child checks the 64 MiB, refills them and says go. */
    watchdog(30, "the child's check of the 64 MiB write");
    if (sync_recv(s, &c) != 0 || c != 'g') {
        VU_CHECK(false, "the child found the 64 MiB write's bytes exactly (%c)", c);
        bad++;
    }
    if (bad == 0) {
        watchdog(30, "the 64 MiB RDMA read's completion");
        start = now_ms();
        rc = post_one(s->e.qp, IBV_WR_RDMA_READ, 3, s->big + BW_LEN, (uint32_t)BW_LEN,
                      s->big_mr->lkey, s->peer.big_addr, s->peer.big_rkey, 0, IBV_SEND_SIGNALED);
        rc = rc == 0 ? vu_wait(s->e.cq, &wc, 25000) : -1;
        VU_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 3 && wc.byte_len == BW_LEN,
                 "the 64 MiB read completed (%d, status %d, byte_len %u)", rc,
                 rc == 1 ? (int)wc.status : -1, rc == 1 ? wc.byte_len : 0);
        printf("64 MiB read completed in %ld ms\n", now_ms() - start);
        bad += rc != 1 || wc.status != IBV_WC_SUCCESS;
        if (bad == 0) {
            bool ok = bw_check(s->big + BW_LEN, 2, "64 MiB read");

            VU_CHECK(ok, "the 64 MiB read's bytes are exactly the child's");
            bad += !ok;
        }
    }
    watchdog(20, "the goodbye");
    if (sync_send(s, 'd') != 0 || sync_recv(s, &c) != 0)
        bad++;
    alarm(0);
    side_teardown(s);
    return bad;
}

static int bw_child(struct side *s)
{
    bool ok;
    char c;

    watchdog(20, "setup");
    if (side_setup(s, &bw_child_opts) != 0)
        return 1;
    /* Spin on memory, no library call, until the flag written after the 64 MiB write lands. */
    watchdog(30, "the flag after the 64 MiB write (the target spinning on memory)");
    while (load64(s->e.buf + BW_FLAG) != BW_FLAGVAL)
        cpu_relax();
    alarm(0);
    ok = bw_check(s->big, 1, "64 MiB write");
    if (ok)
        bw_fill(s->big, 2); /* the read's source */
    watchdog(60, "the parent's goodbye");
    if (sync_send(s, ok ? 'g' : 'x') != 0 || sync_recv(s, &c) != 0)
        ok = false;
    sync_send(s, 'b');
    alarm(0);
    side_teardown(s);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *t = argc > 1 ? argv[1] : "";

    if (strcmp(t, "spin") == 0)
        return run_two("test_verbs_device spin", spin_parent, spin_child);
    if (strcmp(t, "channel") == 0)
        return run_two("test_verbs_device channel", ch_parent, ch_child);
    if (strcmp(t, "bidir") == 0)
        return run_two("test_verbs_device bidir", bd_parent, bd_run);
    if (strcmp(t, "bigwrite") == 0)
        return run_two("test_verbs_device bigwrite", bw_parent, bw_child);
    fprintf(stderr, "usage: %s spin|channel|bidir|bigwrite\n", argv[0]);
    return 2;
}
