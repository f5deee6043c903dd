/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA axis of a GPU data path, on the fake CUDA driver under
 * softmlx5-run: a GPU without dma-buf (FAKE_CUDA_DMABUF=0) is refused by
 * doca_ctx_set_datapath_on_gpu with NOT_SUPPORTED naming the CUDA
 * attribute, a GPU below compute capability 8.0 cannot even be opened, and a
 * buffer array's handle goes to GPU memory for a target GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eth_test.h"
#include "fake_cuda.h"
#include "gpunetio/gpunetio_internal.h"

#define GPU_A "0000:8a:00.0" /* 9.0, no dma-buf (FAKE_CUDA_DMABUF=0) */

static struct et_dev d;
static doca_gpu_t *gpu;
static const struct core_cuda_ops *cuda;

static int group_setup(void **state)
{
    (void)state;
    log_setup();
    et_open(&d);
    if (core_cuda_get(&cuda) != DOCA_SUCCESS)
        return -1;
    return doca_gpu_create(GPU_A, &gpu) == DOCA_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    et_close(&d);
    return doca_gpu_destroy(gpu) == DOCA_SUCCESS ? 0 : -1;
}

static void test_no_dmabuf(void **state)
{
    struct doca_eth_rxq *rxq = NULL;
    struct doca_eth_txq *txq = NULL;
    struct doca_gpu_eth_rxq *h = NULL;

    (void)state;
    assert_int_equal(doca_eth_rxq_create(d.dev, 256, 1500, &rxq), DOCA_SUCCESS);
    expect_refusal(doca_ctx_set_datapath_on_gpu(doca_eth_rxq_as_doca_ctx(rxq), gpu),
                   DOCA_ERROR_NOT_SUPPORTED,
                   "CUDA axis: GPU 0000:8a:00.0 has no dma-buf "
                   "(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0)");
    /* Refused: the data path was never chosen, so the queue cannot start. */
    expect_refusal(doca_ctx_start(doca_eth_rxq_as_doca_ctx(rxq)), DOCA_ERROR_BAD_STATE,
                   "doca_ctx_set_datapath_on_gpu");
    expect_refusal(doca_eth_rxq_get_gpu_handle(rxq, &h), DOCA_ERROR_BAD_STATE, "doca_ctx_start");
    assert_int_equal(doca_eth_rxq_destroy(rxq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_create(d.dev, 256, &txq), DOCA_SUCCESS);
    expect_refusal(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(txq), gpu),
                   DOCA_ERROR_NOT_SUPPORTED, "CUDA axis");
    assert_int_equal(doca_eth_txq_destroy(txq), DOCA_SUCCESS);
}

static void test_old_gpu(void **state)
{
    doca_gpu_t *old = NULL;

    (void)state;
    /* The second fake GPU has compute capability 7.5: no context, hence no GPU data path. */
    capture_start();
    assert_int_equal(doca_gpu_create("0000:1b:00.0", &old), DOCA_ERROR_NOT_SUPPORTED);
    free(capture_stop());
}

static void test_buf_arr_on_gpu(void **state)
{
    struct doca_buf_arr *arr = NULL;
    struct doca_gpu_buf_arr *h = NULL, copy;
    struct doca_mmap *m;
    void *mem;

    (void)state;
    m = et_mmap(d.dev, 64 * 1024, true, &mem);
    assert_non_null(m);
    assert_int_equal(doca_buf_arr_create(16, &arr), DOCA_SUCCESS);
    assert_int_equal(doca_buf_arr_set_target_gpu(arr, gpu), DOCA_SUCCESS);
    assert_int_equal(doca_buf_arr_set_params(arr, m, 1024, 4096), DOCA_SUCCESS);
    assert_int_equal(doca_buf_arr_start(arr), DOCA_SUCCESS);
    expect_refusal(doca_buf_arr_set_target_gpu(arr, NULL), DOCA_ERROR_BAD_STATE,
                   "doca_buf_arr_stop first");
    assert_int_equal(doca_buf_arr_get_gpu_handle(arr, &h), DOCA_SUCCESS);
    assert_true(gpunetio_mem_find(gpu, h, sizeof(*h), NULL)); /* in the GPU's memory */
    assert_int_equal(cuda->cuMemcpyDtoH(&copy, (core_cu_deviceptr)(uintptr_t)h, sizeof(copy)),
                     CORE_CU_SUCCESS);
    assert_int_equal(copy.base, (uint64_t)(uintptr_t)mem + 4096);
    assert_int_equal(copy.num_elem, 16);
    assert_int_equal(doca_buf_arr_destroy(arr), DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 0);
    et_mmap_free(m, mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_no_dmabuf),
            cmocka_unit_test(test_old_gpu),
            cmocka_unit_test(test_buf_arr_on_gpu),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
