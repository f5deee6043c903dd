/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Verbs data path on softmlx5: two RC QPs made and connected with the
 * DOCA Verbs API, driven by hand: WQEs built with mlx5_wqe.h into the SQ
 * ring the API exposes, the doorbell record updated and the doorbell written
 * to the UAR register, CQEs polled from the CQ ring with mlx5_cqe.h. RDMA
 * write, read, fetch-add, compare-swap and write with immediate into a
 * receive queue, each checked byte for byte; more operations than SQ and CQ
 * entries, so both rings wrap. Local mode then receives a send and a write
 * with immediate through an SRQ (WQEs posted by hand into its ring).
 *
 * Usage: test_verbs_datapath local | fork | gpu | events
 *   local: both QPs in this process; fork: one per process (fork before the
 *   device is opened; the peers trade addresses over a socketpair); gpu:
 *   as local, with each CQ's ring and doorbell record and each QP's work
 *   queue and doorbell record in cuMemAlloc'd memory wrapped in a UMEM
 *   (exit 77, "skipped: ...", without a usable GPU). Every access to a ring
 *   or doorbell record goes through a ring_mem: plain loads and stores in
 *   host memory, cuMemcpyHtoD / cuMemcpyDtoH in GPU memory. The UAR and the
 *   data buffers are host memory in every mode. events: completion events
 *   of a CQ on a DOCA Verbs completion channel, armed by its `st` at
 *   creation and by the arm doorbell (record word, then UAR register).
 */
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tsan.h"
#include "emu_cuda_test.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_cq.h"
#include "verbs_test.h"

#define BUF_SIZE   8192
#define CQ_SIZE    8
#define SQ_WR      4
#define RQ_WR      4
#define N_WRITES   20 /* more than SQ_WR basic blocks and CQ_SIZE CQEs: both rings wrap */
#define TIMEOUT_MS 5000
#define GPU_REGION 16384 /* cuMemAlloc'd bytes for a CQ's or QP's ring + doorbell record */
#define GPU_DBR    8192  /* offset of the doorbell record in such a region */

struct info {
    uint32_t qpn;
    uint32_t rkey;
    uint64_t addr;
    uint16_t lid;
    uint8_t gid[16];
};

/* Where the rings and doorbell records live. Writes and reads are complete on return. */
struct ring_mem {
    const char *name;
    /* A 4-byte write is a doorbell-record update: ordered after every earlier write. */
    void (*write)(void *dst, const void *src, size_t len);
    /* A 1-byte read is an op_own poll: later reads are ordered after it. */
    void (*read)(void *dst, const void *src, size_t len);
};

struct end {
    const struct ring_mem *mem;
    void *cq_mem, *qp_mem; /* GPU mode: the cuMemAlloc'd regions */
    doca_verbs_umem_t *cq_umem, *qp_umem;
    doca_verbs_cq_t *cq;
    doca_verbs_qp_t *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    uint32_t qpn;
    uint8_t *sq, *rq; /* ring_mem addresses, as are qp_dbr, cq_ring and cq_dbr */
    uint32_t sq_n, rq_n, rq_stride;
    uint8_t *qp_dbr;
    volatile uint64_t *uar; /* host memory in every mode */
    uint8_t *cq_ring;
    uint32_t cq_n, cq_log;
    uint8_t *cq_dbr;
    uint16_t sq_pi;
    uint32_t rq_pi;
    uint32_t cq_ci;
};

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            failures++;                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

/* --- ring memory ------------------------------------------------------------------------- */

static void host_write(void *dst, const void *src, size_t len)
{
    uint32_t v;

    if (len == sizeof(v)) {
        memcpy(&v, src, sizeof(v));
        __atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELEASE);
        return;
    }
    memcpy(dst, src, len);
}

static void host_read(void *dst, const void *src, size_t len)
{
    if (len == 1) {
        *(uint8_t *)dst = __atomic_load_n((const uint8_t *)src, __ATOMIC_ACQUIRE);
        return;
    }
    memcpy(dst, src, len);
}

static const struct ring_mem host_mem = {"host", host_write, host_read};

static const struct core_cuda_ops *cuda; /* set in gpu mode */

static void gpu_fail(const char *what, core_cu_result rc)
{
    fprintf(stderr, "FAIL: %s: CUDA error %d\n", what, rc);
    exit(1);
}

/* Synchronous: the copy is complete, and visible to the device, on return. */
static void gpu_write(void *dst, const void *src, size_t len)
{
    core_cu_result rc = cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)dst, src, len);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemcpyHtoD", rc);
}

static void gpu_read(void *dst, const void *src, size_t len)
{
    core_cu_result rc = cuda->cuMemcpyDtoH(dst, (core_cu_deviceptr)(uintptr_t)src, len);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemcpyDtoH", rc);
}

static const struct ring_mem gpu_mem = {"GPU", gpu_write, gpu_read};

/* Bytes of p[0..n) that are not v. */
static int count_not(const uint8_t *p, int v, int n)
{
    int bad = 0;

    for (int i = 0; i < n; i++)
        bad += p[i] != (uint8_t)v;
    return bad;
}

