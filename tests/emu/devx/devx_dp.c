/* SPDX-License-Identifier: BSD-3-Clause */
#include "emu_test_io.h"
#include "devx_dp.h"

#include <endian.h>
#include <time.h>
#include <unistd.h>

int dp_passed, dp_failed;

#define DP_PAGE         4096u
#define DP_DBREC_STRIDE 64u
#define DP_LKEY_STOP    0x100u /* data segment that ends a receive WQE (mlx5's invalid lkey) */
#define DP_TIMEOUT_MS   5000

/* Peer buffer layout. */
#define P_WRITE   0u              /* plain write targets */
#define P_READ    262144u         /* read sources */
#define P_ATOMIC  524288u         /* 8-byte counters */
#define P_ATOMIC2 (P_ATOMIC + 64) /* the wrap-around counter */
#define P_WIMM    589824u         /* write-with-immediate targets: 8 slots of 8 KiB */
#define P_RECV    655360u         /* receive scatter slots: 8 of 4 KiB */
#define P_WRAPW   688128u         /* wrap-around write targets: 16 slots of 4 KiB */
#define P_WRAPR   786432u         /* wrap-around read source, 64 KiB */

/* Requester buffer layout. */
#define L_SRC     0u
#define L_DST     262144u
#define L_ATOMIC  524288u /* fetched values: 64 slots of 8 bytes */
#define L_WRAPSRC 589824u /* 16 slots of 4 KiB */
#define L_WRAPDST 655360u /* 16 slots of 4 KiB */

#define DP_IMM(i)   (0xabc00000u + (uint32_t)(i))
/* Receive operations from this one on: no scatter entry, 5000-byte writes with immediate. */
#define DP_WIMM_BIG 1000u

/* --- host memory ------------------------------------------------------------------------ */

static void *host_alloc(size_t size)
{
    void *p = NULL;

    return posix_memalign(&p, DP_PAGE, size) == 0 ? p : NULL;
}

static void host_write(void *dst, const void *src, size_t len)
{
    uint32_t v;

    if (len == sizeof(v)) {
        memcpy(&v, src, sizeof(v));
        __atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELEASE);
        return;
    }
    memcpy(dst, src, len);
}

static void host_read(void *dst, const void *src, size_t len)
{
    if (len == 1) {
        *(uint8_t *)dst = __atomic_load_n((const uint8_t *)src, __ATOMIC_ACQUIRE);
        return;
    }
    memcpy(dst, src, len);
}

const struct dp_mem dp_host_mem = {"host", host_alloc, free, host_write, host_read};

/* --- objects ---------------------------------------------------------------------------- */

void dp_open(struct dp_dev *dev)
{
    struct mlx5dv_pd dvpd;
    struct mlx5dv_obj obj = {.pd = {.out = &dvpd}};

    memset(dev, 0, sizeof(*dev));
    dev->ctx = dt_open();
    dev->pd = ibv_alloc_pd(dev->ctx);
    DT_CHECK(dev->pd != NULL);
    obj.pd.in = dev->pd;
    DT_CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD) == 0);
    dev->pdn = dvpd.pdn;
    DT_CHECK(ibv_query_gid(dev->ctx, 1, 0, &dev->gid) == 0);
}

void dp_close(struct dp_dev *dev)
{
    DT_CHECK(ibv_dealloc_pd(dev->pd) == 0);
    DT_CHECK(ibv_close_device(dev->ctx) == 0);
}

static size_t dp_align(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* The first pass of the CQ: every entry invalid, so that none looks software-owned. */
static void dp_ring_init(struct dp_qp *q)
{
    uint8_t *image = calloc(1, q->ring_size);

    DT_CHECK(image != NULL);
    for (uint32_t i = 0; i < (1u << q->log_cq); i++)
        ((struct prm_cqe64 *)(void *)image)[i].op_own =
                prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 1);
    q->mem->write(q->ring, image, q->ring_size);
    free(image);
}

static int dp_qp_make(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q,
                      uint32_t log_cq, uint32_t log_sq, uint32_t log_rq, bool no_dbr,
                      uint32_t cq_st, uint32_t qp_st);

int dp_qp_create(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q, uint32_t log_cq,
                 uint32_t log_sq, uint32_t log_rq, bool no_dbr)
{
    return dp_qp_create_st(dev, mem, q, log_cq, log_sq, log_rq, no_dbr, 0);
}

int dp_qp_create_st(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q, uint32_t log_cq,
                    uint32_t log_sq, uint32_t log_rq, bool no_dbr, uint32_t cq_st)
{
    return dp_qp_make(dev, mem, q, log_cq, log_sq, log_rq, no_dbr, cq_st, PRM_QP_ST_RC);
}

int dp_qp_create_type(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q,
                      uint32_t log_cq, uint32_t log_sq, uint32_t log_rq, uint32_t qp_st)
{
    return dp_qp_make(dev, mem, q, log_cq, log_sq, log_rq, false, 0, qp_st);
}

