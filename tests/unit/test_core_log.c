/* SPDX-License-Identifier: BSD-3-Clause */
/* The log threshold from DOCA_GPUNETIO_LOG and the layout of a log line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

/* stderr is redirected to a temporary file while a test body runs. */
static FILE *captured;
static int saved_stderr = -1;

static void capture_start(void)
{
    fflush(stderr);
    captured = tmpfile();
    assert_non_null(captured);
    saved_stderr = dup(STDERR_FILENO);
    assert_true(saved_stderr >= 0);
    assert_true(dup2(fileno(captured), STDERR_FILENO) >= 0);
}

/* Returns what was written to stderr since capture_start (caller frees). */
static char *capture_stop(void)
{
    long size;
    char *text;

    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    size = ftell(captured);
    text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    rewind(captured);
    assert_int_equal(fread(text, 1, (size_t)size, captured), (size_t)size);
    fclose(captured);
    return text;
}

static int count_lines(const char *text)
{
    int n = 0;

    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void set_level_env(const char *value)
{
    if (value)
        setenv(CORE_LOG_ENV, value, 1);
    else
        unsetenv(CORE_LOG_ENV);
}

static void test_default_threshold_is_emerg(void **state)
{
    (void)state;
    set_level_env(NULL);
    core_log_reload();
    assert_int_equal(core_log_threshold(), LOG_EMERG);
}

static void test_every_valid_level_is_taken(void **state)
{
    char value[4];

    (void)state;
    for (int level = 0; level <= 7; level++) {
        snprintf(value, sizeof(value), "%d", level);
        set_level_env(value);
        core_log_reload();
        assert_int_equal(core_log_threshold(), level);
    }
}

static void test_bad_values_are_reported_once_and_ignored(void **state)
{
    const char *bad[] = {"8", "-1", "abc", "3x", "99999999999999999999"};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out;

        set_level_env(bad[i]);
        capture_start();
        core_log_reload();
        for (int k = 0; k < 5; k++)
            assert_int_equal(core_log_threshold(), CORE_LOG_DEFAULT_LEVEL);
        DOCA_LOG_ERR("not shown at the default level");
        out = capture_stop();
        assert_int_equal(count_lines(out), 1);
        assert_non_null(strstr(out, "[WARNING]"));
        assert_non_null(strstr(out, bad[i]));
        assert_non_null(strstr(out, "0 (EMERG) to 7 (DEBUG)"));
        free(out);
    }
}

static void test_line_layout(void **state)
{
    regex_t re;
    char *out;

    (void)state;
    set_level_env("3");
    core_log_reload();
    capture_start();
    DOCA_LOG_ERR("qp 0x%x failed", 0x1234);
    out = capture_stop();
    /* "Wed Apr  1 10:42:00 2026 [ERR] [tests/unit/test_core_log.c]: 255: fn(): message" */
    assert_int_equal(regcomp(&re,
                             "^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} "
                             "[0-9]{4} \\[ERR\\] \\[tests/unit/test_core_log\\.c\\]: [0-9]+: "
                             "test_line_layout\\(\\): qp 0x1234 failed\n$",
                             REG_EXTENDED),
                     0);
    assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
    regfree(&re);
    free(out);
}

static void test_threshold_filters_by_level(void **state)
{
    char *out;

    (void)state;
    set_level_env("4");
    core_log_reload();
    capture_start();
    DOCA_LOG_EMERG("emerg shown");
    DOCA_LOG_ERR("err shown");
    DOCA_LOG_WARN("warning shown");
    DOCA_LOG_INFO("info hidden");
    DOCA_LOG_DBG("debug hidden");
    out = capture_stop();
    assert_int_equal(count_lines(out), 3);
    assert_non_null(strstr(out, "[EMERG]"));
    assert_non_null(strstr(out, "[WARNING]"));
    assert_null(strstr(out, "hidden"));
    free(out);
}

static void test_level_names(void **state)
{
    (void)state;
    assert_string_equal(core_log_level_name(LOG_EMERG), "EMERG");
    assert_string_equal(core_log_level_name(LOG_ERR), "ERR");
    assert_string_equal(core_log_level_name(LOG_WARNING), "WARNING");
    assert_string_equal(core_log_level_name(LOG_DEBUG), "DEBUG");
    assert_string_equal(core_log_level_name(8), "?");
    assert_string_equal(core_log_level_name(-1), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_default_threshold_is_emerg),
            cmocka_unit_test(test_every_valid_level_is_taken),
            cmocka_unit_test(test_bad_values_are_reported_once_and_ignored),
            cmocka_unit_test(test_line_layout),
            cmocka_unit_test(test_threshold_filters_by_level),
            cmocka_unit_test(test_level_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
