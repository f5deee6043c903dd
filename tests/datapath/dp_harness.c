/* SPDX-License-Identifier: BSD-3-Clause */
#include "dp_harness.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tsan.h"

int dp_failures;

/* What one side tells the other at connect time. */
struct dp_wire {
    uint32_t qpn[2];
    uint64_t addr;
    uint32_t rkey;
    uint16_t lid;
    uint8_t gid[16];
};

/* Asked of the responder once the workload is done. */
struct dp_request {
    uint32_t what;
    uint32_t threads;
    uint32_t counters;
};

static void dp_die(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    exit(1);
}

static void dp_send(int fd, const void *in, size_t len)
{
    if (write(fd, in, len) != (ssize_t)len)
        dp_die("the peer went away");
}

static void dp_recv(int fd, void *out, size_t len)
{
    if (read(fd, out, len) != (ssize_t)len)
        dp_die("the peer went away");
}

/* A plain RC QP and its CQ (overrun ignored) in library-allocated host memory. */
static void dp_plain_qp(struct dp_side *s, int i, const struct dp_cfg *cfg)
{
    doca_verbs_cq_attr_t *ca = NULL;
    doca_verbs_qp_init_attr_t *qa;

    if (doca_verbs_cq_attr_create(&ca) != DOCA_SUCCESS)
        dp_die("CQ attributes");
    doca_verbs_cq_attr_set_cq_size(ca, cfg->collapsed ? 1 : cfg->sq_nwqe);
    doca_verbs_cq_attr_set_cq_overrun(ca, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    doca_verbs_cq_attr_set_cq_collapsed(ca, cfg->collapsed);
    if (doca_verbs_cq_create(s->d.dev, ca, &s->cq[i]) != DOCA_SUCCESS)
        dp_die("CQ create");
    doca_verbs_cq_attr_destroy(ca);
    qa = vt_qp_attr(s->d.dev, s->cq[i], cfg->sq_nwqe, 0);
    doca_verbs_qp_init_attr_set_max_inline_data(qa, DOCA_GPUNETIO_VERBS_MAX_INLINE_SIZE);
    if (cfg->dbr_mode != DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR) {
        doca_verbs_qp_init_attr_set_send_dbr_mode(qa, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT);
        doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(
                qa, cfg->dbr_mode == DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED);
    }
    if (doca_verbs_qp_create(s->d.dev, qa, &s->vqp[i]) != DOCA_SUCCESS)
        dp_die("QP create");
    doca_verbs_qp_init_attr_destroy(qa);
}

/* The requester's QP i as cfg says: high-level (rings in GPU memory) or plain and exported. */
static void dp_requester_qp(struct dp_side *s, int i, const struct dp_cfg *cfg)
{
    if (cfg->use_hl) {
        struct doca_gpu_verbs_qp_init_attr_hl a = {
                .gpu_dev = s->gpu,
                .ibpd = s->d.pd,
                .sq_nwqe = cfg->sq_nwqe,
                .nic_handler = cfg->handler,
                .mreg_type = DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT,
                .send_dbr_mode_ext = cfg->dbr_mode,
                .cq_collapsed = cfg->collapsed,
        };

        if (doca_gpu_verbs_create_qp_hl(&a, &s->hl[i]) != DOCA_SUCCESS)
            dp_die("doca_gpu_verbs_create_qp_hl");
        s->vqp[i] = s->hl[i]->qp;
        s->gqp[i] = s->hl[i]->qp_gverbs;
    } else {
        dp_plain_qp(s, i, cfg);
        if (doca_gpu_verbs_export_qp(s->gpu, s->vqp[i], cfg->handler, NULL, s->cq[i], NULL, NULL,
                                     cfg->dbr_mode, DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false,
                                     &s->gqp[i]) != DOCA_SUCCESS)
            dp_die("doca_gpu_verbs_export_qp");
    }
    if (doca_gpu_verbs_get_qp_dev(s->gqp[i], &s->dev[i]) != DOCA_SUCCESS)
        dp_die("doca_gpu_verbs_get_qp_dev");
}

static void dp_put_be64(uint8_t *p, uint64_t v)
{
    v = htobe64(v);
    memcpy(p, &v, 8);
}

static void dp_put_be32(uint8_t *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, 4);
}

