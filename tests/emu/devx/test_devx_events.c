/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DevX completion events, as DOCA's open-source code uses them: an event
 * channel (OMIT_EV_DATA, non-blocking), a DevX CQ subscribed to event 0,
 * armed through its doorbell record and the UAR's CQ doorbell (0x20) or
 * by cqc.st at creation; events read with mlx5dv_devx_get_event. Errors
 * CQEs come from a QP moved to ERR (a flushed write), successful ones from
 * an RDMA write to a peer QP of the same device. CQ error events (type 4)
 * from a CQ overrun.
 */
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "devx_dp.h"
#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "prm/prm_qp.h"

#define LOG_CQ     4
#define LOG_SQ     5
#define LOG_RQ     2
#define TIMEOUT_MS 3000
#define QUIET_MS   200 /* how long "no event" is watched for */
#define EQE_SIZE   64

/* PRM cqc.st */
#define ST_NOT_ARMED     0x0
#define ST_SOLICITED_ARM 0x6
#define ST_ARMED         0x9
#define ST_FIRED         0xa

#define COOKIE 0x5eed0000c0ffee01ull

static struct dp_dev dev;

struct fx {
    struct dp_qp a, b;
    struct dp_info ia, ib;
    bool a_live;
    struct mlx5dv_devx_event_channel *ch;
    uint32_t sn; /* the arm sequence number, bumped per event received (as rdma-core does) */
};

static int fx_make(void **state, uint32_t cq_st, uint32_t channel_flags)
{
    struct fx *f = calloc(1, sizeof(*f));

    if (f == NULL ||
        dp_qp_create_st(&dev, &dp_host_mem, &f->a, LOG_CQ, LOG_SQ, LOG_RQ, false, cq_st) != 0 ||
        dp_qp_create(&dev, &dp_host_mem, &f->b, LOG_CQ, LOG_SQ, LOG_RQ, false) != 0)
        return -1;
    f->a_live = true;
    dp_info_of(&f->a, &f->ia);
    dp_info_of(&f->b, &f->ib);
    if (dp_qp_connect(&f->a, &f->ib) != 0 || dp_qp_connect(&f->b, &f->ia) != 0)
        return -1;
    f->ch = mlx5dv_devx_create_event_channel(dev.ctx, channel_flags);
    if (f->ch == NULL || fcntl(f->ch->fd, F_SETFL, O_NONBLOCK) != 0)
        return -1;
    *state = f;
    return 0;
}

