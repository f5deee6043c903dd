/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The baseline of the Ethernet echo benchmark: a CPU program that answers
 * every UDP datagram to a port on an interface through a packet socket, the
 * way an ordinary program would without a NIC queue of its own. It reads
 * frames in batches (recvmmsg), swaps each into its answer
 * (examples/common/ex_udp_swap.h, the echo example's own function) and sends
 * the batch back (sendmmsg). Frames it sends itself are not read back.
 *   softmlx5_pkt_echo -i IFNAME -u PORT [-b RCVBUF_BYTES]
 * Prints "pkt_echo: ready on IFNAME, UDP port PORT" once it listens, runs
 * until SIGINT or SIGTERM, then prints the echo example's totals line
 *   Total: RX <n> packets <bytes> bytes, TX <n> packets <bytes> bytes, dropped <n>
 * where RX counts the datagrams to PORT, and dropped the frames the kernel
 * dropped because the socket's receive buffer (-b, default the system's) was
 * full (PACKET_STATISTICS). Frames that are not datagrams to PORT are counted
 * on a line of their own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ex_udp_swap.h"

#define ECHO_BATCH     32
#define ECHO_FRAME_MAX 9216

static volatile sig_atomic_t echo_stop;

static void echo_on_signal(int sig)
{
    (void)sig;
    echo_stop = 1;
}

static int echo_open(const char *ifname)
{
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
    int one = 1, fd;

    sll.sll_ifindex = (int)if_nametoindex(ifname);
    if (sll.sll_ifindex == 0) {
        fprintf(stderr, "pkt_echo: no interface %s: %s\n", ifname, strerror(errno));
        return -1;
    }
    fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (fd < 0) {
        fprintf(stderr, "pkt_echo: packet socket: %s (needs CAP_NET_RAW)\n", strerror(errno));
        return -1;
    }
    if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) != 0 ||
        bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
        fprintf(stderr, "pkt_echo: binding to %s: %s\n", ifname, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Frames the kernel dropped for want of room in the socket's receive buffer. */
static unsigned long long echo_drops(int fd)
{
    struct tpacket_stats st;
    socklen_t len = sizeof(st);

    if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0)
        return 0;
    return st.tp_drops;
}

int main(int argc, char **argv)
{
    static uint8_t frames[ECHO_BATCH][ECHO_FRAME_MAX];
    struct mmsghdr in[ECHO_BATCH], out[ECHO_BATCH];
    struct iovec iov[ECHO_BATCH], tx_iov[ECHO_BATCH];
    unsigned long long rx = 0, rx_bytes = 0, tx = 0, tx_bytes = 0, other = 0, drops;
    const char *ifname = NULL;
    long port = -1, rcvbuf = 0;
    int opt, fd;

    while ((opt = getopt(argc, argv, "i:u:b:")) != -1) {
        if (opt == 'i')
            ifname = optarg;
        else if (opt == 'u')
            port = strtol(optarg, NULL, 10);
        else if (opt == 'b')
            rcvbuf = strtol(optarg, NULL, 10);
        else
            break;
    }
    if (ifname == NULL || port <= 0 || port > 65535 || rcvbuf < 0 || rcvbuf > (1l << 30)) {
        fprintf(stderr, "usage: %s -i IFNAME -u PORT [-b RCVBUF_BYTES]\n", argv[0]);
        return 2;
    }
    fd = echo_open(ifname);
    if (fd < 0)
        return 1;
    if (rcvbuf > 0) {
        int v = (int)rcvbuf;

        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    }
    echo_drops(fd); /* reading the statistics resets them: count from here */
    signal(SIGINT, echo_on_signal);
    signal(SIGTERM, echo_on_signal);
    for (int i = 0; i < ECHO_BATCH; i++) {
        iov[i] = (struct iovec){.iov_base = frames[i], .iov_len = ECHO_FRAME_MAX};
        in[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
    }
    printf("pkt_echo: ready on %s, UDP port %ld\n", ifname, port);
    fflush(stdout);
    while (!echo_stop) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n, m = 0;

        if (poll(&p, 1, 100) <= 0)
            continue;
        n = recvmmsg(fd, in, ECHO_BATCH, MSG_DONTWAIT, NULL);
        if (n < 0)
            continue;
        for (int i = 0; i < n; i++) {
            uint32_t len = in[i].msg_len;

            if (ex_udp_swap(frames[i], len, (uint16_t)port) == 0) {
                other++;
                continue;
            }
            rx++;
            rx_bytes += len;
            tx_iov[m] = (struct iovec){.iov_base = frames[i], .iov_len = len};
            out[m] = (struct mmsghdr){.msg_hdr = {.msg_iov = &tx_iov[m], .msg_iovlen = 1}};
            m++;
        }
        for (int sent = 0; sent < m;) {
            int k = sendmmsg(fd, out + sent, (unsigned int)(m - sent), 0);

            if (k <= 0)
                break; /* the interface's queue is full: those answers are lost, as on a wire */
            for (int i = sent; i < sent + k; i++)
                tx_bytes += out[i].msg_hdr.msg_iov->iov_len;
            tx += (unsigned long long)k;
            sent += k;
        }
    }
    drops = echo_drops(fd);
    if (other > 0)
        printf("pkt_echo: %llu frames that are not UDP datagrams to port %ld ignored\n", other,
               port);
    printf("Total: RX %llu packets %llu bytes, TX %llu packets %llu bytes, dropped %llu\n", rx,
           rx_bytes, tx, tx_bytes, drops);
    close(fd);
    return 0;
}
