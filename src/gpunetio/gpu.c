/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU context: one struct doca_gpu per GPU and process, found by PCIe
 * bus id, holding the device's retained primary CUDA context. A second
 * doca_gpu_create() of the same GPU counts a reference on the same object.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "gpunetio_internal.h"

/* Longest bus id argument echoed back in a log line. */
#define GPU_BUS_ID_ECHO_MAX 40
/* PCI domains are at most 6 hex digits here, so that the canonical form fits bus_id[16]. */
#define GPU_DOMAIN_MAX      0xffffffu

/* The contexts of this process, and the lock over the list and every context's refs. */
static pthread_mutex_t gpu_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_gpu *gpu_list;

const char *gpunetio_cu_error(const struct core_cuda_ops *cuda, core_cu_result rc, char *buf,
                              size_t len)
{
    const char *name = NULL;
    const char *text = NULL;

    if (cuda == NULL || cuda->cuGetErrorName(rc, &name) != CORE_CU_SUCCESS || name == NULL)
        name = "unknown CUDA error";
    if (cuda == NULL || cuda->cuGetErrorString(rc, &text) != CORE_CU_SUCCESS || text == NULL)
        text = "no description";
    snprintf(buf, len, "%d (%s: %s)", rc, name, text);
    return buf;
}

/* Reads 1 to max_digits hex digits; the position after them, or NULL. */
static const char *gpu_parse_hex(const char *s, int max_digits, unsigned long *value)
{
    unsigned long v = 0;
    int n = 0;

    while (isxdigit((unsigned char)s[n])) {
        if (n == max_digits)
            return NULL;
        v = v * 16 + (unsigned long)(isdigit((unsigned char)s[n])
                                             ? s[n] - '0'
                                             : tolower((unsigned char)s[n]) - 'a' + 10);
        n++;
    }
    if (n == 0)
        return NULL;
    *value = v;
    return s + n;
}

/*
 * "[domain:]bus:device.function", hex, any case, into "0000:8a:00.0".
 * false when the text is not a PCIe bus id.
 */
static bool gpu_canonical_bus_id(const char *text, char out[16])
{
    unsigned long part[4] = {0, 0, 0, 0}; /* domain, bus, device, function */
    unsigned long first, second;
    const char *p = gpu_parse_hex(text, 8, &first);

    if (p == NULL || *p != ':')
        return false;
    p = gpu_parse_hex(p + 1, 2, &second);
    if (p == NULL)
        return false;
    if (*p == ':') { /* domain:bus:... */
        part[0] = first;
        part[1] = second;
        p = gpu_parse_hex(p + 1, 2, &part[2]);
        if (p == NULL)
            return false;
    } else { /* bus:device.function */
        part[1] = first;
        part[2] = second;
    }
    if (*p != '.')
        return false;
    p = gpu_parse_hex(p + 1, 1, &part[3]);
    if (p == NULL || *p != '\0')
        return false;
    if (part[0] > GPU_DOMAIN_MAX || part[1] > 0xff || part[2] > 0x1f || part[3] > 7)
        return false;
    snprintf(out, 16, "%04lx:%02lx:%02lx.%lx", part[0], part[1], part[2], part[3]);
    return true;
}

/* "13.0" from 13000; "unknown" for 0. */
const char *gpunetio_cuda_version_text(int version, char *buf, size_t len)
{
    if (version <= 0)
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%d.%d", version / 1000, (version % 1000) / 10);
    return buf;
}

/* "CUDA 13.0" or "no CUDA version (built without the CUDA toolkit)". */
static const char *gpu_build_version_text(char *buf, size_t len)
{
    char v[16];

    if (DGN_CUDA_BUILD_VERSION <= 0)
        snprintf(buf, len, "no particular CUDA version (it was built without the CUDA toolkit)");
    else
        snprintf(buf, len, "CUDA %s",
                 gpunetio_cuda_version_text(DGN_CUDA_BUILD_VERSION, v, sizeof(v)));
    return buf;
}

