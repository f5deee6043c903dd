/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_oob.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define EX_OOB_MAGIC          0x44474e58u /* "DGNX" */
#define EX_OOB_VERSION        1u
#define EX_OOB_POLL_MS        200
#define EX_OOB_CONNECT_TRY_MS 30000

static void ex_put32(uint8_t *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, sizeof(v));
}

static void ex_put64(uint8_t *p, uint64_t v)
{
    v = htobe64(v);
    memcpy(p, &v, sizeof(v));
}

static uint32_t ex_get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return be32toh(v);
}

static uint64_t ex_get64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return be64toh(v);
}

/* Waits until fd is readable (or writable); EX_OOB_SIGNAL if a signal was received. */
static int ex_oob_wait(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};

    for (;;) {
        int rc;

        if (ex_signal != 0)
            return EX_OOB_SIGNAL;
        rc = poll(&p, 1, EX_OOB_POLL_MS);
        if (rc > 0)
            return EX_OOB_OK;
        if (rc < 0 && errno != EINTR) {
            EX_ERR("poll on the out-of-band socket: %s", strerror(errno));
            return EX_OOB_ERROR;
        }
    }
}

int ex_oob_server(uint16_t port, int *fd)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof(addr);
    int one = 1;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int cfd;
    int rc;

    if (lfd < 0) {
        EX_ERR("socket: %s", strerror(errno));
        return EX_OOB_ERROR;
    }
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    addr.sin_port = htons(port);
    if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(lfd, 1) != 0) {
        EX_ERR("cannot listen on TCP port %u: %s (choose another with -P)", port, strerror(errno));
        close(lfd);
        return EX_OOB_ERROR;
    }
    if (getsockname(lfd, (struct sockaddr *)&addr, &alen) == 0)
        port = ntohs(addr.sin_port);
    /* Printed whatever the log level: a script that passed -P 0 reads the port here. */
    printf("Server listening on TCP port %u, waiting for the client\n", port);
    fflush(stdout);
    rc = ex_oob_wait(lfd, POLLIN);
    if (rc != EX_OOB_OK) {
        if (rc == EX_OOB_SIGNAL)
            EX_ERR("stopped by signal %d while waiting for the client", (int)ex_signal);
        close(lfd);
        return rc;
    }
    cfd = accept(lfd, NULL, NULL);
    close(lfd);
    if (cfd < 0) {
        EX_ERR("accept: %s", strerror(errno));
        return EX_OOB_ERROR;
    }
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    EX_INFO("client connected on TCP port %u", port);
    *fd = cfd;
    return EX_OOB_OK;
}

int ex_oob_client(const char *ip, uint16_t port, int *fd)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    const struct timespec nap = {.tv_sec = 0, .tv_nsec = 100 * 1000 * 1000};
    uint64_t deadline = ex_now_ns() + (uint64_t)EX_OOB_CONNECT_TRY_MS * 1000000ull;
    int one = 1;

    if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
        EX_ERR("-c %s: not an IPv4 address", ip);
        return EX_OOB_ERROR;
    }
    for (;;) {
        int s = socket(AF_INET, SOCK_STREAM, 0);

        if (s < 0) {
            EX_ERR("socket: %s", strerror(errno));
            return EX_OOB_ERROR;
        }
        if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
            setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            EX_INFO("connected to the server %s:%u", ip, port);
            *fd = s;
            return EX_OOB_OK;
        }
        close(s);
        if ((errno != ECONNREFUSED && errno != EINTR) || ex_now_ns() > deadline) {
            EX_ERR("cannot connect to the server %s:%u: %s", ip, port, strerror(errno));
            return EX_OOB_ERROR;
        }
        if (ex_signal != 0) {
            EX_ERR("stopped by signal %d while connecting", (int)ex_signal);
            return EX_OOB_SIGNAL;
        }
        nanosleep(&nap, NULL);
    }
}

