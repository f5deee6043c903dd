/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU semaphores on the GPU (the seed's hand-off of received batches from a
 * persistent kernel to the CPU): one persistent kernel fills BATCHES
 * batches through ITEMS items of a semaphore in pinned host memory the GPU
 * maps (CPU_GPU, as DOCA's packet-processing application has it), writing
 * each batch's custom info, then READY with the device call's release; the
 * host takes each READY item with the host calls' acquire, checks the info
 * byte for byte, hands it back FREE; the kernel waits for FREE before it
 * reuses an item, and sets EXIT on item 0 at the end. Also the device
 * calls' refusals (an index past the items).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "doca_gpunetio.h"
#include "doca_gpunetio_dev_sem.cuh"
#include "gpu_test.h"

enum {
    ITEMS = 4,
    BATCHES = 2000,
    WORDS = 16, /* custom info: 16 words a batch */
};

struct batch_info {
    uint32_t batch;
    uint32_t words[WORDS];
};

static __host__ __device__ uint32_t batch_word(uint32_t batch, uint32_t w)
{
    return batch * 2654435761u + w * 40503u + 7u;
}

/* The producer: one thread. *bad counts refusals it did not get. */
__global__ void producer(struct doca_gpu_semaphore_gpu *sem, int *bad)
{
    enum doca_gpu_semaphore_status st;
    void *info = nullptr;

    if (doca_gpu_dev_semaphore_get_status(sem, ITEMS, &st) != DOCA_ERROR_INVALID_VALUE ||
        doca_gpu_dev_semaphore_set_status(sem, ITEMS, DOCA_GPU_SEMAPHORE_STATUS_READY) !=
                DOCA_ERROR_INVALID_VALUE ||
        doca_gpu_dev_semaphore_get_custom_info_addr(sem, ITEMS, &info) != DOCA_ERROR_INVALID_VALUE)
        atomicAdd(bad, 1);
    for (uint32_t b = 0; b < BATCHES; b++) {
        uint32_t idx = b % ITEMS;
        struct batch_info *bi;

        do {
            if (doca_gpu_dev_semaphore_get_status(sem, idx, &st) != DOCA_SUCCESS) {
                atomicAdd(bad, 1);
                return;
            }
        } while (st != DOCA_GPU_SEMAPHORE_STATUS_FREE);
        if (doca_gpu_dev_semaphore_get_custom_info_addr(sem, idx, &info) != DOCA_SUCCESS) {
            atomicAdd(bad, 1);
            return;
        }
        bi = (struct batch_info *)info;
        bi->batch = b;
        for (uint32_t w = 0; w < WORDS; w++)
            bi->words[w] = batch_word(b, w);
        doca_gpu_dev_semaphore_set_status(sem, idx, DOCA_GPU_SEMAPHORE_STATUS_READY);
    }
    /* The last batches are taken before EXIT replaces item 0's status. */
    for (uint32_t idx = 0; idx < ITEMS; idx++) {
        do
            doca_gpu_dev_semaphore_get_status(sem, idx, &st);
        while (st != DOCA_GPU_SEMAPHORE_STATUS_FREE);
    }
    doca_gpu_dev_semaphore_set_status(sem, 0, DOCA_GPU_SEMAPHORE_STATUS_EXIT);
}

static double seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    struct doca_gpu_semaphore *sem = NULL;
    struct doca_gpu_semaphore_gpu *sem_gpu = NULL;
    enum doca_gpu_semaphore_status st = DOCA_GPU_SEMAPHORE_STATUS_FREE;
    char bus_id[32];
    doca_gpu_t *gpu = NULL;
    int *bad = NULL, bad_host = -1;
    uint32_t taken = 0, wrong = 0;
    double start;

    gpu_test_require_device();
    GPU_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), 0) == cudaSuccess);
    GPU_CHECK(doca_gpu_create(bus_id, &gpu) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_create(gpu, &sem) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_set_memory_type(sem, DOCA_GPU_MEM_TYPE_CPU_GPU) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_set_items_num(sem, ITEMS) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_set_custom_info(sem, sizeof(struct batch_info),
                                                 DOCA_GPU_MEM_TYPE_CPU_GPU) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_start(sem) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_get_gpu_handle(sem, &sem_gpu) == DOCA_SUCCESS);
    GPU_CHECK(cudaMalloc((void **)&bad, sizeof(*bad)) == cudaSuccess);
    GPU_CHECK(cudaMemset(bad, 0, sizeof(*bad)) == cudaSuccess);
    if (sem_gpu == NULL || bad == NULL)
        return gpu_test_finish();

    producer<<<1, 1>>>(sem_gpu, bad);
    GPU_CHECK(cudaGetLastError() == cudaSuccess);
    start = seconds();
    while (taken < BATCHES && seconds() - start < 60) {
        uint32_t idx = taken % ITEMS;
        struct batch_info *bi = NULL;

        if (doca_gpu_semaphore_get_status(sem, idx, &st) != DOCA_SUCCESS ||
            st != DOCA_GPU_SEMAPHORE_STATUS_READY)
            continue;
        GPU_CHECK(doca_gpu_semaphore_get_custom_info_addr(sem, idx, (void **)&bi) == DOCA_SUCCESS);
        if (bi == NULL || bi->batch != taken) {
            wrong++;
        } else {
            for (uint32_t w = 0; w < WORDS; w++)
                wrong += bi->words[w] != batch_word(taken, w);
        }
        GPU_CHECK(doca_gpu_semaphore_set_status(sem, idx, DOCA_GPU_SEMAPHORE_STATUS_FREE) ==
                  DOCA_SUCCESS);
        taken++;
    }
    printf("%u of %u batches taken from the kernel through %d items, %u wrong words, %.3f s\n",
           taken, BATCHES, ITEMS, wrong, seconds() - start);
    GPU_CHECK(taken == BATCHES);
    GPU_CHECK(wrong == 0);
    /* The kernel's EXIT on item 0, seen by the host. */
    start = seconds();
    do
        doca_gpu_semaphore_get_status(sem, 0, &st);
    while (st != DOCA_GPU_SEMAPHORE_STATUS_EXIT && seconds() - start < 10);
    GPU_CHECK(st == DOCA_GPU_SEMAPHORE_STATUS_EXIT);
    GPU_CHECK(cudaDeviceSynchronize() == cudaSuccess);
    GPU_CHECK(cudaMemcpy(&bad_host, bad, sizeof(bad_host), cudaMemcpyDeviceToHost) == cudaSuccess);
    GPU_CHECK(bad_host == 0);
    GPU_CHECK(cudaFree(bad) == cudaSuccess);
    GPU_CHECK(doca_gpu_semaphore_stop(sem) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_semaphore_destroy(sem) == DOCA_SUCCESS);
    GPU_CHECK(doca_gpu_destroy(gpu) == DOCA_SUCCESS);
    return gpu_test_finish();
}
