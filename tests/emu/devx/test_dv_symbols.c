/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of rdma-core's libmlx5.so.1 resolves, at its version, from
 * softmlx5's library; the ones softmlx5 does not implement fail cleanly.
 *   test_dv_symbols <mlx5_symbols.txt>
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devx_test.h"

typedef void *(*dt_ptr_fn)(void);
typedef int (*dt_int_fn)(void);
typedef long (*dt_neg_fn)(void);
typedef void (*dt_void_fn)(void);

static int dt_check_one(void *lib, const char *name, const char *node, const char *kind)
{
    void *sym = dlvsym(lib, name, node);
    Dl_info info;

    if (sym == NULL || dladdr(sym, &info) == 0 || strstr(info.dli_fname, "softmlx5") == NULL) {
        fprintf(stderr, "%s@%s: not resolved from softmlx5 (%s)\n", name, node,
                sym == NULL ? dlerror() : info.dli_fname);
        return 1;
    }
    errno = 0;
    if (strcmp(kind, "ptr") == 0) {
        DT_CHECK(((dt_ptr_fn)sym)() == NULL && errno == EOPNOTSUPP);
    } else if (strcmp(kind, "int") == 0) {
        DT_CHECK(((dt_int_fn)sym)() == EOPNOTSUPP && errno == EOPNOTSUPP);
    } else if (strcmp(kind, "neg") == 0) {
        DT_CHECK(((dt_neg_fn)sym)() == -1 && errno == EOPNOTSUPP);
    } else if (strcmp(kind, "void") == 0) {
        ((dt_void_fn)sym)();
        DT_CHECK(errno == EOPNOTSUPP);
    }
    return 0;
}

int main(int argc, char **argv)
{
    char name[128], node[32], kind[16], line[256];
    int failures = 0, count = 0;
    FILE *list;
    void *lib;

    DT_CHECK(argc == 2);
    list = fopen(argv[1], "r");
    DT_CHECK(list != NULL);
    lib = dlopen("libmlx5.so.1", RTLD_NOW);
    DT_CHECK(lib != NULL);
    while (fgets(line, sizeof(line), list) != NULL) {
        if (line[0] == '#' || sscanf(line, "%127s %31s %15s", name, node, kind) != 3)
            continue;
        failures += dt_check_one(lib, name, node, kind);
        count++;
    }
    fclose(list);
    DT_CHECK(count >= 128);
    printf("%d symbols checked, %d failures\n", count, failures);
    return failures == 0 ? 0 : 1;
}
