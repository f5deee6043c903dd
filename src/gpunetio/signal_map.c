/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signal maps (include/doca_gpunetio_signal.h): a table indexed by signal
 * id of the slot each id adds to, with the running total the service keeps
 * (the slot is only ever written, never read back). A slot in host memory
 * (pinned or not) is written with a release store at once; a slot in GPU
 * memory is marked dirty, and the service's flush after each drained batch
 * writes the dirty slots with one synchronous CUDA copy per run of adjacent
 * slots (a batch of signals to an array of slots: one copy, not one each).
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/cuda_driver.h"
#include "core/log.h"
#include "core/sdk.h"
#include "gpunetio_internal.h"
#include "gpunetio_signal.h"

/* Where a slot is, as the service writes it. */
enum signal_slot_kind {
    SIGNAL_SLOT_NONE = 0, /* id not registered */
    SIGNAL_SLOT_HOST,
    SIGNAL_SLOT_GPU,
};

struct signal_entry {
    doca_gpu_verbs_signal_value_t *addr;
    doca_gpu_verbs_signal_value_t total;
    enum signal_slot_kind kind;
    bool dirty; /* a GPU slot whose total is not written yet */
};

struct doca_gpu_verbs_signal_map {
    struct signal_entry *entries; /* DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS of them */
    uint32_t registered;
    core_cu_context ctx; /* the context GPU slots are written through (NULL: none) */
    bool attached;
    uint64_t dropped;
    bool logged_unknown, logged_op, logged_write, logged_copy;
    struct signal_entry **dirty; /* the dirty GPU slots, in the order they became so */
    size_t ndirty, dirty_cap;
    doca_gpu_verbs_signal_value_t *run; /* the totals of one run of adjacent slots */
    size_t run_cap;
};

/*
 * The CUDA driver when it loads (NULL otherwise: every slot is host memory,
 * which needs no driver, so its absence is not logged).
 */
static const struct core_cuda_ops *signal_cuda(void)
{
    const struct core_cuda_ops *cuda = NULL;

    if (core_cuda_unavailable_reason() != NULL)
        return NULL;
    return core_cuda_get(&cuda) == DOCA_SUCCESS ? cuda : NULL;
}

doca_error_t doca_gpu_verbs_signal_map_create(struct doca_gpu_verbs_signal_map **out_map)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_map_create, (out_map), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_cuda_ops *cuda = signal_cuda();
    struct doca_gpu_verbs_signal_map *map;

    if (out_map == NULL) {
        DOCA_LOG_ERR("out_map is NULL: pass where to store the signal map");
        return DOCA_ERROR_INVALID_VALUE;
    }
    map = calloc(1, sizeof(*map));
    if (map != NULL)
        map->entries = calloc(DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS, sizeof(*map->entries));
    if (map == NULL || map->entries == NULL) {
        free(map);
        DOCA_LOG_ERR("out of memory for a signal map of %u ids",
                     (unsigned)DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS);
        return DOCA_ERROR_NO_MEMORY;
    }
    if (cuda != NULL && cuda->cuCtxGetCurrent(&map->ctx) != CORE_CU_SUCCESS)
        map->ctx = NULL;
    *out_map = map;
    return DOCA_SUCCESS;
}

/* Whether addr is GPU memory (device memory of a CUDA context), not host memory. */
static bool signal_slot_is_gpu(const struct core_cuda_ops *cuda, const void *addr)
{
    unsigned int type = 0;

    return cuda != NULL &&
           cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                       (core_cu_deviceptr)(uintptr_t)addr) == CORE_CU_SUCCESS &&
           type == CORE_CU_MEMORYTYPE_DEVICE;
}

