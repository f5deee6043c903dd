/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet send core (include/device/impl/gdaki_eth_txq.h, what
 * doca_gpunetio_dev_eth_txq.cuh calls and CPU threads run) over rings in
 * memory, with a small in-test NIC that does what a ConnectX does with an
 * SQ: it takes the WQEs below the producer index the doorbell record (or the
 * CPU proxy's word) gives, checks their control, Ethernet and data segments,
 * and writes a send CQE for a WQE that asks for one (an error CQE for one
 * told to fail), the last four bytes in one release store; it stops while
 * the CQ has no free entry. Checked: the WQE's bytes, the doorbell record
 * and doorbell, the proxy word, tickets, DOCA_ERROR_AGAIN on a full ring
 * and success once a CQE frees it, the poll modes, an error CQE, batches
 * (what the warp and block forms do), producer threads sharing a queue with
 * a NIC thread, and the counters.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <cmocka.h>

#include "gdaki_eth_txq.h"

#define RING     8 /* WQEs and CQEs */
#define LOG_RING 3
#define SQN      0x2345u
#define CQN      0x66u
#define LKEY     0x1234u
#define CS       (DOCA_GPUNETIO_ETH_WQE_L3_CSUM | DOCA_GPUNETIO_ETH_WQE_L4_CSUM)

static const enum doca_gpu_dev_eth_resource_sharing_mode excl =
        DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_EXCLUSIVE;
static const enum doca_gpu_dev_eth_resource_sharing_mode gpu =
        DOCA_GPUNETIO_ETH_RESOURCE_SHARING_MODE_GPU;
static const enum doca_gpu_dev_eth_sync_scope sgpu = DOCA_GPUNETIO_ETH_SYNC_SCOPE_GPU;
static const enum doca_gpu_dev_eth_nic_handler nauto = DOCA_GPUNETIO_ETH_NIC_HANDLER_AUTO;
static const uint32_t notify = DOCA_GPUNETIO_ETH_SEND_FLAG_NOTIFY;
static const uint32_t none = DOCA_GPUNETIO_ETH_SEND_FLAG_NONE;

struct fx {
    struct doca_gpu_eth_txq txq;
    uint8_t sq[RING * 64] __attribute__((aligned(64)));
    uint8_t cqes[RING * 64] __attribute__((aligned(64)));
    gdaki_be32_t sq_dbrec;
    gdaki_be32_t cq_dbrec;
    uint64_t uar;
    uint64_t proxy_pi;
    /* The NIC's state. */
    uint64_t nic_ci;     /* WQEs taken */
    uint64_t nic_cq_pi;  /* CQEs written */
    uint64_t fail_wqe;   /* the WQE that fails (error CQE); ~0: none */
    uint64_t sent_bytes; /* bytes of the WQEs taken */
    uint64_t addr_sum;   /* sum of their addresses */
    uint32_t bad;        /* WQEs whose segments were not what a send should be */
    int stop;            /* NIC thread: stop once every WQE is taken */
    int nic_done;        /* NIC thread: stopped */
};

static void fx_init(struct fx *f, enum doca_gpu_dev_eth_nic_handler handler)
{
    memset(f, 0, sizeof(*f));
    for (unsigned int i = 0; i < RING; i++)
        f->cqes[i * 64 + 63] = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 1);
    f->fail_wqe = ~0ull;
    gdaki_eth_desc_set_txq(&f->txq, f->sq, RING, SQN, &f->sq_dbrec,
                           handler == DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY ? NULL : &f->uar,
                           handler, &f->proxy_pi, f->cqes, LOG_RING, CQN, &f->cq_dbrec, CS,
                           DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* The producer index the NIC has been given. */
static uint64_t nic_producer(struct fx *f)
{
    uint16_t pi;

    if (f->txq.nic_handler == DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY)
        return __atomic_load_n(&f->proxy_pi, __ATOMIC_ACQUIRE);
    pi = (uint16_t)be32toh(__atomic_load_n(&f->sq_dbrec, __ATOMIC_ACQUIRE));
    return f->nic_ci + (uint16_t)(pi - (uint16_t)f->nic_ci);
}

/* Writes CQE number k: body, then the tail word in one release store. */
static void nic_put_cqe(struct fx *f, const uint8_t *c)
{
    uint8_t *dst = f->cqes + (f->nic_cq_pi & (RING - 1)) * 64;
    uint32_t tail;

    memcpy(dst, c, 60);
    memcpy(&tail, c + 60, 4);
    __atomic_store_n((uint32_t *)(void *)(dst + 60), tail, __ATOMIC_RELEASE);
    f->nic_cq_pi++;
}

/*
 * Takes the WQEs the NIC has been given, as far as the CQ has room for their
 * CQEs; returns how many it took.
 */
static unsigned int nic_tx(struct fx *f)
{
    uint64_t prod = nic_producer(f);
    unsigned int taken = 0;

    while (f->nic_ci < prod) {
        const uint8_t *w = f->sq + (f->nic_ci & (RING - 1)) * 64;
        const struct prm_wqe_ctrl_seg *ctrl = (const struct prm_wqe_ctrl_seg *)(const void *)w;
        const struct prm_wqe_data_seg *data =
                (const struct prm_wqe_data_seg *)(const void *)(w + 32);
        uint32_t cq_ci = be32toh(__atomic_load_n(&f->cq_dbrec, __ATOMIC_ACQUIRE));
        int cqe = (ctrl->fm_ce_se & PRM_WQE_CTRL_CE_MASK) == PRM_WQE_CTRL_CQ_UPDATE ||
                  f->nic_ci == f->fail_wqe;
        uint8_t c[64];

        if (cqe && (uint32_t)(f->nic_cq_pi - cq_ci) >= RING)
            break; /* no room in the CQ */
        if (be32toh(ctrl->opmod_idx_opcode) !=
                    (((uint32_t)(f->nic_ci & 0xffff) << 8) | PRM_WQE_OPCODE_SEND) ||
            be32toh(ctrl->qpn_ds) != ((SQN << 8) | 3) || w[16 + 4] != CS || w[16 + 12] != 0 ||
            w[16 + 13] != 0 || be32toh(data->lkey) != LKEY)
            f->bad++;
        f->sent_bytes += be32toh(data->byte_count);
        f->addr_sum += be64toh(data->addr);
        if (f->nic_ci == f->fail_wqe) {
            c[63] = prm_cqe_fill_error((struct prm_cqe64 *)(void *)c, PRM_CQE_OPCODE_REQ_ERR,
                                       PRM_CQE_SYNDROME_LOCAL_PROT_ERR, 0x42, PRM_WQE_OPCODE_SEND,
                                       SQN, (uint16_t)f->nic_ci,
                                       prm_cqe_owner_for_index(f->nic_cq_pi, LOG_RING));
            nic_put_cqe(f, c);
        } else if (cqe) {
            c[63] = prm_cqe_fill_req((struct prm_cqe64 *)(void *)c, PRM_WQE_OPCODE_SEND, SQN,
                                     (uint16_t)f->nic_ci, be32toh(data->byte_count),
                                     prm_cqe_owner_for_index(f->nic_cq_pi, LOG_RING));
            nic_put_cqe(f, c);
        }
        f->nic_ci++;
        taken++;
    }
    return taken;
}

/* The setter: every field, the layout stamp. */
static void test_tx_desc(void **state)
{
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(f.txq.layout_version, DOCA_GPUNETIO_DEVICE_CODE_VERSION);
    assert_int_equal(f.txq.layout_size, sizeof(struct doca_gpu_eth_txq));
    assert_int_equal(sizeof(struct doca_gpu_eth_txq), 384);
    assert_ptr_equal(f.txq.wqe_daddr, f.sq);
    assert_ptr_equal(f.txq.sq_dbrec, &f.sq_dbrec);
    assert_ptr_equal(f.txq.sq_db, &f.uar);
    assert_ptr_equal(f.txq.cqe_daddr, f.cqes);
    assert_ptr_equal(f.txq.cq_dbrec, &f.cq_dbrec);
    assert_int_equal(f.txq.wqe_num, RING);
    assert_int_equal(f.txq.wqe_mask, RING - 1);
    assert_int_equal(f.txq.cqe_num, RING);
    assert_int_equal(f.txq.cqe_log_num, LOG_RING);
    assert_int_equal(f.txq.sq_num, SQN);
    assert_int_equal(f.txq.cq_num, CQN);
    assert_int_equal(f.txq.nic_handler, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(f.txq.cs_flags, CS);
    assert_int_equal(f.txq.sq_num_shift8_be_3ds, htobe32((SQN << 8) | 3));
    assert_int_equal(gdaki_eth_desc_nic_scope(1, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB, 1, 1),
                     DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
    assert_int_equal(gdaki_eth_desc_nic_scope(1, DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY, 1, 1),
                     DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    assert_int_equal(gdaki_eth_desc_nic_scope(0, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB, 1, 1),
                     DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    assert_int_equal(gdaki_eth_desc_nic_scope(1, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB, 1, 0),
                     DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
}

/* One send: the WQE's bytes, the ticket, the record, the doorbell, the counters. */
static void test_tx_wqe_and_doorbell(void **state)
{
    const struct prm_wqe_ctrl_seg *ctrl;
    const struct prm_wqe_data_seg *data;
    uint64_t ticket = 99;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 60, notify, &ticket, excl,
                                       sgpu, nauto),
                     DOCA_SUCCESS);
    assert_int_equal(ticket, 0);
    ctrl = (const struct prm_wqe_ctrl_seg *)(const void *)f.sq;
    data = (const struct prm_wqe_data_seg *)(const void *)(f.sq + 32);
    assert_int_equal(ctrl->opmod_idx_opcode, htobe32(PRM_WQE_OPCODE_SEND));
    assert_int_equal(ctrl->qpn_ds, htobe32((SQN << 8) | 3));
    assert_int_equal(ctrl->fm_ce_se, PRM_WQE_CTRL_CQ_UPDATE);
    assert_int_equal(ctrl->imm, 0);
    /* Ethernet segment: cs_flags, no MSS, no inline header. */
    assert_int_equal(f.sq[16 + 4], CS);
    for (unsigned int i = 16; i < 32; i++)
        if (i != 16 + 4)
            assert_int_equal(f.sq[i], 0);
    assert_int_equal(data->byte_count, htobe32(60));
    assert_int_equal(data->lkey, htobe32(LKEY));
    assert_int_equal(data->addr, htobe64(0x1000));
    assert_int_equal(f.sq_dbrec, htobe32(1));
    /* The doorbell: the control segment's first 8 bytes for producer index 1, DS 0. */
    assert_int_equal((uint32_t)f.uar, htobe32(1 << 8));
    assert_int_equal((uint32_t)(f.uar >> 32), htobe32(SQN << 8));
    assert_int_equal(f.proxy_pi, 0);

    assert_int_equal(
            gdaki_eth_tx_send(&f.txq, 0x2000, htobe32(LKEY), 1514, none, &ticket, gpu, sgpu, nauto),
            DOCA_SUCCESS);
    assert_int_equal(ticket, 1);
    ctrl = (const struct prm_wqe_ctrl_seg *)(const void *)(f.sq + 64);
    assert_int_equal(ctrl->opmod_idx_opcode, htobe32((1 << 8) | PRM_WQE_OPCODE_SEND));
    assert_int_equal(ctrl->fm_ce_se, PRM_WQE_CTRL_CE_ERROR_ONLY);
    assert_int_equal(f.sq_dbrec, htobe32(2));
    assert_int_equal(f.txq.sq_wqe_pi, 2);
    assert_int_equal(f.txq.sq_ready_index, 2);
    assert_int_equal(f.txq.pkts, 2);
    assert_int_equal(f.txq.bytes, 60 + 1514);
    assert_int_equal(nic_tx(&f), 2);
    assert_int_equal(f.bad, 0);
    assert_int_equal(f.nic_cq_pi, 1); /* only the NOTIFY one */
}

/* Under a CPU proxy the core publishes the producer index in the proxy's word, nothing else. */
static void test_tx_proxy(void **state)
{
    uint64_t ticket;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY);
    for (unsigned int i = 0; i < 3; i++)
        assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, none, &ticket, gpu,
                                           sgpu, nauto),
                         DOCA_SUCCESS);
    assert_int_equal(f.proxy_pi, 3);
    assert_int_equal(f.sq_dbrec, 0);
    assert_int_equal(f.uar, 0);
    assert_int_equal(nic_tx(&f), 3);
    /* A GPU_SM_DB queue sent through the proxy on request (template handler). */
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, none, &ticket, excl, sgpu,
                                       DOCA_GPUNETIO_ETH_NIC_HANDLER_CPU_PROXY),
                     DOCA_SUCCESS);
    assert_int_equal(f.proxy_pi, 1);
    assert_int_equal(f.uar, 0);
}

