/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send WQEs beyond the verbs set, written by hand into DevX rings: masked
 * compare-swap and fetch-add on 4- and 8-byte big-endian targets (the remote
 * value and the returned original checked byte for byte), their alignment,
 * opmod and length errors; WAIT on a CQ (the WQE after it does not run before
 * the CQ reaches the index, other QPs go on meanwhile, an unknown CQ fails,
 * a stalled WAIT is flushed); DUMP with good and bad local keys; NOP with and
 * without a CQE, in order behind earlier work.
 *   test_devx_ops          rings in host memory
 *   test_devx_ops gpu      rings in GPU memory (skipped, 77, without a GPU)
 * All QPs are in this process; their traffic goes over the wire as any.
 */
#include <endian.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "devx_dp.h"

#define LOG_CQ     4 /* 16 CQEs */
#define LOG_SQ     5 /* 32 basic blocks */
#define LOG_RQ     2
#define TIMEOUT_MS 5000

/* Peer buffer offsets. */
#define T4    512u    /* 4-byte targets: T4 and T4 + 4 */
#define T8    1024u   /* 8-byte target */
#define TW    131072u /* write targets */
#define TREAD 65536u

/* Requester buffer offsets. */
#define L_RET  0u    /* returned originals: 8 bytes, then 8 guard bytes */
#define L_SRC  4096u /* write sources (also in the peer's buffer) */
#define L_READ 262144u

