/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire under faults. Malformed input: garbage sent to the abstract socket
 * of a live endpoint is counted (emu_wire_rejected_frames), the connection is
 * dropped, and the device still works. A peer killed mid-transfer: the
 * outstanding WQEs complete with retry-exceeded errors within the configured
 * timeout (run with --retry-timeout 500). A peer that exited: a request
 * posted afterwards is resent and fails only once the retry timeout has
 * passed, as on a NIC, which cannot tell a gone peer from a slow one.
 */
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Connects to endpoint `ep` of this host's 127.0.0.1 devices and sends
 * bytes: whether the device closes the connection within wait_ms (-1: waits
 * for the close).
 */
static bool send_frames(uint32_t ep, const void *bytes, size_t len, int wait_ms)
{
    struct sockaddr_un addr;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0), n;
    char c;

    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "softmlx5/%08x/%u", 0x7f000001u, ep);
    if (connect(fd, (struct sockaddr *)&addr,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) != 0) {
        close(fd);
        return false;
    }
    if (write(fd, bytes, len) != (ssize_t)len) {
        close(fd);
        return false;
    }
    if (wait_ms >= 0 && poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, wait_ms) == 0) {
        close(fd);
        return false; /* still open */
    }
    n = (int)read(fd, &c, 1); /* the device closes the connection */
    close(fd);
    return n == 0;
}

/* Sends bytes and waits for the device to close the connection, as it does on a bad frame. */
static bool send_garbage(uint32_t ep, const void *bytes, size_t len)
{
    return send_frames(ep, bytes, len, -1);
}

static void test_malformed(void)
{
    uint64_t (*rejected)(struct ibv_device *) =
            (uint64_t(*)(struct ibv_device *))dlsym(RTLD_DEFAULT, "emu_wire_rejected_frames");
    uint64_t (*dropped)(struct ibv_device *, int) =
            (uint64_t(*)(struct ibv_device *, int))dlsym(RTLD_DEFAULT, "emu_rx_dropped");
    uint64_t no_qp;
    struct vu_ctx c;
    struct vu_end a, b;
    struct vu_info ia, ib;
    uint8_t junk[128];
    uint8_t hdr[64];
    struct ibv_wc wc;

    VU_CHECK(rejected != NULL, "emu_wire_rejected_frames is exported");
    if (rejected == NULL || vu_open(&c) || vu_end_create(&c, &a, 16, 4, 4, ACCESS_ALL) ||
        vu_end_create(&c, &b, 16, 4, 4, ACCESS_ALL))
        return;
    no_qp = dropped != NULL ? dropped(c.ctx->device, 0) : 0;
    memset(junk, 0xa5, sizeof(junk));
    VU_CHECK(send_garbage(a.qp->qp_num >> 16, junk, sizeof(junk)), "garbage: connection dropped");
    VU_CHECK(rejected(c.ctx->device) == 1, "garbage counted (%lu)",
             (unsigned long)rejected(c.ctx->device));
    /* A well-formed HELLO, then a write to an unknown QPN. */
    memset(hdr, 0, sizeof(hdr));
    memcpy(hdr, "SML5", 4);
    hdr[4] = 4;  /* EMU_WIRE_VERSION */
    hdr[5] = 1;  /* HELLO */
    hdr[11] = 9; /* endpoint 9 */
    {
        uint8_t two[128];

        memcpy(two, hdr, 64);
        memcpy(two + 64, hdr, 64);
        two[64 + 5] = 2;     /* WRITE */
        two[64 + 13] = 0x7f; /* dst QPN 0x??7f.. of nobody */
        two[64 + 14] = 0x7f;
        /* As a NIC drops it: counted; the connection, every QP pair's, stays. */
        VU_CHECK(!send_frames(a.qp->qp_num >> 16, two, sizeof(two), 300),
                 "unknown QPN: the connection stays");
        VU_CHECK(dropped != NULL && dropped(c.ctx->device, 0 /* EMU_DROP_NO_QP */) == no_qp + 1,
                 "unknown QPN: the request is counted as dropped");
    }
    {
        uint8_t two[128];

        /* A masked compare-swap (op 0x14, opmod 0x08: 4 bytes) without its 16 bytes of masks. */
        memcpy(two, hdr, 64);
        memcpy(two + 64, hdr, 64);
        two[64 + 5] = 8; /* ATOMIC */
        two[64 + 43] = 4;
        two[64 + 44] = 0x14;
        two[64 + 45] = 0x08;
        VU_CHECK(send_garbage(a.qp->qp_num >> 16, two, sizeof(two)),
                 "masked atomic without masks: connection dropped");
        /* A write naming an XRC SRQ without being an XRC request. */
        memcpy(two + 64, hdr, 64);
        two[64 + 5] = 2;
        two[64 + 46] = 1;
        VU_CHECK(send_garbage(a.qp->qp_num >> 16, two, sizeof(two)),
                 "XRC SRQ without F_XRC: connection dropped");
    }
    {
        uint8_t three[132];

        /* A DC_CONNECT (version 4) carrying a payload, which it never has. */
        memcpy(three, hdr, 64);
        memcpy(three + 64, hdr, 64);
        three[64 + 5] = 13; /* DC_CONNECT */
        three[64 + 27] = 4; /* payload_len */
        memset(three + 128, 0, 4);
        VU_CHECK(send_garbage(a.qp->qp_num >> 16, three, sizeof(three)),
                 "DC_CONNECT with a payload: connection dropped");
    }
    hdr[4] = 9; /* bad version */
    VU_CHECK(send_garbage(a.qp->qp_num >> 16, hdr, sizeof(hdr)), "bad version: dropped");
    VU_CHECK(rejected(c.ctx->device) == 5, "five malformed frames counted (%lu)",
             (unsigned long)rejected(c.ctx->device));
    /* The device still works. */
    vu_info_of(&c, &a, &ia);
    vu_info_of(&c, &b, &ib);
    VU_CHECK(vu_connect(&a, &ib, ACCESS_ALL, 7) == 0 && vu_connect(&b, &ia, ACCESS_ALL, 7) == 0,
             "connect after garbage");
    memset(a.buf, 0x3c, 4096);
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 4096, &ib, 0, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS &&
                     b.buf[4095] == 0x3c,
             "write after garbage");
    vu_end_destroy(&a);
    vu_end_destroy(&b);
    vu_close(&c);
}

