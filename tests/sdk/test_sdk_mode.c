/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SDK mode (src/core/sdk.h). The decision is made once per process, so each
 * case is its own process; the argument names it and CTest sets
 * DOCA_SDK_LIB_PATH:
 *   sdk       the stand-in SDK's folder (fake_sdk.h): calls reach it
 *   bad-path  a folder that does not exist: the open implementation
 *   no-verbs  a folder with libdoca_common.so and libdoca_gpunetio.so only
 *   unset     unset or empty: the open implementation, no SDK line
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/sdk.h"
#include "doca_gpunetio.h"
#include "doca_verbs.h"
#include "fake_sdk.h"
#include "gpunetio_test.h"

static const char *mode;
static char path[1024]; /* DOCA_SDK_LIB_PATH as the process started with it */

/* The line `text` is in the log at `level` ("[WARNING]"...): "[LEVEL] ... text". */
static bool has_line(const char *log, const char *level, const char *text)
{
    for (const char *p = strstr(log, text); p != NULL; p = strstr(p + 1, text)) {
        const char *start = p;

        while (start > log && start[-1] != '\n')
            start--;
        if (strstr(start, level) != NULL && strstr(start, level) < p)
            return true;
    }
    return false;
}

static void expect_sdk_in_use(const char *log, const char *kind)
{
    char warning[1200], info[128];

    snprintf(warning, sizeof(warning), "Env var DOCA_SDK_LIB_PATH set to %s. DOCA SDK is in use",
             path);
    snprintf(info, sizeof(info), "Use DOCA %s SDK\n", kind);
    assert_true(has_line(log, "[WARNING]", warning));
    assert_true(has_line(log, "[INFO]", info));
    assert_int_equal(count_of(log, "DOCA SDK is in use"), 1);
}

static void expect_sdk_not_in_use(const char *log, const char *kind)
{
    char warning[1200], info[128];

    snprintf(warning, sizeof(warning),
             "Env var DOCA_SDK_LIB_PATH set to %s, but DOCA SDK libraries not found. DOCA SDK is "
             "not in use",
             path);
    snprintf(info, sizeof(info), "Use DOCA %s open\n", kind);
    assert_true(has_line(log, "[WARNING]", warning));
    assert_true(has_line(log, "[INFO]", info));
    assert_int_equal(count_of(log, "DOCA SDK is not in use"), 1);
}

static unsigned int sdk_calls(void)
{
    fake_sdk_calls_fn calls = (fake_sdk_calls_fn)dlsym(RTLD_DEFAULT, "fake_sdk_calls");

    assert_non_null(calls);
    return calls();
}

/* ---- sdk ------------------------------------------------------------------------------------ */

static void test_sdk(void)
{
    doca_gpu_t *gpu = NULL;
    doca_verbs_cq_attr_t *cq_attr = NULL;
    doca_verbs_qp_init_attr_t *qp_init_attr = NULL;
    doca_verbs_qp_attr_t *qp_attr = NULL;
    uint32_t version = 0, entries = 0, stride = 0;
    int srq_stand_in;
    void *buf = NULL;
    char missing[1200];
    char *log;

    /* The first call loads the SDK; doca_gpu_create is libdoca_gpunetio.so's. */
    capture_start();
    assert_int_equal(doca_gpu_create("8a:00.0", &gpu), DOCA_SUCCESS);
    log = capture_stop();
    assert_true(core_sdk_active());
    assert_non_null(gpu);
    assert_int_equal(((struct fake_sdk_object *)(void *)gpu)->magic, FAKE_SDK_GPU_MAGIC);
    expect_sdk_in_use(log, "GPUNetIO");
    assert_int_equal(count_of(log, "[ERR]"), 0);
    free(log);
    /* libdoca_common.so is in the global scope, libdoca_verbs.so is not. */
    assert_int_equal(sdk_calls(), 1);
    assert_null(dlsym(RTLD_DEFAULT, "doca_verbs_cq_attr_set_cq_size"));

    /* A getter's value and a setter's effect pass through; non-creating calls log nothing. */
    capture_start();
    assert_int_equal(doca_gpu_verbs_get_library_version(&version), DOCA_SUCCESS);
    assert_int_equal(version, FAKE_SDK_VERSION);
    log = capture_stop();
    assert_null(strstr(log, "DOCA SDK"));
    free(log);

    capture_start();
    assert_int_equal(doca_verbs_cq_attr_create(&cq_attr), DOCA_SUCCESS);
    log = capture_stop();
    expect_sdk_in_use(log, "Verbs CQ Attr");
    free(log);
    assert_int_equal(((struct fake_sdk_object *)(void *)cq_attr)->magic, FAKE_SDK_CQ_ATTR_MAGIC);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(cq_attr, 96), DOCA_SUCCESS);
    assert_int_equal(((struct fake_sdk_object *)(void *)cq_attr)->value, 96);
    assert_int_equal(doca_verbs_cq_attr_destroy(cq_attr), DOCA_SUCCESS);

    capture_start();
    assert_int_equal(doca_verbs_qp_init_attr_create(&qp_init_attr), DOCA_SUCCESS);
    log = capture_stop();
    expect_sdk_in_use(log, "Verbs QP Init Attr");
    free(log);
    assert_int_equal(doca_verbs_qp_init_attr_get_sq_wr(qp_init_attr), FAKE_SDK_SQ_WR);
    assert_int_equal(doca_verbs_qp_init_attr_destroy(qp_init_attr), DOCA_SUCCESS);

    /* A void function. */
    doca_verbs_srq_get_wq((const struct doca_verbs_srq *)(void *)&srq_stand_in, &buf, &entries,
                          &stride);
    assert_ptr_equal(buf, &srq_stand_in);
    assert_int_equal(entries, FAKE_SDK_SRQ_ENTRIES);
    assert_int_equal(stride, FAKE_SDK_SRQ_STRIDE);
    assert_int_equal(sdk_calls(), 9);

    /* Arguments are the SDK's to check: NULL reaches it. */
    assert_int_equal(doca_gpu_create(NULL, &gpu), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(sdk_calls(), 10);

    /* The SDK has no doca_verbs_qp_attr_create: NOT_SUPPORTED, every time, with one ERR line. */
    snprintf(missing, sizeof(missing),
             "the DOCA SDK in %s has no doca_verbs_qp_attr_create(); it is not available in SDK "
             "mode",
             path);
    for (int round = 0; round < 2; round++) {
        capture_start();
        assert_int_equal(doca_verbs_qp_attr_create(&qp_attr), DOCA_ERROR_NOT_SUPPORTED);
        log = capture_stop();
        assert_null(qp_attr);
        expect_sdk_in_use(log, "Verbs QP Attr");
        assert_one_error_line(log, missing);
        free(log);
    }
    assert_int_equal(sdk_calls(), 10);

    /* Decided once: without the variable now, calls still go to the SDK. */
    unsetenv(CORE_SDK_ENV);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_SUCCESS);
    assert_int_equal(sdk_calls(), 11);
}

