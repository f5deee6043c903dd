/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's Ethernet port driven as a DevX program drives a ConnectX:
 * transport domain, TIS, CQs, SQ, RQs, RQT, TIRs and Q counter made with PRM
 * commands, receive steering with mlx5dv_create_flow_matcher /
 * mlx5dv_create_flow, WQEs and doorbells written by hand, CQEs parsed.
 *
 *   test_eth_port refusals   bad PRM fields answered with their status and
 *                            syndrome, steering refusals, and a send queue
 *                            with no port attached (no root needed)
 *   test_eth_port lo [gpu]   under eth_lo.sh (softmlx5-run --eth lo in a
 *                            fresh network namespace): the port's own
 *                            frames come back through lo: inline headers of
 *                            0, 2, 18 and 42 bytes, checksums, 9000-byte frames
 *   test_eth_port port [gpu] under eth_ns.sh (softmlx5-run --eth in
 *                            namespace A, eth_peer.py in namespace B): UDP
 *                            frames received (bytes, byte_cnt, l3/l4 ok),
 *                            priorities, drops, RSS, out_of_buffer; frames
 *                            sent with checksum offload, byte for byte;
 *                            an oversized frame's error CQE and recovery;
 *                            with gpu, the rings, doorbell records and
 *                            packet buffers in GPU memory (cuMemAlloc)
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <endian.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "devx_test.h"
#include "emu_cuda_test.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_eth.h"
#include "prm/prm_vport.h"

static int passed, failed;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (cond) {                                              \
            passed++;                                            \
        } else {                                                 \
            failed++;                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

/* softmlx5's syndromes (emu/devx/syndrome.h) the refusals check. */
#define SYND_ETH_STRIDE     0x5f000e03u
#define SYND_ETH_CQN        0x5f000e05u
#define SYND_ETH_COUNTER    0x5f000e10u
#define SYND_ETH_TRANSITION 0x5f000e13u
#define SYND_ETH_BUSY       0x5f000e14u
#define SYND_ETH_TD         0x5f000e15u
#define SYND_ETH_TIR_RQ     0x5f000e19u
#define SYND_ETH_TIR_HASH   0x5f000e1cu
#define SYND_ETH_RQT_RQ     0x5f000e1fu
#define SYND_ETH_QC_UNKNOWN 0x5f000e22u

/* emu_eth_port_counter's counters (emu/nic/eth.h). */
enum { C_RX_PACKETS, C_RX_BYTES, C_NO_RULE, C_DROP_RULE, C_NO_WQE, C_TOO_LONG };

/* Ring memory: one umem. */
#define M_CQ_TX   0u                   /* 64 CQEs */
#define M_CQ_RX   4096u                /* 256 CQEs */
#define M_SQ      20480u               /* 64 basic blocks */
#define M_RQ(i)   (24576u + (i)*1024u) /* 64 WQEs each */
#define M_DBR(i)  (28672u + (i)*64u)   /* 0 CQ TX, 1 CQ RX, 2 SQ, 3.. RQs */
#define M_SIZE    32768u
#define LOG_CQ_TX 6
#define LOG_CQ_RX 8
#define LOG_SQ    6
#define LOG_RQ    6
#define NRQ       3

/* Data memory: one MR. */
#define D_RQ(i, slot) ((size_t)(i)*131072u + (size_t)(slot)*2048u)
#define D_TX          (3u * 131072u)
#define D_SIZE        (4u * 131072u)

#define PORT_IP "192.0.2.1"
#define PEER_IP "192.0.2.2"

/* Where the rings and buffers live: host memory, or GPU memory reached by cuMemcpy. */
static const struct core_cuda_ops *cuda;

static void *mem_alloc(size_t size)
{
    void *p = NULL;

    if (cuda != NULL) {
        core_cu_deviceptr d = 0;

        DT_CHECK(cuda->cuMemAlloc(&d, size) == CORE_CU_SUCCESS);
        return (void *)(uintptr_t)d;
    }
    DT_CHECK(posix_memalign(&p, 4096, size) == 0);
    return p;
}

static void mem_free(void *p)
{
    if (cuda != NULL)
        DT_CHECK(cuda->cuMemFree((core_cu_deviceptr)(uintptr_t)p) == CORE_CU_SUCCESS);
    else
        free(p);
}

/* A 4-byte write publishes (a doorbell record): ordered after earlier writes. */
static void mem_write(void *dst, const void *src, size_t len)
{
    uint32_t v;

    if (cuda != NULL) {
        DT_CHECK(cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)dst, src, len) ==
                 CORE_CU_SUCCESS);
    } else if (len == sizeof(v)) {
        memcpy(&v, src, sizeof(v));
        __atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELEASE);
    } else {
        memcpy(dst, src, len);
    }
}

/* A 1-byte read is an op_own poll: later reads are ordered after it. */
static void mem_read(void *dst, const void *src, size_t len)
{
    if (cuda != NULL)
        DT_CHECK(cuda->cuMemcpyDtoH(dst, (core_cu_deviceptr)(uintptr_t)src, len) ==
                 CORE_CU_SUCCESS);
    else if (len == 1)
        *(uint8_t *)dst = __atomic_load_n((const uint8_t *)src, __ATOMIC_ACQUIRE);
    else
        memcpy(dst, src, len);
}

struct eth {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    uint32_t pdn;
    struct mlx5dv_devx_uar *uar;
    uint8_t *mem, *data;
    struct mlx5dv_devx_umem *umem;
    struct ibv_mr *mr;
    struct mlx5dv_devx_obj *td, *tis, *cq_tx, *cq_rx, *sq, *rq[NRQ], *qc;
    uint32_t tdn, tisn, cqn_tx, cqn_rx, sqn, rqn[NRQ], qcid;
    uint32_t sq_pi, rq_pi[NRQ], tx_ci, rx_ci;
    uint8_t mac[6];
};

/* --- PRM commands ------------------------------------------------------------------------ */

static struct mlx5dv_devx_obj *create(struct eth *e, const void *in, size_t inlen, uint32_t *id,
                                      uint8_t *status, uint32_t *syndrome)
{
    uint8_t out[0x100] = {0};
    struct mlx5dv_devx_obj *o = mlx5dv_devx_obj_create(e->ctx, in, inlen, out, 0x10);

    if (status != NULL)
        *status = dt_status(out);
    if (syndrome != NULL)
        *syndrome = dt_syndrome(out);
    if (o != NULL && id != NULL)
        *id = (uint32_t)prm_get_field(out, 0x08, 0, 24);
    return o;
}

static void build_cq(uint8_t *in, struct eth *e, uint32_t log, uint32_t off, uint32_t dbr)
{
    struct dt_cq_args a = {.log_size = log,
                           .uar_page = e->uar->page_id,
                           .umem_id = e->umem->umem_id,
                           .umem_offset = off,
                           .dbr_umem_id = e->umem->umem_id,
                           .dbr_offset = dbr};

    dt_build_create_cq(in, &a);
}

static void build_sq(uint8_t *in, struct eth *e, uint32_t cqn, uint32_t stride)
{
    void *sqc = PRM_AT(in, PRM_CREATE_SQ_IN_SQC), *wq = PRM_AT(sqc, PRM_SQC_WQ);

    memset(in, 0, PRM_CREATE_SQ_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_SQ);
    PRM_SET(sqc, PRM_SQC_CQN, cqn);
    PRM_SET(sqc, PRM_SQC_TIS_LST_SZ, 1);
    PRM_SET(sqc, PRM_SQC_TIS_NUM_0, e->tisn);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, e->pdn);
    PRM_SET(wq, PRM_WQ_UAR_PAGE, e->uar->page_id);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, M_DBR(2));
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, stride);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, LOG_SQ);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, e->umem->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, e->umem->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, M_SQ);
}

