/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's configuration (emu/nic/config.c, config_names.c), built into
 * this program: the device-name rule (more names than devices, an empty or
 * too long name, a name twice, a default name taken), the single-copy
 * decision for every OS answer, and the environment as the library reads it
 * once per process (each case in a child process of its own).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "nic/config.h"
#include "nic/config_names.h"

static void test_names_ok(void **state)
{
    char names[EMU_MAX_DEVICES][EMU_NAME_MAX];
    char err[256];

    (void)state;
    assert_true(emu_config_names(NULL, 2, names, err, sizeof(err)));
    assert_string_equal(names[0], "mlx5_0");
    assert_string_equal(names[1], "mlx5_1");
    assert_true(emu_config_names("", 1, names, err, sizeof(err)));
    assert_string_equal(names[0], "mlx5_0");
    assert_true(emu_config_names("a,b", 2, names, err, sizeof(err)));
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "b");
    /* Fewer names than devices: the rest keep their defaults. */
    assert_true(emu_config_names("x", 3, names, err, sizeof(err)));
    assert_string_equal(names[0], "x");
    assert_string_equal(names[1], "mlx5_1");
    assert_string_equal(names[2], "mlx5_2");
    /* Swapping defaults is fine. */
    assert_true(emu_config_names("mlx5_1,mlx5_0", 2, names, err, sizeof(err)));
    assert_string_equal(err, "");
}

static void test_names_refused(void **state)
{
    char names[EMU_MAX_DEVICES][EMU_NAME_MAX];
    char err[256], long_name[EMU_NAME_MAX + 1];

    (void)state;
    assert_false(emu_config_names("a,b", 1, names, err, sizeof(err)));
    assert_non_null(strstr(err, "names 2 devices but there is 1"));
    assert_non_null(strstr(err, "give at most 1 name"));
    assert_false(emu_config_names("a,b,c,d", 2, names, err, sizeof(err)));
    assert_non_null(strstr(err, "names 4 devices but there are 2"));
    assert_false(emu_config_names("a,a", 2, names, err, sizeof(err)));
    assert_non_null(strstr(err, "devices 0 and 1 the same name 'a'"));
    /* A name that is another device's default. */
    assert_false(emu_config_names("mlx5_1", 2, names, err, sizeof(err)));
    assert_non_null(strstr(err, "the same name 'mlx5_1' (the second is its default name)"));
    assert_false(emu_config_names("a,,b", 3, names, err, sizeof(err)));
    assert_non_null(strstr(err, "empty name (entry 2)"));
    assert_false(emu_config_names("a,", 2, names, err, sizeof(err)));
    assert_non_null(strstr(err, "empty name"));
    memset(long_name, 'n', EMU_NAME_MAX);
    long_name[EMU_NAME_MAX] = '\0';
    assert_false(emu_config_names(long_name, 1, names, err, sizeof(err)));
    assert_non_null(strstr(err, "at most 63"));
    long_name[EMU_NAME_MAX - 1] = '\0';
    assert_true(emu_config_names(long_name, 1, names, err, sizeof(err)));
}

/* The decision for one set of inputs: on, forced, and a substring of the line. */
static void decide(long setting, int yama, int dumpable, bool on, bool forced, const char *why_part)
{
    struct emu_single_copy_inputs in = {setting, yama, dumpable};
    struct emu_config cfg;
    char why[256];

    memset(&cfg, 0xa5, sizeof(cfg));
    emu_config_single_copy(&in, &cfg, why, sizeof(why));
    if (cfg.single_copy != on || cfg.single_copy_forced != forced || strstr(why, why_part) == NULL)
        fail_msg("setting %ld yama %d dumpable %d: on %d forced %d '%s'; expected on %d "
                 "forced %d '%s'",
                 setting, yama, dumpable, cfg.single_copy, cfg.single_copy_forced, why, on, forced,
                 why_part);
}

