/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet receive core (include/device/impl/gdaki_eth_rxq.h, what
 * doca_gpunetio_dev_eth_rxq.cuh calls and CPU threads run) over rings in
 * memory, with a small in-test NIC that does what a ConnectX does with a
 * cyclic RQ: it fills the packet slot of the next posted WQE (refusing the
 * packet when the RQ doorbell record says no WQE is posted) and writes its
 * CQE (RESP_SEND, wqe_counter, byte_cnt, timestamp in the real-time format),
 * the last four bytes (counter, signature, op_own) last, in one release
 * store. Checked: packet indices and counts, max and timeout, wrap-around of
 * the ring and of the CQ's owner bit, the doorbell records, the attributes,
 * an error CQE, the counters, a NIC thread racing the receiver, and the
 * per-lane calls the warp and block forms are made of.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <endian.h>
#include <cmocka.h>

#include "gdaki_eth_rxq.h"

#define RING     16 /* WQEs, packet slots, CQEs */
#define LOG_RING 4
#define STRIDE   256
#define RQN      0x321u
#define CQN      0x45u
#define MKEY     0xabcdu

struct fx {
    struct doca_gpu_eth_rxq rxq;
    uint8_t rq[RING * 16] __attribute__((aligned(64)));
    uint8_t cqes[RING * 64] __attribute__((aligned(64)));
    uint8_t pkts[RING * STRIDE] __attribute__((aligned(64)));
    gdaki_be32_t rq_dbrec;
    gdaki_be32_t cq_dbrec;
    /* The NIC's state. */
    uint64_t nic_pi;    /* packets written */
    uint64_t nic_drops; /* packets refused: no WQE posted */
    uint64_t app_done;  /* race test: packets the receiver has checked */
};

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof(*f));
    for (unsigned int i = 0; i < RING; i++) {
        struct prm_wqe_data_seg *d = (struct prm_wqe_data_seg *)(void *)(f->rq + i * 16);

        prm_wqe_set_data_seg(d, STRIDE, MKEY, (uint64_t)(uintptr_t)(f->pkts + i * STRIDE));
        f->cqes[i * 64 + 63] = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 1);
    }
    f->rq_dbrec = htobe32(RING); /* the host posted them all */
    gdaki_eth_desc_set_rxq(&f->rxq, f->rq, RING, RQN, &f->rq_dbrec, f->cqes, LOG_RING, CQN,
                           &f->cq_dbrec, f->pkts, STRIDE, RING, MKEY,
                           DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* Publishes a CQE built in `c` at ring entry k: body first, then the tail word (release). */
static void nic_put_cqe(uint8_t *ring, uint64_t k, const uint8_t *c)
{
    uint8_t *dst = ring + (k & (RING - 1)) * 64;
    uint32_t tail;

    memcpy(dst, c, 60);
    memcpy(&tail, c + 60, 4);
    __atomic_store_n((uint32_t *)(void *)(dst + 60), tail, __ATOMIC_RELEASE);
}

/* The NIC receives a frame of len bytes whose first 8 bytes are seq: 0 when no WQE is posted. */
static int nic_rx(struct fx *f, uint32_t len, uint64_t seq)
{
    uint32_t posted = be32toh(__atomic_load_n(&f->rq_dbrec, __ATOMIC_ACQUIRE));
    uint64_t p = f->nic_pi;
    uint8_t c[64];
    struct prm_cqe64 *cqe = (struct prm_cqe64 *)(void *)c;
    uint8_t *slot;

    if ((uint16_t)(posted - (uint16_t)p) == 0) {
        f->nic_drops++;
        return 0;
    }
    slot = f->pkts + (p & (RING - 1)) * STRIDE;
    memcpy(slot, &seq, sizeof(seq));
    memset(slot + 8, (int)(seq & 0xff), len - 8);
    c[63] = prm_cqe_fill_resp(cqe, PRM_CQE_OPCODE_RESP_SEND, RQN, (uint16_t)p, len, 0,
                              prm_cqe_owner_for_index(p, LOG_RING));
    cqe->timestamp = htobe64((7ull << 32) | (1000 + p)); /* 7 s, 1000 + p ns */
    nic_put_cqe(f->cqes, p, c);
    f->nic_pi = p + 1;
    return 1;
}

/* The NIC's RQ goes to error: an error CQE (RESP_ERR, local length error) for the next WQE. */
static void nic_rx_error(struct fx *f)
{
    uint8_t c[64];
    uint64_t p = f->nic_pi;

    c[63] = prm_cqe_fill_error((struct prm_cqe64 *)(void *)c, PRM_CQE_OPCODE_RESP_ERR,
                               PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR, 0x39, 0, RQN, (uint16_t)p,
                               prm_cqe_owner_for_index(p, LOG_RING));
    nic_put_cqe(f->cqes, p, c);
    f->nic_pi = p + 1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The setter: every field, the layout stamp, the receiver's starting state. */
static void test_rx_desc(void **state)
{
    struct fx f;

    (void)state;
    fx_init(&f);
    assert_int_equal(f.rxq.layout_version, DOCA_GPUNETIO_DEVICE_CODE_VERSION);
    assert_int_equal(f.rxq.layout_size, sizeof(struct doca_gpu_eth_rxq));
    assert_int_equal(sizeof(struct doca_gpu_eth_rxq), 256);
    assert_ptr_equal(f.rxq.pkt_daddr, f.pkts);
    assert_ptr_equal(f.rxq.wqe_daddr, f.rq);
    assert_ptr_equal(f.rxq.cqe_daddr, f.cqes);
    assert_ptr_equal(f.rxq.rq_dbrec, &f.rq_dbrec);
    assert_ptr_equal(f.rxq.cq_dbrec, &f.cq_dbrec);
    assert_int_equal(f.rxq.wqe_num, RING);
    assert_int_equal(f.rxq.wqe_mask, RING - 1);
    assert_int_equal(f.rxq.cqe_num, RING);
    assert_int_equal(f.rxq.cqe_log_num, LOG_RING);
    assert_int_equal(f.rxq.pkt_stride, STRIDE);
    assert_int_equal(f.rxq.pkt_num, RING);
    assert_int_equal(f.rxq.pkt_mkey, htobe32(MKEY));
    assert_int_equal(f.rxq.rq_num, RQN);
    assert_int_equal(f.rxq.cq_num, CQN);
    assert_int_equal(f.rxq.cqe_ci, 0);
    assert_int_equal(f.rxq.wqe_pi, RING);
    assert_int_equal(gdaki_eth_rx_pkt_addr(&f.rxq, 3), (uint64_t)(uintptr_t)(f.pkts + 3 * STRIDE));
    /* Any index wraps onto the ring. */
    assert_int_equal(gdaki_eth_rx_pkt_addr(&f.rxq, RING + 3),
                     (uint64_t)(uintptr_t)(f.pkts + 3 * STRIDE));
}

/* Nothing arrives: the timeout ends the receive, with no packet and nothing given back. */
static void test_rx_timeout_empty(void **state)
{
    struct fx f;
    uint64_t first = 0, t0;
    uint32_t num = 99;

    (void)state;
    fx_init(&f);
    t0 = now_ns();
    assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 8, 2000000, &first, &num, NULL,
                                       DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
                     DOCA_SUCCESS);
    assert_true(now_ns() - t0 >= 2000000);
    assert_int_equal(num, 0);
    assert_int_equal(first, DOCA_GPUNETIO_ETH_RX_NO_PKT);
    assert_int_equal(f.cq_dbrec, 0);
    assert_int_equal(f.rq_dbrec, htobe32(RING));
    assert_int_equal(f.rxq.counters.pkts, 0);
}

/*
 * A batch: first index, count, attributes, the packets where
 * get_pkt_addr says, the records given back, the counters.
 */
static void test_rx_batch(void **state)
{
    struct doca_gpu_dev_eth_rxq_attr attr[8];
    struct gdaki_eth_counters c;
    uint64_t first = 0, bytes = 0;
    uint32_t num = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < 5; i++) {
        assert_int_equal(nic_rx(&f, 60 + i, 100 + i), 1);
        bytes += 60 + i;
    }
    assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 8, 1000000, &first, &num, attr,
                                       DOCA_GPUNETIO_ETH_RX_ATTR_ALL),
                     DOCA_SUCCESS);
    assert_int_equal(num, 5);
    assert_int_equal(first, 0);
    for (unsigned int i = 0; i < 5; i++) {
        uint64_t seq;

        assert_int_equal(attr[i].bytes, 60 + i);
        assert_int_equal(attr[i].timestamp_ns, 7000000000ull + 1000 + i);
        memcpy(&seq, (void *)(uintptr_t)gdaki_eth_rx_pkt_addr(&f.rxq, first + i), 8);
        assert_int_equal(seq, 100 + i);
        assert_int_equal(gdaki_eth_rx_pkt_bytes(&f.rxq, first + i), 60 + i);
        assert_int_equal(gdaki_eth_rx_pkt_ts(&f.rxq, first + i), 7000000000ull + 1000 + i);
    }
    /* Five CQEs consumed; their WQEs stay with the receiver until the next receive. */
    assert_int_equal(f.cq_dbrec, htobe32(5));
    assert_int_equal(f.rq_dbrec, htobe32(RING));
    assert_int_equal(f.rxq.cqe_ci, 5);
    assert_int_equal(f.rxq.wqe_pi, RING);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 8, 1000, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(num, 0);
    assert_int_equal(f.rq_dbrec, htobe32(RING + 5));
    assert_int_equal(f.rxq.wqe_pi, RING + 5);
    c = gdaki_eth_rx_counters(&f.rxq);
    assert_int_equal(c.pkts, 5);
    assert_int_equal(c.bytes, bytes);
    assert_int_equal(c.completions, 5);
    assert_int_equal(c.errors, 0);
}