static const struct dp_mem *mem;
static struct dp_dev dev;

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* A connected pair a -> b (b's requests go to a). */
static bool pair_make(struct dp_qp *a, struct dp_qp *b)
{
    struct dp_info ia, ib;

    if (dp_qp_create(&dev, mem, a, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0 ||
        dp_qp_create(&dev, mem, b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return false;
    dp_info_of(a, &ia);
    dp_info_of(b, &ib);
    return dp_qp_connect(a, &ib) == 0 && dp_qp_connect(b, &ia) == 0;
}

static void pair_free(struct dp_qp *a, struct dp_qp *b)
{
    dp_qp_destroy(a);
    dp_qp_destroy(b);
}

/* The control segment of a WQE of ds DS at the QP's next index; posts it. */
static uint32_t post(struct dp_qp *q, uint8_t *wqe, uint8_t opcode, uint8_t opmod, uint32_t ds,
                     bool signaled)
{
    prm_wqe_set_ctrl_seg((void *)wqe, (uint16_t)q->sq_pi, opcode, opmod, q->qpn,
                         signaled ? PRM_WQE_CTRL_CQ_UPDATE : PRM_WQE_CTRL_CE_ERROR_ONLY,
                         (uint8_t)ds, 0, 0);
    return dp_post_raw(q, wqe, ds);
}

/*
 * Waits for the next CQE of q: the completion of WQE index with this WQE
 * opcode, successful (syndrome 0) or an error with that syndrome; when bytes
 * is not NULL, a successful one with that byte count.
 */
static bool expect_cqe(struct dp_qp *q, uint32_t index, uint8_t opcode, uint8_t syndrome,
                       const uint32_t *bytes, const char *what)
{
    struct prm_cqe64 cqe;
    bool ok;

    if (dp_poll(q, &cqe, TIMEOUT_MS) != 1) {
        DP_CHECK(false, "%s: no CQE for WQE %u", what, index & 0xffff);
        return false;
    }
    if (syndrome == 0)
        ok = prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ;
    else
        ok = prm_cqe_opcode(&cqe) == PRM_CQE_OPCODE_REQ_ERR && prm_cqe_syndrome(&cqe) == syndrome;
    ok = ok && prm_cqe_wqe_opcode(&cqe) == opcode && prm_cqe_qpn(&cqe) == q->qpn &&
         prm_cqe_wqe_counter(&cqe) == (index & 0xffff) &&
         (bytes == NULL || prm_cqe_byte_cnt(&cqe) == *bytes);
    DP_CHECK(ok,
             "%s: CQE opcode 0x%x syndrome 0x%x WQE opcode 0x%x wqe_counter %u qpn 0x%x byte_cnt "
             "%u; want syndrome 0x%x WQE opcode 0x%x wqe_counter %u qpn 0x%x byte_cnt %d",
             what, prm_cqe_opcode(&cqe), prm_cqe_is_error(&cqe) ? prm_cqe_syndrome(&cqe) : 0,
             prm_cqe_wqe_opcode(&cqe), prm_cqe_wqe_counter(&cqe), prm_cqe_qpn(&cqe),
             prm_cqe_byte_cnt(&cqe), syndrome, opcode, index & 0xffff, q->qpn,
             bytes == NULL ? -1 : (int)*bytes);
    return ok;
}

static bool expect(struct dp_qp *q, uint32_t index, uint8_t opcode, uint8_t syndrome,
                   const char *what)
{
    return expect_cqe(q, index, opcode, syndrome, NULL, what);
}

/* A successful completion with this byte count (for checks of byte_cnt). */
static bool expect_bytes(struct dp_qp *q, uint32_t index, uint8_t opcode, uint32_t bytes,
                         const char *what)
{
    return expect_cqe(q, index, opcode, 0, &bytes, what);
}

/* No CQE on q for ms milliseconds. */
static bool quiet(struct dp_qp *q, int ms)
{
    struct prm_cqe64 cqe;

    if (dp_poll(q, &cqe, ms) == 0)
        return true;
    DP_CHECK(false, "unexpected CQE: opcode 0x%x WQE opcode 0x%x wqe_counter %u",
             prm_cqe_opcode(&cqe), prm_cqe_wqe_opcode(&cqe), prm_cqe_wqe_counter(&cqe));
    return false;
}

static bool bytes_are(const uint8_t *p, const uint8_t *want, size_t n, const char *what)
{
    bool ok = memcmp(p, want, n) == 0;

    if (!ok) {
        fprintf(stderr, "%s:", what);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x/%02x", p[i], want[i]);
        fprintf(stderr, " (got/want)\n");
    }
    DP_CHECK(ok, "%s: bytes differ", what);
    return ok;
}

/* --- masked atomics ------------------------------------------------------------------- */

struct ext_atomic {
    uint8_t opcode;                                      /* PRM_WQE_OPCODE_ATOMIC_MASKED_CS / _FA */
    uint8_t opmod;                                       /* 0: from size */
    uint32_t size;                                       /* 4 or 8 */
    uint64_t swap_add, compare, swap_mask, compare_mask; /* FA: add, field boundary (compare) */
    uint32_t byte_count;                                 /* 0: size */
};

/* Posts a masked atomic on peer offset roff; the original comes back to L_RET. */
static uint32_t post_ext(struct dp_qp *a, const struct dp_info *r, uint64_t roff,
                         const struct ext_atomic *x)
{
    uint8_t wqe[128] = {0};
    uint32_t off = sizeof(struct prm_wqe_ctrl_seg);
    uint8_t opmod = x->opmod ? x->opmod : prm_wqe_ext_atomic_opmod(x->size == 4 ? 2 : 3);

    prm_wqe_set_raddr_seg((void *)(wqe + off), r->addr + roff, r->rkey);
    off += sizeof(struct prm_wqe_raddr_seg);
    if (x->opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS && x->size == 4) {
        prm_wqe_set_masked_cs32_seg((void *)(wqe + off), (uint32_t)x->swap_add,
                                    (uint32_t)x->compare, (uint32_t)x->swap_mask,
                                    (uint32_t)x->compare_mask);
        off += sizeof(struct prm_wqe_masked_cs32_seg);
    } else if (x->opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS) {
        prm_wqe_set_masked_cs64_seg((void *)(wqe + off), x->swap_add, x->compare, x->swap_mask,
                                    x->compare_mask);
        off += sizeof(struct prm_wqe_masked_cs64_seg);
    } else if (x->size == 4) {
        prm_wqe_set_masked_fa32_seg((void *)(wqe + off), (uint32_t)x->swap_add,
                                    (uint32_t)x->compare);
        off += sizeof(struct prm_wqe_masked_fa32_seg);
    } else {
        prm_wqe_set_masked_fa64_seg((void *)(wqe + off), x->swap_add, x->compare);
        off += sizeof(struct prm_wqe_masked_fa64_seg);
    }
    prm_wqe_set_data_seg((void *)(wqe + off), x->byte_count ? x->byte_count : x->size, a->mr->lkey,
                         (uintptr_t)a->buf + L_RET);
    off += sizeof(struct prm_wqe_data_seg);
    memset(a->buf + L_RET, 0xee, 16);
    return post(a, wqe, x->opcode, opmod, prm_wqe_ds_count(off), true);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
    v = htobe64(v);
    memcpy(p, &v, 8);
}

/*
 * One masked atomic on a target holding `before` (big-endian, x->size bytes
 * at roff, guard bytes 0x5a on either side): it must leave `after` there,
 * return `before` into the first size bytes of L_RET and touch nothing else.
 */
static void ext_case(struct dp_qp *a, struct dp_qp *b, const struct dp_info *r, uint32_t roff,
                     const struct ext_atomic *x, uint64_t before, uint64_t after, const char *what)
{
    uint8_t want[24], want_ret[16];
    uint32_t index, n = x->size;

    memset(want, 0x5a, sizeof(want));
    if (n == 4)
        put_be32(want + 8, (uint32_t)before);
    else
        put_be64(want + 8, before);
    memcpy(b->buf + roff - 8, want, sizeof(want));
    index = post_ext(a, r, roff, x);
    dp_ring(a);
    if (!expect_bytes(a, index, x->opcode, n, what))
        return;
    memset(want_ret, 0xee, sizeof(want_ret));
    memcpy(want_ret, want + 8, n);
    if (n == 4)
        put_be32(want + 8, (uint32_t)after);
    else
        put_be64(want + 8, after);
    bytes_are(b->buf + roff - 8, want, sizeof(want), what);
    bytes_are(a->buf + L_RET, want_ret, sizeof(want_ret), what);
}

static void test_masked_atomics(void)
{
    struct dp_qp a, b;
    struct dp_info r;
    const uint8_t cs = PRM_WQE_OPCODE_ATOMIC_MASKED_CS, fa = PRM_WQE_OPCODE_ATOMIC_MASKED_FA;

    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
        return;
    }
    dp_info_of(&b, &r);
    /* 4-byte compare-swap: the compared bits match; only the masked bits are swapped. */
    ext_case(&a, &b, &r, T4,
             &(struct ext_atomic){.opcode = cs,
                                  .size = 4,
                                  .swap_add = 0xaabbccdd,
                                  .compare = 0x1122ffff,
                                  .swap_mask = 0x0000ff00,
                                  .compare_mask = 0xffff0000},
             0x11223344, 0x1122cc44, "masked CS 4B, match");
    /* A compared bit differs: nothing changes, the original comes back. */
    ext_case(&a, &b, &r, T4,
             &(struct ext_atomic){.opcode = cs,
                                  .size = 4,
                                  .swap_add = 0xffffffff,
                                  .compare = 0x00000055,
                                  .swap_mask = 0xffffffff,
                                  .compare_mask = 0x000000ff},
             0x1122cc44, 0x1122cc44, "masked CS 4B, compare fails");
    /* No compared bits: always swaps; on a 4-byte aligned (not 8-byte aligned) target. */
    ext_case(&a, &b, &r, T4 + 4,
             &(struct ext_atomic){.opcode = cs,
                                  .size = 4,
                                  .swap_add = 0x0000ffff,
                                  .compare = 0x12345678,
                                  .swap_mask = 0x0000000f,
                                  .compare_mask = 0},
             0x1122cc44, 0x1122cc4f, "masked CS 4B, empty compare mask");
    /* 4-byte fetch-add with a boundary after every byte: no carry between bytes. */
    ext_case(&a, &b, &r, T4,
             &(struct ext_atomic){
                     .opcode = fa, .size = 4, .swap_add = 0x01010101, .compare = 0x80808080},
             0x01ff7fff, 0x02008000, "masked FA 4B, byte fields");
    /* Two 16-bit fields. */
    ext_case(&a, &b, &r, T4 + 4,
             &(struct ext_atomic){
                     .opcode = fa, .size = 4, .swap_add = 0x00010001, .compare = 0x00008000},
             0x0001ffff, 0x00020000, "masked FA 4B, 16-bit fields");
    /* No boundary: a plain 32-bit add, carries across bytes, wraps at 32 bits. */
    ext_case(&a, &b, &r, T4,
             &(struct ext_atomic){.opcode = fa, .size = 4, .swap_add = 0x00008001, .compare = 0},
             0xffff8000, 0x00000001, "masked FA 4B, no boundary");
    /* 8-byte compare-swap (two basic blocks): high word compared, bits 31:16 swapped. */
    ext_case(&a, &b, &r, T8,
             &(struct ext_atomic){.opcode = cs,
                                  .size = 8,
                                  .swap_add = ~0ull,
                                  .compare = 0x0102030400000000ull,
                                  .swap_mask = 0x00000000ffff0000ull,
                                  .compare_mask = 0xffffffff00000000ull},
             0x0102030405060708ull, 0x01020304ffff0708ull, "masked CS 8B, match");
    ext_case(&a, &b, &r, T8,
             &(struct ext_atomic){.opcode = cs,
                                  .size = 8,
                                  .swap_add = 0,
                                  .compare = 1,
                                  .swap_mask = ~0ull,
                                  .compare_mask = 1},
             0x01020304ffff0708ull, 0x01020304ffff0708ull, "masked CS 8B, compare fails");
    /* 8-byte fetch-add of two 32-bit fields: the low one wraps without carrying. */
    ext_case(&a, &b, &r, T8,
             &(struct ext_atomic){.opcode = fa,
                                  .size = 8,
                                  .swap_add = 0x0000000100000001ull,
                                  .compare = 0x0000000080000000ull},
             0x00000000ffffffffull, 0x0000000100000000ull, "masked FA 8B, 32-bit fields");
    ext_case(&a, &b, &r, T8,
             &(struct ext_atomic){.opcode = fa,
                                  .size = 8,
                                  .swap_add = 0x0101010101010101ull,
                                  .compare = 0x8080808080808080ull},
             0xff01ff01ff01ff01ull, 0x0002000200020002ull, "masked FA 8B, byte fields");
    ext_case(&a, &b, &r, T8,
             &(struct ext_atomic){.opcode = fa, .size = 8, .swap_add = 1, .compare = 0},
             0x00000000ffffffffull, 0x0000000100000000ull, "masked FA 8B, no boundary");
    pair_free(&a, &b);
}

/* One WQE that must fail with syndrome on a fresh pair; the target must keep its bytes. */
static void ext_error(const struct ext_atomic *x, uint32_t roff, uint8_t syndrome, const char *what)
{
    struct dp_qp a, b;
    struct dp_info r;
    uint8_t keep[16];
    uint32_t index;

    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
        return;
    }
    dp_info_of(&b, &r);
    dp_fill(b.buf + T8 - 8, 32, 0x33, 0);
    memcpy(keep, b.buf + T8 - 4, sizeof(keep));
    index = post_ext(&a, &r, roff, x);
    dp_ring(&a);
    expect(&a, index, x->opcode, syndrome, what);
    DP_CHECK(memcmp(keep, b.buf + T8 - 4, sizeof(keep)) == 0 &&
                     dp_check_bytes(b.buf + T8 - 8, 32, 0x33, 0),
             "%s: the target changed", what);
    pair_free(&a, &b);
}

static void test_masked_atomic_errors(void)
{
    const uint8_t cs = PRM_WQE_OPCODE_ATOMIC_MASKED_CS, fa = PRM_WQE_OPCODE_ATOMIC_MASKED_FA;

    /* Misaligned targets: refused by the responder, as plain atomics are. */
    ext_error(&(struct ext_atomic){.opcode = cs, .size = 4, .compare_mask = 0, .swap_mask = ~0u},
              T8 + 2, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, "masked CS 4B at +2");
    ext_error(&(struct ext_atomic){.opcode = fa, .size = 8, .swap_add = 1}, T8 + 4,
              PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, "masked FA 8B at +4");
    ext_error(&(struct ext_atomic){.opcode = cs, .size = 8, .swap_mask = ~0ull}, T8 + 4,
              PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, "masked CS 8B at +4");
    /* 16-byte operands (opmod 0x0a) are not executed. */
    ext_error(&(struct ext_atomic){.opcode = fa, .opmod = 0x0a, .size = 8, .swap_add = 1}, T8,
              PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR, "masked FA, opmod 0x0a");
    /* The local buffer must be the operand's size. */
    ext_error(&(struct ext_atomic){.opcode = fa, .size = 4, .swap_add = 1, .byte_count = 8}, T8,
              PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR, "masked FA 4B into 8 bytes");
}

/* --- WAIT ----------------------------------------------------------------------------- */

static uint32_t post_wait(struct dp_qp *q, uint32_t cqn, uint32_t index, bool signaled)
{
    uint8_t wqe[64] = {0};

    prm_wqe_set_wait_seg((void *)(wqe + sizeof(struct prm_wqe_ctrl_seg)), cqn, index);
    return post(q, wqe, PRM_WQE_OPCODE_WAIT, 0, PRM_WQE_DS_WAIT, signaled);
}

static uint32_t post_nop(struct dp_qp *q, bool signaled)
{
    uint8_t wqe[64] = {0};

    return post(q, wqe, PRM_WQE_OPCODE_NOP, 0, 1, signaled);
}

static uint32_t post_rdma(struct dp_qp *q, uint8_t opcode, const struct dp_info *r, uint32_t roff,
                          uint32_t loff, uint32_t len, bool signaled)
{
    uint8_t wqe[64] = {0};

    prm_wqe_set_raddr_seg((void *)(wqe + 16), r->addr + roff, r->rkey);
    prm_wqe_set_data_seg((void *)(wqe + 32), len, q->mr->lkey, (uintptr_t)q->buf + loff);
    return post(q, wqe, opcode, 0, PRM_WQE_DS_RDMA, signaled);
}

/* A QP whose only use is to write CQEs on its own CQ (NOPs), connected to itself. */
static bool producer_make(struct dp_qp *c)
{
    struct dp_info ic;

    if (dp_qp_create(&dev, mem, c, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return false;
    dp_info_of(c, &ic);
    return dp_qp_connect(c, &ic) == 0;
}

/* c writes n CQEs (signaled NOPs, one doorbell each), all polled. */
static void produce(struct dp_qp *c, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t index = post_nop(c, true);

        dp_ring(c);
        expect(c, index, PRM_WQE_OPCODE_NOP, 0, "producer NOP");
    }
}

static void test_wait(void)
{
    struct dp_qp a, b, c;
    struct dp_info ia, ib;
    uint32_t w, wr, index;

    if (!pair_make(&a, &b) || !producer_make(&c)) {
        DP_CHECK(false, "QPs");
        return;
    }
    dp_info_of(&a, &ia);
    dp_info_of(&b, &ib);
    produce(&c, 2); /* c's CQ has written 2 CQEs */

    /* WAIT for c's CQ to reach 5, then a write: the write stays behind the WAIT. */
    dp_fill(a.buf + L_SRC, 256, 0x71, 0);
    memset(b.buf + TW, 0, 256);
    w = post_wait(&a, c.cqn, c.cq_ci + 3, true);
    wr = post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, &ib, TW, L_SRC, 256, true);
    dp_ring(&a);
    quiet(&a, 100);
    DP_CHECK(b.buf[TW] == 0 && b.buf[TW + 255] == 0, "the write after a WAIT ran early");
    /* Meanwhile the device serves other QPs: b writes into a, c completes NOPs. */
    dp_fill(b.buf + L_SRC, 128, 0x19, 0);
    memset(a.buf + TW, 0, 128);
    index = post_rdma(&b, PRM_WQE_OPCODE_RDMA_WRITE, &ia, TW, L_SRC, 128, true);
    dp_ring(&b);
    if (expect(&b, index, PRM_WQE_OPCODE_RDMA_WRITE, 0, "write by another QP during a WAIT"))
        DP_CHECK(dp_check_bytes(a.buf + TW, 128, 0x19, 0), "b's write into a");
    produce(&c, 2); /* 4 of 5 */
    quiet(&a, 50);
    DP_CHECK(b.buf[TW] == 0, "the write after a WAIT ran at CQ index 4 of 5");
    produce(&c, 1); /* 5: the WAIT completes, then the write runs */
    expect(&a, w, PRM_WQE_OPCODE_WAIT, 0, "WAIT");
    if (expect(&a, wr, PRM_WQE_OPCODE_RDMA_WRITE, 0, "write after WAIT"))
        DP_CHECK(dp_check_bytes(b.buf + TW, 256, 0x71, 0), "the write after the WAIT landed");

    /* An index already reached runs at once, modulo 2^24 too: unsignaled WAITs, then a NOP. */
    post_wait(&a, c.cqn, c.cq_ci, false);
    post_wait(&a, c.cqn, (c.cq_ci - 7) & 0xffffff, false);        /* 0xfffffe: 7 before, wrapped */
    post_wait(&a, c.cqn, (c.cq_ci + 0x800001) & 0xffffff, false); /* 2^23 - 1 behind */
    index = post_nop(&a, true);
    dp_ring(&a);
    expect(&a, index, PRM_WQE_OPCODE_NOP, 0, "NOP after WAITs already satisfied");

    /* WAIT on the QP's own CQ: released by the completion of the write before it. */
    memset(b.buf + TW, 0, 512);
    dp_fill(a.buf + L_SRC, 512, 0x2c, 0);
    wr = post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, &ib, TW, L_SRC, 256, true);
    w = post_wait(&a, a.cqn, a.cq_ci + 1, true);
    index = post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, &ib, TW + 256, L_SRC + 256, 256, true);
    dp_ring(&a);
    expect(&a, wr, PRM_WQE_OPCODE_RDMA_WRITE, 0, "write before a WAIT on its own CQ");
    expect(&a, w, PRM_WQE_OPCODE_WAIT, 0, "WAIT on its own CQ");
    if (expect(&a, index, PRM_WQE_OPCODE_RDMA_WRITE, 0, "write after a WAIT on its own CQ"))
        DP_CHECK(dp_check_bytes(b.buf + TW, 512, 0x2c, 0), "writes around a WAIT on own CQ");

    /* A stalled WAIT and the write behind it are flushed when the QP enters ERR. */
    memset(b.buf + TW, 0, 64);
    w = post_wait(&a, c.cqn, c.cq_ci + 100, true);
    wr = post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, &ib, TW, L_SRC, 64, true);
    dp_ring(&a);
    quiet(&a, 50);
    {
        uint8_t in[PRM_2ERR_QP_IN_SIZE] = {0}, status = 0;

        DP_CHECK(dt_qp_cmd(a.qp, PRM_CMD_2ERR_QP, a.qpn, in, sizeof(in), &status) == 0,
                 "2ERR: status 0x%x", status);
    }
    expect(&a, w, PRM_WQE_OPCODE_WAIT, PRM_CQE_SYNDROME_WR_FLUSH_ERR, "stalled WAIT flushed");
    expect(&a, wr, PRM_WQE_OPCODE_RDMA_WRITE, PRM_CQE_SYNDROME_WR_FLUSH_ERR,
           "write behind a stalled WAIT flushed");
    pause_ms(20);
    DP_CHECK(b.buf[TW] == 0, "a flushed write landed");
    pair_free(&a, &b);

    /* A WAIT on a CQ the device does not have: a local QP operation error. */
    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
    } else {
        w = post_wait(&a, c.cqn + 1000, 1, false);
        wr = post_nop(&a, true);
        dp_ring(&a);
        expect(&a, w, PRM_WQE_OPCODE_WAIT, PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR, "WAIT on no CQ");
        expect(&a, wr, PRM_WQE_OPCODE_NOP, PRM_CQE_SYNDROME_WR_FLUSH_ERR, "NOP after it");
        pair_free(&a, &b);
    }
    dp_qp_destroy(&c);
}

