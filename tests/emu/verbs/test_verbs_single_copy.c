/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same-host single copy across two processes: with it on (default) the
 * responder reads multi-SGE writes, writes with immediate and sends straight
 * from the requester's memory (emu_wire_pulled_bytes counts them); with
 * "off" (SOFTMLX5_SINGLE_COPY=0) the same traffic goes through the socket
 * and nothing is pulled. Either way the data must land exactly. With single
 * copy, a source buffer unmapped under its registration fails the write with
 * a remote access error instead of breaking the connection.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* Message layout: two gather entries of the requester, odd sizes and offsets. */
#define W_OFF0 100u
#define W_LEN0 5000u
#define W_OFF1 20000u
#define W_LEN1 70000u
#define W_DST  1000u
#define WI_DST 200000u
#define S_OFF0 300000u
#define S_LEN0 9000u
#define S_OFF1 400000u
#define S_LEN1 7u
#define R_OFF0 500000u
#define R_LEN0 4000u
#define R_OFF1 600000u
#define R_LEN1 20000u
#define R_IMM  700000u

static bool single_copy = true;

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 7u + 3u);
}

static int post2(struct vu_end *e, enum ibv_wr_opcode op, uint32_t off0, uint32_t len0,
                 uint32_t off1, uint32_t len1, const struct vu_info *remote, uint64_t roff)
{
    struct ibv_sge sge[2] = {{(uintptr_t)e->buf + off0, len0, e->mr->lkey},
                             {(uintptr_t)e->buf + off1, len1, e->mr->lkey}};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = op;
    wr.sg_list = sge;
    wr.num_sge = 2;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htonl(0x5eed);
    if (remote != NULL) {
        wr.wr.rdma.remote_addr = remote->addr + roff;
        wr.wr.rdma.rkey = remote->rkey;
    }
    return ibv_post_send(e->qp, &wr, &bad);
}

