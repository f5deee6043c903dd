/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WQE builders and CQE accessors of include/device/impl/prm run on the GPU
 * and produce byte-for-byte what they produce on the host: one thread per
 * WQE (or CQE), many threads, compared after a copy back.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

enum {
    LOG_RING = 12,
    WQE_COUNT = 1 << LOG_RING,
    CQE_COUNT = 4096,
    LOG_CQ = 8,
    KINDS = 6,
};

/* Ring counters start just below a 16-bit wrap, so WQE indexes and ring slots both wrap. */
#define FIRST_COUNTER 0x3fff0ull

__host__ __device__ static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Builds WQE number i (one of KINDS shapes) in its ring slot; values come from mix(i). */
__host__ __device__ static void build_wqe(void *ring, uint32_t i)
{
    uint64_t counter = FIRST_COUNTER + i;
    uint8_t *wqe = (uint8_t *)prm_wqe_slot(ring, counter, LOG_RING);
    uint64_t r = mix(i);
    uint64_t s = mix(r);
    struct prm_wqe_ctrl_seg *ctrl = (struct prm_wqe_ctrl_seg *)wqe;
    struct prm_wqe_raddr_seg *raddr = (struct prm_wqe_raddr_seg *)(ctrl + 1);
    uint32_t qpn = (uint32_t)(r >> 40);
    uint8_t flags = (i & 1) ? PRM_WQE_CTRL_CQ_UPDATE : PRM_WQE_CTRL_CE_ERROR_ONLY;

    for (int b = 0; b < PRM_WQE_BB_SIZE; b++)
        wqe[b] = 0;
    switch (i % KINDS) {
    case 0: { /* RDMA WRITE: ctrl + raddr + data */
        struct prm_wqe_data_seg *data = (struct prm_wqe_data_seg *)(raddr + 1);

        prm_wqe_set_ctrl_seg(ctrl, (uint16_t)counter, PRM_WQE_OPCODE_RDMA_WRITE, 0, qpn, flags,
                             PRM_WQE_DS_RDMA, 0, 0);
        prm_wqe_set_raddr_seg(raddr, s, (uint32_t)r);
        prm_wqe_set_data_seg(data, (uint32_t)(s >> 32), (uint32_t)(r >> 8), mix(s));
        break;
    }
    case 1: { /* RDMA WRITE with inline data: ctrl + raddr + inline header + up to 28 bytes */
        struct prm_wqe_inline_seg *inl = (struct prm_wqe_inline_seg *)(raddr + 1);
        uint32_t len = (uint32_t)(s % 29);
        uint8_t *data = (uint8_t *)prm_wqe_inline_data(inl);
        uint32_t ds = prm_wqe_ds_count(sizeof(*ctrl) + sizeof(*raddr)) + prm_wqe_inline_ds(len);

        prm_wqe_set_ctrl_seg(ctrl, (uint16_t)counter, PRM_WQE_OPCODE_RDMA_WRITE_IMM, 0, qpn,
                             flags | PRM_WQE_CTRL_SOLICITED, (uint8_t)ds, 0, (uint32_t)s);
        prm_wqe_set_raddr_seg(raddr, r, (uint32_t)(s >> 16));
        prm_wqe_set_inline_seg(inl, len);
        for (uint32_t b = 0; b < len; b++)
            data[b] = (uint8_t)((r >> (b % 8 * 8)) ^ b);
        break;
    }
    case 2:   /* ATOMIC FA: ctrl + raddr + atomic + data */
    case 3: { /* ATOMIC CS */
        struct prm_wqe_atomic_seg *atomic = (struct prm_wqe_atomic_seg *)(raddr + 1);
        struct prm_wqe_data_seg *data = (struct prm_wqe_data_seg *)(atomic + 1);
        uint8_t opcode = i % KINDS == 2 ? PRM_WQE_OPCODE_ATOMIC_FA : PRM_WQE_OPCODE_ATOMIC_CS;

        prm_wqe_set_ctrl_seg(ctrl, (uint16_t)counter, opcode, 0, qpn,
                             flags | PRM_WQE_CTRL_FM_INITIATOR_SMALL, PRM_WQE_DS_ATOMIC, 0, 0);
        prm_wqe_set_raddr_seg(raddr, s & ~7ull, (uint32_t)r);
        prm_wqe_set_atomic_seg(atomic, r, s);
        prm_wqe_set_data_seg(data, 8, (uint32_t)(s >> 8), mix(r) & ~7ull);
        break;
    }
    case 4: { /* masked FA on 4 bytes */
        struct prm_wqe_masked_fa32_seg *fa = (struct prm_wqe_masked_fa32_seg *)(raddr + 1);
        struct prm_wqe_data_seg *data = (struct prm_wqe_data_seg *)(fa + 1);

        prm_wqe_set_ctrl_seg(ctrl, (uint16_t)counter, PRM_WQE_OPCODE_ATOMIC_MASKED_FA,
                             prm_wqe_ext_atomic_opmod(2), qpn, flags, PRM_WQE_DS_ATOMIC, 0, 0);
        prm_wqe_set_raddr_seg(raddr, s & ~3ull, (uint32_t)r);
        prm_wqe_set_masked_fa32_seg(fa, (uint32_t)r, 0);
        prm_wqe_set_data_seg(data, 4, (uint32_t)(s >> 8), mix(r) & ~3ull);
        break;
    }
    default: { /* WAIT on a CQ index */
        struct prm_wqe_wait_seg *wait = (struct prm_wqe_wait_seg *)(ctrl + 1);

        prm_wqe_set_ctrl_seg(ctrl, (uint16_t)counter, PRM_WQE_OPCODE_WAIT, 0, qpn,
                             PRM_WQE_CTRL_CQ_UPDATE, PRM_WQE_DS_WAIT, 0, 0);
        prm_wqe_set_wait_seg(wait, (uint32_t)(r & 0xffffff), (uint32_t)s);
        break;
    }
    }
}

