/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the device reaches memory: host memory directly, GPU memory through
 * the CUDA driver.
 *
 * GPU copies never use the legacy default stream. The plain cuMemcpyDtoH and
 * cuMemcpyHtoD run on it, and it waits for every kernel launched on it: a
 * kernel that spins until a CQE appears in GPU memory would wait for the
 * device, and the device's copy of that CQE for the kernel, forever. Every
 * copy here is issued on a stream made with CORE_CU_STREAM_NON_BLOCKING
 * (which does not synchronise with the legacy default stream) and waited for
 * with cuStreamSynchronize, so it is complete on return (a CQE body before
 * its owner byte) and runs while any kernel runs.
 *
 * Streams belong to a context and are pooled per context: a copy takes an
 * idle stream of the thread's current context, or makes one, and gives it
 * back afterwards. The pool's lock is held only to take and give back, never
 * during a copy, so threads copy concurrently; the pool holds at most as many
 * streams per context as copies ever ran at once, and they live as long as
 * the process (a thread's exit leaks nothing).
 *
 * Application host memory is reached through the kernel (mem.h says why):
 * process_vm_writev/readv on our own pid for copies, MADV_POPULATE_* and the
 * memory map (PROCMAP_QUERY, /proc/self/maps) for checks. Each facility is
 * probed on first use and a missing one is replaced by the next best.
 */
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "core/cuda_driver.h"

/* CUDA driver errors that say a stream or its context no longer exists. */
#define MEM_CU_ERROR_INVALID_CONTEXT      201
#define MEM_CU_ERROR_CONTEXT_IS_DESTROYED 709
#define MEM_CU_ERROR_INVALID_HANDLE       400

struct mem_stream {
    core_cu_context ctx;
    core_cu_stream stream;
    struct mem_stream *next;
};

static pthread_mutex_t mem_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_stream *mem_pool; /* idle streams, any context */

/* The CUDA driver, or NULL when there is none (then no address is GPU memory). */
static const struct core_cuda_ops *mem_cuda(void)
{
    const struct core_cuda_ops *cuda = NULL;

    if (core_cuda_unavailable_reason() != NULL)
        return NULL;
    core_cuda_get(&cuda);
    return cuda;
}

bool emu_mem_is_gpu(uintptr_t addr)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    unsigned int type = 0;

    if (cuda == NULL)
        return false;
    if (cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS)
        return false;
    return type == CORE_CU_MEMORYTYPE_DEVICE;
}

/*
 * The context copies of addr use in this thread: the current one, or, in a
 * thread with none (the device's own threads), the primary context of the
 * GPU that owns addr, made current. NULL when there is none to be had.
 */
