/* SPDX-License-Identifier: BSD-3-Clause */
/* The fake CUDA driver described in fake_cuda.h. */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/cuda_driver.h"
#include "fake_cuda.h"
#include "fake_cuda_int.h"

#ifndef FAKE_CUDA_DEFAULT_DRIVER_VERSION
#define FAKE_CUDA_DEFAULT_DRIVER_VERSION 13000
#endif

/* ---- The driver's entry points, under their ABI names ---------------------------------------- */

FAKE_EXPORT core_cu_result cuInit(unsigned int flags);
FAKE_EXPORT core_cu_result cuDriverGetVersion(int *version);
FAKE_EXPORT core_cu_result cuGetErrorName(core_cu_result error, const char **name);
FAKE_EXPORT core_cu_result cuGetErrorString(core_cu_result error, const char **text);
FAKE_EXPORT core_cu_result cuDeviceGetCount(int *count);
FAKE_EXPORT core_cu_result cuDeviceGet(core_cu_device *device, int ordinal);
FAKE_EXPORT core_cu_result cuDeviceGetName(char *name, int len, core_cu_device device);
FAKE_EXPORT core_cu_result cuDeviceGetAttribute(int *value, int attribute, core_cu_device device);
FAKE_EXPORT core_cu_result cuDeviceGetPCIBusId(char *bus_id, int len, core_cu_device device);
FAKE_EXPORT core_cu_result cuDevicePrimaryCtxRetain(core_cu_context *ctx, core_cu_device device);
FAKE_EXPORT core_cu_result cuDevicePrimaryCtxRelease_v2(core_cu_device device);
FAKE_EXPORT core_cu_result cuCtxGetCurrent(core_cu_context *ctx);
FAKE_EXPORT core_cu_result cuCtxSetCurrent(core_cu_context ctx);
FAKE_EXPORT core_cu_result cuPointerGetAttribute(void *data, int attribute, core_cu_deviceptr ptr);
FAKE_EXPORT core_cu_result cuMemAlloc_v2(core_cu_deviceptr *ptr, size_t bytes);
FAKE_EXPORT core_cu_result cuMemFree_v2(core_cu_deviceptr ptr);
FAKE_EXPORT core_cu_result cuMemcpyDtoH_v2(void *dst, core_cu_deviceptr src, size_t bytes);
FAKE_EXPORT core_cu_result cuMemcpyHtoD_v2(core_cu_deviceptr dst, const void *src, size_t bytes);
FAKE_EXPORT core_cu_result cuMemGetHandleForAddressRange(void *handle, core_cu_deviceptr ptr,
                                                         size_t size, int type,
                                                         unsigned long long flags);
FAKE_EXPORT core_cu_result cuDeviceGetByPCIBusId(core_cu_device *device, const char *id);
FAKE_EXPORT core_cu_result cuCtxSynchronize(void);
FAKE_EXPORT core_cu_result cuMemsetD8_v2(core_cu_deviceptr dst, unsigned char value, size_t count);
FAKE_EXPORT core_cu_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags);
FAKE_EXPORT core_cu_result cuMemFreeHost(void *ptr);
FAKE_EXPORT core_cu_result cuMemHostRegister_v2(void *ptr, size_t bytes, unsigned int flags);
FAKE_EXPORT core_cu_result cuMemHostUnregister(void *ptr);
FAKE_EXPORT core_cu_result cuMemHostGetDevicePointer_v2(core_cu_deviceptr *dptr, void *host,
                                                        unsigned int flags);
FAKE_EXPORT core_cu_result cuStreamCreate(core_cu_stream *stream, unsigned int flags);
FAKE_EXPORT core_cu_result cuStreamDestroy_v2(core_cu_stream stream);
FAKE_EXPORT core_cu_result cuStreamSynchronize(core_cu_stream stream);
FAKE_EXPORT core_cu_result cuMemcpyDtoHAsync_v2(void *dst, core_cu_deviceptr src, size_t bytes,
                                                core_cu_stream stream);
FAKE_EXPORT core_cu_result cuMemcpyHtoDAsync_v2(core_cu_deviceptr dst, const void *src,
                                                size_t bytes, core_cu_stream stream);