static void build_rq(uint8_t *in, struct eth *e, int i, uint32_t cqn, uint32_t stride,
                     uint32_t counter)
{
    void *rqc = PRM_AT(in, PRM_CREATE_RQ_IN_RQC), *wq = PRM_AT(rqc, PRM_RQC_WQ);

    memset(in, 0, PRM_CREATE_RQ_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RQ);
    PRM_SET(rqc, PRM_RQC_VSD, 1);
    PRM_SET(rqc, PRM_RQC_MEM_RQ_TYPE, PRM_RQC_MEM_RQ_TYPE_INLINE);
    PRM_SET(rqc, PRM_RQC_CQN, cqn);
    PRM_SET(rqc, PRM_RQC_COUNTER_SET_ID, counter);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_CYCLIC);
    PRM_SET(wq, PRM_WQ_PD, e->pdn);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, M_DBR(3 + i));
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, stride);
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, LOG_RQ);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, e->umem->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, e->umem->umem_id);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, M_RQ(i));
}

static void build_tir_direct(uint8_t *in, uint32_t td, uint32_t rqn)
{
    void *tirc = PRM_AT(in, PRM_CREATE_TIR_IN_TIRC);

    memset(in, 0, PRM_CREATE_TIR_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIR);
    PRM_SET(tirc, PRM_TIRC_DISP_TYPE, PRM_TIRC_DISP_TYPE_DIRECT);
    PRM_SET(tirc, PRM_TIRC_INLINE_RQN, rqn);
    PRM_SET(tirc, PRM_TIRC_TRANSPORT_DOMAIN, td);
}

/* The Toeplitz key of Microsoft's RSS verification suite. */
static const uint8_t rss_key[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
                                    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
                                    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0x3a, 0x80, 0x30,
                                    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};

static void build_tir_rss(uint8_t *in, uint32_t td, uint32_t rqtn, uint32_t fn)
{
    void *tirc = PRM_AT(in, PRM_CREATE_TIR_IN_TIRC);
    void *sel = PRM_AT(tirc, PRM_TIRC_RX_HASH_FIELD_OUTER);

    memset(in, 0, PRM_CREATE_TIR_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIR);
    PRM_SET(tirc, PRM_TIRC_DISP_TYPE, PRM_TIRC_DISP_TYPE_INDIRECT);
    PRM_SET(tirc, PRM_TIRC_INDIRECT_TABLE, rqtn);
    PRM_SET(tirc, PRM_TIRC_RX_HASH_FN, fn);
    PRM_SET(tirc, PRM_TIRC_TRANSPORT_DOMAIN, td);
    memcpy((uint8_t *)tirc + PRM_TIRC_RX_HASH_TOEPLITZ_KEY, rss_key, sizeof(rss_key));
    PRM_SET(sel, PRM_RX_HASH_L3_PROT_TYPE, PRM_RX_HASH_L3_IPV4);
    PRM_SET(sel, PRM_RX_HASH_L4_PROT_TYPE, PRM_RX_HASH_L4_UDP);
    PRM_SET(sel, PRM_RX_HASH_SELECTED_FIELDS,
            PRM_RX_HASH_SEL_SRC_IP | PRM_RX_HASH_SEL_DST_IP | PRM_RX_HASH_SEL_L4_SPORT |
                    PRM_RX_HASH_SEL_L4_DPORT);
}

static void build_rqt(uint8_t *in, size_t inlen, const uint32_t *rqns, uint32_t n)
{
    void *rqtc = PRM_AT(in, PRM_CREATE_RQT_IN_RQTC);

    memset(in, 0, inlen);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RQT);
    PRM_SET(rqtc, PRM_RQTC_RQT_MAX_SIZE, n);
    PRM_SET(rqtc, PRM_RQTC_RQT_ACTUAL_SIZE, n);
    for (uint32_t i = 0; i < n; i++)
        PRM_SET(PRM_AT(rqtc, PRM_RQTC_RQ_NUM + i * PRM_RQ_NUM_SIZE), PRM_RQ_NUM_RQN, rqns[i]);
}

/* MODIFY_SQ / MODIFY_RQ from state `from` to `to`; the status. */
static uint8_t modify_wq(struct mlx5dv_devx_obj *o, bool sq, uint32_t num, uint32_t from,
                         uint32_t to)
{
    uint8_t in[PRM_MODIFY_SQ_IN_SIZE] = {0}, out[0x10] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, sq ? PRM_CMD_MODIFY_SQ : PRM_CMD_MODIFY_RQ);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQ_STATE, from);
    PRM_SET(in, PRM_MODIFY_SQ_IN_SQN, num);
    PRM_SET(PRM_AT(in, PRM_MODIFY_SQ_IN_SQC), PRM_SQC_STATE, to);
    mlx5dv_devx_obj_modify(o, in, sizeof(in), out, sizeof(out));
    return dt_status(out);
}

static uint32_t query_sq_state(struct eth *e)
{
    uint8_t in[PRM_QUERY_SQ_IN_SIZE] = {0}, out[PRM_QUERY_SQ_OUT_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_SQ);
    PRM_SET(in, PRM_QUERY_SQ_IN_SQN, e->sqn);
    if (mlx5dv_devx_obj_query(e->sq, in, sizeof(in), out, sizeof(out)) != 0)
        return 0xff;
    return (uint32_t)PRM_GET(PRM_AT(out, PRM_QUERY_SQ_OUT_SQC), PRM_SQC_STATE);
}

static int64_t query_out_of_buffer(struct eth *e)
{
    uint8_t in[PRM_QUERY_Q_COUNTER_IN_SIZE] = {0}, out[PRM_QUERY_Q_COUNTER_OUT_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_Q_COUNTER);
    PRM_SET(in, PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID, e->qcid);
    if (mlx5dv_devx_obj_query(e->qc, in, sizeof(in), out, sizeof(out)) != 0)
        return -1;
    return (int64_t)PRM_GET(out, PRM_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER);
}

/* --- setup ------------------------------------------------------------------------------- */