static void test_single_copy(void **state)
{
    (void)state;
    /* Unset: on only where the OS already lets peers read the process. */
    decide(-1, EMU_YAMA_ABSENT, 1, true, false, "single copy on: Yama absent");
    decide(-1, 0, 1, true, false, "single copy on: Yama ptrace_scope=0");
    decide(-1, 1, 1, false, false,
           "single copy off: Yama ptrace_scope=1; set SOFTMLX5_SINGLE_COPY=1 to allow it");
    decide(-1, 2, 1, false, false, "single copy off: Yama ptrace_scope=2");
    decide(-1, 3, 1, false, false, "single copy off: Yama ptrace_scope=3");
    decide(-1, EMU_YAMA_UNREADABLE, 1, false, false, "cannot be read");
    decide(-1, EMU_YAMA_ABSENT, 0, false, false, "not dumpable");
    decide(-1, 0, 2, false, false, "not dumpable");
    decide(-1, EMU_YAMA_ABSENT, 1, true, false, "single copy on: Yama absent");
    /* 0: off, whatever the OS allows. */
    decide(0, EMU_YAMA_ABSENT, 1, false, false, "single copy off: SOFTMLX5_SINGLE_COPY=0");
    /* 1: on and forced (PR_SET_PTRACER_ANY allowed), with the caveats said. */
    decide(1, 1, 1, true, true, "single copy on: SOFTMLX5_SINGLE_COPY=1");
    decide(1, EMU_YAMA_ABSENT, 1, true, true, "PR_SET_PTRACER_ANY");
    decide(1, 2, 1, true, true, "only CAP_SYS_PTRACE");
    decide(1, 1, 0, true, true, "not dumpable");
}

/* Runs emu_config_get() in a child with the variables set; its answers through the exit code. */
static int child_config(const char *const *env, int expect_devices, const char *name0,
                        const char *name1, int expect_single_copy, int expect_forced)
{
    pid_t pid = fork();
    int status;

    if (pid == 0) {
        const struct emu_config *c;

        for (const char *const *e = env; *e != NULL; e += 2)
            setenv(e[0], e[1], 1);
        c = emu_config_get();
        if (c->device_count != expect_devices || c->valid != (expect_devices != 0))
            _exit(10);
        if (name0 != NULL && strcmp(c->names[0], name0) != 0)
            _exit(11);
        if (name1 != NULL && strcmp(c->names[1], name1) != 0)
            _exit(12);
        if (expect_single_copy >= 0 && c->single_copy != (expect_single_copy != 0))
            _exit(13);
        if (expect_forced >= 0 && c->single_copy_forced != (expect_forced != 0))
            _exit(14);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void test_environment(void **state)
{
    static const char *const too_many[] = {"SOFTMLX5_DEVICES", "1", "SOFTMLX5_NAMES", "a,b", NULL};
    static const char *const twice[] = {"SOFTMLX5_DEVICES", "2", "SOFTMLX5_NAMES", "a,a", NULL};
    static const char *const default_taken[] = {"SOFTMLX5_DEVICES", "2", "SOFTMLX5_NAMES", "mlx5_1",
                                                NULL};
    static const char *const good[] = {"SOFTMLX5_DEVICES", "2", "SOFTMLX5_NAMES", "x", NULL};
    static const char *const forced[] = {"SOFTMLX5_SINGLE_COPY", "1", NULL};
    static const char *const off[] = {"SOFTMLX5_SINGLE_COPY", "0", NULL};
    static const char *const bad[] = {"SOFTMLX5_SINGLE_COPY", "2", NULL};
    static const char *const unset[] = {NULL};

    (void)state;
    unsetenv("SOFTMLX5_DEVICES");
    unsetenv("SOFTMLX5_NAMES");
    unsetenv("SOFTMLX5_SINGLE_COPY");
    setenv("SOFTMLX5_LOG", "6", 1); /* the refusals and the single-copy line show in the log */
    assert_int_equal(child_config(too_many, 0, NULL, NULL, -1, -1), 0);
    assert_int_equal(child_config(twice, 0, NULL, NULL, -1, -1), 0);
    assert_int_equal(child_config(default_taken, 0, NULL, NULL, -1, -1), 0);
    assert_int_equal(child_config(good, 2, "x", "mlx5_1", -1, -1), 0);
    assert_int_equal(child_config(forced, 1, "mlx5_0", NULL, 1, 1), 0);
    assert_int_equal(child_config(off, 1, NULL, NULL, 0, 0), 0);
    assert_int_equal(child_config(bad, 0, NULL, NULL, -1, -1), 0);
    /* Unset: never forced (on or off is this machine's answer). */
    assert_int_equal(child_config(unset, 1, NULL, NULL, -1, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names_ok),
            cmocka_unit_test(test_names_refused),
            cmocka_unit_test(test_single_copy),
            cmocka_unit_test(test_environment),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