__global__ void build_wqes(void *ring, uint32_t count)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < count)
        build_wqe(ring, i);
}

/* What a poller reads from one CQE. */
struct cqe_reading {
    uint32_t byte_cnt;
    uint32_t qpn;
    uint32_t imm;
    uint16_t wqe_counter;
    uint8_t opcode;
    uint8_t owner;
    uint8_t format;
    uint8_t wqe_opcode;
    uint8_t syndrome;
    uint8_t vendor_syndrome;
    uint8_t flags; /* is_error | is_compressed << 1 | sw_owned << 2 */
    uint8_t pad[3];
};

__host__ __device__ static void read_cqe(const struct prm_cqe64 *cqe, uint32_t i,
                                         struct cqe_reading *out)
{
    out->byte_cnt = prm_cqe_byte_cnt(cqe);
    out->qpn = prm_cqe_qpn(cqe);
    out->imm = prm_cqe_imm(cqe);
    out->wqe_counter = prm_cqe_wqe_counter(cqe);
    out->opcode = prm_cqe_opcode(cqe);
    out->owner = prm_cqe_owner(cqe);
    out->format = prm_cqe_format(cqe);
    out->wqe_opcode = prm_cqe_wqe_opcode(cqe);
    out->syndrome = prm_cqe_syndrome(cqe);
    out->vendor_syndrome = prm_cqe_vendor_syndrome(cqe);
    out->flags = (uint8_t)(prm_cqe_is_error(cqe) | prm_cqe_is_compressed(cqe) << 1 |
                           prm_cqe_sw_owned(cqe, i, LOG_CQ) << 2);
    out->pad[0] = out->pad[1] = out->pad[2] = 0;
}

