/* SPDX-License-Identifier: BSD-3-Clause */
#include "tcp_baseline.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rc_pair.h"
#include "watchdog.h"

/* A connected loopback TCP pair: *server_fd for the child, *client_fd for the parent. */
static int tcp_pair(int *server_fd, int *client_fd)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(addr);
    int one = 1;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);

    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 1) ||
        getsockname(lfd, (struct sockaddr *)&addr, &len))
        return -1;
    *client_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (*client_fd < 0 || connect(*client_fd, (struct sockaddr *)&addr, sizeof(addr)))
        return -1;
    *server_fd = accept(lfd, NULL, NULL);
    close(lfd);
    if (*server_fd < 0)
        return -1;
    setsockopt(*server_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(*client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return 0;
}

double tcp_stream_bandwidth(size_t chunk, size_t total)
{
    int sfd, cfd;
    char *buf = malloc(chunk);
    double t0, t1;
    char ack = 0;
    int ok = 1;
    pid_t pid;

    if (buf == NULL || tcp_pair(&sfd, &cfd))
        return 0;
    memset(buf, 0x5a, chunk);
    pid = bench_fork();
    if (pid == 0) {
        size_t got = 0;

        close(cfd);
        while (got < total) {
            ssize_t n = read(sfd, buf, chunk);

            if (n <= 0)
                _exit(1);
            got += (size_t)n;
            bench_tick();
        }
        _exit(bench_full_io(sfd, &ack, 1, 1) ? 1 : 0);
    }
    close(sfd);
    t0 = bench_now_sec();
    for (size_t sent = 0; ok && sent < total; sent += chunk) {
        ok = bench_full_io(cfd, buf, chunk, 1) == 0;
        bench_tick();
    }
    ok = ok && bench_full_io(cfd, &ack, 1, 0) == 0;
    t1 = bench_now_sec();
    close(cfd);
    ok = bench_wait(pid) == 0 && ok;
    free(buf);
    return ok ? (double)total / (t1 - t0) : 0;
}

double tcp_pingpong_half_rtt(size_t size, int iterations)
{
    char buf[4096];
    int sfd, cfd;
    double t0, t1;
    int ok = 1;
    pid_t pid;

    if (size > sizeof(buf) || tcp_pair(&sfd, &cfd))
        return 0;
    memset(buf, 1, size);
    pid = bench_fork();
    if (pid == 0) {
        close(cfd);
        for (int i = 0; i < iterations; i++) {
            if (bench_full_io(sfd, buf, size, 0) || bench_full_io(sfd, buf, size, 1))
                _exit(1);
            bench_tick();
        }
        _exit(0);
    }
    close(sfd);
    t0 = bench_now_sec();
    for (int i = 0; ok && i < iterations; i++) {
        ok = bench_full_io(cfd, buf, size, 1) == 0 && bench_full_io(cfd, buf, size, 0) == 0;
        bench_tick();
    }
    t1 = bench_now_sec();
    close(cfd);
    ok = bench_wait(pid) == 0 && ok;
    return ok ? (t1 - t0) / (2.0 * iterations) : 0;
}
