/* SPDX-License-Identifier: BSD-3-Clause */
/* ex_gpu.h in a build without CUDA: every call says so. */
#include <stdio.h>

#include "ex_common.h"
#include "ex_gpu.h"

static int ex_no_cuda(void)
{
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}

bool ex_gpu_built(void)
{
    return false;
}

int ex_gpu_count(char *first_bus_id, size_t bus_len, char *why, size_t why_len)
{
    (void)first_bus_id;
    (void)bus_len;
    snprintf(why, why_len, "the examples were built without CUDA");
    return 0;
}

int ex_gpu_select(const char *bus_id)
{
    (void)bus_id;
    return ex_no_cuda();
}

int ex_gpu_compute_capability(int *major, int *minor)
{
    (void)major;
    (void)minor;
    return ex_no_cuda();
}

int ex_gpu_stream_create(void **stream)
{
    (void)stream;
    return ex_no_cuda();
}

void ex_gpu_stream_destroy(void *stream)
{
    (void)stream;
}

int ex_gpu_run_timed(void *stream, int (*launch)(void *arg, void *stream), void *arg,
                     const char *what, unsigned timeout_s, double *elapsed_us)
{
    (void)stream;
    (void)launch;
    (void)arg;
    (void)what;
    (void)timeout_s;
    (void)elapsed_us;
    return ex_no_cuda();
}

int ex_gpu_memcpy_to_gpu(void *dst_gpu, const void *src, size_t len)
{
    (void)dst_gpu;
    (void)src;
    (void)len;
    return ex_no_cuda();
}

int ex_gpu_memcpy_from_gpu(void *dst, const void *src_gpu, size_t len)
{
    (void)dst;
    (void)src_gpu;
    (void)len;
    return ex_no_cuda();
}

int ex_gpu_memset(void *dst_gpu, int value, size_t len)
{
    (void)dst_gpu;
    (void)value;
    (void)len;
    return ex_no_cuda();
}

int ex_gpu_dmabuf_pcie_supported(char *why, size_t why_len)
{
    snprintf(why, why_len, "this build has no CUDA");
    return -1;
}

int ex_gpu_dmabuf_pcie_fd(void *addr, size_t len, int *fd)
{
    (void)addr;
    (void)len;
    (void)fd;
    return ex_no_cuda();
}
