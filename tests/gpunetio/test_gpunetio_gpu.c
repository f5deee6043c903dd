/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_gpu_create / doca_gpu_destroy on the fake CUDA driver with
 * FAKE_CUDA_GPUS="0000:8a:00.0=9.0,0000:1b:00.0=7.5,0001:1c:00.0=8.0": bus id
 * forms, one counted context per GPU, refusals and their log lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "fake_cuda.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio_test.h"

#define GPU_A "0000:8a:00.0" /* 9.0: opens */
#define GPU_B "0000:1b:00.0" /* 7.5: too old */
#define GPU_C "0001:1c:00.0" /* 8.0: the oldest that opens, domain 1 */

static struct fake_cuda_hooks fake;

static int group_setup(void **state)
{
    const struct core_cuda_ops *cuda;

    (void)state;
    log_setup();
    if (core_cuda_get(&cuda) != DOCA_SUCCESS || !fake_cuda_hooks(&fake)) {
        fprintf(stderr, "the fake CUDA driver (DOCA_GPUNETIO_LIBCUDA) is not loaded\n");
        return -1;
    }
    return 0;
}

static void test_null_arguments(void **state)
{
    doca_gpu_t *gpu = (doca_gpu_t *)&fake; /* sentinel: must stay */
    char *log;

    (void)state;
    capture_start();
    assert_int_equal(doca_gpu_create(NULL, &gpu), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "must not be NULL");
    free(log);
    assert_ptr_equal(gpu, (doca_gpu_t *)&fake);
    assert_int_equal(doca_gpu_create(GPU_A, NULL), DOCA_ERROR_INVALID_VALUE);
    capture_start();
    assert_int_equal(doca_gpu_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "gpu_dev is NULL");
    free(log);
    assert_int_equal(fake.primary_refs(0), 0);
}

static void test_malformed_bus_ids(void **state)
{
    static const char *const bad[] = {
            "",
            "8a",
            "8a:00",
            "8a:00.8",
            "zz:00.0",
            "8a:20.0",
            "8a:00.0 ",
            " 8a:00.0",
            "0000:8a:00.0:1",
            "123:00.0",
            "8a::00.0",
            "0000:8a:000.0",
            "1000000:8a:00.0",
            "8a:00.00",
            "8a.00:0",
            "-1:00.0",
    };
    doca_gpu_t *gpu = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *log;

        capture_start();
        assert_int_equal(doca_gpu_create(bad[i], &gpu), DOCA_ERROR_INVALID_VALUE);
        log = capture_stop();
        assert_one_error_line(log, "is not a PCIe bus id");
        assert_non_null(strstr(log, bad[i]));
        free(log);
        assert_null(gpu);
    }
    assert_int_equal(fake.primary_refs(0), 0);
}

static void test_long_bus_id_is_cut_in_the_log(void **state)
{
    char longer[300];
    doca_gpu_t *gpu = NULL;
    char *log;

    (void)state;
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    capture_start();
    assert_int_equal(doca_gpu_create(longer, &gpu), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "aaaa...\" is not a PCIe bus id");
    assert_null(strstr(log, longer));
    free(log);
}