static int fx_setup(void **state)
{
    return fx_make(state, ST_NOT_ARMED, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
}

static int fx_setup_st_armed(void **state)
{
    return fx_make(state, ST_ARMED, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
}

static int fx_setup_st_solicited(void **state)
{
    return fx_make(state, ST_SOLICITED_ARM, MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
}

static int fx_setup_with_data(void **state)
{
    return fx_make(state, ST_NOT_ARMED, 0);
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    if (f->ch != NULL)
        mlx5dv_devx_destroy_event_channel(f->ch);
    if (f->a_live)
        dp_qp_destroy(&f->a);
    dp_qp_destroy(&f->b);
    free(f);
    return 0;
}

static void subscribe(struct fx *f, uint64_t cookie)
{
    uint16_t ev = 0; /* MLX5_EVENT_TYPE_COMP */

    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(ev), &ev, cookie), 0);
}

/* Arms a's CQ as DOCA does: the record's arm word, then the 64-bit UAR doorbell at 0x20. */
static void arm_at(struct fx *f, uint32_t cmd, uint32_t ci)
{
    uint32_t word = (f->sn & 3) << 28 | cmd | (ci & 0xffffff);
    uint32_t be = htobe32(word);
    uint64_t db = htobe64((uint64_t)word << 32 | f->a.cqn);

    f->a.mem->write(f->a.ring + f->a.cq_dbr_off + 4, &be, sizeof(be));
    __atomic_store_n((uint64_t *)((uint8_t *)f->a.uar->base_addr + MLX5_CQ_DOORBELL), db,
                     __ATOMIC_RELEASE);
}

static void arm(struct fx *f, uint32_t cmd)
{
    arm_at(f, cmd, f->a.cq_ci);
}

/* cqc.st of a's CQ, from QUERY_CQ. */
static uint32_t cq_st(struct fx *f)
{
    uint8_t in[PRM_QUERY_CQ_IN_SIZE] = {0}, out[PRM_QUERY_CQ_OUT_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_CQ);
    PRM_SET(in, PRM_QUERY_CQ_IN_CQN, f->a.cqn);
    assert_int_equal(mlx5dv_devx_obj_query(f->a.cq, in, sizeof(in), out, sizeof(out)), 0);
    return (uint32_t)PRM_GET(PRM_AT(out, PRM_QUERY_CQ_OUT_CQC), PRM_CQC_ST);
}

/* The device took the arm (its loop reads the UAR asynchronously). */
static void wait_st(struct fx *f, uint32_t st)
{
    for (int i = 0; i < TIMEOUT_MS && cq_st(f) != st; i++)
        usleep(1000);
    assert_int_equal(cq_st(f), st);
}

/* The next event within ms: 1 and its cookie, or 0. */
static int next_event(struct fx *f, int ms, uint64_t *cookie)
{
    struct pollfd p = {.fd = f->ch->fd, .events = POLLIN};
    struct mlx5dv_devx_async_event_hdr hdr;

    if (poll(&p, 1, ms) != 1)
        return 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, &hdr, sizeof(hdr)), sizeof(hdr));
    *cookie = hdr.cookie;
    f->sn++;
    return 1;
}

static void expect_event(struct fx *f)
{
    uint64_t cookie = 0;

    assert_int_equal(next_event(f, TIMEOUT_MS, &cookie), 1);
    assert_true(cookie == COOKIE);
}

static void expect_no_event(struct fx *f)
{
    uint64_t cookie;

    assert_int_equal(next_event(f, QUIET_MS, &cookie), 0);
}

/* A signalled 64-byte RDMA write from a to b. */
static struct dp_wqe write_wqe(const struct fx *f)
{
    return (struct dp_wqe){.opcode = PRM_WQE_OPCODE_RDMA_WRITE,
                           .signaled = true,
                           .raddr = f->ib.addr,
                           .rkey = f->ib.rkey,
                           .len = 64,
                           .laddr = (uintptr_t)f->a.buf};
}

/* The write, completed successfully. */
static void write_ok(struct fx *f)
{
    struct dp_wqe w = write_wqe(f);
    struct prm_cqe64 cqe;

    dp_post(&f->a, &w);
    dp_ring(&f->a);
    assert_int_equal(dp_poll(&f->a, &cqe, TIMEOUT_MS), 1);
    assert_int_equal(prm_cqe_opcode(&cqe), PRM_CQE_OPCODE_REQ);
}

/* An error CQE on a's CQ: a into ERR, a write flushed. */
static void error_cqe(struct fx *f)
{
    uint8_t in[PRM_2ERR_QP_IN_SIZE] = {0}, status = 0;
    struct dp_wqe w = write_wqe(f);
    struct prm_cqe64 cqe;

    assert_int_equal(dt_qp_cmd(f->a.qp, PRM_CMD_2ERR_QP, f->a.qpn, in, sizeof(in), &status), 0);
    dp_post(&f->a, &w);
    dp_ring(&f->a);
    assert_int_equal(dp_poll(&f->a, &cqe, TIMEOUT_MS), 1);
    assert_int_equal(prm_cqe_opcode(&cqe), PRM_CQE_OPCODE_REQ_ERR);
}