/* GPU mode: GPU_REGION bytes of device memory registered as a UMEM; 0 or -1. */
static int gpu_region(struct vt_dev *d, void **mem, doca_verbs_umem_t **umem)
{
    core_cu_deviceptr p = 0;
    unsigned int type = 0;
    core_cu_result rc = cuda->cuMemAlloc(&p, GPU_REGION);

    if (rc != CORE_CU_SUCCESS)
        gpu_fail("cuMemAlloc", rc);
    *mem = (void *)(uintptr_t)p;
    CHECK(cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE, p) ==
                          CORE_CU_SUCCESS &&
                  type == CORE_CU_MEMORYTYPE_DEVICE,
          "%p is not GPU memory (type %u)", *mem, type);
    return doca_verbs_umem_create(d->dev, NULL, *mem, GPU_REGION, IBV_ACCESS_LOCAL_WRITE,
                                  (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, umem) == DOCA_SUCCESS
                   ? 0
                   : -1;
}

/* The CQ: internal host memory, or (GPU mode) ring at 0 and doorbell record at GPU_DBR. */
static doca_verbs_cq_t *end_cq(struct vt_dev *d, struct end *e)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_verbs_cq_t *cq = NULL;

    if (e->mem != &gpu_mem)
        return vt_cq(d->dev, CQ_SIZE);
    if (gpu_region(d, &e->cq_mem, &e->cq_umem) != 0 ||
        doca_verbs_cq_attr_create(&attr) != DOCA_SUCCESS)
        return NULL;
    doca_verbs_cq_attr_set_cq_size(attr, CQ_SIZE);
    doca_verbs_cq_attr_set_external_umem(attr, e->cq_umem, 0);
    doca_verbs_cq_attr_set_external_dbr_umem(attr, e->cq_umem, GPU_DBR);
    if (doca_verbs_cq_create(d->dev, attr, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(attr);
    return cq;
}

static int end_create(struct vt_dev *d, struct end *e, const struct ring_mem *mem)
{
    doca_verbs_qp_init_attr_t *ia;
    void *sq, *rq, *dbr, *uar, *ring;
    uint32_t *ci;
    uint8_t esz, op_own;
    uint32_t word;

    e->mem = mem;
    if (e->cq == NULL) /* events mode makes its own */
        e->cq = end_cq(d, e);
    if (e->cq == NULL)
        return -1;
    ia = vt_qp_attr(d->dev, e->cq, SQ_WR, RQ_WR);
    if (ia == NULL)
        return -1;
    if (mem == &gpu_mem) {
        if (gpu_region(d, &e->qp_mem, &e->qp_umem) != 0)
            return -1;
        doca_verbs_qp_init_attr_set_external_umem(ia, e->qp_umem, 0);
        doca_verbs_qp_init_attr_set_external_umem_dbr(ia, e->qp_umem, GPU_DBR);
    }
    if (doca_verbs_qp_create(d->dev, ia, &e->qp) != DOCA_SUCCESS)
        return -1;
    doca_verbs_qp_init_attr_destroy(ia);
    e->buf = calloc(1, BUF_SIZE);
    e->mr = ibv_reg_mr(d->pd, e->buf, BUF_SIZE,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                               IBV_ACCESS_REMOTE_ATOMIC);
    if (e->mr == NULL)
        return -1;
    doca_verbs_qp_get_qpn(e->qp, &e->qpn);
    doca_verbs_qp_get_wq(e->qp, &sq, &e->sq_n, &rq, &e->rq_n, &e->rq_stride);
    doca_verbs_qp_get_dbr_addr(e->qp, &dbr);
    doca_verbs_qp_get_uar_addr(e->qp, &uar);
    doca_verbs_cq_get_wq(e->cq, &ring, &e->cq_n, &esz);
    doca_verbs_cq_get_dbr_addr(e->cq, NULL, &ci, NULL);
    e->sq = sq;
    e->rq = rq;
    e->qp_dbr = dbr;
    e->uar = uar;
    e->cq_ring = ring;
    e->cq_dbr = (uint8_t *)ci;
    e->cq_log = 0;
    while ((1u << e->cq_log) < e->cq_n)
        e->cq_log++;
    if (mem == &gpu_mem)
        CHECK(e->cq_ring == e->cq_mem && e->cq_dbr == (uint8_t *)e->cq_mem + GPU_DBR &&
                      e->rq == e->qp_mem && e->qp_dbr == (uint8_t *)e->qp_mem + GPU_DBR,
              "the rings are not where the UMEMs put them");
    if (e->rq_stride > 64 || (size_t)e->rq_stride * e->rq_n > (size_t)(e->sq - e->rq)) {
        fprintf(stderr, "FAIL: %u receive WQEs of %u bytes\n", e->rq_n, e->rq_stride);
        return -1; /* post_recv writes one stride from a 64-byte buffer */
    }
    /* doca_verbs_cq_create marked every CQE invalid (through CUDA for GPU memory). */
    for (uint32_t i = 0; i < e->cq_n; i++) {
        mem->read(&op_own, e->cq_ring + (size_t)i * 64 + 63, 1);
        CHECK(op_own == prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 0),
              "%s CQE %u: op_own 0x%02x after creation", mem->name, i, op_own);
    }
    mem->read(&word, e->cq_dbr, sizeof(word));
    CHECK(word == 0, "%s CQ doorbell record 0x%x after creation", mem->name, word);
    mem->read(&word, e->qp_dbr + 4, sizeof(word));
    CHECK(word == 0, "%s QP doorbell record 0x%x after creation", mem->name, word);
    return 0;
}

