/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the GPUNetIO tests share: capturing the library's log (stderr)
 * around a call, and counting its ERR lines. Include after cmocka.h.
 */
#ifndef GPUNETIO_TEST_H
#define GPUNETIO_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

static FILE *gpunetio_test_captured;
static int gpunetio_test_saved_stderr = -1;

/* Every line at INFO or below is written while the tests run. */
static inline void log_setup(void)
{
    setenv(CORE_LOG_ENV, "6", 1);
    core_log_reload();
}

static inline void capture_start(void)
{
    fflush(stderr);
    gpunetio_test_captured = tmpfile();
    assert_non_null(gpunetio_test_captured);
    gpunetio_test_saved_stderr = dup(STDERR_FILENO);
    assert_true(gpunetio_test_saved_stderr >= 0);
    assert_true(dup2(fileno(gpunetio_test_captured), STDERR_FILENO) >= 0);
}

/* What was written to stderr since capture_start; also echoed to the real stderr. Free it. */
static inline char *capture_stop(void)
{
    long size;
    char *text;

    fflush(stderr);
    dup2(gpunetio_test_saved_stderr, STDERR_FILENO);
    close(gpunetio_test_saved_stderr);
    size = ftell(gpunetio_test_captured);
    assert_true(size >= 0);
    text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    rewind(gpunetio_test_captured);
    assert_int_equal(fread(text, 1, (size_t)size, gpunetio_test_captured), (size_t)size);
    fclose(gpunetio_test_captured);
    fputs(text, stderr);
    return text;
}

static inline int count_of(const char *text, const char *what)
{
    int n = 0;

    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

/* The call's log holds exactly one ERR line, and it contains `expect`. */
#define assert_one_error_line(log, expect)             \
    do {                                               \
        assert_int_equal(count_of((log), "[ERR]"), 1); \
        assert_non_null(strstr((log), (expect)));      \
    } while (0)

#endif /* GPUNETIO_TEST_H */