static int dp_qp_make(struct dp_dev *dev, const struct dp_mem *mem, struct dp_qp *q,
                      uint32_t log_cq, uint32_t log_sq, uint32_t log_rq, bool no_dbr,
                      uint32_t cq_st, uint32_t qp_st)
{
    static uint8_t in[PRM_CREATE_QP_IN_SIZE];
    uint8_t out[0x10] = {0};
    size_t wq_bytes = ((size_t)64 << log_rq) + ((size_t)PRM_WQE_BB_SIZE << log_sq);

    memset(q, 0, sizeof(*q));
    q->dev = dev;
    q->mem = mem;
    q->log_cq = log_cq;
    q->log_sq = log_sq;
    q->log_rq = log_rq;
    q->no_dbr = no_dbr;
    q->wq_off = dp_align((size_t)PRM_CQE_SIZE << log_cq, DP_PAGE);
    q->cq_dbr_off = dp_align(q->wq_off + wq_bytes, DP_DBREC_STRIDE);
    q->qp_dbr_off = q->cq_dbr_off + DP_DBREC_STRIDE;
    q->ring_size = dp_align(q->qp_dbr_off + DP_DBREC_STRIDE, DP_PAGE);
    q->ring = mem->alloc(q->ring_size);
    DT_CHECK(q->ring != NULL);
    dp_ring_init(q);

    q->buf = aligned_alloc(DP_PAGE, DP_BUF_SIZE);
    DT_CHECK(q->buf != NULL);
    memset(q->buf, 0, DP_BUF_SIZE);
    q->mr = ibv_reg_mr(dev->pd, q->buf, DP_BUF_SIZE,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                               IBV_ACCESS_REMOTE_ATOMIC);
    DT_CHECK(q->mr != NULL);
    q->uar = mlx5dv_devx_alloc_uar(dev->ctx, 0);
    DT_CHECK(q->uar != NULL);
    q->umem = mlx5dv_devx_umem_reg(dev->ctx, q->ring, q->ring_size, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(q->umem != NULL);

    dt_build_create_cq(in, &(struct dt_cq_args){.log_size = log_cq,
                                                .uar_page = q->uar->page_id,
                                                .umem_id = q->umem->umem_id,
                                                .umem_offset = 0,
                                                .dbr_umem_id = q->umem->umem_id,
                                                .dbr_offset = q->cq_dbr_off});
    PRM_SET(PRM_AT(in, PRM_CREATE_CQ_IN_CQC), PRM_CQC_ST, cq_st);
    q->cq = mlx5dv_devx_obj_create(dev->ctx, in, PRM_CREATE_CQ_IN_SIZE, out, sizeof(out));
    if (q->cq == NULL) {
        fprintf(stderr, "CREATE_CQ: status 0x%x syndrome 0x%x\n", dt_status(out), dt_syndrome(out));
        return -1;
    }
    q->cqn = (uint32_t)prm_get_field(out, 0x08, 0, 24);

    dt_build_create_qp(in, &(struct dt_qp_args){.pdn = dev->pdn,
                                                .cqn = q->cqn,
                                                .uar_page = q->uar->page_id,
                                                .log_sq_size = log_sq,
                                                .log_rq_size = log_rq,
                                                .umem_id = q->umem->umem_id,
                                                .umem_offset = q->wq_off,
                                                .dbr_umem_id = q->umem->umem_id,
                                                .dbr_offset = q->qp_dbr_off});
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_ST, qp_st);
    q->no_rq = qp_st == PRM_QP_ST_XRC;
    if (q->no_rq)
        PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_RQ_TYPE, PRM_QP_RQ_TYPE_ZERO_SIZE);
    if (no_dbr)
        PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_SEND_DBR_MODE,
                PRM_QP_SEND_DBR_MODE_NO_DBR_EXT);
    memset(out, 0, sizeof(out));
    q->qp = mlx5dv_devx_obj_create(dev->ctx, in, PRM_CREATE_QP_IN_SIZE, out, sizeof(out));
    if (q->qp == NULL) {
        fprintf(stderr, "CREATE_QP: status 0x%x syndrome 0x%x\n", dt_status(out), dt_syndrome(out));
        return -1;
    }
    q->qpn = (uint32_t)prm_get_field(out, 0x08, 0, 24);
    return 0;
}

void dp_qp_destroy(struct dp_qp *q)
{
    if (q->qp != NULL)
        DT_CHECK(mlx5dv_devx_obj_destroy(q->qp) == 0);
    if (q->cq != NULL)
        DT_CHECK(mlx5dv_devx_obj_destroy(q->cq) == 0);
    DT_CHECK(mlx5dv_devx_umem_dereg(q->umem) == 0);
    mlx5dv_devx_free_uar(q->uar);
    DT_CHECK(ibv_dereg_mr(q->mr) == 0);
    free(q->buf);
    q->mem->free(q->ring);
}

void dp_info_of(const struct dp_qp *q, struct dp_info *info)
{
    memset(info, 0, sizeof(*info));
    info->qpn = q->qpn;
    info->rkey = q->mr->rkey;
    info->addr = (uintptr_t)q->buf;
    info->gid = q->dev->gid;
}

