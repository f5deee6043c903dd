/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad application memory never crashes the device's process.
 *
 * Registration: ibv_reg_mr, ibv_reg_mr_iova2 and DevX UMEM registration of
 * host memory that is not mapped, or not mapped with the protection the
 * access needs, fail with EFAULT (and a NULL object), as ConnectX's pinning
 * does; a large untouched mapping registers at once and is not faulted in.
 *
 * Remote access: a peer's RDMA write (64 B: the socket path; 64 KiB: single
 * copy when it is on), RDMA read and 8-byte fetch-add to an MR whose pages
 * the target unmapped (all of them, or those a 64 KiB message ends in), made
 * PROT_NONE or read-only after registering them, or to a deregistered MR,
 * and a send into a receive buffer whose pages were unmapped: the requester
 * gets an error completion (a remote access error; for the send a remote
 * operation error, and a local protection error at the target), not
 * retry-exceeded, and the target keeps running: writes over a new QP into
 * another of its MRs land.
 *
 * Local access: the requester's own source, read destination or atomic
 * result buffer unmapped after registering it: a local protection error (a
 * 64 KiB write under single copy: the target cannot pull it, a remote access
 * error), and the requester keeps running.
 *
 * The device's helpers themselves (emu_mem_host_*, nic/mem.h), reached with
 * dlsym: fault-free copies and checks of unmapped, PROT_NONE and read-only
 * pages, also in a forked child (its own memory, never its parent's).
 *
 * Each remote case runs in a fresh pair of processes, the target and the
 * requester, forked before either opens a device; the parent only reports
 * (so a target killed by a signal is seen and named). Run with
 * SOFTMLX5_SINGLE_COPY=1 and =0.
 */
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)

#define BAD_LEN   (128u << 10) /* the target's bad MR */
/*
 * Where a bad MR whose tail is unmapped stops being mapped: 48 KiB into a
 * 64 KiB message, past the first socket buffer a send fills (about 36 KiB on
 * a Unix socket), so that the fault comes after part of the frame left.
 */
#define TAIL_AT   (48u << 10)
#define LARGE     (64u << 10)
#define SMALL     64u
#define READ_AT   (256u << 10) /* where a read lands in the requester's buffer */
#define GOOD_LEN  8192u        /* the later write into another MR (single copy when on) */
#define CASE_WAIT 10000        /* ms for the requester's completion */

/*
 * Where the bad MRs go: far below where mmap(NULL) places things, so that
 * nothing the process maps later fills the hole they leave. ThreadSanitizer
 * kills a program that maps outside its application ranges: there, anywhere.
 */
#if defined(__SANITIZE_THREAD__)
#define BAD_HINT NULL
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BAD_HINT NULL
#endif
#endif
#ifndef BAD_HINT
#define BAD_HINT ((void *)0x200000000000ull)
#endif

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

enum bad_kind {
    BAD_UNMAPPED,       /* the target's MR unmapped */
    BAD_TAIL,           /* the target's MR unmapped from TAIL_AT on: a message ends in it */
    BAD_PROT_NONE,      /* made PROT_NONE */
    BAD_READ_ONLY,      /* made read-only */
    BAD_DEREG,          /* deregistered */
    BAD_LOCAL_UNMAPPED, /* the requester's own buffer unmapped */
    BAD_LOCAL_TAIL,     /* the requester's own buffer unmapped from TAIL_AT on */
};
enum bad_op { OP_WRITE, OP_WRITE_LARGE, OP_READ, OP_READ_LARGE, OP_FETCH_ADD, OP_SEND };

struct bad_case {
    const char *name;
    enum bad_kind kind;
    enum bad_op op;
    enum ibv_wc_status want;
};