/*
 * A full ring: AGAIN, nothing posted; a CQE of a later WQE frees the slots
 * (seen without being consumed); a ring of unsignalled sends stays full.
 */
static void test_tx_full_again(void **state)
{
    uint64_t ticket = 0;
    uint32_t done = 0;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    for (unsigned int i = 0; i < RING; i++)
        assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x1000 + i, htobe32(LKEY), 64,
                                           i == RING - 1 ? notify : none, &ticket, excl, sgpu,
                                           nauto),
                         DOCA_SUCCESS);
    assert_int_equal(ticket, RING - 1);
    assert_int_equal(
            gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, none, &ticket, excl, sgpu, nauto),
            DOCA_ERROR_AGAIN);
    assert_int_equal(f.txq.sq_rsvd_index, RING);
    assert_int_equal(f.txq.pkts, RING);
    assert_int_equal(f.sq_dbrec, htobe32(RING));
    /* The NIC sends them; the last one's CQE frees the ring. */
    assert_int_equal(nic_tx(&f), RING);
    for (unsigned int i = 0; i < RING; i++)
        assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x2000 + i, htobe32(LKEY), 64,
                                           i == 3 ? notify : none, &ticket, gpu, sgpu, nauto),
                         DOCA_SUCCESS);
    assert_int_equal(ticket, 2 * RING - 1);
    /* The CQE is still there for poll_completion. */
    assert_int_equal(f.txq.cqe_ci, 0);
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 1, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, excl,
                                                  sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(done, 1);
    assert_int_equal(f.cq_dbrec, htobe32(1));
    /* Full again until the NIC reaches the NOTIFY WQE (index RING + 3): then 4 slots are free. */
    assert_int_equal(
            gdaki_eth_tx_send(&f.txq, 0, htobe32(LKEY), 64, none, &ticket, excl, sgpu, nauto),
            DOCA_ERROR_AGAIN);
    assert_int_equal(nic_tx(&f), RING);
    for (unsigned int i = 0; i < 4; i++)
        assert_int_equal(gdaki_eth_tx_send(&f.txq, 0x3000, htobe32(LKEY), 64, none, &ticket, excl,
                                           sgpu, nauto),
                         DOCA_SUCCESS);
    assert_int_equal(
            gdaki_eth_tx_send(&f.txq, 0, htobe32(LKEY), 64, none, &ticket, excl, sgpu, nauto),
            DOCA_ERROR_AGAIN);
    /* Only unsignalled sends since: the NIC sends them, yet nothing says so. */
    assert_int_equal(nic_tx(&f), 4);
    assert_int_equal(
            gdaki_eth_tx_send(&f.txq, 0, htobe32(LKEY), 64, none, &ticket, excl, sgpu, nauto),
            DOCA_ERROR_AGAIN);
    assert_int_equal(f.bad, 0);
    assert_int_equal(f.txq.pkts, 2 * RING + 4);
}