int ex_oob_send(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            EX_ERR("the peer's out-of-band connection is gone: %s",
                   n < 0 ? strerror(errno) : "nothing sent");
            return n < 0 && (errno == EPIPE || errno == ECONNRESET) ? EX_OOB_CLOSED : EX_OOB_ERROR;
        }
        p += n;
        len -= (size_t)n;
    }
    return EX_OOB_OK;
}

int ex_oob_recv(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len > 0) {
        int rc = ex_oob_wait(fd, POLLIN);
        ssize_t n;

        if (rc != EX_OOB_OK)
            return rc;
        n = recv(fd, p, len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return EX_OOB_CLOSED;
        if (n < 0) {
            EX_ERR("recv on the out-of-band socket: %s", strerror(errno));
            return EX_OOB_ERROR;
        }
        p += n;
        len -= (size_t)n;
    }
    return EX_OOB_OK;
}

/* Logs why a receive of `what` failed. */
static int ex_oob_recv_failed(int rc, const char *what)
{
    if (rc == EX_OOB_CLOSED)
        EX_ERR("the peer closed the connection before sending %s", what);
    else if (rc == EX_OOB_SIGNAL)
        EX_ERR("stopped by signal %d while waiting for %s", (int)ex_signal, what);
    return rc;
}

int ex_oob_hello(int fd, const struct ex_info *ex, uint32_t iterations)
{
    uint8_t mine[16];
    uint8_t peer[16];
    uint32_t peer_id, peer_iters;
    int rc;

    ex_put32(mine, EX_OOB_MAGIC);
    ex_put32(mine + 4, EX_OOB_VERSION);
    ex_put32(mine + 8, ex->id);
    ex_put32(mine + 12, iterations);
    rc = ex_oob_send(fd, mine, sizeof(mine));
    if (rc != EX_OOB_OK)
        return rc;
    rc = ex_oob_recv(fd, peer, sizeof(peer));
    if (rc != EX_OOB_OK)
        return ex_oob_recv_failed(rc, "its parameters");
    if (ex_get32(peer) != EX_OOB_MAGIC || ex_get32(peer + 4) != EX_OOB_VERSION) {
        EX_ERR("the peer is not a GPUNetIO example of this version (magic 0x%08x, version %u)",
               ex_get32(peer), ex_get32(peer + 4));
        return EX_OOB_ERROR;
    }
    peer_id = ex_get32(peer + 8);
    peer_iters = ex_get32(peer + 12);
    if (peer_id != ex->id) {
        EX_ERR("the peer runs another example (id %u, this is %s, id %u): run the same example on "
               "both sides",
               peer_id, ex->name, ex->id);
        return EX_OOB_ERROR;
    }
    if (peer_iters != iterations) {
        EX_ERR("Iterations mismatch: this side runs -i %u, the peer -i %u; client and server must "
               "use the same number of iterations",
               iterations, peer_iters);
        return EX_OOB_ERROR;
    }
    return EX_OOB_OK;
}

int ex_oob_agree(int fd, const char *opt, uint32_t mine)
{
    uint8_t out[4];
    uint8_t in[4];
    uint32_t peer;
    int rc;

    ex_put32(out, mine);
    rc = ex_oob_send(fd, out, sizeof(out));
    if (rc != EX_OOB_OK)
        return rc;
    rc = ex_oob_recv(fd, in, sizeof(in));
    if (rc != EX_OOB_OK)
        return ex_oob_recv_failed(rc, "its options");
    peer = ex_get32(in);
    if (peer != mine) {
        EX_ERR("%s mismatch: this side runs %s %u, the peer %s %u; client and server must use the "
               "same %s",
               opt, opt, mine, opt, peer, opt);
        return EX_OOB_ERROR;
    }
    return EX_OOB_OK;
}