static const struct bad_case cases[] = {
        {"write 64 B to unmapped pages", BAD_UNMAPPED, OP_WRITE, IBV_WC_REM_ACCESS_ERR},
        {"write 64 KiB to unmapped pages", BAD_UNMAPPED, OP_WRITE_LARGE, IBV_WC_REM_ACCESS_ERR},
        {"read 64 B of unmapped pages", BAD_UNMAPPED, OP_READ, IBV_WC_REM_ACCESS_ERR},
        {"read 64 KiB of unmapped pages", BAD_UNMAPPED, OP_READ_LARGE, IBV_WC_REM_ACCESS_ERR},
        {"fetch-add on unmapped pages", BAD_UNMAPPED, OP_FETCH_ADD, IBV_WC_REM_ACCESS_ERR},
        {"write 64 KiB ending in unmapped pages", BAD_TAIL, OP_WRITE_LARGE, IBV_WC_REM_ACCESS_ERR},
        {"read 64 KiB ending in unmapped pages", BAD_TAIL, OP_READ_LARGE, IBV_WC_REM_ACCESS_ERR},
        {"send into unmapped receive buffer", BAD_UNMAPPED, OP_SEND, IBV_WC_REM_OP_ERR},
        {"write 64 B to PROT_NONE pages", BAD_PROT_NONE, OP_WRITE, IBV_WC_REM_ACCESS_ERR},
        {"read 64 B of PROT_NONE pages", BAD_PROT_NONE, OP_READ, IBV_WC_REM_ACCESS_ERR},
        {"fetch-add on PROT_NONE pages", BAD_PROT_NONE, OP_FETCH_ADD, IBV_WC_REM_ACCESS_ERR},
        {"write 64 B to read-only pages", BAD_READ_ONLY, OP_WRITE, IBV_WC_REM_ACCESS_ERR},
        {"fetch-add on read-only pages", BAD_READ_ONLY, OP_FETCH_ADD, IBV_WC_REM_ACCESS_ERR},
        {"read 64 B of read-only pages", BAD_READ_ONLY, OP_READ, IBV_WC_SUCCESS},
        {"write 64 B to deregistered MR", BAD_DEREG, OP_WRITE, IBV_WC_REM_ACCESS_ERR},
        {"read 64 B of deregistered MR", BAD_DEREG, OP_READ, IBV_WC_REM_ACCESS_ERR},
        {"fetch-add on deregistered MR", BAD_DEREG, OP_FETCH_ADD, IBV_WC_REM_ACCESS_ERR},
        {"write 64 B from unmapped source", BAD_LOCAL_UNMAPPED, OP_WRITE, IBV_WC_LOC_PROT_ERR},
        /* The two 64 KiB writes from a bad source: want is set at run time (run_case). */
        {"write 64 KiB from unmapped source", BAD_LOCAL_UNMAPPED, OP_WRITE_LARGE,
         IBV_WC_LOC_PROT_ERR},
        {"write 64 KiB from source ending unmapped", BAD_LOCAL_TAIL, OP_WRITE_LARGE,
         IBV_WC_LOC_PROT_ERR},
        {"read 64 B into unmapped buffer", BAD_LOCAL_UNMAPPED, OP_READ, IBV_WC_LOC_PROT_ERR},
        {"fetch-add result to unmapped buffer", BAD_LOCAL_UNMAPPED, OP_FETCH_ADD,
         IBV_WC_LOC_PROT_ERR},
};

/* What the target tells the requester. */
struct target_info {
    struct vu_info end;
    uint64_t bad_addr;
    uint32_t bad_rkey;
};

/* What the target tells the requester at the end. */
struct target_report {
    int recv_status; /* a send's receive completion at the target, or -1: none */
    bool data_ok;    /* the later writes into another of its MRs landed */
    bool refilled;   /* something the process mapped since took the unmapped pages' place */
};

/* What the requester tells the parent. */
struct case_result {
    int status; /* the completion's, or -1: none within CASE_WAIT */
    long ms;    /* until it came */
    bool data_ok;
    bool later_ok; /* the later writes into another of the target's MRs landed */
    int recv_status;
    bool refilled; /* the case's unmapped pages were mapped again meanwhile (target or ours) */
    char why[96];  /* the first step that went wrong, if one did */
};

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint8_t pattern(uint32_t i, uint8_t seed)
{
    return (uint8_t)(i * 13u + seed);
}

static bool send_all(int fd, const void *p, size_t n)
{
    return write(fd, p, n) == (ssize_t)n;
}

static bool recv_all(int fd, void *p, size_t n)
{
    size_t at = 0;

    while (at < n) {
        ssize_t got = read(fd, (uint8_t *)p + at, n - at);

        if (got <= 0)
            return false;
        at += (size_t)got;
    }
    return true;
}

static bool expect(int fd, char want)
{
    char c;

    return recv_all(fd, &c, 1) && c == want;
}

/* False once some page of [p, p + len) is mapped again (by anything in the process). */
static bool still_unmapped(uint8_t *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char v;

    for (size_t at = 0; at < len; at += page)
        if (mincore(p + at, page, &v) == 0 || errno != ENOMEM)
            return false;
    return true;
}

