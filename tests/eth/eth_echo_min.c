/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The smallest UDP echo on the host library: one receive and one send queue
 * on CPU threads (doca_ctx_set_datapath_on_gpu(ctx, NULL)), a UDP port
 * steered to the receive queue (dgn_eth_flow_create_udp), and one thread
 * running the data-path core (include/device/impl/gdaki_eth_rxq.h / _txq.h):
 * each datagram's addresses and ports are swapped in its packet slot and the
 * slot is sent back. Run by tests/eth_ns/echo_test.sh under
 * softmlx5-run --eth IFNAME:
 *
 *   eth_echo_min -i IFNAME -u PORT
 *
 * Prints "ready" once steering is in place and, at SIGINT/SIGTERM,
 *   Total: RX <n> packets <bytes> bytes, TX <n> packets <bytes> bytes, dropped <n>
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/impl/gdaki_eth_rxq.h"
#include "device/impl/gdaki_eth_txq.h"
#include "doca_ctx.h"
#include "doca_dev.h"
#include "doca_error.h"
#include "doca_eth_rxq.h"
#include "doca_eth_txq.h"
#include "doca_gpunetio_eth_flow.h"
#include "doca_mmap.h"

#define RING       256
#define PKT_SIZE   2048
#define BURST      32
#define TIMEOUT_NS 1000000ull

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