static uint64_t dp_get_be64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return be64toh(v);
}

static uint32_t dp_get_be32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return be32toh(v);
}

/* The responder's initial values: what gets, atomics and signals start from. */
static void dp_responder_init(struct dp_side *s)
{
    for (uint32_t k = 0; k < DP_GET_LEN; k++)
        s->buf[DP_GET_OFF + k] = dp_pattern(40, k);
    dp_put_be32(s->buf + DP_A32_OFF, DP_A32_FA_INIT);
    dp_put_be32(s->buf + DP_A32_OFF + 4, DP_A32_CS_INIT);
    dp_put_be64(s->buf + DP_CS64_OFF, DP_CS64_INIT);
}

void dp_fill_sources(struct dp_side *s)
{
    for (int i = 0; i < DP_NPUTS; i++)
        for (uint64_t k = 0; k < 0x20000u; k++)
            s->buf[DP_PUT_OFF(i) + k] = dp_pattern((uint32_t)i, k);
    for (uint32_t k = 0; k < DP_PUTSIG_LEN; k++)
        s->buf[DP_PUTSIG_OFF + k] = dp_pattern(50, k);
    for (uint32_t k = 0; k < 64; k++)
        s->buf[DP_COUNTER_OFF + 64 + k] = dp_pattern(60, k);
    for (uint32_t t = 0; t < DP_SHARE_MAX_THR; t++)
        for (uint32_t k = 0; k < DP_SHARE_PUTS; k++)
            for (uint32_t j = 0; j < 64; j++)
                s->buf[DP_SHARE_OFF + ((uint64_t)t * DP_SHARE_PUTS + k) * 64 + j] =
                        dp_share_pattern(t, k, j);
}

/* Bytes of [off, off + len) of buf that differ from pattern i (or from the sharing pattern). */
static int dp_count_bad(const uint8_t *buf, uint64_t off, uint64_t len, uint32_t i)
{
    int bad = 0;

    for (uint64_t k = 0; k < len; k++)
        bad += buf[off + k] != dp_pattern(i, k);
    return bad;
}

static void dp_check_ops(const uint8_t *b, bool counters)
{
    const uint32_t sizes[DP_NPUTS] = DP_PUT_SIZES;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;

    for (int i = 0; i < DP_NPUTS; i++) {
        DP_CHECK(dp_count_bad(b, DP_PUT_OFF(i), sizes[i], (uint32_t)i) == 0,
                 "put %d (%u bytes): bytes differ", i, sizes[i]);
        DP_CHECK(b[DP_PUT_OFF(i) + sizes[i]] == 0, "put %d wrote past its %u bytes", i, sizes[i]);
    }
    memcpy(&u8, b + DP_P_OFF, 1);
    memcpy(&u16, b + DP_P_OFF + 8, 2);
    memcpy(&u32, b + DP_P_OFF + 16, 4);
    memcpy(&u64, b + DP_P_OFF + 24, 8);
    DP_CHECK(u8 == DP_P_U8 && u16 == DP_P_U16 && u32 == DP_P_U32 && u64 == DP_P_U64,
             "p(): 0x%x 0x%x 0x%x 0x%llx", u8, u16, u32, (unsigned long long)u64);
    memcpy(&u32, b + DP_PSIG_OFF, 4);
    DP_CHECK(u32 == DP_PSIG_U32, "p_signal() value 0x%x", u32);
    DP_CHECK(dp_count_bad(b, DP_PUTSIG_OFF, DP_PUTSIG_LEN, 50) == 0, "put_signal() data differs");
    DP_CHECK(dp_get_be64(b + DP_SIG_OFF) == DP_SIG_TOTAL, "signal word %llu, expected %u",
             (unsigned long long)dp_get_be64(b + DP_SIG_OFF), DP_SIG_TOTAL);
    DP_CHECK(dp_get_be32(b + DP_A32_OFF) == DP_A32_FA_INIT + DP_A32_FA_ADD,
             "4-byte fetch-add left %u", dp_get_be32(b + DP_A32_OFF));
    DP_CHECK(dp_get_be32(b + DP_A32_OFF + 4) ==
                     ((DP_A32_CS_INIT & ~DP_A32_CS_MASK) | (DP_A32_CS_SWAP & DP_A32_CS_MASK)),
             "4-byte masked compare-swap left 0x%x", dp_get_be32(b + DP_A32_OFF + 4));
    DP_CHECK(dp_get_be64(b + DP_CS64_OFF) == DP_CS64_SWAP, "8-byte compare-swap left %llu",
             (unsigned long long)dp_get_be64(b + DP_CS64_OFF));
    if (!counters)
        return;
    DP_CHECK(dp_get_be64(b + DP_COUNTER_OFF) == DP_COUNTER_TOTAL, "counter %llu, expected %u",
             (unsigned long long)dp_get_be64(b + DP_COUNTER_OFF), DP_COUNTER_TOTAL);
    DP_CHECK(dp_count_bad(b, DP_COUNTER_OFF + 64, 64, 60) == 0, "put_counter() data differs");
    memcpy(&u32, b + DP_COUNTER_OFF + 128, 4);
    DP_CHECK(u32 == DP_P_U32, "p_counter() value 0x%x", u32);
}

