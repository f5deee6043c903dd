/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct writes across two processes of one host (emu/engine/direct.c):
 * once the responder executed a write into a key through the socket, later
 * small writes into that key are placed by the requester itself
 * (emu_wire_pushed_bytes counts them), and land exactly: one entry, two
 * entries, inline, unsignalled bursts. Then the responder takes its grants
 * back, and no write may land afterwards:
 *   - it deregisters a key (its memory stays allocated): a write through
 *     that key completes with a remote access error, the memory untouched;
 *   - it moves its QP to ERR: a write completes in error (retries
 *     exceeded), the memory untouched.
 * With "off" (SOFTMLX5_SINGLE_COPY=0) nothing is pushed and the rest holds.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS_ALL   (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define SMALL_WRITES 16
#define BURST        20
#define EXTRA_SIZE   65536u

/* What the responder tells the requester. */
struct targets {
    struct vu_info one, two; /* two QPs */
    uint64_t extra_addr;     /* a second key, deregistered later */
    uint32_t extra_rkey;
};

/* What the requester reports after each step. */
struct report {
    int bad;         /* operations that did not complete as they should */
    uint64_t pushed; /* bytes its device wrote into the responder's memory so far */
};

static bool single_copy = true;
static uint64_t (*pushed_bytes)(struct ibv_device *);

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 13u + 5u);
}

/* Posts one write of len bytes from off to the remote address raddr and waits for it. */
static enum ibv_wc_status write_wait(struct vu_end *e, uint32_t off, uint32_t len, uint64_t raddr,
                                     uint32_t rkey, unsigned int flags)
{
    struct ibv_sge sge = {(uintptr_t)e->buf + off, len, e->mr->lkey};
    struct ibv_send_wr wr = {.sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_SIGNALED | flags},
                       *bad;
    struct ibv_wc wc;

    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    if (ibv_post_send(e->qp, &wr, &bad) != 0 || vu_wait(e->cq, &wc, 10000) != 1)
        return IBV_WC_GENERAL_ERR;
    return wc.status;
}

