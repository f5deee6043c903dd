/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every call of the Ethernet device API with DOCA 3.x's parameter lists
 * (doca_gpunetio_dev_eth_rxq.cuh, doca_gpunetio_dev_eth_txq.cuh), written
 * as DOCA's samples write them: a persistent receive kernel (the shape of
 * gpunetio_simple_receive), a send loop with a notification per block and a
 * completion poll (gpunetio_simple_send), a UDP echo (receive a batch, send
 * it back), the low-level send path, and every scope, template default
 * left out and given. Compiled only; tests/unit/test_dp_eth_rx.c and
 * test_dp_eth_tx.c check what the core under them does, on CPU threads.
 */
#include <stdint.h>

#include "doca_gpunetio_dev_eth_rxq.cuh"
#include "doca_gpunetio_dev_eth_txq.cuh"

#define MAX_RX_PKTS   64
#define RX_TIMEOUT_NS 500000

/* gpunetio_simple_receive: one block per queue, block scope, until told to stop. */
__global__ void eth_simple_receive(struct doca_gpu_eth_rxq *rxq, uint32_t *exit_cond,
                                   unsigned long long *total)
{
    __shared__ uint64_t first_pkt_idx;
    __shared__ uint32_t pkt_num;
    __shared__ struct doca_gpu_dev_eth_rxq_attr attr[MAX_RX_PKTS];
    doca_error_t ret;

    while (DOCA_GPUNETIO_VOLATILE(*exit_cond) == 0) {
        ret = doca_gpu_dev_eth_rxq_recv<
                DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK, DOCA_GPUNETIO_ETH_MCST_AUTO,
                DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO, DOCA_GPUNETIO_ETH_RX_ATTR_ALL>(
                rxq, MAX_RX_PKTS, RX_TIMEOUT_NS, &first_pkt_idx, &pkt_num, attr);
        if (ret != DOCA_SUCCESS) {
            if (threadIdx.x == 0)
                DOCA_GPUNETIO_VOLATILE(*exit_cond) = 1;
            break;
        }
        if (pkt_num == 0)
            continue;
        for (uint32_t i = threadIdx.x; i < pkt_num; i += blockDim.x) {
            const uint8_t *pkt =
                    (const uint8_t *)doca_gpu_dev_eth_rxq_get_pkt_addr(rxq, first_pkt_idx + i);

            if (pkt[12] == 0x08 && attr[i].bytes > 14 && attr[i].timestamp_ns != 0)
                atomicAdd(total, (unsigned long long)attr[i].bytes);
        }
        __syncthreads();
    }
}

/* gpunetio_simple_send: every thread sends, the block's last asks for a CQE and thread 0 polls. */
template <enum doca_gpu_dev_eth_exec_scope exec_scope>
__global__ void eth_simple_send(struct doca_gpu_eth_txq *txq, uint64_t pkt_addr, uint32_t mkey_be,
                                uint32_t pkt_size, uint32_t *exit_cond)
{
    doca_gpu_dev_eth_ticket_t ticket;
    enum doca_gpu_eth_send_flags flags = DOCA_GPUNETIO_ETH_SEND_FLAG_NONE;
    uint32_t num_completed;
    uint32_t count_cqe = 1;
    const uint64_t addr = pkt_addr + (uint64_t)pkt_size * threadIdx.x;

    if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_THREAD) {
        count_cqe = blockDim.x;
        flags = DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY;
    } else if (exec_scope == DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP) {
        count_cqe = blockDim.x / DOCA_GPUNETIO_ETH_WARP_SIZE;
        if (doca_gpu_dev_eth_get_lane_id() == DOCA_GPUNETIO_ETH_WARP_SIZE - 1)
            flags = DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY;
    } else if (threadIdx.x == blockDim.x - 1) {
        flags = DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY;
    }
    while (DOCA_GPUNETIO_VOLATILE(*exit_cond) == 0) {
        doca_gpu_dev_eth_txq_send<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU,
                                  DOCA_GPUNETIO_ETH_SYNC_SCOPE_GPU,
                                  DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO, exec_scope>(
                txq, addr, mkey_be, pkt_size, flags, &ticket);
        if (exec_scope != DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK)
            __syncthreads();
        if (threadIdx.x == 0 &&
            doca_gpu_dev_eth_txq_poll_completion<DOCA_GPUNETIO_ETH_CQ_POLL_LAST>(
                    txq, count_cqe, DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &num_completed) != DOCA_SUCCESS)
            DOCA_GPUNETIO_VOLATILE(*exit_cond) = 1;
        __syncthreads();
    }
}