#define CHECK(call)                                                                    \
    do {                                                                               \
        doca_error_t e_ = (call);                                                      \
        if (e_ != DOCA_SUCCESS) {                                                      \
            fprintf(stderr, "eth_echo_min: %s: %s\n", #call, doca_error_get_name(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static void swap(uint8_t *a, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t t = a[i];

        a[i] = b[i];
        b[i] = t;
    }
}

/* The answer to an Ethernet/IPv4/UDP frame, in place; false for anything else. */
static bool answer(uint8_t *f, uint32_t len)
{
    uint32_t ihl;

    if (len < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
        return false;
    ihl = (f[14] & 0xfu) * 4u;
    if (f[14 + 9] != 17 || len < 14 + ihl + 8)
        return false;
    swap(f, f + 6, 6);                       /* MACs */
    swap(f + 14 + 12, f + 14 + 16, 4);       /* IPv4 addresses */
    swap(f + 14 + ihl, f + 14 + ihl + 2, 2); /* UDP ports */
    return true;
}

/* The device whose interface is ifname (doca_devinfo_get_iface_name); exits when none is. */
static struct doca_devinfo *pick(struct doca_devinfo **list, uint32_t n, const char *ifname)
{
    char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];

    for (uint32_t i = 0; i < n; i++) {
        if (doca_devinfo_get_iface_name(list[i], name, sizeof(name)) != DOCA_SUCCESS ||
            strcmp(name, ifname) != 0)
            continue;
        CHECK(doca_devinfo_get_mac_addr(list[i], mac, sizeof(mac)));
        printf("eth_echo_min: %s has MAC %02x:%02x:%02x:%02x:%02x:%02x\n", ifname, mac[0], mac[1],
               mac[2], mac[3], mac[4], mac[5]);
        return list[i];
    }
    fprintf(stderr, "eth_echo_min: no device has interface %s\n", ifname);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *ifname = "";
    uint16_t port = 0;
    struct doca_devinfo **list;
    struct doca_dev *dev;
    struct doca_mmap *mmap;
    struct doca_eth_rxq *rxq;
    struct doca_eth_txq *txq;
    struct doca_gpu_eth_rxq *r;
    struct doca_gpu_eth_txq *t;
    struct dgn_eth_flow *flow;
    struct doca_gpu_dev_eth_rxq_attr attr[BURST];
    uint64_t rx = 0, rx_bytes = 0, tx = 0, tx_bytes = 0;
    uint32_t n;
    void *mem;
    int opt;

    while ((opt = getopt(argc, argv, "i:u:")) != -1) {
        if (opt == 'i')
            ifname = optarg;
        else if (opt == 'u')
            port = (uint16_t)atoi(optarg);
        else
            return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    CHECK(doca_devinfo_create_list(&list, &n));
    CHECK(doca_dev_open(pick(list, n, ifname), &dev));
    mem = aligned_alloc(4096, RING * PKT_SIZE);
    CHECK(doca_mmap_create(&mmap));
    CHECK(doca_mmap_add_dev(mmap, dev));
    CHECK(doca_mmap_set_memrange(mmap, mem, RING * PKT_SIZE));
    CHECK(doca_mmap_start(mmap));
    CHECK(doca_eth_rxq_create(dev, RING, PKT_SIZE, &rxq));
    CHECK(doca_eth_rxq_set_type(rxq, DOCA_ETH_RXQ_TYPE_CYCLIC));
    CHECK(doca_eth_rxq_set_pkt_buf(rxq, mmap, 0, RING * PKT_SIZE));
    CHECK(doca_ctx_set_datapath_on_gpu(doca_eth_rxq_as_doca_ctx(rxq), NULL));
    CHECK(doca_ctx_start(doca_eth_rxq_as_doca_ctx(rxq)));
    CHECK(doca_eth_txq_create(dev, RING, &txq));
    CHECK(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(txq), NULL));
    CHECK(doca_ctx_start(doca_eth_txq_as_doca_ctx(txq)));
    CHECK(doca_eth_rxq_get_gpu_handle(rxq, &r));
    CHECK(doca_eth_txq_get_gpu_handle(txq, &t));
    CHECK(dgn_eth_flow_create_udp(dev, port, &rxq, 1, &flow));
    printf("eth_echo_min: ready on %s, UDP port %u\n", ifname, port);
    fflush(stdout);
    while (!stop) {
        uint64_t first = 0;
        uint32_t got = 0, done;

        if (gdaki_eth_rx_recv(r, BURST, TIMEOUT_NS, &first, &got, attr,
                              DOCA_GPUNETIO_ETH_RX_ATTR_ALL) != DOCA_SUCCESS) {
            fprintf(stderr, "eth_echo_min: error CQE on the receive queue\n");
            break;
        }
        for (uint32_t i = 0; i < got; i++) {
            uint64_t addr = gdaki_eth_rx_pkt_addr(r, first + i);
            uint64_t ticket;
            doca_error_t e;

            rx++;
            rx_bytes += attr[i].bytes;
            if (!answer((uint8_t *)(uintptr_t)addr, attr[i].bytes))
                continue;
            while ((e = gdaki_eth_tx_send(
                            t, addr, r->pkt_mkey, attr[i].bytes, DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY,
                            &ticket, DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
                            DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS,
                            DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO)) == DOCA_ERROR_AGAIN &&
                   !stop)
                gdaki_eth_tx_poll_completion(t, RING, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                             DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done,
                                             DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                             DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS);
            if (e != DOCA_SUCCESS) {
                fprintf(stderr, "eth_echo_min: send: %s\n", doca_error_get_name(e));
                stop = 1;
                break;
            }
            tx++;
            tx_bytes += attr[i].bytes;
        }
        gdaki_eth_tx_poll_completion(t, RING, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                     DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &n,
                                     DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                     DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS);
    }
    {
        uint64_t dropped = 0;
        char d[32] = "unknown";

        if (dgn_eth_rxq_get_dropped(rxq, &dropped) == DOCA_SUCCESS)
            snprintf(d, sizeof(d), "%lu", (unsigned long)dropped);
        printf("Total: RX %lu packets %lu bytes, TX %lu packets %lu bytes, dropped %s\n",
               (unsigned long)rx, (unsigned long)rx_bytes, (unsigned long)tx,
               (unsigned long)tx_bytes, d);
    }
    fflush(stdout);
    fprintf(stderr,
            "eth_echo_min: send completions %lu, error CQEs %lu (syndrome 0x%x); receive error "
            "CQEs %lu\n",
            (unsigned long)t->completions, (unsigned long)t->errors, t->err.syndrome,
            (unsigned long)r->counters.errors);
    /* The teardown order: flow, contexts, queues, memory, device. */
    CHECK(dgn_eth_flow_destroy(flow));
    CHECK(doca_ctx_stop(doca_eth_txq_as_doca_ctx(txq)));
    CHECK(doca_ctx_stop(doca_eth_rxq_as_doca_ctx(rxq)));
    CHECK(doca_eth_txq_destroy(txq));
    CHECK(doca_eth_rxq_destroy(rxq));
    CHECK(doca_mmap_destroy(mmap));
    CHECK(doca_dev_close(dev));
    CHECK(doca_devinfo_destroy_list(list));
    free(mem);
    return 0;
}