/* --- DUMP and NOP --------------------------------------------------------------------- */

static uint32_t post_dump(struct dp_qp *q, uint32_t lkey, uint64_t addr, uint32_t len,
                          bool signaled)
{
    uint8_t wqe[64] = {0};

    prm_wqe_set_data_seg((void *)(wqe + 16), len, lkey, addr);
    return post(q, wqe, PRM_WQE_OPCODE_DUMP, 0, PRM_WQE_DS_SEND, signaled);
}

static void test_dump_nop(void)
{
    struct dp_qp a, b;
    struct dp_info ib;
    uint32_t rd, d, n1, n2, wr;
    uint8_t before[300];

    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
        return;
    }
    dp_info_of(&b, &ib);
    /* Behind a large read, a DUMP and NOPs complete after it, in order. */
    dp_fill(b.buf + TREAD, 200000, 0x4e, 0);
    memset(a.buf + L_READ, 0, 200000);
    dp_fill(a.buf + L_SRC, 300, 0x66, 0);
    memcpy(before, a.buf + L_SRC, sizeof(before));
    rd = post_rdma(&a, PRM_WQE_OPCODE_RDMA_READ, &ib, TREAD, L_READ, 200000, true);
    d = post_dump(&a, a.mr->lkey, (uintptr_t)a.buf + L_SRC, 300, true);
    n1 = post_nop(&a, false);
    n2 = post_nop(&a, true);
    dp_ring(&a);
    if (expect_bytes(&a, rd, PRM_WQE_OPCODE_RDMA_READ, 200000, "read before DUMP"))
        DP_CHECK(dp_check_bytes(a.buf + L_READ, 200000, 0x4e, 0), "the read's data");
    expect_bytes(&a, d, PRM_WQE_OPCODE_DUMP, 300, "DUMP");
    expect(&a, n2, PRM_WQE_OPCODE_NOP, 0, "signaled NOP after an unsignaled one");
    quiet(&a, 20);
    DP_CHECK(memcmp(before, a.buf + L_SRC, sizeof(before)) == 0, "DUMP changed its buffer");
    (void)n1;

    /* An unsignaled write then a signaled NOP: one CQE, the NOP's, once the write landed. */
    memset(b.buf + TW, 0, 1000);
    dp_fill(a.buf + L_SRC, 1000, 0x3b, 0);
    wr = post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, &ib, TW, L_SRC, 1000, false);
    n1 = post_nop(&a, true);
    dp_ring(&a);
    if (expect(&a, n1, PRM_WQE_OPCODE_NOP, 0, "NOP after an unsignaled write"))
        DP_CHECK(dp_check_bytes(b.buf + TW, 1000, 0x3b, 0),
                 "the write before the NOP landed by its CQE");
    (void)wr;
    /* Two signaled NOPs and an unsignaled DUMP between them. */
    n1 = post_nop(&a, true);
    post_dump(&a, a.mr->lkey, (uintptr_t)a.buf, 64, false);
    n2 = post_nop(&a, true);
    dp_ring(&a);
    expect(&a, n1, PRM_WQE_OPCODE_NOP, 0, "first NOP");
    expect(&a, n2, PRM_WQE_OPCODE_NOP, 0, "second NOP");
    quiet(&a, 20);
    pair_free(&a, &b);

    /* A DUMP through a key that does not exist: local protection error, the rest flushed. */
    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
        return;
    }
    n1 = post_nop(&a, true);
    /* Index bits far beyond the device's 2^16 keys: no such key. */
    d = post_dump(&a, a.mr->lkey ^ 0x00800000u, (uintptr_t)a.buf, 64, true);
    n2 = post_nop(&a, true);
    dp_ring(&a);
    expect(&a, n1, PRM_WQE_OPCODE_NOP, 0, "NOP before a bad DUMP");
    expect(&a, d, PRM_WQE_OPCODE_DUMP, PRM_CQE_SYNDROME_LOCAL_PROT_ERR, "DUMP with a bad lkey");
    expect(&a, n2, PRM_WQE_OPCODE_NOP, PRM_CQE_SYNDROME_WR_FLUSH_ERR, "NOP after a bad DUMP");
    pair_free(&a, &b);

    /* A DUMP past the end of its registration. */
    if (!pair_make(&a, &b)) {
        DP_CHECK(false, "pair");
        return;
    }
    d = post_dump(&a, a.mr->lkey, (uintptr_t)a.buf + DP_BUF_SIZE - 16, 64, false);
    dp_ring(&a);
    expect(&a, d, PRM_WQE_OPCODE_DUMP, PRM_CQE_SYNDROME_LOCAL_PROT_ERR, "DUMP out of bounds");
    pair_free(&a, &b);
}

int main(int argc, char **argv)
{
    bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;

    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    mem = &dp_host_mem;
    if (gpu) {
        const char *why = NULL;

        mem = dp_gpu_mem(&why);
        if (mem == NULL) {
            printf("skipped: no CUDA device (%s)\n", why);
            return DT_SKIP;
        }
    }
    dp_open(&dev);
    test_masked_atomics();
    test_masked_atomic_errors();
    test_wait();
    test_dump_nop();
    dp_close(&dev);
    return dp_summary(gpu ? "test_devx_ops gpu" : "test_devx_ops");
}
