/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA driver for softmlx5's GPU tests, through the project's dlopen
 * table (link with dgn_internal). A test calls emu_cuda_open() first and,
 * when it answers a reason, prints "skipped: no CUDA device (<reason>)" and
 * exits with EMU_CUDA_SKIP.
 */
#ifndef EMU_CUDA_TEST_H
#define EMU_CUDA_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cuda_driver.h"

#define EMU_CUDA_SKIP 77

/*
 * Loads the driver and makes GPU 0's primary context current in this
 * thread. NULL on success (*cuda_out set), otherwise why not (one line).
 */
static inline const char *emu_cuda_open(const struct core_cuda_ops **cuda_out)
{
    static char why[128];
    const struct core_cuda_ops *cuda = NULL;
    core_cu_context ctx = NULL;
    core_cu_device dev = 0;
    core_cu_result rc;
    int count = 0;

    if (core_cuda_get(&cuda) != DOCA_SUCCESS || cuda == NULL) {
        const char *reason = core_cuda_unavailable_reason();

        return reason != NULL ? reason : "the CUDA driver is unusable";
    }
    rc = cuda->cuDeviceGetCount(&count);
    if (rc != CORE_CU_SUCCESS || count < 1) {
        snprintf(why, sizeof(why), "cuDeviceGetCount: CUDA error %d, %d devices", rc, count);
        return why;
    }
    rc = cuda->cuDeviceGet(&dev, 0);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuDevicePrimaryCtxRetain(&ctx, dev);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuCtxSetCurrent(ctx);
    if (rc != CORE_CU_SUCCESS) {
        snprintf(why, sizeof(why), "GPU 0's primary context: CUDA error %d", rc);
        return why;
    }
    *cuda_out = cuda;
    return NULL;
}

/*
 * What probe (run in a child, so that this process never initialises CUDA)
 * says is missing: NULL when it says nothing, else its reason (static).
 */
static inline const char *emu_probe_in_child(const char *(*probe)(void))
{
    static char why[256];
    int pipefd[2], status = 0;
    ssize_t n;
    pid_t pid;

    if (pipe(pipefd) != 0)
        return "pipe failed";
    pid = fork();
    if (pid < 0)
        return "fork failed";
    if (pid == 0) {
        const char *reason;

        close(pipefd[0]);
        reason = probe();
        if (reason != NULL && write(pipefd[1], reason, strlen(reason)) < 0)
            _exit(1);
        _exit(0);
    }
    close(pipefd[1]);
    n = read(pipefd[0], why, sizeof(why) - 1);
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    if (n > 0) {
        why[n] = '\0';
        return why;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "the probe process failed";
    return NULL;
}

/* In the probe's child: whether CUDA opens and allocates. */
static inline const char *emu_cuda_probe_child(void)
{
    const struct core_cuda_ops *cuda = NULL;
    const char *reason = emu_cuda_open(&cuda);
    core_cu_deviceptr p = 0;

    if (reason == NULL && cuda->cuMemAlloc(&p, 4096) != CORE_CU_SUCCESS)
        reason = "cuMemAlloc failed";
    return reason;
}

/* Whether CUDA works here, asked in a child so that this process never initialises it. */
static inline const char *emu_cuda_probe(void)
{
    return emu_probe_in_child(emu_cuda_probe_child);
}

/* emu_cuda_probe(); when it gives a reason, prints the skip line and returns false. */
static inline bool emu_cuda_usable(void)
{
    const char *why = emu_cuda_probe();

    if (why != NULL)
        printf("skipped: no CUDA device (%s)\n", why);
    return why == NULL;
}

#endif /* EMU_CUDA_TEST_H */