/* ---- bad-path, no-verbs: the open implementation --------------------------------------------- */

/* What follows the load: our own objects, our own checks, the lines at each creating call. */
static void open_implementation_works(void)
{
    doca_verbs_cq_attr_t *cq_attr = NULL;
    doca_verbs_qp_attr_t *qp_attr = NULL;
    char *log;

    capture_start();
    assert_int_equal(doca_verbs_cq_attr_create(&cq_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(cq_attr, 64), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_destroy(cq_attr), DOCA_SUCCESS);
    log = capture_stop();
    expect_sdk_not_in_use(log, "Verbs CQ Attr");
    assert_int_equal(count_of(log, "[ERR]"), 0); /* the load's line came once */
    free(log);

    capture_start();
    assert_int_equal(doca_verbs_qp_attr_create(&qp_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_attr_destroy(qp_attr), DOCA_SUCCESS);
    log = capture_stop();
    expect_sdk_not_in_use(log, "Verbs QP Attr");
    free(log);

    /* Argument checks are ours. */
    capture_start();
    assert_int_equal(doca_verbs_cq_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(NULL, 64), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    expect_sdk_not_in_use(log, "Verbs CQ Attr");
    free(log);
    assert_false(core_sdk_active());
    assert_null(dlsym(RTLD_DEFAULT, "fake_sdk_calls"));
}

/* The first call logs `lib` missing from the folder, once, and runs here. */
static void test_missing(const char *lib)
{
    doca_verbs_cq_attr_t *cq_attr = NULL;
    char failed[2200];
    char *log;

    snprintf(failed, sizeof(failed), "Failed to find %s library %s/%s (DOCA_SDK_LIB_PATH=%s)", lib,
             path, lib, path);
    capture_start();
    assert_int_equal(doca_verbs_cq_attr_create(&cq_attr), DOCA_SUCCESS);
    log = capture_stop();
    assert_one_error_line(log, failed);
    assert_int_equal(count_of(log, "Failed to find"), 1);
    expect_sdk_not_in_use(log, "Verbs CQ Attr");
    free(log);
    assert_int_equal(doca_verbs_cq_attr_destroy(cq_attr), DOCA_SUCCESS);
    open_implementation_works();
}

/* ---- unset ---------------------------------------------------------------------------------- */

static void test_unset(void)
{
    doca_verbs_cq_attr_t *cq_attr = NULL;
    doca_verbs_qp_attr_t *qp_attr = NULL;
    char *log;

    capture_start();
    assert_int_equal(doca_verbs_cq_attr_create(&cq_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_set_cq_size(cq_attr, 64), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_destroy(cq_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_attr_create(&qp_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_qp_attr_destroy(qp_attr), DOCA_SUCCESS);
    assert_int_equal(doca_verbs_cq_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_null(strstr(log, "DOCA SDK"));
    assert_null(strstr(log, "DOCA_SDK_LIB_PATH"));
    assert_null(strstr(log, "Use DOCA"));
    assert_int_equal(count_of(log, "[ERR]"), 1); /* the NULL argument's */
    free(log);
    assert_false(core_sdk_active());
}

static void test_case(void **state)
{
    (void)state;
    if (strcmp(mode, "sdk") == 0)
        test_sdk();
    else if (strcmp(mode, "bad-path") == 0)
        test_missing("libdoca_common.so");
    else if (strcmp(mode, "no-verbs") == 0)
        test_missing("libdoca_verbs.so");
    else if (strcmp(mode, "unset") == 0)
        test_unset();
    else
        fail_msg("unknown case %s", mode);
}

int main(int argc, char **argv)
{
    const char *value = getenv(CORE_SDK_ENV);
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_case),
    };

    if (argc != 2) {
        fprintf(stderr, "usage: %s sdk|bad-path|no-verbs|unset\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    snprintf(path, sizeof(path), "%s", value != NULL ? value : "");
    log_setup();
    return cmocka_run_group_tests_name(mode, tests, NULL, NULL);
}