/* Copies n values to GPU slots from dst on, through the map's context; false when it failed. */
static bool signal_copy(const struct doca_gpu_verbs_signal_map *map,
                        doca_gpu_verbs_signal_value_t *dst,
                        const doca_gpu_verbs_signal_value_t *src, size_t n)
{
    const struct core_cuda_ops *cuda = signal_cuda();

    return cuda != NULL &&
           (map->ctx == NULL || cuda->cuCtxSetCurrent(map->ctx) == CORE_CU_SUCCESS) &&
           cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)dst, src, n * sizeof(*src)) ==
                   CORE_CU_SUCCESS;
}

/* Writes the entry's total to its slot; false when the copy failed. */
static bool signal_store(const struct doca_gpu_verbs_signal_map *map, struct signal_entry *e)
{
    if (e->kind == SIGNAL_SLOT_HOST) {
        /* Release: what the write with immediate brought is visible before the signal says so. */
        __atomic_store_n(e->addr, e->total, __ATOMIC_RELEASE);
        return true;
    }
    return signal_copy(map, e->addr, &e->total, 1);
}

static doca_error_t signal_check_changeable(const struct doca_gpu_verbs_signal_map *map,
                                            const char *what)
{
    if (map == NULL) {
        DOCA_LOG_ERR("%s: map is NULL: make one with doca_gpu_verbs_signal_map_create()", what);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (map->attached) {
        DOCA_LOG_ERR("%s: the signal map is attached to a service; detach it first "
                     "(doca_gpu_verbs_service_set_signal_map(service, NULL))",
                     what);
        return DOCA_ERROR_IN_USE;
    }
    return DOCA_SUCCESS;
}

/* The id of a registered slot at addr, or -1. */
static int64_t signal_find_slot(const struct doca_gpu_verbs_signal_map *map, const void *addr)
{
    for (uint32_t id = 0; id < DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS && map->registered != 0;
         id++) {
        if (map->entries[id].kind != SIGNAL_SLOT_NONE && map->entries[id].addr == addr)
            return id;
    }
    return -1;
}

doca_error_t doca_gpu_verbs_signal_register(struct doca_gpu_verbs_signal_map *map, uint32_t sig_id,
                                            doca_gpu_verbs_signal_value_t *gpu_addr)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_register, (map, sig_id, gpu_addr),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = signal_check_changeable(map, __func__);
    struct signal_entry *e;

    if (err != DOCA_SUCCESS)
        return err;
    if (gpu_addr == NULL || sig_id >= DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS ||
        ((uintptr_t)gpu_addr % DOCA_GPUNETIO_VERBS_SIGNAL_SLOT_SIZE) != 0) {
        DOCA_LOG_ERR("signal %u at %p: ids are 0..%u and a slot is 8-byte aligned, not NULL",
                     sig_id, (void *)gpu_addr,
                     (unsigned)DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS - 1);
        return DOCA_ERROR_INVALID_VALUE;
    }
    e = &map->entries[sig_id];
    if (e->kind != SIGNAL_SLOT_NONE || signal_find_slot(map, gpu_addr) >= 0) {
        DOCA_LOG_ERR("signal %u at %p: the id or the slot is already registered", sig_id,
                     (void *)gpu_addr);
        return DOCA_ERROR_IN_USE;
    }
    e->addr = gpu_addr;
    e->total = 0;
    e->kind = signal_slot_is_gpu(signal_cuda(), gpu_addr) ? SIGNAL_SLOT_GPU : SIGNAL_SLOT_HOST;
    if (!signal_store(map, e)) {
        e->kind = SIGNAL_SLOT_NONE;
        DOCA_LOG_ERR("signal %u: its GPU slot %p could not be zeroed", sig_id, (void *)gpu_addr);
        return DOCA_ERROR_DRIVER;
    }
    map->registered++;
    if (e->kind == SIGNAL_SLOT_GPU && !map->logged_copy) {
        map->logged_copy = true;
        DOCA_LOG_INFO("signal slots in GPU memory are written with CUDA copies, one per run of "
                      "adjacent slots a drained batch changed (no GDRCopy mapping); slots in "
                      "pinned host memory mapped for the GPU are written with a store");
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_signal_unregister(struct doca_gpu_verbs_signal_map *map,
                                              uint32_t sig_id)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_unregister, (map, sig_id), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = signal_check_changeable(map, __func__);

    if (err != DOCA_SUCCESS)
        return err;
    if (sig_id >= DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS ||
        map->entries[sig_id].kind == SIGNAL_SLOT_NONE) {
        DOCA_LOG_ERR("signal %u is not registered", sig_id);
        return DOCA_ERROR_NOT_FOUND;
    }
    map->entries[sig_id].kind = SIGNAL_SLOT_NONE;
    map->registered--;
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_signal_register_range(struct doca_gpu_verbs_signal_map *map,
                                                  uint32_t first_sig_id, uint32_t num_signals,
                                                  doca_gpu_verbs_signal_value_t *gpu_addr)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_register_range, (map, first_sig_id, num_signals, gpu_addr),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = DOCA_SUCCESS;
    uint32_t done = 0;

    if (map == NULL || gpu_addr == NULL || num_signals == 0 ||
        first_sig_id >= DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS ||
        num_signals > DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS - first_sig_id) {
        DOCA_LOG_ERR("signals %u + %u at %p: the range must be within ids 0..%u, from slots not "
                     "NULL",
                     first_sig_id, num_signals, (void *)gpu_addr,
                     (unsigned)DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS - 1);
        return DOCA_ERROR_INVALID_VALUE;
    }
    while (done < num_signals && err == DOCA_SUCCESS) {
        err = doca_gpu_verbs_signal_register(map, first_sig_id + done, gpu_addr + done);
        done += err == DOCA_SUCCESS;
    }
    while (err != DOCA_SUCCESS && done > 0)
        doca_gpu_verbs_signal_unregister(map, first_sig_id + --done);
    return err;
}

doca_error_t doca_gpu_verbs_signal_reset(struct doca_gpu_verbs_signal_map *map, uint32_t sig_id)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_reset, (map, sig_id), DOCA_ERROR_NOT_SUPPORTED);

    struct signal_entry *e;

    if (map == NULL) {
        DOCA_LOG_ERR("map is NULL: make one with doca_gpu_verbs_signal_map_create()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (sig_id >= DOCA_GPUNETIO_VERBS_SIGNAL_MAX_SIGNALS ||
        map->entries[sig_id].kind == SIGNAL_SLOT_NONE) {
        DOCA_LOG_ERR("signal %u is not registered", sig_id);
        return DOCA_ERROR_NOT_FOUND;
    }
    e = &map->entries[sig_id];
    e->total = 0;
    if (!signal_store(map, e)) {
        DOCA_LOG_ERR("signal %u: its GPU slot %p could not be zeroed", sig_id, (void *)e->addr);
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_gpu_verbs_signal_map_destroy(struct doca_gpu_verbs_signal_map *map)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_signal_map_destroy, (map), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = signal_check_changeable(map, __func__);

    if (err != DOCA_SUCCESS)
        return err;
    if (map->registered != 0) {
        DOCA_LOG_ERR("the signal map still has %u signals registered; unregister them first",
                     map->registered);
        return DOCA_ERROR_BAD_STATE;
    }
    if (map->dropped != 0)
        DOCA_LOG_WARN("the signal map dropped %llu signals over its life",
                      (unsigned long long)map->dropped);
    free(map->entries);
    free(map->dirty);
    free(map->run);
    free(map);
    return DOCA_SUCCESS;
}

doca_error_t gpunetio_signal_attach(struct doca_gpu_verbs_signal_map *map, bool attach)
{
    if (attach && map->attached) {
        DOCA_LOG_ERR("the signal map is already attached to a service: one service at a time");
        return DOCA_ERROR_IN_USE;
    }
    map->attached = attach;
    return DOCA_SUCCESS;
}

/* Whether GPU slot e waits for the next flush (it joins the dirty list); false: no room. */
static bool signal_defer(struct doca_gpu_verbs_signal_map *map, struct signal_entry *e)
{
    struct signal_entry **d;

    if (e->dirty)
        return true;
    d = core_array_room(map->dirty, &map->dirty_cap, map->ndirty, sizeof(*d));
    if (d == NULL)
        return false;
    map->dirty = d;
    map->dirty[map->ndirty++] = e;
    e->dirty = true;
    return true;
}

void gpunetio_signal_apply(struct doca_gpu_verbs_signal_map *map, uint32_t imm)
{
    uint32_t op = (imm >> DOCA_GPUNETIO_VERBS_SIGNAL_IMM_OP_SHIFT) &
                  DOCA_GPUNETIO_VERBS_SIGNAL_IMM_OP_MASK;
    uint32_t id = (imm >> DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_SHIFT) &
                  DOCA_GPUNETIO_VERBS_SIGNAL_IMM_ID_MASK;
    uint32_t val = (imm >> DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_SHIFT) &
                   DOCA_GPUNETIO_VERBS_SIGNAL_IMM_VAL_MASK;
    struct signal_entry *e = &map->entries[id];

    if (op != DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD || e->kind == SIGNAL_SLOT_NONE) {
        map->dropped++;
        if (op != DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD && !map->logged_op)
            DOCA_LOG_ERR("signal %u: operation %u is not ADD; dropping such signals", id, op);
        else if (op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD && !map->logged_unknown)
            DOCA_LOG_ERR("signal %u is not registered in the service's map; dropping such "
                         "signals",
                         id);
        map->logged_op |= op != DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD;
        map->logged_unknown |= op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD;
        return;
    }
    e->total += val;
    if (e->kind == SIGNAL_SLOT_GPU && signal_defer(map, e))
        return;
    if (!signal_store(map, e) && !map->logged_write) {
        map->logged_write = true;
        DOCA_LOG_ERR("signal %u: the CUDA copy into its GPU slot %p failed; its value is lost", id,
                     (void *)e->addr);
    }
}

static int signal_by_addr(const void *a, const void *b)
{
    const struct signal_entry *x = *(struct signal_entry *const *)a;
    const struct signal_entry *y = *(struct signal_entry *const *)b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The totals of dirty[0..n) (adjacent slots) in one copy, or one copy each without room. */
static bool signal_write_run(struct doca_gpu_verbs_signal_map *map, struct signal_entry **dirty,
                             size_t n)
{
    bool ok = true;

    if (n > map->run_cap) {
        doca_gpu_verbs_signal_value_t *r = realloc(map->run, n * sizeof(*r));

        if (r != NULL) {
            map->run = r;
            map->run_cap = n;
        }
    }
    if (n <= map->run_cap) {
        for (size_t i = 0; i < n; i++)
            map->run[i] = dirty[i]->total;
        return signal_copy(map, dirty[0]->addr, map->run, n);
    }
    for (size_t i = 0; i < n; i++)
        ok &= signal_store(map, dirty[i]);
    return ok;
}

void gpunetio_signal_flush(struct doca_gpu_verbs_signal_map *map)
{
    size_t i = 0;

    if (map == NULL || map->ndirty == 0)
        return;
    qsort(map->dirty, map->ndirty, sizeof(*map->dirty), signal_by_addr);
    while (i < map->ndirty) {
        size_t n = 1;

        while (i + n < map->ndirty && map->dirty[i + n]->addr == map->dirty[i + n - 1]->addr + 1)
            n++;
        if (!signal_write_run(map, map->dirty + i, n) && !map->logged_write) {
            map->logged_write = true;
            DOCA_LOG_ERR("signals: the CUDA copy into %zu GPU slots from %p failed; their values "
                         "are lost",
                         n, (void *)map->dirty[i]->addr);
        }
        for (size_t k = 0; k < n; k++)
            map->dirty[i + k]->dirty = false;
        i += n;
    }
    map->ndirty = 0;
}