/* No event before the CQ is armed; the non-blocking channel answers EAGAIN. */
static void test_no_event_unarmed(void **state)
{
    struct fx *f = *state;
    struct mlx5dv_devx_async_event_hdr hdr;

    subscribe(f, COOKIE);
    assert_int_equal(cq_st(f), ST_NOT_ARMED);
    error_cqe(f);
    expect_no_event(f);
    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, &hdr, sizeof(hdr)), -1);
    assert_int_equal(errno, EAGAIN);
}

/* A solicited-only arm fires on an error CQE, once: the next error needs a new arm. */
static void test_solicited_arm_error(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT_SOL);
    wait_st(f, ST_SOLICITED_ARM);
    error_cqe(f);
    expect_event(f);
    assert_int_equal(cq_st(f), ST_FIRED);
    expect_no_event(f);
}

/* A successful CQE does not fire a solicited-only arm; a plain arm fires on it, once per arm. */
static void test_plain_arm_success(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT_SOL);
    wait_st(f, ST_SOLICITED_ARM);
    write_ok(f);
    expect_no_event(f);
    assert_int_equal(cq_st(f), ST_SOLICITED_ARM);

    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    expect_event(f);
    write_ok(f);
    expect_no_event(f);

    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    expect_event(f);
}

/* Arming with a consumer index behind CQEs already written fires at once. */
static void test_arm_behind_fires(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    write_ok(f);
    arm_at(f, MLX5_CQ_DB_REQ_NOT, f->a.cq_ci - 1);
    expect_event(f);
    /* The solicited-only arm ignores that successful CQE but not an error one. */
    arm_at(f, MLX5_CQ_DB_REQ_NOT_SOL, f->a.cq_ci - 1);
    wait_st(f, ST_SOLICITED_ARM);
    expect_no_event(f);
    error_cqe(f);
    expect_event(f);
    /* Behind that error CQE again: the event announced it already, none fires. */
    arm_at(f, MLX5_CQ_DB_REQ_NOT_SOL, f->a.cq_ci - 1);
    wait_st(f, ST_SOLICITED_ARM);
    expect_no_event(f);
}

/*
 * Only CQEs no event announced fire at the arm: a consumer that re-arms from
 * the event before it polls (perftest's -e) gets one event per CQE, and one
 * that polls, then arms (NAPI) still hears of the CQE that came in between.
 */
static void test_arm_fires_for_unannounced_only(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    expect_event(f);
    arm_at(f, MLX5_CQ_DB_REQ_NOT, f->a.cq_ci - 1); /* behind the announced CQE */
    wait_st(f, ST_ARMED);
    expect_no_event(f);
    write_ok(f); /* announced by this arm's event */
    expect_event(f);
    write_ok(f); /* written while fired, not armed: announced by nothing yet */
    expect_no_event(f);
    arm_at(f, MLX5_CQ_DB_REQ_NOT, f->a.cq_ci - 1);
    expect_event(f);
}

/* cqc.st = armed at CREATE_CQ: the first CQE fires without a doorbell. */
static void test_st_armed_at_create(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    assert_int_equal(cq_st(f), ST_ARMED);
    write_ok(f);
    expect_event(f);
    assert_int_equal(cq_st(f), ST_FIRED);
}

/* cqc.st = solicited armed at CREATE_CQ: a success does not fire it, an error does. */
static void test_st_solicited_at_create(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    assert_int_equal(cq_st(f), ST_SOLICITED_ARM);
    write_ok(f);
    expect_no_event(f);
    error_cqe(f);
    expect_event(f);
}

/* A cqc.st that is no PRM state is refused with BAD_PARAM. */
static void test_st_invalid(void **state)
{
    struct fx *f = *state;
    static uint8_t in[PRM_CREATE_CQ_IN_SIZE];
    uint8_t out[0x10] = {0};

    dt_build_create_cq(in, &(struct dt_cq_args){.log_size = LOG_CQ,
                                                .uar_page = f->a.uar->page_id,
                                                .umem_id = f->a.umem->umem_id,
                                                .dbr_umem_id = f->a.umem->umem_id,
                                                .dbr_offset = f->a.cq_dbr_off});
    PRM_SET(PRM_AT(in, PRM_CREATE_CQ_IN_CQC), PRM_CQC_ST, 0x3);
    assert_null(mlx5dv_devx_obj_create(dev.ctx, in, sizeof(in), out, sizeof(out)));
    assert_int_equal(dt_status(out), PRM_CMD_STAT_BAD_PARAM);
}