static core_cu_context mem_gpu_bind_context(const struct core_cuda_ops *cuda, uintptr_t addr)
{
    core_cu_context ctx = NULL;
    core_cu_device dev;
    int ordinal = 0;

    if (cuda->cuCtxGetCurrent(&ctx) == CORE_CU_SUCCESS && ctx != NULL)
        return ctx;
    ctx = NULL;
    if (cuda->cuPointerGetAttribute(&ordinal, CORE_CU_POINTER_ATTR_DEVICE_ORDINAL,
                                    (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGet(&dev, ordinal) != CORE_CU_SUCCESS ||
        cuda->cuDevicePrimaryCtxRetain(&ctx, dev) != CORE_CU_SUCCESS || ctx == NULL)
        return NULL;
    if (cuda->cuCtxSetCurrent(ctx) != CORE_CU_SUCCESS)
        return NULL;
    return ctx;
}

/* An idle non-blocking stream of ctx (ctx current in this thread), taken from the pool or new. */
static struct mem_stream *mem_stream_take(const struct core_cuda_ops *cuda, core_cu_context ctx)
{
    struct mem_stream *s, **pp;
    core_cu_result rc;

    pthread_mutex_lock(&mem_pool_lock);
    for (pp = &mem_pool; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->ctx == ctx) {
            s = *pp;
            *pp = s->next;
            pthread_mutex_unlock(&mem_pool_lock);
            return s;
        }
    }
    pthread_mutex_unlock(&mem_pool_lock);
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    rc = cuda->cuStreamCreate(&s->stream, CORE_CU_STREAM_NON_BLOCKING);
    if (rc != CORE_CU_SUCCESS) {
        EMU_LOG_ERR("cannot create a CUDA stream for GPU memory copies: CUDA error %d", rc);
        free(s);
        return NULL;
    }
    s->ctx = ctx;
    return s;
}

static void mem_stream_give_back(struct mem_stream *s)
{
    pthread_mutex_lock(&mem_pool_lock);
    s->next = mem_pool;
    mem_pool = s;
    pthread_mutex_unlock(&mem_pool_lock);
}

/*
 * A stream whose copy failed is not reused. It is destroyed, unless the
 * error says that it or its context is gone already (a primary context reset
 * under us): then the handle is dropped as it is.
 */
static void mem_stream_drop(const struct core_cuda_ops *cuda, struct mem_stream *s,
                            core_cu_result why)
{
    if (why != MEM_CU_ERROR_INVALID_CONTEXT && why != MEM_CU_ERROR_CONTEXT_IS_DESTROYED &&
        why != MEM_CU_ERROR_INVALID_HANDLE)
        cuda->cuStreamDestroy(s->stream);
    free(s);
}

enum mem_copy_kind { MEM_TO_HOST, MEM_TO_GPU, MEM_GPU_TO_GPU };

/* One copy: to or from GPU address addr; other: the host or (GPU to GPU) source address. */
struct mem_op {
    uintptr_t addr;
    uintptr_t other;
    size_t len;
};

/*
 * Copies on stream s, in order (each one's bytes are in place before the
 * next one starts: stream order), all complete on return: one wait.
 */
static core_cu_result mem_stream_copy(const struct core_cuda_ops *cuda, struct mem_stream *s,
                                      enum mem_copy_kind kind, const struct mem_op *ops,
                                      unsigned int n)
{
    core_cu_result rc = CORE_CU_SUCCESS;

    for (unsigned int i = 0; i < n && rc == CORE_CU_SUCCESS; i++) {
        const struct mem_op *o = &ops[i];

        if (kind == MEM_TO_GPU)
            rc = cuda->cuMemcpyHtoDAsync((core_cu_deviceptr)o->addr, (const void *)o->other, o->len,
                                         s->stream);
        else if (kind == MEM_TO_HOST)
            rc = cuda->cuMemcpyDtoHAsync((void *)o->other, (core_cu_deviceptr)o->addr, o->len,
                                         s->stream);
        else
            rc = cuda->cuMemcpyDtoDAsync((core_cu_deviceptr)o->addr, (core_cu_deviceptr)o->other,
                                         o->len, s->stream);
    }
    if (rc != CORE_CU_SUCCESS)
        return rc;
    return cuda->cuStreamSynchronize(s->stream);
}

bool emu_mem_gpu_bind(uintptr_t addr)
{
    const struct core_cuda_ops *cuda = mem_cuda();

    return cuda != NULL && mem_gpu_bind_context(cuda, addr) != NULL;
}

/* The copies, in order, in the context of the first one's GPU address; errno-style. */
static int mem_gpu_copy(enum mem_copy_kind kind, const struct mem_op *ops, unsigned int n)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    core_cu_context ctx;
    core_cu_result rc = 0;

    if (cuda == NULL)
        return ENODEV;
    if (n == 0)
        return 0;
    ctx = mem_gpu_bind_context(cuda, ops[0].addr);
    if (ctx == NULL) {
        EMU_LOG_ERR("GPU memory copy of %zu bytes at 0x%lx: no CUDA context for it", ops[0].len,
                    (unsigned long)ops[0].addr);
        return EIO;
    }
    /* A second try on a new stream: a pooled one may have died with a reset context. */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct mem_stream *s = mem_stream_take(cuda, ctx);

        if (s == NULL)
            return EIO;
        rc = mem_stream_copy(cuda, s, kind, ops, n);
        if (rc == CORE_CU_SUCCESS) {
            mem_stream_give_back(s);
            return 0;
        }
        mem_stream_drop(cuda, s, rc);
    }
    EMU_LOG_ERR("GPU memory copy of %zu bytes at 0x%lx (%u in order) failed: CUDA error %d",
                ops[0].len, (unsigned long)ops[0].addr, n, rc);
    return EIO;
}

/* One copy of len bytes (0: nothing to do). */
static int mem_gpu_copy1(enum mem_copy_kind kind, uintptr_t addr, uintptr_t other, size_t len)
{
    const struct mem_op op = {addr, other, len};

    return len == 0 ? 0 : mem_gpu_copy(kind, &op, 1);
}