/* BAD_LEN bytes of fresh pages, away from where later mappings go once it is unmapped. */
static uint8_t *bad_map(void)
{
    void *p = BAD_HINT == NULL ? MAP_FAILED
                               : mmap(BAD_HINT, BAD_LEN, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p == MAP_FAILED)
        p = mmap(NULL, BAD_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The target: its bad MR spoiled as the case says, then a second QP and MR that must still work. */
static int target(int sock, const struct bad_case *bc)
{
    struct vu_ctx c;
    struct vu_end a, keep;
    struct vu_info peer;
    struct target_info ti;
    struct target_report rep = {-1, true, false};
    struct ibv_mr *bad_mr;
    struct ibv_wc wc;
    uint8_t *bad = bad_map();
    bool ok = true;

    alarm(60);
    if (bad == NULL || vu_open(&c) || vu_end_create(&c, &a, 16, 4, 4, ACCESS_ALL))
        return 2;
    for (uint32_t i = 0; i < BAD_LEN; i++)
        bad[i] = pattern(i, 1);
    bad_mr = ibv_reg_mr(c.pd, bad, BAD_LEN, ACCESS_ALL);
    if (bad_mr == NULL)
        return 2;
    vu_info_of(&c, &a, &ti.end);
    ti.bad_addr = (uintptr_t)bad;
    ti.bad_rkey = bad_mr->rkey;
    if (!send_all(sock, &ti, sizeof(ti)) || !recv_all(sock, &peer, sizeof(peer)) ||
        vu_connect(&a, &peer, ACCESS_ALL, 7))
        return 2;
    if (bc->op == OP_SEND) {
        struct ibv_sge sge = {(uintptr_t)bad, 4096, bad_mr->lkey};
        struct ibv_recv_wr wr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1}, *badwr;

        if (ibv_post_recv(a.qp, &wr, &badwr) != 0)
            return 2;
    }
    switch (bc->kind) {
    case BAD_UNMAPPED:
        ok = munmap(bad, BAD_LEN) == 0;
        break;
    case BAD_TAIL:
        ok = munmap(bad + TAIL_AT, BAD_LEN - TAIL_AT) == 0;
        break;
    case BAD_PROT_NONE:
        ok = mprotect(bad, BAD_LEN, PROT_NONE) == 0;
        break;
    case BAD_READ_ONLY:
        ok = mprotect(bad, BAD_LEN, PROT_READ) == 0;
        break;
    case BAD_DEREG:
        ok = ibv_dereg_mr(bad_mr) == 0;
        bad_mr = NULL;
        break;
    case BAD_LOCAL_UNMAPPED: /* the requester's memory is bad, ours stays good */
    case BAD_LOCAL_TAIL:
        break;
    }
    if (!ok || !send_all(sock, "r", 1))
        return 2;

    /* The requester's second QP, and another MR of ours. */
    if (!recv_all(sock, &peer, sizeof(peer)) || vu_end_create(&c, &keep, 16, 4, 4, ACCESS_ALL))
        return 3;
    vu_info_of(&c, &keep, &ti.end);
    /* The last write carries an immediate: its receive completion says the data is there. */
    if (!send_all(sock, &ti, sizeof(ti)) || vu_connect(&keep, &peer, ACCESS_ALL, 7) ||
        vu_post_recv(&keep, 5, READ_AT, 16) != 0 || !send_all(sock, "r", 1) || !expect(sock, 'c'))
        return 3;
    rep.data_ok = vu_wait(keep.cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS &&
                  wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    for (uint32_t i = 0; i < GOOD_LEN + SMALL; i++)
        rep.data_ok &= keep.buf[i] == pattern(i, 2);
    if (bc->op == OP_SEND && vu_wait(a.cq, &wc, 1000) == 1)
        rep.recv_status = (int)wc.status;
    if (bc->kind == BAD_UNMAPPED || bc->kind == BAD_TAIL) {
        uint32_t from = bc->kind == BAD_TAIL ? TAIL_AT : 0;

        rep.refilled = !still_unmapped(bad + from, BAD_LEN - from);
    }
    if (!send_all(sock, &rep, sizeof(rep)) || !expect(sock, 'x'))
        return 3;
    vu_end_destroy(&keep);
    vu_end_destroy(&a);
    if (bad_mr != NULL)
        ibv_dereg_mr(bad_mr);
    vu_close(&c);
    return 0;
}

/* The case's operation: local buffer at local (lkey), remote memory remote (NULL: a send). */
static int post_case(struct vu_end *e, const struct bad_case *bc, uint8_t *local, uint32_t lkey,
                     const struct vu_info *remote)
{
    static const enum ibv_wr_opcode opcode[] = {[OP_WRITE] = IBV_WR_RDMA_WRITE,
                                                [OP_WRITE_LARGE] = IBV_WR_RDMA_WRITE,
                                                [OP_READ] = IBV_WR_RDMA_READ,
                                                [OP_READ_LARGE] = IBV_WR_RDMA_READ,
                                                [OP_FETCH_ADD] = IBV_WR_ATOMIC_FETCH_AND_ADD,
                                                [OP_SEND] = IBV_WR_SEND};
    uint32_t len = bc->op == OP_FETCH_ADD                                ? 8
                   : bc->op == OP_WRITE_LARGE || bc->op == OP_READ_LARGE ? LARGE
                                                                         : SMALL;
    struct ibv_sge sge = {(uintptr_t)local, len, lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 1;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode[bc->op];
    wr.send_flags = IBV_SEND_SIGNALED;
    if (bc->op == OP_FETCH_ADD) {
        wr.wr.atomic.remote_addr = remote->addr;
        wr.wr.atomic.rkey = remote->rkey;
        wr.wr.atomic.compare_add = 1;
    } else if (remote != NULL && bc->op != OP_SEND) {
        wr.wr.rdma.remote_addr = remote->addr;
        wr.wr.rdma.rkey = remote->rkey;
    }
    return ibv_post_send(e->qp, &wr, &bad);
}

/* The requester: the case's operation, then writes over a new QP into another MR of the target. */
static void requester(int sock, const struct bad_case *bc, struct case_result *res)
{
    struct vu_ctx c;
    struct vu_end b, b2;
    struct vu_info mine, bad, keep;
    struct target_info ti;
    struct target_report rep;
    struct ibv_wc wc;
    struct ibv_mr *local_mr = NULL;
    uint8_t *local;
    uint32_t lkey;
    long t0;
    int got;

    alarm(60);
    if (vu_open(&c) || vu_end_create(&c, &b, 16, 8, 4, ACCESS_ALL)) {
        snprintf(res->why, sizeof(res->why), "requester set-up");
        return;
    }
    for (uint32_t i = 0; i < VU_BUF_SIZE; i++)
        b.buf[i] = pattern(i, 2);
    vu_info_of(&c, &b, &mine);
    if (!recv_all(sock, &ti, sizeof(ti)) || !send_all(sock, &mine, sizeof(mine)) ||
        vu_connect(&b, &ti.end, ACCESS_ALL, 7) || !expect(sock, 'r')) {
        snprintf(res->why, sizeof(res->why), "connecting to the target");
        return;
    }
    /* A first write to a good MR: by its ACK the single-copy handshake is over. */
    if (vu_post(&b, IBV_WR_RDMA_WRITE, 9, 0, 8, &ti.end, 0, IBV_SEND_SIGNALED) != 0 ||
        vu_wait(b.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
        snprintf(res->why, sizeof(res->why), "the first write to a good MR failed");
        return;
    }
    bad = ti.end;
    local = b.buf +
            (bc->op == OP_READ || bc->op == OP_READ_LARGE || bc->op == OP_FETCH_ADD ? READ_AT : 0);
    lkey = b.mr->lkey;
    if (bc->kind == BAD_LOCAL_UNMAPPED || bc->kind == BAD_LOCAL_TAIL) {
        /* Our own buffer goes (all of it, or from TAIL_AT on); the target's memory is good. */
        uint32_t from = bc->kind == BAD_LOCAL_TAIL ? TAIL_AT : 0;
        local = bad_map();
        local_mr = local != NULL ? ibv_reg_mr(c.pd, local, BAD_LEN, ACCESS_ALL) : NULL;
        if (local_mr == NULL || munmap(local + from, BAD_LEN - from) != 0) {
            snprintf(res->why, sizeof(res->why), "the requester's bad buffer");
            return;
        }
        lkey = local_mr->lkey;
    } else {
        bad.addr = ti.bad_addr;
        bad.rkey = ti.bad_rkey;
    }
    t0 = now_ms();
    if (post_case(&b, bc, local, lkey, &bad) != 0) {
        snprintf(res->why, sizeof(res->why), "posting the operation");
        return;
    }
    got = vu_wait(b.cq, &wc, CASE_WAIT);
    res->ms = now_ms() - t0;
    res->status = got == 1 ? (int)wc.status : -1;
    if (bc->kind == BAD_LOCAL_UNMAPPED || bc->kind == BAD_LOCAL_TAIL) {
        uint32_t from = bc->kind == BAD_LOCAL_TAIL ? TAIL_AT : 0;

        res->refilled = !still_unmapped(local + from, BAD_LEN - from);
    }
    if (bc->want == IBV_WC_SUCCESS && res->status == IBV_WC_SUCCESS) {
        res->data_ok = true;
        for (uint32_t i = 0; i < SMALL; i++)
            res->data_ok &= b.buf[READ_AT + i] == pattern(i, 1);
    }

    /* Is the target unharmed? A new QP, a write that goes by single copy when on, a small one. */
    if (vu_end_create(&c, &b2, 16, 8, 4, ACCESS_ALL)) {
        snprintf(res->why, sizeof(res->why), "second requester QP");
        return;
    }
    for (uint32_t i = 0; i < VU_BUF_SIZE; i++)
        b2.buf[i] = pattern(i, 2);
    vu_info_of(&c, &b2, &mine);
    if (!send_all(sock, &mine, sizeof(mine)) || !recv_all(sock, &ti, sizeof(ti)) ||
        vu_connect(&b2, &ti.end, ACCESS_ALL, 7) || !expect(sock, 'r')) {
        snprintf(res->why, sizeof(res->why), "target gone before the second QP");
        return;
    }
    keep = ti.end;
    if (vu_post(&b2, IBV_WR_RDMA_WRITE, 2, 0, GOOD_LEN, &keep, 0, IBV_SEND_SIGNALED) != 0 ||
        vu_wait(b2.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS ||
        vu_post(&b2, IBV_WR_RDMA_WRITE_WITH_IMM, 3, GOOD_LEN, SMALL, &keep, GOOD_LEN,
                IBV_SEND_SIGNALED) != 0 ||
        vu_wait(b2.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
        snprintf(res->why, sizeof(res->why), "writes into another MR over a new QP failed");
        return;
    }
    if (send_all(sock, "c", 1) && recv_all(sock, &rep, sizeof(rep))) {
        res->later_ok = rep.data_ok;
        res->recv_status = rep.recv_status;
        res->refilled |= rep.refilled;
    }
    if (!res->later_ok)
        snprintf(res->why, sizeof(res->why), "the target did not find the later writes' data");
    send_all(sock, "x", 1);
    vu_end_destroy(&b2);
    if (local_mr != NULL)
        ibv_dereg_mr(local_mr);
    vu_end_destroy(&b);
    vu_close(&c);
}

static const char *status_name(int status)
{
    return status < 0 ? "no completion" : ibv_wc_status_str((enum ibv_wc_status)status);
}

static void run_case(const struct bad_case *case_in)
{
    const char *sc = getenv("SOFTMLX5_SINGLE_COPY");
    struct bad_case the_case = *case_in, *bc = &the_case;
    struct case_result res;
    int sv[2], rp[2], tstatus = 0, rstatus = 0;
    bool have;
    pid_t t, r;

    /* A 64 KiB write goes by single copy when it is on: the target cannot read the source. */
    if ((bc->kind == BAD_LOCAL_UNMAPPED || bc->kind == BAD_LOCAL_TAIL) &&
        bc->op == OP_WRITE_LARGE) {
        if (sc == NULL) {
            printf("%-40s skipped: set SOFTMLX5_SINGLE_COPY to 1 or 0\n", bc->name);
            return;
        }
        bc->want = strcmp(sc, "1") == 0 ? IBV_WC_REM_ACCESS_ERR : IBV_WC_LOC_PROT_ERR;
    }
    memset(&res, 0, sizeof(res));
    res.status = -1;
    res.recv_status = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(rp) != 0) {
        VU_CHECK(false, "%s: socketpair/pipe", bc->name);
        return;
    }
    fflush(NULL);
    t = fork();
    if (t == 0) {
        close(sv[1]);
        close(rp[0]);
        close(rp[1]);
        _exit(target(sv[0], bc));
    }
    r = fork();
    if (r == 0) {
        close(sv[0]);
        close(rp[0]);
        requester(sv[1], bc, &res);
        _exit(send_all(rp[1], &res, sizeof(res)) ? 0 : 1);
    }
    close(sv[0]);
    close(sv[1]);
    close(rp[1]);
    have = recv_all(rp[0], &res, sizeof(res));
    close(rp[0]);
    waitpid(r, &rstatus, 0);
    waitpid(t, &tstatus, 0);
    if (have)
        printf("%-40s requester: %s after %ld ms; ", bc->name, status_name(res.status), res.ms);
    else
        printf("%-40s requester: %s %d, no report; ", bc->name,
               WIFSIGNALED(rstatus) ? "killed by signal" : "exit",
               WIFSIGNALED(rstatus) ? WTERMSIG(rstatus) : WEXITSTATUS(rstatus));
    printf("target: %s %d; later writes %s%s%s\n",
           WIFSIGNALED(tstatus) ? "killed by signal" : "exit",
           WIFSIGNALED(tstatus) ? WTERMSIG(tstatus) : WEXITSTATUS(tstatus),
           res.later_ok ? "landed" : "did not land", res.why[0] ? ": " : "", res.why);
    fflush(stdout);
    VU_CHECK(have && WIFEXITED(rstatus) && WEXITSTATUS(rstatus) == 0, "%s: the requester %s %d",
             bc->name, WIFSIGNALED(rstatus) ? "was killed by signal" : "exit",
             WIFSIGNALED(rstatus) ? WTERMSIG(rstatus) : WEXITSTATUS(rstatus));
    VU_CHECK(WIFEXITED(tstatus) && WEXITSTATUS(tstatus) == 0, "%s: the target %s %d", bc->name,
             WIFSIGNALED(tstatus) ? "was killed by signal" : "exit",
             WIFSIGNALED(tstatus) ? WTERMSIG(tstatus) : WEXITSTATUS(tstatus));
    if (res.refilled && res.status != (int)bc->want)
        printf("%-40s inconclusive: the process mapped something where the pages were unmapped\n",
               bc->name);
    else
        VU_CHECK(res.status == (int)bc->want,
                 "%s: requester completion %s after %ld ms, expected %s", bc->name,
                 status_name(res.status), res.ms, status_name((int)bc->want));
    if (bc->want == IBV_WC_SUCCESS)
        VU_CHECK(res.data_ok, "%s: the data read back", bc->name);
    /* The receive it consumed fails at the target as a bad lkey would (a local protection error).
     */
    if (bc->op == OP_SEND && !res.refilled)
        VU_CHECK(res.recv_status == IBV_WC_LOC_PROT_ERR,
                 "%s: the target's receive completion %s, expected %s", bc->name,
                 status_name(res.recv_status), status_name(IBV_WC_LOC_PROT_ERR));
    VU_CHECK(res.later_ok, "%s: the target still works: %s", bc->name,
             res.why[0] ? res.why : "no report");
}

/* Pages of [p, p + len) resident now (a registration must not fault them in). */
static size_t resident(void *p, size_t len)
{
    static unsigned char vec[4096];
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;

    for (size_t at = 0; at < len; at += sizeof(vec) * page) {
        size_t chunk = len - at < sizeof(vec) * page ? len - at : sizeof(vec) * page;

        if (mincore((uint8_t *)p + at, chunk, vec) != 0)
            return (size_t)-1;
        for (size_t i = 0; i < (chunk + page - 1) / page; i++)
            n += vec[i] & 1;
    }
    return n;
}

/* ibv_reg_mr of (addr, len, access): expects NULL and EFAULT (want_fault) or an MR. */
static void reg_expect(struct vu_ctx *c, const char *what, void *addr, size_t len, int access,
                       bool want_fault)
{
    struct ibv_mr *mr;
    long t0 = now_ms();

    errno = 0;
    mr = ibv_reg_mr(c->pd, addr, len, access);
    if (want_fault)
        VU_CHECK(mr == NULL && errno == EFAULT, "ibv_reg_mr of %s: %s (errno %d), expected EFAULT",
                 what, mr != NULL ? "registered" : "failed", errno);
    else
        VU_CHECK(mr != NULL, "ibv_reg_mr of %s: errno %d, expected an MR", what, errno);
    VU_CHECK(now_ms() - t0 < 1000, "ibv_reg_mr of %s took %ld ms", what, now_ms() - t0);
    if (mr != NULL)
        ibv_dereg_mr(mr);
}

static void test_registration(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), huge = 1ull << 40, big = 4ull << 30;
    struct mlx5dv_devx_umem *umem;
    struct ibv_mr *mr;
    struct vu_ctx c;
    uint8_t *p, *hole;
    long t0;

    if (vu_open(&c) != 0) {
        VU_CHECK(false, "open a device");
        return;
    }
    /* 1 TiB of nothing: reserved, then unmapped (less where a sanitizer's shadow leaves less). */
    while ((hole = mmap(NULL, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                        0)) == MAP_FAILED &&
           huge > (1ull << 30))
        huge >>= 4;
    if (hole == MAP_FAILED || munmap(hole, huge) != 0) {
        VU_CHECK(false, "reserve and free 1 GiB to 1 TiB of address space");
        vu_close(&c);
        return;
    }
    if (huge != 1ull << 40)
        printf("an unmapped range of %zu GiB stands in for 1 TiB\n", huge >> 30);
    reg_expect(&c, "1 TiB unmapped", hole, huge, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
               true);
    reg_expect(&c, "1 MiB unmapped, read-only access", hole, 1u << 20, 0, true);
    errno = 0;
    mr = ibv_reg_mr_iova2(c.pd, hole, 1u << 20, 0x10000, IBV_ACCESS_LOCAL_WRITE);
    VU_CHECK(mr == NULL && errno == EFAULT, "ibv_reg_mr_iova2 of unmapped memory: errno %d", errno);
    errno = 0;
    umem = mlx5dv_devx_umem_reg(c.ctx, hole, 1u << 20, IBV_ACCESS_LOCAL_WRITE);
    VU_CHECK(umem == NULL && errno == EFAULT, "mlx5dv_devx_umem_reg of unmapped memory: errno %d",
             errno);
    if (umem != NULL)
        mlx5dv_devx_umem_dereg(umem);

    /* Three pages: the last unmapped, then the middle one's protection changed. */
    p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        VU_CHECK(false, "mmap 3 pages");
        vu_close(&c);
        return;
    }
    reg_expect(&c, "3 mapped pages", p, 3 * page, ACCESS_ALL, false);
    munmap(p + 2 * page, page);
    reg_expect(&c, "2 mapped pages and 1 unmapped", p, 3 * page, ACCESS_ALL, true);
    reg_expect(&c, "the 2 mapped pages", p, 2 * page, ACCESS_ALL, false);
    reg_expect(&c, "a range ending 1 byte into the unmapped page", p + 1, 2 * page, 0, true);
    mprotect(p + page, page, PROT_READ);
    reg_expect(&c, "a read-only page, for writing", p, 2 * page, IBV_ACCESS_LOCAL_WRITE, true);
    reg_expect(&c, "a read-only page, for remote reads", p, 2 * page, IBV_ACCESS_REMOTE_READ,
               false);
    errno = 0;
    umem = mlx5dv_devx_umem_reg(c.ctx, p, 2 * page, IBV_ACCESS_LOCAL_WRITE);
    VU_CHECK(umem == NULL && errno == EFAULT,
             "mlx5dv_devx_umem_reg of a read-only page for writing: errno %d", errno);
    if (umem != NULL)
        mlx5dv_devx_umem_dereg(umem);
    mprotect(p + page, page, PROT_NONE);
    reg_expect(&c, "a PROT_NONE page, for remote reads", p, 2 * page, IBV_ACCESS_REMOTE_READ, true);
    mprotect(p + page, page, PROT_READ | PROT_WRITE);
    reg_expect(&c, "the pages made writable again", p, 2 * page, ACCESS_ALL, false);
    munmap(p, 2 * page);

    /* A few GiB never touched: registered at once, nothing faulted in. */
    p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        printf("4 GiB mapping refused (overcommit?): large registration not tested\n");
    } else {
        t0 = now_ms();
        mr = ibv_reg_mr(c.pd, p, big, ACCESS_ALL);
        VU_CHECK(mr != NULL, "ibv_reg_mr of 4 GiB untouched: errno %d", errno);
        VU_CHECK(now_ms() - t0 < 1000, "ibv_reg_mr of 4 GiB took %ld ms", now_ms() - t0);
        VU_CHECK(resident(p, big) == 0, "registering 4 GiB faulted %zu pages in", resident(p, big));
        if (mr != NULL)
            ibv_dereg_mr(mr);
        munmap(p, big);
    }
    vu_close(&c);
}

/* The helpers of nic/mem.h, exported to libmlx5.so.1 under SOFTMLX5_PRIVATE. */
struct helpers {
    int (*copy_to)(void *dst_app, const void *src, size_t len);
    int (*copy_from)(void *dst, const void *src_app, size_t len);
    int (*mapped)(const void *addr, size_t len);
    int (*writable)(void *addr, size_t len);
    int (*pinnable)(const void *addr, size_t len, bool write);
};

/* In a forked child: its own mappings count, and copies never reach the parent. 0 when right. */
static int helpers_child(const struct helpers *h, uint8_t *shared_page, size_t page)
{
    uint8_t *mine =
            mmap(NULL, 1u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t v = 0x5a;
    int bad = 0;

    if (mine == MAP_FAILED)
        return 0x80;
    if (h->pinnable(mine, 1u << 20, true) != 0 || h->mapped(mine, 1u << 20) != 0)
        bad |= 1; /* a mapping only the child has */
    if (h->copy_to(shared_page, &v, 1) != 0 || shared_page[0] != 0x5a)
        bad |= 2; /* the child's copy of the page */
    if (munmap(shared_page, page) != 0 || h->pinnable(shared_page, page, false) != EFAULT ||
        h->copy_to(shared_page, &v, 1) != EFAULT)
        bad |= 4; /* unmapped in the child, still mapped in the parent */
    return bad;
}

static void test_helpers(void)
{
    struct helpers h = {
            (int (*)(void *, const void *, size_t))dlsym(RTLD_DEFAULT, "emu_mem_host_copy_to"),
            (int (*)(void *, const void *, size_t))dlsym(RTLD_DEFAULT, "emu_mem_host_copy_from"),
            (int (*)(const void *, size_t))dlsym(RTLD_DEFAULT, "emu_mem_host_mapped"),
            (int (*)(void *, size_t))dlsym(RTLD_DEFAULT, "emu_mem_host_writable"),
            (int (*)(const void *, size_t, bool))dlsym(RTLD_DEFAULT, "emu_mem_host_pinnable")};
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1u << 20;
    uint8_t src[256], dst[256], *m, *ro, *none, *gone;
    bool populate;
    int status;
    pid_t pid;

    VU_CHECK(h.copy_to && h.copy_from && h.mapped && h.writable && h.pinnable,
             "emu_mem_host_* are exported");
    if (!h.copy_to || !h.copy_from || !h.mapped || !h.writable || !h.pinnable)
        return;
    /* 1 MiB whose last three pages are read-only, PROT_NONE and unmapped. */
    m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        VU_CHECK(false, "mmap 1 MiB");
        return;
    }
    ro = m + n - 3 * page;
    none = m + n - 2 * page;
    gone = m + n - page;
    memset(ro, 0x11, page);
    if (mprotect(ro, page, PROT_READ) != 0 || mprotect(none, page, PROT_NONE) != 0 ||
        munmap(gone, page) != 0) {
        VU_CHECK(false, "set up the pages");
        return;
    }
    for (uint32_t i = 0; i < sizeof(src); i++)
        src[i] = pattern(i, 3);

    VU_CHECK(h.copy_to(m + 100, src, sizeof(src)) == 0 && memcmp(m + 100, src, sizeof(src)) == 0,
             "copy_to mapped memory");
    VU_CHECK(h.copy_from(dst, m + 100, sizeof(dst)) == 0 && memcmp(dst, src, sizeof(src)) == 0,
             "copy_from mapped memory");
    VU_CHECK(h.copy_to(ro, src, 8) == EFAULT && ro[0] == 0x11, "copy_to a read-only page: EFAULT");
    VU_CHECK(h.copy_from(dst, ro, 8) == 0 && dst[0] == 0x11, "copy_from a read-only page");
    VU_CHECK(h.copy_to(none, src, 8) == EFAULT && h.copy_from(dst, none, 8) == EFAULT,
             "copies of a PROT_NONE page: EFAULT");
    VU_CHECK(h.copy_to(gone, src, 8) == EFAULT && h.copy_from(dst, gone, 8) == EFAULT,
             "copies of an unmapped page: EFAULT");
    VU_CHECK(h.copy_to(ro - 8, src, 16) == EFAULT, "copy_to into a read-only page: EFAULT");
    VU_CHECK(h.copy_to(NULL, src, 0) == 0 && h.copy_from(dst, NULL, 0) == 0 &&
                     h.mapped(NULL, 0) == 0 && h.writable(NULL, 0) == 0 &&
                     h.pinnable(NULL, 0, true) == 0,
             "empty ranges are fine");

    VU_CHECK(h.pinnable(m, n - 3 * page, true) == 0, "pinnable: read-write pages");
    VU_CHECK(h.pinnable(m, n - 2 * page, true) == EFAULT, "pinnable for writing: read-only page");
    VU_CHECK(h.pinnable(m, n - 2 * page, false) == 0, "pinnable for reading: read-only page");
    VU_CHECK(h.pinnable(m, n - page, false) == EFAULT, "pinnable: PROT_NONE page");
    VU_CHECK(h.pinnable(m, n, false) == EFAULT, "pinnable: unmapped page");
    VU_CHECK(h.pinnable((void *)(UINTPTR_MAX - 10), 100, false) == EFAULT,
             "pinnable: a wrapping range");
    VU_CHECK(h.mapped(m, n - 2 * page) == 0 && h.mapped(m + 8, 64) == 0,
             "mapped: readable pages, large and small");
    VU_CHECK(h.mapped(m, n) == EFAULT && h.mapped(gone, 8) == EFAULT,
             "mapped: unmapped page, large and small");
    VU_CHECK(h.writable(m + 8, 8) == 0 && h.writable(gone, 8) == EFAULT,
             "writable: read-write and unmapped pages");
    /* Protections are seen through MADV_POPULATE_* (Linux 5.14); before, only mappings. */
    populate = madvise(m, page, MADV_POPULATE_READ) == 0;
    if (populate) {
        VU_CHECK(h.mapped(m, n - page) == EFAULT && h.mapped(none, 8) == EFAULT,
                 "mapped: PROT_NONE page, large and small");
        VU_CHECK(h.writable(ro, 8) == EFAULT && h.writable(none, 8) == EFAULT,
                 "writable: read-only and PROT_NONE pages");
    } else {
        printf("no MADV_POPULATE_READ (Linux < 5.14): protection checks of mapped/writable "
               "skipped\n");
    }

    /* A fork's child asks about its own memory. */
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        _exit(helpers_child(&h, m, page));
    VU_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                     WEXITSTATUS(status) == 0,
             "helpers in a forked child (status 0x%x)", status);
    VU_CHECK(m[0] == 0 && h.pinnable(m, page, true) == 0,
             "the child's copy and munmap did not reach the parent");
    munmap(m, n - page);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_helpers();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
    test_registration();
    return vu_summary("test_verbs_bad_memory");
}
