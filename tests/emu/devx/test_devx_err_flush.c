/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work posted to a DevX QP in ERR is flushed, as a ConnectX flushes it (the
 * kernel's ib_drain_rq relies on that: it moves a QP to ERR, posts a
 * receive and waits for its flush completion). A receive WQE published
 * through the doorbell record alone, and a send WQE rung on the UAR, each
 * get a CQE with syndrome WR_FLUSH_ERR; QUERY_QP says ERR. Then 2RST_QP
 * and the transitions to RTS make the QP work again.
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

static struct dp_dev dev;

static int to_state(struct dp_qp *q, uint16_t opcode)
{
    uint8_t in[PRM_2ERR_QP_IN_SIZE] = {0};
    uint8_t status = 0;

    return dt_qp_cmd(q->qp, opcode, q->qpn, in, sizeof(in), &status) == 0 ? 0 : -1;
}

static uint32_t state_of(struct dp_qp *q)
{
    uint8_t in[PRM_QUERY_QP_IN_SIZE] = {0}, out[PRM_QUERY_QP_OUT_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_QP);
    PRM_SET(in, PRM_QUERY_QP_IN_QPN, q->qpn);
    if (mlx5dv_devx_obj_query(q->qp, in, sizeof(in), out, sizeof(out)) != 0)
        return 0xff;
    return (uint32_t)PRM_GET(PRM_AT(out, PRM_QUERY_QP_OUT_QPC), PRM_QPC_STATE);
}

/* The next CQE is an error with syndrome WR_FLUSH_ERR of this opcode class. */
static void expect_flush(struct dp_qp *q, uint8_t cqe_opcode, const char *what)
{
    struct prm_cqe64 cqe;
    int got = dp_poll(q, &cqe, TIMEOUT_MS);

    DP_CHECK(got == 1 && prm_cqe_opcode(&cqe) == cqe_opcode &&
                     prm_cqe_syndrome(&cqe) == PRM_CQE_SYNDROME_WR_FLUSH_ERR,
             "%s: a flush CQE (got %s, opcode 0x%x, syndrome 0x%x)", what,
             got == 1 ? "a CQE" : "none", got == 1 ? prm_cqe_opcode(&cqe) : 0,
             got == 1 && prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0);
}

int main(void)
{
    struct dp_qp a, b;
    struct dp_info ia, ib;
    struct prm_cqe64 cqe;
    struct dp_wqe w;

    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    dp_open(&dev);
    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0 ||
        dp_qp_create(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0) {
        DP_CHECK(false, "two QPs");
        return dp_summary("test_devx_err_flush");
    }
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DP_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0, "connect");

    DP_CHECK(to_state(&a, PRM_CMD_2ERR_QP) == 0, "2ERR_QP");
    DP_CHECK(state_of(&a) == PRM_QP_STATE_ERR, "QUERY_QP says ERR");
    DP_CHECK(dp_poll(&a, &cqe, 100) == 0, "nothing to flush yet");
    /* A receive published by its doorbell record only: no doorbell register for receives. */
    dp_post_recv(&a, 0, 64);
    expect_flush(&a, PRM_CQE_OPCODE_RESP_ERR, "receive posted in ERR");
    /* A send rung on the UAR. */
    memset(&w, 0, sizeof(w));
    w.opcode = PRM_WQE_OPCODE_RDMA_WRITE;
    w.signaled = true;
    w.raddr = ib.addr;
    w.rkey = ib.rkey;
    w.len = 64;
    w.laddr = (uintptr_t)a.buf;
    dp_post(&a, &w);
    dp_ring(&a);
    expect_flush(&a, PRM_CQE_OPCODE_REQ_ERR, "send posted in ERR");

    /* ERR -> RST -> ... -> RTS: it works again (b's QP too, reset alike). */
    DP_CHECK(to_state(&a, PRM_CMD_2RST_QP) == 0 && to_state(&b, PRM_CMD_2RST_QP) == 0, "2RST_QP");
    DP_CHECK(state_of(&a) == PRM_QP_STATE_RST, "QUERY_QP says RST");
    /* After RST the device counts from 0 again: so do the rings and their doorbell records. */
    {
        uint32_t zero[2] = {0, 0};

        a.mem->write(a.ring + a.qp_dbr_off, zero, sizeof(zero));
        b.mem->write(b.ring + b.qp_dbr_off, zero, sizeof(zero));
    }
    a.sq_pi = a.rq_pi = 0;
    b.sq_pi = b.rq_pi = 0;
    DP_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0, "reconnect");
    dp_post(&a, &w);
    dp_ring(&a);
    DP_CHECK(dp_poll(&a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "a write completes after the reset");
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return dp_summary("test_devx_err_flush");
}