/* max_rx_pkts caps a receive; the next one goes on from there; both 0 takes what is there. */
static void test_rx_max_and_both_zero(void **state)
{
    uint64_t first = 0;
    uint32_t num = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < 10; i++)
        nic_rx(&f, 64, i);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 4, 0, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(first, 0);
    assert_int_equal(num, 4);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 4, 1000, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(first, 4);
    assert_int_equal(num, 4);
    /* Two left: the timeout ends it short of max. */
    assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 4, 1000000, &first, &num, NULL,
                                       DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
                     DOCA_SUCCESS);
    assert_int_equal(first, 8);
    assert_int_equal(num, 2);
    /* No max, no timeout: returns with what is there once there is something. */
    for (unsigned int i = 0; i < 3; i++)
        nic_rx(&f, 64, i);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 0, 0, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(first, 10);
    assert_int_equal(num, 3);
    assert_int_equal(f.rxq.counters.pkts, 13);
}

/* What each rx_attr writes, and a NULL attr. */
static void test_rx_attr_modes(void **state)
{
    struct doca_gpu_dev_eth_rxq_attr attr[2];
    uint64_t first = 0;
    uint32_t num = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    nic_rx(&f, 70, 1);
    memset(attr, 0xee, sizeof(attr));
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 1, 0, &first, &num, attr, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(num, 1);
    assert_int_equal(attr[0].bytes, 0xeeeeeeee);
    assert_int_equal(attr[0].timestamp_ns, 0xeeeeeeeeeeeeeeeeull);
    nic_rx(&f, 71, 2);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 1, 0, &first, &num, attr, DOCA_GPUNETIO_ETH_RX_ATTR_TS),
            DOCA_SUCCESS);
    assert_int_equal(attr[0].bytes, 0xeeeeeeee);
    assert_int_equal(attr[0].timestamp_ns, 7000000000ull + 1000 + 1);
    nic_rx(&f, 72, 3);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 1, 0, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_ALL),
            DOCA_SUCCESS);
    assert_int_equal(first, 2);
    assert_int_equal(f.rxq.counters.bytes, 70 + 71 + 72);
}