static int dp_modify(struct dp_qp *q, uint16_t opcode, void *in)
{
    uint8_t status = 0;
    int rc = dt_qp_cmd(q->qp, opcode, q->qpn, in, PRM_RST2INIT_QP_IN_SIZE, &status);

    if (rc != 0)
        fprintf(stderr, "QP 0x%x: command 0x%x failed: %d, status 0x%x\n", q->qpn, opcode, rc,
                status);
    return rc == 0 ? 0 : -1;
}

int dp_qp_connect(struct dp_qp *q, const struct dp_info *remote)
{
    static uint8_t in[PRM_RST2INIT_QP_IN_SIZE];
    void *qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);

    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_RWE, 1);
    PRM_SET(qpc, PRM_QPC_RRE, 1);
    PRM_SET(qpc, PRM_QPC_RAE, 1);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    if (dp_modify(q, PRM_CMD_RST2INIT_QP, in) != 0)
        return -1;

    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_MTU, PRM_QP_MTU_1K);
    PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, 30);
    PRM_SET(qpc, PRM_QPC_REMOTE_QPN, remote->qpn);
    PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX, 2);
    PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, 1);
    PRM_SET(qpc, PRM_QPC_NEXT_RCV_PSN, 0);
    PRM_SET(ads, PRM_ADS_GRH, 1);
    PRM_SET(ads, PRM_ADS_HOP_LIMIT, 1);
    PRM_SET(ads, PRM_ADS_SRC_ADDR_INDEX, 0);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    memcpy((uint8_t *)ads + PRM_OFFSET(PRM_ADS_RGID_RIP), remote->gid.raw, PRM_ADS_RGID_RIP_LEN);
    if (dp_modify(q, PRM_CMD_INIT2RTR_QP, in) != 0)
        return -1;

    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX, 2);
    PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 7);
    PRM_SET(qpc, PRM_QPC_RNR_RETRY, 7);
    PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, 0);
    PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, 14);
    return dp_modify(q, PRM_CMD_RTR2RTS_QP, in);
}

int dp_qp_ready_ud(struct dp_qp *q, uint32_t qkey)
{
    static uint8_t in[PRM_RST2INIT_QP_IN_SIZE];
    void *qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);

    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_Q_KEY, qkey);
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    if (dp_modify(q, PRM_CMD_RST2INIT_QP, in) != 0)
        return -1;
    memset(in, 0, sizeof(in));
    if (dp_modify(q, PRM_CMD_INIT2RTR_QP, in) != 0)
        return -1;
    return dp_modify(q, PRM_CMD_RTR2RTS_QP, in);
}

/* --- data path -------------------------------------------------------------------------- */

static uint8_t *dp_sq_base(const struct dp_qp *q)
{
    return q->ring + q->wq_off + (q->no_rq ? 0 : (size_t)64 << q->log_rq);
}

uint32_t dp_post(struct dp_qp *q, const struct dp_wqe *w)
{
    uint8_t wqe[PRM_WQE_BB_SIZE * 16] = {0};
    struct prm_wqe_ctrl_seg *ctrl = (void *)wqe;
    uint32_t off = sizeof(*ctrl), index = q->sq_pi, ds, bbs;

    if (w->opcode != PRM_WQE_OPCODE_SEND) {
        prm_wqe_set_raddr_seg((void *)(wqe + off), w->raddr, w->rkey);
        off += sizeof(struct prm_wqe_raddr_seg);
    }
    if (w->opcode == PRM_WQE_OPCODE_ATOMIC_FA || w->opcode == PRM_WQE_OPCODE_ATOMIC_CS) {
        prm_wqe_set_atomic_seg((void *)(wqe + off), w->swap_add, w->compare);
        off += sizeof(struct prm_wqe_atomic_seg);
    }
    if (w->inline_data != NULL) {
        struct prm_wqe_inline_seg *seg = (void *)(wqe + off);

        prm_wqe_set_inline_seg(seg, w->len);
        memcpy(prm_wqe_inline_data(seg), w->inline_data, w->len);
        off += prm_wqe_inline_ds(w->len) * PRM_WQE_DS_SIZE;
    } else if (w->len != 0) {
        prm_wqe_set_data_seg((void *)(wqe + off), w->len, q->mr->lkey, w->laddr);
        off += sizeof(struct prm_wqe_data_seg);
    }
    ds = prm_wqe_ds_count(off);
    bbs = prm_wqe_bb_count(ds);
    prm_wqe_set_ctrl_seg(ctrl, (uint16_t)index, w->opcode, 0, q->qpn,
                         w->signaled ? PRM_WQE_CTRL_CQ_UPDATE : PRM_WQE_CTRL_CE_ERROR_ONLY,
                         (uint8_t)ds, 0, w->imm_be);
    /* Basic block by basic block: a WQE that starts in the last slots continues at the start. */
    for (uint32_t i = 0; i < bbs; i++)
        q->mem->write(prm_wqe_slot(dp_sq_base(q), index + i, q->log_sq), wqe + i * PRM_WQE_BB_SIZE,
                      PRM_WQE_BB_SIZE);
    memcpy(&q->last_db, ctrl, sizeof(q->last_db));
    q->sq_pi += bbs;
    return index;
}

