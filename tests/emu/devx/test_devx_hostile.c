/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile and extreme send WQEs against a device that runs on its own
 * thread: it must answer them with completions, never hang, never spin.
 *
 *   ds_overrun  a NOP whose control segment claims 2 basic blocks (DS 5..8)
 *               while the doorbell record publishes only 1: an error CQE
 *               (local QP operation error) within a second; then the process
 *               stays idle (getrusage: no device thread burns a core for the
 *               next second); a move to RESET returns promptly, and after
 *               re-connecting (the record left at its old value for 20 ms, as
 *               software need not clear it), NOPs rung one at a time each
 *               complete.
 *   reset_reuse a DevX QP used, moved to RESET, re-connected and used again the
 *               same way (its first WQE after RESET at index 0 with the same
 *               doorbell-record value as before): every WQE completes.
 *   max_wqe     WQEs of the largest size the device advertises
 *               (QUERY_HCA_CAP max_wqe_sz_sq, at most 63 DS): an inline RDMA
 *               write, an RDMA write with the largest gather list, an RDMA
 *               read with the largest scatter list and an inline send, each
 *               aligned to the ring and across its end, against a QP of a
 *               child process; the data checked at the peer.
 *   reset_race  standard verbs: a thread posts RDMA writes as fast as it can
 *               while another moves the QP to RESET, 50 times, re-connecting
 *               each time: no hang, no crash, a write after each re-connect
 *               completes first and lands; the process is idle afterwards.
 *   reset_cq    standard verbs: CQEs written but not polled when the QP enters
 *               RESET are gone (as rdma-core's mlx5 cleans them from the CQ);
 *               the re-connected QP's first completion is its new WQE's.
 *
 * Every wait is bounded (alarm) and fails with a line naming what did not
 * happen; nothing asserts speed beyond "within a second or a few".
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu_test_io.h"
#include "devx_dp.h"

#define LOG_CQ 6 /* 64 CQEs */
#define LOG_SQ 5 /* 32 basic blocks: two 16-block WQEs */
#define LOG_RQ 2

/* --- watchdog, clocks, CPU time ------------------------------------------------------- */

static char wd_what[256] = "the test";
static volatile pid_t wd_child;

static void wd_fire(int sig)
{
    char msg[400];
    int n;

    (void)sig;
    n = snprintf(msg, sizeof(msg), "FAIL (pid %d): watchdog: %s did not happen in time\n",
                 (int)getpid(), wd_what);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        n = 0;
    if (wd_child > 0)
        kill(wd_child, SIGKILL);
    _exit(1);
}

static void watchdog(unsigned int seconds, const char *what)
{
    snprintf(wd_what, sizeof(wd_what), "%s", what);
    alarm(seconds);
}

static long now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double cpu_seconds(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* Per-thread CPU ticks (utime + stime) of this process, for naming a thread that spins. */
#define MAX_TASKS 64
struct task_ticks {
    int n;
    int tid[MAX_TASKS];
    long ticks[MAX_TASKS];
    char comm[MAX_TASKS][32];
};

static void task_ticks(struct task_ticks *t)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;

    t->n = 0;
    while (d != NULL && (de = readdir(d)) != NULL && t->n < MAX_TASKS) {
        char path[300], buf[1024], *p;
        unsigned long ut = 0, st = 0;
        FILE *f;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
        f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2) {
            char *open = strchr(buf, '(');
            size_t len = open != NULL ? (size_t)(p - open - 1) : 0;

            t->tid[t->n] = atoi(de->d_name);
            t->ticks[t->n] = (long)(ut + st);
            if (len >= sizeof(t->comm[0]))
                len = sizeof(t->comm[0]) - 1;
            memcpy(t->comm[t->n], open != NULL ? open + 1 : "?", len);
            t->comm[t->n][len] = 0;
            t->n++;
        }
        fclose(f);
    }
    if (d != NULL)
        closedir(d);
}

/*
 * The process must stay (nearly) idle for a second while it sleeps: every
 * thread of it, the device's included. A device thread that spins burns
 * about a second of CPU time here.
 */
static void idle_check(const char *what)
{
    struct task_ticks before, after;
    double t0, used;

    task_ticks(&before);
    t0 = cpu_seconds();
    sleep_us(1000000);
    used = cpu_seconds() - t0;
    task_ticks(&after);
    DP_CHECK(used < 0.25, "%s: the process used %.3f s of CPU time during 1 s asleep", what, used);
    if (used >= 0.25) {
        long hz = sysconf(_SC_CLK_TCK);

        for (int i = 0; i < after.n; i++) {
            long prev = 0;

            for (int j = 0; j < before.n; j++)
                if (before.tid[j] == after.tid[i])
                    prev = before.ticks[j];
            fprintf(stderr, "  thread %d (%s): %.2f s of CPU in that second\n", after.tid[i],
                    after.comm[i], (double)(after.ticks[i] - prev) / (double)hz);
        }
    } else {
        printf("%s: %.3f s of CPU time in 1 s asleep\n", what, used);
    }
}

/* DP_CHECK that also says whether it held. */
#define DP_CHECK_OK(cond, ...)      \
    ({                              \
        bool ok_ = (cond);          \
        DP_CHECK(ok_, __VA_ARGS__); \
        ok_;                        \
    })