/* POLL_ALL and POLL_LAST, blocking and not. */
static void test_tx_poll_modes(void **state)
{
    uint64_t ticket;
    uint32_t done = 99;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    /* Nothing there: non-blocking returns 0. */
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 2, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, gpu, sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(done, 0);
    for (unsigned int i = 0; i < 6; i++)
        gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, notify, &ticket, excl, sgpu, nauto);
    nic_tx(&f);
    /* LAST over 4: the fourth says the first three are done too. */
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 4, DOCA_GPUNETIO_ETH_CQ_POLL_LAST,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &done, excl, sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(done, 4);
    assert_int_equal(f.txq.cqe_ci, 4);
    assert_int_equal(f.txq.wqe_done, 4);
    assert_int_equal(f.cq_dbrec, htobe32(4));
    /* ALL over 4, not blocking: the two there. */
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 4, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, gpu, sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(done, 2);
    assert_int_equal(f.txq.wqe_done, 6);
    /* LAST over 2 with one there, not blocking: none taken. */
    gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, notify, &ticket, excl, sgpu, nauto);
    nic_tx(&f);
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 2, DOCA_GPUNETIO_ETH_CQ_POLL_LAST,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, excl,
                                                  sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(done, 0);
    assert_int_equal(f.txq.completions, 6);
}

