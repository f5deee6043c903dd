/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_eth_udp_echo with --exec cpu: one CPU thread per queue runs the
 * C core under the device API (impl/gdaki_eth_rxq.h, impl/gdaki_eth_txq.h),
 * thread scope, over queues whose rings and packets are in host memory.
 * The same steps as the kernel: receive a batch, answer in place, send the
 * answers as one batch whose last WQE asks for a completion, wait for it,
 * count.
 */
#include <sched.h>
#include <stdint.h>

#include "ex_udp_swap.h"
#include "gdaki_eth_rxq.h"
#include "gdaki_eth_txq.h"
#include "udp_echo.h"

static int echo_cpu_exiting(const struct echo_job *job)
{
    return __atomic_load_n(&job->shared->exit_flag, __ATOMIC_ACQUIRE) != 0;
}

static void echo_cpu_store(uint64_t *counter, uint64_t value)
{
    __atomic_store_n(counter, value, __ATOMIC_RELAXED);
}

/*
 * Posts the m answers (addresses and lengths) as one batch, the last asking
 * for a completion, and waits for it; 0, or the echo_error that stopped it
 * (ECHO_INTERRUPTED when the exit flag was set while waiting).
 */
static int echo_cpu_send(const struct echo_job *job, const uint64_t *addr, const uint32_t *len,
                         uint32_t m)
{
    /* The receive buffer's memory key (doca_gpu_dev_eth_rxq_get_pkt_mkey on the GPU). */
    const gdaki_be32_t mkey_be = gdaki_ro_u32((const uint32_t *)&job->rxq->pkt_mkey);
    const enum doca_gpu_dev_eth_resource_sharing_mode one =
            DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE;
    uint64_t base = 0, bytes = 0;
    uint32_t done = 0;
    doca_error_t st;

    /* The previous batch's completion was waited for: the slots are free (a batch < ring). */
    st = gdaki_eth_tx_reserve(job->txq, m, one, &base);
    if (st != DOCA_SUCCESS)
        return ECHO_ERR_SEND;
    for (uint32_t i = 0; i < m; i++) {
        gdaki_eth_tx_wqe_send(job->txq, gdaki_eth_tx_wqe_ptr(job->txq, base + i), base + i, addr[i],
                              mkey_be, len[i],
                              i == m - 1 ? DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY
                                         : DOCA_GPUNETIO_ETH_SEND_FLAG_NONE);
        bytes += len[i];
    }
    gdaki_eth_tx_commit(job->txq, base, m, bytes, one, DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS,
                        DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO);
    /*
     * The answers are sent from the receive slots: wait until the NIC has read them. Without
     * blocking in the core, so that the exit flag is seen even if the NIC never answers.
     */
    for (uint64_t start = gdaki_eth_now_ns();;) {
        st = gdaki_eth_tx_poll_completion(job->txq, 1, DOCA_GPUNETIO_ETH_CQ_POLL_LAST,
                                          DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, one,
                                          DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS);
        if (st != DOCA_SUCCESS)
            return ECHO_ERR_COMPLETION;
        if (done != 0)
            return ECHO_OK;
        if (echo_cpu_exiting(job))
            return ECHO_INTERRUPTED; /* not counted as sent: their completion is unknown */
        if (gdaki_eth_now_ns() - start > ECHO_STALL_NS)
            return ECHO_ERR_STALL;
        gdaki_spin_pause();
    }
}

void echo_cpu_run(const struct echo_job *job)
{
    struct echo_counters *c = &job->shared->q[job->queue];
    struct doca_gpu_dev_eth_rxq_attr attr[ECHO_CPU_BATCH];
    uint64_t addr[ECHO_CPU_BATCH];
    uint32_t len[ECHO_CPU_BATCH];
    uint64_t rx = 0, rx_bytes = 0, tx = 0, tx_bytes = 0, ignored = 0;
    int error = ECHO_OK;

    while (!echo_cpu_exiting(job)) {
        uint64_t first = 0;
        uint32_t n = 0, m = 0;
        doca_error_t st = gdaki_eth_rx_recv(job->rxq, job->batch, ECHO_RX_TIMEOUT_NS, &first, &n,
                                            attr, DOCA_GPUNETIO_ETH_RX_ATTR_ALL);

        if (st != DOCA_SUCCESS) {
            error = ECHO_ERR_RECV;
            break;
        }
        if (n == 0) {
            /* An idle queue: let the NIC's thread (softmlx5) and the others have the core. */
            sched_yield();
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t a = gdaki_eth_rx_pkt_addr(job->rxq, first + i);

            rx_bytes += attr[i].bytes;
            if (ex_udp_swap((uint8_t *)(uintptr_t)a, attr[i].bytes, job->port) == 0) {
                ignored++;
                continue;
            }
            addr[m] = a;
            len[m] = attr[i].bytes;
            m++;
        }
        rx += n;
        /* What was received counts now, whatever the answers take. */
        echo_cpu_store(&c->rx_pkts, rx);
        echo_cpu_store(&c->rx_bytes, rx_bytes);
        echo_cpu_store(&c->ignored, ignored);
        if (m != 0) {
            error = echo_cpu_send(job, addr, len, m);
            if (error == ECHO_INTERRUPTED)
                error = ECHO_OK;
            if (error != ECHO_OK || echo_cpu_exiting(job))
                break;
            tx += m;
            for (uint32_t i = 0; i < m; i++)
                tx_bytes += len[i];
        }
        echo_cpu_store(&c->tx_pkts, tx);
        echo_cpu_store(&c->tx_bytes, tx_bytes);
    }
    echo_cpu_store(&c->rx_pkts, rx);
    echo_cpu_store(&c->rx_bytes, rx_bytes);
    echo_cpu_store(&c->tx_pkts, tx);
    echo_cpu_store(&c->tx_bytes, tx_bytes);
    echo_cpu_store(&c->ignored, ignored);
    echo_cpu_store(&c->error, (uint64_t)error);
}