static void eth_open(struct eth *e)
{
    struct mlx5dv_pd dvpd;
    struct mlx5dv_obj obj = {.pd = {.out = &dvpd}};
    uint8_t in[0x200], out[0x10];
    uint8_t status;

    memset(e, 0, sizeof(*e));
    e->ctx = dt_open();
    e->pd = ibv_alloc_pd(e->ctx);
    DT_CHECK(e->pd != NULL);
    obj.pd.in = e->pd;
    DT_CHECK(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD) == 0);
    e->pdn = dvpd.pdn;
    e->uar = mlx5dv_devx_alloc_uar(e->ctx, 0);
    DT_CHECK(e->uar != NULL);
    e->mem = mem_alloc(M_SIZE);
    e->data = mem_alloc(D_SIZE);
    {
        /* CQE rings start invalid (opcode 0xf), owner 1 as never written; the rest zero. */
        uint8_t *image = calloc(1, M_SIZE);

        DT_CHECK(image != NULL);
        for (uint32_t i = 0; i < (1u << LOG_CQ_TX); i++)
            image[M_CQ_TX + i * 64 + 63] = 0xf1;
        for (uint32_t i = 0; i < (1u << LOG_CQ_RX); i++)
            image[M_CQ_RX + i * 64 + 63] = 0xf1;
        mem_write(e->mem, image, M_SIZE);
        free(image);
    }
    e->umem = mlx5dv_devx_umem_reg(e->ctx, e->mem, M_SIZE, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(e->umem != NULL);
    e->mr = ibv_reg_mr(e->pd, e->data, D_SIZE, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(e->mr != NULL);

    memset(in, 0, 0x10);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_ALLOC_TRANSPORT_DOMAIN);
    e->td = create(e, in, 0x10, &e->tdn, NULL, NULL);
    DT_CHECK(e->td != NULL);
    memset(in, 0, PRM_CREATE_TIS_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_TIS);
    PRM_SET(PRM_AT(in, PRM_CREATE_TIS_IN_TISC), PRM_TISC_TRANSPORT_DOMAIN, e->tdn);
    e->tis = create(e, in, PRM_CREATE_TIS_IN_SIZE, &e->tisn, NULL, NULL);
    DT_CHECK(e->tis != NULL);
    build_cq(in, e, LOG_CQ_TX, M_CQ_TX, M_DBR(0));
    e->cq_tx = create(e, in, PRM_CREATE_CQ_IN_SIZE, &e->cqn_tx, NULL, NULL);
    DT_CHECK(e->cq_tx != NULL);
    build_cq(in, e, LOG_CQ_RX, M_CQ_RX, M_DBR(1));
    e->cq_rx = create(e, in, PRM_CREATE_CQ_IN_SIZE, &e->cqn_rx, NULL, NULL);
    DT_CHECK(e->cq_rx != NULL);
    memset(in, 0, 0x10);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_ALLOC_Q_COUNTER);
    e->qc = create(e, in, 0x10, &e->qcid, NULL, NULL);
    DT_CHECK(e->qc != NULL);
    build_sq(in, e, e->cqn_tx, 6);
    e->sq = create(e, in, PRM_CREATE_SQ_IN_SIZE, &e->sqn, &status, NULL);
    DT_CHECK(e->sq != NULL);
    DT_CHECK(modify_wq(e->sq, true, e->sqn, PRM_WQ_STATE_RST, PRM_WQ_STATE_RDY) == 0);
    for (int i = 0; i < NRQ; i++) {
        build_rq(in, e, i, e->cqn_rx, 4, e->qcid);
        e->rq[i] = create(e, in, PRM_CREATE_RQ_IN_SIZE, &e->rqn[i], NULL, NULL);
        DT_CHECK(e->rq[i] != NULL);
        DT_CHECK(modify_wq(e->rq[i], false, e->rqn[i], PRM_WQ_STATE_RST, PRM_WQ_STATE_RDY) == 0);
    }
    (void)out;
}

static void eth_close(struct eth *e)
{
    for (int i = NRQ - 1; i >= 0; i--)
        DT_CHECK(mlx5dv_devx_obj_destroy(e->rq[i]) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->sq) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->qc) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->cq_rx) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->cq_tx) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->tis) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(e->td) == 0);
    DT_CHECK(ibv_dereg_mr(e->mr) == 0);
    DT_CHECK(mlx5dv_devx_umem_dereg(e->umem) == 0);
    mlx5dv_devx_free_uar(e->uar);
    DT_CHECK(ibv_dealloc_pd(e->pd) == 0);
    ibv_close_device(e->ctx);
    mem_free(e->mem);
    mem_free(e->data);
}

/* --- the data path ---------------------------------------------------------------------- */

static void dbr_write(struct eth *e, uint32_t dbr, int word, uint32_t value)
{
    uint32_t be = htobe32(value);

    mem_write(e->mem + dbr + 4 * word, &be, sizeof(be));
}

/* Posts n receive WQEs of 2048 bytes to RQ i. */
static void rq_post(struct eth *e, int i, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t slot = e->rq_pi[i] & ((1u << LOG_RQ) - 1);
        struct prm_wqe_data_seg d;

        prm_wqe_set_data_seg(&d, 2048, e->mr->lkey, (uint64_t)(uintptr_t)(e->data + D_RQ(i, slot)));
        mem_write(e->mem + M_RQ(i) + slot * 16, &d, sizeof(d));
        e->rq_pi[i]++;
    }
    dbr_write(e, M_DBR(3 + i), 0, e->rq_pi[i] & 0xffff);
}

/* The next CQE of a CQ within timeout_ms (consumer *ci advanced); false on timeout. */
static bool cq_poll(struct eth *e, uint32_t off, uint32_t log, uint32_t dbr, uint32_t *ci,
                    struct prm_cqe64 *out, int timeout_ms)
{
    uint8_t *cqe = e->mem + off + (*ci & ((1u << log) - 1)) * 64;
    struct timespec t0, t;
    uint8_t op_own;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        mem_read(&op_own, cqe + 63, 1);
        if (prm_cqe_op_own_sw_owned(op_own, *ci, log)) {
            mem_read(out, cqe, sizeof(*out));
            (*ci)++;
            dbr_write(e, dbr, 0, *ci & 0xffffff);
            return true;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= timeout_ms)
            return false;
        usleep(50);
    }
}

static bool rx_poll(struct eth *e, struct prm_cqe64 *cqe, int timeout_ms)
{
    return cq_poll(e, M_CQ_RX, LOG_CQ_RX, M_DBR(1), &e->rx_ci, cqe, timeout_ms);
}

static bool tx_poll(struct eth *e, struct prm_cqe64 *cqe, int timeout_ms)
{
    return cq_poll(e, M_CQ_TX, LOG_CQ_TX, M_DBR(0), &e->tx_ci, cqe, timeout_ms);
}

/*
 * Posts a SEND of the frame at data offset off (len bytes): hdr bytes inline
 * in the Ethernet segment, the rest by one data segment; rings the doorbell.
 */
static void sq_send(struct eth *e, uint32_t off, const uint8_t *frame, uint32_t len, uint32_t hdr,
                    uint8_t cs)
{
    uint8_t w[256] = {0};
    uint32_t data_off = 16 + ((14 + hdr + 15) & ~15u); /* after the eth segment and header */
    uint32_t ds = data_off / 16 + 1, bbs = (ds + 3) / 4;
    uint64_t db;

    prm_wqe_set_ctrl_seg((void *)w, (uint16_t)e->sq_pi, 0x0a, 0, e->sqn, PRM_WQE_CTRL_CQ_UPDATE,
                         (uint8_t)ds, 0, 0);
    prm_wqe_set_eth_seg((void *)(w + 16), cs, 0, (uint16_t)hdr, frame);
    prm_wqe_set_data_seg((void *)(w + data_off), len - hdr, e->mr->lkey,
                         (uint64_t)(uintptr_t)(e->data + off + hdr));
    for (uint32_t b = 0; b < bbs; b++) {
        uint32_t slot = (e->sq_pi + b) & ((1u << LOG_SQ) - 1);

        mem_write(e->mem + M_SQ + slot * 64, w + b * 64, 64);
    }
    e->sq_pi += bbs;
    dbr_write(e, M_DBR(2), 1, e->sq_pi & 0xffff);
    memcpy(&db, w, 8);
    __atomic_store_n((uint64_t *)((uint8_t *)e->uar->reg_addr), db, __ATOMIC_RELEASE);
}

/* Writes a frame built in host memory to data offset off and posts its SEND. */
static void tx_frame(struct eth *e, uint32_t off, const uint8_t *frame, uint32_t len, uint32_t hdr,
                     uint8_t cs)
{
    mem_write(e->data + off, frame, len);
    sq_send(e, off, frame, len, hdr, cs);
}

/* --- frames ------------------------------------------------------------------------------- */

static uint16_t csum_fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)s;
}

static uint32_t csum_add(const uint8_t *p, uint32_t n, uint32_t s)
{
    for (uint32_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32_t)(p[n - 1] << 8);
    return s;
}

