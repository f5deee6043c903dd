/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPUNetIO semaphores (doca_gpunetio.h): configured, then started, which
 * allocates the items' statuses and custom info with doca_gpu_mem_alloc
 * and uploads the kernels' descriptor (impl/gdaki_sem.h) to GPU memory.
 * The CPU's status calls are atomic loads and stores through the items' CPU
 * address, so they exist only for memory the CPU can see.
 */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/sdk.h"
#include "device/impl/gdaki_sem.h"
#include "gpunetio_internal.h"

/* Item statuses and info blocks start on this boundary. */
#define SEM_ALIGN 64u

/* One allocation of a started semaphore. */
struct sem_mem {
    void *gpu, *cpu; /* cpu: NULL when the CPU cannot see it */
};

struct doca_gpu_semaphore {
    doca_gpu_t *gpu;
    uint32_t num_items;
    enum doca_gpu_mem_type mtype; /* the statuses' */
    uint32_t info_nbytes;
    enum doca_gpu_mem_type info_mtype;
    bool started;
    struct sem_mem status, info;
    struct doca_gpu_semaphore_gpu *handle; /* GPU memory */
};

static doca_error_t sem_check_mtype(enum doca_gpu_mem_type mtype, const char *what)
{
    switch (mtype) {
    case DOCA_GPU_MEM_TYPE_GPU:
    case DOCA_GPU_MEM_TYPE_GPU_CPU:
    case DOCA_GPU_MEM_TYPE_CPU_GPU:
        return DOCA_SUCCESS;
    default:
        DOCA_LOG_ERR("%d is not a memory type for the %s: use DOCA_GPU_MEM_TYPE_GPU, "
                     "DOCA_GPU_MEM_TYPE_GPU_CPU or DOCA_GPU_MEM_TYPE_CPU_GPU",
                     (int)mtype, what);
        return DOCA_ERROR_INVALID_VALUE;
    }
}