/*
 * Forks a peer process whose QP B (a device of its own) is connected to A,
 * made here with a CQ of cqe entries and a send queue of sq; the child then
 * waits to be killed (stay) or exits at once. Returns the child's pid, with
 * B's address in *ib, or -1 when the set-up failed.
 */
static pid_t peer_fork(struct vu_ctx *c, struct vu_end *a, int cqe, uint32_t sq, bool stay,
                       struct vu_info *ib)
{
    struct vu_info ia;
    int sv[2];
    pid_t pid;
    char ready;

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid = fork();
    if (pid == 0) {
        struct vu_end b;

        close(sv[0]);
        if (vu_open(c) || vu_end_create(c, &b, 16, 4, 4, ACCESS_ALL))
            _exit(2);
        vu_info_of(c, &b, ib);
        if (write(sv[1], ib, sizeof(*ib)) != sizeof(*ib) ||
            read(sv[1], &ia, sizeof(ia)) != sizeof(ia) || vu_connect(&b, &ia, ACCESS_ALL, 7) ||
            write(sv[1], "r", 1) != 1)
            _exit(2);
        if (stay)
            pause(); /* killed by the parent */
        _exit(0);    /* its QP and its connections go with the process */
    }
    close(sv[1]);
    if (vu_open(c) || vu_end_create(c, a, cqe, sq, 4, ACCESS_ALL)) {
        close(sv[0]);
        return -1;
    }
    vu_info_of(c, a, &ia);
    if (read(sv[0], ib, sizeof(*ib)) != sizeof(*ib) ||
        write(sv[0], &ia, sizeof(ia)) != sizeof(ia) || vu_connect(a, ib, ACCESS_ALL, 7) ||
        read(sv[0], &ready, 1) != 1) {
        close(sv[0]);
        return -1;
    }
    close(sv[0]);
    return pid;
}

