/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doctor's capabilities section: the capability snapshot
 * (dgn_cap_snapshot: the doca-eth queries of each RDMA device and the CUDA
 * properties of each GPU), one member per line; --snapshot FILE saves it,
 * --compare FILE says what changed since a saved one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doca_gpunetio_cap_snapshot.h"
#include "doctor.h"
#include "gpunetio/cap_snapshot.h"

/* A saved snapshot is a few kilobytes a device; anything far larger is not one. */
#define DOCTOR_SNAPSHOT_MAX (1u << 20)

static void doctor_caps_line(const char *path, const char *value, void *arg)
{
    (void)arg;
    printf("  %s: %s\n", path, value);
}

static bool doctor_caps_save(const char *json, const char *path)
{
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        printf("  snapshot: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs(json, f);
    if (fclose(f) != 0) {
        printf("  snapshot: writing %s failed: %s\n", path, strerror(errno));
        return false;
    }
    printf("  snapshot: saved to %s (compare later with --compare %s)\n", path, path);
    return true;
}

/* The text of a saved snapshot, or NULL with a line saying why. */
static char *doctor_caps_read(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text;
    size_t n;

    if (f == NULL) {
        printf("  compare: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    text = malloc(DOCTOR_SNAPSHOT_MAX + 1);
    n = text != NULL ? fread(text, 1, DOCTOR_SNAPSHOT_MAX + 1, f) : 0;
    fclose(f);
    if (text == NULL || n > DOCTOR_SNAPSHOT_MAX) {
        printf("  compare: %s is %s\n", path,
               text == NULL ? "not readable: out of memory" : "larger than any snapshot");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static bool doctor_caps_compare(const char *json, const char *path)
{
    char *saved = doctor_caps_read(path);
    char *report = NULL;
    doca_error_t err;

    if (saved == NULL)
        return false;
    err = dgn_cap_snapshot_compare(saved, json, &report);
    free(saved);
    if (err != DOCA_SUCCESS) {
        printf("  compare: %s is not a snapshot this library can read: %s (DOCA_GPUNETIO_LOG=3 "
               "says where)\n",
               path, doca_error_get_name(err));
        return false;
    }
    if (report[0] == '\0') {
        printf("  compare: no capability changed since %s\n", path);
    } else {
        printf("  compare: since %s (a NOT_SUPPORTED now is explained by these):\n", path);
        for (char *line = strtok(report, "\n"); line != NULL; line = strtok(NULL, "\n"))
            printf("    %s\n", line);
    }
    free(report);
    return true;
}

bool doctor_report_capabilities(const char *save_path, const char *compare_path)
{
    char *json = NULL;
    doca_error_t err = dgn_cap_snapshot(&json);
    bool ok = true;

    printf("capabilities (snapshot of both axes: doca-eth queries per device, CUDA properties per "
           "GPU):\n");
    if (err != DOCA_SUCCESS) {
        printf("  snapshot: not taken: %s\n", doca_error_get_name(err));
        return false;
    }
    cap_snapshot_each(json, doctor_caps_line, NULL);
    if (save_path != NULL)
        ok = doctor_caps_save(json, save_path) && ok;
    if (compare_path != NULL)
        ok = doctor_caps_compare(json, compare_path) && ok;
    free(json);
    return ok;
}