static void end_destroy(struct end *e)
{
    CHECK(doca_verbs_qp_destroy(e->qp) == DOCA_SUCCESS, "QP destroy");
    CHECK(doca_verbs_cq_destroy(e->cq) == DOCA_SUCCESS, "CQ destroy");
    ibv_dereg_mr(e->mr);
    free(e->buf);
    if (e->mem != &gpu_mem)
        return;
    CHECK(doca_verbs_umem_destroy(e->qp_umem) == DOCA_SUCCESS, "QP UMEM destroy");
    CHECK(doca_verbs_umem_destroy(e->cq_umem) == DOCA_SUCCESS, "CQ UMEM destroy");
    CHECK(cuda->cuMemFree((core_cu_deviceptr)(uintptr_t)e->qp_mem) == CORE_CU_SUCCESS &&
                  cuda->cuMemFree((core_cu_deviceptr)(uintptr_t)e->cq_mem) == CORE_CU_SUCCESS,
          "cuMemFree");
}

static void info_of(struct vt_dev *d, struct end *e, struct info *i)
{
    memset(i, 0, sizeof(*i));
    i->qpn = e->qpn;
    i->rkey = e->mr->rkey;
    i->addr = (uintptr_t)e->buf;
    vt_address(d, &i->lid, i->gid);
}

static int connect_qp(struct vt_dev *d, struct end *e, const struct info *r)
{
    return vt_connect(d, e->qp, r->qpn, r->gid, r->lid);
}

/* a and b of one process connected to each other (their addresses in ia, ib); 0 or -1. */
static int connect_pair(struct vt_dev *d, struct end *a, struct end *b, struct info *ia,
                        struct info *ib)
{
    info_of(d, a, ia);
    info_of(d, b, ib);
    if (connect_qp(d, a, ib) != 0 || connect_qp(d, b, ia) != 0) {
        fprintf(stderr, "FAIL: cannot bring the QPs to RTS\n");
        return -1;
    }
    return 0;
}

/* Writes the WQE built in wqe to the slot at the producer index and rings the doorbell. */
static void ring_sq(struct end *e, const uint8_t *wqe)
{
    uint64_t db;
    uint32_t be;

    e->mem->write(e->sq + (size_t)(e->sq_pi & (e->sq_n - 1)) * PRM_WQE_BB_SIZE, wqe,
                  PRM_WQE_BB_SIZE);
    e->sq_pi++;
    be = htobe32(e->sq_pi); /* a 4-byte write: after the WQE */
    e->mem->write(e->qp_dbr + 4, &be, sizeof(be));
    memcpy(&db, wqe, sizeof(db));
    /* Release: the doorbell record before the UAR write, which the device reads atomically. */
    __atomic_store_n(e->uar, db, __ATOMIC_RELEASE);
}

