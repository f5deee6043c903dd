/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake CUDA driver's virtual memory management calls (cuMemCreate,
 * cuMemMap and the rest: fake_cuda.h). An allocation is a memfd, so that
 * other processes can share it as they share a real one: its POSIX file
 * descriptor handle (cuMemExportToShareableHandle) is a duplicate of the
 * memfd, which another process's fake imports and maps. The memfd's name
 * carries what an importer must know ("fake-cuda-vmm:<ordinal>:<handle
 * types>"); a descriptor that is no such memfd is refused. A reservation is
 * a PROT_NONE mapping; cuMemMap maps the memfd into it, still PROT_NONE
 * (the copies refuse it) until cuMemSetAccess opens it. A handle is the
 * address of the allocation's record; the record lives while handles
 * (cuMemCreate, cuMemImportFromShareableHandle, cuMemRetainAllocationHandle)
 * or mappings hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_cuda.h"
#include "fake_cuda_int.h"

#define FAKE_VMM_NAME "fake-cuda-vmm:"

FAKE_EXPORT core_cu_result cuMemCreate(core_cu_mem_handle *handle, size_t size,
                                       const struct core_cu_mem_alloc_prop *prop,
                                       unsigned long long flags);
FAKE_EXPORT core_cu_result cuMemRelease(core_cu_mem_handle handle);
FAKE_EXPORT core_cu_result cuMemAddressReserve(core_cu_deviceptr *ptr, size_t size,
                                               size_t alignment, core_cu_deviceptr addr,
                                               unsigned long long flags);
FAKE_EXPORT core_cu_result cuMemAddressFree(core_cu_deviceptr ptr, size_t size);
FAKE_EXPORT core_cu_result cuMemMap(core_cu_deviceptr ptr, size_t size, size_t offset,
                                    core_cu_mem_handle handle, unsigned long long flags);
FAKE_EXPORT core_cu_result cuMemUnmap(core_cu_deviceptr ptr, size_t size);
FAKE_EXPORT core_cu_result cuMemSetAccess(core_cu_deviceptr ptr, size_t size,
                                          const struct core_cu_mem_access_desc *desc, size_t count);
FAKE_EXPORT core_cu_result cuMemRetainAllocationHandle(core_cu_mem_handle *handle, void *addr);
FAKE_EXPORT core_cu_result cuMemGetAllocationPropertiesFromHandle(
        struct core_cu_mem_alloc_prop *prop, core_cu_mem_handle handle);
FAKE_EXPORT core_cu_result cuMemGetAllocationGranularity(size_t *granularity,
                                                         const struct core_cu_mem_alloc_prop *prop,
                                                         int option);
FAKE_EXPORT core_cu_result cuMemExportToShareableHandle(void *shareable, core_cu_mem_handle handle,
                                                        int type, unsigned long long flags);
FAKE_EXPORT core_cu_result cuMemImportFromShareableHandle(core_cu_mem_handle *handle,
                                                          void *os_handle, int type);
FAKE_EXPORT void fake_cuda_vmm_counts(int *allocations, int *mappings);

FAKE_SAME_TYPE(cuMemCreate, cuMemCreate);
FAKE_SAME_TYPE(cuMemRelease, cuMemRelease);
FAKE_SAME_TYPE(cuMemAddressReserve, cuMemAddressReserve);
FAKE_SAME_TYPE(cuMemAddressFree, cuMemAddressFree);
FAKE_SAME_TYPE(cuMemMap, cuMemMap);
FAKE_SAME_TYPE(cuMemUnmap, cuMemUnmap);
FAKE_SAME_TYPE(cuMemSetAccess, cuMemSetAccess);
FAKE_SAME_TYPE(cuMemRetainAllocationHandle, cuMemRetainAllocationHandle);
FAKE_SAME_TYPE(cuMemGetAllocationPropertiesFromHandle, cuMemGetAllocationPropertiesFromHandle);
FAKE_SAME_TYPE(cuMemGetAllocationGranularity, cuMemGetAllocationGranularity);
FAKE_SAME_TYPE(cuMemExportToShareableHandle, cuMemExportToShareableHandle);
FAKE_SAME_TYPE(cuMemImportFromShareableHandle, cuMemImportFromShareableHandle);

struct fake_vmm_alloc {
    struct fake_vmm_alloc *next;
    int fd; /* the memfd holding its bytes */
    size_t size;
    int ordinal;
    int handle_types;
    int refs; /* handles and mappings */
};

struct fake_vmm_range {
    struct fake_vmm_range *next;
    uintptr_t start;
    size_t size;
};

/* All under fake_lock. */
static struct fake_vmm_alloc *fake_allocs;
static struct fake_vmm_range *fake_ranges;

static size_t fake_granularity(void)
{
    const char *v = getenv("FAKE_CUDA_VMM_GRANULARITY");
    unsigned long g = v != NULL ? strtoul(v, NULL, 0) : 0;

    return g != 0 && (g & (g - 1)) == 0 && g % 4096 == 0 ? g : FAKE_CUDA_VMM_GRANULARITY;
}

/* The live allocation a handle names (fake_lock held), or NULL. */
static struct fake_vmm_alloc *fake_alloc_of(core_cu_mem_handle handle)
{
    for (struct fake_vmm_alloc *a = fake_allocs; a != NULL; a = a->next)
        if ((core_cu_mem_handle)(uintptr_t)a == handle)
            return a;
    return NULL;
}

static struct fake_vmm_alloc *fake_alloc_new(int fd, size_t size, int ordinal, int types)
{
    struct fake_vmm_alloc *a = calloc(1, sizeof(*a));

    if (a == NULL)
        return NULL;
    *a = (struct fake_vmm_alloc){
            .next = fake_allocs, .fd = fd, .size = size, .ordinal = ordinal, .handle_types = types};
    a->refs = 1;
    fake_allocs = a;
    return a;
}

/* One reference fewer (fake_lock held): the last frees the allocation. */
static void fake_alloc_put(struct fake_vmm_alloc *a)
{
    if (--a->refs > 0)
        return;
    for (struct fake_vmm_alloc **link = &fake_allocs; *link != NULL; link = &(*link)->next) {
        if (*link == a) {
            *link = a->next;
            break;
        }
    }
    close(a->fd);
    free(a);
}

/* The reservation holding [start, start + size) (fake_lock held), or NULL. */
static struct fake_vmm_range *fake_range_find(uintptr_t start, size_t size)
{
    for (struct fake_vmm_range *r = fake_ranges; r != NULL; r = r->next)
        if (start >= r->start && size <= r->size && start - r->start <= r->size - size)
            return r;
    return NULL;
}

static bool fake_location_valid(const struct core_cu_mem_location *l)
{
    return l->type == CORE_CU_MEM_LOCATION_TYPE_DEVICE && fake_device_valid(l->id);
}

core_cu_result cuMemCreate(core_cu_mem_handle *handle, size_t size,
                           const struct core_cu_mem_alloc_prop *prop, unsigned long long flags)
{
    core_cu_result rc = fake_ready();
    char name[64];
    void *p;
    int fd;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (handle == NULL || prop == NULL || flags != 0 || size == 0 ||
        size % fake_granularity() != 0 || prop->type != CORE_CU_MEM_ALLOCATION_TYPE_PINNED ||
        !fake_location_valid(&prop->location))
        return CORE_CU_ERROR_INVALID_VALUE;
    if ((prop->requested_handle_types & ~CORE_CU_MEM_HANDLE_TYPE_POSIX_FD) != 0)
        return FAKE_CU_ERROR_NOT_SUPPORTED;
    snprintf(name, sizeof(name), FAKE_VMM_NAME "%d:%d", prop->location.id,
             prop->requested_handle_types);
    fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    p = ftruncate(fd, (off_t)size) == 0
                ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                : MAP_FAILED;
    if (p == MAP_FAILED) {
        close(fd);
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    }
    memset(p, FAKE_CUDA_POISON, size); /* new memory is not zeroed */
    munmap(p, size);
    pthread_mutex_lock(&fake_lock);
    *handle = (core_cu_mem_handle)(uintptr_t)fake_alloc_new(fd, size, prop->location.id,
                                                            prop->requested_handle_types);
    pthread_mutex_unlock(&fake_lock);
    if (*handle == 0) {
        close(fd);
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    }
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemRelease(core_cu_mem_handle handle)
{
    core_cu_result rc = fake_ready();
    struct fake_vmm_alloc *a;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    pthread_mutex_lock(&fake_lock);
    a = fake_alloc_of(handle);
    if (a != NULL)
        fake_alloc_put(a);
    pthread_mutex_unlock(&fake_lock);
    return a != NULL ? CORE_CU_SUCCESS : CORE_CU_ERROR_INVALID_VALUE;
}

core_cu_result cuMemAddressReserve(core_cu_deviceptr *ptr, size_t size, size_t alignment,
                                   core_cu_deviceptr addr, unsigned long long flags)
{
    core_cu_result rc = fake_ready();
    struct fake_vmm_range *r;
    uintptr_t start, end;
    size_t align = alignment != 0 ? alignment : fake_granularity();
    uint8_t *p;

    (void)addr; /* a hint the fake does not follow */
    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (ptr == NULL || flags != 0 || size == 0 || size % fake_granularity() != 0 ||
        (align & (align - 1)) != 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    p = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    /* Aligned: the slack before and after is given back. */
    start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
    end = (uintptr_t)p + size + align;
    if (start > (uintptr_t)p)
        munmap(p, start - (uintptr_t)p);
    if (end > start + size)
        munmap((void *)(start + size), end - (start + size));
    r = calloc(1, sizeof(*r));
    if (r == NULL) {
        munmap((void *)start, size);
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    }
    r->start = start;
    r->size = size;
    pthread_mutex_lock(&fake_lock);
    r->next = fake_ranges;
    fake_ranges = r;
    pthread_mutex_unlock(&fake_lock);
    *ptr = (core_cu_deviceptr)start;
    return CORE_CU_SUCCESS;
}

/* The range must be one reservation, and nothing may be mapped in it any more. */
core_cu_result cuMemAddressFree(core_cu_deviceptr ptr, size_t size)
{
    core_cu_result rc = fake_ready();
    struct fake_vmm_range *gone = NULL;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    pthread_mutex_lock(&fake_lock);
    for (struct fake_vmm_range **link = &fake_ranges; *link != NULL; link = &(*link)->next) {
        struct fake_vmm_range *r = *link;

        if (r->start == (uintptr_t)ptr && r->size == size) {
            if (fake_mem_overlap(r->start, r->size) == NULL) {
                *link = r->next;
                gone = r;
            }
            break;
        }
    }
    pthread_mutex_unlock(&fake_lock);
    if (gone == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    munmap((void *)gone->start, gone->size);
    free(gone);
    return CORE_CU_SUCCESS;
}

core_cu_result cuMemMap(core_cu_deviceptr ptr, size_t size, size_t offset,
                        core_cu_mem_handle handle, unsigned long long flags)
{
    core_cu_result rc = fake_ready();
    size_t g = fake_granularity();
    struct fake_vmm_alloc *a;
    struct fake_mem *m = calloc(1, sizeof(*m));

    if (rc == CORE_CU_SUCCESS && m == NULL)
        rc = CORE_CU_ERROR_OUT_OF_MEMORY;
    if (rc != CORE_CU_SUCCESS) {
        free(m);
        return rc;
    }
    pthread_mutex_lock(&fake_lock);
    a = fake_alloc_of(handle);
    if (a == NULL || offset != 0 || flags != 0 || size == 0 || size > a->size || ptr % g != 0 ||
        size % g != 0 || fake_range_find((uintptr_t)ptr, size) == NULL)
        rc = CORE_CU_ERROR_INVALID_VALUE;
    else if (fake_mem_overlap((uintptr_t)ptr, size) != NULL)
        rc = FAKE_CU_ERROR_ALREADY_MAPPED;
    else if (mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, a->fd, 0) ==
             MAP_FAILED)
        rc = CORE_CU_ERROR_OUT_OF_MEMORY;
    if (rc == CORE_CU_SUCCESS) {
        *m = (struct fake_mem){.start = (uintptr_t)ptr,
                               .size = size,
                               .kind = FAKE_MEM_VMM,
                               .ordinal = a->ordinal,
                               .no_access = true,
                               .allocation = a};
        a->refs++;
        fake_mem_link(m);
    }
    pthread_mutex_unlock(&fake_lock);
    if (rc != CORE_CU_SUCCESS)
        free(m);
    return rc;
}

/* Every mapping inside [ptr, ptr + size) goes; the reservation stays (PROT_NONE again). */
core_cu_result cuMemUnmap(core_cu_deviceptr ptr, size_t size)
{
    core_cu_result rc = fake_ready();
    uintptr_t start = (uintptr_t)ptr;
    struct fake_mem *m;
    int unmapped = 0;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    pthread_mutex_lock(&fake_lock);
    if (fake_range_find(start, size) == NULL) {
        pthread_mutex_unlock(&fake_lock);
        return CORE_CU_ERROR_INVALID_VALUE;
    }
    while ((m = fake_mem_overlap(start, size)) != NULL && m->kind == FAKE_MEM_VMM &&
           m->start >= start && m->start + m->size <= start + size) {
        mmap((void *)m->start, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        fake_mem_unlink(m);
        fake_alloc_put(m->allocation);
        free(m);
        unmapped++;
    }
    pthread_mutex_unlock(&fake_lock);
    return unmapped > 0 && m == NULL ? CORE_CU_SUCCESS : FAKE_CU_ERROR_NOT_MAPPED;
}

core_cu_result cuMemSetAccess(core_cu_deviceptr ptr, size_t size,
                              const struct core_cu_mem_access_desc *desc, size_t count)
{
    core_cu_result rc = fake_ready();
    uintptr_t at = (uintptr_t)ptr, end = (uintptr_t)ptr + size;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (desc == NULL || count == 0 || size == 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if (!fake_location_valid(&desc[i].location) ||
            desc[i].flags != CORE_CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CORE_CU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    /* The range must be mapped throughout, by mappings that lie inside it. */
    while (at < end && rc == CORE_CU_SUCCESS) {
        struct fake_mem *m = fake_mem_find(at, 1);

        if (m == NULL || m->kind != FAKE_MEM_VMM || m->start < (uintptr_t)ptr ||
            m->start + m->size > end)
            rc = FAKE_CU_ERROR_NOT_MAPPED;
        else
            at = m->start + m->size;
    }
    for (at = (uintptr_t)ptr; at < end && rc == CORE_CU_SUCCESS;) {
        struct fake_mem *m = fake_mem_find(at, 1);

        mprotect((void *)m->start, m->size, PROT_READ | PROT_WRITE);
        m->no_access = false;
        at = m->start + m->size;
    }
    pthread_mutex_unlock(&fake_lock);
    return rc;
}

core_cu_result cuMemRetainAllocationHandle(core_cu_mem_handle *handle, void *addr)
{
    core_cu_result rc = fake_ready();
    struct fake_mem *m;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (handle == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    m = fake_mem_find((uintptr_t)addr, 1);
    if (m != NULL && m->kind == FAKE_MEM_VMM) {
        struct fake_vmm_alloc *a = m->allocation;

        a->refs++;
        *handle = (core_cu_mem_handle)(uintptr_t)a;
    } else {
        rc = CORE_CU_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&fake_lock);
    return rc;
}

core_cu_result cuMemGetAllocationPropertiesFromHandle(struct core_cu_mem_alloc_prop *prop,
                                                      core_cu_mem_handle handle)
{
    core_cu_result rc = fake_ready();
    struct fake_vmm_alloc *a;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (prop == NULL)
        return CORE_CU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    a = fake_alloc_of(handle);
    if (a != NULL) {
        memset(prop, 0, sizeof(*prop));
        prop->type = CORE_CU_MEM_ALLOCATION_TYPE_PINNED;
        prop->requested_handle_types = a->handle_types;
        prop->location.type = CORE_CU_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = a->ordinal;
    }
    pthread_mutex_unlock(&fake_lock);
    return a != NULL ? CORE_CU_SUCCESS : CORE_CU_ERROR_INVALID_VALUE;
}

core_cu_result cuMemGetAllocationGranularity(size_t *granularity,
                                             const struct core_cu_mem_alloc_prop *prop, int option)
{
    core_cu_result rc = fake_ready();

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (granularity == NULL || prop == NULL || (option != 0 && option != 1) ||
        !fake_location_valid(&prop->location))
        return CORE_CU_ERROR_INVALID_VALUE;
    *granularity = fake_granularity();
    return CORE_CU_SUCCESS;
}

/* A new descriptor of the memfd (without close-on-exec, as a driver's may come). */
core_cu_result cuMemExportToShareableHandle(void *shareable, core_cu_mem_handle handle, int type,
                                            unsigned long long flags)
{
    core_cu_result rc = fake_ready();
    struct fake_vmm_alloc *a;
    int fd = -1;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (shareable == NULL || flags != 0 || type != CORE_CU_MEM_HANDLE_TYPE_POSIX_FD)
        return CORE_CU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    a = fake_alloc_of(handle);
    if (a == NULL)
        rc = CORE_CU_ERROR_INVALID_VALUE;
    else if (!(a->handle_types & CORE_CU_MEM_HANDLE_TYPE_POSIX_FD))
        rc = FAKE_CU_ERROR_NOT_SUPPORTED;
    else if ((fd = dup(a->fd)) < 0)
        rc = CORE_CU_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&fake_lock);
    if (rc == CORE_CU_SUCCESS)
        *(int *)shareable = fd;
    return rc;
}

/* The descriptor is not taken: the caller closes it. */
core_cu_result cuMemImportFromShareableHandle(core_cu_mem_handle *handle, void *os_handle, int type)
{
    core_cu_result rc = fake_ready();
    int fd = (int)(intptr_t)os_handle, ordinal = -1, types = 0, mine;
    char path[64], target[128];
    struct stat st;
    ssize_t n;

    if (rc != CORE_CU_SUCCESS)
        return rc;
    if (handle == NULL || type != CORE_CU_MEM_HANDLE_TYPE_POSIX_FD)
        return CORE_CU_ERROR_INVALID_VALUE;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    target[n] = '\0';
    if (strncmp(target, "/memfd:" FAKE_VMM_NAME, strlen("/memfd:" FAKE_VMM_NAME)) != 0 ||
        sscanf(target + strlen("/memfd:" FAKE_VMM_NAME), "%d:%d", &ordinal, &types) != 2 ||
        !fake_device_valid(ordinal) || fstat(fd, &st) != 0 || st.st_size <= 0)
        return CORE_CU_ERROR_INVALID_VALUE;
    mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0)
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&fake_lock);
    *handle =
            (core_cu_mem_handle)(uintptr_t)fake_alloc_new(mine, (size_t)st.st_size, ordinal, types);
    pthread_mutex_unlock(&fake_lock);
    if (*handle == 0) {
        close(mine);
        return CORE_CU_ERROR_OUT_OF_MEMORY;
    }
    return CORE_CU_SUCCESS;
}

void fake_cuda_vmm_counts(int *allocations, int *mappings)
{
    int a = 0, m = 0;

    pthread_mutex_lock(&fake_lock);
    for (struct fake_vmm_alloc *x = fake_allocs; x != NULL; x = x->next)
        a++;
    m = fake_mem_count(FAKE_MEM_VMM);
    pthread_mutex_unlock(&fake_lock);
    *allocations = a;
    *mappings = m;
}
