/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DC on softmlx5, DCIs and DCTs of one device made with mlx5dv_create_qp:
 * a DCI's RDMA write, read, both atomics and a send (into the DCT's SRQ,
 * data byte for byte, the completion naming the DCI as its source QP)
 * through mlx5dv_wr_set_dc_addr; one DCI writing to two DCTs alternately in
 * one batch (completions in order, every byte in place); a write whose
 * frame is lost on the wire, resent; the wrong DC access key (a remote
 * access error, the DCI in ERR, the DCT serving others still); a DCT that
 * stops at RTR (RTS refused) and a DCI that has no RTR attributes of a
 * remote QP; ibv_post_send and a UD address refused on a DCI, a DC address
 * on an RC QP; a DCT destroyed while a DCI still names it (an invalid
 * request error, no hang), then everything destroyed in any order. DevX:
 * CREATE_DCT on the device's PD, CQ and SRQ, a DCI's write and send to it,
 * the wrong key refused, QUERY_DCT's context, a bad context refused,
 * DESTROY_DCT through mlx5dv_devx_obj_destroy.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm_cmd.h"
#include "prm/prm_dct.h"
#include "verbs_util.h"

#define ACCESS_ALL                                                               \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC)
#define SEND_OPS                                                                      \
    (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                   \
     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define KEY1   0x1122334455667788ull
#define KEY2   0x0badc0ffee000002ull
#define BUF    (1u << 20)
#define SRC    0u
#define DST1   (256u << 10) /* DCT 1's target region */
#define DST2   (512u << 10) /* DCT 2's */
#define RECV   (768u << 10) /* the SRQ's receive buffers */
#define LOCAL  (1020u << 10)
#define MSG    1000u
#define ROUNDS 8

static struct vu_ctx c;
static struct ibv_cq *scq, *rcq;
static struct ibv_srq *srq;
static struct ibv_ah *ah;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct ibv_qp *dci, *dct1, *dct2;

static void fill(uint8_t *p, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + i * 29);
}

static struct ibv_qp *dc_create(enum mlx5dv_dc_type type, uint64_t key)
{
    struct ibv_qp_init_attr_ex a = {.qp_type = IBV_QPT_DRIVER,
                                    .send_cq = scq,
                                    .recv_cq = rcq,
                                    .comp_mask = IBV_QP_INIT_ATTR_PD,
                                    .pd = c.pd,
                                    .cap = {.max_send_wr = 64, .max_send_sge = 1}};
    struct mlx5dv_qp_init_attr dv = {.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
                                     .dc_init_attr = {.dc_type = type}};

    if (type == MLX5DV_DCTYPE_DCI) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = SEND_OPS;
    } else {
        a.srq = srq;
        dv.dc_init_attr.dct_access_key = key;
    }
    return mlx5dv_create_qp(c.ctx, &a, &dv);
}

/* RESET -> INIT -> RTR (a DCT stops there) -> RTS (a DCI): no remote QP, no PSN to expect. */
static int dc_ready(struct ibv_qp *qp, bool dct)
{
    struct ibv_qp_attr at = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

    if (dct) {
        at.qp_access_flags =
                IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
        mask |= IBV_QP_ACCESS_FLAGS;
    }
    if (ibv_modify_qp(qp, &at, mask) != 0)
        return -1;
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = IBV_MTU_4096;
    at.min_rnr_timer = 1;
    if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PATH_MTU | (dct ? IBV_QP_MIN_RNR_TIMER : 0)) !=
        0)
        return -1;
    if (dct)
        return 0;
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_RTS;
    at.timeout = 10;
    at.retry_cnt = 7;
    at.rnr_retry = 7;
    at.max_rd_atomic = 4;
    return ibv_modify_qp(qp, &at,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

enum op { OP_WRITE, OP_READ, OP_SEND, OP_FA, OP_CS };

/* One DC work request from the DCI to DCT dctn with key, through the ibv_wr_* builders. */
static void dc_build(struct ibv_qp *qp, enum op op, uint32_t dctn, uint64_t key, uint64_t wr_id,
                     uint32_t off, uint32_t len, uint32_t roff)
{
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);
    struct mlx5dv_qp_ex *m = mlx5dv_qp_ex_from_ibv_qp_ex(x);
    uint64_t raddr = (uintptr_t)buf + roff;

    x->wr_id = wr_id;
    x->wr_flags = IBV_SEND_SIGNALED;
    switch (op) {
    case OP_WRITE:
        ibv_wr_rdma_write(x, mr->rkey, raddr);
        break;
    case OP_READ:
        ibv_wr_rdma_read(x, mr->rkey, raddr);
        break;
    case OP_SEND:
        ibv_wr_send_imm(x, htobe32(0xdc00dc01));
        break;
    case OP_FA:
        ibv_wr_atomic_fetch_add(x, mr->rkey, raddr, 5);
        break;
    case OP_CS:
        ibv_wr_atomic_cmp_swp(x, mr->rkey, raddr, 105, 7);
        break;
    }
    mlx5dv_wr_set_dc_addr(m, ah, dctn, key);
    ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + off, len);
}

