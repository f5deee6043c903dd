/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DevX DCI (CREATE_QP with st DCI, its transitions by PRM commands, WQEs
 * written by hand: control, datagram segment with the DC access key and the
 * DCT number, remote address, data) to a DCT of the same device made with
 * mlx5dv_create_qp: an RDMA write and a send land byte for byte, QUERY_QP
 * reports st DCI, the wrong key completes with a remote access error CQE.
 */
#include <endian.h>
#include <infiniband/mlx5dv.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "devx_dp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"

#define LOG_CQ     4
#define LOG_SQ     5
#define LOG_RQ     0
#define TIMEOUT_MS 3000
#define KEY        0xfeedface12345678ull
#define MSG        300u
#define RECV_OFF   65536u

static struct dp_dev dev;
static struct ibv_cq *cq;
static struct ibv_srq *srq;
static struct ibv_qp *dct;
static struct ibv_mr *mr;
static uint8_t target[2 * RECV_OFF] __attribute__((aligned(4096)));

/* RST -> INIT -> RTR (MTU 4096) -> RTS (retries) with PRM commands: no remote QP. */
static int dci_ready(struct dp_qp *q)
{
    static uint8_t in[PRM_RST2INIT_QP_IN_SIZE];
    void *qpc = PRM_AT(in, PRM_RST2INIT_QP_IN_QPC);
    void *ads = PRM_AT(qpc, PRM_QPC_PRIMARY_ADDRESS_PATH);
    uint8_t status = 0;

    memset(in, 0, sizeof(in));
    PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
    if (dt_qp_cmd(q->qp, PRM_CMD_RST2INIT_QP, q->qpn, in, sizeof(in), &status) != 0)
        return -1;
    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_MTU, PRM_QP_MTU_4K);
    if (dt_qp_cmd(q->qp, PRM_CMD_INIT2RTR_QP, q->qpn, in, sizeof(in), &status) != 0)
        return -1;
    memset(in, 0, sizeof(in));
    PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 7);
    PRM_SET(qpc, PRM_QPC_RNR_RETRY, 7);
    PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, 14);
    return dt_qp_cmd(q->qp, PRM_CMD_RTR2RTS_QP, q->qpn, in, sizeof(in), &status);
}

/* A DC WQE: control, datagram segment (key, DCT, GRH), remote address (writes), data. */
static void post_dc(struct dp_qp *q, uint8_t opcode, uint64_t key, uint32_t len)
{
    uint8_t wqe[PRM_WQE_BB_SIZE * 2] = {0};
    uint32_t off = sizeof(struct prm_wqe_ctrl_seg);
    struct prm_wqe_datagram_seg *av = (void *)(wqe + off);
    uint64_t key_be = htobe64(key);

    memcpy(av, &key_be, sizeof(key_be));
    av->dqp_dct = htobe32(PRM_WQE_AV_EXTENDED | dct->qp_num);
    av->hop_limit = 64;
    av->grh_gid_fl = htobe32(PRM_WQE_AV_GRH);
    memcpy(av->rgid, dev.gid.raw, 16);
    off += sizeof(*av);
    if (opcode == PRM_WQE_OPCODE_RDMA_WRITE) {
        prm_wqe_set_raddr_seg((void *)(wqe + off), (uintptr_t)target, mr->rkey);
        off += sizeof(struct prm_wqe_raddr_seg);
    }
    prm_wqe_set_data_seg((void *)(wqe + off), len, q->mr->lkey, (uintptr_t)q->buf);
    off += sizeof(struct prm_wqe_data_seg);
    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, opcode, 0, q->qpn, PRM_WQE_CTRL_CQ_UPDATE,
                         (uint8_t)(off / PRM_WQE_DS_SIZE), 0, 0);
    dp_post_raw(q, wqe, off / PRM_WQE_DS_SIZE);
    dp_ring(q);
}

/* The DCT's next receive completion within TIMEOUT_MS. */
static bool dct_wc(struct ibv_wc *wc)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        if (ibv_poll_cq(cq, 1, wc) == 1)
            return true;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < TIMEOUT_MS);
    return false;
}