int emu_mem_read(bool gpu, uintptr_t addr, void *dst, size_t len)
{
    if (!gpu) {
        memcpy(dst, (const void *)addr, len);
        return 0;
    }
    return mem_gpu_copy1(MEM_TO_HOST, addr, (uintptr_t)dst, len);
}

int emu_mem_write(bool gpu, uintptr_t addr, const void *src, size_t len)
{
    if (!gpu) {
        memcpy((void *)addr, src, len);
        return 0;
    }
    return mem_gpu_copy1(MEM_TO_GPU, addr, (uintptr_t)src, len);
}

int emu_mem_gpu_write_seq(const struct emu_mem_span *spans, unsigned int n)
{
    struct mem_op ops[EMU_MEM_SEQ_MAX];

    if (n > EMU_MEM_SEQ_MAX)
        return EINVAL;
    for (unsigned int i = 0; i < n; i++)
        ops[i] = (struct mem_op){spans[i].addr, (uintptr_t)spans[i].src, spans[i].len};
    return mem_gpu_copy(MEM_TO_GPU, ops, n);
}

/* The copies of c as one ordered batch of kind (at most 64 at once on the stack). */
static int mem_gpu_many(enum mem_copy_kind kind, const struct emu_mem_copy *c, unsigned int n)
{
    struct mem_op stack_ops[64] = {{0}}, *ops = stack_ops;
    int err;

    if (n == 0)
        return 0;
    if (n > 64 && (ops = malloc(n * sizeof(*ops))) == NULL)
        return ENOMEM;
    for (unsigned int i = 0; i < n; i++)
        ops[i] = (struct mem_op){c[i].gpu, (uintptr_t)c[i].host, c[i].len};
    err = mem_gpu_copy(kind, ops, n);
    if (ops != stack_ops)
        free(ops);
    return err;
}

int emu_mem_gpu_write_many(const struct emu_mem_copy *c, unsigned int n)
{
    return mem_gpu_many(MEM_TO_GPU, c, n);
}

int emu_mem_gpu_read_many(const struct emu_mem_copy *c, unsigned int n)
{
    return mem_gpu_many(MEM_TO_HOST, c, n);
}

int emu_mem_gpu_copy(uintptr_t dst, uintptr_t src, size_t len)
{
    return mem_gpu_copy1(MEM_GPU_TO_GPU, dst, src, len);
}

/* Issues lane i's pending copy; false when it failed (logged, the lane's stream then dropped). */
static bool mem_defer_issue(const struct core_cuda_ops *cuda, struct emu_mem_defer *d,
                            unsigned int i)
{
    core_cu_result rc;

    if (d->lane[i].len == 0 || d->lane[i].s == NULL)
        return true;
    rc = cuda->cuMemcpyDtoDAsync((core_cu_deviceptr)d->lane[i].dst,
                                 (core_cu_deviceptr)d->lane[i].src, d->lane[i].len,
                                 d->lane[i].s->stream);
    d->lane[i].len = 0;
    if (rc == CORE_CU_SUCCESS)
        return true;
    EMU_LOG_ERR("GPU to GPU copy into 0x%lx could not be issued: CUDA error %d",
                (unsigned long)d->lane[i].dst, rc);
    mem_stream_drop(cuda, d->lane[i].s, rc);
    d->lane[i].s = NULL;
    d->failed = true;
    return false;
}

int emu_mem_gpu_copy_defer(struct emu_mem_defer *d, uintptr_t dst, uintptr_t src, size_t len)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    core_cu_context ctx;
    unsigned int i;

    if (len == 0)
        return 0;
    if (cuda == NULL || (ctx = mem_gpu_bind_context(cuda, dst)) == NULL)
        return EIO;
    for (i = 0; i < d->n; i++)
        if (d->lane[i].s != NULL && d->lane[i].s->ctx == ctx)
            break;
    if (i == d->n) {
        if (d->n == EMU_MEM_DEFER_LANES && emu_mem_gpu_settle(d) != 0)
            return EIO;
        i = d->n;
        d->lane[i].s = mem_stream_take(cuda, ctx);
        if (d->lane[i].s == NULL)
            return EIO;
        d->lane[i].len = 0;
        d->n++;
    }
    if (d->lane[i].len != 0 && d->lane[i].dst + d->lane[i].len == dst &&
        d->lane[i].src + d->lane[i].len == src) {
        d->lane[i].len += len;
        return 0;
    }
    if (!mem_defer_issue(cuda, d, i))
        return EIO;
    d->lane[i].dst = dst;
    d->lane[i].src = src;
    d->lane[i].len = len;
    return 0;
}