FAKE_EXPORT core_cu_result cuMemcpyDtoDAsync_v2(core_cu_deviceptr dst, core_cu_deviceptr src,
                                                size_t bytes, core_cu_stream stream);
FAKE_EXPORT core_cu_result cuMemGetAddressRange_v2(core_cu_deviceptr *base, size_t *size,
                                                   core_cu_deviceptr ptr);
FAKE_EXPORT core_cu_result cuIpcGetMemHandle(core_cu_ipc_mem_handle *handle, core_cu_deviceptr ptr);
FAKE_EXPORT core_cu_result cuIpcOpenMemHandle_v2(core_cu_deviceptr *ptr,
                                                 core_cu_ipc_mem_handle handle, unsigned int flags);
FAKE_EXPORT core_cu_result cuIpcCloseMemHandle(core_cu_deviceptr ptr);
FAKE_EXPORT core_cu_result cuCtxGetDevice(core_cu_device *device);

FAKE_EXPORT int fake_cuda_primary_refs(int ordinal);
FAKE_EXPORT int fake_cuda_live_allocations(void);
FAKE_EXPORT void *fake_cuda_current_context(void);

FAKE_SAME_TYPE(cuInit, cuInit);
FAKE_SAME_TYPE(cuDriverGetVersion, cuDriverGetVersion);
FAKE_SAME_TYPE(cuGetErrorName, cuGetErrorName);
FAKE_SAME_TYPE(cuGetErrorString, cuGetErrorString);
FAKE_SAME_TYPE(cuDeviceGetCount, cuDeviceGetCount);
FAKE_SAME_TYPE(cuDeviceGet, cuDeviceGet);
FAKE_SAME_TYPE(cuDeviceGetName, cuDeviceGetName);
FAKE_SAME_TYPE(cuDeviceGetAttribute, cuDeviceGetAttribute);
FAKE_SAME_TYPE(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId);
FAKE_SAME_TYPE(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
FAKE_SAME_TYPE(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2);
FAKE_SAME_TYPE(cuCtxGetCurrent, cuCtxGetCurrent);
FAKE_SAME_TYPE(cuCtxSetCurrent, cuCtxSetCurrent);
FAKE_SAME_TYPE(cuPointerGetAttribute, cuPointerGetAttribute);
FAKE_SAME_TYPE(cuMemAlloc, cuMemAlloc_v2);
FAKE_SAME_TYPE(cuMemFree, cuMemFree_v2);
FAKE_SAME_TYPE(cuMemcpyDtoH, cuMemcpyDtoH_v2);
FAKE_SAME_TYPE(cuMemcpyHtoD, cuMemcpyHtoD_v2);
FAKE_SAME_TYPE(cuMemGetHandleForAddressRange, cuMemGetHandleForAddressRange);
FAKE_SAME_TYPE(cuDeviceGetByPCIBusId, cuDeviceGetByPCIBusId);
FAKE_SAME_TYPE(cuCtxSynchronize, cuCtxSynchronize);
FAKE_SAME_TYPE(cuMemsetD8, cuMemsetD8_v2);
FAKE_SAME_TYPE(cuMemHostAlloc, cuMemHostAlloc);
FAKE_SAME_TYPE(cuMemFreeHost, cuMemFreeHost);
FAKE_SAME_TYPE(cuMemHostRegister, cuMemHostRegister_v2);
FAKE_SAME_TYPE(cuMemHostUnregister, cuMemHostUnregister);
FAKE_SAME_TYPE(cuMemHostGetDevicePointer, cuMemHostGetDevicePointer_v2);
FAKE_SAME_TYPE(cuStreamCreate, cuStreamCreate);
FAKE_SAME_TYPE(cuStreamDestroy, cuStreamDestroy_v2);
FAKE_SAME_TYPE(cuStreamSynchronize, cuStreamSynchronize);
FAKE_SAME_TYPE(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2);
FAKE_SAME_TYPE(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2);
FAKE_SAME_TYPE(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2);
FAKE_SAME_TYPE(cuMemGetAddressRange, cuMemGetAddressRange_v2);
FAKE_SAME_TYPE(cuIpcGetMemHandle, cuIpcGetMemHandle);
FAKE_SAME_TYPE(cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2);
FAKE_SAME_TYPE(cuIpcCloseMemHandle, cuIpcCloseMemHandle);
FAKE_SAME_TYPE(cuCtxGetDevice, cuCtxGetDevice);

/* ---- State ---------------------------------------------------------------------------------- */

struct core_cu_stream {
    int unused;
};

struct fake_gpu {
    char bus_id[32]; /* as the driver prints it: "0000:8A:00.0" */
    int cc_major;
    int cc_minor;
    int primary_refs;
    struct core_cu_ctx ctx;
};

static pthread_once_t fake_once = PTHREAD_ONCE_INIT;
pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_gpu fake_gpus[FAKE_MAX_GPUS];
static int fake_gpu_count;
static int fake_driver_version;
static core_cu_result fake_init_result;
static int fake_dmabuf;
static unsigned long long fake_mem_limit;
static bool fake_initialised;
static struct fake_mem *fake_mems;
/*
 * The calling thread's current context, in a pthread key rather than a
 * thread-local: a thread-local of a dlopened library can land in dynamic TLS,
 * which GCC 12's LeakSanitizer misreads in a thread alive at exit
 * (softmlx5's detached loop, which makes CUDA calls) and crashes.
 */
static pthread_key_t fake_current_key;
static pthread_once_t fake_current_once = PTHREAD_ONCE_INIT;

static void fake_current_key_create(void)
{
    pthread_key_create(&fake_current_key, NULL);
}

static core_cu_context fake_current_get(void)
{
    pthread_once(&fake_current_once, fake_current_key_create);
    return pthread_getspecific(fake_current_key);
}

static void fake_current_set(core_cu_context ctx)
{
    pthread_once(&fake_current_once, fake_current_key_create);
    pthread_setspecific(fake_current_key, ctx);
}

static long fake_env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n;

    if (v == NULL || v[0] == '\0')
        return fallback;
    n = strtol(v, &end, 0);
    return *end == '\0' ? n : fallback;
}

