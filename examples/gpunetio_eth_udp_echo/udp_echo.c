/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_eth_udp_echo: the persistent-kernel pattern of GPUNetIO over
 * Ethernet. It opens a device, makes QUEUES receive queues (CYCLIC, their
 * packets in GPU memory) and as many send queues, steers the IPv4 UDP
 * datagrams to PORT over the receive queues, and launches one persistent
 * kernel per queue that answers every datagram with the same payload to its
 * sender, until SIGINT or SIGTERM. With --exec cpu, CPU threads run the same
 * data path (the C core under the device API) over queues in host memory.
 *
 *   gpunetio_eth_udp_echo -u PORT [-d DEV] [-g GPU_BUS_ID] [-q QUEUES] [-r RING]
 *                         [-m gpu|host] [--exec gpu|cpu]
 *
 * Every second it prints the packets and bytes received and sent in that
 * second; at exit, each queue's totals and
 *   Total: RX <n> packets <bytes> bytes, TX <n> packets <bytes> bytes, dropped <n>
 *
 * The order of things is DOCA's: device, GPU, memory map of each packet
 * buffer, eth queues (their contexts' data path on the GPU, or NULL for CPU
 * threads), start, GPU handles, steering, kernels; teardown in reverse:
 * exit flag and kernels, steering, context stop, queue destroy, memory
 * maps, memory, GPU, device.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doca_ctx.h"
#include "doca_dev.h"
#include "doca_eth_rxq.h"
#include "doca_eth_rxq_gpu_data_path.h"
#include "doca_eth_txq.h"
#include "doca_eth_txq_gpu_data_path.h"
#include "doca_gpunetio.h"
#include "doca_gpunetio_eth_flow.h"
#include "doca_mmap.h"
#include "ex_common.h"
#include "ex_gpu.h"
#include "udp_echo.h"

#define ECHO_NAME "gpunetio_eth_udp_echo"

struct echo_args {
    const char *dev;              /* -d: IB device name or PCI address; NULL: the first device */
    const char *gpu;              /* -g: GPU bus id; NULL: the first GPU */
    uint16_t port;                /* -u */
    uint32_t queues;              /* -q */
    uint32_t ring;                /* -r: packet slots per RXQ, send WQEs per TXQ */
    enum doca_gpu_mem_type rings; /* -m: where the GPU data path's rings live */
    enum ex_exec exec;            /* --exec */
};

struct echo_queue {
    struct doca_eth_rxq *rxq;
    struct doca_eth_txq *txq;
    struct doca_mmap *mmap;
    void *buf;     /* packet buffer (GPU memory, or host memory) */
    int dmabuf_fd; /* its dma-buf (GPU memory), -1: none */
    int rxq_started, txq_started;
    struct doca_gpu_eth_rxq *rxq_gpu;
    struct doca_gpu_eth_txq *txq_gpu;
    struct echo_job job;
    void *stream;
    pthread_t thread;
    int running;
};

struct echo {
    struct echo_args a;
    struct doca_devinfo **devinfos;
    struct doca_dev *dev;
    doca_gpu_t *gpu;
    char gpu_bus[32];
    char where[DOCA_DEVINFO_IBDEV_NAME_SIZE + DOCA_DEVINFO_IFACE_NAME_SIZE + 32];
    struct echo_queue q[ECHO_MAX_QUEUES];
    struct dgn_eth_flow *flow;
    struct echo_shared *shared;     /* as the host addresses it */
    struct echo_shared *shared_dev; /* as the executors address it */
};

/* ---- Command line --------------------------------------------------------------------------- */

static void echo_usage(FILE *out)
{
    fprintf(out,
            "Usage: %s -u <port> [options]\n"
            "Answers every IPv4 UDP datagram to <port> with the same payload to its sender, from\n"
            "one persistent CUDA kernel per queue (or one CPU thread per queue), until SIGINT.\n"
            "  -u <port>          UDP destination port to answer (required)\n"
            "  -d <device>        IB device name (mlx5_0) or PCI address (0000:3a:00.0)\n"
            "                     (default: the first device)\n"
            "  -g <bus id>        GPU PCIe bus id, e.g. 8A:00.0 (default: the first GPU;\n"
            "                     not used with --exec cpu)\n"
            "  -q <queues>        receive and send queues, 1 to %d (default 1); datagrams are\n"
            "                     spread over them by their addresses and ports\n"
            "  -r <packets>       receive ring of each queue, in packets, 8 to 65536 (default %d)\n"
            "  -m <gpu|host>      GPU data path: the queues' rings, CQs and doorbell records in\n"
            "                     GPU memory (default) or in pinned host memory the GPU maps;\n"
            "                     the packets stay in GPU memory\n"
            "  --exec <gpu|cpu>   data path in persistent CUDA kernels (default) or in CPU\n"
            "                     threads (host memory, no GPU needed)\n"
            "  -h, --help         this text\n",
            ECHO_NAME, ECHO_MAX_QUEUES, ECHO_DEFAULT_RING);
}