/* An Ethernet/IPv4/UDP frame of payload size n into f; checksums filled when `sums`. */
static uint32_t make_frame(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint16_t sport,
                           uint16_t dport, uint32_t n, uint8_t seed, bool sums)
{
    uint32_t ip_len = 20 + 8 + n, s;
    uint16_t c;

    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    f[12] = 0x08, f[13] = 0x00;
    memset(f + 14, 0, 20);
    f[14] = 0x45;
    f[16] = (uint8_t)(ip_len >> 8), f[17] = (uint8_t)ip_len;
    f[18] = 0x12, f[19] = seed;
    f[20] = 0x40; /* DF */
    f[22] = 64, f[23] = 17;
    inet_pton(AF_INET, PORT_IP, f + 26);
    inet_pton(AF_INET, PEER_IP, f + 30);
    f[34] = (uint8_t)(sport >> 8), f[35] = (uint8_t)sport;
    f[36] = (uint8_t)(dport >> 8), f[37] = (uint8_t)dport;
    f[38] = (uint8_t)((8 + n) >> 8), f[39] = (uint8_t)(8 + n);
    f[40] = f[41] = 0;
    for (uint32_t j = 0; j < n; j++)
        f[42 + j] = (uint8_t)(seed * 13 + j);
    if (sums) {
        c = (uint16_t)~csum_fold(csum_add(f + 14, 20, 0));
        f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
        s = csum_add(f + 26, 8, 0) + 17 + 8 + n;
        c = (uint16_t)~csum_fold(csum_add(f + 34, 8 + n, s));
        if (c == 0)
            c = 0xffff;
        f[40] = (uint8_t)(c >> 8), f[41] = (uint8_t)c;
    }
    return 42 + n;
}

/* The reference Toeplitz hash (as the RSS specification defines it). */
static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, int n)
{
    uint32_t h = 0;

    for (int i = 0; i < n * 8; i++) {
        if (in[i / 8] & (0x80 >> (i % 8))) {
            uint32_t k = 0;

            for (int b = 0; b < 32; b++)
                k = (k << 1) | ((key[(i + b) / 8] >> (7 - (i + b) % 8)) & 1);
            h ^= k;
        }
    }
    return h;
}

/* --- the peer in namespace B ------------------------------------------------------------- */

static FILE *peer_in, *peer_out;
static char peer_line[1 << 20];

static const char *peer(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(peer_out, fmt, ap);
    va_end(ap);
    fputc('\n', peer_out);
    fflush(peer_out);
    DT_CHECK(fgets(peer_line, sizeof(peer_line), peer_in) != NULL);
    DT_CHECK(strncmp(peer_line, "ok", 2) == 0);
    return peer_line;
}

static void peer_connect(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0), fd2;

    DT_CHECK(fd >= 0);
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    DT_CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    fd2 = dup(fd);
    peer_in = fdopen(fd, "r");
    peer_out = fdopen(fd2, "w");
    DT_CHECK(peer_in != NULL && peer_out != NULL);
}

static void parse_mac(const char *s, uint8_t *mac)
{
    unsigned int m[6];

    DT_CHECK(sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6);
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)m[i];
}

/* --- steering --------------------------------------------------------------------------- */

struct match {
    size_t match_sz;
    uint64_t buf[PRM_FTE_MATCH_PARAM_SIZE / 8];
};

static struct mlx5dv_flow_matcher *matcher(struct eth *e, uint16_t prio, bool full)
{
    struct match mask = {.match_sz = PRM_FTE_MATCH_PARAM_SIZE};
    struct mlx5dv_flow_matcher_attr attr = {
            .type = IBV_FLOW_ATTR_NORMAL,
            .priority = prio,
            .match_criteria_enable = PRM_MATCH_OUTER_HEADERS,
            .match_mask = (struct mlx5dv_flow_match_parameters *)&mask,
    };

    if (full) {
        PRM_SET(mask.buf, PRM_FTE_L24_DMAC_47_16, 0xffffffff);
        PRM_SET(mask.buf, PRM_FTE_L24_DMAC_15_0, 0xffff);
        PRM_SET(mask.buf, PRM_FTE_L24_ETHERTYPE, 0xffff);
        PRM_SET(mask.buf, PRM_FTE_L24_IP_PROTOCOL, 0xff);
    }
    PRM_SET(mask.buf, PRM_FTE_L24_UDP_DPORT, 0xffff);
    return mlx5dv_create_flow_matcher(e->ctx, &attr);
}

static struct ibv_flow *flow(struct eth *e, struct mlx5dv_flow_matcher *m, uint16_t dport,
                             struct mlx5dv_devx_obj *tir)
{
    struct match v = {.match_sz = PRM_FTE_MATCH_PARAM_SIZE};
    struct mlx5dv_flow_action_attr act = {.type = tir != NULL ? MLX5DV_FLOW_ACTION_DEST_DEVX
                                                              : MLX5DV_FLOW_ACTION_DROP};

    act.obj = tir;
    PRM_SET(v.buf, PRM_FTE_L24_DMAC_47_16,
            (uint32_t)e->mac[0] << 24 | e->mac[1] << 16 | e->mac[2] << 8 | e->mac[3]);
    PRM_SET(v.buf, PRM_FTE_L24_DMAC_15_0, (uint32_t)e->mac[4] << 8 | e->mac[5]);
    PRM_SET(v.buf, PRM_FTE_L24_ETHERTYPE, 0x0800);
    PRM_SET(v.buf, PRM_FTE_L24_IP_PROTOCOL, 17);
    PRM_SET(v.buf, PRM_FTE_L24_UDP_DPORT, dport);
    return mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&v, 1, &act);
}

/* --- the port test ------------------------------------------------------------------------ */

static uint64_t (*port_counter)(struct ibv_device *, int);

static uint64_t counter(struct eth *e, int which)
{
    return port_counter != NULL ? port_counter(e->ctx->device, which) : 0;
}

/* Checks one received UDP datagram's CQE and bytes (payload i of size n from the peer). */
static void check_rx(struct eth *e, const struct prm_cqe64 *c, int rq, uint32_t wqe, uint32_t i,
                     uint32_t n, uint16_t dport)
{
    static uint8_t f[2048];
    bool bytes = true;

    CHECK(prm_cqe_opcode(c) == PRM_CQE_OPCODE_RESP_SEND, "RX CQE opcode %u", prm_cqe_opcode(c));
    CHECK(prm_cqe_qpn(c) == e->rqn[rq], "RX CQE of RQ 0x%x, expected 0x%x", prm_cqe_qpn(c),
          e->rqn[rq]);
    CHECK(prm_cqe_wqe_counter(c) == wqe, "RX wqe_counter %u, expected %u", prm_cqe_wqe_counter(c),
          wqe);
    CHECK(prm_cqe_byte_cnt(c) == 42 + n, "RX byte_cnt %u, expected %u", prm_cqe_byte_cnt(c),
          42 + n);
    CHECK((c->hds_ip_ext & 0x7) == 0x7, "RX l2/l3/l4 ok bits 0x%x", c->hds_ip_ext);
    CHECK(c->l4_hdr_type_etc == ((2 << 4) | (2 << 2)), "RX header types 0x%x (UDP, IPv4)",
          c->l4_hdr_type_etc);
    CHECK(prm_cqe_timestamp(c) != 0, "RX timestamp 0");
    mem_read(f, e->data + D_RQ(rq, wqe & ((1u << LOG_RQ) - 1)), 42 + n);
    CHECK(memcmp(f, e->mac, 6) == 0, "RX frame's destination is not the port's MAC");
    CHECK(f[36] == dport >> 8 && f[37] == (dport & 0xff), "RX frame's UDP port");
    for (uint32_t j = 0; j < n; j++)
        bytes &= f[42 + j] == (uint8_t)((i * 31 + j) & 0xff);
    CHECK(bytes, "RX payload %u (%u bytes) differs", i, n);
}