static int dc_post(struct ibv_qp *qp, enum op op, uint32_t dctn, uint64_t key, uint32_t off,
                   uint32_t len, uint32_t roff)
{
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

    ibv_wr_start(x);
    dc_build(qp, op, dctn, key, op, off, len, roff);
    return ibv_wr_complete(x);
}

/* The DCI's next completion: its status, or -1 when none came. */
static int dci_status(uint64_t *wr_id)
{
    struct ibv_wc wc;

    if (vu_wait(scq, &wc, 5000) != 1)
        return -1;
    if (wr_id != NULL)
        *wr_id = wc.wr_id;
    return (int)wc.status;
}

static void test_write_read(void)
{
    fill(buf + SRC, MSG, 1);
    memset(buf + DST1, 0, MSG);
    VU_CHECK(dc_post(dci, OP_WRITE, dct1->qp_num, KEY1, SRC, MSG, DST1) == 0, "post DC write");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the DC write completes");
    VU_CHECK(memcmp(buf + DST1, buf + SRC, MSG) == 0, "written byte for byte");
    fill(buf + DST1, MSG, 77);
    memset(buf + LOCAL - MSG, 0, MSG);
    VU_CHECK(dc_post(dci, OP_READ, dct1->qp_num, KEY1, LOCAL - MSG, MSG, DST1) == 0,
             "post DC read");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the DC read completes");
    VU_CHECK(memcmp(buf + LOCAL - MSG, buf + DST1, MSG) == 0, "read byte for byte");
}

static void test_atomics(void)
{
    uint64_t *target = (uint64_t *)(buf + DST1 + 4096), *orig = (uint64_t *)(buf + LOCAL);

    /* Atomics work on big-endian values in memory, as on ConnectX. */
    *target = htobe64(100);
    VU_CHECK(dc_post(dci, OP_FA, dct1->qp_num, KEY1, LOCAL, 8, DST1 + 4096) == 0,
             "post DC fetch-add");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the fetch-add completes");
    VU_CHECK(be64toh(*orig) == 100 && be64toh(*target) == 105, "fetch-add: old %lu, now %lu",
             (unsigned long)be64toh(*orig), (unsigned long)be64toh(*target));
    VU_CHECK(dc_post(dci, OP_CS, dct2->qp_num, KEY2, LOCAL, 8, DST1 + 4096) == 0,
             "post DC compare-swap (to the other DCT)");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the compare-swap completes");
    VU_CHECK(be64toh(*orig) == 105 && be64toh(*target) == 7, "compare-swap: old %lu, now %lu",
             (unsigned long)be64toh(*orig), (unsigned long)be64toh(*target));
}

static void test_send(void)
{
    struct ibv_sge sge = {(uintptr_t)buf + RECV, MSG, mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 42, .sg_list = &sge, .num_sge = 1}, *bad;
    struct ibv_wc wc;

    fill(buf + SRC, MSG, 9);
    memset(buf + RECV, 0, MSG);
    VU_CHECK(ibv_post_srq_recv(srq, &rwr, &bad) == 0, "post a receive to the SRQ");
    VU_CHECK(dc_post(dci, OP_SEND, dct2->qp_num, KEY2, SRC, MSG, 0) == 0, "post DC send");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the DC send completes");
    VU_CHECK(vu_wait(rcq, &wc, 5000) == 1, "the DCT's receive completion");
    VU_CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.wr_id == 42,
             "receive status %d opcode %d wr_id %lu", wc.status, wc.opcode,
             (unsigned long)wc.wr_id);
    VU_CHECK(wc.byte_len == MSG && (wc.wc_flags & IBV_WC_WITH_IMM) &&
                     wc.imm_data == htobe32(0xdc00dc01),
             "byte_len %u, immediate 0x%x", wc.byte_len, be32toh(wc.imm_data));
    VU_CHECK(wc.qp_num == dct2->qp_num && wc.src_qp == dci->qp_num,
             "qp_num 0x%x is the DCT's, src_qp 0x%x the DCI's (0x%x)", wc.qp_num, wc.src_qp,
             dci->qp_num);
    VU_CHECK(memcmp(buf + RECV, buf + SRC, MSG) == 0, "received byte for byte");
}

