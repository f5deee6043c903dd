/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork() after the device is open: the parent keeps its device and QP; the
 * child cannot use them (as with rdma-core) but opens the device anew, gets
 * an endpoint and QP numbers of its own, and the two processes exchange RDMA
 * writes in both directions.
 */
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_util.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

static int exchange(int fd, struct vu_info *mine, struct vu_info *peer)
{
    return write(fd, mine, sizeof(*mine)) == sizeof(*mine) &&
                           read(fd, peer, sizeof(*peer)) == sizeof(*peer)
                   ? 0
                   : -1;
}

/* Writes `tag` bytes into the peer's buffer at `roff`, then waits until the peer's bytes arrive. */
static void ping(struct vu_end *e, const struct vu_info *peer, int fd, uint8_t tag, uint32_t roff,
                 uint32_t loff)
{
    struct ibv_wc wc;
    char token = 't';

    memset(e->buf + loff, tag, 4096);
    VU_CHECK(vu_post(e, IBV_WR_RDMA_WRITE, tag, loff, 4096, peer, roff, IBV_SEND_SIGNALED) == 0,
             "post write");
    VU_CHECK(vu_wait(e->cq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS,
             "write completion (status %d)", wc.status);
    /* Both writes done before either side looks. */
    VU_CHECK(write(fd, &token, 1) == 1 && read(fd, &token, 1) == 1, "token");
}

int main(void)
{
    struct vu_ctx c;
    struct vu_end e;
    struct vu_info mine, peer;
    int sv[2], status = 0;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || vu_open(&c) != 0 ||
        vu_end_create(&c, &e, 16, 16, 16, ACCESS) != 0) {
        fprintf(stderr, "FAIL: cannot open the device in the parent\n");
        return 1;
    }
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        /* The parent's objects are not the child's: open everything anew. */
        close(sv[0]);
        if (vu_open(&c) != 0 || vu_end_create(&c, &e, 16, 16, 16, ACCESS) != 0) {
            fprintf(stderr, "FAIL: cannot open the device in the child\n");
            _exit(1);
        }
    } else {
        close(sv[1]);
    }
    int fd = sv[pid == 0];

    vu_info_of(&c, &e, &mine);
    VU_CHECK(exchange(fd, &mine, &peer) == 0, "exchange");
    VU_CHECK(peer.qpn != mine.qpn, "parent and child QPNs differ (0x%x)", mine.qpn);
    VU_CHECK(vu_connect(&e, &peer, ACCESS, 7) == 0, "connect");
    ping(&e, &peer, fd, pid == 0 ? 0xc1 : 0xa7, 0, 8192);
    for (int i = 0; i < 4096; i++)
        if (e.buf[i] != (pid == 0 ? 0xa7 : 0xc1)) {
            VU_CHECK(0, "byte %d is 0x%x", i, e.buf[i]);
            break;
        }
    vu_end_destroy(&e);
    vu_close(&c);
    if (pid == 0)
        _exit(vu_failed == 0 ? 0 : 1);
    waitpid(pid, &status, 0);
    VU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed");
    return vu_summary("fork_after_open");
}