/*
 * Loads the driver for doca_gpu_create(), explaining a failure in one line:
 * the missing library (NOT_SUPPORTED), or cuInit's failure or a driver older
 * than the build with both versions (DRIVER).
 */
static doca_error_t gpu_driver(const struct core_cuda_ops **cuda)
{
    struct core_cuda_probe probe;
    char drv[16], built[96];
    const char *remedy;

    core_cuda_probe(&probe);
    if (probe.status == DOCA_ERROR_NOT_SUPPORTED)
        return core_cuda_get(cuda); /* logs which library or symbol is missing */
    gpunetio_cuda_version_text(probe.driver_version, drv, sizeof(drv));
    gpu_build_version_text(built, sizeof(built));
    if (probe.status != DOCA_SUCCESS) {
        if (probe.init_result == CORE_CU_ERROR_INSUFFICIENT_DRIVER)
            remedy = DGN_CUDA_BUILD_VERSION > 0 ? "install an NVIDIA driver for that CUDA version "
                                                  "or newer"
                                                : "install a newer NVIDIA driver";
        else if (probe.init_result == CORE_CU_ERROR_NO_DEVICE)
            remedy = "check that a GPU is present and visible (nvidia-smi, CUDA_VISIBLE_DEVICES)";
        else
            remedy = "check nvidia-smi and that the driver library matches the kernel module";
        DOCA_LOG_ERR("the CUDA driver failed to initialise: cuInit returned %d (%s: %s); the "
                     "driver supports CUDA %s and this library was built for %s: %s",
                     probe.init_result, probe.init_error_name, probe.init_error_text, drv, built,
                     remedy);
        return DOCA_ERROR_DRIVER;
    }
    if (DGN_CUDA_BUILD_VERSION > 0 && probe.driver_version < DGN_CUDA_BUILD_VERSION) {
        DOCA_LOG_ERR("the CUDA driver supports CUDA %s, older than the %s this library was "
                     "built for: install a newer NVIDIA driver",
                     drv, built);
        return DOCA_ERROR_DRIVER;
    }
    return core_cuda_get(cuda);
}

/* Caller holds gpu_list_lock. */
static struct doca_gpu *gpu_list_find_bus_id(const char *bus_id)
{
    for (struct doca_gpu *g = gpu_list; g != NULL; g = g->next)
        if (strcmp(g->bus_id, bus_id) == 0)
            return g;
    return NULL;
}

/* Caller holds gpu_list_lock. */
static bool gpu_list_contains(const struct doca_gpu *gpu)
{
    for (struct doca_gpu *g = gpu_list; g != NULL; g = g->next)
        if (g == gpu)
            return true;
    return false;
}

/* What the driver says of one GPU. */
struct gpu_info {
    core_cu_device device;
    char bus_id[16]; /* canonical; "?" when the driver's answer could not be read */
    int cc_major;
    int cc_minor;
};

/* CORE_CU_SUCCESS, or the first failing call's result (the GPU is then skipped). */
static core_cu_result gpu_describe(const struct core_cuda_ops *cuda, int ordinal,
                                   struct gpu_info *info)
{
    char raw[32] = "";
    core_cu_result rc;

    memset(info, 0, sizeof(*info));
    rc = cuda->cuDeviceGet(&info->device, ordinal);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuDeviceGetPCIBusId(raw, (int)sizeof(raw), info->device);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuDeviceGetAttribute(&info->cc_major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR,
                                        info->device);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuDeviceGetAttribute(&info->cc_minor, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR,
                                        info->device);
    if (rc != CORE_CU_SUCCESS)
        return rc;
    raw[sizeof(raw) - 1] = '\0';
    if (!gpu_canonical_bus_id(raw, info->bus_id))
        snprintf(info->bus_id, sizeof(info->bus_id), "?");
    return CORE_CU_SUCCESS;
}

