/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every RC operation byte for byte: RDMA write (with immediate), send (with
 * immediate), RDMA read, compare-and-swap, fetch-and-add, inline data,
 * unsignaled and signaled WQEs, fences, and SQ/CQ wrap-around with small
 * queues. "local": two QPs on one device; "fork": two processes (the child
 * is the responder and checks its receives).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define RECV_OFF    (512u << 10)
#define RECV_SLOT   4096u
#define NRECV       32
/* Write-with-immediate i lands at its own place, clear of the receive slots. */
#define WIMM_OFF(i) (660000u + ((uint32_t)(i) % 64) * 4096u)

static void fill(uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + i * 7);
}

static bool check(const uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != (uint8_t)(seed + i * 7))
            return false;
    return true;
}

/* Posts and waits for one signaled WQE; returns the completion status (or -1). */
static int op(struct vu_end *a, enum ibv_wr_opcode opc, uint32_t off, uint32_t len,
              const struct vu_info *r, uint64_t roff, unsigned int flags)
{
    struct ibv_wc wc;

    if (vu_post(a, opc, 77, off, len, r, roff, flags | IBV_SEND_SIGNALED) != 0)
        return -1;
    if (vu_wait(a->cq, &wc, 5000) != 1 || wc.wr_id != 77)
        return -1;
    return wc.status;
}

/* Writes then reads back through RDMA READ: checks both byte for byte (works across processes). */
static void suite_rdma(struct vu_end *a, const struct vu_info *r)
{
    uint32_t sizes[] = {1, 8, 63, 4096, 65536, 300000};

    for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint32_t n = sizes[i];

        fill(a->buf, n, (uint8_t)i);
        memset(a->buf + 400000, 0, n);
        VU_CHECK(op(a, IBV_WR_RDMA_WRITE, 0, n, r, 0, 0) == IBV_WC_SUCCESS, "write %u", n);
        VU_CHECK(op(a, IBV_WR_RDMA_READ, 400000, n, r, 0, 0) == IBV_WC_SUCCESS, "read %u", n);
        VU_CHECK(check(a->buf + 400000, n, (uint8_t)i), "read-back bytes of a %u-byte write", n);
    }
    /* Inline write. */
    fill(a->buf, 48, 99);
    VU_CHECK(op(a, IBV_WR_RDMA_WRITE, 0, 48, r, 1000, IBV_SEND_INLINE) == IBV_WC_SUCCESS,
             "inline write");
    VU_CHECK(op(a, IBV_WR_RDMA_READ, 400000, 48, r, 1000, 0) == IBV_WC_SUCCESS, "read inline");
    VU_CHECK(check(a->buf + 400000, 48, 99), "inline bytes");
    /* Atomics on remote offset 8192: big-endian in memory, as ConnectX does them. */
    *(uint64_t *)a->buf = htobe64(5);
    VU_CHECK(op(a, IBV_WR_RDMA_WRITE, 0, 8, r, 8192, 0) == IBV_WC_SUCCESS, "atomic init");
    {
        struct ibv_sge sge = {(uintptr_t)a->buf + 16, 8, a->mr->lkey};
        struct ibv_send_wr wr, *bad;
        struct ibv_wc wc;

        memset(&wr, 0, sizeof(wr));
        wr.wr_id = 5;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.atomic.remote_addr = r->addr + 8192;
        wr.wr.atomic.rkey = r->rkey;
        wr.wr.atomic.compare_add = 10;
        VU_CHECK(ibv_post_send(a->qp, &wr, &bad) == 0 && vu_wait(a->cq, &wc, 5000) == 1 &&
                         wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_FETCH_ADD,
                 "fetch-add completes");
        VU_CHECK(be64toh(*(uint64_t *)(a->buf + 16)) == 5, "fetch-add returns the old value");
        wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.compare_add = 15;
        wr.wr.atomic.swap = 42;
        VU_CHECK(ibv_post_send(a->qp, &wr, &bad) == 0 && vu_wait(a->cq, &wc, 5000) == 1 &&
                         wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_COMP_SWAP,
                 "compare-swap completes");
        VU_CHECK(be64toh(*(uint64_t *)(a->buf + 16)) == 15, "compare-swap returns the old value");
        wr.wr.atomic.compare_add = 1; /* no match */
        wr.wr.atomic.swap = 7;
        VU_CHECK(ibv_post_send(a->qp, &wr, &bad) == 0 && vu_wait(a->cq, &wc, 5000) == 1 &&
                         be64toh(*(uint64_t *)(a->buf + 16)) == 42,
                 "failed compare leaves 42");
    }
    /* Unsignaled writes then a fenced, signaled read: one completion, all data there. */
    for (int i = 0; i < 8; i++) {
        fill(a->buf + i * 1024, 1024, (uint8_t)(50 + i));
        VU_CHECK(vu_post(a, IBV_WR_RDMA_WRITE, 100 + i, i * 1024, 1024, r, 20000 + i * 1024, 0) ==
                         0,
                 "unsignaled write %d", i);
    }
    VU_CHECK(op(a, IBV_WR_RDMA_READ, 400000, 8192, r, 20000, IBV_SEND_FENCE) == IBV_WC_SUCCESS,
             "fenced read after unsignaled writes");
    for (int i = 0; i < 8; i++)
        VU_CHECK(check(a->buf + 400000 + i * 1024, 1024, (uint8_t)(50 + i)), "unsignaled data %d",
                 i);
    /* Read, then a fenced write of the bytes it read (the fence orders the gather). */
    fill(a->buf, 256, 7);
    VU_CHECK(op(a, IBV_WR_RDMA_WRITE, 0, 256, r, 30000, 0) == IBV_WC_SUCCESS, "fence prep");
    memset(a->buf + 2048, 0, 256);
    VU_CHECK(vu_post(a, IBV_WR_RDMA_READ, 1, 2048, 256, r, 30000, 0) == 0, "read before fence");
    VU_CHECK(op(a, IBV_WR_RDMA_WRITE, 2048, 256, r, 31000, IBV_SEND_FENCE) == IBV_WC_SUCCESS,
             "fenced write");
    VU_CHECK(op(a, IBV_WR_RDMA_READ, 4096, 256, r, 31000, 0) == IBV_WC_SUCCESS &&
                     check(a->buf + 4096, 256, 7),
             "fenced write carried the read's bytes");
    /* SQ wrap-around: many iterations on a small SQ. */
    for (int i = 0; i < 300; i++) {
        a->buf[0] = (uint8_t)i;
        if (op(a, IBV_WR_RDMA_WRITE, 0, 1, r, 50000 + (i % 64), 0) != IBV_WC_SUCCESS) {
            VU_CHECK(0, "wrap-around write %d", i);
            break;
        }
    }
    VU_CHECK(op(a, IBV_WR_RDMA_READ, 4096, 64, r, 50000, 0) == IBV_WC_SUCCESS &&
                     a->buf[4096 + (299 % 64)] == (uint8_t)299,
             "wrap-around data");
}