uint32_t dp_post_raw(struct dp_qp *q, const void *wqe, uint32_t ds)
{
    uint32_t index = q->sq_pi, bbs = prm_wqe_bb_count(ds);
    uint8_t bb[PRM_WQE_BB_SIZE * 16] = {0};

    memcpy(bb, wqe, ds * PRM_WQE_DS_SIZE);
    for (uint32_t i = 0; i < bbs; i++)
        q->mem->write(prm_wqe_slot(dp_sq_base(q), index + i, q->log_sq), bb + i * PRM_WQE_BB_SIZE,
                      PRM_WQE_BB_SIZE);
    memcpy(&q->last_db, bb, sizeof(q->last_db));
    q->sq_pi += bbs;
    return index;
}

void dp_ring(struct dp_qp *q)
{
    if (!q->no_dbr) {
        uint32_t be = htobe32(q->sq_pi & 0xffff);

        q->mem->write(q->ring + q->qp_dbr_off + 4, &be, sizeof(be));
    }
    __atomic_store_n((uint64_t *)q->uar->reg_addr, q->last_db, __ATOMIC_RELEASE);
}

void dp_post_recv(struct dp_qp *q, uint32_t off, uint32_t len)
{
    struct prm_wqe_data_seg segs[4];
    uint32_t n = 0, be;

    memset(segs, 0, sizeof(segs));
    if (len != 0)
        prm_wqe_set_data_seg(&segs[n++], len, q->mr->lkey, (uintptr_t)q->buf + off);
    prm_wqe_set_data_seg(&segs[n], 0, DP_LKEY_STOP, 0);
    q->mem->write(q->ring + q->wq_off + (size_t)(q->rq_pi & ((1u << q->log_rq) - 1)) * 64, segs,
                  sizeof(segs));
    q->rq_pi++;
    be = htobe32(q->rq_pi & 0xffff);
    q->mem->write(q->ring + q->qp_dbr_off, &be, sizeof(be));
}

static long dp_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int dp_poll(struct dp_qp *q, struct prm_cqe64 *cqe, int timeout_ms)
{
    uint8_t *slot = q->ring + (size_t)(q->cq_ci & ((1u << q->log_cq) - 1)) * PRM_CQE_SIZE;
    long end = dp_ms() + timeout_ms;
    uint8_t op_own;
    uint32_t be;

    for (;;) {
        q->mem->read(&op_own, slot + PRM_CQE_SIZE - 1, 1);
        if (prm_cqe_op_own_sw_owned(op_own, q->cq_ci, q->log_cq))
            break;
        if (dp_ms() > end)
            return 0;
    }
    /* The entry again, whole: read after op_own, so every byte is the device's. */
    q->mem->read(cqe, slot, sizeof(*cqe));
    q->cq_ci++;
    be = htobe32(q->cq_ci & 0xffffff);
    q->mem->write(q->ring + q->cq_dbr_off, &be, sizeof(be));
    return 1;
}

void dp_fill(uint8_t *p, uint32_t len, uint8_t seed, uint32_t start)
{
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + (start + i) * 7);
}

bool dp_check_bytes(const uint8_t *p, uint32_t len, uint8_t seed, uint32_t start)
{
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] != (uint8_t)(seed + (start + i) * 7)) {
            fprintf(stderr, "byte %u of %u: 0x%02x, expected 0x%02x\n", i, len, p[i],
                    (uint8_t)(seed + (start + i) * 7));
            return false;
        }
    }
    return true;
}

/* --- the peer --------------------------------------------------------------------------- */

/* Receive operation i: a send (i % 3 == 2) or a write with immediate; its length and places. */
struct dp_rop {
    bool send;
    uint32_t len;
    uint8_t seed;
    uint32_t wimm_off; /* write target (write with immediate) */
    uint32_t recv_off; /* scatter slot of its receive WQE */
    uint32_t recv_len; /* 0: the receive WQE has no scatter entry */
};

static struct dp_rop dp_rop_of(uint32_t i)
{
    struct dp_rop r;

    r.send = i < DP_WIMM_BIG && i % 3 == 2;
    r.len = i < DP_WIMM_BIG ? 1 + (i * 397) % 3000 : 5000;
    r.seed = (uint8_t)(i + 40);
    r.wimm_off = P_WIMM + (i % 8) * 8192;
    r.recv_off = P_RECV + (i % 8) * 4096;
    r.recv_len = i < DP_WIMM_BIG ? 4096 : 0;
    return r;
}

