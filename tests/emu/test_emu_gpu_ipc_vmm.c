/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's GPU references of CUDA VMM allocations (emu/nic/gpu_ipc.c,
 * gpu_ref.c, gpu_vmm_export.c, gpu_vmm_import.c) on the fake CUDA driver,
 * whose VMM allocations are memfds another process can import: the wire
 * form of both kinds and its refusals; the export (kind, pid, descriptor,
 * offset, room, one descriptor per allocation, held until the last
 * reference is given back) and where there is none (no POSIX fd handle
 * type, cuMemAlloc memory on a driver without IPC handles); the import from
 * a child process (pidfd_getfd), the copy, the bounded table (64 mapped,
 * least recently used unmapped first, never one a deferred copy holds), and
 * the refusals (a reference past its mapping, a descriptor that is no
 * allocation, pidfd_getfd refused: ENOTSUP, one INFO line once).
 *
 * Linked with softmlx5's libibverbs.so.1 (the emu_* calls) and run with
 * DOCA_GPUNETIO_LIBCUDA naming the fake and SOFTMLX5_LOG=6.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/cuda_driver.h"
#include "emu_vmm_test.h"
#include "fake_cuda.h"
#include "nic/gpu_ipc.h"

#define CHILD_ALLOCS (EMU_GPU_IPC_OPEN_MAX + 6)
#define PIECE        64u /* bytes copied from each of the child's allocations */

static const struct core_cuda_ops *cuda;
static struct fake_cuda_hooks fake;
static size_t gran; /* the fake's VMM granularity */

/* The child process and what it exported. */
static pid_t child;
static int child_sock = -1;
static struct emu_gpu_ref child_refs[CHILD_ALLOCS];
static struct emu_gpu_ref child_bad_ref; /* a descriptor of /dev/null */

static uint8_t pattern(unsigned int seed, size_t i)
{
    return (uint8_t)(seed * 31 + i * 7 + (i >> 9));
}

static void fill(uint8_t *p, size_t len, unsigned int seed, size_t from)
{
    for (size_t i = 0; i < len; i++)
        p[i] = pattern(seed, from + i);
}

/* Whether GPU memory [at, at + len) holds seed's pattern from byte `from` on. */
static bool holds(core_cu_deviceptr at, size_t len, unsigned int seed, size_t from)
{
    uint8_t *host = malloc(len);
    bool ok = host != NULL && cuda->cuMemcpyDtoH(host, at, len) == CORE_CU_SUCCESS;

    for (size_t i = 0; ok && i < len; i++) {
        if (host[i] != pattern(seed, from + i)) {
            fprintf(stderr, "byte %zu of %zu: 0x%02x, expected 0x%02x\n", i, len, host[i],
                    pattern(seed, from + i));
            ok = false;
        }
    }
    free(host);
    return ok;
}

static int vmm_mappings(void)
{
    int allocations, mappings;

    fake.vmm_counts(&allocations, &mappings);
    return mappings;
}

static int vmm_allocations(void)
{
    int allocations, mappings;

    fake.vmm_counts(&allocations, &mappings);
    return allocations;
}