/* The semaphore exists and is not started (a setter's precondition). */
static doca_error_t sem_settable(const struct doca_gpu_semaphore *sem, const char *call)
{
    if (sem == NULL) {
        DOCA_LOG_ERR("%s: semaphore is NULL", call);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (sem->started) {
        DOCA_LOG_ERR("%s: the semaphore is started: stop it first (doca_gpu_semaphore_stop)", call);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

/* The semaphore is started and idx names an item. */
static doca_error_t sem_usable(const struct doca_gpu_semaphore *sem, uint32_t idx, const char *call)
{
    if (sem == NULL) {
        DOCA_LOG_ERR("%s: semaphore is NULL", call);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!sem->started) {
        DOCA_LOG_ERR("%s: the semaphore is not started: call doca_gpu_semaphore_start first", call);
        return DOCA_ERROR_BAD_STATE;
    }
    if (idx >= sem->num_items) {
        DOCA_LOG_ERR("%s: item %u is past the semaphore's %u items", call, idx, sem->num_items);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* The memory mem (of type mtype) of a started semaphore is one the CPU sees. */
static doca_error_t sem_cpu_view(const struct sem_mem *mem, enum doca_gpu_mem_type mtype,
                                 const char *call)
{
    if (mem->cpu != NULL)
        return DOCA_SUCCESS;
    DOCA_LOG_ERR("%s: the memory is %s, which the CPU cannot see: make the semaphore with "
                 "DOCA_GPU_MEM_TYPE_CPU_GPU (or GPU_CPU, with GDRCopy)",
                 call, gpunetio_mem_type_name(mtype));
    return DOCA_ERROR_NOT_SUPPORTED;
}

static void sem_mem_free(doca_gpu_t *gpu, struct sem_mem *m)
{
    if (m->gpu != NULL)
        doca_gpu_mem_free(gpu, m->gpu);
    *m = (struct sem_mem){0};
}

/* bytes of zeroed memory of type mtype (GPU memory through the driver). */
static doca_error_t sem_mem_alloc(doca_gpu_t *gpu, size_t bytes, enum doca_gpu_mem_type mtype,
                                  struct sem_mem *m)
{
    const struct core_cuda_ops *cuda;
    doca_error_t err;

    err = doca_gpu_mem_alloc(gpu, bytes, SEM_ALIGN, mtype, &m->gpu,
                             mtype == DOCA_GPU_MEM_TYPE_GPU ? NULL : &m->cpu);
    if (err != DOCA_SUCCESS)
        return err;
    if (m->cpu != NULL) {
        memset(m->cpu, 0, bytes);
        return DOCA_SUCCESS;
    }
    err = gpunetio_gpu_bind(gpu, &cuda);
    if (err == DOCA_SUCCESS &&
        cuda->cuMemsetD8((core_cu_deviceptr)(uintptr_t)m->gpu, 0, bytes) != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot clear %zu bytes of semaphore memory on GPU %s", bytes, gpu->bus_id);
        err = DOCA_ERROR_DRIVER;
    }
    if (err != DOCA_SUCCESS)
        sem_mem_free(gpu, m);
    return err;
}

doca_error_t doca_gpu_semaphore_create(doca_gpu_t *gpu_dev, struct doca_gpu_semaphore **semaphore)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_create, (gpu_dev, semaphore), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_semaphore *sem;

    if (gpu_dev == NULL || semaphore == NULL) {
        DOCA_LOG_ERR("gpu_dev (%p) and semaphore (%p) must not be NULL: pass the context "
                     "doca_gpu_create() gave and where to put the semaphore",
                     (void *)gpu_dev, (void *)semaphore);
        return DOCA_ERROR_INVALID_VALUE;
    }
    sem = calloc(1, sizeof(*sem));
    if (sem == NULL) {
        DOCA_LOG_ERR("out of memory for a semaphore");
        return DOCA_ERROR_NO_MEMORY;
    }
    sem->gpu = gpu_dev;
    sem->mtype = DOCA_GPU_MEM_TYPE_GPU;
    sem->info_mtype = DOCA_GPU_MEM_TYPE_GPU;
    gpunetio_gpu_hold(gpu_dev);
    *semaphore = sem;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_set_memory_type(struct doca_gpu_semaphore *semaphore,
                                                enum doca_gpu_mem_type mtype)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_set_memory_type, (semaphore, mtype), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = sem_settable(semaphore, "doca_gpu_semaphore_set_memory_type");

    if (err == DOCA_SUCCESS)
        err = sem_check_mtype(mtype, "semaphore's items");
    if (err == DOCA_SUCCESS)
        semaphore->mtype = mtype;
    return err;
}

doca_error_t doca_gpu_semaphore_set_items_num(struct doca_gpu_semaphore *semaphore,
                                              uint32_t num_items)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_set_items_num, (semaphore, num_items),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = sem_settable(semaphore, "doca_gpu_semaphore_set_items_num");

    if (err != DOCA_SUCCESS)
        return err;
    if (num_items == 0) {
        DOCA_LOG_ERR("0 items: a semaphore has at least one");
        return DOCA_ERROR_INVALID_VALUE;
    }
    semaphore->num_items = num_items;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_set_custom_info(struct doca_gpu_semaphore *semaphore,
                                                uint32_t nbytes, enum doca_gpu_mem_type mtype)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_set_custom_info, (semaphore, nbytes, mtype),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = sem_settable(semaphore, "doca_gpu_semaphore_set_custom_info");

    if (err == DOCA_SUCCESS)
        err = sem_check_mtype(mtype, "semaphore's custom info");
    if (err == DOCA_SUCCESS) {
        semaphore->info_nbytes = nbytes;
        semaphore->info_mtype = mtype;
    }
    return err;
}

doca_error_t doca_gpu_semaphore_start(struct doca_gpu_semaphore *semaphore)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_start, (semaphore), DOCA_ERROR_NOT_SUPPORTED);

    struct doca_gpu_semaphore_gpu desc;
    doca_error_t err = sem_settable(semaphore, "doca_gpu_semaphore_start");

    if (err != DOCA_SUCCESS)
        return err;
    if (semaphore->num_items == 0) {
        DOCA_LOG_ERR("no item count: call doca_gpu_semaphore_set_items_num first");
        return DOCA_ERROR_BAD_STATE;
    }
    err = sem_mem_alloc(semaphore->gpu, (size_t)semaphore->num_items * sizeof(uint32_t),
                        semaphore->mtype, &semaphore->status);
    if (err == DOCA_SUCCESS && semaphore->info_nbytes != 0)
        err = sem_mem_alloc(semaphore->gpu, (size_t)semaphore->num_items * semaphore->info_nbytes,
                            semaphore->info_mtype, &semaphore->info);
    if (err == DOCA_SUCCESS) {
        desc = (struct doca_gpu_semaphore_gpu){
                .status = semaphore->status.gpu,
                .custom_info = semaphore->info.gpu,
                .num_items = semaphore->num_items,
                .info_nbytes = semaphore->info_nbytes,
        };
        err = gpunetio_mem_upload(semaphore->gpu, &desc, sizeof(desc), SEM_ALIGN,
                                  "a semaphore's handle", (void **)&semaphore->handle);
    }
    if (err != DOCA_SUCCESS) {
        sem_mem_free(semaphore->gpu, &semaphore->info);
        sem_mem_free(semaphore->gpu, &semaphore->status);
        return err;
    }
    semaphore->started = true;
    DOCA_LOG_INFO("semaphore %p started on GPU %s: %u items in %s, %u bytes of custom info each",
                  (void *)semaphore, semaphore->gpu->bus_id, semaphore->num_items,
                  gpunetio_mem_type_name(semaphore->mtype), semaphore->info_nbytes);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_stop(struct doca_gpu_semaphore *semaphore)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_stop, (semaphore), DOCA_ERROR_NOT_SUPPORTED);

    if (semaphore == NULL) {
        DOCA_LOG_ERR("semaphore is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!semaphore->started) {
        DOCA_LOG_ERR("the semaphore is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    doca_gpu_mem_free(semaphore->gpu, semaphore->handle);
    semaphore->handle = NULL;
    sem_mem_free(semaphore->gpu, &semaphore->info);
    sem_mem_free(semaphore->gpu, &semaphore->status);
    semaphore->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_destroy(struct doca_gpu_semaphore *semaphore)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_destroy, (semaphore), DOCA_ERROR_NOT_SUPPORTED);

    if (semaphore == NULL) {
        DOCA_LOG_ERR("semaphore is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (semaphore->started)
        doca_gpu_semaphore_stop(semaphore);
    gpunetio_gpu_put(semaphore->gpu);
    free(semaphore);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_get_gpu_handle(struct doca_gpu_semaphore *semaphore_cpu,
                                               struct doca_gpu_semaphore_gpu **semaphore_gpu)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_get_gpu_handle, (semaphore_cpu, semaphore_gpu),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (semaphore_gpu == NULL) {
        DOCA_LOG_ERR("semaphore_gpu is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = sem_usable(semaphore_cpu, 0, "doca_gpu_semaphore_get_gpu_handle");
    if (err == DOCA_SUCCESS)
        *semaphore_gpu = semaphore_cpu->handle;
    return err;
}

doca_error_t doca_gpu_semaphore_set_status(struct doca_gpu_semaphore *semaphore_cpu, uint32_t idx,
                                           enum doca_gpu_semaphore_status status)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_set_status, (semaphore_cpu, idx, status),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = sem_usable(semaphore_cpu, idx, "doca_gpu_semaphore_set_status");

    if (err == DOCA_SUCCESS)
        err = sem_cpu_view(&semaphore_cpu->status, semaphore_cpu->mtype,
                           "doca_gpu_semaphore_set_status");
    if (err != DOCA_SUCCESS)
        return err;
    if ((unsigned int)status > DOCA_GPU_SEMAPHORE_STATUS_EXIT) {
        DOCA_LOG_ERR("%d is not a semaphore status (FREE 0 .. EXIT 5)", (int)status);
        return DOCA_ERROR_INVALID_VALUE;
    }
    __atomic_store_n((uint32_t *)semaphore_cpu->status.cpu + idx, (uint32_t)status,
                     __ATOMIC_RELEASE);
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_semaphore_get_status(struct doca_gpu_semaphore *semaphore_cpu, uint32_t idx,
                                           enum doca_gpu_semaphore_status *status)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_get_status, (semaphore_cpu, idx, status),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (status == NULL) {
        DOCA_LOG_ERR("status is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = sem_usable(semaphore_cpu, idx, "doca_gpu_semaphore_get_status");
    if (err == DOCA_SUCCESS)
        err = sem_cpu_view(&semaphore_cpu->status, semaphore_cpu->mtype,
                           "doca_gpu_semaphore_get_status");
    if (err == DOCA_SUCCESS)
        *status = (enum doca_gpu_semaphore_status)__atomic_load_n(
                (uint32_t *)semaphore_cpu->status.cpu + idx, __ATOMIC_ACQUIRE);
    return err;
}

doca_error_t doca_gpu_semaphore_get_custom_info_addr(struct doca_gpu_semaphore *semaphore_cpu,
                                                     uint32_t idx, void **custom_info)
{
    DGN_SDK_ROUTE(doca_gpu_semaphore_get_custom_info_addr, (semaphore_cpu, idx, custom_info),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err;

    if (custom_info == NULL) {
        DOCA_LOG_ERR("custom_info is NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (semaphore_cpu != NULL && semaphore_cpu->started && semaphore_cpu->info_nbytes == 0) {
        DOCA_LOG_ERR("the semaphore has no custom info: set it with "
                     "doca_gpu_semaphore_set_custom_info before start");
        return DOCA_ERROR_BAD_STATE;
    }
    err = sem_usable(semaphore_cpu, idx, "doca_gpu_semaphore_get_custom_info_addr");
    if (err == DOCA_SUCCESS)
        err = sem_cpu_view(&semaphore_cpu->info, semaphore_cpu->info_mtype,
                           "doca_gpu_semaphore_get_custom_info_addr");
    if (err == DOCA_SUCCESS)
        *custom_info =
                (uint8_t *)semaphore_cpu->info.cpu + (size_t)idx * semaphore_cpu->info_nbytes;
    return err;
}