/* 0 to run, 1 when the usage was asked for, -1 on a bad command line (reported). */
static int echo_parse_args(int argc, char **argv, struct echo_args *a)
{
    static const struct option longs[] = {
            {"exec", required_argument, NULL, 'x'},
            {"help", no_argument, NULL, 'h'},
            {NULL, 0, NULL, 0},
    };
    unsigned long v;
    int c;

    memset(a, 0, sizeof(*a));
    a->queues = 1;
    a->ring = ECHO_DEFAULT_RING;
    a->rings = DOCA_GPU_MEM_TYPE_GPU;
    a->exec = EX_EXEC_GPU;
    while ((c = getopt_long(argc, argv, "d:g:u:q:r:m:h", longs, NULL)) != -1) {
        switch (c) {
        case 'd':
            a->dev = optarg;
            break;
        case 'g':
            a->gpu = optarg;
            break;
        case 'u':
            if (ex_number("-u", optarg, 1, 65535, &v) != 0)
                return -1;
            a->port = (uint16_t)v;
            break;
        case 'q':
            if (ex_number("-q", optarg, 1, ECHO_MAX_QUEUES, &v) != 0)
                return -1;
            a->queues = (uint32_t)v;
            break;
        case 'r':
            if (ex_number("-r", optarg, 8, 65536, &v) != 0)
                return -1;
            a->ring = (uint32_t)v;
            break;
        case 'm':
            if (strcmp(optarg, "gpu") == 0) {
                a->rings = DOCA_GPU_MEM_TYPE_GPU;
            } else if (strcmp(optarg, "host") == 0) {
                a->rings = DOCA_GPU_MEM_TYPE_CPU_GPU;
            } else {
                EX_ERR("-m '%s': expected gpu or host", optarg);
                return -1;
            }
            break;
        case 'x':
            if (ex_parse_exec(optarg, &a->exec) != 0)
                return -1;
            break;
        case 'h':
            echo_usage(stdout);
            return 1;
        default:
            echo_usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        EX_ERR("unexpected argument '%s' (see --help)", argv[optind]);
        return -1;
    }
    if (a->port == 0) {
        EX_ERR("-u <port> is required: the UDP destination port to answer (see --help)");
        return -1;
    }
    if (a->exec == EX_EXEC_CPU && a->gpu != NULL)
        EX_INFO("-g %s is not used with --exec cpu", a->gpu);
    if (a->exec == EX_EXEC_CPU && a->rings != DOCA_GPU_MEM_TYPE_GPU)
        EX_INFO("-m host is what --exec cpu does anyway: everything in host memory");
    return 0;
}

/* ---- Device and GPU ------------------------------------------------------------------------- */

/* Logs a failed DOCA call; returns -1 (0 when it succeeded). */
static int echo_check(doca_error_t err, const char *what)
{
    if (err == DOCA_SUCCESS)
        return 0;
    EX_ERR("%s: %s (%s)", what, doca_error_get_descr(err), doca_error_get_name(err));
    return -1;
}

/* Whether devinfo is the device -d names (its IB device name or its PCI address). */
static int echo_dev_matches(struct doca_devinfo *devinfo, const char *name)
{
    char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
    uint8_t same = 0;

    if (doca_devinfo_get_ibdev_name(devinfo, ibdev, sizeof(ibdev)) == DOCA_SUCCESS &&
        strcmp(ibdev, name) == 0)
        return 1;
    return doca_devinfo_is_equal_pci_addr(devinfo, name, &same) == DOCA_SUCCESS && same;
}

static int echo_open_dev(struct echo *e)
{
    struct doca_devinfo *found = NULL;
    char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "?";
    char ifname[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE] = {0};
    uint32_t n = 0;
    doca_error_t err;

    err = doca_devinfo_create_list(&e->devinfos, &n);
    if (err == DOCA_ERROR_NOT_FOUND) {
        n = 0;
        e->devinfos = NULL;
    } else if (echo_check(err, "listing the DOCA devices")) {
        return -1;
    }
    for (uint32_t i = 0; i < n && found == NULL; i++)
        if (e->a.dev == NULL || echo_dev_matches(e->devinfos[i], e->a.dev))
            found = e->devinfos[i];
    if (found == NULL) {
        if (n == 0)
            EX_ERR("no DOCA device: no RDMA device with an Ethernet port here (on a machine "
                   "without a NIC, run under softmlx5-run --eth <interface>)");
        else
            EX_ERR("-d %s: no such device (give an IB device name such as mlx5_0, or a PCI "
                   "address)",
                   e->a.dev);
        return -1;
    }
    doca_devinfo_get_ibdev_name(found, ibdev, sizeof(ibdev));
    if (doca_devinfo_get_iface_name(found, ifname, sizeof(ifname)) != DOCA_SUCCESS) {
        snprintf(ifname, sizeof(ifname), "no interface");
        EX_WARN("%s's port is the port of no network interface here: nothing may reach it (on "
                "softmlx5, attach it to one with softmlx5-run --eth <interface>)",
                ibdev);
    }
    err = doca_devinfo_get_mac_addr(found, mac, sizeof(mac));
    if (err != DOCA_SUCCESS) {
        EX_ERR("%s has no Ethernet port (%s): this example sends and receives Ethernet frames",
               ibdev, doca_error_get_descr(err));
        return -1;
    }
    if (echo_check(doca_eth_rxq_cap_is_type_supported(found, DOCA_ETH_RXQ_TYPE_CYCLIC,
                                                      e->a.exec == EX_EXEC_GPU
                                                              ? DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU
                                                              : DOCA_ETH_RXQ_DATA_PATH_TYPE_CPU),
                   "cyclic receive queues") ||
        echo_check(doca_eth_txq_cap_is_type_supported(found, DOCA_ETH_TXQ_TYPE_REGULAR,
                                                      e->a.exec == EX_EXEC_GPU
                                                              ? DOCA_ETH_TXQ_DATA_PATH_TYPE_GPU
                                                              : DOCA_ETH_TXQ_DATA_PATH_TYPE_CPU),
                   "send queues"))
        return -1;
    if (echo_check(doca_dev_open(found, &e->dev), "opening the device"))
        return -1;
    snprintf(e->where, sizeof(e->where), "%s (%s, %02x:%02x:%02x:%02x:%02x:%02x)", ibdev, ifname,
             mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
    EX_INFO("device %s", e->where);
    return 0;
}

static int echo_open_gpu(struct echo *e)
{
    char why[160] = "";

    if (e->a.exec == EX_EXEC_CPU)
        return 0;
    if (!ex_gpu_built()) {
        EX_ERR("this build has no CUDA: run with --exec cpu");
        return -1;
    }
    if (e->a.gpu != NULL) {
        snprintf(e->gpu_bus, sizeof(e->gpu_bus), "%s", e->a.gpu);
    } else if (ex_gpu_count(e->gpu_bus, sizeof(e->gpu_bus), why, sizeof(why)) == 0) {
        EX_ERR("no GPU to run the kernels on (%s): give -g or run with --exec cpu", why);
        return -1;
    }
    if (ex_gpu_select(e->gpu_bus) != 0)
        return -1;
    return echo_check(doca_gpu_create(e->gpu_bus, &e->gpu), "doca_gpu_create");
}

/* ---- Queues --------------------------------------------------------------------------------- */

/* The packet buffer of queue q (at least size bytes): memory and its memory map (started). */
static int echo_make_buffer(struct echo *e, struct echo_queue *q, uint32_t size)
{
    if (e->gpu != NULL) {
        /* Whole 64 KiB GPU pages: what a dma-buf of GPU memory is made of. */
        size = (size + 0xffffu) & ~0xffffu;
        if (echo_check(doca_gpu_mem_alloc(e->gpu, size, 1u << 16, DOCA_GPU_MEM_TYPE_GPU, &q->buf,
                                          NULL),
                       "allocating a packet buffer in GPU memory"))
            return -1;
    } else {
        q->buf = aligned_alloc(4096, size);
        if (q->buf == NULL) {
            EX_ERR("allocating a packet buffer of %u bytes: out of memory", size);
            return -1;
        }
        memset(q->buf, 0, size);
    }
    if (echo_check(doca_mmap_create(&q->mmap), "doca_mmap_create") ||
        echo_check(doca_mmap_add_dev(q->mmap, e->dev), "doca_mmap_add_dev"))
        return -1;
    /* GPU memory through a dma-buf where the driver gives one, else by its address. */
    /* (The fd stays open until the map is destroyed: doca_mmap_start registers through it.) */
    if (e->gpu != NULL && doca_gpu_dmabuf_fd(e->gpu, q->buf, size, &q->dmabuf_fd) == DOCA_SUCCESS) {
        if (echo_check(doca_mmap_set_dmabuf_memrange(q->mmap, q->dmabuf_fd, q->buf, 0, size),
                       "doca_mmap_set_dmabuf_memrange"))
            return -1;
    } else if (echo_check(doca_mmap_set_memrange(q->mmap, q->buf, size),
                          "doca_mmap_set_memrange")) {
        return -1;
    }
    if (echo_check(doca_mmap_set_permissions(q->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
                   "doca_mmap_set_permissions") ||
        echo_check(doca_mmap_start(q->mmap), "registering the packet buffer (doca_mmap_start)"))
        return -1;
    return 0;
}

static int echo_make_queue(struct echo *e, uint32_t i)
{
    struct echo_queue *q = &e->q[i];
    struct doca_gpu *gpu = e->gpu;
    uint32_t size = 0;

    if (echo_check(doca_eth_rxq_create(e->dev, e->a.ring, ECHO_MAX_PACKET, &q->rxq),
                   "doca_eth_rxq_create") ||
        echo_check(doca_eth_rxq_set_type(q->rxq, DOCA_ETH_RXQ_TYPE_CYCLIC),
                   "doca_eth_rxq_set_type(CYCLIC)") ||
        echo_check(doca_eth_rxq_estimate_packet_buf_size(DOCA_ETH_RXQ_TYPE_CYCLIC, 0, 0,
                                                         ECHO_MAX_PACKET, e->a.ring, 0, 0, 0,
                                                         &size),
                   "doca_eth_rxq_estimate_packet_buf_size"))
        return -1;
    if (echo_make_buffer(e, q, size) != 0 ||
        echo_check(doca_eth_rxq_set_pkt_buf(q->rxq, q->mmap, 0, size), "doca_eth_rxq_set_pkt_buf"))
        return -1;
    if (e->gpu != NULL && echo_check(doca_eth_rxq_gpu_set_rq_mem_type(q->rxq, e->a.rings),
                                     "doca_eth_rxq_gpu_set_rq_mem_type"))
        return -1;
    if (echo_check(doca_ctx_set_datapath_on_gpu(doca_eth_rxq_as_doca_ctx(q->rxq), gpu),
                   "doca_ctx_set_datapath_on_gpu (receive queue)"))
        return -1;
    /* No checksum offload: the answer's checksums are the datagram's (the swap keeps them). */
    if (echo_check(doca_eth_txq_create(e->dev, e->a.ring, &q->txq), "doca_eth_txq_create") ||
        echo_check(doca_eth_txq_set_type(q->txq, DOCA_ETH_TXQ_TYPE_REGULAR),
                   "doca_eth_txq_set_type(REGULAR)"))
        return -1;
    if (e->gpu != NULL && (echo_check(doca_eth_txq_gpu_set_sq_mem_type(q->txq, e->a.rings),
                                      "doca_eth_txq_gpu_set_sq_mem_type") ||
                           echo_check(doca_eth_txq_gpu_set_completion_on_gpu(q->txq),
                                      "doca_eth_txq_gpu_set_completion_on_gpu")))
        return -1;
    if (echo_check(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(q->txq), gpu),
                   "doca_ctx_set_datapath_on_gpu (send queue)"))
        return -1;
    /* Start, then the handles the data path takes (valid until the contexts stop). */
    if (echo_check(doca_ctx_start(doca_eth_rxq_as_doca_ctx(q->rxq)),
                   "starting the receive queue (doca_ctx_start)"))
        return -1;
    q->rxq_started = 1;
    if (echo_check(doca_ctx_start(doca_eth_txq_as_doca_ctx(q->txq)),
                   "starting the send queue (doca_ctx_start)"))
        return -1;
    q->txq_started = 1;
    if (echo_check(doca_eth_rxq_get_gpu_handle(q->rxq, &q->rxq_gpu),
                   "doca_eth_rxq_get_gpu_handle") ||
        echo_check(doca_eth_txq_get_gpu_handle(q->txq, &q->txq_gpu), "doca_eth_txq_get_gpu_handle"))
        return -1;
    q->job.rxq = q->rxq_gpu;
    q->job.txq = q->txq_gpu;
    q->job.port = e->a.port;
    q->job.queue = (uint16_t)i;
    q->job.shared = e->shared_dev;
    q->job.batch = e->gpu != NULL ? ECHO_GPU_THREADS : ECHO_CPU_BATCH;
    if (q->job.batch > e->a.ring / 2)
        q->job.batch = e->a.ring / 2; /* a batch's answers always fit the send queue */
    return 0;
}

/* The memory the host and the executors share: pinned host memory the GPU maps, or plain. */
static int echo_make_shared(struct echo *e)
{
    void *gpu_ptr = NULL, *cpu_ptr = NULL;

    if (e->gpu == NULL) {
        e->shared = aligned_alloc(128, sizeof(*e->shared));
        if (e->shared == NULL) {
            EX_ERR("out of memory");
            return -1;
        }
        memset(e->shared, 0, sizeof(*e->shared));
        e->shared_dev = e->shared;
        return 0;
    }
    if (echo_check(doca_gpu_mem_alloc(e->gpu, sizeof(*e->shared), 4096, DOCA_GPU_MEM_TYPE_CPU_GPU,
                                      &gpu_ptr, &cpu_ptr),
                   "allocating the counters and the exit flag (pinned host memory)"))
        return -1;
    e->shared = cpu_ptr;
    e->shared_dev = gpu_ptr;
    memset(e->shared, 0, sizeof(*e->shared));
    return 0;
}

/* ---- Executors ------------------------------------------------------------------------------ */

static void *echo_cpu_thread(void *arg)
{
    echo_cpu_run(arg);
    return NULL;
}

static int echo_launch(struct echo *e)
{
    for (uint32_t i = 0; i < e->a.queues; i++) {
        struct echo_queue *q = &e->q[i];

        if (e->gpu != NULL) {
            if (ex_gpu_stream_create(&q->stream) != 0 || echo_gpu_launch(&q->job, q->stream) != 0)
                return -1;
        } else if (pthread_create(&q->thread, NULL, echo_cpu_thread, &q->job) != 0) {
            EX_ERR("starting the CPU thread of queue %u: %s", i, strerror(errno));
            return -1;
        }
        q->running = 1;
    }
    return 0;
}

/* Sets the exit flag and waits for every executor (a kernel that does not stop is reported). */
static int echo_stop_executors(struct echo *e)
{
    int rc = 0;

    __atomic_store_n(&e->shared->exit_flag, 1, __ATOMIC_SEQ_CST);
    for (uint32_t i = 0; i < e->a.queues; i++) {
        struct echo_queue *q = &e->q[i];

        if (!q->running)
            continue;
        if (e->gpu != NULL) {
            if (echo_gpu_wait(q->stream, 10) != 0) {
                EX_ERR("the kernel of queue %u did not stop within 10 s of the exit flag", i);
                rc = -1;
                continue; /* its queues cannot be torn down under it */
            }
        } else {
            pthread_join(q->thread, NULL);
        }
        q->running = 0;
    }
    return rc;
}

/* ---- Counters ------------------------------------------------------------------------------- */

static void echo_read(const struct echo *e, uint32_t i, struct echo_counters *c)
{
    const volatile struct echo_counters *s = &e->shared->q[i];

    c->rx_pkts = s->rx_pkts;
    c->rx_bytes = s->rx_bytes;
    c->tx_pkts = s->tx_pkts;
    c->tx_bytes = s->tx_bytes;
    c->ignored = s->ignored;
    c->error = s->error;
}

static void echo_sum(const struct echo *e, struct echo_counters *t)
{
    memset(t, 0, sizeof(*t));
    for (uint32_t i = 0; i < e->a.queues; i++) {
        struct echo_counters c;

        echo_read(e, i, &c);
        t->rx_pkts += c.rx_pkts;
        t->rx_bytes += c.rx_bytes;
        t->tx_pkts += c.tx_pkts;
        t->tx_bytes += c.tx_bytes;
        t->ignored += c.ignored;
        if (c.error != 0 && t->error == 0)
            t->error = c.error;
    }
}

static const char *echo_error_name(uint64_t error)
{
    switch (error) {
    case ECHO_ERR_RECV:
        return "a receive failed (error completion on the receive queue)";
    case ECHO_ERR_SEND:
        return "an answer could not be posted on the send queue";
    case ECHO_ERR_COMPLETION:
        return "an answer completed in error on the send queue";
    case ECHO_ERR_STALL:
        return "a batch of answers got no send completion within 5 s (the NIC does not send)";
    default:
        return "unknown error";
    }
}

/* Prints the last second's counts until a signal, or an executor stops on an error. */
static int echo_report_loop(struct echo *e)
{
    struct echo_counters last, now;
    uint64_t t0 = ex_now_ns(), next = t0 + 1000000000ull;

    memset(&last, 0, sizeof(last));
    while (ex_signal == 0) {
        const struct timespec nap = {0, 20 * 1000 * 1000};

        nanosleep(&nap, NULL);
        echo_sum(e, &now);
        if (now.error != 0) {
            EX_ERR("a queue stopped: %s", echo_error_name(now.error));
            return -1;
        }
        if (e->gpu != NULL) {
            for (uint32_t i = 0; i < e->a.queues; i++)
                if (echo_gpu_done(e->q[i].stream)) {
                    EX_ERR("the kernel of queue %u ended before the exit flag was set", i);
                    e->q[i].running = 0;
                    return -1;
                }
        }
        if (ex_now_ns() < next)
            continue;
        printf("[%4" PRIu64 " s] RX %" PRIu64 " pkts %" PRIu64 " bytes, TX %" PRIu64
               " pkts %" PRIu64 " bytes\n",
               (uint64_t)((next - t0) / 1000000000ull), now.rx_pkts - last.rx_pkts,
               now.rx_bytes - last.rx_bytes, now.tx_pkts - last.tx_pkts,
               now.tx_bytes - last.tx_bytes);
        fflush(stdout);
        last = now;
        next += 1000000000ull;
    }
    return 0;
}

/*
 * Packets the NIC dropped because the receive queue had no free slot (its
 * Q counter's out_of_buffer; dgn_eth_rxq_get_dropped is this library's
 * extension); -1 when the device cannot say.
 */
static int echo_rxq_dropped(struct doca_eth_rxq *rxq, uint64_t *dropped)
{
    *dropped = 0;
    return dgn_eth_rxq_get_dropped(rxq, dropped) == DOCA_SUCCESS ? 0 : -1;
}

static void echo_totals(struct echo *e)
{
    struct echo_counters t, c;
    uint64_t dropped = 0;
    int known = 1;
    char d[32];

    for (uint32_t i = 0; i < e->a.queues; i++) {
        uint64_t n = 0;

        echo_read(e, i, &c);
        if (e->q[i].rxq != NULL && echo_rxq_dropped(e->q[i].rxq, &n) == 0) {
            dropped += n;
            snprintf(d, sizeof(d), "%" PRIu64, n);
        } else {
            known = 0;
            snprintf(d, sizeof(d), "unknown");
        }
        printf("Queue %u: RX %" PRIu64 " packets %" PRIu64 " bytes, TX %" PRIu64 " packets %" PRIu64
               " bytes, not answered %" PRIu64 ", dropped %s\n",
               i, c.rx_pkts, c.rx_bytes, c.tx_pkts, c.tx_bytes, c.ignored, d);
    }
    echo_sum(e, &t);
    if (known)
        snprintf(d, sizeof(d), "%" PRIu64, dropped);
    else
        snprintf(d, sizeof(d), "unknown");
    printf("Total: RX %" PRIu64 " packets %" PRIu64 " bytes, TX %" PRIu64 " packets %" PRIu64
           " bytes, dropped %s\n",
           t.rx_pkts, t.rx_bytes, t.tx_pkts, t.tx_bytes, d);
    fflush(stdout);
}

/* ---- Teardown ------------------------------------------------------------------------------- */

static void echo_teardown(struct echo *e)
{
    if (e->flow != NULL && echo_check(dgn_eth_flow_destroy(e->flow), "dgn_eth_flow_destroy") == 0)
        e->flow = NULL;
    for (uint32_t i = 0; i < ECHO_MAX_QUEUES; i++) {
        struct echo_queue *q = &e->q[i];

        if (q->running)
            continue; /* its kernel may still use the queues: leave them to process exit */
        if (q->txq_started)
            echo_check(doca_ctx_stop(doca_eth_txq_as_doca_ctx(q->txq)), "stopping a send queue");
        if (q->rxq_started)
            echo_check(doca_ctx_stop(doca_eth_rxq_as_doca_ctx(q->rxq)), "stopping a receive queue");
        if (q->txq != NULL)
            echo_check(doca_eth_txq_destroy(q->txq), "doca_eth_txq_destroy");
        if (q->rxq != NULL)
            echo_check(doca_eth_rxq_destroy(q->rxq), "doca_eth_rxq_destroy");
        if (q->mmap != NULL)
            echo_check(doca_mmap_destroy(q->mmap), "doca_mmap_destroy");
        if (q->dmabuf_fd >= 0)
            close(q->dmabuf_fd);
        if (q->buf != NULL) {
            if (e->gpu != NULL)
                echo_check(doca_gpu_mem_free(e->gpu, q->buf), "doca_gpu_mem_free");
            else
                free(q->buf);
        }
        if (q->stream != NULL)
            ex_gpu_stream_destroy(q->stream);
        memset(q, 0, sizeof(*q));
        q->dmabuf_fd = -1;
    }
    if (e->shared != NULL) {
        if (e->gpu != NULL)
            echo_check(doca_gpu_mem_free(e->gpu, e->shared_dev), "doca_gpu_mem_free");
        else
            free(e->shared);
        e->shared = NULL;
    }
    if (e->gpu != NULL && echo_check(doca_gpu_destroy(e->gpu), "doca_gpu_destroy") == 0)
        e->gpu = NULL;
    if (e->dev != NULL && echo_check(doca_dev_close(e->dev), "doca_dev_close") == 0)
        e->dev = NULL;
    if (e->devinfos != NULL)
        doca_devinfo_destroy_list(e->devinfos);
    e->devinfos = NULL;
}

/* ---- Main ----------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    static struct echo e;
    struct doca_eth_rxq *rxqs[ECHO_MAX_QUEUES];
    int rc = echo_parse_args(argc, argv, &e.a);

    if (rc != 0)
        return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    for (uint32_t i = 0; i < ECHO_MAX_QUEUES; i++)
        e.q[i].dmabuf_fd = -1;
    ex_signals_install();
    rc = -1;
    if (echo_open_gpu(&e) != 0 || echo_open_dev(&e) != 0 || echo_make_shared(&e) != 0)
        goto out;
    for (uint32_t i = 0; i < e.a.queues; i++) {
        if (echo_make_queue(&e, i) != 0)
            goto out;
        rxqs[i] = e.q[i].rxq;
    }
    if (echo_check(dgn_eth_flow_create_udp(e.dev, e.a.port, rxqs, e.a.queues, &e.flow),
                   "steering the UDP port to the receive queues (dgn_eth_flow_create_udp)"))
        goto out;
    if (echo_launch(&e) != 0)
        goto stop;
    if (e.gpu != NULL)
        printf("%s: ready on %s, UDP port %u, %u queue%s of %u packets, GPU %s: one persistent "
               "kernel of %d threads per queue, rings in %s memory\n",
               ECHO_NAME, e.where, e.a.port, e.a.queues, e.a.queues > 1 ? "s" : "", e.a.ring,
               e.gpu_bus, ECHO_GPU_THREADS,
               e.a.rings == DOCA_GPU_MEM_TYPE_GPU ? "GPU" : "pinned host");
    else
        printf("%s: ready on %s, UDP port %u, %u queue%s of %u packets, CPU execution: one "
               "thread per queue\n",
               ECHO_NAME, e.where, e.a.port, e.a.queues, e.a.queues > 1 ? "s" : "", e.a.ring);
    fflush(stdout);
    rc = echo_report_loop(&e);
stop:
    if (echo_stop_executors(&e) != 0)
        rc = -1;
    echo_totals(&e);
out:
    echo_teardown(&e);
    EX_INFO("Sample finished %s", rc == 0 ? "successfully" : "with errors");
    return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
