/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdaki_sink_bench: how fast GPU threads post WQEs through the device data
 * path when no NIC limits them. QP descriptors are filled as export fills
 * them (gdaki_verbs_desc.h): rings, doorbell records and CQs in GPU memory,
 * and the doorbell register a host page mapped for the GPU, as a UAR page
 * would be (one 256-byte register per QP, the BlueFlame stride). Nothing
 * consumes the WQEs.
 *
 * The five cases of the issue, for put, put_signal and get (8 bytes each):
 *   1  one thread, exclusive QP
 *   2  132 x 128 threads, one CTA-shared QP per block
 *   3  the same with GPU-shared QPs
 *   4  132 x 128 threads, one exclusive QP per thread (16,896 QPs)
 *   5  132 x 128 threads, warp scope, one QP per warp
 * Each is timed against its baseline (sink_kernels.cu's bare kernels), in
 * the same run, alternating, best of --reps each. A row per (case, op) goes
 * to the CSV with the machine, GPU, driver and date. After each case every
 * QP is checked: all its WQEs submitted, its doorbell record and register
 * holding its last producer index. Exit status: 0; 1 when a put misses its
 * target; 2 on a usage or CUDA error; 3 when a QP was not rung as posted;
 * 77 without a GPU.
 *
 *   gdaki_sink_bench [--case N] [--op put|put_signal|get] [--handler db|bf|no_dbr]
 *                    [--reps N] [--scale F] [--csv FILE] [--smoke]
 * --smoke: one short repetition of each, checking what every QP was rung
 * with but judging no target (the test suite's run).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gdaki_verbs_desc.h"
#include "gdaki_verbs_sq.h"
#include "prm/mlx5_cqe.h"
#include "sink.h"

#define SINK_BLOCKS       132
#define SINK_THREADS      128
#define SINK_MAX_QPS      (SINK_BLOCKS * SINK_THREADS)
/*
 * Basic blocks per send queue: more than a block's threads can have
 * reserved but not yet written (two rounds of 128 put_signals, 512), so a
 * wrapping ring never has two writes to one slot in flight, as
 * SKIP_AVAILABILITY_CHECK asks of its caller.
 */
#define SINK_WQE_NUM      1024
#define SINK_DB_STRIDE    256 /* bytes between two QPs' doorbell registers */
#define SINK_DBR_STRIDE   64  /* bytes between two QPs' doorbell records (own cache line) */
#define SINK_MKEY_BE      0x11223344u
#define SINK_EXIT_SKIPPED 77

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "gdaki_sink_bench: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

static const char *const op_names[SINK_NUM_OPS] = {"put", "put_signal", "get"};
static const char *const mode_names[SINK_NUM_MODES] = {"exclusive", "cta", "gpu", "warp"};

/* One case of the issue: its shape, its work, and DOCA GPUNetIO 2.0's number and our target. */
struct sink_case {
    int id;
    const char *what;
    uint32_t blocks, threads;
    enum sink_mode mode;
    uint32_t threads_per_qp;
    uint32_t iters; /* per thread, at --scale 1 */
    int per_op_ns;  /* the target is on ns per operation (case 1) rather than WQE/s */
    double doca, target;
};

static const struct sink_case cases[] = {
        {1, "one thread, exclusive QP", 1, 1, SINK_EXCLUSIVE, 1, 100000, 1, 840, 600},
        {2, "132x128, CTA-shared QP per block", SINK_BLOCKS, SINK_THREADS, SINK_CTA, SINK_THREADS,
         1000, 0, 84e6, 130e6},
        {3, "132x128, GPU-shared QP per block", SINK_BLOCKS, SINK_THREADS, SINK_GPU, SINK_THREADS,
         1000, 0, 80e6, 120e6},
        {4, "132x128, exclusive QP per thread", SINK_BLOCKS, SINK_THREADS, SINK_EXCLUSIVE, 1, 2000,
         0, 397e6, 480e6},
        {5, "132x128, warp scope, QP per warp", SINK_BLOCKS, SINK_THREADS, SINK_WARP,
         DOCA_GPUNETIO_VERBS_WARP_SIZE, 20000, 0, 8.8e9, 8.8e9},
};
#define NUM_CASES ((int)(sizeof(cases) / sizeof(cases[0])))

struct options {
    int only_case; /* 0: all */
    int only_op;   /* -1: all */
    uint32_t handler;
    const char *handler_name;
    int reps;
    double scale;
    const char *csv;
    int smoke; /* a quick run that checks the posting, not the speed */
};

/* Everything the kernels post on: SINK_MAX_QPS QPs, each with its own ring, record and register. */
struct sink_qps {
    struct doca_gpu_dev_verbs_qp *host; /* the descriptors as built, for resetting */
    struct doca_gpu_dev_verbs_qp *dev;
    uint8_t *rings, *dbrs, *cqes;
    void *uar;
    struct sink_args args;
};

static void usage(void)
{
    fprintf(stderr, "usage: gdaki_sink_bench [--case 1-5] [--op put|put_signal|get] "
                    "[--handler db|bf|no_dbr] [--reps N] [--scale F] [--csv FILE] [--smoke]\n");
    exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
    *o = (struct options){0, -1, DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB, "db", 5, 1.0, NULL, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(argv[i], "--smoke") == 0) {
            o->smoke = 1;
            o->scale = 0.01;
            o->reps = 1;
            continue;
        }
        if (v == NULL)
            usage();
        if (strcmp(argv[i], "--case") == 0) {
            o->only_case = atoi(v);
            if (o->only_case < 1 || o->only_case > NUM_CASES)
                usage();
        } else if (strcmp(argv[i], "--op") == 0) {
            for (int k = 0; k < SINK_NUM_OPS; k++)
                if (strcmp(v, op_names[k]) == 0)
                    o->only_op = k;
            if (o->only_op < 0)
                usage();
        } else if (strcmp(argv[i], "--handler") == 0) {
            o->handler_name = v;
            if (strcmp(v, "db") == 0)
                o->handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB;
            else if (strcmp(v, "bf") == 0)
                o->handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF;
            else if (strcmp(v, "no_dbr") == 0)
                o->handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR;
            else
                usage();
        } else if (strcmp(argv[i], "--reps") == 0) {
            o->reps = atoi(v);
            if (o->reps < 1)
                usage();
        } else if (strcmp(argv[i], "--scale") == 0) {
            o->scale = atof(v);
            if (!(o->scale > 0))
                usage();
        } else if (strcmp(argv[i], "--csv") == 0) {
            o->csv = v;
        } else {
            usage();
        }
        i++;
    }
}

/* Builds SINK_MAX_QPS descriptors the way export does, over memory allocated here. */
static void sink_qps_create(struct sink_qps *q, uint32_t handler)
{
    const size_t ring_bytes = (size_t)SINK_WQE_NUM * sizeof(struct doca_gpu_dev_verbs_wqe);
    void *uar_dev = NULL;
    uint8_t *bufs = NULL;

    CUDA_CHECK(cudaMalloc((void **)&q->rings, ring_bytes * SINK_MAX_QPS));
    CUDA_CHECK(cudaMemset(q->rings, 0, ring_bytes * SINK_MAX_QPS));
    CUDA_CHECK(cudaMalloc((void **)&q->dbrs, (size_t)SINK_DBR_STRIDE * SINK_MAX_QPS));
    CUDA_CHECK(cudaMemset(q->dbrs, 0, (size_t)SINK_DBR_STRIDE * SINK_MAX_QPS));
    /* One CQE per QP, invalid (op_own 0xf0): nothing ever completes. */
    CUDA_CHECK(cudaMalloc((void **)&q->cqes, (size_t)PRM_CQE_SIZE * SINK_MAX_QPS));
    CUDA_CHECK(cudaMemset(q->cqes, 0xf0, (size_t)PRM_CQE_SIZE * SINK_MAX_QPS));
    CUDA_CHECK(cudaHostAlloc(&q->uar, (size_t)SINK_DB_STRIDE * SINK_MAX_QPS, cudaHostAllocMapped));
    memset(q->uar, 0, (size_t)SINK_DB_STRIDE * SINK_MAX_QPS);
    CUDA_CHECK(cudaHostGetDevicePointer(&uar_dev, q->uar, 0));
    CUDA_CHECK(cudaMalloc((void **)&q->dev, sizeof(*q->dev) * SINK_MAX_QPS));
    q->host = (struct doca_gpu_dev_verbs_qp *)calloc(SINK_MAX_QPS, sizeof(*q->host));
    /* cudaMalloc's alignment (256) keeps every descriptor's counters on their own line. */
    if (q->host == NULL) {
        fprintf(stderr, "gdaki_sink_bench: out of host memory\n");
        exit(2);
    }
    for (uint32_t i = 0; i < SINK_MAX_QPS; i++) {
        struct doca_gpu_dev_verbs_qp *d = &q->host[i];
        uint8_t *dbr = q->dbrs + (size_t)i * SINK_DBR_STRIDE;

        gdaki_desc_set_sq(d, q->rings + ring_bytes * i, SINK_WQE_NUM, 0x100 + i, handler,
                          DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU, gdaki_desc_nic_scope(1, handler, 1, 1));
        gdaki_desc_set_cq(&d->cq_sq, q->cqes + (size_t)PRM_CQE_SIZE * i, 0, 0x10000 + i, 0,
                          DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU, (gdaki_be32_t *)(void *)(dbr + 8));
        /* As a QP's record: receive word, then send word. */
        d->sq_dbrec = (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR)
                              ? NULL
                              : (gdaki_be32_t *)(void *)(dbr + 4);
        d->sq_db = (uint64_t *)(void *)((uint8_t *)uar_dev + (size_t)SINK_DB_STRIDE * i);
    }
    /* Local and remote memory are never touched (nothing executes the WQEs): addresses only. */
    CUDA_CHECK(cudaMalloc((void **)&bufs, 8ull * SINK_MAX_QPS * 2 + 64));
    q->args.raddr = {(uint64_t)(uintptr_t)bufs, SINK_MKEY_BE};
    q->args.laddr = {(uint64_t)(uintptr_t)bufs + 8ull * SINK_MAX_QPS, SINK_MKEY_BE};
    q->args.sig_raddr = {(uint64_t)(uintptr_t)bufs + 16ull * SINK_MAX_QPS, SINK_MKEY_BE};
    q->args.sig_laddr = {(uint64_t)(uintptr_t)bufs + 16ull * SINK_MAX_QPS + 8, SINK_MKEY_BE};
    CUDA_CHECK(cudaMalloc((void **)&q->args.out, sizeof(unsigned long long) * SINK_MAX_QPS));
    q->args.qps = q->dev;
}

/* Puts every descriptor back to its first state (indexes 0, lock free). */
static void sink_qps_reset(struct sink_qps *q)
{
    CUDA_CHECK(cudaMemcpy(q->dev, q->host, sizeof(*q->dev) * SINK_MAX_QPS, cudaMemcpyHostToDevice));
}

/*
 * Checks what the first nqp QPs ended with after one launch of `expected`
 * WQEs in all: every WQE reserved was submitted (sq_wqe_pi), each QP's last
 * WQE names its QP, its index and the operation's last opcode, and its
 * doorbell record and register hold its last producer index, as the NIC
 * would read them. Returns the WQEs reserved; exits on a mismatch.
 */
static uint64_t sink_qps_verify(struct sink_qps *q, uint32_t nqp, uint32_t handler, enum sink_op op,
                                uint64_t expected)
{
    const size_t ring_bytes = (size_t)SINK_WQE_NUM * sizeof(struct doca_gpu_dev_verbs_wqe);
    struct doca_gpu_dev_verbs_qp *d =
            (struct doca_gpu_dev_verbs_qp *)malloc(sizeof(*d) * (size_t)nqp);
    uint8_t *dbrs = (uint8_t *)malloc((size_t)SINK_DBR_STRIDE * nqp);
    uint8_t *rings = (uint8_t *)malloc(ring_bytes * nqp);
    const uint32_t last_opcode = op == SINK_PUT          ? PRM_WQE_OPCODE_RDMA_WRITE
                                 : op == SINK_PUT_SIGNAL ? PRM_WQE_OPCODE_ATOMIC_FA
                                                         : PRM_WQE_OPCODE_RDMA_READ;
    uint64_t n = 0;
    uint32_t bad = 0;

    if (d == NULL || dbrs == NULL || rings == NULL) {
        fprintf(stderr, "gdaki_sink_bench: out of host memory\n");
        exit(2);
    }
    CUDA_CHECK(cudaMemcpy(d, q->dev, sizeof(*d) * nqp, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(dbrs, q->dbrs, (size_t)SINK_DBR_STRIDE * nqp, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(rings, q->rings, ring_bytes * nqp, cudaMemcpyDeviceToHost));
    for (uint32_t i = 0; i < nqp; i++) {
        uint64_t prod = d[i].sq_rsvd_index;
        uint64_t db = *(volatile uint64_t *)((uint8_t *)q->uar + (size_t)SINK_DB_STRIDE * i);
        const uint8_t *last = rings + ring_bytes * i + ((prod - 1) & (SINK_WQE_NUM - 1)) * 64;
        uint32_t dbr, ctrl[2];
        uint64_t want_db;

        memcpy(&dbr, dbrs + (size_t)SINK_DBR_STRIDE * i + 4, sizeof(dbr));
        memcpy(ctrl, last, sizeof(ctrl));
        if (handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_BF) /* the last WQE's first 8 bytes */
            memcpy(&want_db, last, 8);
        else
            want_db = gdaki_sq_db_value(&d[i], prod);
        n += prod;
        if (prod == 0 ||
            ctrl[0] != gdaki_htobe32(((uint32_t)(prod - 1) & 0xffff) << 8 | last_opcode) ||
            gdaki_be32toh(ctrl[1]) >> 8 != d[i].sq_num || d[i].sq_wqe_pi != prod ||
            d[i].sq_ready_index != prod || db != want_db ||
            ((handler & DOCA_GPUNETIO_VERBS_NIC_HANDLER_FLAG_NO_DBR) == 0 &&
             dbr != gdaki_htobe32((uint32_t)prod & 0xffff))) {
            if (bad++ == 0)
                fprintf(stderr,
                        "gdaki_sink_bench: QP %u: reserved %llu, ready %llu, submitted %llu, "
                        "last WQE 0x%08x 0x%08x, record 0x%08x, doorbell 0x%016llx (want "
                        "0x%016llx)\n",
                        i, (unsigned long long)prod, (unsigned long long)d[i].sq_ready_index,
                        (unsigned long long)d[i].sq_wqe_pi, gdaki_be32toh(ctrl[0]),
                        gdaki_be32toh(ctrl[1]), dbr, (unsigned long long)db,
                        (unsigned long long)want_db);
        }
    }
    free(d);
    free(dbrs);
    free(rings);
    if (bad != 0 || n != expected) {
        fprintf(stderr, "gdaki_sink_bench: %u of %u QPs not rung as posted; %llu WQEs of %llu\n",
                bad, nqp, (unsigned long long)n, (unsigned long long)expected);
        exit(3);
    }
    return n;
}

/* Seconds one launch of kernel k takes (device events). */
static double time_launch(sink_kernel_fn k, const struct sink_case *c, struct sink_args args,
                          uint32_t iters)
{
    cudaEvent_t start, stop;
    float ms = 0;

    args.iters = iters;
    args.threads_per_qp = c->threads_per_qp;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    k<<<c->blocks, c->threads>>>(args);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / 1e3;
}

/* WQEs one operation posts in mode (a warp's put_signal: one signal for 32 puts). */
static double wqes_per_op(enum sink_op op, enum sink_mode mode)
{
    if (op != SINK_PUT_SIGNAL)
        return 1.0;
    return mode == SINK_WARP ? 33.0 / 32.0 : 2.0;
}

/* The machine, GPU, driver and date columns of every row. */
struct machine {
    char date[32], host[64], gpu[256], driver[64];
    int cuda_runtime;
};

static void machine_read(struct machine *m)
{
    cudaDeviceProp prop;
    time_t now = time(NULL);
    struct tm tm;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[256];
    int v = 0;

    gmtime_r(&now, &tm);
    strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(m->host, sizeof(m->host)) != 0)
        snprintf(m->host, sizeof(m->host), "unknown");
    m->host[sizeof(m->host) - 1] = '\0';
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(m->gpu, sizeof(m->gpu), "%s", prop.name);
    CUDA_CHECK(cudaDriverGetVersion(&v));
    snprintf(m->driver, sizeof(m->driver), "cuda-driver-%d", v);
    /* "NVRM version: NVIDIA UNIX ... Kernel Module ...  580.65.06  ...": the first dotted number.
     */
    if (f != NULL) {
        if (fgets(line, sizeof(line), f) != NULL)
            for (char *tok = strtok(line, " \t"); tok != NULL; tok = strtok(NULL, " \t")) {
                unsigned major, minor;

                if (sscanf(tok, "%u.%u", &major, &minor) == 2) {
                    snprintf(m->driver, sizeof(m->driver), "%s", tok);
                    break;
                }
            }
        fclose(f);
    }
    CUDA_CHECK(cudaRuntimeGetVersion(&m->cuda_runtime));
}

static FILE *csv_open(const char *path)
{
    FILE *f;
    long size;

    if (path == NULL)
        return NULL;
    f = fopen(path, "a");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    if (size == 0)
        fprintf(f, "date,host,gpu,driver,cuda_runtime,case,op,mode,blocks,threads,qps,handler,"
                   "iters,wqes,seconds,wqe_per_s,ns_per_op,bare_wqe_per_s,ratio_to_bare,"
                   "doca_2_0,target,met,regs,local_bytes\n");
    return f;
}

/* Runs case c for op; prints and records one row. Returns 0 unless a put target is missed. */
static int run_case(struct sink_qps *q, const struct sink_case *c, enum sink_op op,
                    const struct options *o, const struct machine *m, FILE *csv)
{
    const sink_kernel_fn lib = sink_kernels[op][c->mode];
    const sink_kernel_fn bare = sink_bare_kernels[op][c->mode];
    const uint32_t threads = c->blocks * c->threads;
    const uint32_t nqp = threads / c->threads_per_qp;
    uint32_t iters = (uint32_t)fmax(1.0, c->iters * o->scale);
    double best_lib = INFINITY, best_bare = INFINITY;
    double wqes, bare_wqes, rate, bare_rate, ns_per_op, value;
    struct cudaFuncAttributes attr;
    int met = 1;

    /* Warm-up: module load and first-touch of the rings out of the timings. */
    sink_qps_reset(q);
    time_launch(lib, c, q->args, 16);
    time_launch(bare, c, q->args, 16);
    for (int r = 0; r < o->reps; r++) {
        sink_qps_reset(q);
        best_lib = fmin(best_lib, time_launch(lib, c, q->args, iters));
        best_bare = fmin(best_bare, time_launch(bare, c, q->args, iters));
    }
    /* The WQEs really posted: the reservation counters after one launch. */
    sink_qps_reset(q);
    time_launch(lib, c, q->args, iters);
    bare_wqes = (double)threads * iters * wqes_per_op(op, c->mode);
    wqes = (double)sink_qps_verify(q, nqp, o->handler, op, (uint64_t)bare_wqes);
    rate = wqes / best_lib;
    bare_rate = bare_wqes / best_bare;
    ns_per_op = best_lib * 1e9 / iters;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, (const void *)lib));

    value = c->per_op_ns ? ns_per_op : rate;
    if (op == SINK_PUT && !o->smoke)
        met = c->per_op_ns ? value <= c->target : value >= c->target;
    printf("case %d %-10s %-34s %9.1f M WQE/s %9.1f ns/op  bare %9.1f M WQE/s (x%.2f)  regs %d "
           "local %zu",
           c->id, op_names[op], c->what, rate / 1e6, ns_per_op, bare_rate / 1e6, rate / bare_rate,
           attr.numRegs, attr.localSizeBytes);
    if (op == SINK_PUT && !o->smoke)
        printf("  target %s %g%s: %s",
               c->per_op_ns ? "<=" : ">=", c->per_op_ns ? c->target : c->target / 1e6,
               c->per_op_ns ? " ns" : " M", met ? "met" : "MISSED");
    printf("\n");
    if (csv != NULL) {
        fprintf(csv, "%s,%s,\"%s\",%s,%d,%d,%s,%s,%u,%u,%u,%s,%u,%.0f,%.6f,%.0f,%.1f,%.0f,%.3f,",
                m->date, m->host, m->gpu, m->driver, m->cuda_runtime, c->id, op_names[op],
                mode_names[c->mode], c->blocks, c->threads, nqp, o->handler_name, iters, wqes,
                best_lib, rate, ns_per_op, bare_rate, rate / bare_rate);
        /* DOCA's number and the target are in the unit the case is judged in (ns/op or WQE/s). */
        if (op == SINK_PUT)
            fprintf(csv, "%g,%g,%s,", c->doca, c->target, met ? "yes" : "no");
        else
            fprintf(csv, ",,,");
        fprintf(csv, "%d,%zu\n", attr.numRegs, attr.localSizeBytes);
    }
    return met ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct options o;
    struct machine m;
    struct sink_qps q;
    int ndev = 0;
    int rc = 0;
    FILE *csv;

    parse(argc, argv, &o);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("skipped: no CUDA device\n");
        return SINK_EXIT_SKIPPED;
    }
    machine_read(&m);
    printf("gdaki_sink_bench: %s, driver %s, CUDA runtime %d, handler %s, best of %d\n", m.gpu,
           m.driver, m.cuda_runtime, o.handler_name, o.reps);
    memset(&q, 0, sizeof(q));
    sink_qps_create(&q, o.handler);
    csv = csv_open(o.csv);
    for (int ci = 0; ci < NUM_CASES; ci++) {
        if (o.only_case != 0 && cases[ci].id != o.only_case)
            continue;
        for (int op = 0; op < SINK_NUM_OPS; op++)
            if (o.only_op < 0 || o.only_op == op)
                rc |= run_case(&q, &cases[ci], (enum sink_op)op, &o, &m, csv);
    }
    if (csv != NULL)
        fclose(csv);
    return rc;
}