static bool dp_peer_recv_check(struct dp_qp *q, uint32_t i)
{
    struct dp_rop r = dp_rop_of(i);
    struct prm_cqe64 cqe;
    uint16_t counter = (uint16_t)q->rq_ci;
    uint8_t want = r.send ? PRM_CQE_OPCODE_RESP_SEND : PRM_CQE_OPCODE_RESP_WR_IMM;

    if (dp_poll(q, &cqe, DP_TIMEOUT_MS) != 1) {
        fprintf(stderr, "receive %u: no CQE\n", i);
        return false;
    }
    q->rq_ci++;
    if (prm_cqe_opcode(&cqe) != want || prm_cqe_byte_cnt(&cqe) != r.len ||
        prm_cqe_wqe_counter(&cqe) != counter || prm_cqe_qpn(&cqe) != q->qpn ||
        (!r.send && prm_cqe_imm(&cqe) != htobe32(DP_IMM(i)))) {
        fprintf(stderr,
                "receive %u: CQE opcode 0x%x (want 0x%x) syndrome 0x%x byte_cnt %u (want %u) "
                "wqe_counter %u (want %u) qpn 0x%x (want 0x%x) imm 0x%x\n",
                i, prm_cqe_opcode(&cqe), want, prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0,
                prm_cqe_byte_cnt(&cqe), r.len, prm_cqe_wqe_counter(&cqe), counter,
                prm_cqe_qpn(&cqe), q->qpn, be32toh(prm_cqe_imm(&cqe)));
        return false;
    }
    return dp_check_bytes(q->buf + (r.send ? r.recv_off : r.wimm_off), r.len, r.seed, 0);
}

void dp_peer_exec(struct dp_qp *q, const struct dp_cmd *c, struct dp_reply *r)
{
    r->ok = 1;
    r->value = 0;
    switch (c->op) {
    case DP_OP_FILL:
        dp_fill(q->buf + c->off, c->len, (uint8_t)c->seed, 0);
        break;
    case DP_OP_CHECK:
        r->ok = dp_check_bytes(q->buf + c->off, c->len, (uint8_t)c->seed, 0);
        break;
    case DP_OP_SET64:
        __atomic_store_n((uint64_t *)(void *)(q->buf + c->off), c->value, __ATOMIC_SEQ_CST);
        break;
    case DP_OP_GET64:
        r->value = __atomic_load_n((uint64_t *)(void *)(q->buf + c->off), __ATOMIC_SEQ_CST);
        break;
    case DP_OP_RECV_POST:
        for (uint32_t i = c->first; i < c->first + c->n; i++) {
            struct dp_rop rop = dp_rop_of(i);

            memset(q->buf + rop.recv_off, 0, 4096);
            memset(q->buf + rop.wimm_off, 0, 8192);
            dp_post_recv(q, rop.recv_off, rop.recv_len);
        }
        break;
    case DP_OP_RECV_POLL:
        for (uint32_t i = c->first; i < c->first + c->n; i++)
            if (!dp_peer_recv_check(q, i))
                r->ok = 0;
        break;
    default:
        break;
    }
}

int dp_peer_serve(struct dp_qp *q, int sock)
{
    struct dp_cmd c;
    struct dp_reply r;

    for (;;) {
        if (emu_test_full_io(sock, &c, sizeof(c), false) != 0)
            return -1;
        if (c.op == DP_OP_QUIT)
            break;
        dp_peer_exec(q, &c, &r);
        if (emu_test_full_io(sock, &r, sizeof(r), true) != 0)
            return -1;
    }
    r.ok = 1;
    r.value = 0;
    return emu_test_full_io(sock, &r, sizeof(r), true);
}

static struct dp_reply dp_call(struct dp_peer *p, uint32_t op, uint32_t off, uint32_t len,
                               uint32_t seed, uint64_t value)
{
    struct dp_cmd c = {.op = op, .off = off, .len = len, .seed = seed, .value = value};
    struct dp_reply r = {0, 0};

    if (op == DP_OP_RECV_POST || op == DP_OP_RECV_POLL) {
        c.first = off;
        c.n = len;
    }
    if (p->local != NULL) {
        dp_peer_exec(p->local, &c, &r);
        return r;
    }
    if (emu_test_full_io(p->sock, &c, sizeof(c), true) != 0 ||
        emu_test_full_io(p->sock, &r, sizeof(r), false) != 0) {
        fprintf(stderr, "the peer process is gone\n");
        r.ok = 0;
    }
    return r;
}

/* --- the suite -------------------------------------------------------------------------- */

/* Waits for the requester CQE of WQE index with this WQE opcode; byte_cnt checked unless < 0. */
static bool dp_expect_req(struct dp_qp *a, uint32_t index, uint8_t opcode, int64_t byte_cnt)
{
    struct prm_cqe64 cqe;

    if (dp_poll(a, &cqe, DP_TIMEOUT_MS) != 1) {
        DP_CHECK(false, "no CQE for WQE %u (opcode 0x%x)", index & 0xffff, opcode);
        return false;
    }
    DP_CHECK(prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ && prm_cqe_wqe_opcode(&cqe) == opcode &&
                     prm_cqe_qpn(&cqe) == a->qpn && prm_cqe_wqe_counter(&cqe) == (index & 0xffff) &&
                     (byte_cnt < 0 || prm_cqe_byte_cnt(&cqe) == (uint64_t)byte_cnt),
             "CQE of WQE %u: opcode 0x%x (syndrome 0x%x) WQE opcode 0x%x (want 0x%x) qpn 0x%x "
             "(want 0x%x) wqe_counter %u byte_cnt %u (want %lld)",
             index & 0xffff, prm_cqe_opcode(&cqe),
             prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0, prm_cqe_wqe_opcode(&cqe), opcode,
             prm_cqe_qpn(&cqe), a->qpn, prm_cqe_wqe_counter(&cqe), prm_cqe_byte_cnt(&cqe),
             (long long)byte_cnt);
    return prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ;
}

