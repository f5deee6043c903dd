/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_gpu.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include "ex_oob.h"

#include "ex_common.h"

/* Logs a failed CUDA call; returns -1 (0 when it succeeded). */
static int ex_cuda_check(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess)
        return 0;
    EX_ERR("%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return -1;
}

extern "C" bool ex_gpu_built(void)
{
    return true;
}

extern "C" int ex_gpu_count(char *first_bus_id, size_t bus_len, char *why, size_t why_len)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);

    if (rc != cudaSuccess || count == 0) {
        /* The runtime says "insufficient driver" when there is no driver at all: say which. */
        void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

        if (driver == NULL)
            snprintf(why, why_len, "no NVIDIA driver: libcuda.so.1 cannot be loaded");
        else
            snprintf(why, why_len, "%s",
                     rc != cudaSuccess ? cudaGetErrorString(rc)
                                       : "the CUDA driver lists no device");
        if (driver != NULL)
            dlclose(driver);
        return 0;
    }
    rc = cudaDeviceGetPCIBusId(first_bus_id, (int)bus_len, 0);
    if (rc != cudaSuccess) {
        snprintf(why, why_len, "cannot read the bus id of GPU 0: %s", cudaGetErrorString(rc));
        return 0;
    }
    return count;
}

extern "C" int ex_gpu_select(const char *bus_id)
{
    int dev = -1;

    if (ex_cuda_check(cudaDeviceGetByPCIBusId(&dev, bus_id), "no CUDA device at this bus id") ||
        ex_cuda_check(cudaSetDevice(dev), "cudaSetDevice") ||
        ex_cuda_check(cudaFree(0), "creating the CUDA context"))
        return -1;
    EX_INFO("CUDA device %d at %s", dev, bus_id);
    return 0;
}

extern "C" int ex_gpu_compute_capability(int *major, int *minor)
{
    int dev = -1;

    if (ex_cuda_check(cudaGetDevice(&dev), "cudaGetDevice") ||
        ex_cuda_check(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, dev),
                      "reading the GPU's compute capability") ||
        ex_cuda_check(cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, dev),
                      "reading the GPU's compute capability"))
        return -1;
    return 0;
}