/* Sends a[i] with immediate to the responder, whose receives check them. */
static void suite_send(struct vu_end *a, const struct vu_info *r, int count)
{
    for (int i = 0; i < count; i++) {
        uint32_t len = 1 + (uint32_t)(i * 397) % RECV_SLOT;

        fill(a->buf, len, (uint8_t)i);
        VU_CHECK(op(a,
                    i % 3 == 0 ? IBV_WR_SEND_WITH_IMM
                               : (i % 3 == 1 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE_WITH_IMM),
                    0, len, r, WIMM_OFF(i),
                    len <= 64 && i % 2 ? IBV_SEND_INLINE : 0) == IBV_WC_SUCCESS,
                 "send %d", i);
    }
}

/* Responder side: checks one receive completion for message i. */
static void check_recv(struct vu_end *b, int i, const struct ibv_wc *wc)
{
    uint32_t len = 1 + (uint32_t)(i * 397) % RECV_SLOT;
    uint32_t slot = (uint32_t)(wc->wr_id % NRECV);

    VU_CHECK(wc->status == IBV_WC_SUCCESS && wc->byte_len == len, "recv %d status %d len %u", i,
             wc->status, wc->byte_len);
    if (i % 3 == 2) {
        VU_CHECK(wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc->wc_flags & IBV_WC_WITH_IMM) &&
                         ntohl(wc->imm_data) == 0x1234abcd,
                 "write-imm %d", i);
        VU_CHECK(check(b->buf + WIMM_OFF(i), len, (uint8_t)i), "write-imm bytes %d", i);
    } else {
        VU_CHECK(wc->opcode == IBV_WC_RECV, "recv opcode %d", i);
        VU_CHECK((i % 3 == 0) == ((wc->wc_flags & IBV_WC_WITH_IMM) != 0), "imm flag %d", i);
        VU_CHECK(check(b->buf + RECV_OFF + slot * RECV_SLOT, len, (uint8_t)i), "recv bytes %d", i);
    }
    vu_post_recv(b, wc->wr_id + NRECV, RECV_OFF + slot * RECV_SLOT, RECV_SLOT);
}