/* One signaled WQE, rung and completed. */
static bool dp_one(struct dp_qp *a, struct dp_wqe *w, int64_t byte_cnt)
{
    uint32_t index;

    w->signaled = true;
    index = dp_post(a, w);
    dp_ring(a);
    return dp_expect_req(a, index, w->opcode, byte_cnt);
}

static void dp_suite_rdma(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r)
{
    static const uint32_t sizes[] = {1, 8, 63, 64, 4095, 65536, 200000};

    for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint32_t n = sizes[i];
        uint8_t seed = (uint8_t)(i * 13 + 1);
        struct dp_wqe w = {.opcode = PRM_WQE_OPCODE_RDMA_WRITE,
                           .raddr = r->addr + P_WRITE,
                           .rkey = r->rkey,
                           .len = n,
                           .laddr = (uintptr_t)a->buf + L_SRC};

        dp_fill(a->buf + L_SRC, n, seed, 0);
        if (!dp_one(a, &w, n))
            return;
        DP_CHECK(dp_call(p, DP_OP_CHECK, P_WRITE, n, seed, 0).ok, "RDMA write of %u bytes", n);

        DP_CHECK(dp_call(p, DP_OP_FILL, P_READ, n, (uint8_t)(seed + 100), 0).ok, "fill");
        memset(a->buf + L_DST, 0, n + 1);
        w = (struct dp_wqe){.opcode = PRM_WQE_OPCODE_RDMA_READ,
                            .raddr = r->addr + P_READ,
                            .rkey = r->rkey,
                            .len = n,
                            .laddr = (uintptr_t)a->buf + L_DST};
        if (!dp_one(a, &w, n))
            return;
        DP_CHECK(dp_check_bytes(a->buf + L_DST, n, (uint8_t)(seed + 100), 0) &&
                         a->buf[L_DST + n] == 0,
                 "RDMA read of %u bytes", n);
    }
}

static bool dp_atomic(struct dp_qp *a, const struct dp_info *r, uint8_t opcode, uint64_t off,
                      uint64_t swap_add, uint64_t compare, uint32_t slot)
{
    struct dp_wqe w = {.opcode = opcode,
                       .raddr = r->addr + off,
                       .rkey = r->rkey,
                       .swap_add = swap_add,
                       .compare = compare,
                       .len = 8,
                       .laddr = (uintptr_t)a->buf + L_ATOMIC + slot * 8};

    memset(a->buf + L_ATOMIC + slot * 8, 0xee, 8);
    return dp_one(a, &w, 8);
}

static uint64_t dp_fetched(const struct dp_qp *a, uint32_t slot)
{
    uint64_t v;

    memcpy(&v, a->buf + L_ATOMIC + slot * 8, sizeof(v));
    return be64toh(v);
}

/* Atomics on big-endian 8-byte values in the peer's memory, as ConnectX does them. */
static void dp_suite_atomic(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r)
{
    DP_CHECK(dp_call(p, DP_OP_SET64, P_ATOMIC, 0, 0, htobe64(5)).ok, "set");
    if (!dp_atomic(a, r, PRM_WQE_OPCODE_ATOMIC_FA, P_ATOMIC, 7, 0, 0))
        return;
    DP_CHECK(dp_fetched(a, 0) == 5, "fetch-add fetched %llu, want 5",
             (unsigned long long)dp_fetched(a, 0));
    DP_CHECK(dp_call(p, DP_OP_GET64, P_ATOMIC, 0, 0, 0).value == htobe64(12),
             "fetch-add left 0x%llx (big-endian 12 wanted)",
             (unsigned long long)dp_call(p, DP_OP_GET64, P_ATOMIC, 0, 0, 0).value);
    /* A carry across the 32-bit halves. */
    if (!dp_atomic(a, r, PRM_WQE_OPCODE_ATOMIC_FA, P_ATOMIC, 0xffffffffull, 0, 1))
        return;
    DP_CHECK(dp_fetched(a, 1) == 12, "second fetch-add fetched %llu",
             (unsigned long long)dp_fetched(a, 1));
    DP_CHECK(dp_call(p, DP_OP_GET64, P_ATOMIC, 0, 0, 0).value == htobe64(0x10000000bull),
             "fetch-add with carry");
    /* Compare-and-swap: a match swaps, a mismatch leaves the value. */
    if (!dp_atomic(a, r, PRM_WQE_OPCODE_ATOMIC_CS, P_ATOMIC, 99, 0x10000000bull, 2) ||
        !dp_atomic(a, r, PRM_WQE_OPCODE_ATOMIC_CS, P_ATOMIC, 1, 5, 3))
        return;
    DP_CHECK(dp_fetched(a, 2) == 0x10000000bull && dp_fetched(a, 3) == 99,
             "compare-and-swap fetched %llu, %llu", (unsigned long long)dp_fetched(a, 2),
             (unsigned long long)dp_fetched(a, 3));
    DP_CHECK(dp_call(p, DP_OP_GET64, P_ATOMIC, 0, 0, 0).value == htobe64(99),
             "compare-and-swap result");
}

