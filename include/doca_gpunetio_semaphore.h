/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The states of a GPUNetIO semaphore item, as DOCA numbers them. Apart so
 * that device code (device/doca_gpunetio_dev_sem.cuh) has them without the
 * host headers; doca_gpunetio.h includes it with the host calls.
 */
#ifndef DOCA_GPUNETIO_SEMAPHORE_H
#define DOCA_GPUNETIO_SEMAPHORE_H

enum doca_gpu_semaphore_status {
    DOCA_GPU_SEMAPHORE_STATUS_FREE = 0,  /* free: the producer may fill it */
    DOCA_GPU_SEMAPHORE_STATUS_READY = 1, /* filled: the consumer may take it */
    DOCA_GPU_SEMAPHORE_STATUS_DONE = 2,  /* taken and processed */
    DOCA_GPU_SEMAPHORE_STATUS_HOLD = 3,  /* being processed: not to be overwritten */
    DOCA_GPU_SEMAPHORE_STATUS_ERROR = 4, /* its processing failed */
    DOCA_GPU_SEMAPHORE_STATUS_EXIT = 5,  /* the kernel is to stop */
};

/* Semaphore handles: the host's, and the one kernels take (impl/gdaki_sem.h). */
struct doca_gpu_semaphore;
struct doca_gpu_semaphore_gpu;

#endif /* DOCA_GPUNETIO_SEMAPHORE_H */
