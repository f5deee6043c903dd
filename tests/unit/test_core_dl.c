/* SPDX-License-Identifier: BSD-3-Clause */
/* Run-time loading: missing libraries and symbols are named, nothing is left half-loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/dl.h"

static void *sym_a;
static void *sym_b;

static struct core_dl_symbol symbols[2];

static struct core_dl_library test_library(const char *soname, const char *name_a,
                                           const char *name_b, bool b_optional)
{
    symbols[0] = (struct core_dl_symbol){name_a, &sym_a, false};
    symbols[1] = (struct core_dl_symbol){name_b, &sym_b, b_optional};
    sym_a = sym_b = (void *)&symbols; /* anything non-NULL: failures must clear them */
    return (struct core_dl_library){
            .what = "test",
            .soname = soname,
            .env = "DGN_TEST_DL_LIB",
            .remedy = "install the test library",
            .symbols = symbols,
            .symbol_count = 2,
    };
}

static void test_missing_library_is_named(void **state)
{
    struct core_dl_library lib = test_library("libdgn-does-not-exist.so.1", "strlen", "strcmp", 0);
    char reason[512] = "";
    void *handle = NULL;

    (void)state;
    unsetenv("DGN_TEST_DL_LIB");
    assert_int_equal(core_dl_load(&lib, &handle, reason, sizeof(reason)), DOCA_ERROR_NOT_SUPPORTED);
    assert_null(handle);
    assert_null(sym_a);
    assert_null(sym_b);
    assert_non_null(strstr(reason, "libdgn-does-not-exist.so.1"));
    assert_non_null(strstr(reason, "install the test library"));
}

static void test_missing_symbol_is_named_and_nothing_stays_resolved(void **state)
{
    struct core_dl_library lib = test_library("libc.so.6", "strlen", "dgn_no_such_symbol", 0);
    char reason[512] = "";
    void *handle = NULL;

    (void)state;
    assert_int_equal(core_dl_load(&lib, &handle, reason, sizeof(reason)), DOCA_ERROR_NOT_SUPPORTED);
    assert_null(handle);
    assert_null(sym_a);
    assert_null(sym_b);
    assert_non_null(strstr(reason, "has no symbol dgn_no_such_symbol"));
    assert_non_null(strstr(reason, "libc.so.6"));
}

static void test_optional_symbol_may_be_absent(void **state)
{
    struct core_dl_library lib = test_library("libc.so.6", "strlen", "dgn_no_such_symbol", 1);
    void *handle = NULL;

    (void)state;
    assert_int_equal(core_dl_load(&lib, &handle, NULL, 0), DOCA_SUCCESS);
    assert_non_null(handle);
    assert_non_null(sym_a);
    assert_null(sym_b);
    assert_int_equal(((size_t(*)(const char *))sym_a)("four"), 4);
}

static void test_environment_names_another_file(void **state)
{
    struct core_dl_library lib = test_library("libdgn-does-not-exist.so.1", "strlen", "strcmp", 0);
    void *handle = NULL;

    (void)state;
    setenv("DGN_TEST_DL_LIB", "libc.so.6", 1);
    assert_string_equal(core_dl_file(&lib), "libc.so.6");
    assert_int_equal(core_dl_load(&lib, &handle, NULL, 0), DOCA_SUCCESS);
    assert_non_null(sym_a);
    assert_non_null(sym_b);
    setenv("DGN_TEST_DL_LIB", "", 1);
    assert_string_equal(core_dl_file(&lib), "libdgn-does-not-exist.so.1");
    unsetenv("DGN_TEST_DL_LIB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_missing_library_is_named),
            cmocka_unit_test(test_missing_symbol_is_named_and_nothing_stays_resolved),
            cmocka_unit_test(test_optional_symbol_may_be_absent),
            cmocka_unit_test(test_environment_names_another_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
