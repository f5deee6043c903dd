/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signals through a service, on softmlx5 with CPU threads: a requester QP
 * posts RDMA writes with immediate (gdaki_put_imm, the core of
 * doca_gpu_dev_verbs_put_immediate) to a responder QP exported with a
 * receive side (export_qp's cq_rq and dbr_cpu_ptr); a service monitoring
 * it drains the receive CQ, adds each immediate's value to its signal's
 * slot in the signal map and hands the receive WQE back. More writes than
 * receive WQEs, so the credits must come back. Also: the map's refusals
 * (ids, alignment, duplicates, changes while attached), an unregistered id
 * dropped, reset, the export's receive-side checks, and an injected error
 * followed by reset_tracking_and_memory on both QPs and signals again.
 *
 * Usage: test_gpunetio_signal [raw | hl]   the responder made with DOCA Verbs and
 *                                          exported with cq_rq, or high-level with rq_nwqe
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doca_gpunetio_high_level.h"
#include "doca_gpunetio_signal.h"
#include "gdaki_verbs.h"
#include "verbs_test.h"

#define SIGNALS 24 /* one per "thread"; more than RQ_WR */
#define RQ_WR   16
#define ROUNDS  3
#define CHUNK   64
#define BUF     (SIGNALS * CHUNK)
_Static_assert((SIGNALS + 4) * 8 <= 256, "the slot array holds SIGNALS + 4 slots");

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            failures++;                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

/*
 * The responder: a QP with its own receive queue and receive CQ, exported
 * with both: made with DOCA Verbs and exported (raw), or by the high-level
 * call with rq_nwqe (hl).
 */
struct responder {
    doca_verbs_cq_t *scq, *rcq;
    doca_verbs_qp_t *qp;
    struct doca_gpu_verbs_qp *gqp;
    struct doca_gpu_verbs_qp_hl *hl;
};

static doca_verbs_cq_t *overrun_cq(doca_dev_t *dev, uint32_t size)
{
    doca_verbs_cq_attr_t *ca = NULL;
    doca_verbs_cq_t *cq = NULL;

    doca_verbs_cq_attr_create(&ca);
    doca_verbs_cq_attr_set_cq_size(ca, size);
    doca_verbs_cq_attr_set_cq_overrun(ca, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    if (doca_verbs_cq_create(dev, ca, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(ca);
    return cq;
}

static int responder_make(struct vt_dev *d, struct responder *r, bool hl)
{
    doca_verbs_qp_init_attr_t *qa;
    void *dbr = NULL;

    if (hl) {
        struct doca_gpu_verbs_qp_init_attr_hl ha = {
                .net_dev = d->dev, .ibpd = d->pd, .sq_nwqe = 16, .rq_nwqe = RQ_WR};

        if (doca_gpu_verbs_create_qp_hl(&ha, &r->hl) != DOCA_SUCCESS)
            return -1;
        CHECK(r->hl->cq_rq != NULL, "the high-level QP has no receive CQ");
        r->qp = r->hl->qp;
        r->gqp = r->hl->qp_gverbs;
        return 0;
    }
    r->scq = overrun_cq(d->dev, 16);
    r->rcq = vt_cq(d->dev, RQ_WR);
    qa = vt_qp_attr(d->dev, r->scq, 16, RQ_WR);
    if (r->scq == NULL || r->rcq == NULL || qa == NULL)
        return -1;
    doca_verbs_qp_init_attr_set_receive_cq(qa, r->rcq);
    if (doca_verbs_qp_create(d->dev, qa, &r->qp) != DOCA_SUCCESS)
        return -1;
    doca_verbs_qp_init_attr_destroy(qa);
    doca_verbs_qp_get_dbr_addr(r->qp, &dbr);
    /* The receive side's checks: the QP's own receive CQ, with the record's CPU address. */
    CHECK(doca_gpu_verbs_export_qp(NULL, r->qp, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, NULL, r->scq,
                                   r->rcq, NULL, DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                   DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false,
                                   &r->gqp) == DOCA_ERROR_INVALID_VALUE,
          "cq_rq without dbr_cpu_ptr, on a receive CQ that does not overrun");
    CHECK(doca_gpu_verbs_export_qp(NULL, r->qp, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, NULL, r->scq,
                                   r->rcq, r->rcq, DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                   DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false,
                                   &r->gqp) == DOCA_ERROR_NOT_SUPPORTED,
          "dbr_cpu_ptr that is not the QP's doorbell record");
    return doca_gpu_verbs_export_qp(NULL, r->qp, DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, NULL, r->scq,
                                    r->rcq, dbr, DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                    DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &r->gqp) == DOCA_SUCCESS
                   ? 0
                   : -1;
}

static void responder_free(struct responder *r)
{
    if (r->hl != NULL) {
        CHECK(doca_gpu_verbs_destroy_qp_hl(r->hl) == DOCA_SUCCESS, "high-level destroy");
        return;
    }
    CHECK(doca_gpu_verbs_unexport_qp(NULL, r->gqp) == DOCA_SUCCESS, "unexport");
    CHECK(doca_verbs_qp_destroy(r->qp) == DOCA_SUCCESS, "QP destroy");
    CHECK(doca_verbs_cq_destroy(r->scq) == DOCA_SUCCESS &&
                  doca_verbs_cq_destroy(r->rcq) == DOCA_SUCCESS,
          "CQ destroy");
}

/* Waits up to 5 s for every slot to reach want[i]; the slots that did not. */
static int wait_slots(const volatile doca_gpu_verbs_signal_value_t *slot, const uint64_t *want)
{
    int short_ones = SIGNALS;

    for (int ms = 0; ms < 5000 && short_ones != 0; ms++) {
        struct timespec t = {0, 1000000};

        short_ones = 0;
        for (int i = 0; i < SIGNALS; i++)
            short_ones += __atomic_load_n(&slot[i], __ATOMIC_ACQUIRE) != want[i];
        if (short_ones != 0)
            nanosleep(&t, NULL);
    }
    return short_ones;
}

static void map_refusals(struct doca_gpu_verbs_signal_map *map,
                         doca_gpu_verbs_signal_value_t *slots)
{
    CHECK(doca_gpu_verbs_signal_map_create(NULL) == DOCA_ERROR_INVALID_VALUE, "NULL map");
    CHECK(doca_gpu_verbs_signal_register(map, DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS, slots) ==
                  DOCA_ERROR_INVALID_VALUE,
          "id out of range");
    CHECK(doca_gpu_verbs_signal_register(map, 1,
                                         (doca_gpu_verbs_signal_value_t *)((char *)slots + 4)) ==
                  DOCA_ERROR_INVALID_VALUE,
          "misaligned slot");
    CHECK(doca_gpu_verbs_signal_register_range(map, DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS - 1, 2,
                                               slots) == DOCA_ERROR_INVALID_VALUE,
          "range past the last id");
    CHECK(doca_gpu_verbs_signal_register(map, 0, slots) == DOCA_SUCCESS, "register");
    CHECK(doca_gpu_verbs_signal_register(map, 0, slots + 1) == DOCA_ERROR_IN_USE, "id twice");
    CHECK(doca_gpu_verbs_signal_register(map, 1, slots) == DOCA_ERROR_IN_USE, "slot twice");
    /* A range meeting a registered id registers none of it. */
    CHECK(doca_gpu_verbs_signal_register_range(map, SIGNALS - 2, 4, slots + SIGNALS - 2) ==
                  DOCA_SUCCESS,
          "range");
    CHECK(doca_gpu_verbs_signal_register_range(map, 1, SIGNALS, slots + 1) == DOCA_ERROR_IN_USE,
          "range over registered ids");
    CHECK(doca_gpu_verbs_signal_unregister(map, 5) == DOCA_ERROR_NOT_FOUND,
          "the failed range left id 5 registered");
    for (uint32_t id = SIGNALS - 2; id < SIGNALS + 2; id++)
        CHECK(doca_gpu_verbs_signal_unregister(map, id) == DOCA_SUCCESS, "unregister %u", id);
    CHECK(doca_gpu_verbs_signal_map_destroy(map) == DOCA_ERROR_BAD_STATE, "destroy non-empty");
    CHECK(doca_gpu_verbs_signal_unregister(map, 0) == DOCA_SUCCESS, "unregister 0");
}

/* qp to RESET, its data-path tracking reset, connected again to peer_qpn. */
static void reset_qp(struct vt_dev *d, doca_verbs_qp_t *qp, struct doca_gpu_verbs_qp *gqp,
                     uint32_t peer_qpn)
{
    doca_verbs_qp_attr_t *a = NULL;
    uint16_t lid = 0;
    uint8_t gid[16];

    doca_verbs_qp_attr_create(&a);
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RST);
    CHECK(doca_verbs_qp_modify(qp, a, DOCA_VERBS_QP_ATTR_NEXT_STATE) == DOCA_SUCCESS, "to RESET");
    doca_verbs_qp_attr_destroy(a);
    CHECK(doca_gpu_verbs_reset_tracking_and_memory(gqp) == DOCA_SUCCESS, "reset tracking");
    vt_address(d, &lid, gid);
    CHECK(vt_connect(d, qp, peer_qpn, gid, lid) == 0, "reconnect");
}

/*
 * An injected error (a write with immediate to a key the responder does
 * not have fails with -EIO), both QPs reset and reconnected, and the
 * signals count again through a new service: the receive side starts over
 * where the NIC's receive CQ is.
 */
static void after_error_reset(struct vt_dev *d, struct doca_gpu_verbs_qp_hl *req,
                              struct responder *r, struct doca_gpu_verbs_signal_map *map,
                              struct ibv_mr *smr, struct ibv_mr *rmr, uint8_t *src, uint8_t *dst,
                              const volatile doca_gpu_verbs_signal_value_t *slots, uint64_t *want)
{
    struct doca_gpu_dev_verbs_qp *dev = NULL;
    struct doca_gpu_dev_verbs_addr bad = {(uintptr_t)dst, htobe32(rmr->rkey + 0x100)};
    struct doca_gpu_dev_verbs_addr laddr = {(uintptr_t)src, htobe32(smr->lkey)};
    doca_gpu_verbs_service_t svc = NULL;
    uint32_t req_qpn = 0, resp_qpn = 0;
    uint64_t t;

    doca_gpu_verbs_get_qp_dev(req->qp_gverbs, &dev);
    doca_verbs_qp_get_qpn(req->qp, &req_qpn);
    doca_verbs_qp_get_qpn(r->qp, &resp_qpn);
    t = gdaki_put_imm(dev, bad, laddr, CHUNK, gdaki_signal_imm(0, 1),
                      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                      DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
    CHECK(gdaki_wait(dev, t) == -EIO, "a write with immediate to a bad key fails");
    reset_qp(d, req->qp, req->qp_gverbs, resp_qpn);
    reset_qp(d, r->qp, r->gqp, req_qpn);
    CHECK(doca_gpu_verbs_create_service(&svc) == DOCA_SUCCESS &&
                  doca_gpu_verbs_service_monitor_qp(svc, r->gqp) == DOCA_SUCCESS &&
                  doca_gpu_verbs_service_set_signal_map(svc, map) == DOCA_SUCCESS,
          "a service after the reset");
    /* More writes than receive WQEs again: the credits come back after the reset too. */
    for (uint32_t i = 0; i < SIGNALS; i++) {
        struct doca_gpu_dev_verbs_addr raddr = {(uintptr_t)(dst + i * CHUNK), htobe32(rmr->rkey)};

        t = gdaki_put_imm(dev, raddr, laddr, CHUNK, gdaki_signal_imm(i, 7),
                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                          DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
        CHECK(gdaki_wait(dev, t) == 0, "write with immediate %u after the reset", i);
        want[i] += 7;
    }
    CHECK(wait_slots(slots, want) == 0, "signals short of their totals after the reset");
    CHECK(doca_gpu_verbs_service_set_signal_map(svc, NULL) == DOCA_SUCCESS &&
                  doca_gpu_verbs_destroy_service(svc) == DOCA_SUCCESS,
          "the second service");
}

int main(int argc, char **argv)
{
    bool hl_responder = argc > 1 && strcmp(argv[1], "hl") == 0;
    struct doca_gpu_verbs_qp_init_attr_hl ha;
    struct doca_gpu_verbs_qp_hl *req = NULL;
    struct doca_gpu_verbs_signal_map *map = NULL;
    doca_gpu_verbs_service_t svc = NULL;
    struct doca_gpu_dev_verbs_qp *dev = NULL;
    doca_gpu_verbs_signal_value_t *slots;
    uint64_t want[SIGNALS] = {0};
    struct responder r = {0};
    struct ibv_mr *smr, *rmr;
    uint8_t *src, *dst, gid[16];
    uint32_t req_qpn = 0, resp_qpn = 0;
    uint16_t lid = 0;
    struct vt_dev d;

    vt_open(&d);
    memset(&ha, 0, sizeof(ha));
    ha.net_dev = d.dev;
    ha.ibpd = d.pd;
    ha.sq_nwqe = 64;
    src = calloc(1, BUF);
    dst = calloc(1, BUF);
    slots = aligned_alloc(64, 256); /* room for SIGNALS + 4 slots, a multiple of the alignment */
    smr = ibv_reg_mr(d.pd, src, BUF, IBV_ACCESS_LOCAL_WRITE);
    rmr = ibv_reg_mr(d.pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (src == NULL || dst == NULL || slots == NULL || smr == NULL || rmr == NULL ||
        doca_gpu_verbs_create_qp_hl(&ha, &req) != DOCA_SUCCESS ||
        responder_make(&d, &r, hl_responder) != 0) {
        fprintf(stderr, "FAIL: cannot make the QPs\n");
        return 1;
    }
    vt_address(&d, &lid, gid);
    doca_verbs_qp_get_qpn(req->qp, &req_qpn);
    doca_verbs_qp_get_qpn(r.qp, &resp_qpn);
    if (vt_connect(&d, req->qp, resp_qpn, gid, lid) != 0 ||
        vt_connect(&d, r.qp, req_qpn, gid, lid) != 0) {
        fprintf(stderr, "FAIL: cannot connect the QPs\n");
        return 1;
    }
    doca_gpu_verbs_get_qp_dev(req->qp_gverbs, &dev);

    CHECK(doca_gpu_verbs_signal_map_create(&map) == DOCA_SUCCESS, "map create");
    map_refusals(map, slots);
    CHECK(doca_gpu_verbs_signal_register_range(map, 0, SIGNALS, slots) == DOCA_SUCCESS,
          "register_range");
    CHECK(doca_gpu_verbs_create_service(&svc) == DOCA_SUCCESS &&
                  doca_gpu_verbs_service_monitor_qp(svc, r.gqp) == DOCA_SUCCESS &&
                  doca_gpu_verbs_service_set_signal_map(svc, map) == DOCA_SUCCESS,
          "service");
    CHECK(doca_gpu_verbs_signal_register(map, SIGNALS, slots + SIGNALS) == DOCA_ERROR_IN_USE,
          "register while attached");
    CHECK(doca_gpu_verbs_signal_map_destroy(map) == DOCA_ERROR_IN_USE, "destroy while attached");

    /* Each round: every signal's chunk written, then its value (id + 1) added. */
    for (int round = 0; round < ROUNDS; round++) {
        for (uint32_t i = 0; i < SIGNALS; i++) {
            struct doca_gpu_dev_verbs_addr raddr = {(uintptr_t)(dst + i * CHUNK),
                                                    htobe32(rmr->rkey)};
            struct doca_gpu_dev_verbs_addr laddr = {(uintptr_t)(src + i * CHUNK),
                                                    htobe32(smr->lkey)};
            uint64_t t;

            memset(src + i * CHUNK, 0x30 + round * SIGNALS + (int)i, CHUNK);
            t = gdaki_put_imm(dev, raddr, laddr, CHUNK, gdaki_signal_imm(i, i + 1),
                              DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                              DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
            CHECK(gdaki_wait(dev, t) == 0, "write with immediate %d/%u", round, i);
            want[i] += i + 1;
        }
        CHECK(wait_slots(slots, want) == 0, "round %d: signals short of their totals", round);
    }
    for (uint32_t i = 0; i < SIGNALS; i++)
        CHECK(dst[i * CHUNK] == (uint8_t)(0x30 + (ROUNDS - 1) * SIGNALS + (int)i) &&
                      dst[i * CHUNK + CHUNK - 1] == dst[i * CHUNK],
              "chunk %u", i);
    /* An id the map does not have is dropped; the others carry on. */
    {
        struct doca_gpu_dev_verbs_addr raddr = {(uintptr_t)dst, htobe32(rmr->rkey)};
        struct doca_gpu_dev_verbs_addr laddr = {(uintptr_t)src, htobe32(smr->lkey)};
        uint64_t t = gdaki_put_imm(dev, raddr, laddr, 0, gdaki_signal_imm(SIGNALS + 100, 9),
                                   DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                                   DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);

        CHECK(gdaki_wait(dev, t) == 0, "write with an unknown signal");
        t = gdaki_put_imm(dev, raddr, laddr, 0, gdaki_signal_imm(3, 50),
                          DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE,
                          DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO, 0);
        CHECK(gdaki_wait(dev, t) == 0, "zero-byte write with a signal");
        want[3] += 50;
        CHECK(wait_slots(slots, want) == 0, "signal 3 after an unknown id");
    }
    CHECK(doca_gpu_verbs_signal_reset(map, 3) == DOCA_SUCCESS && slots[3] == 0, "reset");
    want[3] = 0;
    CHECK(doca_gpu_verbs_unexport_qp(NULL, r.gqp) == DOCA_ERROR_IN_USE, "unexport monitored");
    CHECK(doca_gpu_verbs_service_set_signal_map(svc, NULL) == DOCA_SUCCESS, "detach");
    CHECK(doca_gpu_verbs_destroy_service(svc) == DOCA_SUCCESS, "destroy service");
    after_error_reset(&d, req, &r, map, smr, rmr, src, dst, slots, want);
    for (uint32_t i = 0; i < SIGNALS; i++)
        CHECK(doca_gpu_verbs_signal_unregister(map, i) == DOCA_SUCCESS, "unregister %u", i);
    CHECK(doca_gpu_verbs_signal_map_destroy(map) == DOCA_SUCCESS, "map destroy");

    CHECK(doca_gpu_verbs_destroy_qp_hl(req) == DOCA_SUCCESS, "requester destroy");
    responder_free(&r);
    ibv_dereg_mr(smr);
    ibv_dereg_mr(rmr);
    free(src);
    free(dst);
    free(slots);
    vt_close(&d);
    printf("signal: %s (%d failures)\n", failures == 0 ? "passed" : "FAILED", failures);
    return failures != 0;
}
