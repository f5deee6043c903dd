/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet queues with a GPU data path on the machine's first GPU, under
 * softmlx5-run: the packet buffer in GPU memory registered by dma-buf, the
 * rings and descriptors in GPU memory, read back through the CUDA driver;
 * steering on, off; the teardown order. Exits 77 ("skipped: ...") without
 * a usable GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "device/impl/gdaki_eth_desc.h"
#include "eth_test.h"
#include "gpunetio/gpunetio_internal.h"

#define SLOTS 512
#define SLOT  2048

static struct et_dev d;
static doca_gpu_t *gpu;
static const struct core_cuda_ops *cuda;
static char bus_id[32];

static void dtoh(void *dst, const void *src, size_t n)
{
    assert_int_equal(cuda->cuMemcpyDtoH(dst, (core_cu_deviceptr)(uintptr_t)src, n),
                     CORE_CU_SUCCESS);
}

static void test_queues_on_gpu(void **state)
{
    struct doca_eth_rxq *rxq = NULL;
    struct doca_eth_txq *txq = NULL;
    struct doca_gpu_eth_rxq *rh = NULL, r;
    struct doca_gpu_eth_txq *th = NULL, t;
    struct dgn_eth_flow *flow = NULL;
    struct doca_mmap *m = NULL;
    void *pkt = NULL;
    uint32_t wqe[4], dbr;
    int fd = -1;

    (void)state;
    assert_int_equal(
            doca_gpu_mem_alloc(gpu, SLOTS * SLOT, 65536, DOCA_GPU_MEM_TYPE_GPU, &pkt, NULL),
            DOCA_SUCCESS);
    assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
    assert_int_equal(doca_mmap_add_dev(m, d.dev), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, pkt, SLOTS * SLOT, &fd), DOCA_SUCCESS);
    assert_int_equal(doca_mmap_set_dmabuf_memrange(m, fd, pkt, 0, SLOTS * SLOT), DOCA_SUCCESS);
    close(fd); /* the mmap keeps its own */
    assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);

    assert_int_equal(doca_eth_rxq_create(d.dev, SLOTS, SLOT, &rxq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_rxq_set_pkt_buf(rxq, m, 0, SLOTS * SLOT), DOCA_SUCCESS);
    assert_int_equal(doca_ctx_set_datapath_on_gpu(doca_eth_rxq_as_doca_ctx(rxq), gpu),
                     DOCA_SUCCESS);
    assert_int_equal(doca_ctx_start(doca_eth_rxq_as_doca_ctx(rxq)), DOCA_SUCCESS);
    assert_int_equal(doca_eth_rxq_get_gpu_handle(rxq, &rh), DOCA_SUCCESS);
    assert_true(gpunetio_mem_find(gpu, rh, sizeof(*rh), NULL)); /* in GPU memory */
    dtoh(&r, rh, sizeof(r));
    assert_int_equal(r.layout_size, sizeof(r));
    assert_int_equal(r.wqe_num, SLOTS);
    assert_ptr_equal(r.pkt_daddr, pkt);
    assert_int_equal(r.mem_type, DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU);
    assert_int_equal(r.nic_scope, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU);
    assert_true(gpunetio_mem_find(gpu, r.wqe_daddr, SLOTS * 16, NULL));
    dtoh(&dbr, r.rq_dbrec, sizeof(dbr));
    assert_int_equal(__builtin_bswap32(dbr), SLOTS);
    dtoh(wqe, r.wqe_daddr + 3 * 16, sizeof(wqe));
    assert_int_equal(__builtin_bswap32(wqe[0]), SLOT);
    assert_int_equal(((uint64_t)__builtin_bswap32(wqe[2]) << 32) | __builtin_bswap32(wqe[3]),
                     (uint64_t)(uintptr_t)pkt + 3 * SLOT);

    assert_int_equal(doca_eth_txq_create(d.dev, 256, &txq), DOCA_SUCCESS);
    assert_int_equal(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(txq), gpu),
                     DOCA_SUCCESS);
    assert_int_equal(doca_ctx_start(doca_eth_txq_as_doca_ctx(txq)), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_get_gpu_handle(txq, &th), DOCA_SUCCESS);
    assert_true(gpunetio_mem_find(gpu, th, sizeof(*th), NULL));
    dtoh(&t, th, sizeof(t));
    assert_int_equal(t.wqe_num, 256);
    assert_non_null(t.sq_db);
    assert_int_equal(t.mem_type, DOCA_GPUNETIO_VERBS_MEM_TYPE_GPU);
    assert_int_equal(t.nic_handler, DOCA_GPUNETIO_ETH_NIC_HANDLER_GPU_SM_DB);

    assert_int_equal(dgn_eth_flow_create_all(d.dev, &rxq, 1, &flow), DOCA_SUCCESS);
    expect_refusal(doca_eth_rxq_destroy(rxq), DOCA_ERROR_IN_USE, "destroy the flow first");
    assert_int_equal(dgn_eth_flow_destroy(flow), DOCA_SUCCESS);
    expect_refusal(doca_eth_rxq_destroy(rxq), DOCA_ERROR_BAD_STATE, "stop the context first");
    expect_refusal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE, "");
    assert_int_equal(doca_ctx_stop(doca_eth_txq_as_doca_ctx(txq)), DOCA_SUCCESS);
    assert_int_equal(doca_ctx_stop(doca_eth_rxq_as_doca_ctx(rxq)), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_destroy(txq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_rxq_destroy(rxq), DOCA_SUCCESS);
    assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, pkt), DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 0);
}

