/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_gpu_create where the CUDA driver is unusable. One process per case
 * (the driver is loaded once per process); the argument names the case and
 * CTest sets the environment that makes it:
 *   missing         DOCA_GPUNETIO_LIBCUDA names no file            -> NOT_SUPPORTED
 *   symbol-missing  DOCA_GPUNETIO_LIBCUDA=libc.so.6                -> NOT_SUPPORTED
 *   insufficient    fake: cuInit 35, driver 12.2                   -> DRIVER, both versions
 *   no-device       fake: cuInit 100                               -> DRIVER
 *   older           fake: driver one major older than the build    -> DRIVER, both versions
 *   no-gpu          fake: cuInit succeeds, no GPU                  -> INVALID_VALUE
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpunetio/gpunetio_internal.h"
#include "gpunetio_test.h"

static const char *mode;

/* What this library says it was built for, as the line must print it. */
static void build_text(char *buf, size_t len)
{
    if (DGN_CUDA_BUILD_VERSION <= 0)
        snprintf(buf, len, "built without the CUDA toolkit");
    else
        snprintf(buf, len, "CUDA %d.%d", DGN_CUDA_BUILD_VERSION / 1000,
                 (DGN_CUDA_BUILD_VERSION % 1000) / 10);
}

/* doca_gpu_create answers `expect` with one ERR line holding every string of `lines`. */
static void create_refused(doca_error_t expect, const char *const *lines, size_t n)
{
    doca_gpu_t *gpu = NULL;
    char *log;

    for (int round = 0; round < 2; round++) { /* the answer is the same every time */
        capture_start();
        assert_int_equal(doca_gpu_create("8a:00.0", &gpu), expect);
        log = capture_stop();
        assert_int_equal(count_of(log, "[ERR]"), 1);
        for (size_t i = 0; i < n; i++)
            assert_non_null(strstr(log, lines[i]));
        free(log);
        assert_null(gpu);
    }
    /* Argument checks come first and need no driver. */
    assert_int_equal(doca_gpu_create(NULL, &gpu), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_create("not-a-bus-id", &gpu), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_alloc(NULL, 64, 0, DOCA_GPU_MEM_TYPE_GPU, &(void *){0}, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(NULL, &gpu), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_dmabuf_fd(NULL, &gpu, 4096, &(int){0}), DOCA_ERROR_INVALID_VALUE);
}

static void test_driver_case(void **state)
{
    struct core_cuda_probe probe;
    char built[64], older[64];

    (void)state;
    build_text(built, sizeof(built));
    core_cuda_probe(&probe);
    if (strcmp(mode, "missing") == 0) {
        const char *lines[] = {"CUDA driver library libdgn-missing-cuda.so.1 cannot be loaded"};

        assert_int_equal(probe.status, DOCA_ERROR_NOT_SUPPORTED);
        create_refused(DOCA_ERROR_NOT_SUPPORTED, lines, 1);
    } else if (strcmp(mode, "symbol-missing") == 0) {
        const char *lines[] = {"libc.so.6 has no symbol cuInit"};

        create_refused(DOCA_ERROR_NOT_SUPPORTED, lines, 1);
    } else if (strcmp(mode, "insufficient") == 0) {
        const char *lines[] = {"cuInit returned 35 (CUDA_ERROR_INSUFFICIENT_DRIVER",
                               "the driver supports CUDA 12.2", built,
                               DGN_CUDA_BUILD_VERSION > 0
                                       ? ": install an NVIDIA driver for that CUDA version "
                                         "or newer"
                                       : "install a newer NVIDIA driver"};

        assert_int_equal(probe.status, DOCA_ERROR_DRIVER);
        assert_int_equal(probe.init_result, CORE_CU_ERROR_INSUFFICIENT_DRIVER);
        assert_int_equal(probe.driver_version, 12020);
        create_refused(DOCA_ERROR_DRIVER, lines, 4);
    } else if (strcmp(mode, "no-device") == 0) {
        const char *lines[] = {"cuInit returned 100 (CUDA_ERROR_NO_DEVICE", "driver supports CUDA",
                               built, "check that a GPU is present"};

        create_refused(DOCA_ERROR_DRIVER, lines, 4);
    } else if (strcmp(mode, "older") == 0) {
        const char *lines[] = {older, built};

        assert_true(DGN_CUDA_BUILD_VERSION > 1000);
        snprintf(older, sizeof(older), "the CUDA driver supports CUDA %d.%d, older than",
                 DGN_CUDA_BUILD_VERSION / 1000 - 1, (DGN_CUDA_BUILD_VERSION % 1000) / 10);
        assert_int_equal(probe.status, DOCA_SUCCESS); /* cuInit itself succeeds */
        create_refused(DOCA_ERROR_DRIVER, lines, 2);
    } else if (strcmp(mode, "no-gpu") == 0) {
        const char *lines[] = {"no GPU has bus id 0000:8a:00.0: the CUDA driver sees no GPU"};

        create_refused(DOCA_ERROR_INVALID_VALUE, lines, 1);
    } else {
        fail_msg("unknown case %s", mode);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_driver_case),
    };

    if (argc < 2) {
        fprintf(stderr, "usage: %s missing|symbol-missing|insufficient|no-device|older|no-gpu\n",
                argv[0]);
        return 2;
    }
    mode = argv[1];
    log_setup();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