/* An error CQE: consumed, recorded, counted, UNEXPECTED; a blocking poll then does not hang. */
static void test_tx_error_cqe(void **state)
{
    uint64_t ticket;
    uint32_t done = 0;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    f.fail_wqe = 2;
    for (unsigned int i = 0; i < 4; i++)
        gdaki_eth_tx_send(&f.txq, 0x1000, htobe32(LKEY), 64, i == 1 ? notify : none, &ticket, excl,
                          sgpu, nauto);
    /* CQEs: WQE 1's, then WQE 2's error. */
    nic_tx(&f);
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 4, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &done, gpu, sgpu),
                     DOCA_ERROR_UNEXPECTED);
    assert_int_equal(done, 2);
    assert_int_equal(f.txq.err.has_error, 1);
    assert_int_equal(f.txq.err.syndrome, PRM_CQE_SYNDROME_LOCAL_PROT_ERR);
    assert_int_equal(f.txq.err.vendor_err_synd, 0x42);
    assert_int_equal(f.txq.err.opcode, PRM_CQE_OPCODE_REQ_ERR);
    assert_int_equal(f.txq.err.wqe_counter, 2);
    assert_int_equal(f.txq.errors, 1);
    assert_int_equal(f.txq.completions, 2);
    assert_int_equal(f.txq.wqe_done, 3);
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, 1, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_B, &done, excl, sgpu),
                     DOCA_ERROR_UNEXPECTED);
    assert_int_equal(done, 0);
}

