/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An XRC initiator QP made with DevX (qpc.st XRC, zero-size receive queue)
 * and driven by hand-written WQEs with their XRC segment, sending to an XRC
 * target QP and XRC SRQ of the standard verbs on the same device: a send
 * lands in the SRQ it names and completes on the SRQ's CQ; an SRQ of another
 * domain completes with a remote invalid request error. CREATE_QP with st
 * XRC and a regular receive queue (a target QP) is refused.
 */
#include <endian.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devx_dp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"

#define LOG_CQ     4
#define LOG_SQ     5
#define TIMEOUT_MS 3000
#define MSG        256u

static struct dp_dev dev;

/* A send WQE: control, XRC segment naming srqn, one data segment of len bytes. */
static void post_xrc_send(struct dp_qp *q, uint32_t srqn, uint32_t len)
{
    uint8_t wqe[PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_xrc_seg *x = (void *)(wqe + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t ds = (uint32_t)(sizeof(struct prm_wqe_ctrl_seg) + sizeof(*x) +
                             sizeof(struct prm_wqe_data_seg)) /
                  PRM_WQE_DS_SIZE;

    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, PRM_WQE_OPCODE_SEND, 0, q->qpn,
                         PRM_WQE_CTRL_CQ_UPDATE, (uint8_t)ds, 0, 0);
    x->xrc_srqn = htobe32(srqn);
    prm_wqe_set_data_seg((void *)(x + 1), len, q->mr->lkey, (uintptr_t)q->buf);
    dp_post_raw(q, wqe, ds);
    dp_ring(q);
}

/* Polls a verbs CQ for up to timeout_ms: 1 with a completion in wc, or 0. */
static int wait_verbs(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
    for (int i = 0; i < timeout_ms; i++) {
        int n = ibv_poll_cq(cq, 1, wc);

        if (n != 0)
            return n;
        usleep(1000);
    }
    return 0;
}

static struct ibv_srq *xrc_srq(struct ibv_xrcd *d, struct ibv_cq *cq)
{
    struct ibv_srq_init_attr_ex a;

    memset(&a, 0, sizeof(a));
    a.attr.max_wr = 8;
    a.attr.max_sge = 1;
    a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
                  IBV_SRQ_INIT_ATTR_PD;
    a.srq_type = IBV_SRQT_XRC;
    a.pd = dev.pd;
    a.xrcd = d;
    a.cq = cq;
    return ibv_create_srq_ex(dev.ctx, &a);
}

/* The verbs target QP of domain d, connected to the initiator ini (in RTS); NULL on failure. */
static struct ibv_qp *target(struct ibv_xrcd *d, uint32_t ini)
{
    struct ibv_qp_init_attr_ex ia = {
            .qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = d};
    struct ibv_qp *qp = ibv_create_qp_ex(dev.ctx, &ia);
    struct ibv_qp_attr a;

    if (qp == NULL)
        return NULL;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return NULL;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = ini;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 1;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = dev.gid;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return NULL;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN) ? NULL : qp;
}