static void post_rdma(struct end *e, uint8_t opcode, uint32_t loff, uint32_t len,
                      const struct info *r, uint32_t roff, uint32_t imm)
{
    uint8_t wqe[PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_ctrl_seg *ctrl = (void *)wqe;
    struct prm_wqe_raddr_seg *raddr = (void *)(ctrl + 1);
    struct prm_wqe_data_seg *data = (void *)(raddr + 1);

    prm_wqe_set_raddr_seg(raddr, r->addr + roff, r->rkey);
    prm_wqe_set_data_seg(data, len, e->mr->lkey, (uintptr_t)e->buf + loff);
    prm_wqe_set_ctrl_seg(ctrl, e->sq_pi, opcode, 0, e->qpn, PRM_WQE_CTRL_CQ_UPDATE, PRM_WQE_DS_RDMA,
                         0, htobe32(imm));
    ring_sq(e, wqe);
}

static void post_atomic(struct end *e, uint8_t opcode, uint32_t loff, const struct info *r,
                        uint32_t roff, uint64_t swap_add, uint64_t compare)
{
    uint8_t wqe[PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_ctrl_seg *ctrl = (void *)wqe;
    struct prm_wqe_raddr_seg *raddr = (void *)(ctrl + 1);
    struct prm_wqe_atomic_seg *atomic = (void *)(raddr + 1);
    struct prm_wqe_data_seg *data = (void *)(atomic + 1);

    prm_wqe_set_raddr_seg(raddr, r->addr + roff, r->rkey);
    prm_wqe_set_atomic_seg(atomic, swap_add, compare);
    prm_wqe_set_data_seg(data, 8, e->mr->lkey, (uintptr_t)e->buf + loff);
    prm_wqe_set_ctrl_seg(ctrl, e->sq_pi, opcode, 0, e->qpn, PRM_WQE_CTRL_CQ_UPDATE,
                         PRM_WQE_DS_ATOMIC, 0, 0);
    ring_sq(e, wqe);
}

static void post_recv(struct end *e, uint32_t off, uint32_t len)
{
    struct prm_wqe_data_seg segs[4]; /* 64 bytes: the largest stride end_create accepts */
    uint32_t be;

    memset(segs, 0, sizeof(segs));
    prm_wqe_set_data_seg(&segs[0], len, e->mr->lkey, (uintptr_t)e->buf + off);
    if (e->rq_stride > sizeof(segs[0])) /* mlx5's invalid lkey ends the scatter list */
        prm_wqe_set_data_seg(&segs[1], 0, 0x100, 0);
    e->mem->write(e->rq + (size_t)(e->rq_pi & (e->rq_n - 1)) * e->rq_stride, segs, e->rq_stride);
    e->rq_pi++;
    be = htobe32(e->rq_pi & 0xffff); /* a 4-byte write: after the receive WQE */
    e->mem->write(e->qp_dbr, &be, sizeof(be));
}

/* Polls one CQE; returns it (copied) or a zeroed CQE with opcode INVALID on timeout. */
static struct prm_cqe64 poll_cq(struct end *e)
{
    struct prm_cqe64 out;
    struct timespec t0, t;
    uint8_t *cqe = e->cq_ring + (size_t)(e->cq_ci & (e->cq_n - 1)) * 64;
    uint8_t op_own;
    uint32_t be;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        e->mem->read(&op_own, cqe + 63, 1);
        if (prm_cqe_op_own_sw_owned(op_own, e->cq_ci, e->cq_log))
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > TIMEOUT_MS) {
            memset(&out, 0, sizeof(out));
            out.op_own = prm_cqe_make_op_own(PRM_CQE_OPCODE_INVALID, 0);
            return out;
        }
    }
    /* The entry again, whole: read after op_own, so every byte is the device's. */
    e->mem->read(&out, cqe, sizeof(out));
    e->cq_ci++;
    be = htobe32(e->cq_ci & 0xffffff);
    e->mem->write(e->cq_dbr, &be, sizeof(be));
    return out;
}

static bool expect_cqe(struct end *e, uint8_t opcode, const char *what)
{
    struct prm_cqe64 c = poll_cq(e);

    CHECK(prm_cqe_opcode(&c) == opcode, "%s: CQE opcode 0x%x, expected 0x%x (syndrome 0x%x)", what,
          prm_cqe_opcode(&c), opcode, prm_cqe_is_error(&c) ? prm_cqe_syndrome(&c) : 0);
    return prm_cqe_opcode(&c) == opcode;
}

/* The requester side: every operation against the remote buffer described by r. */
static void run_requester(struct end *a, const struct info *r, uint8_t *remote_view)
{
    for (int i = 0; i < N_WRITES; i++) {
        memset(a->buf, 0x10 + i, 64);
        post_rdma(a, PRM_WQE_OPCODE_RDMA_WRITE, 0, 64, r, 64 * (uint32_t)i, 0);
        if (!expect_cqe(a, PRM_CQE_OPCODE_REQ, "RDMA write"))
            return;
        if (remote_view != NULL)
            CHECK(count_not(remote_view + 64 * i, 0x10 + i, 64) == 0, "write %d: bytes differ", i);
    }
    /* Read back what the writes put there. */
    post_rdma(a, PRM_WQE_OPCODE_RDMA_READ, 4096, 64 * N_WRITES, r, 0, 0);
    if (expect_cqe(a, PRM_CQE_OPCODE_REQ, "RDMA read"))
        for (int i = 0; i < N_WRITES; i++)
            CHECK(count_not(a->buf + 4096 + 64 * i, 0x10 + i, 64) == 0, "read block %d differs", i);
    /* Fetch-add and compare-swap on the 8 bytes at remote 2048 (initially 100). */
    post_atomic(a, PRM_WQE_OPCODE_ATOMIC_FA, 3000, r, 2048, 5, 0);
    if (expect_cqe(a, PRM_CQE_OPCODE_REQ, "fetch-add"))
        CHECK(be64toh(*(uint64_t *)(a->buf + 3000)) == 100, "fetch-add returned %llu",
              (unsigned long long)be64toh(*(uint64_t *)(a->buf + 3000)));
    post_atomic(a, PRM_WQE_OPCODE_ATOMIC_CS, 3008, r, 2048, 777, 105);
    if (expect_cqe(a, PRM_CQE_OPCODE_REQ, "compare-swap"))
        CHECK(be64toh(*(uint64_t *)(a->buf + 3008)) == 105, "compare-swap returned %llu",
              (unsigned long long)be64toh(*(uint64_t *)(a->buf + 3008)));
    post_atomic(a, PRM_WQE_OPCODE_ATOMIC_CS, 3016, r, 2048, 1, 105); /* fails: now 777 */
    if (expect_cqe(a, PRM_CQE_OPCODE_REQ, "compare-swap (no swap)"))
        CHECK(be64toh(*(uint64_t *)(a->buf + 3016)) == 777, "failed compare-swap returned %llu",
              (unsigned long long)be64toh(*(uint64_t *)(a->buf + 3016)));
    /* Write with immediate: consumes a receive WQE of the peer. */
    memset(a->buf + 3072, 0xab, 100);
    post_rdma(a, PRM_WQE_OPCODE_RDMA_WRITE_IMM, 3072, 100, r, 2560, 0xc0ffee);
    expect_cqe(a, PRM_CQE_OPCODE_REQ, "write with immediate");
}