/* One batch alternating between two DCTs: each waits for the one before, order holds. */
static void test_alternate(void)
{
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(dci);
    bool order = true, data = true;

    for (int i = 0; i < ROUNDS; i++)
        fill(buf + SRC + i * MSG, MSG, (uint8_t)(i * 3 + 11));
    memset(buf + DST1, 0, ROUNDS * MSG);
    memset(buf + DST2, 0, ROUNDS * MSG);
    ibv_wr_start(x);
    for (int i = 0; i < ROUNDS; i++)
        dc_build(dci, OP_WRITE, i % 2 ? dct2->qp_num : dct1->qp_num, i % 2 ? KEY2 : KEY1,
                 (uint64_t)i, SRC + i * MSG, MSG, (i % 2 ? DST2 : DST1) + i * MSG);
    VU_CHECK(ibv_wr_complete(x) == 0, "post %d writes to two DCTs alternately", ROUNDS);
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t id = ~0ull;

        if (dci_status(&id) != IBV_WC_SUCCESS || id != (uint64_t)i)
            order = false;
    }
    VU_CHECK(order, "every write completes, in the order posted");
    for (int i = 0; i < ROUNDS; i++)
        if (memcmp(buf + (i % 2 ? DST2 : DST1) + i * MSG, buf + SRC + i * MSG, MSG) != 0)
            data = false;
    VU_CHECK(data, "every write landed at its DCT's target byte for byte");
}

/* A lost request frame: the DCI resends it after its timeout, as RC does. */
static void test_lost_frame(void)
{
    int (*lose)(struct ibv_device *, uint32_t) =
            (int (*)(struct ibv_device *, uint32_t))dlsym(RTLD_DEFAULT, "emu_wire_lose_frames");

    VU_CHECK(lose != NULL, "emu_wire_lose_frames is there");
    if (lose == NULL)
        return;
    fill(buf + SRC, MSG, 123);
    memset(buf + DST2, 0, MSG);
    VU_CHECK(lose(c.ctx->device, 1) == 0, "lose the next request frame");
    VU_CHECK(dc_post(dci, OP_WRITE, dct2->qp_num, KEY2, SRC, MSG, DST2) == 0, "post DC write");
    VU_CHECK(dci_status(NULL) == IBV_WC_SUCCESS, "the write completes after its resend");
    VU_CHECK(memcmp(buf + DST2, buf + SRC, MSG) == 0, "resent byte for byte");
}

static void test_wrong_key(void)
{
    struct ibv_qp *bad_dci = dc_create(MLX5DV_DCTYPE_DCI, 0);
    struct ibv_qp_attr at;
    struct ibv_qp_init_attr ia;

    VU_CHECK(bad_dci != NULL && dc_ready(bad_dci, false) == 0, "a second DCI");
    if (bad_dci == NULL)
        return;
    memset(buf + DST1, 0, MSG);
    fill(buf + SRC, MSG, 5);
    VU_CHECK(dc_post(bad_dci, OP_WRITE, dct1->qp_num, KEY1 ^ 1, SRC, MSG, DST1) == 0,
             "post a write with the wrong DC access key");
    VU_CHECK(dci_status(NULL) == IBV_WC_REM_ACCESS_ERR, "remote access error");
    VU_CHECK(buf[DST1] == 0 && buf[DST1 + MSG - 1] == 0, "nothing written");
    VU_CHECK(ibv_query_qp(bad_dci, &at, IBV_QP_STATE, &ia) == 0 && at.qp_state == IBV_QPS_ERR,
             "that DCI is in ERR (%d)", at.qp_state);
    VU_CHECK(dc_post(dci, OP_WRITE, dct1->qp_num, KEY1, SRC, MSG, DST1) == 0 &&
                     dci_status(NULL) == IBV_WC_SUCCESS && memcmp(buf + DST1, buf + SRC, MSG) == 0,
             "the DCT still serves a DCI with the right key");
    VU_CHECK(ibv_destroy_qp(bad_dci) == 0, "destroy the failed DCI");
}

