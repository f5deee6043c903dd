/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DevX data path with rings in host memory: CQs and RC QPs made with PRM
 * commands (CQE ring, work queue and doorbell records in a DevX umem),
 * RST->INIT->RTR->RTS by PRM commands, WQEs written by hand (RDMA write and
 * read, inline write, fetch-and-add and compare-and-swap on big-endian
 * values, send and write with immediate into receive WQEs posted by hand),
 * doorbells on a DevX UAR, CQEs parsed from the ring; SQ, RQ and CQ
 * wrap-around with small rings.
 *   test_devx_datapath local   two QPs in one process
 *   test_devx_datapath fork    two processes (the child owns the responder)
 * With SOFTMLX5_NO_DBR=1 in the environment the requester's send queue is
 * made in no-DBR mode: only the UAR doorbell publishes its WQEs.
 */
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devx_dp.h"

#define LOG_CQ 2 /* 4 CQEs */
#define LOG_SQ 3 /* 8 basic blocks */
#define LOG_RQ 2 /* 4 receive WQEs */

static bool no_dbr_mode(void)
{
    const char *v = getenv("SOFTMLX5_NO_DBR");

    return v != NULL && strcmp(v, "1") == 0;
}

static int run_local(void)
{
    struct dp_dev dev;
    struct dp_qp a, b;
    struct dp_info ia, ib;
    struct dp_peer peer = {.local = &b, .sock = -1};

    dp_open(&dev);
    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, no_dbr_mode()) != 0 ||
        dp_qp_create(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return 1;
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DT_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0);
    dp_suite(&a, &peer, &ib);
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return dp_summary(no_dbr_mode() ? "test_devx_datapath local, no-DBR"
                                    : "test_devx_datapath local");
}

static int xfer(int fd, void *p, size_t len, bool wr)
{
    return (wr ? write(fd, p, len) : read(fd, p, len)) == (ssize_t)len ? 0 : -1;
}

/* The responder process: its QP, then commands from the requester until it quits. */
static int run_child(int sock)
{
    struct dp_dev dev;
    struct dp_qp b;
    struct dp_info ia, ib;
    int rc;

    dp_open(&dev);
    if (dp_qp_create(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return 2;
    dp_info_of(&b, &ib);
    if (xfer(sock, &ib, sizeof(ib), true) != 0 || xfer(sock, &ia, sizeof(ia), false) != 0)
        return 2;
    if (dp_qp_connect(&b, &ia) != 0 || xfer(sock, "c", 1, true) != 0)
        return 2;
    rc = dp_peer_serve(&b, sock);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return rc == 0 ? 0 : 2;
}

static int run_fork(void)
{
    struct dp_dev dev;
    struct dp_qp a;
    struct dp_info ia, ib;
    struct dp_peer peer = {.local = NULL};
    struct dp_cmd quit = {.op = DP_OP_QUIT};
    struct dp_reply bye;
    int sv[2], status = 0;
    char ready;
    pid_t pid;

    DT_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    pid = fork(); /* before any device is opened: each process has its own */
    DT_CHECK(pid >= 0);
    if (pid == 0) {
        close(sv[0]);
        _exit(run_child(sv[1]));
    }
    close(sv[1]);
    peer.sock = sv[0];
    dp_open(&dev);
    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, no_dbr_mode()) != 0)
        return 1;
    dp_info_of(&a, &ia);
    DT_CHECK(xfer(sv[0], &ib, sizeof(ib), false) == 0 && xfer(sv[0], &ia, sizeof(ia), true) == 0);
    DT_CHECK(dp_qp_connect(&a, &ib) == 0);
    DT_CHECK(xfer(sv[0], &ready, 1, false) == 0 && ready == 'c');
    dp_suite(&a, &peer, &ib);
    DP_CHECK(xfer(sv[0], &quit, sizeof(quit), true) == 0 &&
                     xfer(sv[0], &bye, sizeof(bye), false) == 0,
             "the child acknowledges the end");
    waitpid(pid, &status, 0);
    DP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit status 0x%x", status);
    dp_qp_destroy(&a);
    dp_close(&dev);
    return dp_summary(no_dbr_mode() ? "test_devx_datapath fork, no-DBR"
                                    : "test_devx_datapath fork");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return run_fork();
    return run_local();
}