/*
 * Two CQs on one UAR page: a doorbell of a's overwrote the other's before the
 * device read it. The other CQ's arm is found in its doorbell record.
 */
static void test_overwritten_doorbell(void **state)
{
    struct fx *f = *state;
    static uint8_t in[PRM_CREATE_CQ_IN_SIZE];
    uint8_t qin[PRM_QUERY_CQ_IN_SIZE] = {0}, qout[PRM_QUERY_CQ_OUT_SIZE] = {0}, out[0x10] = {0};
    uint8_t *mem = aligned_alloc(4096, 8192);
    struct mlx5dv_devx_umem *umem;
    struct mlx5dv_devx_obj *cq2;
    uint32_t cqn2, arm_be = htobe32(1u << 28 | MLX5_CQ_DB_REQ_NOT); /* sn 1, any CQE, index 0 */
    uint32_t st = 0;

    assert_non_null(mem);
    memset(mem, 0, 8192);
    umem = mlx5dv_devx_umem_reg(dev.ctx, mem, 8192, IBV_ACCESS_LOCAL_WRITE);
    assert_non_null(umem);
    dt_build_create_cq(in, &(struct dt_cq_args){.log_size = LOG_CQ,
                                                .uar_page = f->a.uar->page_id,
                                                .umem_id = umem->umem_id,
                                                .dbr_umem_id = umem->umem_id,
                                                .dbr_offset = 4096});
    cq2 = mlx5dv_devx_obj_create(dev.ctx, in, sizeof(in), out, sizeof(out));
    assert_non_null(cq2);
    cqn2 = (uint32_t)prm_get_field(out, 0x08, 0, 24);
    /* The second CQ's arm word is written; its doorbell never lands, a's does. */
    __atomic_store_n((uint32_t *)(mem + 4096 + 4), arm_be, __ATOMIC_RELEASE);
    arm(f, MLX5_CQ_DB_REQ_NOT_SOL);
    wait_st(f, ST_SOLICITED_ARM);
    PRM_SET(qin, PRM_CMD_OPCODE, PRM_CMD_QUERY_CQ);
    PRM_SET(qin, PRM_QUERY_CQ_IN_CQN, cqn2);
    assert_int_equal(mlx5dv_devx_obj_query(cq2, qin, sizeof(qin), qout, sizeof(qout)), 0);
    st = (uint32_t)PRM_GET(PRM_AT(qout, PRM_QUERY_CQ_OUT_CQC), PRM_CQC_ST);
    assert_int_equal(st, ST_ARMED);
    assert_int_equal(mlx5dv_devx_obj_destroy(cq2), 0);
    assert_int_equal(mlx5dv_devx_umem_dereg(umem), 0);
    free(mem);
}

/* Without OMIT_EV_DATA an event is the cookie and the completion EQE naming the CQ. */
static void test_event_data(void **state)
{
    struct fx *f = *state;
    uint8_t buf[sizeof(uint64_t) + EQE_SIZE + 16];
    struct mlx5dv_devx_async_event_hdr *hdr = (struct mlx5dv_devx_async_event_hdr *)buf;
    struct pollfd p = {.fd = f->ch->fd, .events = POLLIN};
    uint32_t cqn_be;

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
    memset(buf, 0xff, sizeof(buf));
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(buf)), sizeof(uint64_t) + EQE_SIZE);
    assert_true(hdr->cookie == COOKIE);
    assert_int_equal(hdr->out_data[1], 0); /* event_type: completion */
    memcpy(&cqn_be, hdr->out_data + 56, sizeof(cqn_be));
    assert_int_equal(be32toh(cqn_be) & 0xffffff, f->a.cqn);
    f->sn++;

    /* A buffer shorter than an event is refused and the event stays whole in the channel. */
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(*hdr)), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(buf)), sizeof(uint64_t) + EQE_SIZE);
    assert_true(hdr->cookie == COOKIE);
    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(buf)), -1);
    assert_int_equal(errno, EAGAIN);
}

