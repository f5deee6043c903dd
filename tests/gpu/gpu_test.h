/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal harness for GPU tests: skip with exit code 77 when no CUDA device
 * can be used, count failures, print one "N passed, N failed" line.
 */
#ifndef GPU_TEST_H
#define GPU_TEST_H

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_TEST_SKIP 77

/* Exits 77 with "skipped: no CUDA device (<reason>)" unless a device can be used. */
void gpu_test_require_device(void);

/* Records one check; prints the failing expression and location when `ok` is false. */
void gpu_test_check(int ok, const char *what, const char *file, int line);

/* Prints "N passed, N failed" and returns the process exit status. */
int gpu_test_finish(void);

#define GPU_CHECK(expr) gpu_test_check(!!(expr), #expr, __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif

#endif /* GPU_TEST_H */