int emu_mem_gpu_settle(struct emu_mem_defer *d)
{
    const struct core_cuda_ops *cuda = mem_cuda();
    bool failed = d->failed;

    for (unsigned int i = 0; i < d->n && cuda != NULL; i++) {
        core_cu_result rc;

        if (d->lane[i].s == NULL)
            continue; /* its issue failed: d->failed says so */
        if (!mem_defer_issue(cuda, d, i)) {
            failed = true;
            continue;
        }
        rc = cuda->cuStreamSynchronize(d->lane[i].s->stream);
        if (rc == CORE_CU_SUCCESS) {
            mem_stream_give_back(d->lane[i].s);
        } else {
            EMU_LOG_ERR("GPU to GPU copies failed: CUDA error %d", rc);
            mem_stream_drop(cuda, d->lane[i].s, rc);
            failed = true;
        }
        d->lane[i].s = NULL;
    }
    d->n = 0;
    d->failed = false;
    return failed ? EIO : 0;
}

/* ---- application host memory ---- */

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ  22 /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

/* PROCMAP_QUERY (Linux 6.11, <linux/fs.h>): the mapping that covers an address. */
struct mem_procmap_query {
    __u64 size;
    __u64 query_flags;
    __u64 query_addr;
    __u64 vma_start;
    __u64 vma_end;
    __u64 vma_flags;
    __u64 vma_page_size;
    __u64 vma_offset;
    __u64 inode;
    __u32 dev_major;
    __u32 dev_minor;
    __u32 vma_name_size;
    __u32 build_id_size;
    __u64 vma_name_addr;
    __u64 build_id_addr;
};
#define MEM_PROCMAP_QUERY    _IOWR('f', 17, struct mem_procmap_query)
#define MEM_PROCMAP_READABLE 0x01u
#define MEM_PROCMAP_WRITABLE 0x02u

/* Ranges up to this size are checked by populating them, larger ones through the map. */
#define MEM_POPULATE_MAX    (64u << 10)
/* Pages per mincore() call: a bounded vector on the stack. */
#define MEM_MINCORE_CHUNK   4096u
#define MEM_MAPS_LINE_BYTES 4096u

/* Whether a facility works here: 0 not known yet, 1 yes, -1 no. */
static int mem_pvm_state, mem_populate_state, mem_procmap_state;

/*
 * The /proc/self/maps that PROCMAP_QUERY goes to, and the process it was
 * opened in (a fork's child inherits the parent's and must open its own):
 * pid << 32 | fd, 0 for none. One word, so no lock a fork could inherit held.
 */
static uint64_t mem_procmap_file_word;