/* Builds CQE number i with one of the three builders, op_own stored last. */
__host__ __device__ static void build_cqe(struct prm_cqe64 *cqe, uint32_t i)
{
    uint64_t r = mix(i + 0x10000);
    uint8_t owner = prm_cqe_owner_for_index(i, LOG_CQ);
    uint8_t op_own;

    switch (i % 3) {
    case 0:
        op_own = prm_cqe_fill_req(cqe, (uint8_t)r, (uint32_t)(r >> 8), (uint16_t)(r >> 32),
                                  (uint32_t)(r >> 24), owner);
        break;
    case 1:
        op_own = prm_cqe_fill_resp(cqe, PRM_CQE_OPCODE_RESP_SEND_IMM, (uint32_t)(r >> 8),
                                   (uint16_t)(r >> 32), (uint32_t)(r >> 24), (uint32_t)(r >> 16),
                                   owner);
        break;
    default:
        op_own = prm_cqe_fill_error(cqe, PRM_CQE_OPCODE_REQ_ERR, (uint8_t)r, (uint8_t)(r >> 8),
                                    (uint8_t)(r >> 16), (uint32_t)(r >> 24), (uint16_t)(r >> 48),
                                    owner);
        break;
    }
    cqe->op_own = op_own;
}

__global__ void read_and_build_cqes(const struct prm_cqe64 *in, struct cqe_reading *readings,
                                    struct prm_cqe64 *built, uint32_t count)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < count) {
        read_cqe(&in[i], i, &readings[i]);
        build_cqe(&built[i], i);
    }
}

/* Host-made CQEs to read: random bytes, some built, op_own covering all 256 values. */
static void make_input_cqes(struct prm_cqe64 *cqes)
{
    for (uint32_t i = 0; i < CQE_COUNT; i++) {
        uint8_t *bytes = (uint8_t *)&cqes[i];

        for (uint32_t b = 0; b < sizeof(cqes[i]); b += 8) {
            uint64_t v = mix(((uint64_t)i << 8) | b);

            memcpy(bytes + b, &v, sizeof(v));
        }
        if (i % 4 == 1)
            build_cqe(&cqes[i], i);
        else
            cqes[i].op_own = (uint8_t)i;
    }
}

static int check_wqes(void)
{
    static uint8_t host_ring[WQE_COUNT * PRM_WQE_BB_SIZE];
    static uint8_t gpu_ring[WQE_COUNT * PRM_WQE_BB_SIZE];
    void *dev_ring = NULL;
    int mismatches = 0;

    GPU_CHECK(cudaMalloc(&dev_ring, sizeof(gpu_ring)) == cudaSuccess);
    if (!dev_ring)
        return 1;
    GPU_CHECK(cudaMemset(dev_ring, 0xa5, sizeof(gpu_ring)) == cudaSuccess);
    build_wqes<<<WQE_COUNT / 128, 128>>>(dev_ring, WQE_COUNT);
    GPU_CHECK(cudaGetLastError() == cudaSuccess);
    GPU_CHECK(cudaMemcpy(gpu_ring, dev_ring, sizeof(gpu_ring), cudaMemcpyDeviceToHost) ==
              cudaSuccess);
    GPU_CHECK(cudaFree(dev_ring) == cudaSuccess);

    memset(host_ring, 0xa5, sizeof(host_ring));
    for (uint32_t i = 0; i < WQE_COUNT; i++)
        build_wqe(host_ring, i);
    for (uint32_t i = 0; i < WQE_COUNT; i++) {
        const uint8_t *h = (const uint8_t *)prm_wqe_slot(host_ring, FIRST_COUNTER + i, LOG_RING);
        const uint8_t *g = (const uint8_t *)prm_wqe_slot(gpu_ring, FIRST_COUNTER + i, LOG_RING);

        if (memcmp(h, g, PRM_WQE_BB_SIZE) != 0 && mismatches++ < 5)
            fprintf(stderr, "WQE %u (kind %u) differs between host and GPU\n", i, i % KINDS);
    }
    GPU_CHECK(mismatches == 0);

    /* The host ring is not trivially right either: spot-check WQE 0's control segment. */
    const struct prm_wqe_ctrl_seg *ctrl =
            (const struct prm_wqe_ctrl_seg *)prm_wqe_slot(host_ring, FIRST_COUNTER, LOG_RING);
    GPU_CHECK(gdaki_be32toh(ctrl->opmod_idx_opcode) ==
              (((uint32_t)(uint16_t)FIRST_COUNTER << 8) | PRM_WQE_OPCODE_RDMA_WRITE));
    GPU_CHECK((gdaki_be32toh(ctrl->qpn_ds) & 0xff) == PRM_WQE_DS_RDMA);
    return 0;
}