/*
 * A batch, as a warp or block send does it: reserve n, one WQE per slot,
 * one commit (one doorbell); more than the ring is refused, more than is
 * free is AGAIN.
 */
static void test_tx_batch(void **state)
{
    uint64_t base = 99;
    struct fx f;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(gdaki_eth_tx_reserve(&f.txq, RING + 1, gpu, &base), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(gdaki_eth_tx_reserve(&f.txq, 5, gpu, &base), DOCA_SUCCESS);
    assert_int_equal(base, 0);
    for (unsigned int lane = 0; lane < 5; lane++)
        gdaki_eth_tx_wqe_send(&f.txq, gdaki_eth_tx_wqe_ptr(&f.txq, base + lane), base + lane,
                              0x4000 + lane, htobe32(LKEY), 100, lane == 4 ? notify : none);
    assert_int_equal(f.sq_dbrec, 0);
    gdaki_eth_tx_commit(&f.txq, base, 5, 500, gpu, sgpu, nauto);
    assert_int_equal(f.sq_dbrec, htobe32(5));
    assert_int_equal((uint32_t)f.uar, htobe32(5 << 8));
    assert_int_equal(f.txq.pkts, 5);
    assert_int_equal(f.txq.bytes, 500);
    assert_int_equal(gdaki_eth_tx_reserve(&f.txq, 4, gpu, &base), DOCA_ERROR_AGAIN);
    assert_int_equal(nic_tx(&f), 5);
    assert_int_equal(f.addr_sum, 5 * 0x4000 + 10);
    assert_int_equal(gdaki_eth_tx_reserve(&f.txq, RING, gpu, &base), DOCA_SUCCESS);
    assert_int_equal(base, 5);

    /*
     * A CQE's 16-bit counter names the last WQE below the reserved index
     * with those bits, the index read after the CQE: one naming a WQE not
     * reserved yet (as it looks with an index read before) frees nothing.
     */
    f.txq.sq_rsvd_index = 5;
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, 4, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     5);
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, 0, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     1);
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, 5, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     0);
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, 9, DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     0);
    f.txq.sq_rsvd_index = 70000;
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, (uint16_t)69999,
                                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     70000);
    assert_int_equal(gdaki_eth_tx_done_of(&f.txq, (uint16_t)70000,
                                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU),
                     0);
}

