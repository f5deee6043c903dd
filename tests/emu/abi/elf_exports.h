/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exported symbols of a shared library, read from its ELF file: each
 * defined dynamic symbol with the version node it is defined under
 * (.gnu.version, .gnu.version_d) and whether that is its default version
 * (name@@NODE) or a hidden one (name@NODE). The version nodes themselves
 * are listed too, as entries whose name is the node's. Each says whether it
 * is a function or data.
 */
#ifndef TEST_ELF_EXPORTS_H
#define TEST_ELF_EXPORTS_H

#include <stdbool.h>
#include <stddef.h>

struct elf_export {
    char *name;
    char *node; /* "" for a symbol without a version */
    bool hidden;
    bool object; /* data (or a version node's own entry) rather than a function */
};

struct elf_exports {
    struct elf_export *list; /* sorted by name, node */
    size_t count;
};

/* Reads path's exports; 0, or -1 with a message on stderr (ENOENT in errno: no such file). */
int elf_exports_read(const char *path, struct elf_exports *out);
void elf_exports_free(struct elf_exports *e);
/* The entry of name at node (hidden or not), or NULL. */
const struct elf_export *elf_exports_find(const struct elf_exports *e, const char *name,
                                          const char *node);

#endif /* TEST_ELF_EXPORTS_H */