static int check_cqes(void)
{
    static struct prm_cqe64 input[CQE_COUNT];
    static struct prm_cqe64 host_built[CQE_COUNT];
    static struct prm_cqe64 gpu_built[CQE_COUNT];
    static struct cqe_reading host_readings[CQE_COUNT];
    static struct cqe_reading gpu_readings[CQE_COUNT];
    struct prm_cqe64 *dev_in = NULL;
    struct prm_cqe64 *dev_built = NULL;
    struct cqe_reading *dev_readings = NULL;

    make_input_cqes(input);
    GPU_CHECK(cudaMalloc((void **)&dev_in, sizeof(input)) == cudaSuccess);
    GPU_CHECK(cudaMalloc((void **)&dev_built, sizeof(gpu_built)) == cudaSuccess);
    GPU_CHECK(cudaMalloc((void **)&dev_readings, sizeof(gpu_readings)) == cudaSuccess);
    if (!dev_in || !dev_built || !dev_readings)
        return 1;
    GPU_CHECK(cudaMemcpy(dev_in, input, sizeof(input), cudaMemcpyHostToDevice) == cudaSuccess);
    GPU_CHECK(cudaMemset(dev_built, 0xa5, sizeof(gpu_built)) == cudaSuccess);
    read_and_build_cqes<<<CQE_COUNT / 256, 256>>>(dev_in, dev_readings, dev_built, CQE_COUNT);
    GPU_CHECK(cudaGetLastError() == cudaSuccess);
    GPU_CHECK(cudaMemcpy(gpu_readings, dev_readings, sizeof(gpu_readings),
                         cudaMemcpyDeviceToHost) == cudaSuccess);
    GPU_CHECK(cudaMemcpy(gpu_built, dev_built, sizeof(gpu_built), cudaMemcpyDeviceToHost) ==
              cudaSuccess);
    GPU_CHECK(cudaFree(dev_in) == cudaSuccess);
    GPU_CHECK(cudaFree(dev_built) == cudaSuccess);
    GPU_CHECK(cudaFree(dev_readings) == cudaSuccess);

    memset(host_built, 0xa5, sizeof(host_built));
    for (uint32_t i = 0; i < CQE_COUNT; i++) {
        read_cqe(&input[i], i, &host_readings[i]);
        build_cqe(&host_built[i], i);
    }
    GPU_CHECK(memcmp(host_readings, gpu_readings, sizeof(host_readings)) == 0);
    GPU_CHECK(memcmp(host_built, gpu_built, sizeof(host_built)) == 0);

    /* The readings vary: every opcode and both owners were seen. */
    uint32_t opcodes_seen = 0;
    uint32_t owners_seen = 0;
    for (uint32_t i = 0; i < CQE_COUNT; i++) {
        opcodes_seen |= 1u << host_readings[i].opcode;
        owners_seen |= 1u << host_readings[i].owner;
    }
    GPU_CHECK(opcodes_seen == 0xffff);
    GPU_CHECK(owners_seen == 0x3);
    return 0;
}

int main(void)
{
    gpu_test_require_device();
    check_wqes();
    check_cqes();
    return gpu_test_finish();
}