/*
 * Many laps of the ring and of the CQ: packet k is in slot k mod RING, the
 * owner bit flips each lap, the records carry the low bits of the counters.
 * A batch's WQEs go back when the next receive starts. A full ring drops:
 * the NIC has no WQE until a receive gives some back.
 */
static void test_rx_wraparound(void **state)
{
    uint64_t first = 0, seq = 0;
    uint32_t num = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    for (unsigned int round = 0; round < 200; round++) {
        uint32_t batch = 1 + round % 7;

        for (uint32_t i = 0; i < batch; i++)
            assert_int_equal(nic_rx(&f, 64, seq + i), 1);
        /* Fewer than max are there: a short timeout ends it (0 would wait for max). */
        assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 8, 1000, &first, &num, NULL,
                                           DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
                         DOCA_SUCCESS);
        assert_int_equal(num, batch);
        assert_int_equal(first, seq & (RING - 1));
        for (uint32_t i = 0; i < num; i++) {
            uint64_t got;

            memcpy(&got, (void *)(uintptr_t)gdaki_eth_rx_pkt_addr(&f.rxq, first + i), 8);
            assert_int_equal(got, seq + i);
        }
        assert_int_equal(f.rq_dbrec, htobe32((uint32_t)(seq + RING) & 0xffff));
        seq += batch;
        assert_int_equal(f.cq_dbrec, htobe32((uint32_t)seq & 0xffffff));
    }
    /* A receive that finds nothing still gives the last batch's WQEs back. */
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 8, 1000, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(num, 0);
    assert_int_equal(f.rq_dbrec, htobe32((uint32_t)(seq + RING) & 0xffff));
    /* A full ring: RING packets fit, the next is dropped; one receive takes the whole ring. */
    for (unsigned int i = 0; i < RING; i++)
        assert_int_equal(nic_rx(&f, 64, seq + i), 1);
    assert_int_equal(nic_rx(&f, 64, 0), 0);
    assert_int_equal(f.nic_drops, 1);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 0, 0, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(num, RING);
    assert_int_equal(first, seq & (RING - 1));
    /* Still no WQE until the next receive starts, which takes none of them back. */
    assert_int_equal(nic_rx(&f, 64, 0), 0);
    assert_int_equal(
            gdaki_eth_rx_recv(&f.rxq, 1, 1000, &first, &num, NULL, DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
            DOCA_SUCCESS);
    assert_int_equal(num, 0);
    assert_int_equal(nic_rx(&f, 64, 0), 1);
}

