/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a fuzz target of tests/fuzz/ defines: libFuzzer's entry points. With
 * DGN_FUZZ=ON libFuzzer calls them; otherwise replay.c does, once per file of
 * a corpus (CTest test fuzz_<target>_corpus).
 */
#ifndef DGN_FUZZ_H
#define DGN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; returns 0 (libFuzzer reserves other values). A finding aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once, before the first input (optional: replay.c calls it when the target defines it). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* DGN_FUZZ_H */