/* --- DevX helpers ---------------------------------------------------------------------- */

static struct dp_dev dev;

/* Publishes basic blocks up to `producer` (doorbell record), then rings the last WQE's doorbell. */
static void ring_to(struct dp_qp *q, uint32_t producer)
{
    uint32_t be = htobe32(producer & 0xffff);

    __atomic_store_n((uint32_t *)(void *)(q->ring + q->qp_dbr_off + 4), be, __ATOMIC_RELEASE);
    __atomic_store_n((uint64_t *)q->uar->reg_addr, q->last_db, __ATOMIC_RELEASE);
}

static uint32_t post_ctrl(struct dp_qp *q, uint8_t *wqe, uint8_t opcode, uint32_t ds, bool signaled)
{
    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, opcode, 0, q->qpn,
                         signaled ? PRM_WQE_CTRL_CQ_UPDATE : PRM_WQE_CTRL_CE_ERROR_ONLY,
                         (uint8_t)ds, 0, 0);
    return dp_post_raw(q, wqe, ds);
}

static uint32_t post_nop(struct dp_qp *q)
{
    uint8_t wqe[64] = {0};

    return post_ctrl(q, wqe, PRM_WQE_OPCODE_NOP, 1, true);
}

/* The next CQE within timeout_ms must be the completion of WQE index (syndrome 0: success). */
static bool expect(struct dp_qp *q, uint32_t index, uint8_t opcode, uint8_t syndrome,
                   int64_t byte_cnt, int timeout_ms, const char *what)
{
    struct prm_cqe64 cqe;
    bool ok;

    if (dp_poll(q, &cqe, timeout_ms) != 1) {
        DP_CHECK(false, "%s: no CQE for WQE %u within %d ms", what, index & 0xffff, timeout_ms);
        return false;
    }
    if (syndrome == 0)
        ok = prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ;
    else
        ok = prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ_ERR && prm_cqe_syndrome(&cqe) == syndrome;
    ok = ok && prm_cqe_qpn(&cqe) == q->qpn && prm_cqe_wqe_counter(&cqe) == (index & 0xffff) &&
         (syndrome != 0 || prm_cqe_wqe_opcode(&cqe) == opcode) &&
         (byte_cnt < 0 || prm_cqe_byte_cnt(&cqe) == (uint64_t)byte_cnt);
    DP_CHECK(ok,
             "%s: CQE opcode 0x%x syndrome 0x%x WQE opcode 0x%x wqe_counter %u qpn 0x%x byte_cnt "
             "%u; want %s 0x%x, WQE opcode 0x%x, wqe_counter %u, qpn 0x%x, byte_cnt %lld",
             what, prm_cqe_opcode(&cqe), prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0,
             prm_cqe_wqe_opcode(&cqe), prm_cqe_wqe_counter(&cqe), prm_cqe_qpn(&cqe),
             prm_cqe_byte_cnt(&cqe), syndrome ? "syndrome" : "success", syndrome, opcode,
             index & 0xffff, q->qpn, (long long)byte_cnt);
    return ok;
}

static int qp_cmd(struct dp_qp *q, uint16_t opcode)
{
    uint8_t in[PRM_2RST_QP_IN_SIZE] = {0}, status = 0;
    int rc = dt_qp_cmd(q->qp, opcode, q->qpn, in, sizeof(in), &status);

    if (rc != 0)
        fprintf(stderr, "QP 0x%x: command 0x%x: %d, status 0x%x\n", q->qpn, opcode, rc, status);
    return rc;
}

/* --- ds_overrun ------------------------------------------------------------------------ */

static void ds_overrun_one(uint32_t ds)
{
    char what[160];
    struct dp_qp a;
    struct dp_info ia;
    uint8_t wqe[2 * PRM_WQE_BB_SIZE] = {0};
    uint32_t index;
    long t0, dt;

    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0) {
        DP_CHECK(false, "QP");
        return;
    }
    dp_info_of(&a, &ia);
    if (dp_qp_connect(&a, &ia) != 0) { /* to itself: NOPs never reach a peer anyway */
        DP_CHECK(false, "connect");
        dp_qp_destroy(&a);
        return;
    }
    /* A good NOP first: the QP runs. */
    index = post_nop(&a);
    dp_ring(&a);
    expect(&a, index, PRM_WQE_OPCODE_NOP, 0, -1, 1000, "NOP before the bad one");

    /* The NOP claims ds DS (2 basic blocks; both written), the record publishes 1. */
    index = post_ctrl(&a, wqe, PRM_WQE_OPCODE_NOP, ds, true);
    snprintf(what, sizeof(what), "NOP of DS %u with 1 basic block published", ds);
    watchdog(10, what);
    t0 = now_us();
    ring_to(&a, index + 1);
    expect(&a, index, PRM_WQE_OPCODE_NOP, PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR, -1, 1000, what);
    dt = now_us() - t0;
    printf("%s: CQE after %ld us\n", what, dt);

    /* The device must not burn a core over the half-published WQE. */
    snprintf(what, sizeof(what), "after a NOP of DS %u", ds);
    idle_check(what);

    /* RESET returns promptly, and the QP works again once connected. */
    snprintf(what, sizeof(what), "2RST_QP after a NOP of DS %u", ds);
    watchdog(10, what);
    t0 = now_us();
    DP_CHECK(qp_cmd(&a, PRM_CMD_2RST_QP) == 0, "%s", what);
    dt = now_us() - t0;
    alarm(0);
    DP_CHECK(dt < 1000000, "%s took %ld us", what, dt);
    a.sq_pi = 0;
    DP_CHECK(dp_qp_connect(&a, &ia) == 0, "re-connect after RESET (DS %u)", ds);
    /* The doorbell record still holds the old counter: the device must not act on it. */
    sleep_us(20000);
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof(what), "NOP %d rung alone after RESET and re-connect (DS %u case)", i,
                 ds);
        index = post_nop(&a);
        dp_ring(&a);
        if (!expect(&a, index, PRM_WQE_OPCODE_NOP, 0, -1, 1000, what))
            break;
    }
    idle_check("after RESET and re-connect");
    dp_qp_destroy(&a);
}