extern "C" int ex_gpu_stream_create(void **stream)
{
    cudaStream_t s;

    if (ex_cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"))
        return -1;
    *stream = s;
    return 0;
}

extern "C" void ex_gpu_stream_destroy(void *stream)
{
    if (stream != NULL)
        cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int ex_gpu_run_timed(void *stream, int (*launch)(void *arg, void *stream), void *arg,
                                const char *what, unsigned timeout_s, double *elapsed_us)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t start = NULL, stop = NULL;
    uint64_t deadline;
    cudaError_t rc;
    float ms = 0;
    int ret = -1;

    if (ex_cuda_check(cudaEventCreate(&start), "cudaEventCreate") ||
        ex_cuda_check(cudaEventCreate(&stop), "cudaEventCreate") ||
        ex_cuda_check(cudaEventRecord(start, s), "cudaEventRecord"))
        goto out;
    if (launch(arg, stream) != 0 || ex_cuda_check(cudaGetLastError(), what) ||
        ex_cuda_check(cudaEventRecord(stop, s), "cudaEventRecord"))
        goto out;
    deadline = ex_now_ns() + (uint64_t)timeout_s * 1000000000ull;
    while ((rc = cudaEventQuery(stop)) == cudaErrorNotReady) {
        /* Politely: a software NIC in this process needs the CUDA driver too. */
        const struct timespec nap = {0, 20000};

        nanosleep(&nap, NULL);
        if (ex_oob_peer_gone()) {
            EX_ERR("%s: "
                   "the peer closed the connection before reporting its results: it is gone",
                   what);
            goto out;
        }
        if (ex_signal != 0 || ex_now_ns() > deadline) {
            if (ex_signal != 0)
                EX_ERR("%s has not finished and a signal arrived", what);
            else
                EX_ERR("%s has not finished after %u s", what, timeout_s);
            goto out;
        }
    }
    if (ex_cuda_check(rc, what) ||
        ex_cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime"))
        goto out;
    *elapsed_us = (double)ms * 1000.0;
    ret = 0;
out:
    if (start != NULL)
        cudaEventDestroy(start);
    if (stop != NULL)
        cudaEventDestroy(stop);
    return ret;
}

extern "C" int ex_gpu_memcpy_to_gpu(void *dst_gpu, const void *src, size_t len)
{
    return ex_cuda_check(cudaMemcpy(dst_gpu, src, len, cudaMemcpyHostToDevice),
                         "cudaMemcpy to the GPU");
}

extern "C" int ex_gpu_memcpy_from_gpu(void *dst, const void *src_gpu, size_t len)
{
    return ex_cuda_check(cudaMemcpy(dst, src_gpu, len, cudaMemcpyDeviceToHost),
                         "cudaMemcpy from the GPU");
}

extern "C" int ex_gpu_memset(void *dst_gpu, int value, size_t len)
{
    /* Done before returning: the NIC may write the buffer as soon as it is registered. */
    if (ex_cuda_check(cudaMemset(dst_gpu, value, len), "cudaMemset"))
        return -1;
    return ex_cuda_check(cudaDeviceSynchronize(), "cudaMemset");
}

/*
 * Data Direct's dma-bufs: cuMemGetHandleForAddressRange with the PCIe
 * mapping type, which CUDA 12.8 added; taken from the driver library the
 * runtime loaded, so nothing links libcuda.
 */
#define EX_CU_DMA_BUF_FD    1 /* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */
#define EX_CU_MAPPING_PCIE  1 /* CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE */
#define EX_CUDA_PCIE_DMABUF 12080
#define EX_CU_NOT_SUPPORTED 801 /* CUDA_ERROR_NOT_SUPPORTED */

typedef int (*ex_cu_handle_fn)(void *handle, unsigned long long dptr, size_t size, int type,
                               unsigned long long flags);

extern "C" int ex_gpu_dmabuf_pcie_supported(char *why, size_t why_len)
{
    int driver = 0;

    if (CUDART_VERSION < EX_CUDA_PCIE_DMABUF) {
        snprintf(why, why_len,
                 "built with CUDA %d.%d: a dma-buf mapped for PCIe needs CUDA 12.8 or newer",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return -1;
    }
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < EX_CUDA_PCIE_DMABUF) {
        snprintf(why, why_len,
                 "the CUDA driver is %d.%d: a dma-buf mapped for PCIe needs 12.8 or newer",
                 driver / 1000, driver % 1000 / 10);
        return -1;
    }
    return 0;
}

extern "C" int ex_gpu_dmabuf_pcie_fd(void *addr, size_t len, int *fd)
{
    static int pcie_refused; /* the driver said once that it cannot map for PCIe */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    ex_cu_handle_fn get =
            lib != NULL ? (ex_cu_handle_fn)dlsym(lib, "cuMemGetHandleForAddressRange") : NULL;
    int rc = EX_CU_NOT_SUPPORTED;

    if (get == NULL) {
        EX_ERR("the CUDA driver (libcuda.so.1) has no cuMemGetHandleForAddressRange");
        return -1;
    }
    if (!pcie_refused)
        rc = get(fd, (unsigned long long)(uintptr_t)addr, len, EX_CU_DMA_BUF_FD,
                 EX_CU_MAPPING_PCIE);
    if (rc == EX_CU_NOT_SUPPORTED) {
        /* Some GPUs and platforms cannot map for PCIe (an H200 VM answers so); as NCCL
         * does, fall back to the default mapping, which reaches the NIC through the
         * host bridge instead of the GPU's own PCIe function. */
        if (!pcie_refused)
            EX_WARN("-z 1: this GPU or driver cannot map a dma-buf for PCIe (CUDA error %d, "
                    "CUDA_ERROR_NOT_SUPPORTED): Data Direct registrations use the default "
                    "dma-buf mapping",
                    rc);
        pcie_refused = 1;
        rc = get(fd, (unsigned long long)(uintptr_t)addr, len, EX_CU_DMA_BUF_FD, 0);
    }
    if (rc != 0) {
        EX_ERR("cuMemGetHandleForAddressRange (dma-buf%s) of %zu bytes at %p: CUDA error %d",
               pcie_refused ? "" : " mapped for PCIe", len, addr, rc);
        return -1;
    }
    return 0;
}