/*
 * Producer threads share a queue (sharing mode GPU) with a NIC thread: on
 * AGAIN they drain completions and retry. Every packet goes out once, the
 * WQE indices run without a gap through many laps of the ring. Each
 * producer asks for a CQE every second send: then any RING consecutive WQEs
 * (RING / PRODUCERS = 2 or more of some producer's, in a row) hold one that
 * asks, so a full ring always gets a CQE that frees it. Fewer (say every
 * fourth) can leave RING unsignalled WQEs in the ring, full for good: the
 * rule gdaki_eth_txq.h states.
 */
#define PRODUCERS 4
#define PER_PROD  2000u

static void *nic_thread(void *arg)
{
    struct fx *f = arg;

    while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE) || f->nic_ci < nic_producer(f))
        if (nic_tx(f) == 0)
            sched_yield();
    __atomic_store_n(&f->nic_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *producer(void *arg)
{
    struct fx *f = arg;

    for (uint32_t i = 0; i < PER_PROD; i++) {
        uint64_t ticket;
        uint32_t done;
        doca_error_t st;

        while ((st = gdaki_eth_tx_send(&f->txq, 1 + i, htobe32(LKEY), 64 + i % 64,
                                       i % 2 == 1 ? notify : none, &ticket, gpu, sgpu, nauto)) ==
               DOCA_ERROR_AGAIN) {
            if (gdaki_eth_tx_poll_completion(&f->txq, RING, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                             DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, gpu,
                                             sgpu) != DOCA_SUCCESS)
                return (void *)1;
            sched_yield();
        }
        if (st != DOCA_SUCCESS)
            return (void *)1;
    }
    return NULL;
}

static void test_tx_threads(void **state)
{
    static struct fx f;
    pthread_t nic, prod[PRODUCERS];
    uint64_t bytes = 0;
    uint32_t done;

    (void)state;
    fx_init(&f, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);
    assert_int_equal(pthread_create(&nic, NULL, nic_thread, &f), 0);
    for (int p = 0; p < PRODUCERS; p++)
        assert_int_equal(pthread_create(&prod[p], NULL, producer, &f), 0);
    for (int p = 0; p < PRODUCERS; p++) {
        void *ret;

        assert_int_equal(pthread_join(prod[p], &ret), 0);
        assert_null(ret);
    }
    /* The last WQEs may wait for room in the CQ: drain it until the NIC is done. */
    __atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&f.nic_done, __ATOMIC_ACQUIRE)) {
        assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, RING, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                      DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, gpu,
                                                      sgpu),
                         DOCA_SUCCESS);
        sched_yield();
    }
    assert_int_equal(pthread_join(nic, NULL), 0);
    for (uint32_t i = 0; i < PER_PROD; i++)
        bytes += 64 + i % 64;
    assert_int_equal(f.bad, 0);
    assert_int_equal(f.nic_ci, PRODUCERS * PER_PROD);
    assert_int_equal(f.sent_bytes, PRODUCERS * bytes);
    assert_int_equal(f.addr_sum, PRODUCERS * (uint64_t)PER_PROD * (PER_PROD + 1) / 2);
    assert_int_equal(f.txq.pkts, PRODUCERS * PER_PROD);
    assert_int_equal(f.txq.bytes, PRODUCERS * bytes);
    /* What is left in the CQ, then every CQE the NIC wrote was consumed once. */
    assert_int_equal(gdaki_eth_tx_poll_completion(&f.txq, RING, DOCA_GPUNETIO_ETH_CQ_POLL_ALL,
                                                  DOCA_GPUNETIO_ETH_WAIT_FLAG_NB, &done, gpu, sgpu),
                     DOCA_SUCCESS);
    assert_int_equal(f.txq.completions, f.nic_cq_pi);
    assert_int_equal(f.txq.errors, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_tx_desc),       cmocka_unit_test(test_tx_wqe_and_doorbell),
            cmocka_unit_test(test_tx_proxy),      cmocka_unit_test(test_tx_full_again),
            cmocka_unit_test(test_tx_poll_modes), cmocka_unit_test(test_tx_error_cqe),
            cmocka_unit_test(test_tx_batch),      cmocka_unit_test(test_tx_threads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