static uintptr_t mem_page_size(void)
{
    static uintptr_t page;
    uintptr_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);

    if (p == 0) {
        long v = sysconf(_SC_PAGESIZE);

        p = v > 0 ? (uintptr_t)v : 4096u;
        __atomic_store_n(&page, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* [start, end) of a range, page-aligned start; false when it wraps. */
static bool mem_range(const void *addr, size_t len, uintptr_t *start, uintptr_t *end)
{
    uintptr_t a = (uintptr_t)addr;

    if (a + len < a)
        return false;
    *start = a & ~(mem_page_size() - 1);
    *end = a + len;
    return true;
}

/* mincore() in bounded chunks: 0 when every page is mapped (whatever its protection). */
static int mem_mincore(uintptr_t start, uintptr_t end)
{
    unsigned char vec[MEM_MINCORE_CHUNK];
    uintptr_t chunk = MEM_MINCORE_CHUNK * mem_page_size();

    while (start < end) {
        uintptr_t n = end - start < chunk ? end - start : chunk;

        if (mincore((void *)start, n, vec) != 0) {
            if (errno == EAGAIN)
                continue;
            return EFAULT;
        }
        start += (n + mem_page_size() - 1) & ~(mem_page_size() - 1);
    }
    return 0;
}

/* MADV_POPULATE_*: 0, EFAULT, or ENOSYS when the kernel has no such advice. */
static int mem_populate(uintptr_t start, uintptr_t end, bool write)
{
    int state = __atomic_load_n(&mem_populate_state, __ATOMIC_RELAXED);
    int advice = write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ;

    if (state < 0)
        return ENOSYS;
    if (state == 0) {
        /* EINVAL means either no such advice or a bad range: ask about a page we know is good. */
        static int probe;
        uintptr_t page = (uintptr_t)&probe & ~(mem_page_size() - 1);

        state = madvise((void *)page, mem_page_size(), MADV_POPULATE_WRITE) == 0 ? 1 : -1;
        __atomic_store_n(&mem_populate_state, state, __ATOMIC_RELAXED);
        if (state < 0) {
            EMU_LOG_WARN("MADV_POPULATE_WRITE is not available (Linux 5.14+): checks of "
                         "application memory see only whether pages are mapped");
            return ENOSYS;
        }
    }
    while (madvise((void *)start, end - start, advice) != 0)
        if (errno != EINTR)
            return EFAULT; /* ENOMEM unmapped, EINVAL protection, EFAULT would SIGBUS */
    return 0;
}

/* This process's /proc/self/maps, opened once per process; -1 when it cannot be opened. */
static int mem_procmap_file(void)
{
    uint64_t me = (uint64_t)(uint32_t)getpid() << 32;
    uint64_t old = __atomic_load_n(&mem_procmap_file_word, __ATOMIC_ACQUIRE), mine;
    int fd;

    if (old != 0 && (old & ~0xffffffffull) == me)
        return (int)(uint32_t)old;
    fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    mine = me | (uint32_t)fd;
    if (!__atomic_compare_exchange_n(&mem_procmap_file_word, &old, mine, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        /* Another thread of this process opened one first: use it. */
        close(fd);
        return (int)(uint32_t)old;
    }
    if (old != 0)
        close((int)(uint32_t)old); /* inherited across fork: it describes the parent */
    return fd;
}

/* Walks the mappings over [start, end) with PROCMAP_QUERY: 0, EFAULT, or ENOSYS (no such ioctl). */
static int mem_procmap(uintptr_t start, uintptr_t end, bool write)
{
    uint64_t need = MEM_PROCMAP_READABLE | (write ? MEM_PROCMAP_WRITABLE : 0);
    int fd;

    if (__atomic_load_n(&mem_procmap_state, __ATOMIC_RELAXED) < 0 || (fd = mem_procmap_file()) < 0)
        return ENOSYS;
    while (start < end) {
        struct mem_procmap_query q;

        memset(&q, 0, sizeof(q));
        q.size = sizeof(q);
        q.query_addr = start;
        if (ioctl(fd, MEM_PROCMAP_QUERY, &q) != 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOENT) /* no mapping covers start */
                return EFAULT;
            __atomic_store_n(&mem_procmap_state, -1, __ATOMIC_RELAXED);
            return ENOSYS;
        }
        if (__atomic_load_n(&mem_procmap_state, __ATOMIC_RELAXED) == 0)
            __atomic_store_n(&mem_procmap_state, 1, __ATOMIC_RELAXED);
        if ((q.vma_flags & need) != need || q.vma_end <= start)
            return EFAULT;
        start = (uintptr_t)q.vma_end;
    }
    return 0;
}

/*
 * One line of /proc/self/maps ("start-end perms ...", lines in address
 * order) against the part of the range not covered yet, [*at, end): 1 go on,
 * 0 covered, EFAULT a gap or a protection that does not allow the access.
 */
static int mem_maps_line(const char *line, uintptr_t *at, uintptr_t end, bool write)
{
    char *p;
    unsigned long long lo = strtoull(line, &p, 16), hi;

    if (*p != '-')
        return 1;
    hi = strtoull(p + 1, &p, 16);
    if (*p != ' ' || hi <= *at)
        return 1;
    if (lo > *at || p[1] != 'r' || (write && p[2] != 'w'))
        return EFAULT;
    *at = (uintptr_t)hi;
    return *at >= end ? 0 : 1;
}

/* The range against /proc/self/maps: 0, EFAULT, or ENOSYS when it cannot be read. */
static int mem_maps(uintptr_t start, uintptr_t end, bool write)
{
    char buf[MEM_MAPS_LINE_BYTES + 1];
    size_t have = 0;
    bool tail = false; /* the rest of a line longer than buf is being skipped */
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), r = EFAULT;

    if (fd < 0)
        return ENOSYS;
    for (;;) {
        ssize_t n = read(fd, buf + have, MEM_MAPS_LINE_BYTES - have);
        char *line = buf, *nl;

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        while ((nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
            *nl = '\0';
            if (!tail && (r = mem_maps_line(line, &start, end, write)) != 1)
                goto out;
            tail = false;
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == MEM_MAPS_LINE_BYTES) {
            /* A line longer than the buffer: its addresses and protection are at its start. */
            if (!tail && (r = mem_maps_line(buf, &start, end, write)) != 1)
                goto out;
            tail = true;
            have = 0;
        }
    }
    r = EFAULT; /* the end of the map, the range not covered */
out:
    close(fd);
    return r;
}

int emu_mem_host_pinnable(const void *addr, size_t len, bool write)
{
    uintptr_t start, end;
    int r;

    if (len == 0)
        return 0;
    if (!mem_range(addr, len, &start, &end))
        return EFAULT;
    if ((r = mem_procmap(start, end, write)) != ENOSYS)
        return r;
    if ((r = mem_maps(start, end, write)) != ENOSYS)
        return r;
    return mem_mincore(start, end);
}

int emu_mem_host_mapped(const void *addr, size_t len)
{
    uintptr_t start, end;
    int r;

    if (len == 0)
        return 0;
    if (!mem_range(addr, len, &start, &end))
        return EFAULT;
    if (end - start > MEM_POPULATE_MAX && (r = mem_procmap(start, end, false)) != ENOSYS)
        return r;
    if ((r = mem_populate(start, end, false)) != ENOSYS)
        return r;
    return mem_mincore(start, end);
}

int emu_mem_host_writable(void *addr, size_t len)
{
    uintptr_t start, end;
    int r;

    if (len == 0)
        return 0;
    if (!mem_range(addr, len, &start, &end))
        return EFAULT;
    if ((r = mem_populate(start, end, true)) != ENOSYS)
        return r;
    return mem_mincore(start, end);
}

/*
 * process_vm_writev (to_app) or process_vm_readv of len bytes between app
 * and local in this process: 0, EFAULT, or ENOSYS when a seccomp filter or
 * the kernel refuses the calls.
 */
static int mem_pvm(bool to_app, void *app, void *local, size_t len)
{
    pid_t me = getpid(); /* not cached: a fork's child must not copy into its parent */
    size_t done = 0;

    if (__atomic_load_n(&mem_pvm_state, __ATOMIC_RELAXED) < 0)
        return ENOSYS;
    while (done < len) {
        struct iovec l = {(uint8_t *)local + done, len - done};
        struct iovec r = {(uint8_t *)app + done, len - done};
        ssize_t got = to_app ? process_vm_writev(me, &l, 1, &r, 1, 0)
                             : process_vm_readv(me, &l, 1, &r, 1, 0);

        if (got > 0) {
            done += (size_t)got; /* short only at a fault (retried: EFAULT) or past 2 GiB */
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && (errno == ENOSYS || errno == EPERM) && done == 0) {
            if (__atomic_exchange_n(&mem_pvm_state, -1, __ATOMIC_RELAXED) >= 0)
                EMU_LOG_WARN("process_vm_readv/writev on this process are refused (%m): "
                             "application memory is checked, then copied, and an munmap "
                             "racing a copy can crash the program");
            return ENOSYS;
        }
        return EFAULT;
    }
    if (__atomic_load_n(&mem_pvm_state, __ATOMIC_RELAXED) == 0)
        __atomic_store_n(&mem_pvm_state, 1, __ATOMIC_RELAXED);
    return 0;
}

int emu_mem_host_copy_to(void *dst_app, const void *src, size_t len)
{
    int r;

    if (len == 0)
        return 0;
    if ((r = mem_pvm(true, dst_app, (void *)src, len)) != ENOSYS)
        return r;
    if (emu_mem_host_writable(dst_app, len) != 0)
        return EFAULT;
    memcpy(dst_app, src, len);
    return 0;
}

int emu_mem_host_copy_from(void *dst, const void *src_app, size_t len)
{
    int r;

    if (len == 0)
        return 0;
    if ((r = mem_pvm(false, (void *)src_app, dst, len)) != ENOSYS)
        return r;
    if (emu_mem_host_mapped(src_app, len) != 0)
        return EFAULT;
    memcpy(dst, src_app, len);
    return 0;
}