static void test_port(void)
{
    const char *path = getenv("ETH_TEST_PEER"), *ifname = getenv("ETH_TEST_IF");
    uint8_t in[0x400], out[PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE], peer_mac[6];
    struct mlx5dv_devx_obj *tir1, *tir2, *rqt;
    struct mlx5dv_flow_matcher *m_tir, *m_drop, *m_rss;
    struct ibv_flow *f5001, *f5003, *f5003d, *f5004;
    uint32_t tirn1, tirn2, rqtn, wqe = 0;
    static const uint32_t sizes[4] = {18, 100, 1000, 1472};
    struct prm_cqe64 c;
    struct ifreq ifr;
    struct eth e;
    char mac_s[32], ip_s[32];
    uint64_t before, before2;
    int s;

    if (path == NULL || ifname == NULL) {
        printf("skipped: run under eth_ns.sh (ETH_TEST_PEER, ETH_TEST_IF unset)\n");
        exit(DT_SKIP);
    }
    port_counter =
            (uint64_t(*)(struct ibv_device *, int))dlsym(RTLD_DEFAULT, "emu_eth_port_counter");
    CHECK(port_counter != NULL, "emu_eth_port_counter not found");
    peer_connect(path);
    DT_CHECK(sscanf(peer("info"), "ok %31s %31s", mac_s, ip_s) == 2);
    parse_mac(mac_s, peer_mac);
    eth_open(&e);

    /* The vport: the interface's MAC, its MTU as mlx5 firmware counts it. */
    s = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    DT_CHECK(ioctl(s, SIOCGIFHWADDR, &ifr) == 0);
    memcpy(e.mac, ifr.ifr_hwaddr.sa_data, 6);
    DT_CHECK(ioctl(s, SIOCGIFMTU, &ifr) == 0);
    close(s);
    memset(in, 0, 0x10);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_NIC_VPORT_CONTEXT);
    DT_CHECK(mlx5dv_devx_general_cmd(e.ctx, in, 0x10, out, sizeof(out)) == 0);
    CHECK(memcmp(out + PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX +
                         PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_BYTES,
                 e.mac, 6) == 0,
          "QUERY_NIC_VPORT_CONTEXT: permanent_address is not the interface's MAC");
    CHECK(PRM_GET(PRM_AT(out, PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX), PRM_NIC_VPORT_CTX_MTU) ==
                  (uint64_t)ifr.ifr_mtu + 22,
          "QUERY_NIC_VPORT_CONTEXT: mtu %u, interface MTU %d + 22",
          (unsigned int)PRM_GET(PRM_AT(out, PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX),
                                PRM_NIC_VPORT_CTX_MTU),
          ifr.ifr_mtu);

    /* Steering: 5001 and 5003 to RQ 0; 5003 dropped first (priority 0); 5004 by RSS. */
    build_tir_direct(in, e.tdn, e.rqn[0]);
    tir1 = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn1, NULL, NULL);
    DT_CHECK(tir1 != NULL);
    build_rqt(in, PRM_CREATE_RQT_IN_SIZE + 8, &e.rqn[1], 2);
    rqt = create(&e, in, PRM_CREATE_RQT_IN_SIZE + 8, &rqtn, NULL, NULL);
    DT_CHECK(rqt != NULL);
    build_tir_rss(in, e.tdn, rqtn, PRM_RX_HASH_FN_TOEPLITZ);
    tir2 = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn2, NULL, NULL);
    DT_CHECK(tir2 != NULL);
    m_tir = matcher(&e, 1, true);
    m_drop = matcher(&e, 0, false);
    m_rss = matcher(&e, 2, true);
    DT_CHECK(m_tir != NULL && m_drop != NULL && m_rss != NULL);
    f5001 = flow(&e, m_tir, 5001, tir1);
    f5003 = flow(&e, m_tir, 5003, tir1);
    f5003d = flow(&e, m_drop, 5003, NULL);
    f5004 = flow(&e, m_rss, 5004, tir2);
    DT_CHECK(f5001 != NULL && f5003 != NULL && f5003d != NULL && f5004 != NULL);

    /* Receive: 8 datagrams of 18..1472 bytes into 8 receive WQEs. */
    rq_post(&e, 0, 8);
    peer("send 5001 4000 8 %u %u %u %u", sizes[0], sizes[1], sizes[2], sizes[3]);
    for (uint32_t i = 0; i < 8; i++, wqe++) {
        if (!rx_poll(&e, &c, 3000)) {
            CHECK(false, "RX datagram %u: no CQE", i);
            break;
        }
        check_rx(&e, &c, 0, wqe, i, sizes[i % 4], 5001);
    }

    /* No receive WQE left: dropped, counted in out_of_buffer and the port's counter. */
    before = counter(&e, C_NO_WQE);
    peer("send 5001 4000 3 64");
    usleep(300000);
    CHECK(!rx_poll(&e, &c, 0), "a CQE without a receive WQE");
    CHECK(query_out_of_buffer(&e) == 3, "out_of_buffer %lld, expected 3",
          (long long)query_out_of_buffer(&e));
    CHECK(counter(&e, C_NO_WQE) - before == 3, "port no-WQE drops %llu, expected 3",
          (unsigned long long)(counter(&e, C_NO_WQE) - before));
    rq_post(&e, 0, 8);
    peer("send 5001 4000 2 64");
    for (uint32_t i = 0; i < 2; i++, wqe++) {
        if (!rx_poll(&e, &c, 3000)) {
            CHECK(false, "RX after reposting: no CQE");
            break;
        }
        check_rx(&e, &c, 0, wqe, i, 64, 5001);
    }

    /* No rule (5999), and the priority-0 drop rule ahead of the TIR rule (5003). */
    before = counter(&e, C_NO_RULE);
    before2 = counter(&e, C_DROP_RULE);
    peer("send 5999 4000 2 64");
    peer("send 5003 4000 2 64");
    usleep(300000);
    CHECK(!rx_poll(&e, &c, 0), "a CQE for a frame no rule (or a drop rule) takes");
    CHECK(counter(&e, C_NO_RULE) - before >= 2, "frames without a rule not counted");
    CHECK(counter(&e, C_DROP_RULE) - before2 == 2, "drop-rule frames %llu, expected 2",
          (unsigned long long)(counter(&e, C_DROP_RULE) - before2));
    /* Without the drop rule 5003 reaches RQ 0. */
    CHECK(ibv_destroy_flow(f5003d) == 0, "ibv_destroy_flow of the drop rule");
    peer("send 5003 4000 1 64");
    if (rx_poll(&e, &c, 3000))
        check_rx(&e, &c, 0, wqe++, 0, 64, 5003);
    else
        CHECK(false, "5003 not received once its drop rule was gone");

    /* RSS: the Toeplitz hash of addresses and ports picks RQ 1 or 2. */
    {
        static const uint8_t ms_in[12] = {66,  9,  149,  187,  161,  142,
                                          100, 80, 0x0a, 0xea, 0x06, 0xe6};
        uint32_t got[2] = {0, 0};

        CHECK(toeplitz(rss_key, ms_in, 12) == 0x51ccc178, "reference Toeplitz 0x%x",
              toeplitz(rss_key, ms_in, 12));
        rq_post(&e, 1, 16);
        rq_post(&e, 2, 16);
        for (uint16_t sport = 4001; sport <= 4008; sport++) {
            uint8_t h_in[12];
            uint32_t h, rss;
            int rq;

            peer("send 5004 %u 1 77", sport);
            if (!rx_poll(&e, &c, 3000)) {
                CHECK(false, "RSS datagram from %u: no CQE", sport);
                continue;
            }
            inet_pton(AF_INET, PEER_IP, h_in);
            inet_pton(AF_INET, PORT_IP, h_in + 4);
            h_in[8] = (uint8_t)(sport >> 8), h_in[9] = (uint8_t)sport;
            h_in[10] = 5004 >> 8, h_in[11] = 5004 & 0xff;
            h = toeplitz(rss_key, h_in, 12);
            rq = 1 + (int)(h % 2);
            memcpy(&rss, (uint8_t *)&c + 12, 4);
            CHECK(be32toh(rss) == h, "CQE hash 0x%x, expected 0x%x", be32toh(rss), h);
            check_rx(&e, &c, rq, got[rq - 1]++, 0, 77, 5004);
        }
        CHECK(got[0] + got[1] == 8, "RSS frames %u + %u", got[0], got[1]);
    }

    /* Send: checksums left to the device, inline headers of 0, 18 and 42 bytes. */
    {
        static const uint32_t hdrs[3] = {0, 18, 42};
        uint8_t expect[3][1600];
        uint32_t len[3];
        const char *ans, *p;
        int k, u;

        peer("bind 6001");
        for (int i = 0; i < 3; i++) {
            uint8_t fb[1600];

            len[i] = make_frame(fb, peer_mac, e.mac, 6000, 6001, 100 + 500 * (uint32_t)i,
                                (uint8_t)i, false);
            make_frame(expect[i], peer_mac, e.mac, 6000, 6001, 100 + 500 * (uint32_t)i, (uint8_t)i,
                       true);
            tx_frame(&e, D_TX + i * 2048u, fb, len[i], hdrs[i],
                     PRM_WQE_ETH_L3_CSUM | PRM_WQE_ETH_L4_CSUM);
        }
        for (int i = 0; i < 3; i++) {
            if (!tx_poll(&e, &c, 3000)) {
                CHECK(false, "TX frame %d: no CQE", i);
                break;
            }
            CHECK(prm_cqe_opcode(&c) == PRM_CQE_OPCODE_REQ, "TX CQE opcode %u", prm_cqe_opcode(&c));
            CHECK(prm_cqe_qpn(&c) == e.sqn, "TX CQE of 0x%x", prm_cqe_qpn(&c));
        }
        ans = peer("recv 6001 3 3000");
        CHECK(sscanf(ans, "ok %d udp=%d", &k, &u) == 2 && k == 3 && u == 3,
              "peer saw %d frames, its UDP socket %d datagrams (3 each)", k, u);
        p = strchr(ans + 3, ' ');
        for (int i = 0; i < k && i < 3 && p != NULL; i++) {
            char hex[3] = {0};
            bool same = true;

            p = strchr(p + 1, ' ');
            if (p == NULL)
                break;
            for (uint32_t j = 0; j < len[i]; j++) {
                hex[0] = p[1 + 2 * j];
                hex[1] = p[2 + 2 * j];
                same &= (uint8_t)strtoul(hex, NULL, 16) == expect[i][j];
            }
            same &= p[1 + 2 * len[i]] == ' ' || p[1 + 2 * len[i]] == '\n';
            CHECK(same, "TX frame %d (inline header %u) differs from the expected frame", i,
                  hdrs[i]);
        }
    }

    /* A frame past the MTU: an error CQE, the SQ in ERR; RST and RDY start it again. */
    {
        uint32_t n = (uint32_t)ifr.ifr_mtu + 1 - 28, len;
        static uint8_t fb[65536];

        len = make_frame(fb, peer_mac, e.mac, 6000, 6001, n, 9, true);
        tx_frame(&e, D_TX, fb, len, 0, 0);
        if (tx_poll(&e, &c, 3000)) {
            CHECK(prm_cqe_opcode(&c) == PRM_CQE_OPCODE_REQ_ERR, "oversized: opcode %u",
                  prm_cqe_opcode(&c));
            CHECK(prm_cqe_syndrome(&c) == PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR,
                  "oversized: syndrome 0x%x", prm_cqe_syndrome(&c));
        } else {
            CHECK(false, "oversized frame: no CQE");
        }
        CHECK(query_sq_state(&e) == PRM_WQ_STATE_ERR, "SQ state %u after the error",
              query_sq_state(&e));
        CHECK(modify_wq(e.sq, true, e.sqn, PRM_WQ_STATE_RDY, PRM_WQ_STATE_RST) ==
                      PRM_CMD_STAT_BAD_RES_STATE,
              "MODIFY_SQ from RDY accepted while the SQ is in ERR");
        CHECK(modify_wq(e.sq, true, e.sqn, PRM_WQ_STATE_ERR, PRM_WQ_STATE_RST) == 0, "ERR->RST");
        CHECK(modify_wq(e.sq, true, e.sqn, PRM_WQ_STATE_RST, PRM_WQ_STATE_RDY) == 0, "RST->RDY");
        e.sq_pi = 0;
        len = make_frame(fb, peer_mac, e.mac, 6000, 6001, 200, 7, false);
        tx_frame(&e, D_TX, fb, len, 18, PRM_WQE_ETH_L3_CSUM | PRM_WQE_ETH_L4_CSUM);
        CHECK(tx_poll(&e, &c, 3000) && prm_cqe_opcode(&c) == PRM_CQE_OPCODE_REQ,
              "send after the SQ's reset");
        {
            int k, u;

            CHECK(sscanf(peer("recv 6001 1 3000"), "ok %d udp=%d", &k, &u) == 2 && k == 1 && u == 1,
                  "the frame after the reset did not arrive");
        }
    }

    /* Teardown, with an RQ still named by a TIR refused first. */
    CHECK(mlx5dv_devx_obj_destroy(e.rq[0]) == EBUSY, "DESTROY_RQ of an RQ a TIR names");
    CHECK(mlx5dv_destroy_flow_matcher(m_tir) == EBUSY, "a matcher with flows destroyed");
    DT_CHECK(ibv_destroy_flow(f5001) == 0 && ibv_destroy_flow(f5003) == 0 &&
             ibv_destroy_flow(f5004) == 0);
    DT_CHECK(mlx5dv_destroy_flow_matcher(m_tir) == 0 && mlx5dv_destroy_flow_matcher(m_drop) == 0 &&
             mlx5dv_destroy_flow_matcher(m_rss) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(tir2) == 0 && mlx5dv_devx_obj_destroy(tir1) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(rqt) == 0);
    eth_close(&e);
    peer("quit");
}