static void test_peer_killed(void)
{
    int status;
    struct vu_ctx c;
    struct vu_end a;
    struct vu_info ib;
    struct ibv_wc wc;
    int ok = 0, retry = 0, flushed = 0, other = 0;
    long start, elapsed;
    pid_t pid;

    pid = peer_fork(&c, &a, 256, 128, true, &ib);
    VU_CHECK(pid >= 0, "a peer connected");
    if (pid < 0)
        return;
    for (int i = 0; i < 100; i++)
        vu_post(&a, IBV_WR_RDMA_WRITE, (uint64_t)i, 0, 65536, &ib, 0, IBV_SEND_SIGNALED);
    kill(pid, SIGKILL);
    start = now_ms();
    for (int i = 0; i < 100 && vu_wait(a.cq, &wc, 3000) == 1; i++) {
        if (wc.status == IBV_WC_SUCCESS)
            ok++;
        else if (wc.status == IBV_WC_RETRY_EXC_ERR)
            retry++;
        else if (wc.status == IBV_WC_WR_FLUSH_ERR)
            flushed++;
        else
            other++;
    }
    elapsed = now_ms() - start;
    waitpid(pid, &status, 0);
    VU_CHECK(ok + retry + flushed == 100 && other == 0,
             "every WQE completed (%d ok, %d retry-exceeded, %d flushed, %d other)", ok, retry,
             flushed, other);
    VU_CHECK(ok == 100 || retry == 1, "one retry-exceeded completion, the rest flushed");
    VU_CHECK(elapsed < 500 + 1500, "completions within the retry timeout (%ld ms)", elapsed);
    /* Posting on the failed QP flushes at once; nothing hangs. */
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 200, 0, 8, &ib, 0, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 2000) == 1 &&
                     (wc.status == IBV_WC_WR_FLUSH_ERR || wc.status == IBV_WC_RETRY_EXC_ERR),
             "post after the peer died completes in error");
    vu_end_destroy(&a);
    vu_close(&c);
}

/* B connects, then exits; A's write posted afterwards completes with retry-exceeded, late. */
static void test_peer_exited(void)
{
    int status;
    struct vu_ctx c;
    struct vu_end a;
    struct vu_info ib;
    struct ibv_wc wc = {0};
    long start, elapsed;
    pid_t pid;

    pid = peer_fork(&c, &a, 16, 8, false, &ib);
    VU_CHECK(pid >= 0, "a peer connected");
    if (pid < 0)
        return;
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the peer connected and exited");
    usleep(100 * 1000); /* the device has seen the connection close */
    start = now_ms();
    VU_CHECK(vu_post(&a, IBV_WR_RDMA_WRITE, 1, 0, 64, &ib, 0, IBV_SEND_SIGNALED) == 0 &&
                     vu_wait(a.cq, &wc, 3000) == 1,
             "a write posted after the peer exited completes");
    elapsed = now_ms() - start;
    VU_CHECK(wc.status == IBV_WC_RETRY_EXC_ERR, "with retry-exceeded (status %d)", wc.status);
    VU_CHECK(elapsed >= 400 && elapsed < 500 + 1500,
             "once the 500 ms retry timeout has passed, not at once (%ld ms)", elapsed);
    vu_end_destroy(&a);
    vu_close(&c);
}

/*
 * Runs a test that forks in a process of its own, forked before this one
 * opens a device: a process whose device's thread runs cannot fork a child
 * that opens one under ThreadSanitizer. Its checks count there; here, that
 * it passed.
 */
static void in_own_process(void (*test)(void), const char *name)
{
    int status = 0;
    pid_t pid = fork();

    if (pid == 0) {
        int rc;

        test();
        rc = vu_summary(name);
        fflush(stdout);
        _exit(rc);
    }
    VU_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                     WEXITSTATUS(status) == 0,
             "%s passed in its own process (status 0x%x)", name, status);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    in_own_process(test_peer_exited, "test_verbs_wire peer_exited");
    test_peer_killed(); /* forks: before this process opens its device */
    test_malformed();
    return vu_summary("test_verbs_wire");
}