static void test_states_and_refusals(void)
{
    struct ibv_qp_attr at = {.qp_state = IBV_QPS_RTS};
    struct ibv_qp_init_attr ia;
    struct ibv_sge sge = {(uintptr_t)buf, 8, mr->lkey};
    struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND}, *bad;
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(dci);
    struct vu_end rc;

    VU_CHECK(ibv_modify_qp(dct1, &at, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0, "a DCT never enters RTS");
    VU_CHECK(ibv_query_qp(dct1, &at, IBV_QP_STATE, &ia) == 0 && at.qp_state == IBV_QPS_RTR,
             "the DCT stays in RTR (%d)", at.qp_state);
    VU_CHECK(ibv_post_send(dci, &wr, &bad) == EINVAL, "ibv_post_send on a DCI is refused");
    ibv_wr_start(x);
    x->wr_id = 1;
    ibv_wr_send(x);
    ibv_wr_set_ud_addr(x, ah, dct1->qp_num, 0);
    ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
    VU_CHECK(ibv_wr_complete(x) == EINVAL, "a UD address on a DCI fails the batch");
    VU_CHECK(vu_end_create_ex(&c, &rc, 4,
                              &(struct ibv_qp_cap){.max_send_wr = 4,
                                                   .max_recv_wr = 4,
                                                   .max_send_sge = 1,
                                                   .max_recv_sge = 1},
                              ACCESS_ALL, SEND_OPS, NULL) == 0,
             "an RC QP with the ibv_wr_* builders");
    x = ibv_qp_to_qp_ex(rc.qp);
    ibv_wr_start(x);
    ibv_wr_send(x);
    mlx5dv_wr_set_dc_addr(mlx5dv_qp_ex_from_ibv_qp_ex(x), ah, dct1->qp_num, KEY1);
    ibv_wr_set_sge(x, rc.mr->lkey, (uintptr_t)rc.buf, 8);
    VU_CHECK(ibv_wr_complete(x) == EINVAL, "a DC address on an RC QP fails the batch");
    vu_end_destroy(&rc);
}

/* A DCT destroyed while a DCI still names it: the DCI's next request fails, nothing hangs. */
static void test_destroy_order(void)
{
    struct ibv_qp *dct3 = dc_create(MLX5DV_DCTYPE_DCT, KEY1);
    struct ibv_qp *dci2 = dc_create(MLX5DV_DCTYPE_DCI, 0);
    uint32_t dct3n;

    VU_CHECK(dct3 != NULL && dci2 != NULL && dc_ready(dct3, true) == 0 &&
                     dc_ready(dci2, false) == 0,
             "a third DCT and a DCI");
    if (dct3 == NULL || dci2 == NULL)
        return;
    dct3n = dct3->qp_num;
    VU_CHECK(dc_post(dci2, OP_WRITE, dct3n, KEY1, SRC, 64, DST1) == 0 &&
                     dci_status(NULL) == IBV_WC_SUCCESS,
             "a write to it completes");
    VU_CHECK(ibv_destroy_qp(dct3) == 0, "destroy the DCT first");
    VU_CHECK(dc_post(dci2, OP_WRITE, dct3n, KEY1, SRC, 64, DST1) == 0, "post to the gone DCT");
    VU_CHECK(dci_status(NULL) == IBV_WC_REM_INV_REQ_ERR, "a remote invalid request error");
    VU_CHECK(ibv_destroy_qp(dci2) == 0, "then its DCI");
}