/* The responder side after the requester is done. */
static void check_responder(struct end *b)
{
    struct prm_cqe64 c;

    CHECK(be64toh(*(uint64_t *)(b->buf + 2048)) == 777, "atomic target holds %llu",
          (unsigned long long)be64toh(*(uint64_t *)(b->buf + 2048)));
    c = poll_cq(b);
    CHECK(prm_cqe_opcode(&c) == PRM_CQE_OPCODE_RESP_WR_IMM, "receive CQE opcode 0x%x",
          prm_cqe_opcode(&c));
    if (prm_cqe_opcode(&c) == PRM_CQE_OPCODE_RESP_WR_IMM) {
        CHECK(be32toh(prm_cqe_imm(&c)) == 0xc0ffee, "immediate 0x%x", be32toh(prm_cqe_imm(&c)));
        CHECK(prm_cqe_byte_cnt(&c) == 100, "byte count %u", prm_cqe_byte_cnt(&c));
    }
    CHECK(count_not(b->buf + 2560, 0xab, 100) == 0, "write-imm data differs");
}

/* --- receives through an SRQ (host memory) ------------------------------------------------ */

#define SRQ_WR 4

struct srq_end {
    struct doca_verbs_srq *srq;
    uint8_t *ring, *dbr;
    uint32_t n, stride;
    uint32_t pi;
};

/* A send of len bytes at loff (ctrl and one data segment). */
static void post_send(struct end *e, uint32_t loff, uint32_t len)
{
    uint8_t wqe[PRM_WQE_BB_SIZE] = {0};
    struct prm_wqe_ctrl_seg *ctrl = (void *)wqe;
    struct prm_wqe_data_seg *data = (void *)(ctrl + 1);

    prm_wqe_set_data_seg(data, len, e->mr->lkey, (uintptr_t)e->buf + loff);
    prm_wqe_set_ctrl_seg(ctrl, e->sq_pi, PRM_WQE_OPCODE_SEND, 0, e->qpn, PRM_WQE_CTRL_CQ_UPDATE,
                         PRM_WQE_DS_SEND, 0, 0);
    ring_sq(e, wqe);
}

/*
 * One linked-list SRQ WQE by hand: the 16-byte next segment (next_wqe_index,
 * big-endian, at byte 2) then the data segment; then the doorbell record's
 * word 0, the producer counter, after the WQE.
 */
static void post_srq_recv(struct srq_end *s, struct end *owner, uint32_t off, uint32_t len)
{
    uint8_t wqe[64] = {0};
    uint16_t next = htobe16((uint16_t)((s->pi + 1) & (s->n - 1)));
    uint32_t be;

    memcpy(wqe + 2, &next, sizeof(next));
    prm_wqe_set_data_seg((struct prm_wqe_data_seg *)(void *)(wqe + 16), len, owner->mr->lkey,
                         (uintptr_t)owner->buf + off);
    if (s->stride > 32) /* mlx5's invalid lkey ends the scatter list */
        prm_wqe_set_data_seg((struct prm_wqe_data_seg *)(void *)(wqe + 32), 0, 0x100, 0);
    host_write(s->ring + (size_t)(s->pi & (s->n - 1)) * s->stride, wqe, s->stride);
    s->pi++;
    be = htobe32(s->pi & 0xffff);
    host_write(s->dbr, &be, sizeof(be));
}

static void check_recv_cqe(struct end *e, uint8_t opcode, uint16_t index, uint32_t len,
                           const char *what)
{
    struct prm_cqe64 c = poll_cq(e);

    CHECK(prm_cqe_opcode(&c) == opcode, "%s: CQE opcode 0x%x, expected 0x%x", what,
          prm_cqe_opcode(&c), opcode);
    CHECK(prm_cqe_wqe_counter(&c) == index, "%s: wqe_counter %u, expected SRQ WQE %u", what,
          prm_cqe_wqe_counter(&c), index);
    CHECK(prm_cqe_byte_cnt(&c) == len, "%s: byte count %u, expected %u", what, prm_cqe_byte_cnt(&c),
          len);
}

/*
 * QP c receives through an SRQ (no receive queue of its own); peer p sends
 * to it and writes to it with immediate. Each consumes the next SRQ WQE.
 */
