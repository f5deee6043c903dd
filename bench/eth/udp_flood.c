/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of the Ethernet echo: a plain UDP socket that keeps up to a
 * window of datagrams in flight to an echo server and checks every answer
 * byte for byte. Each payload carries its sequence number in its first 8
 * bytes (when it has room) and a pattern derived from it in the rest, so a
 * wrong, truncated or stale answer is counted as bad. Answers come back in
 * order (one flow, one queue), so an answer to datagram s means that those
 * before s still missing are lost; when nothing comes back for the loss
 * timeout, everything in flight is lost and the window opens again.
 *   softmlx5_udp_flood -a ADDR -u PORT [-s SIZE[,SIZE...]] [-w WINDOW]
 *                      [-n COUNT | -t SECONDS] [-l LOSS_MS]
 * SIZEs are UDP payload lengths, used in turn (default 18: a 64-byte frame).
 * Prints
 *   udp_flood: sent S echoed E lost L bad B in T s: R pps, G Gbps of payload
 * and exits 1 when any answer was bad, 3 when nothing came back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOD_MAX_SIZES   16
#define FLOOD_MAX_PAYLOAD 65507
#define FLOOD_BATCH       32

struct flood {
    uint32_t sizes[FLOOD_MAX_SIZES];
    int nsizes;
    uint64_t window, count, loss_ns, seconds;
    uint64_t sent, echoed, lost, bad, payload;
};

static uint64_t flood_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t flood_size(const struct flood *f, uint64_t seq)
{
    return f->sizes[seq % (uint64_t)f->nsizes];
}

static uint8_t flood_byte(uint64_t seq, uint32_t i)
{
    return (uint8_t)(seq * 131u + i * 7u + 1u);
}

static void flood_fill(uint8_t *p, uint64_t seq, uint32_t size)
{
    for (uint32_t i = 0; i < size; i++)
        p[i] = i < 8 && size >= 8 ? (uint8_t)(seq >> (8 * i)) : flood_byte(seq, i);
}

/*
 * The sequence number an answer of len bytes names: its first 8 bytes, or, too short to carry
 * one, the next one expected (answers come back in order: one flow, one queue).
 */
static uint64_t flood_seq(const uint8_t *p, uint32_t len, uint64_t next)
{
    uint64_t seq = 0;

    if (len < 8)
        return next;
    for (int i = 0; i < 8; i++)
        seq |= (uint64_t)p[i] << (8 * i);
    return seq;
}

/* Whether p (len bytes) is exactly what datagram seq carried. */
static int flood_intact(const struct flood *f, const uint8_t *p, uint32_t len, uint64_t seq)
{
    if (flood_size(f, seq) != len)
        return 0;
    for (uint32_t i = len >= 8 ? 8 : 0; i < len; i++)
        if (p[i] != flood_byte(seq, i))
            return 0;
    return 1;
}

static int flood_sizes(struct flood *f, char *list)
{
    for (char *s = strtok(list, ","); s != NULL; s = strtok(NULL, ",")) {
        long v = strtol(s, NULL, 10);

        if (f->nsizes == FLOOD_MAX_SIZES || v < 1 || v > FLOOD_MAX_PAYLOAD)
            return -1;
        f->sizes[f->nsizes++] = (uint32_t)v;
    }
    return f->nsizes > 0 ? 0 : -1;
}

/*
 * Answers come back in order, so an answer to seq means every datagram before it that has not
 * come back is lost; one that comes back after all (later than the loss timeout) is moved back
 * from lost to echoed.
 */
static void flood_answer(struct flood *f, const uint8_t *p, uint32_t len, uint64_t *next)
{
    uint64_t seq = flood_seq(p, len, *next);

    if (seq >= f->sent || !flood_intact(f, p, len, seq)) {
        f->bad++;
        return;
    }
    f->echoed++;
    f->payload += len;
    if (seq >= *next) {
        f->lost += seq - *next;
        *next = seq + 1;
    } else if (f->lost > 0) {
        f->lost--; /* late */
    }
}