/* --- loopback: the port on lo, its own frames coming back (no peer, no ip netns) ------- */

/* Brings lo up in this (fresh) network namespace; the port must exist before the device opens. */
static void lo_up(void)
{
    struct ifreq ifr = {0};
    int s = socket(AF_INET, SOCK_DGRAM, 0);

    DT_CHECK(s >= 0);
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
    DT_CHECK(ioctl(s, SIOCGIFFLAGS, &ifr) == 0);
    if (!(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP;
        DT_CHECK(ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
    }
    close(s);
}

/* An IPv4/UDP frame from 127.0.0.1 to itself (lo's MAC is all zeros). */
static uint32_t lo_frame(uint8_t *f, uint16_t dport, uint32_t n, uint8_t seed, bool sums)
{
    static const uint8_t zero[6];
    uint32_t len = make_frame(f, zero, zero, 7000, dport, n, seed, false);
    uint16_t c;
    uint32_t s;

    inet_pton(AF_INET, "127.0.0.1", f + 26);
    inet_pton(AF_INET, "127.0.0.1", f + 30);
    if (sums) {
        c = (uint16_t)~csum_fold(csum_add(f + 14, 20, 0));
        f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
        s = csum_add(f + 26, 8, 0) + 17 + 8 + n;
        c = (uint16_t)~csum_fold(csum_add(f + 34, 8 + n, s));
        f[40] = (uint8_t)((c ? c : 0xffff) >> 8), f[41] = (uint8_t)(c ? c : 0xffff);
    }
    return len;
}

static void test_lo(void)
{
    static const uint32_t hdrs[4] = {0, 2, 18, 42}, sizes[4] = {10, 300, 1400, 9000};
    static uint8_t expect[4][9100], fb[9100], got[9100];
    uint8_t in[0x200];
    struct mlx5dv_devx_obj *tir;
    struct mlx5dv_flow_matcher *m;
    struct ibv_flow *fl;
    struct prm_cqe64 c;
    uint32_t tirn, len[4];
    struct eth e;

    eth_open(&e);
    memset(e.mac, 0, sizeof(e.mac));
    build_tir_direct(in, e.tdn, e.rqn[0]);
    tir = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn, NULL, NULL);
    DT_CHECK(tir != NULL);
    m = matcher(&e, 0, true);
    DT_CHECK(m != NULL);
    fl = flow(&e, m, 7001, tir);
    DT_CHECK(fl != NULL);
    /* 9000-byte payloads need bigger receive buffers: 2 slots each. */
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t slot = e.rq_pi[0] & ((1u << LOG_RQ) - 1);
        struct prm_wqe_data_seg d;

        prm_wqe_set_data_seg(&d, 16384, e.mr->lkey,
                             (uint64_t)(uintptr_t)(e.data + D_RQ(0, 8u * k)));
        mem_write(e.mem + M_RQ(0) + slot * 16, &d, sizeof(d));
        e.rq_pi[0]++;
    }
    dbr_write(&e, M_DBR(3), 0, e.rq_pi[0]);
    for (int i = 0; i < 4; i++) {
        len[i] = lo_frame(fb, 7001, sizes[i], (uint8_t)(i + 1), false);
        lo_frame(expect[i], 7001, sizes[i], (uint8_t)(i + 1), true);
        tx_frame(&e, D_TX + (uint32_t)i * 16384u, fb, len[i], hdrs[i],
                 PRM_WQE_ETH_L3_CSUM | PRM_WQE_ETH_L4_CSUM);
    }
    for (int i = 0; i < 4; i++)
        CHECK(tx_poll(&e, &c, 3000) && prm_cqe_opcode(&c) == PRM_CQE_OPCODE_REQ &&
                      prm_cqe_wqe_counter(&c) < 16,
              "lo: TX CQE %d", i);
    for (uint32_t i = 0; i < 4; i++) {
        if (!rx_poll(&e, &c, 3000)) {
            CHECK(false, "lo: frame %u did not come back", i);
            continue;
        }
        CHECK(prm_cqe_opcode(&c) == PRM_CQE_OPCODE_RESP_SEND && prm_cqe_wqe_counter(&c) == i &&
                      prm_cqe_byte_cnt(&c) == len[i] && (c.hds_ip_ext & 7) == 7,
              "lo: RX CQE %u: opcode %u counter %u byte_cnt %u (%u) ok 0x%x", i, prm_cqe_opcode(&c),
              prm_cqe_wqe_counter(&c), prm_cqe_byte_cnt(&c), len[i], c.hds_ip_ext);
        mem_read(got, e.data + D_RQ(0, 8u * i), len[i]);
        CHECK(memcmp(got, expect[i], len[i]) == 0, "lo: frame %u (inline header %u) differs", i,
              hdrs[i]);
    }
    DT_CHECK(ibv_destroy_flow(fl) == 0 && mlx5dv_destroy_flow_matcher(m) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(tir) == 0);
    eth_close(&e);
}