/* "0000:8a:00.0=9.0,..." */
static void fake_parse_gpus(const char *list)
{
    char copy[512];
    char *save = NULL;

    snprintf(copy, sizeof(copy), "%s", list);
    for (char *item = strtok_r(copy, ",", &save); item != NULL && fake_gpu_count < FAKE_MAX_GPUS;
         item = strtok_r(NULL, ",", &save)) {
        struct fake_gpu *g = &fake_gpus[fake_gpu_count];
        char *eq = strchr(item, '=');

        if (eq == NULL || sscanf(eq + 1, "%d.%d", &g->cc_major, &g->cc_minor) != 2)
            continue;
        *eq = '\0';
        snprintf(g->bus_id, sizeof(g->bus_id), "%s", item);
        for (char *c = g->bus_id; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        g->ctx.ordinal = fake_gpu_count;
        fake_gpu_count++;
    }
}

static void fake_configure(void)
{
    const char *gpus = getenv("FAKE_CUDA_GPUS");

    fake_parse_gpus(gpus != NULL ? gpus : "0000:8a:00.0=9.0");
    fake_driver_version =
            (int)fake_env_long("FAKE_CUDA_DRIVER_VERSION", FAKE_CUDA_DEFAULT_DRIVER_VERSION);
    fake_init_result = (core_cu_result)fake_env_long("FAKE_CUDA_INIT", CORE_CU_SUCCESS);
    fake_dmabuf = (int)fake_env_long("FAKE_CUDA_DMABUF", 1);
    fake_mem_limit = (unsigned long long)fake_env_long("FAKE_CUDA_MEM_LIMIT", 1L << 30);
}

static void fake_config(void)
{
    pthread_once(&fake_once, fake_configure);
}

core_cu_result fake_ready(void)
{
    fake_config();
    return fake_initialised ? CORE_CU_SUCCESS : FAKE_CU_ERROR_NOT_INITIALIZED;
}

bool fake_device_valid(core_cu_device device)
{
    return device >= 0 && device < fake_gpu_count;
}

struct fake_mem *fake_mem_find(uintptr_t start, size_t size)
{
    for (struct fake_mem *m = fake_mems; m != NULL; m = m->next)
        if (start >= m->start && start - m->start <= m->size &&
            size <= m->size - (start - m->start))
            return m;
    return NULL;
}

struct fake_mem *fake_mem_overlap(uintptr_t start, size_t size)
{
    for (struct fake_mem *m = fake_mems; m != NULL; m = m->next)
        if (start < m->start + m->size && m->start < start + size)
            return m;
    return NULL;
}

void fake_mem_link(struct fake_mem *m)
{
    m->next = fake_mems;
    fake_mems = m;
}

int fake_mem_count(enum fake_mem_kind kind)
{
    int n = 0;

    for (struct fake_mem *m = fake_mems; m != NULL; m = m->next)
        n += m->kind == kind;
    return n;
}

void fake_mem_unlink(struct fake_mem *m)
{
    for (struct fake_mem **link = &fake_mems; *link != NULL; link = &(*link)->next) {
        if (*link == m) {
            *link = m->next;
            return;
        }
    }
}

static void fake_mem_add(void *p, size_t size, enum fake_mem_kind kind, int ordinal)
{
    struct fake_mem *m = calloc(1, sizeof(*m));

    if (m == NULL)
        abort();
    m->start = (uintptr_t)p;
    m->size = size;
    m->kind = kind;
    m->ordinal = ordinal;
    pthread_mutex_lock(&fake_lock);
    fake_mem_link(m);
    pthread_mutex_unlock(&fake_lock);
}

/* Removes the record starting exactly at p of that kind; false when there is none. */
static bool fake_mem_remove(const void *p, enum fake_mem_kind kind)
{
    bool found = false;

    pthread_mutex_lock(&fake_lock);
    for (struct fake_mem **link = &fake_mems; *link != NULL; link = &(*link)->next) {
        struct fake_mem *m = *link;

        if (m->start == (uintptr_t)p && m->kind == kind) {
            *link = m->next;
            free(m);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&fake_lock);
    return found;
}

/* Whether [ptr, ptr + size) is memory the fake knows (any kind) and may be accessed. */
static bool fake_mem_known(uintptr_t ptr, size_t size)
{
    struct fake_mem *m;
    bool known;

    pthread_mutex_lock(&fake_lock);
    m = fake_mem_find(ptr, size);
    known = m != NULL && !m->no_access;
    pthread_mutex_unlock(&fake_lock);
    return known;
}

core_cu_result fake_need_context(void)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (fake_current_get() == NULL)
        return FAKE_CU_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&fake_lock);
    if (fake_gpus[fake_current_get()->ordinal].primary_refs <= 0)
        rc = FAKE_CU_ERROR_INVALID_CONTEXT;
    pthread_mutex_unlock(&fake_lock);
    return rc;
}