static int run_local(void)
{
    struct vu_ctx c;
    struct vu_end a, b;
    struct vu_info ia, ib;
    struct ibv_wc wc;

    if (vu_open(&c) || vu_end_create(&c, &a, 8, 16, 4, ACCESS_ALL) ||
        vu_end_create(&c, &b, 8, 4, NRECV, ACCESS_ALL))
        return 2;
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    if (vu_connect(&a, &ib, ACCESS_ALL, 7) || vu_connect(&b, &ia, ACCESS_ALL, 7))
        return 2;
    suite_rdma(&a, &ib);
    for (int i = 0; i < NRECV; i++)
        vu_post_recv(&b, (uint64_t)i, RECV_OFF + (uint32_t)i * RECV_SLOT, RECV_SLOT);
    /* A small CQ shared with wrap-around: each send completes on both sides. */
    for (int i = 0; i < 100; i++) {
        uint32_t len = 1 + (uint32_t)(i * 397) % RECV_SLOT;

        fill(a.buf, len, (uint8_t)i);
        VU_CHECK(vu_post(&a,
                         i % 3 == 0 ? IBV_WR_SEND_WITH_IMM
                                    : (i % 3 == 1 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE_WITH_IMM),
                         1000 + i, 0, len, &ib, WIMM_OFF(i), IBV_SEND_SIGNALED) == 0,
                 "post send %d", i);
        VU_CHECK(vu_wait(a.cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS &&
                         wc.wr_id == (uint64_t)(1000 + i),
                 "send completion %d", i);
        VU_CHECK(vu_wait(b.cq, &wc, 5000) == 1, "recv completion %d", i);
        check_recv(&b, i, &wc);
    }
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    vu_close(&c);
    return vu_summary("test_verbs_ops local");
}

static int run_child(int sock)
{
    struct vu_ctx c;
    struct vu_end b;
    struct vu_info ia, ib;
    struct ibv_wc wc;
    int got = 0, total = 60, result[2];

    if (vu_open(&c) || vu_end_create(&c, &b, 64, 4, NRECV, ACCESS_ALL))
        return 2;
    vu_info_of(&c, &b, &ib);
    if (write(sock, &ib, sizeof(ib)) != sizeof(ib) || read(sock, &ia, sizeof(ia)) != sizeof(ia))
        return 2;
    if (vu_connect(&b, &ia, ACCESS_ALL, 7))
        return 2;
    for (int i = 0; i < NRECV; i++)
        vu_post_recv(&b, (uint64_t)i, RECV_OFF + (uint32_t)i * RECV_SLOT, RECV_SLOT);
    if (write(sock, "r", 1) != 1)
        return 2;
    while (got < total && vu_wait(b.cq, &wc, 10000) == 1)
        check_recv(&b, got++, &wc);
    VU_CHECK(got == total, "child got %d of %d receives", got, total);
    result[0] = vu_passed;
    result[1] = vu_failed;
    if (write(sock, result, sizeof(result)) != sizeof(result) || read(sock, result, 1) != 1)
        return 2;
    vu_end_destroy(&b);
    vu_close(&c);
    return 0;
}

static int run_fork(void)
{
    int sv[2], status, result[2] = {0, 1};
    struct vu_ctx c;
    struct vu_end a;
    struct vu_info ia, ib;
    char ready;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 2;
    pid = fork(); /* before any device is opened: each process has its own */
    if (pid == 0) {
        close(sv[0]);
        _exit(run_child(sv[1]));
    }
    close(sv[1]);
    if (vu_open(&c) || vu_end_create(&c, &a, 8, 16, 4, ACCESS_ALL))
        return 2;
    vu_info_of(&c, &a, &ia);
    if (read(sv[0], &ib, sizeof(ib)) != sizeof(ib) || write(sv[0], &ia, sizeof(ia)) != sizeof(ia))
        return 2;
    if (vu_connect(&a, &ib, ACCESS_ALL, 7) || read(sv[0], &ready, 1) != 1)
        return 2;
    suite_rdma(&a, &ib);
    suite_send(&a, &ib, 60);
    VU_CHECK(read(sv[0], result, sizeof(result)) == sizeof(result), "child result");
    vu_passed += result[0];
    vu_failed += result[1];
    VU_CHECK(write(sv[0], "x", 1) == 1, "release child");
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit status 0x%x", status);
    vu_end_destroy(&a);
    vu_close(&c);
    return vu_summary("test_verbs_ops fork");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return run_fork();
    return run_local();
}