/*
 * lo_bench [gpu]: frames of 64 bytes through lo and back, as fast as the
 * rings allow (32 in flight), for 2 seconds: the loop's send and receive
 * rate together (printed; not a check).
 */
static void test_lo_bench(void)
{
    static uint8_t fb[128];
    uint8_t in[0x200];
    struct mlx5dv_devx_obj *tir;
    struct mlx5dv_flow_matcher *m;
    struct ibv_flow *fl;
    struct prm_cqe64 c;
    uint32_t tirn, len, sent = 0, recvd = 0, txc = 0;
    struct timespec t0, t;
    double secs = 0;
    struct eth e;

    eth_open(&e);
    build_tir_direct(in, e.tdn, e.rqn[0]);
    tir = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn, NULL, NULL);
    m = matcher(&e, 0, true);
    fl = flow(&e, m, 7001, tir);
    DT_CHECK(tir != NULL && m != NULL && fl != NULL);
    len = lo_frame(fb, 7001, 22, 1, true);
    rq_post(&e, 0, 64);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (secs < 2.0) {
        /* Up to 32 frames in flight, each WQE one basic block (ds 3: no inline header). */
        while (sent - recvd < 32 && sent - txc < 32) {
            tx_frame(&e, D_TX + (sent % 32) * 128u, fb, len, 0, 0);
            sent++;
        }
        while (tx_poll(&e, &c, 0))
            txc++;
        while (rx_poll(&e, &c, 0)) {
            recvd++;
            rq_post(&e, 0, 1);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        secs = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
    }
    printf("lo_bench%s: %u frames of %u bytes sent, %u received in %.2f s: %.0f frames/s\n",
           cuda != NULL ? " gpu" : "", sent, len, recvd, secs, recvd / secs);
    CHECK(recvd > 0, "lo_bench: nothing came back");
    DT_CHECK(ibv_destroy_flow(fl) == 0 && mlx5dv_destroy_flow_matcher(m) == 0);
    DT_CHECK(mlx5dv_devx_obj_destroy(tir) == 0);
    eth_close(&e);
}

/* --- refusals (no port needed) ---------------------------------------------------------- */

#define EXPECT_REFUSED(obj, status, synd, want_status, want_synd, what)                         \
    CHECK((obj) == NULL && (status) == (want_status) && (synd) == (want_synd),                  \
          "%s: status 0x%x syndrome 0x%x, expected 0x%x 0x%x", what, status, synd, want_status, \
          want_synd)