/* The requester's side of dp_ops(): values the signals, atomics and gets brought back. */
static void dp_check_returns(const uint8_t *b, bool counters)
{
    const uint64_t adds[4] = DP_SIG_ADDS;
    uint64_t sum = 0;

    for (int i = 0; i < 4; i++) {
        DP_CHECK(dp_get_be64(b + DP_RET_OFF + 8 * i) == sum,
                 "signal %d returned %llu, expected %llu", i,
                 (unsigned long long)dp_get_be64(b + DP_RET_OFF + 8 * i), (unsigned long long)sum);
        sum += adds[i];
    }
    DP_CHECK(dp_get_be32(b + DP_RET_OFF + 32) == DP_A32_FA_INIT, "4-byte fetch-add returned %u",
             dp_get_be32(b + DP_RET_OFF + 32));
    DP_CHECK(dp_get_be32(b + DP_RET_OFF + 40) == DP_A32_CS_INIT,
             "4-byte compare-swap returned 0x%x", dp_get_be32(b + DP_RET_OFF + 40));
    DP_CHECK(dp_get_be64(b + DP_RET_OFF + 48) == DP_CS64_INIT &&
                     dp_get_be64(b + DP_RET_OFF + 56) == DP_CS64_SWAP,
             "8-byte compare-swaps returned %llu and %llu",
             (unsigned long long)dp_get_be64(b + DP_RET_OFF + 48),
             (unsigned long long)dp_get_be64(b + DP_RET_OFF + 56));
    DP_CHECK(dp_count_bad(b, DP_GET_OFF, DP_GET_LEN, 40) == 0, "get() data differs");
    if (counters)
        for (int i = 0; i < 3; i++)
            DP_CHECK(dp_get_be64(b + DP_RET_OFF + 64 + 8 * i) == (uint64_t)i,
                     "counter add %d returned %llu", i,
                     (unsigned long long)dp_get_be64(b + DP_RET_OFF + 64 + 8 * i));
}

/* Signals a workload of `threads` threads adds: one per thread, and one per warp in warp scope. */
static uint32_t dp_signals(enum dp_check what, uint32_t threads)
{
    return threads + (what == DP_CHECK_WARP ? threads / DOCA_GPUNETIO_VERBS_WARP_SIZE : 0);
}

/* Sharing: every thread's puts landed; the signal counted each signal once. */
static void dp_check_share(const uint8_t *b, enum dp_check what, uint32_t threads)
{
    int bad = 0;

    for (uint32_t t = 0; t < threads; t++)
        for (uint32_t k = 0; k < DP_SHARE_PUTS; k++)
            for (uint32_t j = 0; j < 64; j++)
                bad += b[DP_SHARE_OFF + ((uint64_t)t * DP_SHARE_PUTS + k) * 64 + j] !=
                       dp_share_pattern(t, k, j);
    DP_CHECK(bad == 0, "%d bytes of %u threads' puts differ", bad, threads);
    DP_CHECK(dp_get_be64(b + DP_SHARE_SIG_OFF) == dp_signals(what, threads),
             "shared signal %llu, expected %u",
             (unsigned long long)dp_get_be64(b + DP_SHARE_SIG_OFF), dp_signals(what, threads));
}

