/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of src/gpunetio share: the GPU context (gpu.c), its
 * memory (mem.c), and the exported QP (export.c, proxy.c, hl.c).
 */
#ifndef GPUNETIO_INTERNAL_H
#define GPUNETIO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cuda_driver.h"
#include "core/log.h"
#include "doca_gpunetio.h"
#include "gdrcopy.h"

/* One per GPU and process; doca_gpu_create() of the same GPU again counts a reference. */
struct doca_gpu {
    core_cu_device device;
    core_cu_context ctx; /* the device's primary context, retained */
    int ordinal;
    char bus_id[16]; /* canonical "0000:8a:00.0" */
    int cc_major;
    int cc_minor;
    bool dmabuf;          /* the device and driver export dma-bufs */
    int refs;             /* creates not yet destroyed (under the module's list lock) */
    atomic_int users;     /* allocations and exported QPs alive: destroy is BAD_STATE while > 0 */
    pthread_mutex_t lock; /* the allocation list */
    struct gpunetio_alloc *allocs;
    struct doca_gpu *next;
};

/* The driver table with the GPU's context current on the calling thread. */
doca_error_t gpunetio_gpu_bind(doca_gpu_t *gpu, const struct core_cuda_ops **cuda);

/* One more / one fewer object depends on the context. */
static inline void gpunetio_gpu_hold(doca_gpu_t *gpu)
{
    atomic_fetch_add(&gpu->users, 1);
}

static inline void gpunetio_gpu_put(doca_gpu_t *gpu)
{
    atomic_fetch_sub(&gpu->users, 1);
}

/* "cuMemAlloc_v2 returned 2 (CUDA_ERROR_OUT_OF_MEMORY: out of memory)" for log lines. */
const char *gpunetio_cu_error(const struct core_cuda_ops *cuda, core_cu_result rc, char *buf,
                              size_t len);

/* ---- Additions (gpu.c, mem.c) ------------------------------------------------------------- */

/*
 * The CUDA version this library was built for (CUDAToolkit major * 1000 +
 * minor * 10, as cuDriverGetVersion counts), 0 when built without the CUDA
 * toolkit. doca_gpu_create() refuses a driver older than it.
 */
#ifndef DGN_CUDA_BUILD_VERSION
#define DGN_CUDA_BUILD_VERSION 0
#endif

/* Compute capability GPUNetIO needs (Ampere). */
#define GPUNETIO_MIN_CC_MAJOR 8
#define GPUNETIO_MIN_CC_MINOR 0

/* Default alignments of doca_gpu_mem_alloc (alignment 0). */
#define GPUNETIO_GPU_MEM_ALIGN  256u  /* what cuMemAlloc guarantees */
#define GPUNETIO_HOST_MEM_ALIGN 4096u /* a host page: what cuMemHostAlloc guarantees */
/* doca_gpu_dmabuf_fd takes ranges whose start and size are multiples of this. */
#define GPUNETIO_DMABUF_ALIGN   4096u

/* Where doca_gpu_mem_alloc looks for GDRCopy, and the variables that change it. */
#define GPUNETIO_GDRAPI_SONAME       "libgdrapi.so.2"
#define GPUNETIO_GDRAPI_ENV          "DOCA_GPUNETIO_LIBGDRAPI"
#define GPUNETIO_DISABLE_GDRCOPY_ENV "DOCA_GPUNETIO_DISABLE_GDRCOPY"
/* "1": exported QPs order their doorbells with system-scope fences even when GPU scope would do. */
#define GPUNETIO_NIC_FENCE_SYS_ENV   "DOCA_GPUNETIO_NIC_FENCE_SYS"
/* 1: high-level QPs made with a GPU keep rings and records in pinned host memory (enable_umem_cpu).
 */
#define GPUNETIO_HL_UMEM_CPU_ENV     "DOCA_GPUNETIO_HL_UMEM_CPU"

/* Whether environment variable `name` is set to "1". */
bool gpunetio_env_is_1(const char *name);

/* One doca_gpu_mem_alloc() allocation, on its context's list (under gpu->lock). */
struct gpunetio_alloc {
    enum doca_gpu_mem_type mtype;
    void *gpu_ptr;               /* the aligned address given to the caller (kernels use it) */
    void *cpu_ptr;               /* the aligned CPU address, NULL for DOCA_GPU_MEM_TYPE_GPU */
    size_t size;                 /* bytes asked for */
    core_cu_deviceptr raw_gpu;   /* what cuMemAlloc returned (GPU memory) */
    void *raw_host;              /* what cuMemHostAlloc returned (host memory) */
    size_t raw_size;             /* bytes allocated, with the alignment padding */
    struct gpunetio_gdr_map gdr; /* DOCA_GPU_MEM_TYPE_GPU_CPU: its GDRCopy mapping */
    struct gpunetio_alloc *next;
};

/* "13.0" for CUDA version number 13000 (as cuDriverGetVersion gives it), "unknown" for 0. */
const char *gpunetio_cuda_version_text(int version, char *buf, size_t len);

/* The enumerator's name ("DOCA_GPU_MEM_TYPE_GPU", ...), "?" for another value. */
const char *gpunetio_mem_type_name(enum doca_gpu_mem_type mtype);

/*
 * GPU memory of gpu holding a copy of bytes bytes at host (aligned to
 * align): *gpu_out, to be freed with doca_gpu_mem_free. what names it in
 * the log line of a failure.
 */
doca_error_t gpunetio_mem_upload(doca_gpu_t *gpu, const void *host, size_t bytes, size_t align,
                                 const char *what, void **gpu_out);

/*
 * Whether addr .. addr + len lies inside one allocation of gpu (by its GPU
 * address); copies the allocation's description to *out (may be NULL).
 */
bool gpunetio_mem_find(doca_gpu_t *gpu, const void *addr, size_t len, struct gpunetio_alloc *out);

#endif /* GPUNETIO_INTERNAL_H */