int ex_oob_exchange_qp(int fd, const struct ex_qp_info *mine, struct ex_qp_info *peer)
{
    uint8_t out[24];
    uint8_t in[24];
    int rc;

    ex_put32(out, mine->qpn);
    ex_put32(out + 4, mine->lid);
    memcpy(out + 8, mine->gid, 16);
    rc = ex_oob_send(fd, out, sizeof(out));
    if (rc != EX_OOB_OK)
        return rc;
    rc = ex_oob_recv(fd, in, sizeof(in));
    if (rc != EX_OOB_OK)
        return ex_oob_recv_failed(rc, "its QP number, LID and GID");
    peer->qpn = ex_get32(in);
    peer->lid = ex_get32(in + 4);
    memcpy(peer->gid, in + 8, 16);
    return EX_OOB_OK;
}

int ex_oob_send_bufs(int fd, const struct ex_remote_buf *bufs, uint32_t count)
{
    uint8_t hdr[4];
    int rc;

    ex_put32(hdr, count);
    rc = ex_oob_send(fd, hdr, sizeof(hdr));
    for (uint32_t i = 0; i < count && rc == EX_OOB_OK; i++) {
        uint8_t d[20];

        ex_put64(d, bufs[i].addr);
        ex_put64(d + 8, bufs[i].len);
        ex_put32(d + 16, bufs[i].rkey);
        rc = ex_oob_send(fd, d, sizeof(d));
    }
    return rc;
}

int ex_oob_recv_bufs(int fd, struct ex_remote_buf *bufs, uint32_t count)
{
    uint8_t hdr[4];
    int rc = ex_oob_recv(fd, hdr, sizeof(hdr));

    if (rc != EX_OOB_OK)
        return ex_oob_recv_failed(rc, "its buffer addresses and keys");
    if (ex_get32(hdr) != count) {
        EX_ERR("the peer describes %u buffers, %u expected", ex_get32(hdr), count);
        return EX_OOB_ERROR;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint8_t d[20];

        rc = ex_oob_recv(fd, d, sizeof(d));
        if (rc != EX_OOB_OK)
            return ex_oob_recv_failed(rc, "its buffer addresses and keys");
        bufs[i].addr = ex_get64(d);
        bufs[i].len = ex_get64(d + 8);
        bufs[i].rkey = ex_get32(d + 16);
    }
    return EX_OOB_OK;
}

int ex_oob_send_code(int fd, uint32_t code)
{
    uint8_t b[4];

    ex_put32(b, code);
    return ex_oob_send(fd, b, sizeof(b));
}

int ex_oob_recv_code(int fd, uint32_t *code)
{
    uint8_t b[4];
    int rc = ex_oob_recv(fd, b, sizeof(b));

    if (rc == EX_OOB_OK)
        *code = ex_get32(b);
    return rc;
}

int ex_oob_barrier(int fd)
{
    uint32_t code = 0;
    int rc = ex_oob_send_code(fd, EX_OOB_CODE_READY);

    if (rc != EX_OOB_OK)
        return rc;
    rc = ex_oob_recv_code(fd, &code);
    if (rc != EX_OOB_OK)
        return ex_oob_recv_failed(rc, "its ready message");
    if (code != EX_OOB_CODE_READY) {
        EX_ERR("unexpected message 0x%08x from the peer (ready expected)", code);
        return EX_OOB_ERROR;
    }
    return EX_OOB_OK;
}

static int ex_oob_watched = -1;

void ex_oob_watch(int fd)
{
    ex_oob_watched = fd;
}

bool ex_oob_peer_gone(void)
{
    char byte;
    ssize_t n;

    if (ex_oob_watched < 0)
        return false;
    n = recv(ex_oob_watched, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

bool ex_oob_peer_gone_within(int ms)
{
    struct pollfd p = {.fd = ex_oob_watched, .events = POLLIN | POLLRDHUP};

    if (ex_oob_watched < 0)
        return false;
    /* Data from a live peer wakes the poll too: the peek says which it was. */
    (void)poll(&p, 1, ms);
    return ex_oob_peer_gone();
}