/* An error CQE: the packets before it, then DOCA_ERROR_DRIVER on every receive; recorded once. */
static void test_rx_error_cqe(void **state)
{
    struct gdaki_eth_counters c;
    uint64_t first = 0;
    uint32_t num = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < 3; i++)
        nic_rx(&f, 64, i);
    nic_rx_error(&f);
    assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 8, 1000000, &first, &num, NULL,
                                       DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
                     DOCA_ERROR_DRIVER);
    assert_int_equal(num, 3);
    assert_int_equal(first, 0);
    assert_int_equal(f.cq_dbrec, htobe32(3));
    assert_int_equal(f.rxq.err.has_error, 1);
    assert_int_equal(f.rxq.err.syndrome, PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR);
    assert_int_equal(f.rxq.err.vendor_err_synd, 0x39);
    assert_int_equal(f.rxq.err.opcode, PRM_CQE_OPCODE_RESP_ERR);
    assert_int_equal(f.rxq.err.wqe_counter, 3);
    assert_int_equal(gdaki_eth_rx_recv(&f.rxq, 8, 1000000, &first, &num, NULL,
                                       DOCA_GPUNETIO_ETH_RX_ATTR_NONE),
                     DOCA_ERROR_DRIVER);
    assert_int_equal(num, 0);
    assert_int_equal(first, DOCA_GPUNETIO_ETH_RX_NO_PKT);
    c = gdaki_eth_rx_counters(&f.rxq);
    assert_int_equal(c.pkts, 3);
    assert_int_equal(c.completions, 3);
    assert_int_equal(c.errors, 1);
}