/* Each signal returned a distinct count below the number of signals. */
static void dp_check_share_returns(const uint8_t *b, enum dp_check what, uint32_t threads)
{
    uint32_t n = dp_signals(what, threads);
    uint8_t seen[DP_SHARE_MAX_THR + DP_SHARE_MAX_THR / DOCA_GPUNETIO_VERBS_WARP_SIZE] = {0};

    for (uint32_t i = 0; i < n; i++) {
        uint32_t slot = i < threads ? i : DP_SHARE_MAX_THR + (i - threads);
        uint64_t v = dp_get_be64(b + DP_SHARE_RET_OFF + 8 * slot);

        DP_CHECK(v < n && !seen[v], "signal %u returned %llu (of %u signals)", i,
                 (unsigned long long)v, n);
        if (v < n)
            seen[v] = 1;
    }
}

static void dp_check_error(const uint8_t *b)
{
    int written = 0;

    for (int k = 0; k < 64; k++)
        written += b[DP_PUT_OFF(3) + k] != 0;
    DP_CHECK(written == 0, "a put with a wrong key wrote %d bytes of the target", written);
}

static void dp_responder(struct dp_side *s)
{
    struct dp_request rq;
    int result;

    dp_recv(s->sock, &rq, sizeof(rq));
    switch (rq.what) {
    case DP_CHECK_OPS:
        dp_check_ops(s->buf, rq.counters != 0);
        break;
    case DP_CHECK_SHARE:
    case DP_CHECK_WARP:
        dp_check_share(s->buf, (enum dp_check)rq.what, rq.threads);
        break;
    default:
        dp_check_error(s->buf);
        break;
    }
    result = dp_failures;
    dp_send(s->sock, &result, sizeof(result));
    for (int i = 0; i < s->nqps; i++) {
        doca_verbs_qp_destroy(s->vqp[i]);
        doca_verbs_cq_destroy(s->cq[i]);
    }
    ibv_dereg_mr(s->mr);
    vt_close(&s->d);
    exit(dp_failures != 0);
}

bool dp_start(struct dp_side *s, const struct dp_cfg *cfg)
{
    struct dp_wire mine, peer;
    int sv[2];
    bool requester;
    char sync = 0;

    memset(s, 0, sizeof(*s));
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        dp_die("socketpair");
    fflush(NULL);
    s->child = fork();
    if (s->child < 0)
        dp_die("fork");
    requester = s->child != 0;
    s->sock = sv[requester ? 0 : 1];
    close(sv[requester ? 1 : 0]);
    vt_open(&s->d);
    if (requester && cfg->gpu_bus_id != NULL &&
        doca_gpu_create(cfg->gpu_bus_id, &s->gpu) != DOCA_SUCCESS)
        dp_die("doca_gpu_create");
    s->buf = aligned_alloc(4096, DP_BUF_SIZE);
    if (s->buf == NULL)
        dp_die("buffer");
    memset(s->buf, 0, DP_BUF_SIZE);
    /* The responder checks its buffer once the requester says it is done (tests/tsan.h). */
    if (!requester)
        DGN_TSAN_PEER_MEMORY(s->buf, DP_BUF_SIZE);
    s->mr = ibv_reg_mr(s->d.pd, s->buf, DP_BUF_SIZE,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                               IBV_ACCESS_REMOTE_ATOMIC);
    if (s->mr == NULL)
        dp_die("ibv_reg_mr");
    s->nqps = cfg->companion ? 2 : 1;
    for (int i = 0; i < s->nqps; i++) {
        if (requester) {
            dp_requester_qp(s, i, cfg);
        } else {
            struct dp_cfg plain = {.sq_nwqe = 64};

            dp_plain_qp(s, i, &plain);
        }
        doca_verbs_qp_get_qpn(s->vqp[i], &mine.qpn[i]);
    }
    if (!requester)
        dp_responder_init(s);
    mine.addr = (uintptr_t)s->buf;
    mine.rkey = s->mr->rkey;
    vt_address(&s->d, &mine.lid, mine.gid);
    dp_send(s->sock, &mine, sizeof(mine));
    dp_recv(s->sock, &peer, sizeof(peer));
    for (int i = 0; i < s->nqps; i++)
        if (vt_connect(&s->d, s->vqp[i], peer.qpn[i], peer.gid, peer.lid) != 0)
            dp_die("connecting the QPs");
    s->peer_addr = peer.addr;
    s->peer_rkey = peer.rkey;
    /* Both sides in RTS before the first request. */
    dp_send(s->sock, &sync, 1);
    dp_recv(s->sock, &sync, 1);
    if (!requester)
        dp_responder(s);
    return true;
}

