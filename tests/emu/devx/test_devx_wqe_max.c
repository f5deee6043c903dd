/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The largest WQEs a DevX ring holds: 63 DS (1008 bytes, 16 basic blocks,
 * inside QUERY_HCA_CAP's max_wqe_sz_sq), written by hand: an inline RDMA
 * write of 972 bytes and an inline send of 988 bytes (each exactly 63 DS),
 * aligned to the send ring and across its end (basic blocks wrapping to
 * slot 0). Every one must complete and place exactly its bytes.
 */
#include <endian.h>
#include <signal.h>
#include <string.h>

#include "devx_dp.h"

#define LOG_CQ     4
#define LOG_SQ     5 /* 32 basic blocks: two 16-block WQEs */
#define LOG_RQ     2
#define TIMEOUT_MS 5000
#define TARGET     8192u   /* in the responder's buffer */
#define RECV       131072u /* receive buffer in the responder's buffer */

static struct dp_dev dev;

/* The bytes of an inline payload: a pattern of the test's own. */
static void pattern(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 13 + (i >> 7));
}

/* Posts the WQE (control segment written here), rings, and checks its CQE. */
static bool post_expect(struct dp_qp *q, uint8_t *wqe, uint8_t opcode, uint32_t ds,
                        uint32_t byte_cnt, const char *what)
{
    struct prm_cqe64 cqe;
    uint32_t index;
    bool ok;

    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, opcode, 0, q->qpn, PRM_WQE_CTRL_CQ_UPDATE,
                         (uint8_t)ds, 0, 0);
    index = dp_post_raw(q, wqe, ds);
    dp_ring(q);
    if (dp_poll(q, &cqe, TIMEOUT_MS) != 1) {
        DP_CHECK(false, "%s: no CQE", what);
        return false;
    }
    ok = prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ && prm_cqe_wqe_opcode(&cqe) == opcode &&
         prm_cqe_wqe_counter(&cqe) == (index & 0xffff) &&
         (byte_cnt == 0 || prm_cqe_byte_cnt(&cqe) == byte_cnt);
    DP_CHECK(ok, "%s: CQE opcode 0x%x (syndrome 0x%x) WQE opcode 0x%x counter %u byte_cnt %u", what,
             prm_cqe_opcode(&cqe), prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0,
             prm_cqe_wqe_opcode(&cqe), prm_cqe_wqe_counter(&cqe), prm_cqe_byte_cnt(&cqe));
    return ok;
}

/* Exactly want at p, and zeros in the 64 bytes before and after. */
static bool placed(const uint8_t *p, const uint8_t *want, size_t n)
{
    for (size_t i = 1; i <= 64; i++)
        if (p[-(ptrdiff_t)i] != 0 || p[n + i - 1] != 0)
            return false;
    return memcmp(p, want, n) == 0;
}

static void inline_write(struct dp_qp *a, struct dp_qp *b, const struct dp_info *rb)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_inline_seg *seg = (void *)(wqe + 32);
    uint32_t len = PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE - 32 - 4; /* 972 */
    uint8_t want[PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE];

    memset(b->buf, 0, DP_BUF_SIZE);
    pattern(want, len, 0x31);
    prm_wqe_set_raddr_seg((void *)(wqe + 16), rb->addr + TARGET, rb->rkey);
    prm_wqe_set_inline_seg(seg, len);
    memcpy(prm_wqe_inline_data(seg), want, len);
    DP_CHECK(prm_wqe_ds_count(32 + 4 + len) == PRM_WQE_MAX_DS, "the WQE is 63 DS");
    if (post_expect(a, wqe, PRM_WQE_OPCODE_RDMA_WRITE, PRM_WQE_MAX_DS, len,
                    "inline write of 63 DS"))
        DP_CHECK(placed(b->buf + TARGET, want, len), "inline write of 63 DS: the bytes placed");
}

static void inline_send(struct dp_qp *a, struct dp_qp *b)
{
    uint8_t wqe[PRM_WQE_MAX_BB * PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_inline_seg *seg = (void *)(wqe + 16);
    uint32_t len = PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE - 16 - 4; /* 988 */
    uint8_t want[PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE];
    struct prm_cqe64 cqe;

    memset(b->buf, 0, DP_BUF_SIZE);
    pattern(want, len, 0x52);
    dp_post_recv(b, RECV, 4096);
    prm_wqe_set_inline_seg(seg, len);
    memcpy(prm_wqe_inline_data(seg), want, len);
    if (!post_expect(a, wqe, PRM_WQE_OPCODE_SEND, PRM_WQE_MAX_DS, 0, "inline send of 63 DS"))
        return;
    DP_CHECK(dp_poll(b, &cqe, TIMEOUT_MS) == 1 &&
                     prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_RESP_SEND &&
                     prm_cqe_byte_cnt(&cqe) == len,
             "inline send of 63 DS: the receive completes with %u bytes", len);
    DP_CHECK(placed(b->buf + RECV, want, len), "inline send of 63 DS: the bytes placed");
}

/* Moves a's producer so that its next 16-block WQE wraps the ring's end. */
static void skew(struct dp_qp *a)
{
    uint8_t nop[PRM_WQE_BB_SIZE] = {0};
    struct prm_cqe64 cqe;

    prm_wqe_set_ctrl_seg((void *)nop, (uint16_t)a->sq_pi, PRM_WQE_OPCODE_NOP, 0, a->qpn,
                         PRM_WQE_CTRL_CQ_UPDATE, 1, 0, 0);
    dp_post_raw(a, nop, 1);
    dp_ring(a);
    DP_CHECK(dp_poll(a, &cqe, TIMEOUT_MS) == 1 && prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ,
             "NOP completes");
}

int main(void)
{
    struct dp_qp a, b;
    struct dp_info ia, ib;

    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    dp_open(&dev);
    if (dp_qp_create(&dev, &dp_host_mem, &a, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0 ||
        dp_qp_create(&dev, &dp_host_mem, &b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0) {
        DP_CHECK(false, "two QPs");
        return dp_summary("test_devx_wqe_max");
    }
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    DP_CHECK(dp_qp_connect(&a, &ib) == 0 && dp_qp_connect(&b, &ia) == 0, "connect");
    /* Aligned to the ring (slots 0 and 16), then one slot on: the send (17..31, 0) wraps. */
    inline_write(&a, &b, &ib);
    inline_send(&a, &b);
    skew(&a);
    inline_write(&a, &b, &ib);
    inline_send(&a, &b);
    inline_write(&a, &b, &ib);
    dp_qp_destroy(&a);
    dp_qp_destroy(&b);
    dp_close(&dev);
    return dp_summary("test_devx_wqe_max");
}