/* A DCT made with DevX CREATE_DCT; NULL when refused (*status: the PRM status). */
static struct mlx5dv_devx_obj *devx_dct(uint32_t srqn, uint32_t mtu, uint32_t *dctn,
                                        uint32_t *status)
{
    uint8_t in[PRM_CREATE_DCT_IN_SIZE] = {0}, out[PRM_CREATE_DCT_OUT_SIZE] = {0};
    void *dctc = PRM_AT(in, PRM_CREATE_DCT_IN_DCTC);
    struct mlx5dv_obj o = {0};
    struct mlx5dv_pd dpd;
    struct mlx5dv_cq dcq;
    struct mlx5dv_devx_obj *obj;

    o.pd.in = c.pd;
    o.pd.out = &dpd;
    o.cq.in = rcq;
    o.cq.out = &dcq;
    if (mlx5dv_init_obj(&o, MLX5DV_OBJ_PD | MLX5DV_OBJ_CQ) != 0)
        return NULL;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_DCT);
    PRM_SET(dctc, PRM_DCTC_CQN, dcq.cqn);
    PRM_SET(dctc, PRM_DCTC_RWE, 1);
    PRM_SET(dctc, PRM_DCTC_RRE, 1);
    PRM_SET(dctc, PRM_DCTC_MIN_RNR_NAK, 1);
    PRM_SET(dctc, PRM_DCTC_SRQN_XRQN, srqn);
    PRM_SET(dctc, PRM_DCTC_PD, dpd.pdn);
    PRM_SET(dctc, PRM_DCTC_DC_ACCESS_KEY, KEY2);
    PRM_SET(dctc, PRM_DCTC_MTU, mtu);
    PRM_SET(dctc, PRM_DCTC_PORT, 1);
    PRM_SET(dctc, PRM_DCTC_HOP_LIMIT, 64);
    obj = mlx5dv_devx_obj_create(c.ctx, in, sizeof(in), out, sizeof(out));
    *status = (uint32_t)PRM_GET(out, PRM_CMD_STATUS);
    *dctn = (uint32_t)PRM_GET(out, PRM_CREATE_DCT_OUT_DCTN);
    return obj;
}

static void test_devx_dct(void)
{
    uint8_t in[PRM_QUERY_DCT_IN_SIZE] = {0}, out[PRM_QUERY_DCT_OUT_SIZE] = {0};
    const void *dctc = PRM_AT(out, PRM_QUERY_DCT_OUT_DCTC);
    struct ibv_sge sge = {(uintptr_t)buf + RECV, MSG, mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1}, *bad;
    struct mlx5dv_devx_obj *obj;
    struct ibv_qp *dci2;
    uint32_t srqn = 0, dctn = 0, status = 0;
    struct ibv_wc wc;

    VU_CHECK(ibv_get_srq_num(srq, &srqn) == 0, "ibv_get_srq_num");
    obj = devx_dct(srqn, 7, &dctn, &status);
    VU_CHECK(obj == NULL && status == PRM_CMD_STAT_BAD_PARAM,
             "CREATE_DCT with MTU 7 refused (status 0x%x)", status);
    if (obj != NULL)
        mlx5dv_devx_obj_destroy(obj);
    obj = devx_dct(srqn ^ 0x7fff, 5, &dctn, &status);
    VU_CHECK(obj == NULL && status == PRM_CMD_STAT_BAD_RESOURCE,
             "CREATE_DCT naming no SRQ refused (status 0x%x)", status);
    if (obj != NULL)
        mlx5dv_devx_obj_destroy(obj);
    obj = devx_dct(srqn, 5, &dctn, &status);
    VU_CHECK(obj != NULL, "CREATE_DCT (status 0x%x)", status);
    if (obj == NULL)
        return;
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_DCT);
    PRM_SET(in, PRM_QUERY_DCT_IN_DCTN, dctn);
    VU_CHECK(mlx5dv_devx_obj_query(obj, in, sizeof(in), out, sizeof(out)) == 0, "QUERY_DCT");
    VU_CHECK(PRM_GET(dctc, PRM_DCTC_STATE) == PRM_DCTC_STATE_ACTIVE &&
                     PRM_GET(dctc, PRM_DCTC_SRQN_XRQN) == srqn &&
                     PRM_GET(dctc, PRM_DCTC_DC_ACCESS_KEY) == KEY2 &&
                     PRM_GET(dctc, PRM_DCTC_RWE) == 1 && PRM_GET(dctc, PRM_DCTC_RAE) == 0 &&
                     PRM_GET(dctc, PRM_DCTC_MTU) == 5 && PRM_GET(dctc, PRM_DCTC_PORT) == 1,
             "QUERY_DCT: active, its SRQ, key, access, MTU and port");
    fill(buf + SRC, MSG, 33);
    memset(buf + DST2, 0, MSG);
    VU_CHECK(dc_post(dci, OP_WRITE, dctn, KEY2, SRC, MSG, DST2) == 0 &&
                     dci_status(NULL) == IBV_WC_SUCCESS && memcmp(buf + DST2, buf + SRC, MSG) == 0,
             "a DCI writes to the DevX DCT");
    VU_CHECK(ibv_post_srq_recv(srq, &rwr, &bad) == 0 &&
                     dc_post(dci, OP_SEND, dctn, KEY2, SRC, MSG, 0) == 0 &&
                     dci_status(NULL) == IBV_WC_SUCCESS,
             "and sends to it");
    VU_CHECK(vu_wait(rcq, &wc, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 7 &&
                     wc.src_qp == dci->qp_num && memcmp(buf + RECV, buf + SRC, MSG) == 0,
             "the send lands in the SRQ (status %d, src_qp 0x%x)", wc.status, wc.src_qp);
    dci2 = dc_create(MLX5DV_DCTYPE_DCI, 0);
    VU_CHECK(dci2 != NULL && dc_ready(dci2, false) == 0 &&
                     dc_post(dci2, OP_READ, dctn, KEY1, LOCAL - MSG, MSG, DST2) == 0 &&
                     dci_status(NULL) == IBV_WC_REM_ACCESS_ERR,
             "the wrong key: a remote access error");
    if (dci2 != NULL)
        ibv_destroy_qp(dci2);
    VU_CHECK(mlx5dv_devx_obj_destroy(obj) == 0, "DESTROY_DCT");
}

