/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD and UC QPs made with DevX (qpc.st) and driven by hand-written WQEs.
 * UD: the Q_Key comes with RST2INIT (QUERY_QP returns it and st); a send
 * WQE with a datagram segment (destination QPN, Q_Key, GRH address vector)
 * is received after the 40-byte GRH area, its CQE carrying the source QPN
 * and the L3 type (IPv4 on RoCE); a datagram with another Q_Key gets no
 * CQE. UC: an RDMA write completes without an ACK and lands; an RDMA read
 * WQE, which UC does not execute, completes with a local QP operation error
 * and the QP enters SQER (a send queue error; receives go on).
 */
#include <endian.h>
#include <signal.h>
#include <string.h>

#include "devx_dp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"

#define LOG_CQ     4
#define LOG_SQ     5
#define LOG_RQ     2
#define TIMEOUT_MS 3000
#define QKEY       0x1234u
#define MSG        200u
#define GRH        40u

static struct dp_dev dev;

/* QUERY_QP: the state (0xff when the query fails), the service type and the Q_Key. */
static uint32_t query(struct dp_qp *q, uint32_t *st, uint32_t *qkey)
{
    uint8_t in[PRM_QUERY_QP_IN_SIZE] = {0}, out[PRM_QUERY_QP_OUT_SIZE] = {0};
    const void *qpc = PRM_AT(out, PRM_QUERY_QP_OUT_QPC);

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_QP);
    PRM_SET(in, PRM_QUERY_QP_IN_QPN, q->qpn);
    if (mlx5dv_devx_obj_query(q->qp, in, sizeof(in), out, sizeof(out)) != 0)
        return 0xff;
    *st = (uint32_t)PRM_GET(qpc, PRM_QPC_ST);
    *qkey = (uint32_t)PRM_GET(qpc, PRM_QPC_Q_KEY);
    return (uint32_t)PRM_GET(qpc, PRM_QPC_STATE);
}

/* A UD send WQE: control, datagram and data segment. */
static void post_ud(struct dp_qp *q, const struct dp_info *to, uint32_t qkey, uint32_t len)
{
    uint8_t wqe[PRM_WQE_BB_SIZE * 2] = {0};
    struct prm_wqe_datagram_seg *av = (void *)(wqe + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t ds = (uint32_t)(sizeof(struct prm_wqe_ctrl_seg) + sizeof(*av) +
                             sizeof(struct prm_wqe_data_seg)) /
                  PRM_WQE_DS_SIZE;

    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, PRM_WQE_OPCODE_SEND, 0, q->qpn,
                         PRM_WQE_CTRL_CQ_UPDATE, (uint8_t)ds, 0, 0);
    av->qkey = htobe32(qkey);
    av->dqp_dct = htobe32(PRM_WQE_AV_EXTENDED | to->qpn);
    av->hop_limit = 64;
    av->grh_gid_fl = htobe32(PRM_WQE_AV_GRH);
    memcpy(av->rgid, to->gid.raw, 16);
    prm_wqe_set_data_seg((void *)(av + 1), len, q->mr->lkey, (uintptr_t)q->buf);
    dp_post_raw(q, wqe, ds);
    dp_ring(q);
}

static void test_ud(void)
{
    struct dp_qp a, b;
    struct dp_info ib;
    struct prm_cqe64 cqe;
    uint32_t st = 0, qkey = 0, rqpn;

    if (dp_qp_create_type(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, PRM_QP_ST_UD) != 0 ||
        dp_qp_create_type(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, PRM_QP_ST_UD) != 0) {
        DP_CHECK(false, "two UD QPs");
        return;
    }
    DP_CHECK(dp_qp_ready_ud(&a, QKEY) == 0 && dp_qp_ready_ud(&b, QKEY) == 0, "UD QPs to RTS");
    DP_CHECK(query(&b, &st, &qkey) == PRM_QP_STATE_RTS && st == PRM_QP_ST_UD && qkey == QKEY,
             "QUERY_QP: RTS, st UD, the Q_Key (st %u, qkey 0x%x)", st, qkey);
    dp_info_of(&b, &ib);
    dp_fill(a.buf, MSG, 5, 0);
    dp_post_recv(&b, 0, GRH + MSG);
    post_ud(&a, &ib, QKEY, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "the UD send completes");
    DP_CHECK(dp_poll(&b, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_RESP_SEND,
             "the datagram is received");
    rqpn = be32toh(cqe.flags_rqpn);
    DP_CHECK((rqpn & PRM_CQE_QPN_MASK) == a.qpn, "source QPN 0x%x", rqpn & PRM_CQE_QPN_MASK);
    DP_CHECK(((rqpn >> PRM_CQE_RQPN_L3_SHIFT) & 3) == PRM_CQE_L3_IPV4, "L3 type IPv4 (0x%x)", rqpn);
    DP_CHECK(prm_cqe_byte_cnt(&cqe) == GRH + MSG, "byte count %u", prm_cqe_byte_cnt(&cqe));
    DP_CHECK(b.buf[20] == 0x45 && dp_check_bytes(b.buf + GRH, MSG, 5, 0),
             "IPv4 header, then the message");
    /* Another Q_Key: nothing arrives; the receive stays posted for the next datagram. */
    post_ud(&a, &ib, QKEY + 1, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "the datagram with a wrong Q_Key completes");
    dp_post_recv(&b, 0, GRH + MSG);
    DP_CHECK(dp_poll(&b, &cqe, 200) == 0, "and is dropped");
    post_ud(&a, &ib, QKEY, MSG);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1, "one more");
    DP_CHECK(dp_poll(&b, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_RESP_SEND,
             "received into the receive the dropped one left");
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
}

static void test_uc(void)
{
    struct dp_qp a, b;
    struct dp_info ia, ib;
    struct prm_cqe64 cqe;
    struct dp_wqe w;
    uint32_t st = 0, qkey = 0;

    if (dp_qp_create_type(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, PRM_QP_ST_UC) != 0 ||
        dp_qp_create_type(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, PRM_QP_ST_UC) != 0) {
        DP_CHECK(false, "two UC QPs");
        return;
    }
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DP_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0, "UC QPs connected");
    dp_fill(a.buf, 512, 11, 0);
    memset(&w, 0, sizeof(w));
    w.opcode = PRM_WQE_OPCODE_RDMA_WRITE;
    w.signaled = true;
    w.raddr = ib.addr + 4096;
    w.rkey = ib.rkey;
    w.len = 512;
    w.laddr = (uintptr_t)a.buf;
    dp_post(&a, &w);
    dp_ring(&a);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "the UC write completes");
    for (int i = 0; i < 100 && !dp_check_bytes(b.buf + 4096, 512, 11, 0); i++)
        dp_poll(&b, &cqe, 10);
    DP_CHECK(dp_check_bytes(b.buf + 4096, 512, 11, 0), "and is placed");
    w.opcode = PRM_WQE_OPCODE_RDMA_READ;
    dp_post(&a, &w);
    dp_ring(&a);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ_ERR &&
                     prm_cqe_syndrome(&cqe) == PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR,
             "an RDMA read on UC: local QP operation error");
    DP_CHECK(query(&a, &st, &qkey) == PRM_QP_STATE_SQER && st == PRM_QP_ST_UC,
             "the QP is in SQER (st %u)", st);
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    dp_open(&dev);
    test_ud();
    test_uc();
    dp_close(&dev);
    return dp_summary("test_devx_ud_uc");
}
