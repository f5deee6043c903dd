/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's library exports every symbol the system's library of the same
 * soname exports, under the same version node and as the same kind of
 * version (default name@@NODE or hidden name@NODE) and as a function or data
 * alike, version nodes included.
 * Read from both ELF files at test time, so that a newer rdma-core shows at
 * once what softmlx5 lacks.
 *   test_abi_exports SYSTEM_LIBRARY SOFTMLX5_LIBRARY
 * Exit 77 when the system library is not installed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elf_exports.h"

#define SKIP 77

static size_t count_nodes(const struct elf_exports *e)
{
    size_t n = 0;

    for (size_t i = 0; i < e->count; i++)
        n += strcmp(e->list[i].name, e->list[i].node) == 0;
    return n;
}

int main(int argc, char **argv)
{
    struct elf_exports sys, ours;
    size_t missing = 0;
    bool ok;

    if (argc != 3) {
        fprintf(stderr, "usage: %s SYSTEM_LIBRARY SOFTMLX5_LIBRARY\n", argv[0]);
        return 2;
    }
    if (elf_exports_read(argv[1], &sys) != 0) {
        if (errno == ENOENT) {
            printf("SKIP: the system library %s is not installed\n", argv[1]);
            return SKIP;
        }
        perror(argv[1]);
        return 1;
    }
    if (elf_exports_read(argv[2], &ours) != 0) {
        perror(argv[2]);
        return 1;
    }
    for (size_t i = 0; i < sys.count; i++) {
        const struct elf_export *s = &sys.list[i];
        const struct elf_export *o = elf_exports_find(&ours, s->name, s->node);

        if (o == NULL || o->hidden != s->hidden || o->object != s->object) {
            fprintf(stderr, "missing from softmlx5: %s %s%s%s%s\n", s->object ? "data" : "function",
                    s->name, s->node[0] ? "@" : "", s->hidden || !s->node[0] ? "" : "@", s->node);
            missing++;
        }
    }
    printf("%s: %zu exports in %zu version nodes; softmlx5's %s: %zu exports in %zu nodes; "
           "%zu missing\n",
           argv[1], sys.count, count_nodes(&sys), argv[2], ours.count, count_nodes(&ours), missing);
    ok = missing == 0 && sys.count > 0;
    elf_exports_free(&sys);
    elf_exports_free(&ours);
    return ok ? 0 : 1;
}
