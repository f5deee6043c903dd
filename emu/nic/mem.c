/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the device reaches memory: host memory directly, GPU memory through
 * the CUDA driver.
 *
 * GPU copies never use the legacy default stream. The plain cuMemcpyDtoH and
 * cuMemcpyHtoD run on it, and it waits for every kernel launched on it: a
 * kernel that spins until a CQE appears in GPU memory would wait for the
 * device, and the device's copy of that CQE for the kernel, forever. Every
 * copy here is issued on a stream made with CORE_CU_STREAM_NON_BLOCKING
 * (which does not synchronise with the legacy default stream) and waited for
 * with cuStreamSynchronize, so it is complete on return (a CQE body before
 * its owner byte) and runs while any kernel runs.
 *
 * Streams belong to a context and are pooled per context: a copy takes an
 * idle stream of the thread's current context, or makes one, and gives it
 * back afterwards. The pool's lock is held only to take and give back, never
 * during a copy, so threads copy concurrently; the pool holds at most as many
 * streams per context as copies ever ran at once, and they live as long as
 * the process (a thread's exit leaks nothing).
 */
#include "mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "core/cuda_driver.h"

/* CUDA driver errors that say a stream or its context no longer exists. */
#define MEM_CU_ERROR_INVALID_CONTEXT      201
#define MEM_CU_ERROR_CONTEXT_IS_DESTROYED 709
#define MEM_CU_ERROR_INVALID_HANDLE       400

struct mem_stream {
    core_cu_context ctx;
    core_cu_stream stream;
    struct mem_stream *next;
};

static pthread_mutex_t mem_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_stream *mem_pool; /* idle streams, any context */

/* The CUDA driver, or NULL when there is none (then no address is GPU memory). */
static const struct core_cuda_ops *mem_cuda(void)
{
    const struct core_cuda_ops *cuda = NULL;

    if (core_cuda_unavailable_reason() != NULL)
        return NULL;
    core_cuda_get(&cuda);
    return cuda;
}

bool emu_mem_is_gpu(uintptr_t addr)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    unsigned int type = 0;

    if (cuda == NULL)
        return false;
    if (cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS)
        return false;
    return type == CORE_CU_MEMORYTYPE_DEVICE;
}

/*
 * The context copies of addr use in this thread: the current one, or, in a
 * thread with none (the device's own threads), the primary context of the
 * GPU that owns addr, made current. NULL when there is none to be had.
 */
static core_cu_context mem_gpu_bind_context(const struct core_cuda_ops *cuda, uintptr_t addr)
{
    core_cu_context ctx = NULL;
    core_cu_device dev;
    int ordinal = 0;

    if (cuda->cuCtxGetCurrent(&ctx) == CORE_CU_SUCCESS && ctx != NULL)
        return ctx;
    ctx = NULL;
    if (cuda->cuPointerGetAttribute(&ordinal, CORE_CU_POINTER_ATTR_DEVICE_ORDINAL,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGet(&dev, ordinal) != CORE_CU_SUCCESS ||
        cuda->cuDevicePrimaryCtxRetain(&ctx, dev) != CORE_CU_SUCCESS || ctx == NULL)
        return NULL;
    if (cuda->cuCtxSetCurrent(ctx) != CORE_CU_SUCCESS)
        return NULL;
    return ctx;
}

/* An idle non-blocking stream of ctx (ctx current in this thread), taken from the pool or new. */
static struct mem_stream *mem_stream_take(const struct core_cuda_ops *cuda, core_cu_context ctx)
{
    struct mem_stream *s, **pp;
    core_cu_result rc;

    pthread_mutex_lock(&mem_pool_lock);
    for (pp = &mem_pool; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->ctx == ctx) {
            s = *pp;
            *pp = s->next;
            pthread_mutex_unlock(&mem_pool_lock);
            return s;
        }
    }
    pthread_mutex_unlock(&mem_pool_lock);
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    rc = cuda->cuStreamCreate(&s->stream, CORE_CU_STREAM_NON_BLOCKING);
    if (rc != CORE_CU_SUCCESS) {
        EMU_LOG_ERR("cannot create a CUDA stream for GPU memory copies: CUDA error %d", rc);
        free(s);
        return NULL;
    }
    s->ctx = ctx;
    return s;
}

static void mem_stream_give_back(struct mem_stream *s)
{
    pthread_mutex_lock(&mem_pool_lock);
    s->next = mem_pool;
    mem_pool = s;
    pthread_mutex_unlock(&mem_pool_lock);
}

/*
 * A stream whose copy failed is not reused. It is destroyed, unless the
 * error says that it or its context is gone already (a primary context reset
 * under us): then the handle is dropped as it is.
 */
static void mem_stream_drop(const struct core_cuda_ops *cuda, struct mem_stream *s,
                            core_cu_result why)
{
    if (why != MEM_CU_ERROR_INVALID_CONTEXT && why != MEM_CU_ERROR_CONTEXT_IS_DESTROYED &&
        why != MEM_CU_ERROR_INVALID_HANDLE)
        cuda->cuStreamDestroy(s->stream);
    free(s);
}

/* One copy on stream s, complete on return. */
static core_cu_result mem_stream_copy(const struct core_cuda_ops *cuda, struct mem_stream *s,
                                      bool to_gpu, uintptr_t addr, void *host, size_t len)
{
    core_cu_result rc =
            to_gpu ? cuda->cuMemcpyHtoDAsync((core_cu_deviceptr)addr, host, len, s->stream)
                   : cuda->cuMemcpyDtoHAsync(host, (core_cu_deviceptr)addr, len, s->stream);

    if (rc != CORE_CU_SUCCESS)
        return rc;
    return cuda->cuStreamSynchronize(s->stream);
}

static int mem_gpu_copy(bool to_gpu, uintptr_t addr, void *host, size_t len)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    core_cu_context ctx;
    core_cu_result rc = 0;

    if (cuda == NULL)
        return ENODEV;
    if (len == 0)
        return 0;
    ctx = mem_gpu_bind_context(cuda, addr);
    if (ctx == NULL) {
        EMU_LOG_ERR("GPU memory copy of %zu bytes at 0x%lx: no CUDA context for it", len,
                    (unsigned long)addr);
        return EIO;
    }
    /* A second try on a new stream: a pooled one may have died with a reset context. */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct mem_stream *s = mem_stream_take(cuda, ctx);

        if (s == NULL)
            return EIO;
        rc = mem_stream_copy(cuda, s, to_gpu, addr, host, len);
        if (rc == CORE_CU_SUCCESS) {
            mem_stream_give_back(s);
            return 0;
        }
        mem_stream_drop(cuda, s, rc);
    }
    EMU_LOG_ERR("GPU memory copy of %zu bytes at 0x%lx failed: CUDA error %d", len,
                (unsigned long)addr, rc);
    return EIO;
}

int emu_mem_read(bool gpu, uintptr_t addr, void *dst, size_t len)
{
    if (!gpu) {
        memcpy(dst, (const void *)addr, len);
        return 0;
    }
    return mem_gpu_copy(false, addr, dst, len);
}

int emu_mem_write(bool gpu, uintptr_t addr, const void *src, size_t len)
{
    if (!gpu) {
        memcpy((void *)addr, src, len);
        return 0;
    }
    return mem_gpu_copy(true, addr, (void *)src, len);
}