static int send_report(int sock, struct vu_ctx *c, int bad)
{
    struct report r = {bad, pushed_bytes(c->ctx->device)};

    return write(sock, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
}

/* Step 1 on QP one: a first write through the socket, then small writes of every kind. */
static int step_small_writes(struct vu_end *b, const struct vu_info *t)
{
    struct ibv_sge sge[2] = {{(uintptr_t)b->buf + 3000, 100, b->mr->lkey},
                             {(uintptr_t)b->buf + 5000, 50, b->mr->lkey}};
    struct ibv_send_wr wr = {.sg_list = sge, .num_sge = 2, .opcode = IBV_WR_RDMA_WRITE}, *badw;
    struct ibv_wc wc;
    int bad = 0;

    for (uint32_t i = 0; i <= SMALL_WRITES; i++)
        bad += write_wait(b, 8 * i, 8, t->addr + 8 * i, t->rkey, 0) != IBV_WC_SUCCESS;
    bad += write_wait(b, 2000, 32, t->addr + 2000, t->rkey, IBV_SEND_INLINE) != IBV_WC_SUCCESS;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = t->addr + 1000;
    wr.wr.rdma.rkey = t->rkey;
    if (ibv_post_send(b->qp, &wr, &badw) != 0 || vu_wait(b->cq, &wc, 10000) != 1 ||
        wc.status != IBV_WC_SUCCESS)
        bad++;
    /* Unsignalled writes, then one signalled: one completion for all. */
    for (uint32_t i = 0; i < BURST; i++)
        bad += vu_post(b, IBV_WR_RDMA_WRITE, i, 4000 + 16 * i, 16, t, 4000 + 16 * i, 0) != 0;
    bad += write_wait(b, 4000 + 16 * BURST, 16, t->addr + 4000 + 16 * BURST, t->rkey, 0) !=
           IBV_WC_SUCCESS;
    return bad;
}

/* The requester (child): exits 0 when every report could be sent. */
static int requester(int sock)
{
    struct vu_ctx c;
    struct vu_end b1, b2;
    struct vu_info i1, i2;
    struct targets t;
    enum ibv_wc_status st;
    char go;
    int bad;

    if (vu_open(&c) || vu_end_create(&c, &b1, 64, 64, 4, ACCESS_ALL) ||
        vu_end_create(&c, &b2, 16, 16, 4, ACCESS_ALL))
        return 2;
    for (uint32_t i = 0; i < VU_BUF_SIZE; i++)
        b1.buf[i] = b2.buf[i] = pattern(i);
    vu_info_of(&c, &b1, &i1);
    vu_info_of(&c, &b2, &i2);
    if (write(sock, &i1, sizeof(i1)) != sizeof(i1) || write(sock, &i2, sizeof(i2)) != sizeof(i2) ||
        read(sock, &t, sizeof(t)) != sizeof(t) || vu_connect(&b1, &t.one, ACCESS_ALL, 7) ||
        vu_connect(&b2, &t.two, ACCESS_ALL, 7) || read(sock, &go, 1) != 1)
        return 2;

    /* 1: small writes into QP one's key; 2: twice into the extra key. */
    if (send_report(sock, &c, step_small_writes(&b1, &t.one)) != 0)
        return 2;
    bad = write_wait(&b1, 0, 8, t.extra_addr, t.extra_rkey, 0) != IBV_WC_SUCCESS;
    bad += write_wait(&b1, 8, 8, t.extra_addr + 8, t.extra_rkey, 0) != IBV_WC_SUCCESS;
    if (send_report(sock, &c, bad) != 0 || read(sock, &go, 1) != 1)
        return 2;
    /* 3: the extra key was deregistered: a remote access error. */
    st = write_wait(&b1, 16, 8, t.extra_addr + 16, t.extra_rkey, 0);
    if (st != IBV_WC_REM_ACCESS_ERR)
        fprintf(stderr, "write through a deregistered key: status %s\n", ibv_wc_status_str(st));
    if (send_report(sock, &c, st != IBV_WC_REM_ACCESS_ERR) != 0)
        return 2;
    /* 4: QP two writes twice; 5: after the responder's QP entered ERR, once more. */
    bad = write_wait(&b2, 0, 8, t.two.addr, t.two.rkey, 0) != IBV_WC_SUCCESS;
    bad += write_wait(&b2, 8, 8, t.two.addr + 8, t.two.rkey, 0) != IBV_WC_SUCCESS;
    if (send_report(sock, &c, bad) != 0 || read(sock, &go, 1) != 1)
        return 2;
    st = write_wait(&b2, 16, 8, t.two.addr + 16, t.two.rkey, 0);
    if (st == IBV_WC_SUCCESS)
        fprintf(stderr, "write to a QP in ERR completed successfully\n");
    if (send_report(sock, &c, st == IBV_WC_SUCCESS) != 0 || read(sock, &go, 1) != 1)
        return 2;
    vu_end_destroy(&b1);
    vu_end_destroy(&b2);
    vu_close(&c);
    return 0;
}

static bool same(const uint8_t *got, uint32_t src, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (got[i] != pattern(src + i))
            return false;
    return true;
}

static bool zero(const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != 0)
            return false;
    return true;
}

static bool get_report(int sock, struct report *r)
{
    return read(sock, r, sizeof(*r)) == sizeof(*r);
}

/* The pushed count after a step: some bytes with single copy, none without. */
static void check_pushed(uint64_t before, uint64_t after, const char *step)
{
    if (single_copy)
        VU_CHECK(after > before, "%s: written directly (%lu bytes pushed in all)", step,
                 (unsigned long)after);
    else
        VU_CHECK(after == 0, "%s: nothing pushed with SOFTMLX5_SINGLE_COPY=0 (%lu)", step,
                 (unsigned long)after);
}