/*
 * A DevX QP used, reset and used again the same way: its first WQE after the
 * RESET has the index and doorbell-record value of its first WQE before it
 * (as any program that re-connects a QP posts). Each must complete.
 */
static void reset_reuse(int wqes_before)
{
    char what[160];
    struct dp_qp a;
    struct dp_info ia;
    uint32_t index;

    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0) {
        DP_CHECK(false, "QP");
        return;
    }
    dp_info_of(&a, &ia);
    for (int round = 0; round < 3; round++) {
        snprintf(what, sizeof(what), "RST->INIT->RTR->RTS (round %d)", round);
        watchdog(10, what);
        if (!DP_CHECK_OK(dp_qp_connect(&a, &ia) == 0, "%s", what))
            break;
        for (int i = 0; i < wqes_before; i++) {
            snprintf(what, sizeof(what),
                     "NOP %d after %s (%d NOPs a round, each rung alone with the doorbell record "
                     "at its end)",
                     i, round == 0 ? "the QP was created" : "RESET and re-connect", wqes_before);
            index = post_nop(&a);
            dp_ring(&a);
            if (!expect(&a, index, PRM_WQE_OPCODE_NOP, 0, -1, 1000, what))
                break;
        }
        snprintf(what, sizeof(what), "2RST_QP (round %d)", round);
        watchdog(10, what);
        DP_CHECK(qp_cmd(&a, PRM_CMD_2RST_QP) == 0, "%s", what);
        alarm(0);
        a.sq_pi = 0; /* a QP in RESET starts its send queue at index 0 again */
    }
    dp_qp_destroy(&a);
}

static int run_reset_reuse(void)
{
    dp_open(&dev);
    reset_reuse(1);
    reset_reuse(3);
    dp_close(&dev);
    return dp_summary("test_devx_hostile reset_reuse");
}

static int run_ds_overrun(void)
{
    dp_open(&dev);
    for (uint32_t ds = 5; ds <= 8; ds++)
        ds_overrun_one(ds);
    dp_close(&dev);
    return dp_summary("test_devx_hostile ds_overrun");
}

/* --- max_wqe ---------------------------------------------------------------------------- */

enum { H_ZERO = 1, H_ISZERO, H_FILL, H_CHECK, H_RECV_POST, H_RECV_CHECK, H_QUIT };

struct hcmd {
    uint32_t op, idx, off, len, seed;
};

#define NQ       4
#define T_TGT    65536u  /* peer: write target / read source */
#define T_RECV   262144u /* peer: receive buffer */
#define L_SRC    0u      /* requester: gather sources / scatter targets, 512 bytes apart */
#define L_STRIDE 512u

static bool is_zero(const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != 0)
            return false;
    return true;
}

