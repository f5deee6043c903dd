/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The main() of a fuzz target built without libFuzzer: runs each input file
 * named on the command line, or each regular file of a named directory, once
 * through LLVMFuzzerTestOneInput. A finding aborts (under the build's
 * sanitizers); an unreadable or empty corpus fails.
 *
 *   fuzz_<target> FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#pragma weak LLVMFuzzerInitialize

/* Runs one file; 0, or -1 when it cannot be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t size = 0;
    long len;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return -1;
    }
    size = (size_t)len;
    /* An exact-size copy, so that a read past the input is a sanitizer report. */
    data = malloc(size > 0 ? size : 1);
    if (data == NULL || fread(data, 1, size, f) != size) {
        fprintf(stderr, "replay: %s: cannot read %zu bytes\n", path, size);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir in name order; the count run, or -1. */
static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int run = 0;

    if (d == NULL) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char **grown;

        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            grown = realloc(names, cap * sizeof(*names));
            if (grown == NULL)
                break;
            names = grown;
        }
        if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
            break;
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++) {
        struct stat st;

        if (run >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            run = replay_file(names[i]) == 0 ? run + 1 : -1;
        free(names[i]);
    }
    free(names);
    return run;
}

int main(int argc, char **argv)
{
    int total = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int run;

        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        run = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (run < 0)
            return 1;
        total += run;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no input to run\n");
        return 1;
    }
    printf("replay: %d inputs ran\n", total);
    return 0;
}