int main(int argc, char **argv)
{
    struct vu_ctx c;
    struct vu_end a1, a2;
    struct vu_info i1, i2;
    struct targets t;
    struct report r1, r2, r3, r4, r5;
    struct ibv_qp_attr err_attr = {.qp_state = IBV_QPS_ERR};
    struct ibv_mr *extra_mr;
    uint8_t *extra;
    int sv[2], status;
    pid_t pid;

    signal(SIGPIPE, SIG_IGN);
    single_copy = !(argc > 1 && strcmp(argv[1], "off") == 0);
    if (!single_copy)
        setenv("SOFTMLX5_SINGLE_COPY", "0", 1);
    setenv("SOFTMLX5_RETRY_TIMEOUT_MS", "300", 1);
    pushed_bytes = (uint64_t(*)(struct ibv_device *))dlsym(RTLD_DEFAULT, "emu_wire_pushed_bytes");
    if (pushed_bytes == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        VU_CHECK(false, "emu_wire_pushed_bytes is exported; socketpair");
        return vu_summary("test_verbs_direct");
    }
    /* Fork before either process opens its device. */
    pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(requester(sv[1]));
    }
    close(sv[1]);
    extra = calloc(1, EXTRA_SIZE);
    if (extra == NULL || vu_open(&c) || vu_end_create(&c, &a1, 16, 4, 4, ACCESS_ALL) ||
        vu_end_create(&c, &a2, 16, 4, 4, ACCESS_ALL) ||
        (extra_mr = ibv_reg_mr(c.pd, extra, EXTRA_SIZE, ACCESS_ALL)) == NULL) {
        VU_CHECK(false, "setup");
        return vu_summary("test_verbs_direct");
    }
    memset(a1.buf, 0, VU_BUF_SIZE);
    memset(a2.buf, 0, VU_BUF_SIZE);
    vu_info_of(&c, &a1, &t.one);
    vu_info_of(&c, &a2, &t.two);
    t.extra_addr = (uintptr_t)extra;
    t.extra_rkey = extra_mr->rkey;
    if (read(sv[0], &i1, sizeof(i1)) != sizeof(i1) || read(sv[0], &i2, sizeof(i2)) != sizeof(i2) ||
        write(sv[0], &t, sizeof(t)) != sizeof(t) || vu_connect(&a1, &i1, ACCESS_ALL, 7) ||
        vu_connect(&a2, &i2, ACCESS_ALL, 7) || write(sv[0], "g", 1) != 1) {
        VU_CHECK(false, "connect");
        return vu_summary("test_verbs_direct");
    }

    VU_CHECK(get_report(sv[0], &r1) && r1.bad == 0, "small writes completed (%d failed)", r1.bad);
    check_pushed(0, r1.pushed, "small writes");
    VU_CHECK(same(a1.buf, 0, 8 * (SMALL_WRITES + 1)) && zero(a1.buf + 8 * (SMALL_WRITES + 1), 8),
             "one-entry writes placed exactly");
    VU_CHECK(same(a1.buf + 1000, 3000, 100) && same(a1.buf + 1100, 5000, 50) &&
                     zero(a1.buf + 999, 1) && zero(a1.buf + 1150, 1),
             "two-entry write placed exactly");
    VU_CHECK(same(a1.buf + 2000, 2000, 32) && zero(a1.buf + 2032, 1), "inline write placed");
    VU_CHECK(same(a1.buf + 4000, 4000, 16 * (BURST + 1)) &&
                     zero(a1.buf + 4000 + 16 * (BURST + 1), 1),
             "unsignalled burst placed");

    VU_CHECK(get_report(sv[0], &r2) && r2.bad == 0, "writes into the extra key completed");
    check_pushed(r1.pushed, r2.pushed, "extra key");
    VU_CHECK(same(extra, 0, 16), "writes into the extra key placed");
    memset(extra, 0, EXTRA_SIZE);
    VU_CHECK(ibv_dereg_mr(extra_mr) == 0, "deregister the extra key");
    if (write(sv[0], "d", 1) != 1)
        VU_CHECK(false, "tell the requester");
    VU_CHECK(get_report(sv[0], &r3) && r3.bad == 0,
             "a write through the deregistered key: remote access error");
    VU_CHECK(zero(extra, EXTRA_SIZE), "nothing written through the deregistered key");

    VU_CHECK(get_report(sv[0], &r4) && r4.bad == 0, "writes on QP two completed");
    check_pushed(r3.pushed, r4.pushed, "QP two");
    VU_CHECK(same(a2.buf, 0, 16), "writes on QP two placed");
    memset(a2.buf, 0, 64);
    VU_CHECK(ibv_modify_qp(a2.qp, &err_attr, IBV_QP_STATE) == 0, "QP two to ERR");
    if (write(sv[0], "e", 1) != 1)
        VU_CHECK(false, "tell the requester");
    VU_CHECK(get_report(sv[0], &r5) && r5.bad == 0, "a write to a QP in ERR did not succeed");
    VU_CHECK(zero(a2.buf, 64), "nothing written into a QP in ERR");

    if (write(sv[0], "x", 1) != 1)
        VU_CHECK(false, "release the requester");
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "requester exit status 0x%x", status);
    vu_end_destroy(&a1);
    vu_end_destroy(&a2);
    vu_close(&c);
    free(extra);
    return vu_summary("test_verbs_direct");
}