/*
 * The fake's copy engine: "device" memory is host memory that softmlx5's
 * thread and the test's thread copy into and out of at the same time, as a
 * GPU's DMA and a kernel would. Copies are made of relaxed atomic loads and
 * stores (words where both ends are aligned), so ThreadSanitizer sees the
 * concurrency a real GPU has rather than a data race; the ordering comes,
 * as on a GPU, from the rings' own protocol. A destination overlapping the
 * source from above is copied from the end.
 */
static void fake_dma_byte(uint8_t *d, const uint8_t *s)
{
    __atomic_store_n(d, __atomic_load_n(s, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

static void fake_dma_copy(void *dst, const void *src, size_t bytes)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t i = 0;

    if (d > s && d < s + bytes) {
        for (i = bytes; i-- > 0;)
            fake_dma_byte(d + i, s + i);
        return;
    }
    if ((uintptr_t)d % 8 == 0 && (uintptr_t)s % 8 == 0)
        for (; i + 8 <= bytes; i += 8)
            __atomic_store_n(
                    (uint64_t *)(void *)(d + i),
                    __atomic_load_n((const uint64_t *)(const void *)(s + i), __ATOMIC_RELAXED),
                    __ATOMIC_RELAXED);
    for (; i < bytes; i++)
        fake_dma_byte(d + i, s + i);
}

static void fake_dma_set(void *dst, uint8_t value, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        __atomic_store_n((uint8_t *)dst + i, value, __ATOMIC_RELAXED);
}

static void *fake_alloc(size_t alignment, size_t bytes)
{
    void *p = NULL;

    if (posix_memalign(&p, alignment, bytes) != 0)
        return NULL;
    memset(p, FAKE_CUDA_POISON, bytes);
    return p;
}

/* ---- Initialisation, errors, devices -------------------------------------------------------- */

core_cu_result cuInit(unsigned int flags)
{
    fake_config();
    if (flags != 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (fake_init_result == CORE_CU_SUCCESS)
        fake_initialised = true;
    return fake_init_result;
}

core_cu_result cuDriverGetVersion(int *version)
{
    fake_config();
    if (version == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    *version = fake_driver_version;
    return CORE_CU_SUCCESS;
}

static const struct {
    core_cu_result rc;
    const char *name;
    const char *text;
} fake_errors[] = {
        {CORE_CU_SUCCESS, "CUDA_SUCCESS", "no error"},
        {CORE_CU_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "an argument is invalid"},
        {CORE_CU_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "the fake is out of memory"},
        {FAKE_CU_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "cuInit has not succeeded"},
        {CORE_CU_ERROR_INSUFFICIENT_DRIVER, "CUDA_ERROR_INSUFFICIENT_DRIVER",
         "the driver is older than the CUDA runtime"},
        {CORE_CU_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA device is present"},
        {CORE_CU_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "no such device"},
        {FAKE_CU_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "no valid current context"},
        {FAKE_CU_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "the range is registered"},
        {FAKE_CU_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "not supported by the fake"},
};

core_cu_result cuGetErrorName(core_cu_result error, const char **name)
{
    if (name == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof(fake_errors) / sizeof(fake_errors[0]); i++) {
        if (fake_errors[i].rc == error) {
            *name = fake_errors[i].name;
            return CORE_CU_SUCCESS;
        }
    }
    *name = NULL;
    return CORE_CU_ERROR_INVALID_VALUE;
}

core_cu_result cuGetErrorString(core_cu_result error, const char **text)
{
    if (text == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof(fake_errors) / sizeof(fake_errors[0]); i++) {
        if (fake_errors[i].rc == error) {
            *text = fake_errors[i].text;
            return CORE_CU_SUCCESS;
        }
    }
    *text = NULL;
    return CORE_CU_ERROR_INVALID_VALUE;
}

core_cu_result cuDeviceGetCount(int *count)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (count == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    *count = fake_gpu_count;
    return CORE_CU_SUCCESS;
}

core_cu_result cuDeviceGet(core_cu_device *device, int ordinal)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (device == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_device_valid(ordinal))
        return CORE_CU_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CORE_CU_SUCCESS;
}

core_cu_result cuDeviceGetName(char *name, int len, core_cu_device device)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (name == NULL || len <= 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_device_valid(device))
        return CORE_CU_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "Fake GPU %d", device);
    return CORE_CU_SUCCESS;
}

core_cu_result cuDeviceGetAttribute(int *value, int attribute, core_cu_device device)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (value == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_device_valid(device))
        return CORE_CU_ERROR_INVALID_DEVICE;
    switch (attribute) {
    case CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR:
        *value = fake_gpus[device].cc_major;
        break;
    case CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR:
        *value = fake_gpus[device].cc_minor;
        break;
    case CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED:
        *value = fake_dmabuf;
        break;
    default:
        *value = 0;
        break;
    }
    return CORE_CU_SUCCESS;
}

core_cu_result cuDeviceGetPCIBusId(char *bus_id, int len, core_cu_device device)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (bus_id == NULL || len <= 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_device_valid(device))
        return CORE_CU_ERROR_INVALID_DEVICE;
    snprintf(bus_id, (size_t)len, "%s", fake_gpus[device].bus_id);
    return CORE_CU_SUCCESS;
}