static void test_every_form_gives_one_counted_context(void **state)
{
    static const char *const forms[] = {"8a:00.0", "0000:8A:00.0", "8A:00.0", "0000:8a:00.0",
                                        "0:8a:0.0"};
    const size_t n = sizeof(forms) / sizeof(forms[0]);
    doca_gpu_t *gpu[sizeof(forms) / sizeof(forms[0])];
    char *log;

    (void)state;
    capture_start();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(doca_gpu_create(forms[i], &gpu[i]), DOCA_SUCCESS);
    log = capture_stop();
    assert_int_equal(count_of(log, "[ERR]"), 0);
    assert_int_equal(count_of(log, "opened GPU " GPU_A " (Fake GPU 0, CUDA device 0, compute "
                                   "capability 9.0, dma-buf supported)"),
                     1);
    assert_int_equal(count_of(log, "GPU " GPU_A " is open already"), (int)n - 1);
    free(log);
    for (size_t i = 1; i < n; i++)
        assert_ptr_equal(gpu[i], gpu[0]);
    assert_string_equal(gpu[0]->bus_id, GPU_A);
    assert_int_equal(gpu[0]->refs, (int)n);
    assert_int_equal(gpu[0]->cc_major, 9);
    assert_int_equal(gpu[0]->cc_minor, 0);
    assert_int_equal(gpu[0]->ordinal, 0);
    assert_true(gpu[0]->dmabuf);
    assert_int_equal(atomic_load(&gpu[0]->users), 0);
    /* The primary context is retained once, and current on this thread. */
    assert_int_equal(fake.primary_refs(0), 1);
    assert_ptr_equal(fake.current_context(), gpu[0]->ctx);

    for (size_t i = 0; i + 1 < n; i++) {
        assert_int_equal(doca_gpu_destroy(gpu[i]), DOCA_SUCCESS);
        assert_int_equal(fake.primary_refs(0), 1);
    }
    capture_start();
    assert_int_equal(doca_gpu_destroy(gpu[n - 1]), DOCA_SUCCESS);
    log = capture_stop();
    assert_non_null(strstr(log, "closed GPU " GPU_A));
    free(log);
    assert_int_equal(fake.primary_refs(0), 0);
    assert_null(fake.current_context());

    /* Gone: destroying again is refused without touching it. */
    capture_start();
    assert_int_equal(doca_gpu_destroy(gpu[0]), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "destroyed already");
    free(log);
}

static void test_domain_and_oldest_capability(void **state)
{
    doca_gpu_t *c = NULL, *c2 = NULL, *a = NULL;

    (void)state;
    assert_int_equal(doca_gpu_create("1:1C:00.0", &c), DOCA_SUCCESS);
    assert_string_equal(c->bus_id, GPU_C);
    assert_int_equal(c->cc_major, 8);
    assert_int_equal(c->cc_minor, 0);
    assert_int_equal(c->ordinal, 2);
    assert_int_equal(fake.primary_refs(2), 1);
    /* Domain 1 is not domain 0: "1c:00.0" alone names another (absent) GPU. */
    assert_int_equal(doca_gpu_create("1c:00.0", &c2), DOCA_ERROR_INVALID_VALUE);
    assert_null(c2);

    /* Two GPUs open at once are two contexts; each create makes its own current. */
    assert_int_equal(doca_gpu_create(GPU_A, &a), DOCA_SUCCESS);
    assert_ptr_not_equal(a, c);
    assert_ptr_equal(fake.current_context(), a->ctx);
    assert_int_equal(doca_gpu_create(GPU_C, &c2), DOCA_SUCCESS);
    assert_ptr_equal(c2, c);
    assert_ptr_equal(fake.current_context(), c->ctx);
    /* Releasing a reference keeps the context current; releasing the last one does not. */
    assert_int_equal(doca_gpu_destroy(c2), DOCA_SUCCESS);
    assert_ptr_equal(fake.current_context(), c->ctx);
    assert_int_equal(doca_gpu_destroy(c), DOCA_SUCCESS);
    assert_null(fake.current_context());
    assert_int_equal(fake.primary_refs(2), 0);
    assert_int_equal(fake.primary_refs(0), 1);

    /* Destroying a context that is not current leaves the current one alone. */
    assert_int_equal(doca_gpu_create(GPU_C, &c), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_create(GPU_A, &c2), DOCA_SUCCESS);
    assert_ptr_equal(c2, a);
    assert_ptr_equal(fake.current_context(), a->ctx);
    assert_int_equal(doca_gpu_destroy(c), DOCA_SUCCESS);
    assert_ptr_equal(fake.current_context(), a->ctx);
    assert_int_equal(doca_gpu_destroy(c2), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(a), DOCA_SUCCESS);
    assert_int_equal(fake.primary_refs(0), 0);
    assert_int_equal(fake.primary_refs(2), 0);
}