static int child_serve(int sock)
{
    struct dp_qp b[NQ];
    struct dp_info mine[NQ], theirs[NQ];

    dp_open(&dev);
    for (int k = 0; k < NQ; k++) {
        if (dp_qp_create(&dev, &dp_host_mem, &b[k], LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
            return 1;
        dp_info_of(&b[k], &mine[k]);
    }
    if (emu_test_full_io(sock, mine, sizeof(mine), true) != 0 ||
        emu_test_full_io(sock, theirs, sizeof(theirs), false) != 0)
        return 1;
    for (int k = 0; k < NQ; k++)
        if (dp_qp_connect(&b[k], &theirs[k]) != 0)
            return 1;
    for (;;) {
        struct hcmd c;
        struct prm_cqe64 cqe;
        int32_t ok = 1;
        struct dp_qp *q;

        if (emu_test_full_io(sock, &c, sizeof(c), false) != 0)
            return 1;
        if (c.op == H_QUIT) {
            emu_test_full_io(sock, &ok, sizeof(ok), true);
            break;
        }
        q = &b[c.idx % NQ];
        switch (c.op) {
        case H_ZERO:
            memset(q->buf + c.off, 0, c.len);
            break;
        case H_ISZERO:
            ok = is_zero(q->buf + c.off, c.len);
            break;
        case H_FILL:
            dp_fill(q->buf + c.off, c.len, (uint8_t)c.seed, 0);
            break;
        case H_CHECK:
            ok = dp_check_bytes(q->buf + c.off, c.len, (uint8_t)c.seed, 0);
            break;
        case H_RECV_POST:
            memset(q->buf + c.off, 0, 4096);
            dp_post_recv(q, c.off, 4096);
            break;
        case H_RECV_CHECK:
            ok = dp_poll(q, &cqe, 5000) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_RESP_SEND &&
                 prm_cqe_byte_cnt(&cqe) == c.len;
            if (!ok)
                fprintf(stderr, "child: receive: CQE opcode 0x%x byte_cnt %u (want 0x%x, %u)\n",
                        prm_cqe_opcode(&cqe), prm_cqe_byte_cnt(&cqe), PRM_CQE_OPCODE_RESP_SEND,
                        c.len);
            ok = ok && dp_check_bytes(q->buf + c.off, c.len, (uint8_t)c.seed, 0) &&
                 is_zero(q->buf + c.off + c.len, 64);
            break;
        default:
            ok = 0;
            break;
        }
        if (emu_test_full_io(sock, &ok, sizeof(ok), true) != 0)
            return 1;
    }
    for (int k = 0; k < NQ; k++)
        dp_qp_destroy(&b[k]);
    dp_close(&dev);
    return 0;
}

static int peer_sock = -1;

static bool peer(uint32_t op, uint32_t idx, uint32_t off, uint32_t len, uint32_t seed)
{
    struct hcmd c = {op, idx, off, len, seed};
    int32_t ok = 0;

    if (emu_test_full_io(peer_sock, &c, sizeof(c), true) != 0 ||
        emu_test_full_io(peer_sock, &ok, sizeof(ok), false) != 0) {
        fprintf(stderr, "the peer process is gone\n");
        return false;
    }
    return ok != 0;
}

/* Whether the peer's QP idx holds exactly len bytes of seed's pattern at T_TGT, zeros around. */
static bool peer_holds_exactly(int idx, uint32_t len, uint32_t seed)
{
    return peer(H_CHECK, (uint32_t)idx, T_TGT, len, seed) &&
           peer(H_ISZERO, (uint32_t)idx, T_TGT - 64, 64, 0) &&
           peer(H_ISZERO, (uint32_t)idx, T_TGT + len, 64, 0);
}

static uint32_t max_ds_advertised(void)
{
    static uint8_t in[PRM_QUERY_HCA_CAP_IN_SIZE], out[PRM_QUERY_HCA_CAP_OUT_SIZE];
    const void *cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    uint32_t sz, ds;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    PRM_SET(in, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_GENERAL, 1));
    DT_CHECK(mlx5dv_devx_general_cmd(dev.ctx, in, sizeof(in), out, sizeof(out)) == 0);
    sz = (uint32_t)PRM_GET(cap, PRM_HCA_CAP_MAX_WQE_SZ_SQ);
    ds = sz / PRM_WQE_DS_SIZE;
    if (ds > PRM_WQE_MAX_DS) /* the control segment's DS field has 6 bits */
        ds = PRM_WQE_MAX_DS;
    printf("max_wqe_sz_sq %u bytes: WQEs of %u DS (%u basic blocks)\n", sz, ds,
           prm_wqe_bb_count(ds));
    return ds;
}

/* Segment j of a gather/scatter list of n: a length of 1..200 bytes, at an odd offset. */
static uint32_t seg_len(uint32_t j)
{
    return 1 + (j * 37u + 11u) % 200u;
}

static uint32_t seg_off(uint32_t j)
{
    return L_SRC + j * L_STRIDE + (j % 7);
}

static void max_inline_write(struct dp_qp *a, const struct dp_info *r, uint32_t ds, int idx,
                             const char *where)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_inline_seg *seg = (void *)(wqe + 32);
    uint32_t len = ds * PRM_WQE_DS_SIZE - 32 - 4, index;
    char what[128];

    snprintf(what, sizeof(what), "inline RDMA write of %u DS (%u bytes), %s", ds, len, where);
    DP_CHECK(peer(H_ZERO, (uint32_t)idx, T_TGT - 64, len + 128, 0), "zero the target");
    prm_wqe_set_raddr_seg((void *)(wqe + 16), r->addr + T_TGT, r->rkey);
    prm_wqe_set_inline_seg(seg, len);
    dp_fill(prm_wqe_inline_data(seg), len, 0x31, 0);
    index = post_ctrl(a, wqe, PRM_WQE_OPCODE_RDMA_WRITE, ds, true);
    dp_ring(a);
    if (!expect(a, index, PRM_WQE_OPCODE_RDMA_WRITE, 0, len, 5000, what))
        return;
    DP_CHECK(peer_holds_exactly(idx, len, 0x31), "%s: the peer holds exactly its bytes", what);
}

static void max_gather_write(struct dp_qp *a, const struct dp_info *r, uint32_t ds, int idx,
                             const char *where)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    uint32_t n = ds - 2, total = 0, index;
    char what[128];

    for (uint32_t j = 0; j < n; j++) {
        dp_fill(a->buf + seg_off(j), seg_len(j), 0x47, total);
        prm_wqe_set_data_seg((void *)(wqe + 32 + j * 16), seg_len(j), a->mr->lkey,
                             (uintptr_t)a->buf + seg_off(j));
        total += seg_len(j);
    }
    snprintf(what, sizeof(what), "RDMA write of %u DS, %u gather entries (%u bytes), %s", ds, n,
             total, where);
    DP_CHECK(peer(H_ZERO, (uint32_t)idx, T_TGT - 64, total + 128, 0), "zero the target");
    prm_wqe_set_raddr_seg((void *)(wqe + 16), r->addr + T_TGT, r->rkey);
    index = post_ctrl(a, wqe, PRM_WQE_OPCODE_RDMA_WRITE, ds, true);
    dp_ring(a);
    if (!expect(a, index, PRM_WQE_OPCODE_RDMA_WRITE, 0, total, 5000, what))
        return;
    DP_CHECK(peer_holds_exactly(idx, total, 0x47), "%s: the peer holds exactly the gathered bytes",
             what);
}