/*
 * A CQ error (type 4): more completions than the CQ holds, none polled. The
 * event comes unarmed, names the CQ and the overrun syndrome (1), and goes
 * only to subscriptions that asked for it.
 */
static void test_cq_error_event(void **state)
{
    struct fx *f = *state;
    uint8_t buf[sizeof(uint64_t) + EQE_SIZE];
    struct mlx5dv_devx_async_event_hdr *hdr = (struct mlx5dv_devx_async_event_hdr *)buf;
    struct pollfd p = {.fd = f->ch->fd, .events = POLLIN};
    uint16_t err_ev = 4, comp_ev = 0;
    uint64_t count = 0;
    uint32_t cqn_be;
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct dp_wqe w = write_wqe(f);

    assert_int_equal(
            mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(err_ev), &err_ev, COOKIE), 0);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(comp_ev), &comp_ev, 7),
                     0);
    assert_true(efd >= 0);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(f->ch, efd, f->a.cq, err_ev), 0);
    for (int i = 0; i <= 1 << LOG_CQ; i++)
        dp_post(&f->a, &w);
    dp_ring(&f->a);
    assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(buf)), sizeof(buf));
    assert_true(hdr->cookie == COOKIE);
    assert_int_equal(hdr->out_data[1], 4); /* event_type: CQ error */
    memcpy(&cqn_be, hdr->out_data + 32, sizeof(cqn_be));
    assert_int_equal(be32toh(cqn_be) & 0xffffff, f->a.cqn);
    assert_int_equal(hdr->out_data[32 + 11], 1); /* syndrome: overrun */
    p = (struct pollfd){.fd = efd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
    assert_int_equal(read(efd, &count, sizeof(count)), sizeof(count));
    assert_true(count == 1);
    /* One error, and no completion event: the CQ was never armed. */
    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, hdr, sizeof(buf)), -1);
    assert_int_equal(errno, EAGAIN);
    close(efd);
}

/* An eventfd subscription counts one per event; the device keeps its own copy of the fd. */
static void test_event_fd(void **state)
{
    struct fx *f = *state;
    struct pollfd p;
    uint64_t count = 0;
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), pipefd[2];

    assert_true(efd >= 0);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(f->ch, efd, f->a.cq, 0), 0);
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    p = (struct pollfd){.fd = efd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, TIMEOUT_MS), 1);
    assert_int_equal(read(efd, &count, sizeof(count)), sizeof(count));
    assert_true(count == 1);
    /* The program closes its fd: a later event neither fails nor writes to a reused number. */
    close(efd);
    assert_int_equal(pipe2(pipefd, O_NONBLOCK | O_CLOEXEC), 0);
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    assert_int_equal(cq_st(f), ST_FIRED);
    assert_int_equal(read(pipefd[0], &count, sizeof(count)), -1);
    assert_int_equal(errno, EAGAIN);
    /* Not an eventfd: refused. */
    errno = 0;
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(f->ch, pipefd[1], f->a.cq, 0), EINVAL);
    assert_int_equal(errno, EINVAL);
    close(pipefd[0]);
    close(pipefd[1]);
}

