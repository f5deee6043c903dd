/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA driver (libdgn-fake-cuda.so) for the GPUNetIO tests on
 * machines without a GPU, loaded through DOCA_GPUNETIO_LIBCUDA. It exports
 * every call of CORE_CUDA_SYMBOLS under its ABI name; "GPU memory" is host
 * memory (device addresses are host addresses). Driven by the environment:
 *
 *   FAKE_CUDA_GPUS            "0000:8a:00.0=9.0,0000:1b:00.0=7.5": bus ids and compute
 *                             capabilities (default one GPU 0000:8a:00.0=9.0; "" none)
 *   FAKE_CUDA_DRIVER_VERSION  what cuDriverGetVersion answers (default: the build's CUDA)
 *   FAKE_CUDA_INIT            what cuInit returns (default 0)
 *   FAKE_CUDA_DMABUF          CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (default 1)
 *   FAKE_CUDA_MEM_LIMIT       larger allocations fail with out of memory (default 1 GiB)
 *   FAKE_CUDA_VMM_GRANULARITY the virtual memory management calls' granularity (default
 *                             FAKE_CUDA_VMM_GRANULARITY; a power of two, a multiple of 4096)
 *
 * The virtual memory management calls (fake_cuda_vmm.c) make allocations
 * other processes can import: an allocation is a memfd, its POSIX file
 * descriptor handle a duplicate of it.
 *
 * New allocations are filled with FAKE_CUDA_POISON, so that a caller that
 * promises zeroed memory must zero it. The functions below let a test look
 * at the fake's state; reach them with fake_cuda_hooks().
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <dlfcn.h>
#include <stdlib.h>

#define FAKE_CUDA_POISON          0xa5
#define FAKE_CUDA_VMM_GRANULARITY (64u << 10)

/* References on GPU `ordinal`'s primary context (retains - releases). */
int fake_cuda_primary_refs(int ordinal);
/* Allocations alive (device, pinned host). */
int fake_cuda_live_allocations(void);
/* The calling thread's current context (NULL when none). */
void *fake_cuda_current_context(void);
/* VMM allocations alive (their handles or mappings held) and VMM mappings, in this process. */
void fake_cuda_vmm_counts(int *allocations, int *mappings);

struct fake_cuda_hooks {
    int (*primary_refs)(int ordinal);
    int (*live_allocations)(void);
    void *(*current_context)(void);
    void (*vmm_counts)(int *allocations, int *mappings);
};

/*
 * The hooks of the fake the library loaded (DOCA_GPUNETIO_LIBCUDA); false
 * when it is not loaded in this process (call after core_cuda_get).
 */
static inline int fake_cuda_hooks(struct fake_cuda_hooks *hooks)
{
    const char *file = getenv("DOCA_GPUNETIO_LIBCUDA");
    void *handle = file != NULL ? dlopen(file, RTLD_NOW | RTLD_NOLOAD) : NULL;

    if (handle == NULL)
        return 0;
    *(void **)&hooks->primary_refs = dlsym(handle, "fake_cuda_primary_refs");
    *(void **)&hooks->live_allocations = dlsym(handle, "fake_cuda_live_allocations");
    *(void **)&hooks->current_context = dlsym(handle, "fake_cuda_current_context");
    *(void **)&hooks->vmm_counts = dlsym(handle, "fake_cuda_vmm_counts");
    dlclose(handle); /* NOLOAD took a reference; the library's own one keeps it loaded */
    return hooks->primary_refs != NULL && hooks->live_allocations != NULL &&
           hooks->current_context != NULL && hooks->vmm_counts != NULL;
}

#endif /* FAKE_CUDA_H */