/* Finds the GPU with bus id `want` (canonical); INVALID_VALUE lists those present. */
static doca_error_t gpu_lookup(const struct core_cuda_ops *cuda, const char *want, int *ordinal,
                               struct gpu_info *found)
{
    char present[768] = "";
    size_t used = 0;
    char err[160];
    int count = 0;
    core_cu_result rc = cuda->cuDeviceGetCount(&count);

    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("the CUDA driver cannot count its GPUs: cuDeviceGetCount returned %s",
                     gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        return DOCA_ERROR_DRIVER;
    }
    for (int i = 0; i < count; i++) {
        struct gpu_info info;
        int n;

        rc = gpu_describe(cuda, i, &info);
        if (rc == CORE_CU_SUCCESS && strcmp(info.bus_id, want) == 0) {
            *ordinal = i;
            *found = info;
            return DOCA_SUCCESS;
        }
        if (used >= sizeof(present))
            continue;
        if (rc == CORE_CU_SUCCESS)
            n = snprintf(present + used, sizeof(present) - used, "%s%s (compute capability %d.%d)",
                         i == 0 ? "" : ", ", info.bus_id, info.cc_major, info.cc_minor);
        else
            n = snprintf(present + used, sizeof(present) - used,
                         "%sCUDA device %d (not readable: CUDA error %d)", i == 0 ? "" : ", ", i,
                         rc);
        used += n > 0 ? (size_t)n : 0;
    }
    if (count == 0)
        DOCA_LOG_ERR("no GPU has bus id %s: the CUDA driver sees no GPU (check nvidia-smi and "
                     "CUDA_VISIBLE_DEVICES)",
                     want);
    else
        DOCA_LOG_ERR("no GPU has bus id %s; the GPUs present are %s: pass one of these bus ids",
                     want, present);
    return DOCA_ERROR_INVALID_VALUE;
}