/* The requester (child): every operation must complete successfully; exits 0 if so. */
static int requester(int sock)
{
    struct vu_ctx c;
    struct vu_end b;
    struct vu_info ia, ib;
    struct ibv_wc wc;
    char go;
    int bad = 0;

    if (vu_open(&c) || vu_end_create(&c, &b, 16, 8, 4, ACCESS_ALL))
        return 2;
    for (uint32_t i = 0; i < VU_BUF_SIZE; i++)
        b.buf[i] = pattern(i);
    vu_info_of(&c, &b, &ib);
    if (write(sock, &ib, sizeof(ib)) != sizeof(ib) || read(sock, &ia, sizeof(ia)) != sizeof(ia) ||
        vu_connect(&b, &ia, ACCESS_ALL, 7) || read(sock, &go, 1) != 1)
        return 2;
    /* A first small write: by its ACK the single-copy handshake is over. */
    if (vu_post(&b, IBV_WR_RDMA_WRITE, 1, 0, 8, &ia, 800000, IBV_SEND_SIGNALED) != 0 ||
        vu_wait(b.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS)
        bad++;
    if (post2(&b, IBV_WR_RDMA_WRITE, W_OFF0, W_LEN0, W_OFF1, W_LEN1, &ia, W_DST) != 0 ||
        post2(&b, IBV_WR_RDMA_WRITE_WITH_IMM, W_OFF0, W_LEN0, W_OFF1, W_LEN1, &ia, WI_DST) != 0 ||
        post2(&b, IBV_WR_SEND, S_OFF0, S_LEN0, S_OFF1, S_LEN1, NULL, 0) != 0)
        bad++;
    for (int i = 0; i < 3; i++)
        if (vu_wait(b.cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS)
            bad++;
    if (single_copy) {
        /* The responder cannot read it: NAK, the request fails, nothing else happens. */
        size_t len = 65536;
        void *gone = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        struct ibv_mr *mr = gone == MAP_FAILED ? NULL : ibv_reg_mr(c.pd, gone, len, ACCESS_ALL);
        struct ibv_sge sge = {(uintptr_t)gone, 8192, mr != NULL ? mr->lkey : 0};
        struct ibv_send_wr wr = {.sg_list = &sge,
                                 .num_sge = 1,
                                 .opcode = IBV_WR_RDMA_WRITE,
                                 .send_flags = IBV_SEND_SIGNALED},
                           *badw;

        wr.wr.rdma.remote_addr = ia.addr + 900000;
        wr.wr.rdma.rkey = ia.rkey;
        if (mr == NULL || munmap(gone, len) != 0 || ibv_post_send(b.qp, &wr, &badw) != 0 ||
            vu_wait(b.cq, &wc, 5000) != 1 || wc.status != IBV_WC_REM_ACCESS_ERR) {
            fprintf(stderr, "unreadable source: status %d\n", (int)wc.status);
            bad++;
        }
        if (mr != NULL)
            ibv_dereg_mr(mr);
    }
    if (write(sock, &bad, sizeof(bad)) != sizeof(bad) || read(sock, &go, 1) != 1)
        return 2;
    vu_end_destroy(&b);
    vu_close(&c);
    return bad == 0 ? 0 : 1;
}

static bool same(const uint8_t *got, uint32_t src, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (got[i] != pattern(src + i))
            return false;
    return true;
}

int main(int argc, char **argv)
{
    bool on = !(argc > 1 && strcmp(argv[1], "off") == 0);
    uint64_t (*pulled)(struct ibv_device *);
    struct ibv_recv_wr rwr[2], *badr;
    struct ibv_sge rsge[3];
    struct vu_ctx c;
    struct vu_end a;
    struct vu_info ia, ib;
    struct ibv_wc wc[2];
    int sv[2], status, bad = -1, got = 0;
    pid_t pid;

    signal(SIGPIPE, SIG_IGN);
    single_copy = on;
    if (!on)
        setenv("SOFTMLX5_SINGLE_COPY", "0", 1);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 1;
    /* Fork before either process opens its device. */
    pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(requester(sv[1]));
    }
    close(sv[1]);
    pulled = (uint64_t(*)(struct ibv_device *))dlsym(RTLD_DEFAULT, "emu_wire_pulled_bytes");
    VU_CHECK(pulled != NULL, "emu_wire_pulled_bytes is exported");
    if (pulled == NULL || vu_open(&c) || vu_end_create(&c, &a, 16, 4, 8, ACCESS_ALL))
        return vu_summary("test_verbs_single_copy");
    memset(a.buf, 0, VU_BUF_SIZE);
    /* The write with immediate takes the first receive, the send (two entries) the second. */
    rsge[0] = (struct ibv_sge){(uintptr_t)a.buf + R_IMM, 16, a.mr->lkey};
    rsge[1] = (struct ibv_sge){(uintptr_t)a.buf + R_OFF0, R_LEN0, a.mr->lkey};
    rsge[2] = (struct ibv_sge){(uintptr_t)a.buf + R_OFF1, R_LEN1, a.mr->lkey};
    rwr[0] = (struct ibv_recv_wr){.wr_id = 1, .next = &rwr[1], .sg_list = rsge, .num_sge = 1};
    rwr[1] = (struct ibv_recv_wr){.wr_id = 2, .sg_list = rsge + 1, .num_sge = 2};
    vu_info_of(&c, &a, &ia);
    if (read(sv[0], &ib, sizeof(ib)) != sizeof(ib) || write(sv[0], &ia, sizeof(ia)) != sizeof(ia) ||
        vu_connect(&a, &ib, ACCESS_ALL, 7) || ibv_post_recv(a.qp, rwr, &badr) != 0 ||
        write(sv[0], "g", 1) != 1) {
        VU_CHECK(false, "setup");
        return vu_summary("test_verbs_single_copy");
    }
    while (got < 2 && vu_wait(a.cq, &wc[got], 5000) == 1)
        got++;
    VU_CHECK(read(sv[0], &bad, sizeof(bad)) == sizeof(bad) && bad == 0,
             "requester's operations completed successfully (%d failed)", bad);
    VU_CHECK(got == 2 && wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS &&
                     wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc[1].opcode == IBV_WC_RECV &&
                     wc[0].byte_len == W_LEN0 + W_LEN1 && wc[1].byte_len == S_LEN0 + S_LEN1,
             "receive completions (%d)", got);
    VU_CHECK(same(a.buf + W_DST, W_OFF0, W_LEN0) && same(a.buf + W_DST + W_LEN0, W_OFF1, W_LEN1),
             "two-entry write placed exactly");
    VU_CHECK(a.buf[899999] == 0 && a.buf[900000 + 8192] == 0,
             "nothing written around the failed write's target");
    VU_CHECK(a.buf[W_DST - 1] == 0 && a.buf[W_DST + W_LEN0 + W_LEN1] == 0,
             "nothing written around the write's target");
    VU_CHECK(same(a.buf + WI_DST, W_OFF0, W_LEN0) && same(a.buf + WI_DST + W_LEN0, W_OFF1, W_LEN1),
             "two-entry write with immediate placed exactly");
    VU_CHECK(same(a.buf + R_OFF0, S_OFF0, R_LEN0) &&
                     same(a.buf + R_OFF1, S_OFF0 + R_LEN0, S_LEN0 - R_LEN0) &&
                     same(a.buf + R_OFF1 + S_LEN0 - R_LEN0, S_OFF1, S_LEN1) &&
                     a.buf[R_OFF1 + S_LEN0 - R_LEN0 + S_LEN1] == 0,
             "two-entry send scattered exactly into a two-entry receive");
    if (on)
        VU_CHECK(pulled(c.ctx->device) >= 2ull * (W_LEN0 + W_LEN1) + S_LEN0 + S_LEN1,
                 "the data was read from the requester's memory (%lu bytes pulled)",
                 (unsigned long)pulled(c.ctx->device));
    else
        VU_CHECK(pulled(c.ctx->device) == 0, "nothing pulled with SOFTMLX5_SINGLE_COPY=0 (%lu)",
                 (unsigned long)pulled(c.ctx->device));
    if (write(sv[0], "x", 1) != 1)
        VU_CHECK(false, "release the requester");
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "requester exit status 0x%x", status);
    vu_end_destroy(&a);
    vu_close(&c);
    return vu_summary("test_verbs_single_copy");
}
