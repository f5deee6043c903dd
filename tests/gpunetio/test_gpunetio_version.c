/* SPDX-License-Identifier: BSD-3-Clause */
/* The library version and the device-code / host-code compatibility checks (no driver needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doca_gpunetio.h"
#include "gpunetio_test.h"

typedef doca_error_t (*check_fn)(uint32_t version);

static void test_library_version(void **state)
{
    uint32_t version = 0;

    (void)state;
    assert_int_equal(doca_gpu_verbs_get_library_version(&version), DOCA_SUCCESS);
    assert_int_equal(version, DOCA_GPUNETIO_VERSION);
    assert_int_equal(version, DOCA_GPUNETIO_MAKE_VERSION(DOCA_GPUNETIO_VERSION_MAJOR,
                                                         DOCA_GPUNETIO_VERSION_MINOR,
                                                         DOCA_GPUNETIO_VERSION_PATCH));
    assert_int_equal(DOCA_GPUNETIO_MAKE_VERSION(2, 0, 0), 0x020000);
    assert_int_equal(doca_gpu_verbs_get_library_version(NULL), DOCA_ERROR_INVALID_VALUE);
}

/* Inside [minimum, current] is accepted; outside is NOT_SUPPORTED with the versions named. */
static void check_range(check_fn check, const char *what, uint32_t minimum)
{
    const uint32_t current = DOCA_GPUNETIO_VERSION;
    const uint32_t outside[] = {0, minimum - 1, current + 1, DOCA_GPUNETIO_MAKE_VERSION(99, 0, 0),
                                UINT32_MAX};
    char expect[200], low[24], high[24];

    assert_int_equal(check(minimum), DOCA_SUCCESS);
    assert_int_equal(check(current), DOCA_SUCCESS);
    snprintf(low, sizeof(low), "%u.%u.%u", minimum >> 16, (minimum >> 8) & 0xff, minimum & 0xff);
    snprintf(high, sizeof(high), "%u.%u.%u", current >> 16, (current >> 8) & 0xff, current & 0xff);
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
        uint32_t v = outside[i];
        char *log;

        if (minimum == 0 && v == minimum - 1)
            continue; /* wraps to UINT32_MAX, tested anyway */
        capture_start();
        assert_int_equal(check(v), DOCA_ERROR_NOT_SUPPORTED);
        log = capture_stop();
        snprintf(expect, sizeof(expect),
                 "%s version %u.%u.%u is not supported: this library (%s) works with %s versions "
                 "%s to %s",
                 what, v >> 16, (v >> 8) & 0xff, v & 0xff, high, what, low, high);
        assert_one_error_line(log, expect);
        free(log);
    }
}

static void test_device_code_compatibility(void **state)
{
    (void)state;
    check_range(doca_gpu_verbs_check_device_code_compatibility, "device code",
                DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION);
    assert_int_equal(
            doca_gpu_verbs_check_device_code_compatibility(DOCA_GPUNETIO_DEVICE_CODE_VERSION),
            DOCA_SUCCESS);
    /* 4.0.1 has this layout; 5.0.1 is newer than this 5.0.0 library; 4.0.0 and 2.0.0 have
       other descriptor layouts. */
    assert_int_equal(doca_gpu_verbs_check_device_code_compatibility(0x040001), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_verbs_check_device_code_compatibility(0x050001),
                     DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_gpu_verbs_check_device_code_compatibility(0x040000),
                     DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_gpu_verbs_check_device_code_compatibility(0x020000),
                     DOCA_ERROR_NOT_SUPPORTED);
}

static void test_host_code_compatibility(void **state)
{
    (void)state;
    check_range(doca_gpu_verbs_check_host_code_compatibility, "host code",
                DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION);
    assert_int_equal(doca_gpu_verbs_check_host_code_compatibility(DOCA_GPUNETIO_HOST_CODE_VERSION),
                     DOCA_SUCCESS);
    /* 4.0.1 host code calls doca_gpu_verbs_export_qp without the receive-side arguments. */
    assert_int_equal(doca_gpu_verbs_check_host_code_compatibility(0x040001),
                     DOCA_ERROR_NOT_SUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_library_version),
            cmocka_unit_test(test_device_code_compatibility),
            cmocka_unit_test(test_host_code_compatibility),
    };

    log_setup();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