static void test_unknown_bus_id_lists_the_gpus(void **state)
{
    doca_gpu_t *gpu = NULL;
    char *log;

    (void)state;
    capture_start();
    assert_int_equal(doca_gpu_create("99:00.0", &gpu), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "no GPU has bus id 0000:99:00.0; the GPUs present are " GPU_A
                               " (compute capability 9.0), " GPU_B
                               " (compute capability 7.5), " GPU_C " (compute capability 8.0)");
    free(log);
    assert_null(gpu);
    assert_int_equal(fake.primary_refs(0), 0);
}

static void test_old_compute_capability_is_not_supported(void **state)
{
    doca_gpu_t *gpu = NULL;
    char *log;

    (void)state;
    capture_start();
    assert_int_equal(doca_gpu_create("1B:00.0", &gpu), DOCA_ERROR_NOT_SUPPORTED);
    log = capture_stop();
    assert_one_error_line(log, "GPU " GPU_B " has compute capability 7.5; GPUNetIO needs 8.0 "
                               "or newer");
    free(log);
    assert_null(gpu);
    assert_int_equal(fake.primary_refs(1), 0);
    /* Not remembered: asking again gives the same answer. */
    assert_int_equal(doca_gpu_create(GPU_B, &gpu), DOCA_ERROR_NOT_SUPPORTED);
}

static void test_destroy_while_memory_lives(void **state)
{
    doca_gpu_t *gpu = NULL, *again = NULL;
    void *mem = NULL, *mem2 = NULL;
    char *log;

    (void)state;
    assert_int_equal(doca_gpu_create(GPU_A, &gpu), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_alloc(gpu, 4096, 0, DOCA_GPU_MEM_TYPE_GPU, &mem, NULL),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_alloc(gpu, 100, 0, DOCA_GPU_MEM_TYPE_GPU, &mem2, NULL),
                     DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 2);

    capture_start();
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE);
    log = capture_stop();
    assert_one_error_line(log, "GPU " GPU_A " cannot be released: 2 objects made with it");
    free(log);
    /* Nothing was released: the context still works and still counts one reference. */
    assert_int_equal(gpu->refs, 1);
    assert_int_equal(fake.primary_refs(0), 1);
    assert_int_equal(doca_gpu_mem_free(gpu, mem2), DOCA_SUCCESS);

    /* With a second reference the first destroy only drops it; the last one is refused. */
    assert_int_equal(doca_gpu_create(GPU_A, &again), DOCA_SUCCESS);
    assert_ptr_equal(again, gpu);
    assert_int_equal(doca_gpu_destroy(again), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE);
    assert_int_equal(gpu->refs, 1);

    assert_int_equal(doca_gpu_mem_free(gpu, mem), DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 0);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_SUCCESS);
    assert_int_equal(fake.primary_refs(0), 0);
    assert_int_equal(fake.live_allocations(), 0);
}

static void test_hold_put_count_users(void **state)
{
    doca_gpu_t *gpu = NULL;

    (void)state;
    assert_int_equal(doca_gpu_create(GPU_A, &gpu), DOCA_SUCCESS);
    gpunetio_gpu_hold(gpu); /* what an exported QP does */
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE);
    gpunetio_gpu_put(gpu);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_SUCCESS);
}