core_cu_result cuDeviceGetByPCIBusId(core_cu_device *device, const char *id)
{
    core_cu_result rc = fake_ready();
    char full[32];

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (device == NULL || id == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    /* "8a:00.0" has no domain: the driver takes domain 0. */
    snprintf(full, sizeof(full), "%s%s", strchr(id, ':') == strrchr(id, ':') ? "0000:" : "", id);
    for (int i = 0; i < fake_gpu_count; i++) {
        if (strcasecmp(fake_gpus[i].bus_id, full) == 0) {
            *device = i;
            return CORE_CU_SUCCESS;
        }
    }
    return CORE_CU_ERROR_INVALID_DEVICE;
}

/* ---- Contexts ------------------------------------------------------------------------------- */

core_cu_result cuDevicePrimaryCtxRetain(core_cu_context *ctx, core_cu_device device)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ctx == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_device_valid(device))
        return CORE_CU_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&fake_lock);
    fake_gpus[device].primary_refs++;
    pthread_mutex_unlock(&fake_lock);
    *ctx = &fake_gpus[device].ctx;
    return CORE_CU_SUCCESS;
}

core_cu_result cuDevicePrimaryCtxRelease_v2(core_cu_device device)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (!fake_device_valid(device))
        return CORE_CU_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&fake_lock);
    if (fake_gpus[device].primary_refs <= 0)
        rc = FAKE_CU_ERROR_INVALID_CONTEXT; /* released more often than retained */
    else
        fake_gpus[device].primary_refs--;
    pthread_mutex_unlock(&fake_lock);
    return rc;
}

