/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stand-in for GDRCopy's libgdrapi.so.2, loaded through
 * DOCA_GPUNETIO_LIBGDRAPI in the tests on the fake CUDA driver, whose "GPU
 * memory" is host memory: a mapping's CPU address is the GPU address. It
 * checks what the real library requires (whole 64 KiB GPU pages, a map of
 * exactly the pinned size, unmap before unpin) and counts what is live, so
 * that a test can see nothing leaks (fake_gdr_live).
 *   FAKE_GDR_NO_DRIVER=1  gdr_open fails, as without the gdrdrv module
 *   FAKE_GDR_PIN_FAIL=1   gdr_pin_buffer fails
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT  __attribute__((visibility("default")))
#define FAKE_PAGE    ((unsigned long)64 * 1024)
#define FAKE_MAX_PIN 64

typedef struct {
    unsigned long h;
} fake_mh;

/* GDRCopy's calls as libgdrapi.so.2 exports them, and the tests' counter. */
FAKE_EXPORT void *gdr_open(void);
FAKE_EXPORT int gdr_pin_buffer(void *g, unsigned long addr, size_t size, uint64_t p2p_token,
                               uint32_t va_space, fake_mh *handle);
FAKE_EXPORT int gdr_map(void *g, fake_mh handle, void **va, size_t size);
FAKE_EXPORT int gdr_unmap(void *g, fake_mh handle, void *va, size_t size);
FAKE_EXPORT int gdr_unpin_buffer(void *g, fake_mh handle);
FAKE_EXPORT int fake_gdr_live(size_t *last_size);

static struct {
    unsigned long addr;
    size_t size;
    int mapped;
} pins[FAKE_MAX_PIN + 1]; /* handle h is pins[h]; 0 is never used */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int gdr_token;

static int env_is_1(const char *name)
{
    const char *v = getenv(name);

    return v != NULL && strcmp(v, "1") == 0;
}

FAKE_EXPORT void *gdr_open(void)
{
    return env_is_1("FAKE_GDR_NO_DRIVER") ? NULL : &gdr_token;
}

FAKE_EXPORT int gdr_pin_buffer(void *g, unsigned long addr, size_t size, uint64_t p2p_token,
                               uint32_t va_space, fake_mh *handle)
{
    int rc = -ENOMEM;

    if (g != &gdr_token || handle == NULL || p2p_token != 0 || va_space != 0)
        return -EINVAL;
    if (env_is_1("FAKE_GDR_PIN_FAIL"))
        return -EPERM;
    if (addr % FAKE_PAGE != 0 || size == 0 || size % FAKE_PAGE != 0)
        return -EINVAL;
    pthread_mutex_lock(&lock);
    for (unsigned long h = 1; h <= FAKE_MAX_PIN; h++) {
        if (pins[h].size == 0) {
            pins[h].addr = addr;
            pins[h].size = size;
            handle->h = h;
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int pin_of(void *g, fake_mh handle)
{
    return g == &gdr_token && handle.h >= 1 && handle.h <= FAKE_MAX_PIN && pins[handle.h].size != 0;
}

FAKE_EXPORT int gdr_map(void *g, fake_mh handle, void **va, size_t size)
{
    int rc = -EINVAL;

    pthread_mutex_lock(&lock);
    if (pin_of(g, handle) && va != NULL && size == pins[handle.h].size && !pins[handle.h].mapped) {
        pins[handle.h].mapped = 1;
        *va = (void *)pins[handle.h].addr;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

FAKE_EXPORT int gdr_unmap(void *g, fake_mh handle, void *va, size_t size)
{
    int rc = -EINVAL;

    pthread_mutex_lock(&lock);
    if (pin_of(g, handle) && pins[handle.h].mapped && va == (void *)pins[handle.h].addr &&
        size == pins[handle.h].size) {
        pins[handle.h].mapped = 0;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

FAKE_EXPORT int gdr_unpin_buffer(void *g, fake_mh handle)
{
    int rc = -EINVAL;

    pthread_mutex_lock(&lock);
    if (pin_of(g, handle) && !pins[handle.h].mapped) {
        pins[handle.h].size = 0;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* For the tests: the pins alive, and the size of the last one made (0 when none). */
FAKE_EXPORT int fake_gdr_live(size_t *last_size)
{
    int n = 0;

    pthread_mutex_lock(&lock);
    *last_size = 0;
    for (unsigned long h = 1; h <= FAKE_MAX_PIN; h++) {
        if (pins[h].size != 0) {
            n++;
            *last_size = pins[h].size;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}