static void max_scatter_read(struct dp_qp *a, const struct dp_info *r, uint32_t ds, int idx,
                             const char *where)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    uint32_t n = ds - 2, total = 0, index;
    char what[128];
    bool ok = true;

    memset(a->buf + L_SRC, 0, n * L_STRIDE + 64);
    for (uint32_t j = 0; j < n; j++) {
        prm_wqe_set_data_seg((void *)(wqe + 32 + j * 16), seg_len(j), a->mr->lkey,
                             (uintptr_t)a->buf + seg_off(j));
        total += seg_len(j);
    }
    snprintf(what, sizeof(what), "RDMA read of %u DS, %u scatter entries (%u bytes), %s", ds, n,
             total, where);
    DP_CHECK(peer(H_FILL, (uint32_t)idx, T_TGT, total, 0x5d), "fill the read source");
    prm_wqe_set_raddr_seg((void *)(wqe + 16), r->addr + T_TGT, r->rkey);
    index = post_ctrl(a, wqe, PRM_WQE_OPCODE_RDMA_READ, ds, true);
    dp_ring(a);
    if (!expect(a, index, PRM_WQE_OPCODE_RDMA_READ, 0, total, 5000, what))
        return;
    total = 0;
    for (uint32_t j = 0; j < n && ok; j++) {
        ok = dp_check_bytes(a->buf + seg_off(j), seg_len(j), 0x5d, total) &&
             a->buf[seg_off(j) + seg_len(j)] == 0;
        total += seg_len(j);
    }
    DP_CHECK(ok, "%s: each entry holds exactly its part of the source", what);
}

static void max_inline_send(struct dp_qp *a, uint32_t ds, int idx, const char *where)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_inline_seg *seg = (void *)(wqe + 16);
    uint32_t len = ds * PRM_WQE_DS_SIZE - 16 - 4, index;
    char what[128];

    snprintf(what, sizeof(what), "inline send of %u DS (%u bytes), %s", ds, len, where);
    DP_CHECK(peer(H_RECV_POST, (uint32_t)idx, T_RECV, 4096, 0), "post the peer's receive");
    prm_wqe_set_inline_seg(seg, len);
    dp_fill(prm_wqe_inline_data(seg), len, 0x6b, 0);
    index = post_ctrl(a, wqe, PRM_WQE_OPCODE_SEND, ds, true);
    dp_ring(a);
    if (!expect(a, index, PRM_WQE_OPCODE_SEND, 0, -1, 5000, what))
        return;
    DP_CHECK(peer(H_RECV_CHECK, (uint32_t)idx, T_RECV, len, 0x6b),
             "%s: the peer's receive completes with exactly its bytes", what);
}

/* Moves the producer one basic block on (a NOP), so the next 16-block WQE wraps the ring. */
static bool skew(struct dp_qp *a)
{
    uint32_t index = post_nop(a);

    dp_ring(a);
    return expect(a, index, PRM_WQE_OPCODE_NOP, 0, -1, 5000, "NOP before a wrapping WQE");
}