/*
 * The per-lane calls a warp or block receive is made of, lanes run one after
 * the other: each lane reads CQE ci + lane, the run from lane 0 is taken and
 * committed once.
 */
static void test_rx_lanes(void **state)
{
    enum { LANES = 8 };
    int st[LANES];
    uint32_t slot[LANES], len[LANES], take = 0;
    uint64_t ts[LANES], bytes = 0;
    struct fx f;

    (void)state;
    fx_init(&f);
    for (unsigned int i = 0; i < 5; i++)
        nic_rx(&f, 60 + i, i);
    for (unsigned int lane = 0; lane < LANES; lane++)
        st[lane] =
                gdaki_eth_rx_cqe(&f.rxq, f.rxq.cqe_ci + lane, &slot[lane], &len[lane], &ts[lane]);
    while (take < LANES && st[take] == GDAKI_ETH_CQE_OK) {
        assert_int_equal(slot[take], take);
        bytes += len[take];
        take++;
    }
    assert_int_equal(take, 5);
    for (unsigned int lane = take; lane < LANES; lane++)
        assert_int_equal(st[lane], GDAKI_ETH_CQE_NONE);
    gdaki_eth_rx_commit(&f.rxq, take, bytes);
    assert_int_equal(f.rxq.cqe_ci, 5);
    assert_int_equal(f.rq_dbrec, htobe32(RING));
    gdaki_eth_rx_release(&f.rxq);
    assert_int_equal(f.rq_dbrec, htobe32(RING + 5));
    assert_int_equal(f.rxq.counters.bytes, 60 + 61 + 62 + 63 + 64);
}

/*
 * A NIC thread races the receiver: every packet arrives once, in order,
 * whole. The receiver checks each batch before the ring wraps back to it (the
 * NIC is held back by app_done: what DOCA's cyclic semantics ask of a user).
 */
#define RACE_PKTS 20000u

static void *nic_thread(void *arg)
{
    struct fx *f = arg;
    uint64_t seq = 0;

    while (seq < RACE_PKTS) {
        if (seq < __atomic_load_n(&f->app_done, __ATOMIC_ACQUIRE) + RING &&
            nic_rx(f, 64 + (uint32_t)(seq % 100), seq))
            seq++;
        else
            sched_yield();
    }
    return NULL;
}

static void test_rx_nic_thread(void **state)
{
    struct doca_gpu_dev_eth_rxq_attr attr[RING];
    static struct fx f;
    uint64_t expect = 0;
    pthread_t t;

    (void)state;
    fx_init(&f);
    assert_int_equal(pthread_create(&t, NULL, nic_thread, &f), 0);
    while (expect < RACE_PKTS) {
        uint64_t first = 0;
        uint32_t num = 0;

        assert_int_equal(gdaki_eth_rx_recv(&f.rxq, RING, 100000, &first, &num, attr,
                                           DOCA_GPUNETIO_ETH_RX_ATTR_ALL),
                         DOCA_SUCCESS);
        for (uint32_t i = 0; i < num; i++) {
            const uint8_t *p = (const uint8_t *)(uintptr_t)gdaki_eth_rx_pkt_addr(&f.rxq, first + i);
            uint64_t seq;

            memcpy(&seq, p, 8);
            assert_int_equal(seq, expect);
            assert_int_equal(attr[i].bytes, 64 + seq % 100);
            assert_int_equal(p[attr[i].bytes - 1], seq & 0xff);
            expect++;
        }
        __atomic_store_n(&f.app_done, expect, __ATOMIC_RELEASE);
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(f.rxq.counters.pkts, RACE_PKTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rx_desc),       cmocka_unit_test(test_rx_timeout_empty),
            cmocka_unit_test(test_rx_batch),      cmocka_unit_test(test_rx_max_and_both_zero),
            cmocka_unit_test(test_rx_attr_modes), cmocka_unit_test(test_rx_wraparound),
            cmocka_unit_test(test_rx_error_cqe),  cmocka_unit_test(test_rx_lanes),
            cmocka_unit_test(test_rx_nic_thread),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
