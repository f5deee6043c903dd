/* SPDX-License-Identifier: BSD-3-Clause */
/* The data-path fuzz targets' shared set-up (softmlx5_harness.h). */
#include "softmlx5_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "abi/verbs_int.h"
#include "engine/engine.h"
#include "prm/prm_qp.h"

void sm5h_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "softmlx5 fuzz: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}

/* Tolerated findings by id, and how often each was seen (summed up at exit). */
static struct {
    const char *id;
    unsigned long count;
} sm5h_seen[16];
static pthread_mutex_t sm5h_seen_lock = PTHREAD_MUTEX_INITIALIZER;

static void sm5h_seen_report(void)
{
    for (size_t i = 0; i < sizeof(sm5h_seen) / sizeof(sm5h_seen[0]) && sm5h_seen[i].id; i++)
        fprintf(stderr, "softmlx5 fuzz: finding [%s] tolerated %lu times\n", sm5h_seen[i].id,
                sm5h_seen[i].count);
}

bool sm5h_finding(const char *id, const char *fmt, ...)
{
    const char *list = getenv("SOFTMLX5_FUZZ_TOLERATE");
    size_t n = strlen(id), i;
    unsigned long count = 0;
    va_list ap;
    bool known = false;

    for (const char *p = list; p != NULL && *p != '\0'; p += strcspn(p, ", ")) {
        p += strspn(p, ", ");
        if (strncmp(p, id, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
            known = true;
    }
    if (known) {
        pthread_mutex_lock(&sm5h_seen_lock);
        for (i = 0; i < sizeof(sm5h_seen) / sizeof(sm5h_seen[0]); i++) {
            if (sm5h_seen[i].id == NULL) {
                if (i == 0)
                    atexit(sm5h_seen_report);
                sm5h_seen[i].id = id;
            }
            if (strcmp(sm5h_seen[i].id, id) == 0) {
                count = sm5h_seen[i].count++;
                break;
            }
        }
        pthread_mutex_unlock(&sm5h_seen_lock);
        if (count > 0)
            return false;
    }
    fprintf(stderr, "softmlx5 fuzz: [%s] ", id);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", known ? " (tolerated: SOFTMLX5_FUZZ_TOLERATE)" : "");
    if (!known)
        abort();
    return false;
}

int sm5h_open(struct sm5h_dev *dev, unsigned int retry_ms)
{
    struct ibv_device **list;
    char retry[16];
    int n;

    memset(dev, 0, sizeof(*dev));
    /* The same numbers on every run (endpoint 1), and no one else's endpoints within reach. */
    if (unshare(CLONE_NEWNET) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        fprintf(stderr, "skipped: no network namespace of our own (unshare: %s)\n",
                strerror(errno));
        return 77;
    }
    snprintf(retry, sizeof(retry), "%u", retry_ms);
    setenv("SOFTMLX5_DEVICES", "1", 1);
    setenv("SOFTMLX5_ADDR", "127.0.0.1", 1);
    setenv("SOFTMLX5_LINK", "eth", 1);
    setenv("SOFTMLX5_RETRY_TIMEOUT_MS", retry, 1);
    setenv("SOFTMLX5_SINGLE_COPY", "1", 1);
    unsetenv("SOFTMLX5_NO_DBR");
    setenv("SOFTMLX5_LOG", "0", 0);
    list = ibv_get_device_list(&n);
    if (list == NULL || n < 1)
        sm5h_die("softmlx5 offers no device");
    dev->ctx = ibv_open_device(list[0]);
    if (dev->ctx == NULL)
        sm5h_die("ibv_open_device: %s", strerror(errno));
    ibv_free_device_list(list);
    dev->nic = emu_nic_of(dev->ctx->device);
    dev->pd = ibv_alloc_pd(dev->ctx);
    if (dev->pd == NULL || dev->nic->engine == NULL)
        sm5h_die("ibv_alloc_pd: %s", strerror(errno));
    return 0;
}

struct ibv_mr *sm5h_mr(struct sm5h_dev *dev, size_t len, uint64_t iova, int access, void **buf)
{
    struct ibv_mr *mr;
    void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (mem == MAP_FAILED)
        sm5h_die("mmap of %zu bytes: %s", len, strerror(errno));
    mr = ibv_reg_mr_iova(dev->pd, mem, len, iova, access);
    if (mr == NULL)
        sm5h_die("ibv_reg_mr_iova: %s", strerror(errno));
    *buf = mem;
    return mr;
}

struct ibv_cq *sm5h_cq(struct sm5h_dev *dev, int cqe)
{
    struct ibv_cq *cq = ibv_create_cq(dev->ctx, cqe, NULL, NULL, 0);

    if (cq == NULL)
        sm5h_die("ibv_create_cq(%d): %s", cqe, strerror(errno));
    return cq;
}

struct ibv_qp *sm5h_qp(struct sm5h_dev *dev, struct ibv_cq *cq, uint32_t send_wr, uint32_t recv_wr,
                       uint32_t sge, uint32_t inline_data)
{
    struct ibv_qp_init_attr a = {
            .send_cq = cq,
            .recv_cq = cq,
            .cap = {.max_send_wr = send_wr,
                    .max_recv_wr = recv_wr,
                    .max_send_sge = sge,
                    .max_recv_sge = sge,
                    .max_inline_data = inline_data},
            .qp_type = IBV_QPT_RC,
    };
    struct ibv_qp *qp = ibv_create_qp(dev->pd, &a);

    if (qp == NULL)
        sm5h_die("ibv_create_qp: %s", strerror(errno));
    return qp;
}

uint8_t sm5h_qp_state(struct ibv_qp *ibqp)
{
    struct emu_qp *qp = sm5h_emu_qp(ibqp);
    uint8_t s;

    pthread_mutex_lock(&qp->lock);
    s = qp->state;
    pthread_mutex_unlock(&qp->lock);
    return s;
}

static void sm5h_gid(union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    gid->raw[10] = 0xff;
    gid->raw[11] = 0xff;
    gid->raw[12] = (uint8_t)(SM5H_IPV4 >> 24);
    gid->raw[13] = (uint8_t)(SM5H_IPV4 >> 16);
    gid->raw[14] = (uint8_t)(SM5H_IPV4 >> 8);
    gid->raw[15] = (uint8_t)SM5H_IPV4;
}

int sm5h_qp_up(struct ibv_qp *qp, const struct sm5h_conn *c, const char **step)
{
    struct ibv_qp_attr a;
    const char *dummy;
    int err;

    if (step == NULL)
        step = &dummy;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                        IBV_ACCESS_REMOTE_ATOMIC;
    *step = "INIT";
    err = ibv_modify_qp(qp, &a,
                        IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (err != 0)
        return err;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_4096;
    a.dest_qp_num = c->remote_qpn;
    a.rq_psn = c->rq_psn;
    a.max_dest_rd_atomic = 16;
    a.min_rnr_timer = c->min_rnr_timer;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.hop_limit = 64;
    sm5h_gid(&a.ah_attr.grh.dgid);
    *step = "RTR";
    err = ibv_modify_qp(qp, &a,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (err != 0)
        return err;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = c->sq_psn;
    a.timeout = c->timeout;
    a.retry_cnt = c->retry_cnt;
    a.rnr_retry = c->rnr_retry;
    a.max_rd_atomic = c->max_rd_atomic;
    *step = "RTS";
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int sm5h_qp_to(struct ibv_qp *qp, enum ibv_qp_state to)
{
    struct ibv_qp_attr a;
    uint8_t want = to == IBV_QPS_RESET ? PRM_QP_STATE_RST : PRM_QP_STATE_ERR;

    if (sm5h_qp_state(qp) == want)
        return 0;
    memset(&a, 0, sizeof(a));
    a.qp_state = to;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

void sm5h_emu_attr(const struct sm5h_conn *c, struct emu_qp_attr *a)
{
    union ibv_gid gid;

    sm5h_gid(&gid);
    memset(a, 0, sizeof(*a));
    a->port = 1;
    a->remote_read = a->remote_write = a->remote_atomic = true;
    a->remote_qpn = c->remote_qpn;
    a->rq_psn = c->rq_psn & 0xffffff;
    a->path_mtu = IBV_MTU_4096;
    a->grh = true;
    memcpy(a->rgid, gid.raw, sizeof(a->rgid));
    a->hop_limit = 64;
    a->min_rnr_timer = c->min_rnr_timer;
    a->max_dest_rd_atomic = 16;
    a->sq_psn = c->sq_psn & 0xffffff;
    a->ack_timeout = c->timeout;
    a->retry_count = c->retry_cnt;
    a->rnr_retry = c->rnr_retry;
    a->max_rd_atomic = c->max_rd_atomic;
}

void sm5h_sw_reset(struct ibv_qp *ibqp)
{
    struct emu_qp *qp = sm5h_emu_qp(ibqp);

    pthread_mutex_lock(&qp->post_lock);
    emu_verbs_cq_clean(qp->p.send_cq, qp->qpn);
    if (qp->p.recv_cq != qp->p.send_cq)
        emu_verbs_cq_clean(qp->p.recv_cq, qp->qpn);
    qp->sq_producer = qp->sq_tail = 0;
    qp->rq_producer = qp->rq_tail = 0;
    memset((void *)qp->p.dbrec, 0, 8);
    pthread_mutex_unlock(&qp->post_lock);
}

int sm5h_emu_up(struct ibv_qp *ibqp, const struct sm5h_conn *c)
{
    static const uint8_t path[] = {PRM_QP_STATE_RST, PRM_QP_STATE_INIT, PRM_QP_STATE_RTR,
                                   PRM_QP_STATE_RTS};
    struct emu_qp *qp = sm5h_emu_qp(ibqp);
    struct emu_qp_attr a;
    int err;

    sm5h_emu_attr(c, &a);
    for (size_t i = 0; i + 1 < sizeof(path); i++) {
        err = emu_engine_qp_modify(qp, path[i], path[i + 1], &a);
        if (err != 0)
            return err;
    }
    return 0;
}

int sm5h_drain_cq(struct ibv_cq *cq, void (*count)(const struct ibv_wc *wc, void *arg), void *arg)
{
    struct ibv_wc wc[32];
    int total = 0, n;

    while ((n = ibv_poll_cq(cq, 32, wc)) > 0) {
        for (int i = 0; i < n; i++)
            if (count != NULL)
                count(&wc[i], arg);
        total += n;
    }
    if (n < 0)
        sm5h_die("ibv_poll_cq: %d", n);
    return total;
}

uint64_t sm5h_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t sm5h_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sm5h_sleep_us(unsigned int us)
{
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void sm5h_write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

void sm5h_log(const char *fmt, ...)
{
    static int verbose = -1;
    va_list ap;

    if (verbose < 0)
        verbose = getenv("SOFTMLX5_FUZZ_VERBOSE") != NULL;
    if (!verbose)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void sm5h_seed_put(struct sm5h_seed *s, const void *p, size_t n)
{
    if (s->len + n > sizeof(s->bytes))
        sm5h_die("seed %s: too long", s->name);
    memcpy(s->bytes + s->len, p, n);
    s->len += n;
}

void sm5h_seed_u8(struct sm5h_seed *s, uint8_t v)
{
    sm5h_seed_put(s, &v, 1);
}

void sm5h_write_seeds(const struct sm5h_target *t, const char *dir, const struct sm5h_seed *seeds,
                      int n)
{
    for (int i = 0; i < n; i++) {
        const struct sm5h_seed *s = &seeds[i];

        sm5h_log("seed %s:\n", s->name);
        t->run(s->bytes, s->len);
        if ((s->ok_send >= 0 && *t->ok_send != s->ok_send) ||
            (s->ok_recv >= 0 && *t->ok_recv != s->ok_recv)) {
            fprintf(stderr,
                    "seed %s: %d successful send and %d receive completions, expected %d and "
                    "%d\n",
                    s->name, *t->ok_send, *t->ok_recv, s->ok_send, s->ok_recv);
            if (!t->lax || getenv("SOFTMLX5_FUZZ_SEEDS_LAX") == NULL)
                exit(1);
        }
        sm5h_write_file(dir, s->name, s->bytes, s->len);
    }
    printf("%s: %d seeds written to %s\n", t->name, n, dir);
    exit(0);
}