static int run_max_wqe(void)
{
    struct dp_qp a[NQ];
    struct dp_info mine[NQ], theirs[NQ];
    int sv[2], status = 0;
    uint32_t ds;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 1;
    pid = fork(); /* before either process opens its device */
    if (pid == 0) {
        close(sv[0]);
        watchdog(120, "the child's service of the parent's checks");
        _exit(child_serve(sv[1]));
    }
    close(sv[1]);
    wd_child = pid;
    peer_sock = sv[0];
    watchdog(60, "the max_wqe cases");
    dp_open(&dev);
    ds = max_ds_advertised();
    DP_CHECK(ds >= 4 && prm_wqe_bb_count(ds) <= (1u << LOG_SQ) / 2, "an advertised size to test");
    for (int k = 0; k < NQ; k++) {
        if (dp_qp_create(&dev, &dp_host_mem, &a[k], LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
            return 1;
        dp_info_of(&a[k], &mine[k]);
    }
    if (emu_test_full_io(peer_sock, theirs, sizeof(theirs), false) != 0 ||
        emu_test_full_io(peer_sock, mine, sizeof(mine), true) != 0) {
        DP_CHECK(false, "trade QP infos with the child");
        return dp_summary("test_devx_hostile max_wqe");
    }
    for (int k = 0; k < NQ; k++)
        DP_CHECK(dp_qp_connect(&a[k], &theirs[k]) == 0, "connect QP %d", k);

    /* Each kind on its own QP: aligned to the ring's start, then across its end. */
    max_inline_write(&a[0], &theirs[0], ds, 0, "aligned");
    if (skew(&a[0]))
        max_inline_write(&a[0], &theirs[0], ds, 0, "across the ring's end");
    max_gather_write(&a[1], &theirs[1], ds, 1, "aligned");
    if (skew(&a[1]))
        max_gather_write(&a[1], &theirs[1], ds, 1, "across the ring's end");
    max_scatter_read(&a[2], &theirs[2], ds, 2, "aligned");
    if (skew(&a[2]))
        max_scatter_read(&a[2], &theirs[2], ds, 2, "across the ring's end");
    max_inline_send(&a[3], ds, 3, "aligned");
    if (skew(&a[3]))
        max_inline_send(&a[3], ds, 3, "across the ring's end");

    peer(H_QUIT, 0, 0, 0, 0);
    if (waitpid(pid, &status, 0) != pid)
        status = -1;
    wd_child = 0;
    DP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits 0 (0x%x)", status);
    for (int k = 0; k < NQ; k++)
        dp_qp_destroy(&a[k]);
    dp_close(&dev);
    alarm(0);
    return dp_summary("test_devx_hostile max_wqe");
}

/* --- reset_race (standard verbs) -------------------------------------------------------- */

#define RR_ROUNDS 50
#define RR_SQ     64
#define RR_BUF    (1u << 20)
#define RR_LEN    4096u
#define RR_VERIFY (1ull << 63)
#define RR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

struct rr_end {
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    uint8_t *buf;
    struct ibv_mr *mr;
};

static struct ibv_context *rr_ctx;
static struct ibv_pd *rr_pd;
static union ibv_gid rr_gid;
static struct rr_end rr_a, rr_b;

/* The poster thread's view. */
static volatile int rr_stop;
static long rr_posted, rr_post_failed, rr_completed, rr_bad_status;
static int rr_last_bad_status = -1;
static long rr_after_reset; /* completions polled after the RESET returned */

static int rr_end_create(struct rr_end *e)
{
    struct ibv_qp_init_attr a;

    memset(e, 0, sizeof(*e));
    e->cq = ibv_create_cq(rr_ctx, 4 * RR_SQ, NULL, NULL, 0);
    e->buf = aligned_alloc(4096, RR_BUF);
    if (e->cq == NULL || e->buf == NULL)
        return -1;
    memset(e->buf, 0, RR_BUF);
    e->mr = ibv_reg_mr(rr_pd, e->buf, RR_BUF, RR_ACCESS);
    memset(&a, 0, sizeof(a));
    a.send_cq = e->cq;
    a.recv_cq = e->cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = RR_SQ;
    a.cap.max_recv_wr = 1;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    e->qp = ibv_create_qp(rr_pd, &a);
    return e->mr == NULL || e->qp == NULL ? -1 : 0;
}

static void rr_end_destroy(struct rr_end *e)
{
    ibv_destroy_qp(e->qp);
    ibv_dereg_mr(e->mr);
    ibv_destroy_cq(e->cq);
    free(e->buf);
}

static int rr_to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
    struct ibv_qp_attr a = {.qp_state = s};

    return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* RESET -> INIT -> RTR -> RTS towards remote_qpn with the given PSNs. */
static int rr_connect(struct ibv_qp *qp, uint32_t remote_qpn, uint32_t psn)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = RR_ACCESS;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = remote_qpn;
    a.rq_psn = psn;
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = rr_gid;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = psn;
    a.max_rd_atomic = 4;
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
                   ? -1
                   : 0;
}

static int rr_write(uint64_t wr_id, uint32_t loff, uint32_t roff, unsigned int flags)
{
    struct ibv_sge sge = {(uintptr_t)rr_a.buf + loff, RR_LEN, rr_a.mr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = flags;
    wr.wr.rdma.remote_addr = (uintptr_t)rr_b.buf + roff;
    wr.wr.rdma.rkey = rr_b.mr->rkey;
    return ibv_post_send(rr_a.qp, &wr, &bad);
}

/* Posts writes as fast as the send queue takes them; polls only to make room. */
static void *rr_poster(void *arg)
{
    uint64_t n = 0;

    (void)arg;
    while (!__atomic_load_n(&rr_stop, __ATOMIC_ACQUIRE)) {
        struct ibv_wc wc[16];
        int rc = rr_write(n, RR_LEN * (1 + n % 64), RR_LEN * (1 + n % 64),
                          n % 8 == 7 ? IBV_SEND_SIGNALED : 0);

        if (rc == 0) {
            rr_posted++;
            n++;
            continue;
        }
        if (rc != ENOMEM) {
            /* The QP left RTS under us: nothing to post until it is connected again. */
            rr_post_failed++;
            break;
        }
        rc = ibv_poll_cq(rr_a.cq, 16, wc);
        for (int i = 0; i < rc; i++) {
            rr_completed++;
            if (wc[i].status != IBV_WC_SUCCESS && wc[i].status != IBV_WC_WR_FLUSH_ERR) {
                rr_bad_status++;
                rr_last_bad_status = (int)wc[i].status;
            }
        }
    }
    return NULL;
}

static void rr_round(int k)
{
    uint32_t psn = ((uint32_t)k * 0x20000u + 0x100u) & 0xffffff;
    char what[160];
    struct ibv_wc wc;
    pthread_t th;
    long t0, dt;
    int rc;

    snprintf(what, sizeof(what), "round %d: re-connect", k);
    watchdog(10, what);
    if (rr_connect(rr_b.qp, rr_a.qp->qp_num, psn) != 0 ||
        rr_connect(rr_a.qp, rr_b.qp->qp_num, psn) != 0) {
        DP_CHECK(false, "%s", what);
        return;
    }
    /* The QP works: the first completion after the re-connect is this write's, and it landed. */
    snprintf(what, sizeof(what), "round %d: a write after the re-connect", k);
    watchdog(10, what);
    memset(rr_a.buf, 0, RR_LEN);
    dp_fill(rr_a.buf, RR_LEN, (uint8_t)(0x10 + k), 0);
    memset(rr_b.buf, 0, RR_LEN);
    rc = rr_write(RR_VERIFY | (uint64_t)k, 0, 0, IBV_SEND_SIGNALED);
    if (rc == 0) {
        long end = now_us() + 5000000;

        do
            rc = ibv_poll_cq(rr_a.cq, 1, &wc);
        while (rc == 0 && now_us() < end);
    } else {
        fprintf(stderr, "%s: ibv_post_send: %s\n", what, strerror(rc));
        rc = -1;
    }
    DP_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == (RR_VERIFY | (uint64_t)k),
             "%s: completion %d, status %d (%s), wr_id 0x%lx, opcode %d, byte_len %u", what, rc,
             rc == 1 ? (int)wc.status : -1, rc == 1 ? ibv_wc_status_str(wc.status) : "-",
             rc == 1 ? (unsigned long)wc.wr_id : 0ul, rc == 1 ? (int)wc.opcode : -1,
             rc == 1 ? wc.byte_len : 0);
    if (rc == 1 && wc.status == IBV_WC_SUCCESS)
        DP_CHECK(dp_check_bytes(rr_b.buf, RR_LEN, (uint8_t)(0x10 + k), 0), "%s: the data landed",
                 what);
    /* One WQE posted, one completion: nothing else comes (5 ms later either). */
    sleep_us(5000);
    rc = ibv_poll_cq(rr_a.cq, 1, &wc);
    DP_CHECK(rc == 0, "%s: a second completion (wr_id 0x%lx, status %d) for one WQE posted", what,
             rc == 1 ? (unsigned long)wc.wr_id : 0ul, rc == 1 ? (int)wc.status : 0);
    while (rc == 1)
        rc = ibv_poll_cq(rr_a.cq, 1, &wc);

    /* The requester runs flat out; the QP is moved to RESET under it. */
    __atomic_store_n(&rr_stop, 0, __ATOMIC_RELEASE);
    DT_CHECK(pthread_create(&th, NULL, rr_poster, NULL) == 0);
    sleep_us(500 + (k % 7) * 700);
    snprintf(what, sizeof(what), "round %d: ibv_modify_qp to RESET while the requester runs", k);
    watchdog(10, what);
    t0 = now_us();
    rc = rr_to_state(rr_a.qp, IBV_QPS_RESET);
    dt = now_us() - t0;
    DP_CHECK(rc == 0, "%s: %d", what, rc);
    DP_CHECK(dt < 2000000, "%s took %ld us", what, dt);
    __atomic_store_n(&rr_stop, 1, __ATOMIC_RELEASE);
    snprintf(what, sizeof(what), "round %d: the poster thread's end after RESET", k);
    watchdog(10, what);
    pthread_join(th, NULL);
    /*
     * RESET once more, now that nothing posts: a post that raced with the first
     * RESET is not the next incarnation's (rdma-core takes no common lock for
     * ibv_post_send and ibv_modify_qp; the second RESET clears its indices, its
     * doorbell record and its CQEs again).
     */
    snprintf(what, sizeof(what), "round %d: a second RESET once the poster stopped", k);
    watchdog(10, what);
    DP_CHECK(rr_to_state(rr_a.qp, IBV_QPS_RESET) == 0, "%s", what);
    /* Whatever completions are left, then the responder is reset too (new PSNs next round). */
    while (ibv_poll_cq(rr_a.cq, 1, &wc) == 1) {
        rr_completed++;
        rr_after_reset++;
        if (wc.status != IBV_WC_SUCCESS && wc.status != IBV_WC_WR_FLUSH_ERR) {
            rr_bad_status++;
            rr_last_bad_status = (int)wc.status;
        }
    }
    /* Nothing is written for the QP once it is in RESET: a later look finds the CQ empty. */
    sleep_us(5000);
    rc = ibv_poll_cq(rr_a.cq, 1, &wc);
    DP_CHECK(rc == 0,
             "round %d: a CQE was written for the QP after it entered RESET (wr_id 0x%lx, "
             "status %d)",
             k, rc == 1 ? (unsigned long)wc.wr_id : 0ul, rc == 1 ? (int)wc.status : 0);
    while (rc == 1)
        rc = ibv_poll_cq(rr_a.cq, 1, &wc);
    snprintf(what, sizeof(what), "round %d: RESET of the responder", k);
    watchdog(10, what);
    DP_CHECK(rr_to_state(rr_b.qp, IBV_QPS_RESET) == 0, "%s", what);
    alarm(0);
}

/*
 * The smallest case of the above: signaled writes whose CQEs are written but
 * not polled, then RESET. rdma-core removes the QP's CQEs from its CQs there,
 * so none is polled afterwards, and the re-connected QP's first completion is
 * its first new WQE's.
 */
static int run_reset_cq(void)
{
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_wc wc;
    int rc, stale = 0;

    DT_CHECK(list != NULL && list[0] != NULL);
    rr_ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    DT_CHECK(rr_ctx != NULL);
    rr_pd = ibv_alloc_pd(rr_ctx);
    DT_CHECK(rr_pd != NULL && ibv_query_gid(rr_ctx, 1, 0, &rr_gid) == 0);
    DT_CHECK(rr_end_create(&rr_a) == 0 && rr_end_create(&rr_b) == 0);
    watchdog(30, "reset_cq");
    DT_CHECK(rr_connect(rr_b.qp, rr_a.qp->qp_num, 0) == 0 &&
             rr_connect(rr_a.qp, rr_b.qp->qp_num, 0) == 0);
    for (int i = 0; i < 40; i++)
        DP_CHECK(rr_write((uint64_t)i, RR_LEN, RR_LEN, IBV_SEND_SIGNALED) == 0, "post write %d", i);
    sleep_us(200000); /* their CQEs are written; none is polled */
    DP_CHECK(rr_to_state(rr_a.qp, IBV_QPS_RESET) == 0, "RESET");
    while (ibv_poll_cq(rr_a.cq, 1, &wc) == 1)
        stale++;
    DP_CHECK(stale == 0,
             "%d completions of the QP polled after ibv_modify_qp to RESET returned "
             "(rdma-core's mlx5 removes them from the CQ at RESET)",
             stale);
    DP_CHECK(rr_to_state(rr_b.qp, IBV_QPS_RESET) == 0 &&
                     rr_connect(rr_b.qp, rr_a.qp->qp_num, 0x1000) == 0 &&
                     rr_connect(rr_a.qp, rr_b.qp->qp_num, 0x1000) == 0,
             "re-connect");
    rc = rr_write(RR_VERIFY, 0, 0, IBV_SEND_SIGNALED);
    DP_CHECK(rc == 0, "ibv_post_send after RESET and re-connect: %s", strerror(rc));
    if (rc == 0) {
        long end = now_us() + 5000000;

        do
            rc = ibv_poll_cq(rr_a.cq, 1, &wc);
        while (rc == 0 && now_us() < end);
        DP_CHECK(rc == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == RR_VERIFY,
                 "the first completion after re-connecting is the new write's (got %d, wr_id "
                 "0x%lx, status %d)",
                 rc, rc == 1 ? (unsigned long)wc.wr_id : 0ul, rc == 1 ? (int)wc.status : -1);
    }
    alarm(0);
    rr_end_destroy(&rr_a);
    rr_end_destroy(&rr_b);
    ibv_dealloc_pd(rr_pd);
    ibv_close_device(rr_ctx);
    return dp_summary("test_devx_hostile reset_cq");
}

static int run_reset_race(void)
{
    struct ibv_device **list = ibv_get_device_list(NULL);

    DT_CHECK(list != NULL && list[0] != NULL);
    rr_ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    DT_CHECK(rr_ctx != NULL);
    rr_pd = ibv_alloc_pd(rr_ctx);
    DT_CHECK(rr_pd != NULL && ibv_query_gid(rr_ctx, 1, 0, &rr_gid) == 0);
    DT_CHECK(rr_end_create(&rr_a) == 0 && rr_end_create(&rr_b) == 0);
    for (int k = 0; k < RR_ROUNDS; k++)
        rr_round(k);
    /* Connected once more: the last word is that it still works. */
    rr_round(RR_ROUNDS);
    printf("reset_race: %ld writes posted, %ld completions polled by the poster, %ld posts "
           "refused after RESET\n",
           rr_posted, rr_completed, rr_post_failed);
    /* rdma-core removes a QP's CQEs from its CQs when the QP enters RESET, and none come after. */
    DP_CHECK(rr_after_reset == 0,
             "%ld completions of the QP were polled after ibv_modify_qp to RESET had returned",
             rr_after_reset);
    DP_CHECK(rr_bad_status == 0, "completions other than success or flush: %ld (last status %d)",
             rr_bad_status, rr_last_bad_status);
    idle_check("after the RESET rounds");
    rr_end_destroy(&rr_a);
    rr_end_destroy(&rr_b);
    ibv_dealloc_pd(rr_pd);
    ibv_close_device(rr_ctx);
    return dp_summary("test_devx_hostile reset_race");
}

int main(int argc, char **argv)
{
    const char *t = argc > 1 ? argv[1] : "";

    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, wd_fire);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(t, "ds_overrun") == 0)
        return run_ds_overrun();
    if (strcmp(t, "reset_reuse") == 0)
        return run_reset_reuse();
    if (strcmp(t, "max_wqe") == 0)
        return run_max_wqe();
    if (strcmp(t, "reset_race") == 0)
        return run_reset_race();
    if (strcmp(t, "reset_cq") == 0)
        return run_reset_cq();
    fprintf(stderr, "usage: %s ds_overrun|reset_reuse|max_wqe|reset_race|reset_cq\n", argv[0]);
    return 2;
}
