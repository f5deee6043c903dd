/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet port: device 0's port 1 attached to a Linux interface
 * (SOFTMLX5_ETH=IFNAME). The cable is a packet socket (AF_PACKET, SOCK_RAW,
 * ETH_P_ALL, PACKET_IGNORE_OUTGOING, non-blocking) bound to the interface
 * and watched by the device's epoll set.
 *
 * Receive: frames are read in batches (recvmmsg), steered (nic/eth_steer.c:
 * rules, TIR, RQ), placed into the next receive WQE's buffer of their RQ
 * (host memory by the kernel-checked copy, GPU memory in one batched copy
 * per batch of frames) and completed with a receive CQE (byte count, WQE
 * counter, L2/L3/L4 ok bits after the IPv4 header and TCP/UDP checksums were
 * checked, header types, RSS hash, timestamp) once the data is in place.
 * A frame with no rule, a drop rule, an RQ not ready, no receive WQE
 * (out_of_buffer), larger than the MTU or the WQE's buffer, or a refused
 * key is dropped and counted.
 *
 * Send: when an SQ's doorbell moves (UAR watcher), its WQEs (control,
 * Ethernet segment with 0 or more inline header bytes and checksum flags,
 * data or inline data segments) become frames, gathered in one batch (GPU
 * memory in one batched copy), their IPv4 header and TCP/UDP checksums
 * computed where asked, and sent with sendmmsg; a send CQE follows where the
 * WQE asked for one. A full socket stops the SQ at the first unsent WQE
 * until the socket is writable again (EPOLLOUT): nothing blocks the loop. A
 * frame larger than the MTU (plus its Ethernet header and a VLAN tag), a bad
 * key or opcode completes with an error CQE and moves the SQ to ERR.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/eth.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_eth.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define ETH_BATCH       32  /* frames per recvmmsg / sendmmsg */
#define ETH_RX_TURNS    8   /* batches read per readable event */
#define ETH_TX_BUDGET   256 /* WQEs one SQ executes per turn of the loop */
#define ETH_HDR         14
#define ETH_VLAN        4
#define ETH_AHEAD_BBS   256 /* basic blocks (SQ) or WQEs (RQ) of a GPU ring read at once */
#define ETH_OPCODE_SEND 0x0a
#define ETH_OPCODE_NOP  0x00

/* CQE fields of an Ethernet receive (byte 28: hds_ip_ext, byte 29: l4/l3 header types). */
#define ETH_CQE_L2_OK      0x01
#define ETH_CQE_L3_OK      0x02
#define ETH_CQE_L4_OK      0x04
#define ETH_CQE_L4_TCP     1
#define ETH_CQE_L4_UDP     2
#define ETH_CQE_L3_IPV6    1
#define ETH_CQE_L3_IPV4    2
#define ETH_CQE_RSS_OFFSET 12 /* rss_hash_result, big-endian */

struct engine_eth_port {
    int fd;
    int ifindex;
    uint32_t mtu;
    uint32_t slot; /* bytes of one frame buffer */
    bool want_out; /* EPOLLOUT asked for: an SQ waits for room */
    bool warned_send;
    uint8_t *rx_buf;
    struct mmsghdr rx_msg[ETH_BATCH];
    struct iovec rx_iov[ETH_BATCH];
    uint8_t *tx_buf;
    struct mmsghdr tx_msg[ETH_BATCH];
    struct iovec tx_iov[ETH_BATCH];
};

/* ------------------------------------------------------------------ checksums */

/*
 * A CQE's timestamp in the real-time format of a ConnectX whose clock runs
 * in real-time mode (what DOCA's receive reads): seconds in bits 63:32,
 * nanoseconds in bits 31:0.
 */
static uint64_t eth_cqe_time(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec << 32 | (uint64_t)ts.tv_nsec;
}
static uint32_t eth_sum(const uint8_t *p, uint32_t len, uint32_t sum)
{
    for (; len > 1; p += 2, len -= 2)
        sum += (uint32_t)(p[0] << 8 | p[1]);
    if (len == 1)
        sum += (uint32_t)(p[0] << 8);
    return sum;
}

static uint16_t eth_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

/* The TCP or UDP checksum of an IPv4 frame over its L4 bytes, with the pseudo header. */
static uint16_t eth_l4_sum(const uint8_t *f, const struct emu_eth_pkt *p, uint32_t l4_len)
{
    uint32_t sum = eth_sum(f + p->l3_off + 12, 8, 0);

    sum += f[p->l3_off + 9];
    sum += l4_len;
    return eth_fold(eth_sum(f + p->l4_off, l4_len, sum));
}

/* The L4 bytes an IPv4 header announces, bounded by the frame; 0 when inconsistent. */
static uint32_t eth_l4_len(const uint8_t *f, uint32_t len, const struct emu_eth_pkt *p)
{
    uint32_t total = (uint32_t)(f[p->l3_off + 2] << 8 | f[p->l3_off + 3]);

    if (total < p->l3_len || p->l3_off + total > len)
        return 0;
    return total - p->l3_len;
}