static int dct_make(void)
{
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 1}};
    struct ibv_qp_init_attr_ex a = {.qp_type = IBV_QPT_DRIVER, .comp_mask = IBV_QP_INIT_ATTR_PD};
    struct mlx5dv_qp_init_attr dv = {
            .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
            .dc_init_attr = {.dc_type = MLX5DV_DCTYPE_DCT, .dct_access_key = KEY}};
    struct ibv_qp_attr at = {
            .qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};

    cq = ibv_create_cq(dev.ctx, 16, NULL, NULL, 0);
    srq = ibv_create_srq(dev.pd, &sa);
    mr = ibv_reg_mr(dev.pd, target, sizeof(target),
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (cq == NULL || srq == NULL || mr == NULL)
        return -1;
    a.pd = dev.pd;
    a.send_cq = a.recv_cq = cq;
    a.srq = srq;
    dct = mlx5dv_create_qp(dev.ctx, &a, &dv);
    if (dct == NULL ||
        ibv_modify_qp(dct, &at,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0)
        return -1;
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = IBV_MTU_4096;
    at.min_rnr_timer = 1;
    return ibv_modify_qp(dct, &at, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER);
}

static void test_dci(void)
{
    uint8_t in[PRM_QUERY_QP_IN_SIZE] = {0}, out[PRM_QUERY_QP_OUT_SIZE] = {0};
    struct ibv_sge sge = {(uintptr_t)target + RECV_OFF, MSG, 0};
    struct ibv_recv_wr rwr = {.wr_id = 3, .sg_list = &sge, .num_sge = 1}, *bad;
    struct prm_cqe64 cqe;
    struct ibv_wc wc;
    struct dp_qp a;

    if (dp_qp_create_type(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, PRM_QP_ST_DCI) != 0) {
        DP_CHECK(false, "a DevX DCI");
        return;
    }
    DP_CHECK(dci_ready(&a) == 0, "DCI: RST -> INIT -> RTR -> RTS by PRM commands");
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_QP);
    PRM_SET(in, PRM_QUERY_QP_IN_QPN, a.qpn);
    DP_CHECK(mlx5dv_devx_obj_query(a.qp, in, sizeof(in), out, sizeof(out)) == 0 &&
                     PRM_GET(PRM_AT(out, PRM_QUERY_QP_OUT_QPC), PRM_QPC_ST) == PRM_QP_ST_DCI &&
                     PRM_GET(PRM_AT(out, PRM_QUERY_QP_OUT_QPC), PRM_QPC_STATE) == PRM_QP_STATE_RTS,
             "QUERY_QP: st DCI, RTS");
    dp_fill(a.buf, MSG, 21, 0);
    post_dc(&a, PRM_WQE_OPCODE_RDMA_WRITE, KEY, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && !prm_cqe_is_error(&cqe),
             "the DC write completes (opcode 0x%x)", prm_cqe_opcode(&cqe));
    DP_CHECK(dp_check_bytes(target, MSG, 21, 0), "written byte for byte");
    sge.lkey = mr->lkey;
    dp_fill(a.buf, MSG, 45, 0);
    DP_CHECK(ibv_post_srq_recv(srq, &rwr, &bad) == 0, "a receive in the DCT's SRQ");
    post_dc(&a, PRM_WQE_OPCODE_SEND, KEY, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && !prm_cqe_is_error(&cqe),
             "the DC send completes");
    DP_CHECK(dct_wc(&wc) && wc.status == IBV_WC_SUCCESS && wc.src_qp == a.qpn &&
                     wc.byte_len == MSG && dp_check_bytes(target + RECV_OFF, MSG, 45, 0),
             "received from the DCI byte for byte (status %d, src_qp 0x%x)", wc.status, wc.src_qp);
    post_dc(&a, PRM_WQE_OPCODE_RDMA_WRITE, KEY + 1, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_is_error(&cqe) &&
                     prm_cqe_syndrome(&cqe) == PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR,
             "the wrong key: an error CQE with a remote access error (syndrome 0x%x)",
             prm_cqe_syndrome(&cqe));
    dp_qp_destroy(&a);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    dp_open(&dev);
    DP_CHECK(dct_make() == 0, "a DCT with an SRQ (mlx5dv_create_qp)");
    if (dct != NULL)
        test_dci();
    if (dct != NULL)
        ibv_destroy_qp(dct);
    if (srq != NULL)
        ibv_destroy_srq(srq);
    if (mr != NULL)
        ibv_dereg_mr(mr);
    if (cq != NULL)
        ibv_destroy_cq(cq);
    dp_close(&dev);
    return dp_summary("test_devx_dc");
}
