/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run-time loading of the libraries the project talks to (rdma-core,
 * the CUDA driver). Nothing in the project links against them: each is
 * opened with dlopen and its symbols are resolved into a table of function
 * pointers, here and nowhere else.
 */
#ifndef CORE_DL_H
#define CORE_DL_H

#include <stdbool.h>
#include <stddef.h>

#include "doca_error.h"

struct core_dl_symbol {
    const char *name; /* symbol to resolve */
    void **slot;      /* where its address goes */
    bool optional;    /* absent -> slot left NULL instead of failing the load */
};

struct core_dl_library {
    const char *what;   /* human name: "rdma-core verbs" */
    const char *soname; /* default file: "libibverbs.so.1" */
    const char *env;    /* variable that may name another file or path */
    const char *remedy; /* what the user can do when it is missing */
    const struct core_dl_symbol *symbols;
    size_t symbol_count;
};

/*
 * Opens the library (the file named by lib->env when set, else lib->soname)
 * and resolves every symbol. On failure nothing stays open, every slot is
 * NULL, and `reason` (when not NULL) holds one line naming the library or
 * the first missing symbol and what to do. Returns DOCA_ERROR_NOT_SUPPORTED
 * when the library or a required symbol is missing.
 */
doca_error_t core_dl_load(const struct core_dl_library *lib, void **handle_out, char *reason,
                          size_t reason_size);

/* The file a library was (or would be) loaded from: lib->env's value or lib->soname. */
const char *core_dl_file(const struct core_dl_library *lib);

#endif /* CORE_DL_H */