core_cu_result cuCtxGetCurrent(core_cu_context *ctx)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ctx == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    *ctx = fake_current_get();
    return CORE_CU_SUCCESS;
}

core_cu_result cuCtxSetCurrent(core_cu_context ctx)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ctx != NULL) {
        bool known = false;

        for (int i = 0; i < fake_gpu_count; i++)
            known = known || ctx == &fake_gpus[i].ctx;
        if (!known)
            return FAKE_CU_ERROR_INVALID_CONTEXT;
    }
    fake_current_set(ctx);
    return CORE_CU_SUCCESS;
}

core_cu_result cuCtxSynchronize(void)
{
    return fake_need_context();
}

core_cu_result cuCtxGetDevice(core_cu_device *device)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (device == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    *device = fake_current_get()->ordinal;
    return CORE_CU_SUCCESS;
}

/* ---- Memory --------------------------------------------------------------------------------- */

core_cu_result cuPointerGetAttribute(void *data, int attribute, core_cu_deviceptr ptr)
{
    core_cu_result rc = fake_ready();
    struct fake_mem *m;
    enum fake_mem_kind kind = FAKE_MEM_DEVICE;
    int ordinal = 0;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (data == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    m = fake_mem_find((uintptr_t)ptr, 1);
    if (m != NULL) {
        kind = m->kind;
        ordinal = m->ordinal;
    }
    pthread_mutex_unlock(&fake_lock);
    if (m == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    switch (attribute) {
    case CORE_CU_POINTER_ATTR_MEMORY_TYPE:
        *(unsigned int *)data = kind == FAKE_MEM_DEVICE || kind == FAKE_MEM_VMM
                                        ? CORE_CU_MEMORYTYPE_DEVICE
                                        : CORE_CU_MEMORYTYPE_HOST;
        return CORE_CU_SUCCESS;
    case CORE_CU_POINTER_ATTR_DEVICE_ORDINAL:
        *(int *)data = ordinal;
        return CORE_CU_SUCCESS;
    default:
        return FAKE_CU_ERROR_NOT_SUPPORTED;
    }
}

core_cu_result cuMemAlloc_v2(core_cu_deviceptr *ptr, size_t bytes)
{
    core_cu_result rc = fake_need_context();
    void *p;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ptr == NULL || bytes == 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (bytes > fake_mem_limit)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    p = fake_alloc(256, bytes); /* cuMemAlloc's alignment guarantee */
    if (p == NULL)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    fake_mem_add(p, bytes, FAKE_MEM_DEVICE, fake_current_get()->ordinal);
    *ptr = (core_cu_deviceptr)(uintptr_t)p;
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemFree_v2(core_cu_deviceptr ptr)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (!fake_mem_remove((void *)(uintptr_t)ptr, FAKE_MEM_DEVICE))
        return CORE_CU_ERROR_INVALID_VALUE;
    free((void *)(uintptr_t)ptr);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    core_cu_result rc = fake_need_context();
    void *p;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ptr == NULL || bytes == 0 ||
        (flags & ~(CORE_CU_MEMHOSTALLOC_PORTABLE | CORE_CU_MEMHOSTALLOC_DEVICEMAP | 0x04u)) != 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (bytes > fake_mem_limit)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    p = fake_alloc(4096, bytes); /* pinned host memory is page-aligned */
    if (p == NULL)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    fake_mem_add(p, bytes, FAKE_MEM_HOST, fake_current_get()->ordinal);
    *ptr = p;
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemFreeHost(void *ptr)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (!fake_mem_remove(ptr, FAKE_MEM_HOST))
        return CORE_CU_ERROR_INVALID_VALUE;
    free(ptr);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemHostRegister_v2(void *ptr, size_t bytes, unsigned int flags)
{
    core_cu_result rc = fake_need_context();

    (void)flags;
    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ptr == NULL || bytes == 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (fake_mem_known((uintptr_t)ptr, 1))
        return FAKE_CU_ERROR_ALREADY_MAPPED;
    fake_mem_add(ptr, bytes, FAKE_MEM_REGISTERED, fake_current_get()->ordinal);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemHostUnregister(void *ptr)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    return fake_mem_remove(ptr, FAKE_MEM_REGISTERED) ? CORE_CU_SUCCESS
                                                     : CORE_CU_ERROR_INVALID_VALUE;
}

core_cu_result cuMemHostGetDevicePointer_v2(core_cu_deviceptr *dptr, void *host, unsigned int flags)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (dptr == NULL || flags != 0 || !fake_mem_known((uintptr_t)host, 1))
        return CORE_CU_ERROR_INVALID_VALUE;
    *dptr = (core_cu_deviceptr)(uintptr_t)host; /* unified addressing: the same address */
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemsetD8_v2(core_cu_deviceptr dst, unsigned char value, size_t count)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (!fake_mem_known((uintptr_t)dst, count))
        return CORE_CU_ERROR_INVALID_VALUE;
    fake_dma_set((void *)(uintptr_t)dst, value, count);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemcpyDtoH_v2(void *dst, core_cu_deviceptr src, size_t bytes)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (dst == NULL || !fake_mem_known((uintptr_t)src, bytes))
        return CORE_CU_ERROR_INVALID_VALUE;
    fake_dma_copy(dst, (const void *)(uintptr_t)src, bytes);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemcpyHtoD_v2(core_cu_deviceptr dst, const void *src, size_t bytes)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (src == NULL || !fake_mem_known((uintptr_t)dst, bytes))
        return CORE_CU_ERROR_INVALID_VALUE;
    fake_dma_copy((void *)(uintptr_t)dst, src, bytes);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemcpyDtoHAsync_v2(void *dst, core_cu_deviceptr src, size_t bytes,
                                    core_cu_stream stream)
{
    (void)stream;
    return cuMemcpyDtoH_v2(dst, src, bytes);
}

core_cu_result cuMemcpyHtoDAsync_v2(core_cu_deviceptr dst, const void *src, size_t bytes,
                                    core_cu_stream stream)
{
    (void)stream;
    return cuMemcpyHtoD_v2(dst, src, bytes);
}

core_cu_result cuMemGetHandleForAddressRange(void *handle, core_cu_deviceptr ptr, size_t size,
                                             int type, unsigned long long flags)
{
    core_cu_result rc = fake_need_context();
    struct fake_mem *m;
    bool device;
    int fd;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (handle == NULL || type != CORE_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags != 0 ||
        size == 0 || ptr % 4096 != 0 || size % 4096 != 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    if (!fake_dmabuf)
        return FAKE_CU_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&fake_lock);
    m = fake_mem_find((uintptr_t)ptr, size);
    device = m != NULL && m->kind == FAKE_MEM_DEVICE;
    pthread_mutex_unlock(&fake_lock);
    if (!device)
        return CORE_CU_ERROR_INVALID_VALUE;
    fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* a file descriptor the caller closes */
    if (fd < 0)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    *(int *)handle = fd;
    return CORE_CU_SUCCESS;
}

/* ---- Streams -------------------------------------------------------------------------------- */

core_cu_result cuStreamCreate(core_cu_stream *stream, unsigned int flags)
{
    core_cu_result rc = fake_need_context();

    (void)flags;
    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (stream == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    *stream = calloc(1, sizeof(**stream));
    return *stream != NULL ? CORE_CU_SUCCESS : CORE_CU_ERROR_OUT_OF_MEMORY;
}

core_cu_result cuStreamDestroy_v2(core_cu_stream stream)
{
    core_cu_result rc = fake_need_context();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    free(stream);
    return CORE_CU_SUCCESS;
}

core_cu_result cuStreamSynchronize(core_cu_stream stream)
{
    (void)stream;
    return fake_need_context();
}

/* ---- Hooks for the tests -------------------------------------------------------------------- */

int fake_cuda_primary_refs(int ordinal)
{
    int refs;

    fake_config();
    if (!fake_device_valid(ordinal))
        return -1;
    pthread_mutex_lock(&fake_lock);
    refs = fake_gpus[ordinal].primary_refs;
    pthread_mutex_unlock(&fake_lock);
    return refs;
}

int fake_cuda_live_allocations(void)
{
    int n = 0;

    pthread_mutex_lock(&fake_lock);
    for (struct fake_mem *m = fake_mems; m != NULL; m = m->next)
        n += m->kind != FAKE_MEM_REGISTERED;
    pthread_mutex_unlock(&fake_lock);
    return n;
}

void *fake_cuda_current_context(void)
{
    return fake_current_get();
}

core_cu_result cuMemcpyDtoDAsync_v2(core_cu_deviceptr dst, core_cu_deviceptr src, size_t bytes,
                                    core_cu_stream stream)
{
    (void)stream;
    if (!fake_mem_known((uintptr_t)dst, bytes) || !fake_mem_known((uintptr_t)src, bytes))
        return CORE_CU_ERROR_INVALID_VALUE;
    fake_dma_copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return CORE_CU_SUCCESS;
}

/* The range of cuMemAlloc's allocation, or of cuMemMap's mapping, holding ptr. */
core_cu_result cuMemGetAddressRange_v2(core_cu_deviceptr *base, size_t *size, core_cu_deviceptr ptr)
{
    core_cu_result rc = fake_need_context();
    struct fake_mem *m;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    pthread_mutex_lock(&fake_lock);
    m = fake_mem_find((uintptr_t)ptr, 1);
    if (m != NULL && (m->kind == FAKE_MEM_DEVICE || m->kind == FAKE_MEM_VMM)) {
        if (base != NULL)
            *base = (core_cu_deviceptr)m->start;
        if (size != NULL)
            *size = m->size;
    } else {
        rc = CORE_CU_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&fake_lock);
    return rc;
}

/* The fake gives no CUDA IPC handles: cuMemAlloc's memory is never exported or opened. */

core_cu_result cuIpcGetMemHandle(core_cu_ipc_mem_handle *handle, core_cu_deviceptr ptr)
{
    (void)handle;
    (void)ptr;
    return FAKE_CU_ERROR_NOT_SUPPORTED;
}

core_cu_result cuIpcOpenMemHandle_v2(core_cu_deviceptr *ptr, core_cu_ipc_mem_handle handle,
                                     unsigned int flags)
{
    (void)ptr;
    (void)handle;
    (void)flags;
    return FAKE_CU_ERROR_NOT_SUPPORTED;
}

core_cu_result cuIpcCloseMemHandle(core_cu_deviceptr ptr)
{
    (void)ptr;
    return FAKE_CU_ERROR_NOT_SUPPORTED;
}