template __global__ void
eth_simple_send<DOCA_GPUNETIO_ETH_EXEC_SCOPE_THREAD>(struct doca_gpu_eth_txq *, uint64_t, uint32_t,
                                                     uint32_t, uint32_t *);
template __global__ void
eth_simple_send<DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP>(struct doca_gpu_eth_txq *, uint64_t, uint32_t,
                                                   uint32_t, uint32_t *);
template __global__ void
eth_simple_send<DOCA_GPUNETIO_ETH_EXEC_SCOPE_BLOCK>(struct doca_gpu_eth_txq *, uint64_t, uint32_t,
                                                    uint32_t, uint32_t *);

/*
 * A UDP echo: a warp receives a batch, each lane sends a packet of it back
 * (the receive buffer's own memory, its mkey) with the low-level calls, and
 * lane 0 submits and waits for the batch's last CQE.
 */
template <enum doca_gpu_dev_eth_nic_handler nic_handler>
__global__ void eth_echo(struct doca_gpu_eth_rxq *rxq, struct doca_gpu_eth_txq *txq,
                         uint32_t *exit_cond)
{
    __shared__ uint64_t first;
    __shared__ uint32_t num;
    __shared__ struct doca_gpu_dev_eth_rxq_attr attr[DOCA_GPUNETIO_ETH_WARP_SIZE];
    const uint32_t lane = doca_gpu_dev_eth_get_lane_id();
    const uint32_t mkey = doca_gpu_dev_eth_rxq_get_pkt_mkey(rxq);
    uint32_t done;

    while (DOCA_GPUNETIO_VOLATILE(*exit_cond) == 0) {
        if (doca_gpu_dev_eth_rxq_recv_warp<DOCA_GPUNETIO_ETH_MCST_DISABLED, nic_handler,
                                           DOCA_GPUNETIO_ETH_RX_ATTR_ALL>(
                    rxq, DOCA_GPUNETIO_ETH_WARP_SIZE, 0, &first, &num, attr) != DOCA_SUCCESS)
            break;
        if (num == 0)
            continue;
        uint64_t base = 0;

        if (lane == 0)
            base = doca_gpu_dev_eth_txq_reserve_wq_slots<
                    DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(txq, num);
        base = __shfl_sync(DOCA_GPUNETIO_ETH_WARP_FULL_MASK, base, 0);
        if (lane < num) {
            struct doca_gpu_dev_eth_txq_wqe *wqe =
                    doca_gpu_dev_eth_txq_get_wqe_ptr(txq, (uint16_t)(base + lane));

            doca_gpu_dev_eth_txq_wqe_prepare_send(
                    txq, wqe, (uint16_t)(base + lane),
                    doca_gpu_dev_eth_rxq_get_pkt_addr(rxq, first + lane), mkey, attr[lane].bytes,
                    lane == num - 1 ? DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY
                                    : DOCA_GPUNETIO_ETH_SEND_FLAG_NONE);
        }
        __syncwarp();
        if (lane == 0) {
            doca_gpu_dev_eth_txq_mark_wqes_ready<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(
                    txq, base, base + num - 1);
            doca_gpu_dev_eth_txq_submit<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                        DOCA_GPUNETIO_ETH_SYNC_SCOPE_GPU, nic_handler>(txq,
                                                                                       base + num);
            if (doca_gpu_dev_eth_txq_poll_completion<
                        DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                        DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(
                        txq, 1, DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &done) != DOCA_SUCCESS)
                DOCA_GPUNETIO_VOLATILE(*exit_cond) = 1;
        }
        __syncwarp();
    }
}

template __global__ void eth_echo<DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO>(struct doca_gpu_eth_rxq *,
                                                                      struct doca_gpu_eth_txq *,
                                                                      uint32_t *);
template __global__ void
eth_echo<DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY>(struct doca_gpu_eth_rxq *,
                                                  struct doca_gpu_eth_txq *, uint32_t *);
template __global__ void
eth_echo<DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB>(struct doca_gpu_eth_rxq *,
                                                  struct doca_gpu_eth_txq *, uint32_t *);