/* GPU 0's primary context current in this thread; false when the fake is not there. */
static bool open_cuda(void)
{
    core_cu_context ctx = NULL;
    core_cu_device dev = 0;
    struct core_cu_mem_alloc_prop prop = {.type = CORE_CU_MEM_ALLOCATION_TYPE_PINNED,
                                          .location = {CORE_CU_MEM_LOCATION_TYPE_DEVICE, 0}};

    return core_cuda_get(&cuda) == DOCA_SUCCESS && fake_cuda_hooks(&fake) && emu_vmm_calls(cuda) &&
           cuda->cuDeviceGet(&dev, 0) == CORE_CU_SUCCESS &&
           cuda->cuDevicePrimaryCtxRetain(&ctx, dev) == CORE_CU_SUCCESS &&
           cuda->cuCtxSetCurrent(ctx) == CORE_CU_SUCCESS &&
           cuda->cuMemGetAllocationGranularity(
                   &gran, &prop, CORE_CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CORE_CU_SUCCESS;
}

/* ---- The wire form ------------------------------------------------------------------------- */

static void test_codec_ipc(void **state)
{
    struct emu_gpu_ref ref = {.kind = EMU_GPU_REF_IPC, .offset = 0x0102030405060708ull}, back;
    uint8_t payload[EMU_WIRE_GPU_REF_LEN];
    struct emu_wire_hdr h;
    uint64_t off;

    (void)state;
    for (unsigned int i = 0; i < EMU_GPU_IPC_HANDLE_LEN; i++)
        ref.handle[i] = (uint8_t)(i * 3 + 1);
    emu_wire_hdr_init(&h, EMU_WIRE_WRITE, 1, 2, 3);
    emu_gpu_ref_encode(&ref, &h, payload);
    /* As before kinds: the handle, then the offset; kind 0 in `compare`. */
    assert_int_equal(h.compare, 0);
    assert_memory_equal(payload, ref.handle, EMU_WIRE_GPU_HANDLE_LEN);
    memcpy(&off, payload + EMU_WIRE_GPU_HANDLE_LEN, sizeof(off));
    assert_int_equal(be64toh(off), ref.offset);
    assert_int_equal(emu_gpu_ref_decode(&h, payload, &back), 0);
    assert_int_equal(back.kind, EMU_GPU_REF_IPC);
    assert_memory_equal(back.handle, ref.handle, EMU_GPU_IPC_HANDLE_LEN);
    assert_int_equal(back.offset, ref.offset);
}

static struct emu_gpu_ref vmm_ref(void)
{
    return (struct emu_gpu_ref){
            .kind = EMU_GPU_REF_VMM,
            .vmm = {.pid = 4242, .fd = 17, .serial = 0x1122334455667788ull, .size = 8u << 20},
            .offset = 12345};
}

static void test_codec_vmm(void **state)
{
    struct emu_gpu_ref ref = vmm_ref(), back;
    uint8_t payload[EMU_WIRE_GPU_REF_LEN];
    static const uint8_t expect[EMU_WIRE_GPU_REF_LEN] = {
            0, 0, 0x10, 0x92, 0, 0,    0, 17, 0x11,     0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
            0, 0, 0,    0,    0, 0x80, 0, 0,  [64] = 0, 0,    0,    0,    0,    0,    0x30, 0x39};
    struct emu_wire_hdr h;

    (void)state;
    emu_wire_hdr_init(&h, EMU_WIRE_SEND, 1, 2, 3);
    emu_gpu_ref_encode(&ref, &h, payload);
    assert_int_equal(be64toh(h.compare), EMU_WIRE_GPU_KIND_VMM);
    assert_memory_equal(payload, expect, sizeof(expect));
    assert_int_equal(emu_gpu_ref_decode(&h, payload, &back), 0);
    assert_int_equal(back.kind, EMU_GPU_REF_VMM);
    assert_int_equal(back.vmm.pid, ref.vmm.pid);
    assert_int_equal(back.vmm.fd, ref.vmm.fd);
    assert_int_equal(back.vmm.serial, ref.vmm.serial);
    assert_int_equal(back.vmm.size, ref.vmm.size);
    assert_int_equal(back.offset, ref.offset);
}

static void test_codec_refusals(void **state)
{
    struct emu_gpu_ref ref = vmm_ref(), back;
    uint8_t payload[EMU_WIRE_GPU_REF_LEN], bad[EMU_WIRE_GPU_REF_LEN];
    struct emu_wire_hdr h, other;

    (void)state;
    emu_wire_hdr_init(&h, EMU_WIRE_WRITE, 1, 2, 3);
    emu_gpu_ref_encode(&ref, &h, payload);
    /* A kind this device does not know: the bytes are asked for, the connection stays. */
    other = h;
    other.compare = htobe64(2);
    assert_int_equal(emu_gpu_ref_decode(&other, payload, &back), ENOTSUP);
    /* Reserved bytes set. */
    memcpy(bad, payload, sizeof(bad));
    bad[EMU_WIRE_GPU_HANDLE_LEN - 1] = 1;
    assert_int_equal(emu_gpu_ref_decode(&h, bad, &back), ENOTSUP);
    /* No pid, no descriptor, no size, an offset outside the mapping. */
    for (int c = 0; c < 4; c++) {
        struct emu_gpu_ref r = vmm_ref();

        if (c == 0)
            r.vmm.pid = 0;
        else if (c == 1)
            r.vmm.fd = -1;
        else if (c == 2)
            r.vmm.size = 0;
        else
            r.offset = r.vmm.size;
        emu_gpu_ref_encode(&r, &h, bad);
        assert_int_equal(emu_gpu_ref_decode(&h, bad, &back), ENOTSUP);
    }
}

/* ---- Export -------------------------------------------------------------------------------- */

static void test_export_vmm(void **state)
{
    struct emu_gpu_ref a, b;
    struct emu_vmm_buf buf;
    uint64_t room_a = 0, room_b = 0;
    int allocs;

    (void)state;
    assert_int_equal(emu_vmm_alloc(cuda, 4 * gran, CORE_CU_MEM_HANDLE_TYPE_POSIX_FD, &buf), 0);
    allocs = vmm_allocations();
    assert_int_equal(emu_gpu_ipc_export(buf.va + gran + 100, &a, &room_a), 0);
    assert_int_equal(a.kind, EMU_GPU_REF_VMM);
    assert_int_equal(a.vmm.pid, getpid());
    assert_true(a.vmm.fd >= 0);
    assert_int_equal(fcntl(a.vmm.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    assert_int_equal(a.vmm.size, 4 * gran);
    assert_int_equal(a.offset, gran + 100);
    assert_int_equal(room_a, 3 * gran - 100);
    assert_int_not_equal(a.vmm.serial, 0);
    /* One export per allocation: a second reference shares its descriptor. */
    assert_int_equal(emu_gpu_ipc_export(buf.va, &b, &room_b), 0);
    assert_int_equal(b.vmm.fd, a.vmm.fd);
    assert_int_equal(b.vmm.serial, a.vmm.serial);
    assert_int_equal(b.offset, 0);
    assert_int_equal(room_b, 4 * gran);
    /* The export holds the allocation: freed by the program, it lives on while referenced. */
    emu_vmm_free(cuda, &buf);
    assert_int_equal(vmm_allocations(), allocs);
    emu_gpu_ipc_unexport(&a);
    assert_true(fcntl(b.vmm.fd, F_GETFD) >= 0);
    assert_int_equal(vmm_allocations(), allocs);
    emu_gpu_ipc_unexport(&b);
    assert_int_equal(fcntl(b.vmm.fd, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    assert_int_equal(vmm_allocations(), allocs - 1);
}

/* A new export of the same allocation is a new serial (a peer's table must not confuse them). */
static void test_export_serial_changes(void **state)
{
    struct emu_gpu_ref a, b;
    struct emu_vmm_buf buf;
    uint64_t room;

    (void)state;
    assert_int_equal(emu_vmm_alloc(cuda, gran, CORE_CU_MEM_HANDLE_TYPE_POSIX_FD, &buf), 0);
    assert_int_equal(emu_gpu_ipc_export(buf.va, &a, &room), 0);
    emu_gpu_ipc_unexport(&a);
    assert_int_equal(emu_gpu_ipc_export(buf.va, &b, &room), 0);
    assert_int_not_equal(a.vmm.serial, b.vmm.serial);
    emu_gpu_ipc_unexport(&b);
    emu_vmm_free(cuda, &buf);
}

static void test_export_refused(void **state)
{
    struct emu_vmm_buf buf;
    struct emu_gpu_ref ref;
    core_cu_deviceptr p = 0;
    uint64_t room;

    (void)state;
    /* A VMM allocation made without the POSIX fd handle type: its bytes go instead. */
    assert_int_equal(emu_vmm_alloc(cuda, gran, CORE_CU_MEM_HANDLE_TYPE_NONE, &buf), 0);
    assert_int_equal(emu_gpu_ipc_export(buf.va + 8, &ref, &room), ENOTSUP);
    emu_vmm_free(cuda, &buf);
    /* cuMemAlloc's memory on a driver that gives no IPC handles (the fake): as before. */
    assert_int_equal(cuda->cuMemAlloc(&p, 4096), CORE_CU_SUCCESS);
    assert_int_equal(emu_gpu_ipc_export(p, &ref, &room), ENOTSUP);
    cuda->cuMemFree(p);
    /* Host memory the driver does not know. */
    assert_int_equal(emu_gpu_ipc_export((uintptr_t)&ref, &ref, &room), ENOTSUP);
}

/* ---- Import from the child process --------------------------------------------------------- */

static bool xfer(int sock, void *p, size_t len, bool out)
{
    uint8_t *b = p;

    while (len > 0) {
        ssize_t n = out ? write(sock, b, len) : read(sock, b, len);

        if (n <= 0)
            return false;
        b += n;
        len -= (size_t)n;
    }
    return true;
}

/* The child: CHILD_ALLOCS allocations of one granule, each filled with its pattern, exported. */
static int child_main(int sock)
{
    static struct emu_vmm_buf bufs[CHILD_ALLOCS];
    uint8_t *host = malloc(gran);
    int devnull = open("/dev/null", O_RDONLY);
    uint64_t room;
    char done;

    if (host == NULL || devnull < 0)
        return 2;
    for (unsigned int i = 0; i < CHILD_ALLOCS; i++) {
        fill(host, gran, i, 0);
        if (emu_vmm_alloc(cuda, gran, CORE_CU_MEM_HANDLE_TYPE_POSIX_FD, &bufs[i]) != 0 ||
            cuda->cuMemcpyHtoD(bufs[i].va, host, gran) != CORE_CU_SUCCESS ||
            emu_gpu_ipc_export(bufs[i].va, &child_refs[i], &room) != 0)
            return 2;
    }
    child_bad_ref = child_refs[0];
    child_bad_ref.vmm.fd = devnull;
    child_bad_ref.vmm.serial++;
    if (!xfer(sock, child_refs, sizeof(child_refs), true) ||
        !xfer(sock, &child_bad_ref, sizeof(child_bad_ref), true) || !xfer(sock, &done, 1, false))
        return 2;
    for (unsigned int i = 0; i < CHILD_ALLOCS; i++) {
        emu_gpu_ipc_unexport(&child_refs[i]);
        emu_vmm_free(cuda, &bufs[i]);
    }
    free(host);
    return 0;
}

static int child_start(void **state)
{
    int sv[2];

    (void)state;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        close(sv[0]);
        _exit(open_cuda() ? child_main(sv[1]) : 3);
    }
    close(sv[1]);
    child_sock = sv[0];
    return xfer(child_sock, child_refs, sizeof(child_refs), false) &&
                           xfer(child_sock, &child_bad_ref, sizeof(child_bad_ref), false)
                   ? 0
                   : -1;
}

static int child_stop(void **state)
{
    int status = 0;

    (void)state;
    if (child_sock >= 0 && !xfer(child_sock, "d", 1, true))
        return -1;
    if (child > 0 && waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static struct emu_gpu_ref at(unsigned int i, uint64_t offset)
{
    struct emu_gpu_ref r = child_refs[i];

    r.offset = offset;
    return r;
}

static void test_import_copy(void **state)
{
    core_cu_deviceptr dst = 0;
    struct emu_gpu_ipc_defer d;
    struct emu_gpu_ref r;
    int before = vmm_mappings();

    (void)state;
    assert_int_equal(cuda->cuMemAlloc(&dst, 2 * gran), CORE_CU_SUCCESS);
    r = at(0, 100);
    assert_int_equal(emu_gpu_ipc_copy(&r, dst, 5000), 0);
    assert_true(holds(dst, 5000, 0, 100));
    assert_int_equal(vmm_mappings(), before + 1);
    /* The same allocation again: the mapping is reused. */
    r = at(0, 0);
    assert_int_equal(emu_gpu_ipc_copy(&r, dst + gran, gran), 0);
    assert_true(holds(dst + gran, gran, 0, 0));
    assert_int_equal(vmm_mappings(), before + 1);
    /* A deferred copy, settled. */
    memset(&d, 0, sizeof(d));
    r = at(1, 64);
    assert_int_equal(emu_gpu_ipc_copy_defer(&d, &r, dst, 4096), 0);
    assert_int_equal(emu_gpu_ipc_settle(&d), 0);
    assert_true(holds(dst, 4096, 1, 64));
    assert_int_equal(vmm_mappings(), before + 2);
    cuda->cuMemFree(dst);
}

/* More allocations than the table holds: never more than 64 mapped, the oldest unmapped. */
static void test_import_table_bound(void **state)
{
    core_cu_deviceptr dst = 0;

    (void)state;
    assert_int_equal(cuda->cuMemAlloc(&dst, CHILD_ALLOCS * PIECE), CORE_CU_SUCCESS);
    for (unsigned int i = 0; i < CHILD_ALLOCS; i++) {
        struct emu_gpu_ref r = at(i, i);

        assert_int_equal(emu_gpu_ipc_copy(&r, dst + i * PIECE, PIECE), 0);
        assert_true(vmm_mappings() <= EMU_GPU_IPC_OPEN_MAX);
    }
    assert_int_equal(vmm_mappings(), EMU_GPU_IPC_OPEN_MAX);
    for (unsigned int i = 0; i < CHILD_ALLOCS; i++)
        assert_true(holds(dst + i * PIECE, PIECE, i, i));
    cuda->cuMemFree(dst);
}

/* Entries that deferred copies read are never unmapped: with all 64 held, a copy is refused. */
static void test_import_holders(void **state)
{
    core_cu_deviceptr dst = 0;
    struct emu_gpu_ipc_defer d;
    struct emu_gpu_ref r;

    (void)state;
    memset(&d, 0, sizeof(d));
    assert_int_equal(cuda->cuMemAlloc(&dst, CHILD_ALLOCS * PIECE), CORE_CU_SUCCESS);
    for (unsigned int i = 0; i < EMU_GPU_IPC_OPEN_MAX; i++) {
        r = at(i, 2 * PIECE);
        assert_int_equal(emu_gpu_ipc_copy_defer(&d, &r, dst + i * PIECE, PIECE), 0);
    }
    assert_int_equal(__builtin_popcountll(d.held), EMU_GPU_IPC_OPEN_MAX);
    /* Every entry is held: a copy of a 65th allocation cannot be mapped now. */
    r = at(EMU_GPU_IPC_OPEN_MAX, 0);
    assert_int_equal(emu_gpu_ipc_copy(&r, dst + EMU_GPU_IPC_OPEN_MAX * PIECE, PIECE), ENOTSUP);
    assert_int_equal(vmm_mappings(), EMU_GPU_IPC_OPEN_MAX);
    /* The set's own copies are settled to make room for its next one. */
    r = at(EMU_GPU_IPC_OPEN_MAX + 1, 0);
    assert_int_equal(
            emu_gpu_ipc_copy_defer(&d, &r, dst + (EMU_GPU_IPC_OPEN_MAX + 1) * PIECE, PIECE), 0);
    assert_int_equal(emu_gpu_ipc_settle(&d), 0);
    assert_int_equal(d.held, 0);
    for (unsigned int i = 0; i < EMU_GPU_IPC_OPEN_MAX; i++)
        assert_true(holds(dst + i * PIECE, PIECE, i, 2 * PIECE));
    assert_true(
            holds(dst + (EMU_GPU_IPC_OPEN_MAX + 1) * PIECE, PIECE, EMU_GPU_IPC_OPEN_MAX + 1, 0));
    assert_int_equal(vmm_mappings(), EMU_GPU_IPC_OPEN_MAX);
    cuda->cuMemFree(dst);
}

/* Runs f with this process's stderr going to a file; returns what it wrote (malloc'd). */
static char *stderr_of(void (*f)(core_cu_deviceptr), core_cu_deviceptr arg)
{
    FILE *tmp = tmpfile();
    int saved = dup(2);
    char *text = calloc(1, 65536);

    if (tmp == NULL || saved < 0 || text == NULL)
        return text;
    fflush(stderr);
    dup2(fileno(tmp), 2);
    f(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    if (fread(text, 1, 65535, tmp) == 0)
        text[0] = '\0';
    fclose(tmp);
    return text;
}

static unsigned int count_of(const char *text, const char *what)
{
    unsigned int n = 0;

    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static void refusals(core_cu_deviceptr dst)
{
    struct emu_gpu_ref r;
    pid_t gone = fork();

    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    /* A process that is gone, a descriptor the child does not have: pidfd_getfd fails. */
    r = at(2, 0);
    r.vmm.pid = gone;
    r.vmm.serial ^= 1;
    assert_int_equal(emu_gpu_ipc_copy(&r, dst, PIECE), ENOTSUP);
    r = at(2, 0);
    r.vmm.fd = 9999;
    r.vmm.serial ^= 2;
    assert_int_equal(emu_gpu_ipc_copy(&r, dst, PIECE), ENOTSUP);
    /* A descriptor that is no CUDA allocation: the import is refused. */
    r = child_bad_ref;
    assert_int_equal(emu_gpu_ipc_copy(&r, dst, PIECE), ENOTSUP);
    /* A reference past the end of its mapping. */
    r = at(3, gran - 10);
    assert_int_equal(emu_gpu_ipc_copy(&r, dst, PIECE), ENOTSUP);
}

static void test_import_refused(void **state)
{
    core_cu_deviceptr dst = 0;
    char *log;

    (void)state;
    assert_int_equal(cuda->cuMemAlloc(&dst, PIECE), CORE_CU_SUCCESS);
    log = stderr_of(refusals, dst);
    assert_non_null(log);
    fputs(log, stdout);
    /* The pidfd refusal once, whatever the number of references refused. */
    assert_int_equal(count_of(log, "cannot be reached: pidfd_"), 1);
    assert_int_equal(count_of(log, "cuMemImportFromShareableHandle returned CUDA error"), 1);
    assert_int_equal(count_of(log, "runs past its CUDA VMM mapping"), 1);
    free(log);
    cuda->cuMemFree(dst);
}

int main(void)
{
    const struct CMUnitTest codec[] = {
            cmocka_unit_test(test_codec_ipc),
            cmocka_unit_test(test_codec_vmm),
            cmocka_unit_test(test_codec_refusals),
    };
    const struct CMUnitTest export[] = {
            cmocka_unit_test(test_export_vmm),
            cmocka_unit_test(test_export_serial_changes),
            cmocka_unit_test(test_export_refused),
    };
    const struct CMUnitTest import[] = {
            cmocka_unit_test(test_import_copy),
            cmocka_unit_test(test_import_table_bound),
            cmocka_unit_test(test_import_holders),
            cmocka_unit_test(test_import_refused),
    };
    int failed = cmocka_run_group_tests_name("gpu_ref codec", codec, NULL, NULL);

    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The child is forked before this process initialises the driver. */
    if (child_start(NULL) != 0 || !open_cuda()) {
        printf("the fake CUDA driver (DOCA_GPUNETIO_LIBCUDA) or the child process is missing\n");
        child_stop(NULL);
        return 1;
    }
    gran = gran != 0 ? gran : FAKE_CUDA_VMM_GRANULARITY;
    failed += cmocka_run_group_tests_name("VMM export", export, NULL, NULL);
    failed += cmocka_run_group_tests_name("VMM import", import, NULL, child_stop);
    return failed != 0;
}
