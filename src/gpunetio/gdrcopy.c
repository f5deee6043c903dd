/* SPDX-License-Identifier: BSD-3-Clause */
#include "gdrcopy.h"

#include <pthread.h>
#include <stdbool.h>

#include "core/dl.h"
#include "gpunetio_internal.h"

/* GDRCopy 2.x's calls (gdrapi.h), by their C types; gdr_mh_t is a struct of one unsigned long. */
typedef struct {
    unsigned long h;
} gdr_mh;
typedef void *(*gdr_open_fn)(void);
typedef int (*gdr_pin_buffer_fn)(void *g, unsigned long addr, size_t size, uint64_t p2p_token,
                                 uint32_t va_space, gdr_mh *handle);
typedef int (*gdr_unpin_buffer_fn)(void *g, gdr_mh handle);
typedef int (*gdr_map_fn)(void *g, gdr_mh handle, void **va, size_t size);
typedef int (*gdr_unmap_fn)(void *g, gdr_mh handle, void *va, size_t size);

static struct {
    gdr_open_fn open;
    gdr_pin_buffer_fn pin_buffer;
    gdr_unpin_buffer_fn unpin_buffer;
    gdr_map_fn map;
    gdr_unmap_fn unmap;
} gdr;

static const struct core_dl_symbol gdr_symbols[] = {
        {"gdr_open", (void **)&gdr.open, false},
        {"gdr_pin_buffer", (void **)&gdr.pin_buffer, false},
        {"gdr_unpin_buffer", (void **)&gdr.unpin_buffer, false},
        {"gdr_map", (void **)&gdr.map, false},
        {"gdr_unmap", (void **)&gdr.unmap, false},
};

static const struct core_dl_library gdrcopy_library = {
        .what = "GDRCopy",
        .soname = GPUNETIO_GDRAPI_SONAME,
        .env = GPUNETIO_GDRAPI_ENV,
        .remedy = "install GDRCopy and load its gdrdrv kernel module",
        .symbols = gdr_symbols,
        .symbol_count = sizeof(gdr_symbols) / sizeof(gdr_symbols[0]),
};

static pthread_once_t gdrcopy_once = PTHREAD_ONCE_INIT;
static bool gdrcopy_loaded;
static char gdrcopy_reason[512];
static pthread_mutex_t gdr_lock = PTHREAD_MUTEX_INITIALIZER;
static void *gdr_handle; /* gdr_t, opened at the first mapping */

static void gdrcopy_probe(void)
{
    void *handle = NULL;

    gdrcopy_loaded = core_dl_load(&gdrcopy_library, &handle, gdrcopy_reason,
                                  sizeof(gdrcopy_reason)) == DOCA_SUCCESS;
    /* The library stays open for the life of the process, like the other libraries. */
}

const char *gpunetio_gdrcopy_unavailable_reason(void)
{
    if (gpunetio_env_is_1(GPUNETIO_DISABLE_GDRCOPY_ENV))
        return "GDRCopy is disabled (" GPUNETIO_DISABLE_GDRCOPY_ENV "=1)";
    pthread_once(&gdrcopy_once, gdrcopy_probe);
    return gdrcopy_loaded ? NULL : gdrcopy_reason;
}

/* The process's gdr handle; NULL (logged) when gdr_open fails: the kernel module is missing. */
static void *gdr_get(void)
{
    void *g;

    pthread_mutex_lock(&gdr_lock);
    if (gdr_handle == NULL)
        gdr_handle = gdr.open();
    g = gdr_handle;
    pthread_mutex_unlock(&gdr_lock);
    if (g == NULL)
        DOCA_LOG_ERR("GDRCopy: gdr_open failed: the gdrdrv kernel module is not loaded (no "
                     "/dev/gdrdrv); load it (modprobe gdrdrv, or GDRCopy's insmod.sh)");
    return g;
}

doca_error_t gpunetio_gdr_map(uint64_t gpu_addr, size_t size, struct gpunetio_gdr_map *map)
{
    const char *why = gpunetio_gdrcopy_unavailable_reason();
    gdr_mh mh = {0};
    void *g, *va = NULL;
    int rc;

    if (why != NULL) {
        DOCA_LOG_ERR("GPU memory cannot be mapped for the CPU: %s", why);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    g = gdr_get();
    if (g == NULL)
        return DOCA_ERROR_NOT_SUPPORTED;
    rc = gdr.pin_buffer(g, (unsigned long)gpu_addr, size, 0, 0, &mh);
    if (rc != 0) {
        DOCA_LOG_ERR("GDRCopy: gdr_pin_buffer of %zu bytes of GPU memory at 0x%llx returned %d; "
                     "is the memory from cuMemAlloc and the GPU one GDRCopy supports?",
                     size, (unsigned long long)gpu_addr, rc);
        return DOCA_ERROR_DRIVER;
    }
    rc = gdr.map(g, mh, &va, size);
    if (rc != 0 || va == NULL) {
        DOCA_LOG_ERR("GDRCopy: gdr_map of %zu pinned bytes of GPU memory at 0x%llx returned %d "
                     "(the BAR1 aperture may be full: map less GPU memory for the CPU)",
                     size, (unsigned long long)gpu_addr, rc);
        gdr.unpin_buffer(g, mh);
        return DOCA_ERROR_DRIVER;
    }
    map->handle = mh.h;
    map->cpu = va;
    map->size = size;
    return DOCA_SUCCESS;
}

int gpunetio_gdr_unmap(struct gpunetio_gdr_map *map)
{
    gdr_mh mh = {.h = map->handle};
    int rc = gdr.unmap(gdr_handle, mh, map->cpu, map->size);

    if (rc == 0)
        rc = gdr.unpin_buffer(gdr_handle, mh);
    if (rc != 0)
        DOCA_LOG_ERR("GDRCopy: unmapping %zu bytes of GPU memory mapped at %p returned %d",
                     map->size, map->cpu, rc);
    return rc;
}
