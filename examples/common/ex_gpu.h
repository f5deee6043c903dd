/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA runtime calls the examples' host code makes, behind a C
 * interface (ex_gpu.cu; ex_gpu_none.c in a build without CUDA, where every
 * call fails saying so). Streams are passed as void *.
 */
#ifndef EX_GPU_H
#define EX_GPU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this build has CUDA at all. */
bool ex_gpu_built(void);

/*
 * How many CUDA devices can be used; the bus id of the first ("0000:8A:00.0")
 * in first_bus_id. 0 with the reason in why where none can.
 */
int ex_gpu_count(char *first_bus_id, size_t bus_len, char *why, size_t why_len);

/* Makes the GPU at bus_id the calling thread's device and creates its context; 0 on success. */
int ex_gpu_select(const char *bus_id);

/*
 * The compute capability (major, minor) of the calling thread's device
 * (the one ex_gpu_select made current); 0 on success.
 */
int ex_gpu_compute_capability(int *major, int *minor);

/* A stream that never waits for the legacy default stream (cudaStreamNonBlocking). */
int ex_gpu_stream_create(void **stream);
void ex_gpu_stream_destroy(void *stream);

/*
 * Runs launch(arg, stream), which launches kernels on stream (0, or -1
 * logged), between two CUDA events, and waits for them without blocking
 * signals. *elapsed_us gets the time between the events. 0, or -1 (logged,
 * naming what) when the launch or the kernels failed, a signal arrived or
 * they had not finished after timeout_s seconds (then they may still run).
 */
int ex_gpu_run_timed(void *stream, int (*launch)(void *arg, void *stream), void *arg,
                     const char *what, unsigned timeout_s, double *elapsed_us);

/*
 * Whether this build and driver give dma-bufs mapped for PCIe (CUDA 12.8's
 * CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE, which Data Direct needs):
 * 0, or -1 with the reason in why.
 */
int ex_gpu_dmabuf_pcie_supported(char *why, size_t why_len);
/*
 * A dma-buf of len bytes of GPU memory at addr in *fd, mapped for PCIe, or
 * with the default mapping (one warning) where the GPU cannot map for PCIe.
 * 0, or -1 (logged).
 */
int ex_gpu_dmabuf_pcie_fd(void *addr, size_t len, int *fd);

int ex_gpu_memcpy_to_gpu(void *dst_gpu, const void *src, size_t len);
int ex_gpu_memcpy_from_gpu(void *dst, const void *src_gpu, size_t len);
int ex_gpu_memset(void *dst_gpu, int value, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* EX_GPU_H */