/* Caller holds gpu_list_lock; makes a new context for the GPU found. */
static doca_error_t gpu_open(const struct core_cuda_ops *cuda, int ordinal,
                             const struct gpu_info *info, struct doca_gpu **out)
{
    struct doca_gpu *gpu;
    char name[128] = "?";
    char err[160];
    int dmabuf = 0;
    core_cu_result rc;

    if (info->cc_major < GPUNETIO_MIN_CC_MAJOR ||
        (info->cc_major == GPUNETIO_MIN_CC_MAJOR && info->cc_minor < GPUNETIO_MIN_CC_MINOR)) {
        DOCA_LOG_ERR("GPU %s has compute capability %d.%d; GPUNetIO needs %d.%d or newer "
                     "(Ampere, Hopper, Blackwell): use another GPU",
                     info->bus_id, info->cc_major, info->cc_minor, GPUNETIO_MIN_CC_MAJOR,
                     GPUNETIO_MIN_CC_MINOR);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (cuda->cuDeviceGetAttribute(&dmabuf, CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED, info->device) !=
        CORE_CU_SUCCESS)
        dmabuf = 0; /* older drivers do not know the attribute: no dma-buf */
    if (cuda->cuDeviceGetName(name, (int)sizeof(name), info->device) != CORE_CU_SUCCESS)
        snprintf(name, sizeof(name), "?");
    name[sizeof(name) - 1] = '\0';
    gpu = calloc(1, sizeof(*gpu));
    if (gpu == NULL) {
        DOCA_LOG_ERR("out of memory for the context of GPU %s", info->bus_id);
        return DOCA_ERROR_NO_MEMORY;
    }
    rc = cuda->cuDevicePrimaryCtxRetain(&gpu->ctx, info->device);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot retain the primary CUDA context of GPU %s: "
                     "cuDevicePrimaryCtxRetain returned %s; check that the GPU is not in "
                     "exclusive-process compute mode held by another process (nvidia-smi)",
                     info->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        free(gpu);
        return DOCA_ERROR_DRIVER;
    }
    rc = cuda->cuCtxSetCurrent(gpu->ctx);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot make the primary CUDA context of GPU %s current: cuCtxSetCurrent "
                     "returned %s",
                     info->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
        cuda->cuDevicePrimaryCtxRelease(info->device);
        free(gpu);
        return DOCA_ERROR_DRIVER;
    }
    gpu->device = info->device;
    gpu->ordinal = ordinal;
    memcpy(gpu->bus_id, info->bus_id, sizeof(gpu->bus_id));
    gpu->cc_major = info->cc_major;
    gpu->cc_minor = info->cc_minor;
    gpu->dmabuf = dmabuf != 0;
    gpu->refs = 1;
    atomic_init(&gpu->users, 0);
    pthread_mutex_init(&gpu->lock, NULL);
    gpu->allocs = NULL;
    gpu->next = gpu_list;
    gpu_list = gpu;
    DOCA_LOG_INFO("opened GPU %s (%s, CUDA device %d, compute capability %d.%d, dma-buf %s)",
                  gpu->bus_id, name, ordinal, gpu->cc_major, gpu->cc_minor,
                  gpu->dmabuf ? "supported" : "not supported");
    *out = gpu;
    return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_gpu_create(const char *gpu_bus_id, doca_gpu_t **gpu_dev)
{
    DGN_SDK_ROUTE(doca_gpu_create, (gpu_bus_id, gpu_dev), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda = NULL;
    struct doca_gpu *gpu;
    struct gpu_info info;
    char bus_id[16];
    char err[160];
    int ordinal = 0;
    doca_error_t status;
    core_cu_result rc;

    if (gpu_bus_id == NULL || gpu_dev == NULL) {
        DOCA_LOG_ERR("gpu_bus_id (%p) and gpu_dev (%p) must not be NULL: pass a PCIe bus id "
                     "such as \"8a:00.0\" and where to put the context",
                     (const void *)gpu_bus_id, (void *)gpu_dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!gpu_canonical_bus_id(gpu_bus_id, bus_id)) {
        DOCA_LOG_ERR("gpu_bus_id \"%.*s%s\" is not a PCIe bus id: write bus:device.function "
                     "(\"8a:00.0\") or domain:bus:device.function (\"0000:8a:00.0\"), in hex, as "
                     "nvidia-smi or lspci -D print it",
                     GPU_BUS_ID_ECHO_MAX, gpu_bus_id,
                     strnlen(gpu_bus_id, GPU_BUS_ID_ECHO_MAX + 1) > GPU_BUS_ID_ECHO_MAX ? "..."
                                                                                        : "");
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = gpu_driver(&cuda);
    if (status != DOCA_SUCCESS)
        return status;

    pthread_mutex_lock(&gpu_list_lock);
    gpu = gpu_list_find_bus_id(bus_id);
    if (gpu != NULL) {
        rc = cuda->cuCtxSetCurrent(gpu->ctx);
        if (rc != CORE_CU_SUCCESS) {
            pthread_mutex_unlock(&gpu_list_lock);
            DOCA_LOG_ERR("cannot make the primary CUDA context of GPU %s current: "
                         "cuCtxSetCurrent returned %s",
                         bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
            return DOCA_ERROR_DRIVER;
        }
        gpu->refs++;
        DOCA_LOG_INFO("GPU %s is open already: the same context is returned (%d references)",
                      bus_id, gpu->refs);
        pthread_mutex_unlock(&gpu_list_lock);
        *gpu_dev = gpu;
        return DOCA_SUCCESS;
    }
    status = gpu_lookup(cuda, bus_id, &ordinal, &info);
    if (status == DOCA_SUCCESS)
        status = gpu_open(cuda, ordinal, &info, &gpu);
    pthread_mutex_unlock(&gpu_list_lock);
    if (status != DOCA_SUCCESS)
        return status;
    *gpu_dev = gpu;
    return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_gpu_destroy(doca_gpu_t *gpu_dev)
{
    DGN_SDK_ROUTE(doca_gpu_destroy, (gpu_dev), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda = NULL;
    core_cu_context current = NULL;
    struct doca_gpu **link;
    char err[160];
    core_cu_result rc;
    int users;

    if (gpu_dev == NULL) {
        DOCA_LOG_ERR("gpu_dev is NULL: pass the context doca_gpu_create() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&gpu_list_lock);
    if (!gpu_list_contains(gpu_dev)) {
        pthread_mutex_unlock(&gpu_list_lock);
        DOCA_LOG_ERR("gpu_dev %p is not a context doca_gpu_create() gave, or it was destroyed "
                     "already",
                     (void *)gpu_dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (gpu_dev->refs > 1) {
        gpu_dev->refs--;
        DOCA_LOG_INFO("GPU %s: one reference released, %d remain%s", gpu_dev->bus_id, gpu_dev->refs,
                      gpu_dev->refs == 1 ? "s" : "");
        pthread_mutex_unlock(&gpu_list_lock);
        return DOCA_SUCCESS;
    }
    users = atomic_load(&gpu_dev->users);
    if (users > 0) {
        pthread_mutex_unlock(&gpu_list_lock);
        DOCA_LOG_ERR(
                "GPU %s cannot be released: %d object%s made with it (memory from "
                "doca_gpu_mem_alloc, exported QPs, semaphores) still exist%s; free, unexport or "
                "destroy them first",
                gpu_dev->bus_id, users, users == 1 ? "" : "s", users == 1 ? "s" : "");
        return DOCA_ERROR_BAD_STATE;
    }
    for (link = &gpu_list; *link != gpu_dev; link = &(*link)->next)
        ;
    *link = gpu_dev->next;
    pthread_mutex_unlock(&gpu_list_lock);

    /* A context exists, so the driver loaded: core_cuda_get cannot fail here. */
    if (core_cuda_get(&cuda) == DOCA_SUCCESS) {
        if (cuda->cuCtxGetCurrent(&current) == CORE_CU_SUCCESS && current == gpu_dev->ctx)
            cuda->cuCtxSetCurrent(NULL);
        rc = cuda->cuDevicePrimaryCtxRelease(gpu_dev->device);
        if (rc != CORE_CU_SUCCESS) /* the context is gone either way: report, do not fail */
            DOCA_LOG_WARN("releasing the primary CUDA context of GPU %s: "
                          "cuDevicePrimaryCtxRelease returned %s",
                          gpu_dev->bus_id, gpunetio_cu_error(cuda, rc, err, sizeof(err)));
    }
    DOCA_LOG_INFO("closed GPU %s", gpu_dev->bus_id);
    pthread_mutex_destroy(&gpu_dev->lock);
    free(gpu_dev);
    return DOCA_SUCCESS;
}

doca_error_t gpunetio_gpu_bind(doca_gpu_t *gpu, const struct core_cuda_ops **cuda)
{
    const struct core_cuda_ops *ops = NULL;
    bool live;
    char err[160];
    core_cu_result rc;
    doca_error_t status;

    if (gpu == NULL || cuda == NULL) {
        DOCA_LOG_ERR("gpu_dev (%p) and the table pointer (%p) must not be NULL: pass the context "
                     "doca_gpu_create() gave",
                     (void *)gpu, (void *)cuda);
        return DOCA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&gpu_list_lock);
    live = gpu_list_contains(gpu);
    pthread_mutex_unlock(&gpu_list_lock);
    if (!live) {
        DOCA_LOG_ERR("gpu_dev %p is not a context doca_gpu_create() gave, or it was destroyed",
                     (void *)gpu);
        return DOCA_ERROR_INVALID_VALUE;
    }
    status = core_cuda_get(&ops);
    if (status != DOCA_SUCCESS)
        return status;
    rc = ops->cuCtxSetCurrent(gpu->ctx);
    if (rc != CORE_CU_SUCCESS) {
        DOCA_LOG_ERR("cannot make the primary CUDA context of GPU %s current: cuCtxSetCurrent "
                     "returned %s",
                     gpu->bus_id, gpunetio_cu_error(ops, rc, err, sizeof(err)));
        return DOCA_ERROR_DRIVER;
    }
    *cuda = ops;
    return DOCA_SUCCESS;
}