static void dp_suite_inline(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r)
{
    /* 1 BB, 1 BB, 2 BBs, 3 BBs, 6 BBs. */
    static const uint32_t sizes[] = {1, 12, 28, 100, 300};

    for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint8_t data[512];
        uint32_t n = sizes[i];
        struct dp_wqe w = {.opcode = PRM_WQE_OPCODE_RDMA_WRITE,
                           .raddr = r->addr + P_WRITE + 4096,
                           .rkey = r->rkey,
                           .inline_data = data,
                           .len = n};

        dp_fill(data, n, (uint8_t)(i + 200), 0);
        if (!dp_one(a, &w, -1))
            return;
        DP_CHECK(dp_call(p, DP_OP_CHECK, P_WRITE + 4096, n, (uint8_t)(i + 200), 0).ok,
                 "inline write of %u bytes", n);
    }
}

/* Receive operations first .. first + n - 1, posted on the peer, sent together, then checked. */
static bool dp_recv_batch(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r,
                          uint32_t first, uint32_t n)
{
    uint32_t index[8];

    if (!dp_call(p, DP_OP_RECV_POST, first, n, 0, 0).ok)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        struct dp_rop rop = dp_rop_of(first + k);
        uint32_t src = L_SRC + k * 8192;
        struct dp_wqe w = {.opcode = rop.send ? PRM_WQE_OPCODE_SEND : PRM_WQE_OPCODE_RDMA_WRITE_IMM,
                           .signaled = true,
                           .imm_be = rop.send ? 0 : htobe32(DP_IMM(first + k)),
                           .raddr = r->addr + rop.wimm_off,
                           .rkey = r->rkey,
                           .len = rop.len,
                           .laddr = (uintptr_t)a->buf + src};

        dp_fill(a->buf + src, rop.len, rop.seed, 0);
        index[k] = dp_post(a, &w);
    }
    dp_ring(a);
    for (uint32_t k = 0; k < n; k++) {
        struct dp_rop rop = dp_rop_of(first + k);

        if (!dp_expect_req(a, index[k],
                           rop.send ? PRM_WQE_OPCODE_SEND : PRM_WQE_OPCODE_RDMA_WRITE_IMM, -1))
            return false;
    }
    DP_CHECK(dp_call(p, DP_OP_RECV_POLL, first, n, 0, 0).ok,
             "receive completions of operations %u..%u", first, first + n - 1);
    return true;
}

/* Write with immediate and send into receive WQEs posted by hand; the RQ (4 entries) wraps. */
static void dp_suite_recv(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r)
{
    uint32_t first = 0;

    for (uint32_t batch = 0; batch < 10; batch++) {
        uint32_t n = 1 + batch % 4;

        if (!dp_recv_batch(a, p, r, first, n))
            return;
        first += n;
    }
    /* A receive WQE without a scatter entry takes a write with immediate of any length. */
    dp_recv_batch(a, p, r, DP_WIMM_BIG, 2);
}

/* One operation of the wrap-around run. */
struct dp_wrap_op {
    uint32_t i;
    uint8_t opcode;
    uint32_t len, roff, loff;
    bool inl, signaled;
    uint32_t index, bbs;
    uint64_t add;
};

static void dp_wrap_plan(struct dp_wrap_op *o, uint32_t i)
{
    memset(o, 0, sizeof(*o));
    o->i = i;
    switch (i % 4) {
    case 0:
        o->opcode = PRM_WQE_OPCODE_RDMA_WRITE;
        o->len = 1 + (i * 131) % 2000;
        o->roff = P_WRAPW + (i % 16) * 4096;
        o->loff = L_WRAPSRC + (i % 16) * 4096;
        o->bbs = 1;
        break;
    case 1: /* ctrl + raddr + inline: up to 12 DS, 3 BBs, often across the ring's end */
        o->opcode = PRM_WQE_OPCODE_RDMA_WRITE;
        o->inl = true;
        o->len = 1 + (i * 37) % 150;
        o->roff = P_WRAPW + (i % 16) * 4096;
        o->bbs = prm_wqe_bb_count(2 + prm_wqe_inline_ds(o->len));
        break;
    case 2:
        o->opcode = PRM_WQE_OPCODE_RDMA_READ;
        o->len = 1 + (i * 211) % 3000;
        o->roff = P_WRAPR + (i * 97) % 60000;
        o->loff = L_WRAPDST + (i % 16) * 4096;
        o->bbs = 1;
        break;
    default:
        o->opcode = PRM_WQE_OPCODE_ATOMIC_FA;
        o->len = 8;
        o->roff = P_ATOMIC2;
        o->loff = L_ATOMIC + (i % 64) * 8;
        o->add = i + 1;
        o->bbs = 1;
        break;
    }
    o->signaled = i % 3 != 0;
}

/*
 * More WQEs than the SQ (8 BBs) and the CQ (4 CQEs) hold: batches that fill
 * the SQ, some WQEs unsignaled, one doorbell per batch or one per WQE.
 */