static void test_initiator(void)
{
    struct ibv_xrcd_init_attr xa = {.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
                                    .fd = -1,
                                    .oflags = O_CREAT};
    struct ibv_xrcd *d = ibv_open_xrcd(dev.ctx, &xa), *other = ibv_open_xrcd(dev.ctx, &xa);
    struct ibv_cq *cq = ibv_create_cq(dev.ctx, 8, NULL, NULL, 0);
    struct ibv_srq *srq = d != NULL && cq != NULL ? xrc_srq(d, cq) : NULL;
    struct ibv_srq *osrq = other != NULL && cq != NULL ? xrc_srq(other, cq) : NULL;
    struct ibv_qp *tgt = NULL;
    struct dp_qp ini;
    struct dp_info it;
    struct prm_cqe64 cqe;
    struct ibv_wc wc;
    uint32_t srqn = 0, osrqn = 0;
    uint8_t *rx = calloc(1, 4096);
    struct ibv_mr *mr = rx != NULL ? ibv_reg_mr(dev.pd, rx, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;

    if (srq == NULL || osrq == NULL || mr == NULL || ibv_get_srq_num(srq, &srqn) != 0 ||
        ibv_get_srq_num(osrq, &osrqn) != 0 ||
        dp_qp_create_type(&dev, &dp_host_mem, &ini, LOG_CQ, LOG_SQ, 0, PRM_QP_ST_XRC) != 0 ||
        (tgt = target(d, ini.qpn)) == NULL) {
        DP_CHECK(false, "XRC set-up: a DevX initiator, a verbs target and XRC SRQs");
        return;
    }
    memset(&it, 0, sizeof(it));
    it.qpn = tgt->qp_num;
    it.gid = dev.gid;
    DP_CHECK(dp_qp_connect(&ini, &it) == 0, "DevX XRC initiator connected to the target");
    {
        struct ibv_sge sge = {(uintptr_t)rx, 4096, mr->lkey};
        struct ibv_recv_wr r = {.wr_id = 9, .sg_list = &sge, .num_sge = 1}, *bad;

        DP_CHECK(ibv_post_srq_recv(srq, &r, &bad) == 0 && ibv_post_srq_recv(osrq, &r, &bad) == 0,
                 "receives posted to both SRQs");
    }
    dp_fill(ini.buf, MSG, 3, 0);
    post_xrc_send(&ini, srqn, MSG);
    DP_CHECK(dp_poll(&ini, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "the XRC send completes");
    DP_CHECK(wait_verbs(cq, &wc, TIMEOUT_MS) == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 9 &&
                     wc.byte_len == MSG && wc.qp_num == tgt->qp_num && wc.src_qp == ini.qpn,
             "received into the SRQ it named, on the SRQ's CQ");
    DP_CHECK(dp_check_bytes(rx, MSG, 3, 0), "the message landed");
    post_xrc_send(&ini, osrqn, MSG);
    DP_CHECK(dp_poll(&ini, &cqe, TIMEOUT_MS) == 1 &&
                     prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ_ERR &&
                     prm_cqe_syndrome(&cqe) == PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
             "an SRQ of another domain: remote invalid request");
    DP_CHECK(wait_verbs(cq, &wc, 200) == 0, "and nothing was received");
    DP_CHECK(ibv_destroy_qp(tgt) == 0 && ibv_destroy_srq(srq) == 0 && ibv_destroy_srq(osrq) == 0 &&
                     ibv_close_xrcd(d) == 0 && ibv_close_xrcd(other) == 0 &&
                     ibv_destroy_cq(cq) == 0,
             "verbs objects destroyed");
    dp_qp_destroy(&ini);
    ibv_dereg_mr(mr);
    free(rx);
}

/* A target QP through DevX would need XRC domains and SRQs, which DevX does not make. */
static void test_target_refused(void)
{
    static uint8_t in[PRM_CREATE_QP_IN_SIZE];
    uint8_t out[0x10] = {0};
    struct mlx5dv_devx_obj *qp;

    dt_build_create_qp(
            in, &(struct dt_qp_args){.pdn = dev.pdn, .log_sq_size = LOG_SQ, .log_rq_size = 2});
    PRM_SET(PRM_AT(in, PRM_CREATE_QP_IN_QPC), PRM_QPC_ST, PRM_QP_ST_XRC);
    qp = mlx5dv_devx_obj_create(dev.ctx, in, sizeof(in), out, sizeof(out));
    DP_CHECK(qp == NULL && dt_status(out) == PRM_CMD_STAT_BAD_PARAM,
             "CREATE_QP st XRC with a receive queue: BAD_PARAM (status 0x%x)", dt_status(out));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    dp_open(&dev);
    test_initiator();
    test_target_refused();
    dp_close(&dev);
    return dp_summary("test_devx_xrc");
}