static void test_refusals(void)
{
    uint8_t in[0x400], status = 0;
    uint32_t synd = 0, id, tirn, rqns[2];
    struct mlx5dv_devx_obj *o, *tir;
    struct mlx5dv_flow_matcher *m;
    struct prm_cqe64 c;
    struct eth e;

    eth_open(&e);

    build_sq(in, &e, e.cqn_tx, 5);
    o = create(&e, in, PRM_CREATE_SQ_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_PARAM, SYND_ETH_STRIDE, "SQ stride 32");
    build_sq(in, &e, 0xabcdef, 6);
    o = create(&e, in, PRM_CREATE_SQ_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_CQN, "SQ unknown cqn");
    build_rq(in, &e, 0, e.cqn_rx, 6, 0);
    o = create(&e, in, PRM_CREATE_RQ_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_PARAM, SYND_ETH_STRIDE, "RQ stride 64");
    build_rq(in, &e, 0, 0xabcdef, 4, 0);
    o = create(&e, in, PRM_CREATE_RQ_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_CQN, "RQ unknown cqn");
    build_rq(in, &e, 0, e.cqn_rx, 4, 200);
    o = create(&e, in, PRM_CREATE_RQ_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_COUNTER,
                   "RQ unknown counter_set_id");
    build_tir_direct(in, e.tdn, 0xabcdef);
    o = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_TIR_RQ,
                   "TIR to an unknown RQ");
    build_tir_direct(in, 999, e.rqn[0]);
    o = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_TD,
                   "TIR of an unknown transport domain");
    rqns[0] = e.rqn[1];
    rqns[1] = 0xabcdef;
    build_rqt(in, PRM_CREATE_RQT_IN_SIZE + 8, rqns, 2);
    o = create(&e, in, PRM_CREATE_RQT_IN_SIZE + 8, &id, &status, &synd);
    EXPECT_REFUSED(o, status, synd, PRM_CMD_STAT_BAD_RESOURCE, SYND_ETH_RQT_RQ,
                   "RQT with an unknown RQ");
    build_rqt(in, PRM_CREATE_RQT_IN_SIZE + 8, &e.rqn[1], 2);
    o = create(&e, in, PRM_CREATE_RQT_IN_SIZE + 8, &id, &status, &synd);
    DT_CHECK(o != NULL);
    build_tir_rss(in, e.tdn, id, PRM_RX_HASH_FN_INVERT_XOR8);
    tir = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn, &status, &synd);
    EXPECT_REFUSED(tir, status, synd, PRM_CMD_STAT_BAD_PARAM, SYND_ETH_TIR_HASH,
                   "TIR with the XOR8 hash");
    CHECK(mlx5dv_devx_obj_destroy(e.rq[1]) == EBUSY, "DESTROY_RQ of an RQ an RQT names");
    DT_CHECK(mlx5dv_devx_obj_destroy(o) == 0);
    CHECK(modify_wq(e.sq, true, e.sqn, PRM_WQ_STATE_RST, PRM_WQ_STATE_RDY) ==
                  PRM_CMD_STAT_BAD_RES_STATE,
          "MODIFY_SQ from RST accepted while the SQ is RDY");
    CHECK(query_out_of_buffer(&e) == 0, "QUERY_Q_COUNTER of a fresh counter");
    {
        uint8_t qin[PRM_QUERY_Q_COUNTER_IN_SIZE] = {0}, qout[PRM_QUERY_Q_COUNTER_OUT_SIZE] = {0};
        uint8_t min[PRM_MODIFY_SQ_IN_SIZE] = {0}, mout[0x10] = {0};

        /* An object query (as the kernel's DevX has it), of the handle's own counter only. */
        PRM_SET(qin, PRM_CMD_OPCODE, PRM_CMD_QUERY_Q_COUNTER);
        PRM_SET(qin, PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID, 77);
        CHECK(mlx5dv_devx_general_cmd(e.ctx, qin, sizeof(qin), qout, sizeof(qout)) == EINVAL,
              "QUERY_Q_COUNTER as a general command");
        CHECK(mlx5dv_devx_obj_query(e.qc, qin, sizeof(qin), qout, sizeof(qout)) == EINVAL,
              "QUERY_Q_COUNTER of another counter through this one's handle");
        (void)SYND_ETH_QC_UNKNOWN;
        PRM_SET(min, PRM_CMD_OPCODE, PRM_CMD_MODIFY_SQ);
        PRM_SET(min, PRM_MODIFY_SQ_IN_SQ_STATE, PRM_WQ_STATE_RST);
        PRM_SET(min, PRM_MODIFY_SQ_IN_SQN, e.sqn);
        PRM_SET(PRM_AT(min, PRM_MODIFY_SQ_IN_SQC), PRM_SQC_STATE, PRM_WQ_STATE_RDY);
        mlx5dv_devx_obj_modify(e.sq, min, sizeof(min), mout, sizeof(mout));
        CHECK(dt_syndrome(mout) == SYND_ETH_TRANSITION, "MODIFY_SQ syndrome 0x%x",
              dt_syndrome(mout));
    }
    {
        uint8_t out[0x10] = {0};
        struct mlx5dv_devx_obj *t;

        build_tir_direct(in, e.tdn, e.rqn[0]);
        t = create(&e, in, PRM_CREATE_TIR_IN_SIZE, &tirn, NULL, NULL);
        DT_CHECK(t != NULL);
        memset(in, 0, 0x10);
        PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_DESTROY_RQ);
        PRM_SET(in, PRM_DESTROY_RQ_IN_RQN, e.rqn[0]);
        CHECK(mlx5dv_devx_general_cmd(e.ctx, in, 0x10, out, sizeof(out)) == EINVAL,
              "DESTROY_RQ as a general command");
        CHECK(mlx5dv_devx_obj_destroy(e.rq[0]) == EBUSY, "DESTROY_RQ of an RQ a TIR names");
        CHECK(mlx5dv_devx_obj_destroy(e.td) == EBUSY, "DEALLOC_TRANSPORT_DOMAIN with a TIR");
        DT_CHECK(mlx5dv_devx_obj_destroy(t) == 0);
        (void)SYND_ETH_BUSY;
    }

    /* Steering refusals: misc criteria, a flow to something that is no TIR. */
    {
        struct match mask = {.match_sz = PRM_FTE_MATCH_PARAM_SIZE};
        struct mlx5dv_flow_matcher_attr attr = {
                .type = IBV_FLOW_ATTR_NORMAL,
                .match_criteria_enable = PRM_MATCH_MISC_PARAMETERS,
                .match_mask = (struct mlx5dv_flow_match_parameters *)&mask,
        };
        struct mlx5dv_flow_action_attr act = {.type = MLX5DV_FLOW_ACTION_DEST_DEVX};
        struct match v = {.match_sz = PRM_FTE_MATCH_PARAM_SIZE};

        errno = 0;
        CHECK(mlx5dv_create_flow_matcher(e.ctx, &attr) == NULL && errno == EOPNOTSUPP,
              "matcher on misc parameters: errno %d", errno);
        attr.match_criteria_enable = PRM_MATCH_OUTER_HEADERS;
        prm_set_field(mask.buf, 0x10, 0, 8, 0xff); /* tcp_flags: not matched by softmlx5 */
        errno = 0;
        CHECK(mlx5dv_create_flow_matcher(e.ctx, &attr) == NULL && errno == EOPNOTSUPP,
              "matcher on an unsupported outer field: errno %d", errno);
        memset(mask.buf, 0, sizeof(mask.buf));
        m = mlx5dv_create_flow_matcher(e.ctx, &attr);
        DT_CHECK(m != NULL);
        act.obj = e.sq;
        errno = 0;
        CHECK(mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&v, 1, &act) == NULL &&
                      errno == EINVAL,
              "flow to an SQ: errno %d", errno);
        DT_CHECK(mlx5dv_destroy_flow_matcher(m) == 0);
    }

    /* No port attached: a send completes (the frame is lost, as on a link that is down). */
    {
        uint8_t peer_mac[6] = {2, 0, 0, 0, 0, 1};
        uint8_t fb[128];
        uint32_t len = make_frame(fb, peer_mac, e.mac, 1, 2, 20, 1, false);

        tx_frame(&e, D_TX, fb, len, 18, 0);
        CHECK(tx_poll(&e, &c, 3000) && prm_cqe_opcode(&c) == PRM_CQE_OPCODE_REQ,
              "a send with no port attached did not complete");
    }
    eth_close(&e);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "refusals";

    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 2 && strcmp(argv[2], "gpu") == 0) {
        const char *why = emu_cuda_open(&cuda);

        if (why != NULL) {
            printf("skipped: no CUDA device (%s)\n", why);
            return EMU_CUDA_SKIP;
        }
    }
    if (strcmp(mode, "port") == 0)
        test_port();
    else if (strcmp(mode, "lo") == 0)
        lo_up(), test_lo();
    else if (strcmp(mode, "lo_bench") == 0)
        lo_up(), test_lo_bench();
    else
        test_refusals();
    printf("test_eth_port %s%s: %d passed, %d failed\n", mode, cuda != NULL ? " gpu" : "", passed,
           failed);
    return failed == 0 ? 0 : 1;
}