int main(void)
{
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1}};
    struct ibv_port_attr port;
    union ibv_gid gid;

    if (vu_open(&c) != 0) {
        fprintf(stderr, "no device\n");
        return 1;
    }
    buf = aligned_alloc(4096, BUF);
    scq = ibv_create_cq(c.ctx, 256, NULL, NULL, 0);
    rcq = ibv_create_cq(c.ctx, 256, NULL, NULL, 0);
    srq = ibv_create_srq(c.pd, &sa);
    mr = buf != NULL ? ibv_reg_mr(c.pd, buf, BUF, ACCESS_ALL) : NULL;
    if (mr == NULL || scq == NULL || rcq == NULL || srq == NULL ||
        ibv_query_port(c.ctx, 1, &port) != 0 || ibv_query_gid(c.ctx, 1, 0, &gid) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    {
        struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1, .dlid = port.lid};

        aa.grh.dgid = gid;
        aa.grh.hop_limit = 64;
        ah = ibv_create_ah(c.pd, &aa);
    }
    dci = dc_create(MLX5DV_DCTYPE_DCI, 0);
    dct1 = dc_create(MLX5DV_DCTYPE_DCT, KEY1);
    dct2 = dc_create(MLX5DV_DCTYPE_DCT, KEY2);
    VU_CHECK(ah != NULL && dci != NULL && dct1 != NULL && dct2 != NULL,
             "an address handle, a DCI and two DCTs (errno %d)", errno);
    if (ah == NULL || dci == NULL || dct1 == NULL || dct2 == NULL)
        return vu_summary("test_verbs_dc");
    VU_CHECK(dc_ready(dci, false) == 0, "DCI: RESET -> INIT -> RTR -> RTS without a remote QP");
    VU_CHECK(dc_ready(dct1, true) == 0 && dc_ready(dct2, true) == 0, "DCTs: RESET -> INIT -> RTR");
    test_write_read();
    test_atomics();
    test_send();
    test_alternate();
    test_lost_frame();
    test_wrong_key();
    test_states_and_refusals();
    test_destroy_order();
    test_devx_dct();
    /* DCTs before the DCI that talked to them, then the SRQ and CQs they used. */
    VU_CHECK(ibv_destroy_qp(dct1) == 0 && ibv_destroy_qp(dct2) == 0 && ibv_destroy_qp(dci) == 0,
             "destroy the DCTs, then the DCI");
    VU_CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_ah(ah) == 0 && ibv_dereg_mr(mr) == 0 &&
                     ibv_destroy_cq(scq) == 0 && ibv_destroy_cq(rcq) == 0,
             "destroy the SRQ, address handle, MR and CQs");
    vu_close(&c);
    free(buf);
    return vu_summary("test_verbs_dc");
}