/* Checks a received frame: the CQE's hds_ip_ext and header-type bytes. */
static void eth_rx_csum(const uint8_t *f, uint32_t len, const struct emu_eth_pkt *p, uint8_t *ok,
                        uint8_t *types)
{
    uint32_t l4_len;

    *ok = ETH_CQE_L2_OK;
    *types = 0;
    if (p->ipv6) {
        *types = ETH_CQE_L3_IPV6 << 2;
        return;
    }
    if (!p->ipv4)
        return;
    *types = ETH_CQE_L3_IPV4 << 2;
    if (eth_fold(eth_sum(f + p->l3_off, p->l3_len, 0)) == 0xffff)
        *ok |= ETH_CQE_L3_OK;
    if (!p->udp && !p->tcp)
        return;
    *types |= (uint8_t)((p->udp ? ETH_CQE_L4_UDP : ETH_CQE_L4_TCP) << 4);
    l4_len = eth_l4_len(f, len, p);
    if (l4_len < (p->udp ? 8u : 20u) || !(*ok & ETH_CQE_L3_OK))
        return;
    /* A UDP checksum of 0 says the sender computed none. */
    if ((p->udp && f[p->l4_off + 6] == 0 && f[p->l4_off + 7] == 0) ||
        eth_l4_sum(f, p, l4_len) == 0xffff)
        *ok |= ETH_CQE_L4_OK;
}

/* Fills the checksums a send WQE's cs_flags ask for (IPv4 frames only). */
static void eth_tx_csum(uint8_t *f, uint32_t len, uint8_t cs_flags)
{
    struct emu_eth_pkt p;
    uint32_t l4_len;
    uint16_t sum;

    emu_eth_parse(f, len, &p);
    if (!p.ipv4)
        return;
    if (cs_flags & PRM_WQE_ETH_L3_CSUM) {
        f[p.l3_off + 10] = 0;
        f[p.l3_off + 11] = 0;
        sum = (uint16_t)~eth_fold(eth_sum(f + p.l3_off, p.l3_len, 0));
        f[p.l3_off + 10] = (uint8_t)(sum >> 8);
        f[p.l3_off + 11] = (uint8_t)sum;
    }
    if (!(cs_flags & PRM_WQE_ETH_L4_CSUM) || (!p.udp && !p.tcp))
        return;
    l4_len = eth_l4_len(f, len, &p);
    if (l4_len < (p.udp ? 8u : 20u))
        return;
    {
        uint32_t at = p.l4_off + (p.udp ? 6 : 16);

        f[at] = 0;
        f[at + 1] = 0;
        sum = (uint16_t)~eth_l4_sum(f, &p, l4_len);
        if (p.udp && sum == 0)
            sum = 0xffff;
        f[at] = (uint8_t)(sum >> 8);
        f[at + 1] = (uint8_t)sum;
    }
}

/* ------------------------------------------------------------------ the port */

static void eth_count(struct eth_dev *d, enum emu_eth_counter c, uint64_t n)
{
    __atomic_add_fetch(&d->counters[c], n, __ATOMIC_RELAXED);
}

static int eth_epoll(struct emu_engine *e, bool out)
{
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = &e->eth->fd};

    return epoll_ctl(e->epfd, EPOLL_CTL_MOD, e->eth->fd, &ev);
}

