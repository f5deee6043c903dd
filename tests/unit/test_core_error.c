/* SPDX-License-Identifier: BSD-3-Clause */
/* Names and descriptions of every DOCA error code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "doca_error.h"

static void test_codes_have_doca_values(void **state)
{
    (void)state;
    assert_int_equal(DOCA_SUCCESS, 0);
    assert_int_equal(DOCA_ERROR_NOT_SUPPORTED, 4);
    assert_int_equal(DOCA_ERROR_INVALID_VALUE, 6);
    assert_int_equal(DOCA_ERROR_BAD_STATE, 18);
    assert_int_equal(DOCA_ERROR_DRIVER, 21);
    assert_int_equal(DOCA_ERROR_TOO_BIG, 27);
    assert_int_equal(DOCA_ERROR_DEVICE_FATAL_ERROR, 31);
}

static void test_every_code_has_a_distinct_name_and_description(void **state)
{
    (void)state;
    for (int i = 0; i < DOCA_ERROR_CODE_COUNT; i++) {
        const char *name = doca_error_get_name((doca_error_t)i);
        const char *descr = doca_error_get_descr((doca_error_t)i);

        assert_non_null(name);
        assert_non_null(descr);
        assert_true(strncmp(name, "DOCA_", 5) == 0);
        assert_true(strlen(descr) > 3);
        assert_string_not_equal(descr, "Unrecognized error code");
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(name, doca_error_get_name((doca_error_t)j));
            assert_string_not_equal(descr, doca_error_get_descr((doca_error_t)j));
        }
    }
}

static void test_names_match_enumerators(void **state)
{
    (void)state;
    assert_string_equal(doca_error_get_name(DOCA_SUCCESS), "DOCA_SUCCESS");
    assert_string_equal(doca_error_get_name(DOCA_ERROR_NOT_SUPPORTED), "DOCA_ERROR_NOT_SUPPORTED");
    assert_string_equal(doca_error_get_name(DOCA_ERROR_CONNECTION_INPROGRESS),
                        "DOCA_ERROR_CONNECTION_INPROGRESS");
    assert_string_equal(doca_error_get_name(DOCA_ERROR_DEVICE_FATAL_ERROR),
                        "DOCA_ERROR_DEVICE_FATAL_ERROR");
}

static void test_out_of_range_codes_are_named_unrecognized(void **state)
{
    (void)state;
    assert_string_equal(doca_error_get_name((doca_error_t)DOCA_ERROR_CODE_COUNT),
                        "DOCA_ERROR_UNRECOGNIZED");
    assert_string_equal(doca_error_get_name((doca_error_t)-1), "DOCA_ERROR_UNRECOGNIZED");
    assert_string_equal(doca_error_get_descr((doca_error_t)1000), "Unrecognized error code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_codes_have_doca_values),
            cmocka_unit_test(test_every_code_has_a_distinct_name_and_description),
            cmocka_unit_test(test_names_match_enumerators),
            cmocka_unit_test(test_out_of_range_codes_are_named_unrecognized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