/* Every remaining form: the other scopes and defaults of recv, the doorbell calls, polls. */
__global__ void eth_api_rest(struct doca_gpu_eth_rxq *rxq, struct doca_gpu_eth_txq *txq,
                             uint64_t addr, uint32_t mkey, uint64_t *out)
{
    __shared__ uint64_t first;
    __shared__ uint32_t num;
    struct doca_gpu_dev_eth_rxq_attr attr[4];
    doca_gpu_dev_eth_ticket_t t;
    doca_gpu_dev_eth_txq_ticket_t t2 = 0;
    uint32_t done = 0;
    uint64_t r = 0;

    r |= doca_gpu_dev_eth_rxq_recv(rxq, 4, 0, &first, &num, attr);
    r |= doca_gpu_dev_eth_rxq_recv<DOCA_GPUNETIO_ETH_EXEC_SCOPE_WARP>(rxq, 32, 1000, &first, &num,
                                                                      NULL);
    r |= doca_gpu_dev_eth_rxq_recv_thread(rxq, 4, 1000, &first, &num, attr);
    r |= doca_gpu_dev_eth_rxq_recv_thread<DOCA_GPUNETIO_ETH_MCST_ENABLED,
                                          DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY,
                                          DOCA_GPUNETIO_ETH_RX_ATTR_TS>(rxq, 4, 0, &first, &num,
                                                                        attr);
    r |= doca_gpu_dev_eth_rxq_recv_warp(rxq, 32, 0, &first, &num, NULL);
    r |= doca_gpu_dev_eth_rxq_recv_block(rxq, 0, 1000, &first, &num, NULL);
    r += doca_gpu_dev_eth_rxq_get_pkt_ts(rxq, first) +
         doca_gpu_dev_eth_rxq_get_pkt_bytes(rxq, first);
    r += doca_gpu_dev_eth_query_globaltimer();

    doca_gpu_dev_eth_txq_send(txq, addr, mkey, 64, DOCA_GPUNETIO_ETH_SEND_FLAG_NONE, &t);
    doca_gpu_dev_eth_txq_send_thread(txq, addr, mkey, 64, DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY, &t);
    doca_gpu_dev_eth_txq_send_thread<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA,
                                     DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS,
                                     DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY>(
            txq, addr, mkey, 64, DOCA_GPUNETIO_ETH_SEND_FLAG_NONE, &t);
    doca_gpu_dev_eth_txq_send_warp(txq, addr, mkey, 64, DOCA_GPUNETIO_ETH_SEND_FLAG_NONE, &t);
    doca_gpu_dev_eth_txq_send_block<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE>(
            txq, addr, mkey, 64, DOCA_GPUNETIO_ETH_SEND_FLAG_NONE, &t);

    t2 = doca_gpu_dev_eth_txq_reserve_wq_slots(txq, 2);
    doca_gpu_dev_eth_txq_wqe_prepare_send(txq, doca_gpu_dev_eth_txq_get_wqe_ptr(txq, t2), t2, addr,
                                          mkey, 60, DOCA_GPUNETIO_ETH_SEND_FLAG_NONE);
    doca_gpu_dev_eth_txq_wqe_prepare_send(txq, doca_gpu_dev_eth_txq_get_wqe_ptr(txq, t2 + 1),
                                          t2 + 1, addr, mkey, 60,
                                          DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY);
    doca_gpu_dev_eth_txq_mark_wqes_ready(txq, t2, t2 + 1);
    doca_gpu_dev_eth_txq_submit(txq, t2 + 2);
    doca_gpu_dev_eth_txq_submit_db<DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU,
                                   DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS>(txq, t2 + 2);
    doca_gpu_dev_eth_txq_submit_proxy(txq, t2 + 2);
    doca_gpu_dev_eth_txq_update_dbr(txq, (uint32_t)(t2 + 2));
    doca_gpu_dev_eth_txq_ring_db<DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS>(txq, t2 + 2);
    r |= doca_gpu_dev_eth_txq_poll_completion(txq, 1, DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done);
    r |= doca_gpu_dev_eth_txq_poll_completion<DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                              DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_CTA,
                                              DOCA_GPUNETIO_ETH_SYNC_SCOPE_SYS>(
            txq, 2, DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &done);
    out[0] = r + t + done + t2 + num;
}