int engine_eth_open(struct emu_engine *e, const char *ifname)
{
    struct emu_nic *nic = e->nic;
    struct eth_dev *d = emu_eth_dev(nic);
    struct engine_eth_port *port;
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
    struct ifreq ifr;
    struct epoll_event ev = {.events = EPOLLIN};
    int one = 1, size = 4 << 20, err;

    if (d == NULL || (port = calloc(1, sizeof(*port))) == NULL)
        return ENOMEM;
    port->ifindex = (int)if_nametoindex(ifname);
    if (port->ifindex == 0) {
        EMU_LOG_ERR("device %s: SOFTMLX5_ETH=%s: no network interface of that name in this "
                    "network namespace (ip link lists them); the device is not offered",
                    nic->ibdev.name, ifname);
        free(port);
        return ENODEV;
    }
    port->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (port->fd < 0) {
        err = errno;
        EMU_LOG_ERR("device %s: SOFTMLX5_ETH=%s: cannot open a packet socket: %s%s; the device "
                    "is not offered",
                    nic->ibdev.name, ifname, strerror(err),
                    err == EPERM ? " (it needs CAP_NET_RAW: run as root, or give the program "
                                   "the capability)"
                                 : "");
        free(port);
        return err;
    }
    if (setsockopt(port->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) != 0)
        EMU_LOG_WARN("device %s: PACKET_IGNORE_OUTGOING refused (%m): the port also sees the "
                     "frames it sends",
                     nic->ibdev.name);
    if (setsockopt(port->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(port->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (setsockopt(port->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(port->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    sll.sll_ifindex = port->ifindex;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (bind(port->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0 ||
        ioctl(port->fd, SIOCGIFHWADDR, &ifr) != 0) {
        err = errno;
        EMU_LOG_ERR("device %s: SOFTMLX5_ETH=%s: cannot bind the packet socket to it: %s; the "
                    "device is not offered",
                    nic->ibdev.name, ifname, strerror(err));
        goto fail;
    }
    pthread_mutex_lock(&d->lock);
    memcpy(d->mac, ifr.ifr_hwaddr.sa_data, 6);
    pthread_mutex_unlock(&d->lock);
    if (ioctl(port->fd, SIOCGIFMTU, &ifr) != 0) {
        err = errno;
        EMU_LOG_ERR("device %s: SOFTMLX5_ETH=%s: cannot read its MTU: %s", nic->ibdev.name, ifname,
                    strerror(err));
        goto fail;
    }
    port->mtu = (uint32_t)ifr.ifr_mtu;
    port->slot = (port->mtu + ETH_HDR + ETH_VLAN + 63) & ~63u;
    port->rx_buf = malloc((size_t)port->slot * ETH_BATCH);
    port->tx_buf = malloc((size_t)port->slot * ETH_BATCH);
    if (port->rx_buf == NULL || port->tx_buf == NULL) {
        err = ENOMEM;
        goto fail;
    }
    for (int i = 0; i < ETH_BATCH; i++) {
        port->rx_iov[i] = (struct iovec){port->rx_buf + (size_t)i * port->slot, port->slot};
        port->rx_msg[i].msg_hdr = (struct msghdr){.msg_iov = &port->rx_iov[i], .msg_iovlen = 1};
        port->tx_msg[i].msg_hdr = (struct msghdr){.msg_iov = &port->tx_iov[i], .msg_iovlen = 1};
    }
    ev.data.ptr = &port->fd;
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, port->fd, &ev) != 0) {
        err = errno;
        EMU_LOG_ERR("device %s: cannot watch the packet socket: %s", nic->ibdev.name,
                    strerror(err));
        goto fail;
    }
    pthread_mutex_lock(&d->lock);
    d->attached = true;
    d->mtu = port->mtu;
    d->ifindex = port->ifindex;
    pthread_mutex_unlock(&d->lock);
    e->eth = port;
    EMU_LOG_INFO("device %s: port 1 attached to %s (MAC %02x:%02x:%02x:%02x:%02x:%02x, MTU %u)",
                 nic->ibdev.name, ifname, d->mac[0], d->mac[1], d->mac[2], d->mac[3], d->mac[4],
                 d->mac[5], port->mtu);
    return 0;

fail:
    close(port->fd);
    free(port->rx_buf);
    free(port->tx_buf);
    free(port);
    return err;
}

/* ------------------------------------------------------------------ receive */

/* A received frame on its way into an RQ (eth lock held until the batch is completed). */
struct eth_rx_done {
    struct emu_eth_rq *rq;
    struct prm_cqe64 cqe;
    uint8_t op_own;
};

/* The RQ's next receive WQE (16 bytes) into wqe; false when none is posted. */
static bool eth_rq_take(struct emu_eth_rq *rq, uint8_t *wqe)
{
    uint32_t mask = (1u << rq->r.log_size) - 1, slot;

    if (((rq->posted - rq->consumer) & 0xffff) == 0) {
        uint32_t be;

        if (rq->r.dbrec_gpu) {
            if (emu_mem_read(true, rq->r.dbrec, &be, sizeof(be)) != 0)
                return false;
        } else {
            /* Acquire: the WQEs were written before the counter that publishes them. */
            be = __atomic_load_n((const uint32_t *)rq->r.dbrec, __ATOMIC_ACQUIRE);
        }
        rq->posted = be32toh(be) & 0xffff;
        if (((rq->posted - rq->consumer) & 0xffff) == 0)
            return false;
    }
    slot = rq->consumer & mask;
    if (!rq->r.ring_gpu) {
        memcpy(wqe, (const uint8_t *)rq->r.ring + (size_t)slot * 16, 16);
        return true;
    }
    /* A GPU ring: the posted WQEs up to the ring's end in one copy. */
    if (rq->ahead == NULL && (rq->ahead = malloc(ETH_AHEAD_BBS * 16)) == NULL)
        return false;
    if (((rq->consumer - rq->ahead_start) & 0xffff) >= rq->ahead_count) {
        uint32_t n = (rq->posted - rq->consumer) & 0xffff;

        if (n > ETH_AHEAD_BBS)
            n = ETH_AHEAD_BBS;
        if (n > mask + 1 - slot)
            n = mask + 1 - slot;
        if (emu_mem_read(true, rq->r.ring + (uintptr_t)slot * 16, rq->ahead, (size_t)n * 16) != 0)
            return false;
        rq->ahead_start = rq->consumer;
        rq->ahead_count = n;
    }
    memcpy(wqe, rq->ahead + (size_t)((rq->consumer - rq->ahead_start) & 0xffff) * 16, 16);
    return true;
}

/* Steers one frame into its RQ; a GPU buffer's copy and the CQE wait in the batch. */
static void eth_rx_one(struct emu_engine *e, struct eth_dev *d, uint8_t *f, uint32_t len,
                       struct emu_mem_copy *gpu, unsigned int *ngpu, struct emu_mr **held,
                       struct eth_rx_done *done, unsigned int *ndone)
{
    struct engine_eth_port *port = e->eth;
    struct emu_eth_pkt p;
    struct emu_eth_tir *tir;
    struct emu_eth_rq *rq;
    struct emu_mr *mr;
    uint8_t wqe[16], ok, types;
    uint32_t hash, bc, lkey;
    uint64_t addr;
    bool drop;

    eth_count(d, EMU_ETH_RX_PACKETS, 1);
    eth_count(d, EMU_ETH_RX_BYTES, len);
    emu_eth_parse(f, len, &p);
    if (len > port->mtu + ETH_HDR + (PRM_GET(p.match, PRM_FTE_L24_CVLAN_TAG) ? ETH_VLAN : 0)) {
        eth_count(d, EMU_ETH_RX_TOO_LONG, 1);
        return;
    }
    tir = emu_eth_steer(d, &p, &drop);
    rq = tir != NULL ? emu_eth_tir_rq(tir, &p, &hash) : NULL;
    if (rq == NULL) {
        eth_count(d, drop ? EMU_ETH_RX_DROP_RULE : EMU_ETH_RX_NO_RULE, 1);
        return;
    }
    if (rq->state != EMU_ETH_WQ_RDY) {
        eth_count(d, EMU_ETH_RX_NOT_READY, 1);
        return;
    }
    if (!eth_rq_take(rq, wqe)) {
        eth_count(d, EMU_ETH_RX_NO_WQE, 1);
        rq->rx_no_wqe++;
        if (rq->counter_set_id != 0 && d->qcounter_used[rq->counter_set_id])
            __atomic_add_fetch(&d->qcounters[rq->counter_set_id], 1, __ATOMIC_RELAXED);
        return;
    }
    memcpy(&bc, wqe, 4);
    memcpy(&lkey, wqe + 4, 4);
    memcpy(&addr, wqe + 8, 8);
    bc = be32toh(bc);
    lkey = be32toh(lkey);
    addr = be64toh(addr);
    if (len > bc) {
        eth_count(d, EMU_ETH_RX_TOO_LONG, 1);
        return;
    }
    if (emu_mr_get(e->nic, lkey, rq->wqc.pdn, addr, len, IBV_ACCESS_LOCAL_WRITE, &mr) !=
        EMU_MR_OK) {
        eth_count(d, EMU_ETH_RX_BAD_KEY, 1);
        return;
    }
    if (mr->gpu) {
        gpu[*ngpu] = (struct emu_mem_copy){mr->addr + (uintptr_t)(addr - mr->iova), f, len};
        held[(*ngpu)++] = mr;
    } else {
        int err = emu_mr_write(mr, addr, f, len);

        emu_mr_put(mr);
        if (err != 0) {
            eth_count(d, EMU_ETH_RX_BAD_KEY, 1);
            return;
        }
    }
    eth_rx_csum(f, len, &p, &ok, &types);
    {
        struct eth_rx_done *r = &done[(*ndone)++];
        uint32_t h = htobe32(hash);

        r->rq = rq;
        r->op_own = prm_cqe_fill_resp(&r->cqe, PRM_CQE_OPCODE_RESP_SEND, rq->rqn,
                                      (uint16_t)rq->consumer, len, 0, 0);
        r->cqe.hds_ip_ext = ok;
        r->cqe.l4_hdr_type_etc = types;
        r->cqe.srqn_uidx = htobe32(rq->user_index & 0xffffff);
        r->cqe.timestamp = htobe64(eth_cqe_time());
        if (tir->indirect)
            memcpy((uint8_t *)&r->cqe + ETH_CQE_RSS_OFFSET, &h, 4);
    }
    rq->consumer = (rq->consumer + 1) & 0xffff;
    rq->rx_packets++;
    rq->rx_bytes += len;
}

/* Reads and delivers the frames waiting on the socket (receive lock held). */
static void eth_rx(struct emu_engine *e)
{
    struct engine_eth_port *port = e->eth;
    struct eth_dev *d = emu_eth_dev(e->nic);
    struct emu_mem_copy gpu[ETH_BATCH];
    struct emu_mr *held[ETH_BATCH];
    struct eth_rx_done done[ETH_BATCH];

    for (int turn = 0; turn < ETH_RX_TURNS; turn++) {
        unsigned int ngpu = 0, ndone = 0;
        int n;

        for (int i = 0; i < ETH_BATCH; i++) {
            port->rx_msg[i].msg_hdr.msg_flags = 0;
            port->rx_msg[i].msg_len = 0;
        }
        n = recvmmsg(port->fd, port->rx_msg, ETH_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                EMU_LOG_ERR("device %s: reading the Ethernet port failed: %m", e->nic->ibdev.name);
            return;
        }
        pthread_mutex_lock(&d->lock);
        for (int i = 0; i < n; i++) {
            uint32_t len = port->rx_msg[i].msg_len;

            if ((port->rx_msg[i].msg_hdr.msg_flags & MSG_TRUNC) || len > port->slot) {
                eth_count(d, EMU_ETH_RX_PACKETS, 1);
                eth_count(d, EMU_ETH_RX_TOO_LONG, 1);
                continue;
            }
            eth_rx_one(e, d, port->rx_iov[i].iov_base, len, gpu, &ngpu, held, done, &ndone);
        }
        /* GPU buffers: every frame's bytes in place before any of their CQEs. */
        if (ngpu > 0 && emu_mem_gpu_write_many(gpu, ngpu) != 0)
            EMU_LOG_ERR("device %s: %u received frames could not be copied into GPU memory",
                        e->nic->ibdev.name, ngpu);
        for (unsigned int i = 0; i < ngpu; i++)
            emu_mr_put(held[i]);
        for (unsigned int i = 0; i < ndone; i++)
            engine_cqe_push(e, done[i].rq->cq, &done[i].cqe, done[i].op_own, false);
        pthread_mutex_unlock(&d->lock);
        if (n < ETH_BATCH)
            return;
    }
}

/* ------------------------------------------------------------------ send */

/* A frame being built from a send WQE. */
struct eth_tx_frame {
    struct emu_eth_sq *sq;
    uint32_t wqe_index; /* basic-block counter of the WQE */
    uint32_t next;      /* counter after it */
    uint8_t opcode;
    uint8_t cs_flags;
    bool signaled;
    bool nop;
    uint32_t len;
};

/* Basic blocks [index, index + n) of the SQ's ring into dst (wrapping); errno-style. */
static int eth_sq_read(struct emu_eth_sq *sq, uint32_t index, uint32_t n, uint8_t *dst,
                       uint32_t avail)
{
    uint32_t size = 1u << sq->r.log_size, slot = index & (size - 1);

    if (n > size)
        return EINVAL;
    if (!sq->r.ring_gpu) {
        uint32_t first = n < size - slot ? n : size - slot;

        memcpy(dst, (const uint8_t *)sq->r.ring + (size_t)slot * 64, (size_t)first * 64);
        memcpy(dst + (size_t)first * 64, (const uint8_t *)sq->r.ring, (size_t)(n - first) * 64);
        return 0;
    }
    /* GPU ring: the published basic blocks, up to ETH_AHEAD_BBS, read in at most two copies. */
    if (sq->ahead == NULL && (sq->ahead = malloc(ETH_AHEAD_BBS * 64)) == NULL)
        return ENOMEM;
    if (((index - sq->ahead_start) & 0xffff) + n > sq->ahead_count) {
        uint32_t want = avail < ETH_AHEAD_BBS ? avail : ETH_AHEAD_BBS, first;

        if (want > size)
            want = size; /* a producer claiming more than the ring: its first lap */
        struct emu_mem_copy c[2];

        if (want < n)
            return EINVAL;
        first = want < size - slot ? want : size - slot;
        c[0] = (struct emu_mem_copy){sq->r.ring + (uintptr_t)slot * 64, sq->ahead,
                                     (size_t)first * 64};
        c[1] = (struct emu_mem_copy){sq->r.ring, sq->ahead + (size_t)first * 64,
                                     (size_t)(want - first) * 64};
        if (emu_mem_gpu_read_many(c, want > first ? 2 : 1) != 0)
            return EIO;
        sq->ahead_start = index;
        sq->ahead_count = want;
    }
    memcpy(dst, sq->ahead + (size_t)((index - sq->ahead_start) & 0xffff) * 64, (size_t)n * 64);
    return 0;
}

/* Completes a send WQE in error: error CQE, the SQ to ERR (eth lock held). */
static void eth_tx_fail(struct emu_engine *e, struct eth_dev *d, struct emu_eth_sq *sq,
                        uint32_t index, uint8_t opcode, uint8_t syndrome, const char *why)
{
    struct prm_cqe64 cqe;
    uint8_t op_own = prm_cqe_fill_error(&cqe, PRM_CQE_OPCODE_REQ_ERR, syndrome, 0, opcode, sq->sqn,
                                        (uint16_t)index, 0);

    EMU_LOG_ERR("device %s: SQ 0x%x: send WQE %u failed (syndrome 0x%x): %s; the SQ is in ERR "
                "(MODIFY_SQ to RST, then RDY, starts it again)",
                e->nic->ibdev.name, sq->sqn, index & 0xffff, syndrome, why);
    engine_cqe_push(e, sq->cq, &cqe, op_own, true);
    sq->state = EMU_ETH_WQ_ERR;
    sq->tx_errors++;
    eth_count(d, EMU_ETH_TX_ERRORS, 1);
}

/*
 * Builds the frame of the send WQE at sq->consumer into buf (its GPU parts
 * added to gpu/held). Returns 0, EAGAIN when the WQE is not all published,
 * or a CQE syndrome (the WQE failed; why says how).
 */
static int eth_tx_build(struct emu_engine *e, struct emu_eth_sq *sq, uint32_t avail,
                        struct eth_tx_frame *fr, uint8_t *buf, uint32_t room,
                        struct emu_mem_copy *gpu, unsigned int *ngpu, struct emu_mr **held,
                        unsigned int *nheld, const char **why)
{
    uint8_t w[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE];
    uint32_t ctrl0, ctrl1, ds, bbs, off, hdr, len = 0;
    unsigned int first_gpu = *ngpu;
    uint32_t max = e->eth != NULL ? e->eth->mtu : room - ETH_HDR - ETH_VLAN;

    if (eth_sq_read(sq, sq->consumer, 1, w, avail) != 0)
        return EAGAIN;
    memcpy(&ctrl0, w, 4);
    memcpy(&ctrl1, w + 4, 4);
    ctrl0 = be32toh(ctrl0);
    ctrl1 = be32toh(ctrl1);
    ds = ctrl1 & 0x3f;
    bbs = (ds + 3) / 4;
    fr->sq = sq;
    fr->wqe_index = sq->consumer;
    fr->opcode = (uint8_t)ctrl0;
    fr->signaled = (w[11] & PRM_WQE_CTRL_CE_MASK) >= PRM_WQE_CTRL_CQ_UPDATE;
    fr->nop = false;
    if (bbs > (1u << sq->r.log_size)) {
        *why = "it is larger than the SQ's ring";
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
    if (ds == 0 || bbs > avail) {
        *why = "its DS count is 0 or runs past the published basic blocks";
        return ds == 0 ? PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR : EAGAIN;
    }
    fr->next = sq->consumer + bbs;
    if (bbs > 1 && eth_sq_read(sq, sq->consumer, bbs, w, avail) != 0)
        return EAGAIN;
    if (fr->opcode == ETH_OPCODE_NOP) {
        fr->nop = true;
        return 0;
    }
    if (fr->opcode != ETH_OPCODE_SEND || ds < 2) {
        *why = "an Ethernet SQ executes SEND (0x0a) with an Ethernet segment, and NOP";
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
    /* The Ethernet segment: checksum flags, inline header (0 or more bytes, spilling past it). */
    fr->cs_flags = w[16 + 4];
    hdr = (uint32_t)(w[16 + 12] << 8 | w[16 + 13]);
    /*
     * The segment is 16 bytes whose last 2 hold the header's first 2 bytes; the rest of the
     * header follows it in whole DS. Data segments start after that (byte 32 for 0..2 bytes).
     */
    off = 16 + ((14 + hdr + 15) & ~15u);
    if (off > ds * 16 || hdr > room) {
        *why = "its inline header runs past the WQE";
        return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
    }
    memcpy(buf, w + 16 + 14, hdr);
    len = hdr;
    for (; off + 16 <= ds * 16; off += 16) {
        uint32_t bc, lkey;
        uint64_t addr;
        struct emu_mr *mr;

        memcpy(&bc, w + off, 4);
        bc = be32toh(bc);
        if (bc & PRM_WQE_INLINE_SEG_FLAG) {
            uint32_t n = bc & 0x3ff;

            if (off + 4 + n > ds * 16 || len + n > room) {
                *why = "an inline data segment runs past the WQE, or the frame past the MTU";
                return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
            }
            memcpy(buf + len, w + off + 4, n);
            len += n;
            off += ((4 + n + 15) & ~15u) - 16;
            continue;
        }
        if (bc == 0)
            continue;
        memcpy(&lkey, w + off + 4, 4);
        memcpy(&addr, w + off + 8, 8);
        lkey = be32toh(lkey);
        addr = be64toh(addr);
        if (len + bc > room) {
            *why = "the frame is larger than the port's MTU plus its Ethernet header";
            return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
        }
        if (emu_mr_get(e->nic, lkey, sq->wqc.pdn, addr, bc, 0, &mr) != EMU_MR_OK) {
            *why = "a data segment's key is not valid for its range in the SQ's PD";
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        }
        if (mr->gpu) {
            gpu[*ngpu] =
                    (struct emu_mem_copy){mr->addr + (uintptr_t)(addr - mr->iova), buf + len, bc};
            (*ngpu)++;
            held[(*nheld)++] = mr;
        } else {
            int err = emu_mr_read(mr, addr, buf + len, bc);

            emu_mr_put(mr);
            if (err != 0) {
                *why = "a data segment's host memory is not mapped any more";
                return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
            }
        }
        len += bc;
    }
    /*
     * Up to 4 bytes past MTU + header is fine for a VLAN-tagged frame: its
     * ethertype must be known, so GPU bytes of this frame are copied now.
     */
    if (len > max + ETH_HDR && len <= max + ETH_HDR + ETH_VLAN && *ngpu > first_gpu) {
        if (emu_mem_gpu_read_many(gpu + first_gpu, *ngpu - first_gpu) != 0) {
            *why = "its GPU data could not be read";
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        }
        *ngpu = first_gpu; /* done; their keys stay held with the batch's */
    }
    if (len < ETH_HDR ||
        len > max + ETH_HDR + ((buf[12] == 0x81 && buf[13] == 0x00) ? ETH_VLAN : 0)) {
        *why = len < ETH_HDR ? "the frame is shorter than an Ethernet header"
                             : "the frame is larger than the port's MTU plus its Ethernet header";
        return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
    }
    fr->len = len;
    return 0;
}

/* The send CQE of a frame that left (or a NOP). */
static void eth_tx_complete(struct emu_engine *e, struct eth_tx_frame *fr)
{
    struct prm_cqe64 cqe;
    uint8_t op_own;

    fr->sq->consumer = fr->next;
    if (!fr->nop) {
        fr->sq->tx_packets++;
        fr->sq->tx_bytes += fr->len;
    }
    if (!fr->signaled)
        return;
    op_own = prm_cqe_fill_req(&cqe, fr->opcode, fr->sq->sqn, (uint16_t)fr->wqe_index, 0, 0);
    cqe.timestamp = htobe64(eth_cqe_time());
    engine_cqe_push(e, fr->sq->cq, &cqe, op_own, false);
}

/*
 * Sends frames [0, n) (nothing blocks): returns how many left or were
 * consumed; fewer than n when the socket is full.
 */
static int eth_tx_send(struct emu_engine *e, struct eth_dev *d, struct eth_tx_frame *frames, int n)
{
    struct engine_eth_port *port = e->eth;
    int i = 0, k = 0;
    struct mmsghdr *msg = port != NULL ? port->tx_msg : NULL;
    int map[ETH_BATCH];

    /* NOPs take no room on the wire. */
    for (int j = 0; j < n; j++) {
        if (frames[j].nop)
            continue;
        if (port != NULL) {
            port->tx_iov[k].iov_len = frames[j].len;
            port->tx_iov[k].iov_base = port->tx_buf + (size_t)j * port->slot;
        }
        map[k++] = j;
    }
    if (port == NULL) /* no cable: frames are lost, as on a link that is down */
        return n;
    while (i < k) {
        int r = sendmmsg(port->fd, msg + i, (unsigned int)(k - i), MSG_DONTWAIT);

        if (r > 0) {
            for (int j = i; j < i + r; j++) {
                eth_count(d, EMU_ETH_TX_PACKETS, 1);
                eth_count(d, EMU_ETH_TX_BYTES, frames[map[j]].len);
            }
            i += r;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == ENOBUFS) {
            return map[i];
        } else {
            if (!port->warned_send)
                EMU_LOG_ERR("device %s: a frame of %u bytes could not be sent: %m (frames that "
                            "fail so are lost, counted as errors)",
                            e->nic->ibdev.name, frames[map[i]].len);
            port->warned_send = true;
            eth_count(d, EMU_ETH_TX_ERRORS, 1);
            i++;
        }
    }
    return n;
}

/* Frames of an SQ while no port is attached: built (and checked), then lost. */
static __thread uint8_t eth_no_port_buf[ETH_HDR + ETH_VLAN + 65536];

/* Runs one SQ (eth lock held): true when it has more work now. */
static bool eth_sq_run(struct emu_engine *e, struct eth_dev *d, struct emu_eth_sq *sq)
{
    struct engine_eth_port *port = e->eth;
    uint32_t done = 0;

    while (sq->state == EMU_ETH_WQ_RDY && done < ETH_TX_BUDGET) {
        struct eth_tx_frame frames[ETH_BATCH];
        struct emu_mem_copy gpu[ETH_BATCH * 4];
        struct emu_mr *held[ETH_BATCH * 4];
        unsigned int ngpu = 0, nheld = 0;
        uint32_t posted = __atomic_load_n(&sq->posted, __ATOMIC_ACQUIRE);
        uint32_t saved = sq->consumer;
        int n = 0, sent, fail = 0;
        const char *why = NULL;

        while (n < ETH_BATCH && ((posted - sq->consumer) & 0xffff) != 0 &&
               ngpu + PRM_WQE_MAX_DS <= ETH_BATCH * 4) {
            uint32_t avail = (posted - sq->consumer) & 0xffff;
            uint8_t *buf = port != NULL ? port->tx_buf + (size_t)n * port->slot : eth_no_port_buf;
            uint32_t room = port != NULL ? port->slot : sizeof(eth_no_port_buf);
            int r = eth_tx_build(e, sq, avail, &frames[n], buf, room, gpu, &ngpu, held, &nheld,
                                 &why);

            if (r == EAGAIN)
                break;
            if (r != 0) {
                fail = r;
                break;
            }
            sq->consumer = frames[n].next;
            n++;
        }
        /* The gathered GPU bytes, all at once, then the checksums. */
        if (ngpu > 0 && emu_mem_gpu_read_many(gpu, ngpu) != 0) {
            for (unsigned int i = 0; i < nheld; i++)
                emu_mr_put(held[i]);
            sq->consumer = saved;
            eth_tx_fail(e, d, sq, saved, ETH_OPCODE_SEND, PRM_CQE_SYNDROME_LOCAL_PROT_ERR,
                        "its GPU data could not be read");
            return false;
        }
        for (unsigned int i = 0; i < nheld; i++)
            emu_mr_put(held[i]);
        for (int i = 0; i < n && port != NULL; i++)
            if (!frames[i].nop && frames[i].cs_flags != 0)
                eth_tx_csum(port->tx_buf + (size_t)i * port->slot, frames[i].len,
                            frames[i].cs_flags);
        sq->consumer = saved;
        sent = eth_tx_send(e, d, frames, n);
        for (int i = 0; i < sent; i++)
            eth_tx_complete(e, &frames[i]);
        done += (uint32_t)sent;
        if (sent < n) {
            /* The socket is full: the rest waits for EPOLLOUT. */
            sq->stalled = true;
            if (!port->want_out && eth_epoll(e, true) == 0)
                port->want_out = true;
            return false;
        }
        if (fail != 0) {
            uint32_t ctrl0 = 0;
            uint8_t w[64];

            if (eth_sq_read(sq, sq->consumer, 1, w, 1) == 0) {
                memcpy(&ctrl0, w, 4);
                ctrl0 = be32toh(ctrl0);
            }
            eth_tx_fail(e, d, sq, sq->consumer, (uint8_t)ctrl0, (uint8_t)fail, why);
            return false;
        }
        if (n == 0)
            return false;
    }
    return sq->state == EMU_ETH_WQ_RDY &&
           ((__atomic_load_n(&sq->posted, __ATOMIC_ACQUIRE) - sq->consumer) & 0xffff) != 0;
}

bool engine_eth_tx(struct emu_engine *e)
{
    struct eth_dev *d;
    bool more = false;

    if (!__atomic_exchange_n(&e->eth_kick, 0, __ATOMIC_ACQ_REL))
        return false;
    d = emu_eth_dev(e->nic);
    if (d == NULL)
        return false;
    pthread_mutex_lock(&d->lock);
    for (struct emu_eth_sq *sq = d->sq_list; sq != NULL; sq = sq->next) {
        if (sq->stalled && e->eth != NULL && e->eth->want_out)
            continue; /* waits for room */
        sq->stalled = false;
        more |= eth_sq_run(e, d, sq);
    }
    pthread_mutex_unlock(&d->lock);
    if (more)
        __atomic_store_n(&e->eth_kick, 1, __ATOMIC_RELEASE);
    return more;
}

void engine_eth_event(struct emu_engine *e, uint32_t events)
{
    if (events & EPOLLOUT) {
        if (e->eth->want_out && eth_epoll(e, false) == 0)
            e->eth->want_out = false;
        __atomic_store_n(&e->eth_kick, 1, __ATOMIC_RELEASE);
        engine_eth_tx(e);
    }
    if (events & (EPOLLIN | EPOLLERR))
        eth_rx(e);
}

void emu_engine_eth_sq_rung(void *obj, uint32_t producer)
{
    struct emu_eth_sq *sq = obj;

    __atomic_store_n(&sq->posted, producer & 0xffff, __ATOMIC_RELEASE);
    if (sq->nic->engine != NULL)
        __atomic_store_n(&sq->nic->engine->eth_kick, 1, __ATOMIC_RELEASE);
}

void engine_eth_forget(struct emu_engine *e)
{
    if (e->eth != NULL)
        close(e->eth->fd);
}

void emu_engine_eth_kick(struct emu_nic *nic)
{
    struct emu_engine *e = nic->engine;

    if (e == NULL)
        return;
    __atomic_store_n(&e->eth_kick, 1, __ATOMIC_RELEASE);
    engine_kick(e);
}