static void dp_suite_wrap(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r,
                          uint32_t total)
{
    uint32_t sq_bbs = 1u << a->log_sq, cq_n = 1u << a->log_cq, i = 0, batch = 0;
    uint64_t counter = 0;

    DP_CHECK(dp_call(p, DP_OP_SET64, P_ATOMIC2, 0, 0, 0).ok, "set");
    DP_CHECK(dp_call(p, DP_OP_FILL, P_WRAPR, 65536, 0x5a, 0).ok, "fill");
    while (i < total) {
        struct dp_wrap_op ops[16];
        uint32_t n = 0, bbs = 0, signaled = 0; /* planned: n >= 1 as the SQ is empty */
        uint8_t data[256];

        /* Plan: as many operations as the SQ takes; one CQE kept for the last, always signaled. */
        for (;;) {
            struct dp_wrap_op o;

            dp_wrap_plan(&o, i);
            if (i >= total || bbs + o.bbs > sq_bbs || signaled + o.signaled > cq_n - 1 || n == 16)
                break;
            ops[n++] = o;
            bbs += o.bbs;
            signaled += o.signaled;
            i++;
        }
        ops[n - 1].signaled = true;
        for (uint32_t k = 0; k < n; k++) {
            struct dp_wrap_op *o = &ops[k];
            struct dp_wqe w = {.opcode = o->opcode,
                               .signaled = o->signaled,
                               .raddr = r->addr + o->roff,
                               .rkey = r->rkey,
                               .swap_add = o->add,
                               .len = o->len,
                               .laddr = (uintptr_t)a->buf + o->loff};

            if (o->opcode == PRM_WQE_OPCODE_RDMA_WRITE && o->inl) {
                dp_fill(data, o->len, (uint8_t)o->i, 0);
                w.inline_data = data;
            } else if (o->opcode == PRM_WQE_OPCODE_RDMA_WRITE) {
                dp_fill(a->buf + o->loff, o->len, (uint8_t)o->i, 0);
            } else {
                memset(a->buf + o->loff, 0, o->len);
            }
            o->index = dp_post(a, &w);
            if (batch % 2 == 1)
                dp_ring(a); /* a doorbell per WQE */
        }
        if (batch % 2 == 0)
            dp_ring(a); /* one doorbell for the batch */
        for (uint32_t k = 0; k < n; k++)
            if (ops[k].signaled &&
                !dp_expect_req(a, ops[k].index, ops[k].opcode,
                               ops[k].opcode == PRM_WQE_OPCODE_RDMA_WRITE ? -1
                                                                          : (int64_t)ops[k].len))
                return;
        for (uint32_t k = 0; k < n; k++) {
            struct dp_wrap_op *o = &ops[k];

            if (o->opcode == PRM_WQE_OPCODE_RDMA_WRITE) {
                DP_CHECK(dp_call(p, DP_OP_CHECK, o->roff, o->len, (uint8_t)o->i, 0).ok,
                         "wrap write %u (%u bytes%s)", o->i, o->len, o->inl ? ", inline" : "");
            } else if (o->opcode == PRM_WQE_OPCODE_RDMA_READ) {
                DP_CHECK(dp_check_bytes(a->buf + o->loff, o->len, 0x5a, o->roff - P_WRAPR),
                         "wrap read %u (%u bytes)", o->i, o->len);
            } else {
                uint64_t v;

                memcpy(&v, a->buf + o->loff, sizeof(v));
                DP_CHECK(be64toh(v) == counter, "wrap fetch-add %u fetched %llu, want %llu", o->i,
                         (unsigned long long)be64toh(v), (unsigned long long)counter);
                counter += o->add;
            }
        }
        batch++;
    }
    DP_CHECK(dp_call(p, DP_OP_GET64, P_ATOMIC2, 0, 0, 0).value == htobe64(counter),
             "wrap counter, want %llu", (unsigned long long)counter);
    DP_CHECK(a->sq_pi > 8 * sq_bbs && a->cq_ci > 8 * cq_n,
             "the rings wrapped: %u BBs posted on %u, %u CQEs on %u", a->sq_pi, sq_bbs, a->cq_ci,
             cq_n);
}

void dp_suite(struct dp_qp *a, struct dp_peer *p, const struct dp_info *r)
{
    int failed = dp_failed;

    dp_suite_rdma(a, p, r);
    dp_suite_atomic(a, p, r);
    dp_suite_inline(a, p, r);
    dp_suite_recv(a, p, r);
    dp_suite_wrap(a, p, r, 240);
    /* In no-DBR mode nothing was ever written to the send counter of the doorbell record. */
    if (a->no_dbr) {
        uint32_t be;

        a->mem->read(&be, a->ring + a->qp_dbr_off + 4, sizeof(be));
        DP_CHECK(be == 0, "no-DBR: the send doorbell record holds 0x%x", be32toh(be));
    }
    printf("%s rings%s: %d checks failed\n", a->mem->name, a->no_dbr ? ", no-DBR" : "",
           dp_failed - failed);
}

int dp_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, dp_passed, dp_failed);
    return dp_failed == 0 ? 0 : 1;
}

bool dp_no_dbr_mode(void)
{
    const char *v = getenv("SOFTMLX5_NO_DBR");

    return v != NULL && strcmp(v, "1") == 0;
}