void dp_plan_of(const struct dp_side *s, struct dp_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->remote = s->peer_addr;
    p->rkey = htobe32(s->peer_rkey);
    p->local = (uintptr_t)s->buf;
    p->lkey = htobe32(s->mr->lkey);
    p->companion = s->nqps > 1 ? s->dev[1] : NULL;
}

int dp_finish(struct dp_side *s, enum dp_check what, uint32_t threads, bool counters)
{
    struct dp_request rq = {.what = what, .threads = threads, .counters = counters};
    int remote = -1, status = 0;

    dp_send(s->sock, &rq, sizeof(rq));
    dp_recv(s->sock, &remote, sizeof(remote));
    DP_CHECK(remote == 0, "the responder found %d failures", remote);
    if (what == DP_CHECK_OPS)
        dp_check_returns(s->buf, counters);
    else if (what == DP_CHECK_SHARE || what == DP_CHECK_WARP)
        dp_check_share_returns(s->buf, what, threads);
    for (int i = 0; i < s->nqps; i++) {
        if (s->hl[i] != NULL) {
            DP_CHECK(doca_gpu_verbs_destroy_qp_hl(s->hl[i]) == DOCA_SUCCESS, "destroy_qp_hl");
            continue;
        }
        DP_CHECK(doca_gpu_verbs_unexport_qp(s->gpu, s->gqp[i]) == DOCA_SUCCESS, "unexport");
        DP_CHECK(doca_verbs_qp_destroy(s->vqp[i]) == DOCA_SUCCESS, "QP destroy");
        DP_CHECK(doca_verbs_cq_destroy(s->cq[i]) == DOCA_SUCCESS, "CQ destroy");
    }
    ibv_dereg_mr(s->mr);
    free(s->buf);
    vt_close(&s->d);
    if (s->gpu != NULL)
        DP_CHECK(doca_gpu_destroy(s->gpu) == DOCA_SUCCESS, "doca_gpu_destroy");
    close(s->sock);
    waitpid(s->child, &status, 0);
    DP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the responder exited with 0x%x",
             status);
    return dp_failures != 0;
}

static void *dp_proxy_main(void *arg)
{
    struct dp_proxy *p = arg;

    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
        for (int i = 0; i < p->n; i++)
            doca_gpu_verbs_cpu_proxy_progress(p->qp[i], NULL);
    return NULL;
}

void dp_proxy_start(struct dp_proxy *p, struct dp_side *s)
{
    enum doca_gpu_dev_verbs_nic_handler h;
    uint8_t on = 0;
    bool emulated;

    memset(p, 0, sizeof(*p));
    doca_gpu_verbs_get_nic_handler(s->gqp[0], &h);
    /* An emulated doorbell record (no-DBR on a QP with a record) is a CPU thread's to write. */
    emulated = h == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR &&
               doca_verbs_qp_get_emulate_no_dbr_ext(s->vqp[0]);
    DP_CHECK(doca_gpu_verbs_cpu_proxy_enabled(s->gqp[0], &on) == DOCA_SUCCESS &&
                     on == ((h & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_CPU_PROXY) != 0 || emulated),
             "cpu_proxy_enabled says %u for handler %d", on, h);
    if (h != DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY && !emulated)
        return;
    for (int i = 0; i < s->nqps; i++)
        p->qp[p->n++] = s->gqp[i];
    if (pthread_create(&p->thread, NULL, dp_proxy_main, p) != 0) {
        DP_CHECK(0, "cannot start the proxy thread");
        p->n = 0;
    }
}

void dp_proxy_stop(struct dp_proxy *p)
{
    if (p->n == 0)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_join(p->thread, NULL);
}