static void test_bind_makes_the_context_current(void **state)
{
    const struct core_cuda_ops *cuda = NULL, *table = NULL;
    doca_gpu_t *gpu = NULL, stranger;
    char *log;

    (void)state;
    assert_int_equal(core_cuda_get(&table), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_create(GPU_A, &gpu), DOCA_SUCCESS);
    assert_int_equal(table->cuCtxSetCurrent(NULL), CORE_CU_SUCCESS);
    assert_null(fake.current_context());
    assert_int_equal(gpunetio_gpu_bind(gpu, &cuda), DOCA_SUCCESS);
    assert_ptr_equal(cuda, table);
    assert_ptr_equal(fake.current_context(), gpu->ctx);

    /* A pointer that is not a live context is refused without being read. */
    memset(&stranger, 0xff, sizeof(stranger));
    cuda = NULL;
    capture_start();
    assert_int_equal(gpunetio_gpu_bind(&stranger, &cuda), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "is not a context doca_gpu_create() gave");
    free(log);
    assert_null(cuda);
    assert_int_equal(gpunetio_gpu_bind(NULL, &cuda), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(gpunetio_gpu_bind(gpu, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_destroy(&stranger), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_SUCCESS);
    /* Destroyed: bind refuses it too. */
    assert_int_equal(gpunetio_gpu_bind(gpu, &cuda), DOCA_ERROR_INVALID_VALUE);
}

static void test_cu_error_text(void **state)
{
    const struct core_cuda_ops *cuda = NULL;
    char buf[160];

    (void)state;
    assert_int_equal(core_cuda_get(&cuda), DOCA_SUCCESS);
    assert_string_equal(gpunetio_cu_error(cuda, CORE_CU_ERROR_OUT_OF_MEMORY, buf, sizeof(buf)),
                        "2 (CUDA_ERROR_OUT_OF_MEMORY: the fake is out of memory)");
    assert_string_equal(gpunetio_cu_error(cuda, 12345, buf, sizeof(buf)),
                        "12345 (unknown CUDA error: no description)");
    /* A short buffer is cut, never overrun. */
    assert_ptr_equal(gpunetio_cu_error(cuda, CORE_CU_ERROR_OUT_OF_MEMORY, buf, 8), buf);
    assert_string_equal(buf, "2 (CUDA");
}

#define RACE_THREADS 8

static void *race_create(void *arg)
{
    doca_gpu_t **out = arg;

    return (void *)(intptr_t)doca_gpu_create(GPU_A, out);
}

static void test_concurrent_creates_share_one_context(void **state)
{
    pthread_t threads[RACE_THREADS];
    doca_gpu_t *gpu[RACE_THREADS];
    void *rc;

    (void)state;
    for (int i = 0; i < RACE_THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, race_create, &gpu[i]), 0);
    for (int i = 0; i < RACE_THREADS; i++) {
        assert_int_equal(pthread_join(threads[i], &rc), 0);
        assert_int_equal((intptr_t)rc, DOCA_SUCCESS);
    }
    for (int i = 1; i < RACE_THREADS; i++)
        assert_ptr_equal(gpu[i], gpu[0]);
    assert_int_equal(gpu[0]->refs, RACE_THREADS);
    assert_int_equal(fake.primary_refs(0), 1);
    for (int i = 0; i < RACE_THREADS; i++)
        assert_int_equal(doca_gpu_destroy(gpu[i]), DOCA_SUCCESS);
    assert_int_equal(fake.primary_refs(0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_null_arguments),
            cmocka_unit_test(test_malformed_bus_ids),
            cmocka_unit_test(test_long_bus_id_is_cut_in_the_log),
            cmocka_unit_test(test_every_form_gives_one_counted_context),
            cmocka_unit_test(test_domain_and_oldest_capability),
            cmocka_unit_test(test_unknown_bus_id_lists_the_gpus),
            cmocka_unit_test(test_old_compute_capability_is_not_supported),
            cmocka_unit_test(test_destroy_while_memory_lives),
            cmocka_unit_test(test_hold_put_count_users),
            cmocka_unit_test(test_bind_makes_the_context_current),
            cmocka_unit_test(test_cu_error_text),
            cmocka_unit_test(test_concurrent_creates_share_one_context),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