static void run_srq(struct vt_dev *d)
{
    struct doca_verbs_srq_init_attr *sa = NULL;
    doca_verbs_qp_init_attr_t *ia;
    struct srq_end s = {0};
    struct end c = {0}, p = {0};
    struct info ic, ip;
    void *sq, *rq, *dbr, *uar, *ring;
    uint32_t *ci, rq_n = 0, rq_stride = 0;
    uint8_t esz;

    if (doca_verbs_srq_init_attr_create(&sa) != DOCA_SUCCESS)
        return;
    doca_verbs_srq_init_attr_set_srq_wr(sa, SRQ_WR);
    doca_verbs_srq_init_attr_set_receive_max_sges(sa, 1);
    doca_verbs_srq_init_attr_set_pd(sa, d->pd);
    CHECK(doca_verbs_srq_create(d->ctx, sa, &s.srq) == DOCA_SUCCESS, "SRQ create");
    doca_verbs_srq_init_attr_destroy(sa);
    if (s.srq == NULL)
        return;
    doca_verbs_srq_get_wq(s.srq, &ring, &s.n, &s.stride);
    s.ring = ring;
    s.dbr = doca_verbs_srq_get_dbr_addr(s.srq);
    CHECK(s.n == SRQ_WR && s.stride == 32, "SRQ of %u WQEs of %u bytes", s.n, s.stride);

    c.mem = &host_mem;
    c.cq = vt_cq(d->dev, CQ_SIZE);
    ia = vt_qp_attr(d->dev, c.cq, SQ_WR, 0);
    doca_verbs_qp_init_attr_set_srq(ia, s.srq);
    CHECK(doca_verbs_qp_create(d->dev, ia, &c.qp) == DOCA_SUCCESS, "QP on the SRQ");
    doca_verbs_qp_init_attr_destroy(ia);
    if (c.qp == NULL || end_create(d, &p, &host_mem) != 0) {
        fprintf(stderr, "FAIL: cannot create the SRQ test's QPs\n");
        failures++;
        return;
    }
    c.buf = calloc(1, BUF_SIZE);
    c.mr = ibv_reg_mr(d->pd, c.buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    doca_verbs_qp_get_qpn(c.qp, &c.qpn);
    doca_verbs_qp_get_wq(c.qp, &sq, &c.sq_n, &rq, &rq_n, &rq_stride);
    CHECK(rq_n == 0, "a QP on an SRQ has %u receive WQEs of its own", rq_n);
    doca_verbs_qp_get_dbr_addr(c.qp, &dbr);
    doca_verbs_qp_get_uar_addr(c.qp, &uar);
    doca_verbs_cq_get_wq(c.cq, &ring, &c.cq_n, &esz);
    doca_verbs_cq_get_dbr_addr(c.cq, NULL, &ci, NULL);
    c.sq = sq;
    c.qp_dbr = dbr;
    c.uar = uar;
    c.cq_ring = ring;
    c.cq_dbr = (uint8_t *)ci;
    while ((1u << c.cq_log) < c.cq_n)
        c.cq_log++;
    info_of(d, &c, &ic);
    info_of(d, &p, &ip);
    CHECK(connect_qp(d, &c, &ip) == 0 && connect_qp(d, &p, &ic) == 0, "SRQ QPs to RTS");

    post_srq_recv(&s, &c, 0, 512);
    post_srq_recv(&s, &c, 1024, 512);
    memset(p.buf, 0x5a, 300);
    post_send(&p, 0, 300);
    expect_cqe(&p, PRM_CQE_OPCODE_REQ, "send to the SRQ QP");
    check_recv_cqe(&c, PRM_CQE_OPCODE_RESP_SEND, 0, 300, "send through the SRQ");
    CHECK(count_not(c.buf, 0x5a, 300) == 0 && count_not(c.buf + 300, 0, 212) == 0,
          "send data through the SRQ differs");
    memset(p.buf + 512, 0x6b, 64);
    post_rdma(&p, PRM_WQE_OPCODE_RDMA_WRITE_IMM, 512, 64, &ic, 4096, 0xbeef);
    expect_cqe(&p, PRM_CQE_OPCODE_REQ, "write with immediate to the SRQ QP");
    check_recv_cqe(&c, PRM_CQE_OPCODE_RESP_WR_IMM, 1, 64, "write-imm through the SRQ");
    CHECK(count_not(c.buf + 4096, 0x6b, 64) == 0, "write-imm data differs");
    CHECK(count_not(c.buf + 1024, 0, 512) == 0, "write-imm scattered into its receive WQE");

    CHECK(doca_verbs_srq_destroy(s.srq) == DOCA_ERROR_IN_USE, "SRQ destroy while used");
    CHECK(doca_verbs_qp_destroy(c.qp) == DOCA_SUCCESS, "SRQ QP destroy");
    CHECK(doca_verbs_cq_destroy(c.cq) == DOCA_SUCCESS, "SRQ CQ destroy");
    CHECK(doca_verbs_srq_destroy(s.srq) == DOCA_SUCCESS, "SRQ destroy");
    ibv_dereg_mr(c.mr);
    free(c.buf);
    end_destroy(&p);
}

static int run_local(const struct ring_mem *mem)
{
    struct vt_dev d;
    struct end a = {0}, b = {0};
    struct info ia, ib;

    vt_open(&d);
    if (end_create(&d, &a, mem) != 0 || end_create(&d, &b, mem) != 0) {
        fprintf(stderr, "FAIL: cannot create the QPs\n");
        return 1;
    }
    if (connect_pair(&d, &a, &b, &ia, &ib) != 0)
        return 1;
    *(uint64_t *)(b.buf + 2048) = htobe64(100);
    post_recv(&b, 1024, 256);
    run_requester(&a, &ib, b.buf);
    check_responder(&b);
    end_destroy(&a);
    end_destroy(&b);
    if (mem == &host_mem)
        run_srq(&d);
    vt_close(&d);
    return failures != 0;
}

/* --- completion events (events mode) ----------------------------------------------------- */

/* Arms e's CQ as software does: the record's arm word, then the UAR's CQ doorbell. */
static void arm_cq(struct end *e, uint32_t cmd, uint32_t sn)
{
    uint64_t *uar_db;
    uint32_t *arm, cqn, word = sn << PRM_CQ_DB_SN_SHIFT | cmd | (e->cq_ci & PRM_CQ_DB_CI_MASK);

    doca_verbs_cq_get_dbr_addr(e->cq, &uar_db, NULL, &arm);
    doca_verbs_cq_get_cqn(e->cq, &cqn);
    __atomic_store_n(arm, htobe32(word), __ATOMIC_RELEASE);
    __atomic_store_n(uar_db, htobe64((uint64_t)word << 32 | cqn), __ATOMIC_RELEASE);
}

/* One write of 64 bytes from a to b (offset 0); its CQE polled. */
static void write_ok(struct end *a, const struct info *r, const char *what)
{
    post_rdma(a, PRM_WQE_OPCODE_RDMA_WRITE, 0, 64, r, 0, 0);
    expect_cqe(a, PRM_CQE_OPCODE_REQ, what);
}

static int run_events(void)
{
    static int ctx_a, ctx_b; /* the user data events carry */
    doca_verbs_comp_channel_t *ch = NULL;
    doca_verbs_cq_attr_t *attr = NULL;
    struct vt_dev d;
    struct end a = {0}, b = {0};
    struct info ia, ib, bad;
    void *ctx = NULL;

    vt_open(&d);
    CHECK(doca_verbs_comp_channel_create(NULL, &ch) == DOCA_ERROR_INVALID_VALUE, "NULL device");
    if (doca_verbs_comp_channel_create(d.dev, &ch) != DOCA_SUCCESS ||
        doca_verbs_cq_attr_create(&attr) != DOCA_SUCCESS) {
        fprintf(stderr, "FAIL: completion channel\n");
        return 1;
    }
    doca_verbs_cq_attr_set_cq_size(attr, CQ_SIZE);
    doca_verbs_cq_attr_set_cq_context(attr, &ctx_a);
    doca_verbs_cq_attr_set_comp_channel(attr, ch);
    CHECK(doca_verbs_cq_attr_set_st(attr, (enum doca_verbs_cq_state)7) == DOCA_ERROR_INVALID_VALUE,
          "st outside the enum");
    CHECK(doca_verbs_cq_attr_set_st(attr, DOCA_VERBS_CQ_ST_NOTIFICATION_REQUEST_ARMED) ==
                  DOCA_SUCCESS,
          "st armed");
    CHECK(doca_verbs_cq_create(d.dev, attr, &a.cq) == DOCA_SUCCESS, "CQ on the channel");
    doca_verbs_cq_attr_destroy(attr);
    if (end_create(&d, &a, &host_mem) != 0 || end_create(&d, &b, &host_mem) != 0) {
        fprintf(stderr, "FAIL: cannot create the QPs\n");
        return 1;
    }
    if (connect_pair(&d, &a, &b, &ia, &ib) != 0)
        return 1;
    CHECK(doca_verbs_get_cq_comp_channel_event(ch, &ctx) == DOCA_ERROR_AGAIN && ctx == NULL,
          "an event before any CQE");

    /* Armed at creation (st): the first CQE fires, once. */
    write_ok(&a, &ib, "write under st armed");
    CHECK(vt_wait_cq_event(ch, TIMEOUT_MS, &failures) == &ctx_a,
          "no event for the CQE of a CQ created armed");
    write_ok(&a, &ib, "write after the event");
    CHECK(vt_wait_cq_event(ch, 50, &failures) == NULL, "a second event without re-arming");
    CHECK(doca_verbs_cq_destroy(a.cq) == DOCA_ERROR_IN_USE, "CQ destroy with a QP");
    CHECK(doca_verbs_ack_cq_events(a.cq, 2) == DOCA_ERROR_INVALID_VALUE,
          "ack more than handed out");
    CHECK(doca_verbs_ack_cq_events(a.cq, 0) == DOCA_ERROR_INVALID_VALUE, "ack 0");
    CHECK(doca_verbs_ack_cq_events(a.cq, 1) == DOCA_SUCCESS, "ack");

    /* Arm for any CQE through the doorbell; a new cq_context. */
    CHECK(doca_verbs_cq_set_cq_context(a.cq, &ctx_b) == DOCA_SUCCESS, "set cq_context");
    arm_cq(&a, PRM_CQ_DB_CMD_REQ_NOT, 1);
    CHECK(vt_wait_cq_event(ch, 50, &failures) == NULL, "an event with no new CQE");
    write_ok(&a, &ib, "write under REQ_NOT");
    CHECK(vt_wait_cq_event(ch, TIMEOUT_MS, &failures) == &ctx_b, "no event after the arm doorbell");
    CHECK(doca_verbs_ack_cq_events(a.cq, 1) == DOCA_SUCCESS, "ack");

    /* Solicited-only: a successful CQE does not fire, an error CQE does. */
    arm_cq(&a, PRM_CQ_DB_CMD_REQ_NOT_SOL, 2);
    write_ok(&a, &ib, "write under REQ_NOT_SOL");
    CHECK(vt_wait_cq_event(ch, 50, &failures) == NULL,
          "a solicited-only arm fired on a successful CQE");
    bad = ib;
    bad.rkey ^= 0xffff00;
    post_rdma(&a, PRM_WQE_OPCODE_RDMA_WRITE, 0, 64, &bad, 0, 0);
    expect_cqe(&a, PRM_CQE_OPCODE_REQ_ERR, "write with a wrong rkey");
    CHECK(vt_wait_cq_event(ch, TIMEOUT_MS, &failures) == &ctx_b, "no event for the error CQE");

    CHECK(doca_verbs_comp_channel_destroy(ch) == DOCA_ERROR_IN_USE, "channel destroy with a CQ");
    CHECK(doca_verbs_qp_destroy(a.qp) == DOCA_SUCCESS, "QP destroy");
    CHECK(doca_verbs_cq_destroy(a.cq) == DOCA_ERROR_IN_USE, "CQ destroy with an unacked event");
    CHECK(doca_verbs_ack_cq_events(a.cq, 1) == DOCA_SUCCESS, "ack");
    a.qp = NULL;
    CHECK(doca_verbs_cq_destroy(a.cq) == DOCA_SUCCESS, "CQ destroy");
    a.cq = NULL;
    ibv_dereg_mr(a.mr);
    free(a.buf);
    end_destroy(&b);
    CHECK(doca_verbs_comp_channel_destroy(ch) == DOCA_SUCCESS, "channel destroy");
    vt_close(&d);
    return failures != 0;
}

static int run_fork(void)
{
    int sv[2], fd, status = 0;
    pid_t pid;
    struct vt_dev d;
    struct end e = {0};
    struct info mine, peer;
    char done = 0;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 1;
    pid = fork();
    if (pid < 0)
        return 1;
    /* Each process keeps its own end: a shared end would let a process read its own bytes. */
    fd = sv[pid == 0];
    close(sv[pid != 0]);
    vt_open(&d);
    if (end_create(&d, &e, &host_mem) != 0) {
        fprintf(stderr, "FAIL: cannot create the QP\n");
        return 1;
    }
    info_of(&d, &e, &mine);
    /* The responder checks its buffer once the requester says it is done (tests/tsan.h). */
    if (pid == 0)
        DGN_TSAN_PEER_MEMORY(e.buf, BUF_SIZE);
    if (pid == 0)
        *(uint64_t *)(e.buf + 2048) = htobe64(100);
    if (pid == 0)
        post_recv(&e, 1024, 256);
    if (write(fd, &mine, sizeof(mine)) != sizeof(mine) ||
        read(fd, &peer, sizeof(peer)) != sizeof(peer) || connect_qp(&d, &e, &peer) != 0) {
        fprintf(stderr, "FAIL: exchange or connection\n");
        return 1;
    }
    /* Both sides in RTS before any request. */
    if (write(fd, &done, 1) != 1 || read(fd, &done, 1) != 1)
        return 1;
    if (pid != 0) {
        run_requester(&e, &peer, NULL);
        done = 1;
        if (write(fd, &done, 1) != 1)
            return 1;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "responder process failed");
    } else {
        if (read(fd, &done, 1) != 1)
            return 1;
        for (int i = 0; i < N_WRITES; i++)
            CHECK(count_not(e.buf + 64 * i, 0x10 + i, 64) == 0, "written block %d differs", i);
        check_responder(&e);
    }
    end_destroy(&e);
    vt_close(&d);
    return failures != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "local";
    int rc;

    if (strcmp(mode, "gpu") == 0) {
        const char *why = emu_cuda_open(&cuda);

        if (why != NULL) {
            printf("skipped: no CUDA device (%s)\n", why);
            return VT_SKIP;
        }
        rc = run_local(&gpu_mem);
    } else {
        rc = strcmp(mode, "fork") == 0     ? run_fork()
             : strcmp(mode, "events") == 0 ? run_events()
                                           : run_local(&host_mem);
    }
    printf("%s: %s (%d failures)\n", mode, rc == 0 ? "passed" : "FAILED", failures);
    return rc;
}
