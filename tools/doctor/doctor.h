/* SPDX-License-Identifier: BSD-3-Clause */
/* What the doctor's sections share (doctor.c, doctor_env.c). */
#ifndef DOCTOR_H
#define DOCTOR_H

#include <stdbool.h>

#define DOCTOR_MAX_GPUS 64

/* The GPUs the CUDA section found (count 0 without a driver). */
struct doctor_gpus {
    int count;
    bool dmabuf[DOCTOR_MAX_GPUS];
};

/* The environment section; driver_version 0 when the CUDA driver did not load. */
void doctor_report_environment(int driver_version, const struct doctor_gpus *gpus);

/*
 * The capabilities section: the snapshot, one member per line, saved to
 * save_path and compared with the one at compare_path when not NULL. False
 * when the snapshot could not be taken, saved or compared.
 */
bool doctor_report_capabilities(const char *save_path, const char *compare_path);

#endif /* DOCTOR_H */
