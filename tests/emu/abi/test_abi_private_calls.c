/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calls softmlx5 exports only to answer "not supported" fail cleanly when
 * called: every kernel command of rdma-core's private node (ibv_cmd_*,
 * execute_ioctl) and every IBVERBS_1.0 compat version, as the system's
 * libibverbs.so.1 lists them, resolves from softmlx5 and returns its error
 * with errno EOPNOTSUPP. Run under softmlx5-run.
 *   test_abi_private_calls SYSTEM_LIBIBVERBS
 * Exit 77 when the system library is not installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elf_exports.h"

#define SKIP 77

typedef long (*call_fn)(void);

/* Calls name@node from lib; expect_ret is checked unless check_ret is false. */
static int call_one(void *lib, const char *name, const char *node, bool check_ret, long expect)
{
    void *sym = dlvsym(lib, name, node);
    Dl_info info;
    long ret;

    if (sym == NULL || dladdr(sym, &info) == 0 || strstr(info.dli_fname, "softmlx5") == NULL) {
        fprintf(stderr, "%s@%s does not resolve from softmlx5\n", name, node);
        return 1;
    }
    errno = 0;
    ret = ((call_fn)sym)();
    if (errno != EOPNOTSUPP || (check_ret && (int)ret != expect)) {
        fprintf(stderr, "%s@%s returned %ld, errno %d (EOPNOTSUPP expected)\n", name, node, ret,
                errno);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct elf_exports sys;
    int failures = 0, cmds = 0, compat = 0;
    void *lib;

    if (argc != 2)
        return 2;
    if (elf_exports_read(argv[1], &sys) != 0) {
        printf("SKIP: the system library %s is not readable\n", argv[1]);
        return errno == ENOENT ? SKIP : 1;
    }
    lib = dlopen("libibverbs.so.1", RTLD_NOW);
    if (lib == NULL) {
        fprintf(stderr, "libibverbs.so.1 cannot be loaded: %s\n", dlerror());
        return 1;
    }
    for (size_t i = 0; i < sys.count; i++) {
        const struct elf_export *e = &sys.list[i];

        if (strcmp(e->node, "IBVERBS_PRIVATE_34") == 0 &&
            (strncmp(e->name, "ibv_cmd_", 8) == 0 || strcmp(e->name, "execute_ioctl") == 0)) {
            failures += call_one(lib, e->name, e->node, true, EOPNOTSUPP);
            cmds++;
        } else if (e->hidden && strcmp(e->node, "IBVERBS_1.0") == 0) {
            /* Their return types differ (pointer, number, nothing): errno tells. */
            failures += call_one(lib, e->name, e->node, false, 0);
            compat++;
        }
    }
    elf_exports_free(&sys);
    printf("%d kernel commands, %d IBVERBS_1.0 compat calls; %d failures\n", cmds, compat,
           failures);
    return failures == 0 && cmds > 0 && compat > 0 ? 0 : 1;
}