/* The rings in pinned host memory the GPU maps (doca_eth_*q_gpu_set_*_mem_type CPU_GPU). */
static void test_rings_in_host_memory(void **state)
{
    struct doca_eth_txq *txq = NULL;
    struct doca_gpu_eth_txq *th = NULL, t;

    (void)state;
    assert_int_equal(doca_eth_txq_create(d.dev, 64, &txq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_gpu_set_sq_mem_type(txq, DOCA_GPU_MEM_TYPE_CPU_GPU),
                     DOCA_SUCCESS);
    assert_int_equal(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(txq), gpu),
                     DOCA_SUCCESS);
    assert_int_equal(doca_ctx_start(doca_eth_txq_as_doca_ctx(txq)), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_get_gpu_handle(txq, &th), DOCA_SUCCESS);
    dtoh(&t, th, sizeof(t));
    assert_int_equal(t.mem_type, DOCA_GPUNETIO_VERBS_MEM_TYPE_HOST);
    assert_int_equal(t.nic_scope, DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS);
    assert_int_equal(doca_ctx_stop(doca_eth_txq_as_doca_ctx(txq)), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_destroy(txq), DOCA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_queues_on_gpu),
            cmocka_unit_test(test_rings_in_host_memory),
    };
    core_cu_device dev = 0;
    int count = 0, major = 0, dmabuf = 0, rc;

    log_setup();
    if (core_cuda_get(&cuda) != DOCA_SUCCESS || cuda->cuDeviceGetCount(&count) != CORE_CU_SUCCESS ||
        count < 1 || cuda->cuDeviceGet(&dev, 0) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGetPCIBusId(bus_id, (int)sizeof(bus_id), dev) != CORE_CU_SUCCESS) {
        printf("skipped: no CUDA device\n");
        return ETH_TEST_SKIP;
    }
    cuda->cuDeviceGetAttribute(&major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR, dev);
    cuda->cuDeviceGetAttribute(&dmabuf, CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED, dev);
    if (major < 8 || !dmabuf) {
        printf("skipped: GPU %s: compute capability %d.x, dma-buf %d\n", bus_id, major, dmabuf);
        return ETH_TEST_SKIP;
    }
    if (doca_gpu_create(bus_id, &gpu) != DOCA_SUCCESS) {
        printf("skipped: doca_gpu_create(%s) refused\n", bus_id);
        return ETH_TEST_SKIP;
    }
    et_open(&d);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    et_close(&d);
    if (doca_gpu_destroy(gpu) != DOCA_SUCCESS)
        rc = 1;
    return rc;
}