/* A channel destroyed with a live subscription: a later event goes nowhere (no stale fd). */
static void test_destroy_channel_subscribed(void **state)
{
    struct fx *f = *state;
    uint64_t v;
    int fds[2];

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT_SOL);
    wait_st(f, ST_SOLICITED_ARM);
    mlx5dv_devx_destroy_event_channel(f->ch);
    f->ch = NULL;
    /* Likely the channel's fd numbers again: nothing may arrive in them. */
    assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
    error_cqe(f);
    assert_int_equal(cq_st(f), ST_FIRED);
    assert_int_equal(read(fds[0], &v, sizeof(v)), -1);
    assert_int_equal(errno, EAGAIN);
    close(fds[0]);
    close(fds[1]);
}

/* A CQ destroyed while subscribed, then its channel: both succeed. */
static void test_destroy_cq_subscribed(void **state)
{
    struct fx *f = *state;

    subscribe(f, COOKIE);
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    dp_qp_destroy(&f->a);
    f->a_live = false;
    expect_no_event(f);
    mlx5dv_devx_destroy_event_channel(f->ch);
    f->ch = NULL;
}

/* Bad arguments fail cleanly with the kernel's errno values. */
static void test_bad_arguments(void **state)
{
    struct fx *f = *state;
    struct mlx5dv_devx_async_event_hdr hdr;
    uint16_t ev = 0, bad = 1, two[2] = {0, 0};

    errno = 0;
    assert_null(mlx5dv_devx_create_event_channel(NULL, 0));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(mlx5dv_devx_create_event_channel(dev.ctx, 0x2));
    assert_int_equal(errno, EINVAL);

    assert_int_equal(mlx5dv_devx_subscribe_devx_event(NULL, f->a.cq, sizeof(ev), &ev, 1), EINVAL);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, NULL, sizeof(ev), &ev, 1), EOPNOTSUPP);
    assert_int_equal(errno, EOPNOTSUPP);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.qp, sizeof(ev), &ev, 1),
                     EOPNOTSUPP);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(bad), &bad, 1),
                     EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, 0, &ev, 1), EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, 3, two, 1), EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(ev), NULL, 1), EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(NULL, 0, f->a.cq, 0), EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(f->ch, -1, f->a.cq, 0), EINVAL);
    assert_int_equal(mlx5dv_devx_subscribe_devx_event_fd(f->ch, 0, f->a.cq, 7), EINVAL);
    /* Two completion types in one call are one subscription, as valid as one. */
    assert_int_equal(mlx5dv_devx_subscribe_devx_event(f->ch, f->a.cq, sizeof(two), two, COOKIE), 0);

    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(NULL, &hdr, sizeof(hdr)), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(mlx5dv_devx_get_event(f->ch, NULL, sizeof(hdr)), -1);
    assert_int_equal(errno, EINVAL);
    mlx5dv_devx_destroy_event_channel(NULL);

    /* The refusals left the CQ's one subscription working. */
    arm(f, MLX5_CQ_DB_REQ_NOT);
    wait_st(f, ST_ARMED);
    write_ok(f);
    expect_event(f);
}

static int group_setup(void **state)
{
    (void)state;
    dp_open(&dev);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    dp_close(&dev);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_no_event_unarmed, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_solicited_arm_error, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_plain_arm_success, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_arm_behind_fires, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_arm_fires_for_unannounced_only, fx_setup,
                                            fx_teardown),
            cmocka_unit_test_setup_teardown(test_st_armed_at_create, fx_setup_st_armed,
                                            fx_teardown),
            cmocka_unit_test_setup_teardown(test_st_solicited_at_create, fx_setup_st_solicited,
                                            fx_teardown),
            cmocka_unit_test_setup_teardown(test_st_invalid, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_overwritten_doorbell, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_event_data, fx_setup_with_data, fx_teardown),
            cmocka_unit_test_setup_teardown(test_event_fd, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_cq_error_event, fx_setup_with_data, fx_teardown),
            cmocka_unit_test_setup_teardown(test_destroy_channel_subscribed, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_destroy_cq_subscribed, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_bad_arguments, fx_setup, fx_teardown),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