static void flood_run(struct flood *f, int fd)
{
    static uint8_t buf[FLOOD_BATCH][FLOOD_MAX_PAYLOAD];
    uint64_t start = flood_now_ns(), last_answer = start, next = 0;

    for (;;) {
        uint64_t now = flood_now_ns();
        struct pollfd p = {.fd = fd, .events = POLLIN};

        if (f->count > 0 ? f->sent >= f->count && next == f->sent
                         : now - start >= f->seconds * 1000000000ull)
            break;
        /* Fill the window. */
        while (f->sent - next < f->window && (f->count == 0 || f->sent < f->count)) {
            uint32_t size = flood_size(f, f->sent);

            flood_fill(buf[0], f->sent, size);
            if (send(fd, buf[0], size, MSG_DONTWAIT) < 0)
                break; /* the socket's buffer is full: answers first */
            f->sent++;
        }
        if (poll(&p, 1, 1) > 0) {
            struct mmsghdr m[FLOOD_BATCH];
            struct iovec iov[FLOOD_BATCH];
            int n;

            for (int i = 0; i < FLOOD_BATCH; i++) {
                iov[i] = (struct iovec){.iov_base = buf[i], .iov_len = FLOOD_MAX_PAYLOAD};
                m[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
            }
            n = recvmmsg(fd, m, FLOOD_BATCH, MSG_DONTWAIT, NULL);
            for (int i = 0; i < n; i++)
                flood_answer(f, buf[i], m[i].msg_len, &next);
            if (n > 0)
                last_answer = flood_now_ns();
        }
        /* Nothing back for the loss timeout: what is in flight is lost. */
        if (next < f->sent && flood_now_ns() - last_answer >= f->loss_ns) {
            f->lost += f->sent - next;
            next = f->sent;
            last_answer = flood_now_ns();
        }
    }
    f->seconds = flood_now_ns() - start; /* now the elapsed ns */
}

int main(int argc, char **argv)
{
    struct flood f = {.window = 32, .loss_ns = 200000000ull, .seconds = 5};
    struct sockaddr_in to = {.sin_family = AF_INET};
    char default_sizes[] = "18";
    char *sizes = default_sizes;
    const char *addr = NULL;
    double secs, pps;
    long port = -1;
    int opt, fd, rcvbuf = 32 << 20;

    while ((opt = getopt(argc, argv, "a:u:s:w:n:t:l:")) != -1) {
        switch (opt) {
        case 'a':
            addr = optarg;
            break;
        case 'u':
            port = strtol(optarg, NULL, 10);
            break;
        case 's':
            sizes = optarg;
            break;
        case 'w':
            f.window = strtoull(optarg, NULL, 10);
            break;
        case 'n':
            f.count = strtoull(optarg, NULL, 10);
            break;
        case 't':
            f.seconds = strtoull(optarg, NULL, 10);
            break;
        case 'l':
            f.loss_ns = strtoull(optarg, NULL, 10) * 1000000ull;
            break;
        default:
            addr = NULL;
            optind = argc;
            break;
        }
    }
    if (addr == NULL || inet_pton(AF_INET, addr, &to.sin_addr) != 1 || port <= 0 || port > 65535 ||
        f.window == 0 || flood_sizes(&f, sizes) != 0) {
        fprintf(stderr,
                "usage: %s -a IPV4 -u PORT [-s SIZE[,SIZE...]] [-w WINDOW] [-n COUNT | -t "
                "SECONDS] [-l LOSS_MS]\n",
                argv[0]);
        return 2;
    }
    to.sin_port = htons((uint16_t)port);
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    /* Room for a whole window of answers (beyond rmem_max where root may). */
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0) {
        fprintf(stderr, "udp_flood: cannot reach %s:%ld: %s\n", addr, port, strerror(errno));
        return 2;
    }
    flood_run(&f, fd);
    secs = (double)f.seconds / 1e9;
    pps = secs > 0 ? (double)f.echoed / secs : 0;
    printf("udp_flood: sent %llu echoed %llu lost %llu bad %llu in %.3f s: %.0f pps, %.3f Gbps of "
           "payload\n",
           (unsigned long long)f.sent, (unsigned long long)f.echoed, (unsigned long long)f.lost,
           (unsigned long long)f.bad, secs, pps, secs > 0 ? (double)f.payload * 8 / secs / 1e9 : 0);
    close(fd);
    return f.bad > 0 ? 1 : f.echoed == 0 ? 3 : 0;
}
