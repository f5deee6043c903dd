/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_gpu_mem_alloc / _free / doca_gpu_dmabuf_fd on the fake CUDA driver
 * (two GPUs, 0000:8a:00.0 and 0000:8b:00.0). The argument picks the group:
 *   all               allocation, alignment, refusals, dma-buf (GDRCopy absent)
 *   no-dmabuf         FAKE_CUDA_DMABUF=0: dma-buf is NOT_SUPPORTED
 *   gdrcopy-disabled  DOCA_GPUNETIO_DISABLE_GDRCOPY=1
 *   gdrcopy-present   DOCA_GPUNETIO_LIBGDRAPI names the stand-in GDRCopy (fake_gdrapi.c)
 *   gdrcopy-no-driver the same, with FAKE_GDR_NO_DRIVER=1 (no gdrdrv kernel module)
 *   gdrcopy-not-gdrapi DOCA_GPUNETIO_LIBGDRAPI names a library without GDRCopy's calls
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>

#define GPU_A "0000:8a:00.0"
#define GPU_B "0000:8b:00.0"

#include "gpu_fixture.h"

static bool all_bytes(const void *p, int value, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)value)
            return false;
    return true;
}

/* Calls doca_gpu_mem_alloc expecting `expect` and one ERR line holding `line`; outputs untouched.
 */
static void alloc_refused(doca_gpu_t *g, size_t size, size_t align, int mtype, bool cpu_out,
                          doca_error_t expect, const char *line)
{
    void *sentinel = (void *)&fake;
    void *gp = sentinel, *cp = sentinel;
    char *log;

    capture_start();
    assert_int_equal(doca_gpu_mem_alloc(g, size, align, (enum doca_gpu_mem_type)mtype, &gp,
                                        cpu_out ? &cp : NULL),
                     expect);
    log = capture_stop();
    assert_one_error_line(log, line);
    free(log);
    assert_ptr_equal(gp, sentinel);
    assert_ptr_equal(cp, sentinel);
    assert_int_equal(atomic_load(&gpu->users), 0);
    assert_int_equal(fake.live_allocations(), 0);
}

static void test_alloc_refusals(void **state)
{
    void *gp = NULL;

    (void)state;
    alloc_refused(NULL, 64, 0, DOCA_GPU_MEM_TYPE_GPU, true, DOCA_ERROR_INVALID_VALUE,
                  "must not be NULL");
    assert_int_equal(doca_gpu_mem_alloc(gpu, 64, 0, DOCA_GPU_MEM_TYPE_GPU, NULL, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    alloc_refused(gpu, 0, 0, DOCA_GPU_MEM_TYPE_GPU, true, DOCA_ERROR_INVALID_VALUE, "size is 0");
    alloc_refused(gpu, 64, 3, DOCA_GPU_MEM_TYPE_GPU, true, DOCA_ERROR_INVALID_VALUE,
                  "alignment 3 is not a power of two");
    alloc_refused(gpu, 64, 48, DOCA_GPU_MEM_TYPE_CPU_GPU, true, DOCA_ERROR_INVALID_VALUE,
                  "alignment 48 is not a power of two");
    alloc_refused(gpu, 64, 0, 4, true, DOCA_ERROR_INVALID_VALUE, "mtype 4 is not a memory type");
    alloc_refused(gpu, 64, 0, DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT, true, DOCA_ERROR_NOT_SUPPORTED,
                  "Data Direct function, which no NIC here has");
    alloc_refused(gpu, 64, 0, -1, true, DOCA_ERROR_INVALID_VALUE, "mtype -1 is not a memory type");
    alloc_refused(gpu, 64, 0, DOCA_GPU_MEM_TYPE_CPU_GPU, false, DOCA_ERROR_INVALID_VALUE,
                  "memptr_cpu is NULL: DOCA_GPU_MEM_TYPE_CPU_GPU memory has a CPU address");
    alloc_refused(gpu, SIZE_MAX - 100, 4096, DOCA_GPU_MEM_TYPE_GPU, true, DOCA_ERROR_INVALID_VALUE,
                  "does not fit the address space");
    /* Beyond what the (fake) GPU has: the driver's out-of-memory is NO_MEMORY. */
    alloc_refused(gpu, (size_t)2 << 30, 0, DOCA_GPU_MEM_TYPE_GPU, true, DOCA_ERROR_NO_MEMORY,
                  "cuMemAlloc returned 2 (CUDA_ERROR_OUT_OF_MEMORY");
    alloc_refused(gpu, (size_t)2 << 30, 0, DOCA_GPU_MEM_TYPE_CPU_GPU, true, DOCA_ERROR_NO_MEMORY,
                  "cuMemHostAlloc returned 2 (CUDA_ERROR_OUT_OF_MEMORY");
    (void)gp;
}

static void test_gpu_cpu_needs_gdrcopy(void **state)
{
    (void)state;
    alloc_refused(gpu, 65536, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_NOT_SUPPORTED,
                  "GPU memory cannot be mapped for the CPU without GDRCopy (libgdrapi.so.2 and "
                  "the gdrdrv kernel module): GDRCopy library libdgn-missing-gdrapi.so.2 cannot "
                  "be loaded");
    alloc_refused(gpu, 65536, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_NOT_SUPPORTED,
                  "use DOCA_GPU_MEM_TYPE_CPU_GPU");
    /* The CPU pointer is needed before anything else is looked at. */
    alloc_refused(gpu, 65536, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, false, DOCA_ERROR_INVALID_VALUE,
                  "memptr_cpu is NULL");
    assert_non_null(gpunetio_gdrcopy_unavailable_reason());
}

static void test_gpu_memory_is_zeroed_and_counted(void **state)
{
    unsigned char back[1000];
    void *gp = NULL, *cp = (void *)&fake;

    (void)state;
    assert_int_equal(doca_gpu_mem_alloc(gpu, sizeof(back), 0, DOCA_GPU_MEM_TYPE_GPU, &gp, &cp),
                     DOCA_SUCCESS);
    assert_non_null(gp);
    assert_null(cp); /* GPU memory has no CPU address */
    assert_int_equal((uintptr_t)gp % GPUNETIO_GPU_MEM_ALIGN, 0);
    assert_int_equal(atomic_load(&gpu->users), 1);
    assert_int_equal(fake.live_allocations(), 1);
    /* The fake hands out poisoned memory: the library zeroed it. */
    memset(back, 0x77, sizeof(back));
    assert_int_equal(cuda->cuMemcpyDtoH(back, (core_cu_deviceptr)(uintptr_t)gp, sizeof(back)),
                     CORE_CU_SUCCESS);
    assert_true(all_bytes(back, 0, sizeof(back)));
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 0);
    assert_int_equal(fake.live_allocations(), 0);

    /* memptr_cpu may be NULL for GPU memory. */
    assert_int_equal(doca_gpu_mem_alloc(gpu, 1, 0, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
}

static void test_cpu_gpu_memory_both_addresses(void **state)
{
    unsigned char back[300];
    void *gp = NULL, *cp = NULL;

    (void)state;
    assert_int_equal(doca_gpu_mem_alloc(gpu, sizeof(back), 0, DOCA_GPU_MEM_TYPE_CPU_GPU, &gp, &cp),
                     DOCA_SUCCESS);
    assert_non_null(gp);
    assert_non_null(cp);
    assert_int_equal((uintptr_t)cp % GPUNETIO_HOST_MEM_ALIGN, 0);
    assert_true(all_bytes(cp, 0, sizeof(back)));
    /* What the CPU writes the GPU address reads. */
    for (size_t i = 0; i < sizeof(back); i++)
        ((unsigned char *)cp)[i] = (unsigned char)(i * 7);
    assert_int_equal(cuda->cuMemcpyDtoH(back, (core_cu_deviceptr)(uintptr_t)gp, sizeof(back)),
                     CORE_CU_SUCCESS);
    assert_memory_equal(back, cp, sizeof(back));
    assert_int_equal(atomic_load(&gpu->users), 1);
    /* Freed by its GPU address; the CPU address is not an allocation's GPU address. */
    if (cp != gp)
        assert_int_equal(doca_gpu_mem_free(gpu, cp), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
}

static void test_alignment_is_honoured(void **state)
{
    static const size_t aligns[] = {1, 8, 256, 512, 4096, 65536, (size_t)1 << 21};
    static const size_t sizes[] = {1, 1000, 65536, 100000};

    (void)state;
    for (int t = 0; t < 2; t++) {
        enum doca_gpu_mem_type mtype = t == 0 ? DOCA_GPU_MEM_TYPE_GPU : DOCA_GPU_MEM_TYPE_CPU_GPU;

        for (size_t a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                struct gpunetio_alloc rec;
                void *gp = NULL, *cp = NULL;

                assert_int_equal(doca_gpu_mem_alloc(gpu, sizes[s], aligns[a], mtype, &gp, &cp),
                                 DOCA_SUCCESS);
                assert_int_equal((uintptr_t)gp % aligns[a], 0);
                if (mtype == DOCA_GPU_MEM_TYPE_CPU_GPU) {
                    assert_int_equal((uintptr_t)cp % aligns[a], 0);
                    memset(cp, 0x5a, sizes[s]); /* the whole range is ours (ASan checks) */
                } else {
                    assert_int_equal(
                            cuda->cuMemsetD8((core_cu_deviceptr)(uintptr_t)gp, 0x5a, sizes[s]),
                            CORE_CU_SUCCESS);
                }
                /* The allocation is recorded, covering exactly [gp, gp + size). */
                assert_true(gpunetio_mem_find(gpu, gp, sizes[s], &rec));
                assert_ptr_equal(rec.gpu_ptr, gp);
                assert_int_equal(rec.size, sizes[s]);
                assert_int_equal(rec.mtype, mtype);
                assert_false(gpunetio_mem_find(gpu, gp, sizes[s] + 1, NULL));
                assert_true(gpunetio_mem_find(gpu, (char *)gp + sizes[s] - 1, 1, NULL));
                assert_false(gpunetio_mem_find(gpu, (char *)gp + sizes[s], 1, NULL));
                assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
                assert_false(gpunetio_mem_find(gpu, gp, 1, NULL));
            }
        }
    }
    /* Default alignments: 256 for GPU memory, a page for host memory. */
    for (int i = 0; i < 16; i++) {
        void *gp = NULL, *hp = NULL, *cp = NULL;

        assert_int_equal(doca_gpu_mem_alloc(gpu, 24, 0, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL),
                         DOCA_SUCCESS);
        assert_int_equal(doca_gpu_mem_alloc(gpu, 24, 0, DOCA_GPU_MEM_TYPE_CPU_GPU, &hp, &cp),
                         DOCA_SUCCESS);
        assert_int_equal((uintptr_t)gp % 256, 0);
        assert_int_equal((uintptr_t)cp % 4096, 0);
        assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
        assert_int_equal(doca_gpu_mem_free(gpu, hp), DOCA_SUCCESS);
    }
}

static void test_free_only_takes_its_own_addresses(void **state)
{
    doca_gpu_t *other = NULL;
    void *gp = NULL, *theirs = NULL;
    int local = 0;
    char expect[160];
    char *log;

    (void)state;
    assert_int_equal(doca_gpu_mem_alloc(gpu, 4096, 0, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL),
                     DOCA_SUCCESS);
    capture_start();
    assert_int_equal(doca_gpu_mem_free(gpu, &local), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    snprintf(expect, sizeof(expect), "%p is not an address doca_gpu_mem_alloc() gave on GPU " GPU_A,
             (void *)&local);
    assert_one_error_line(log, expect);
    free(log);
    /* An address inside an allocation is not the allocation. */
    assert_int_equal(doca_gpu_mem_free(gpu, (char *)gp + 256), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(gpu, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(NULL, gp), DOCA_ERROR_INVALID_VALUE);

    /* Memory of one GPU is not freed through another's context. */
    assert_int_equal(doca_gpu_create(GPU_B, &other), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_alloc(other, 64, 0, DOCA_GPU_MEM_TYPE_GPU, &theirs, NULL),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(other, gp), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(gpu, theirs), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(other, theirs), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(other), DOCA_SUCCESS);

    /* A destroyed context is refused (it is not read). */
    assert_int_equal(doca_gpu_mem_alloc(other, 64, 0, DOCA_GPU_MEM_TYPE_GPU, &theirs, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(other, theirs), DOCA_ERROR_INVALID_VALUE);

    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
    /* Freed already. */
    capture_start();
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "or it was freed already");
    free(log);
}

static void test_free_binds_the_context(void **state)
{
    void *gp = NULL;

    (void)state;
    assert_int_equal(doca_gpu_mem_alloc(gpu, 64, 0, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL),
                     DOCA_SUCCESS);
    /* Another thread's (or nobody's) context current: the call makes gpu's current. */
    assert_int_equal(cuda->cuCtxSetCurrent(NULL), CORE_CU_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
    assert_ptr_equal(fake.current_context(), gpu->ctx);
    assert_int_equal(cuda->cuCtxSetCurrent(NULL), CORE_CU_SUCCESS);
    assert_int_equal(doca_gpu_mem_alloc(gpu, 64, 0, DOCA_GPU_MEM_TYPE_CPU_GPU, &gp, &(void *){0}),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
}

#define MEM_THREADS 4
#define MEM_ROUNDS  200

static void *mem_churn(void *arg)
{
    intptr_t failures = 0;

    (void)arg;
    for (int i = 0; i < MEM_ROUNDS; i++) {
        enum doca_gpu_mem_type mtype = i % 2 ? DOCA_GPU_MEM_TYPE_GPU : DOCA_GPU_MEM_TYPE_CPU_GPU;
        void *gp = NULL, *cp = NULL;

        if (doca_gpu_mem_alloc(gpu, 128 + (size_t)i, 64, mtype, &gp, &cp) != DOCA_SUCCESS ||
            doca_gpu_mem_free(gpu, gp) != DOCA_SUCCESS)
            failures++;
    }
    return (void *)failures;
}

static void test_threads_allocate_and_free(void **state)
{
    pthread_t threads[MEM_THREADS];
    void *failures;

    (void)state;
    for (int i = 0; i < MEM_THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, mem_churn, NULL), 0);
    for (int i = 0; i < MEM_THREADS; i++) {
        assert_int_equal(pthread_join(threads[i], &failures), 0);
        assert_int_equal((intptr_t)failures, 0);
    }
    assert_null(gpu->allocs);
}

static void test_dmabuf_fd(void **state)
{
    void *gp = NULL, *hp = NULL, *cp = NULL;
    int fd = -7;
    char *log;

    (void)state;
    assert_int_equal(doca_gpu_mem_alloc(gpu, 3 * 4096, 65536, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 3 * 4096, &fd), DOCA_SUCCESS);
    assert_true(fd >= 0);
    assert_int_equal(close(fd), 0);
    fd = -7;
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, (char *)gp + 4096, 4096, &fd), DOCA_SUCCESS);
    assert_int_equal(close(fd), 0);
    fd = -7; /* DOCA 4.0's name */
    assert_int_equal(doca_gpu_get_dmabuf_fd(gpu, (char *)gp + 4096, 4096, &fd), DOCA_SUCCESS);
    assert_int_equal(close(fd), 0);

    /* Refusals leave *dmabuf_fd alone. */
    fd = -7;
    capture_start();
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, (char *)gp + 256, 4096, &fd),
                     DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_one_error_line(log, "a dma-buf covers whole 4096-byte pages");
    free(log);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 100, &fd), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 0, &fd), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_dmabuf_fd(NULL, gp, 4096, &fd), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, NULL, 4096, &fd), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 4096, NULL), DOCA_ERROR_INVALID_VALUE);
    /* Host memory is no GPU memory: the driver refuses, the line carries its error. */
    assert_int_equal(doca_gpu_mem_alloc(gpu, 4096, 4096, DOCA_GPU_MEM_TYPE_CPU_GPU, &hp, &cp),
                     DOCA_SUCCESS);
    capture_start();
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, hp, 4096, &fd), DOCA_ERROR_DRIVER);
    log = capture_stop();
    assert_one_error_line(log, "cuMemGetHandleForAddressRange returned 1 "
                               "(CUDA_ERROR_INVALID_VALUE");
    free(log);
    /* Past the end of the memory the driver allocated (the padding included). */
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 64 * 4096, &fd), DOCA_ERROR_DRIVER);
    assert_int_equal(fd, -7);
    assert_int_equal(doca_gpu_mem_free(gpu, hp), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
}

static void test_dmabuf_not_supported(void **state)
{
    void *gp = NULL;
    int fd = -7;
    char *log;

    (void)state;
    assert_false(gpu->dmabuf);
    assert_int_equal(doca_gpu_mem_alloc(gpu, 4096, 4096, DOCA_GPU_MEM_TYPE_GPU, &gp, NULL),
                     DOCA_SUCCESS);
    capture_start();
    assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, 4096, &fd), DOCA_ERROR_NOT_SUPPORTED);
    log = capture_stop();
    assert_one_error_line(log, "GPU " GPU_A " cannot export dma-bufs");
    free(log);
    assert_int_equal(fd, -7);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
}

static void test_gdrcopy_disabled(void **state)
{
    (void)state;
    alloc_refused(gpu, 65536, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_NOT_SUPPORTED,
                  "without GDRCopy (libgdrapi.so.2 and the gdrdrv kernel module): GDRCopy is "
                  "disabled (DOCA_GPUNETIO_DISABLE_GDRCOPY=1)");
}

/* The stand-in libgdrapi's count of live pins (tests/gpunetio/fake_gdrapi.c). */
static int gdr_live(size_t *last_size)
{
    void *lib = dlopen(getenv("DOCA_GPUNETIO_LIBGDRAPI"), RTLD_NOW | RTLD_NOLOAD);
    int (*live)(size_t *) = lib != NULL ? (int (*)(size_t *))dlsym(lib, "fake_gdr_live") : NULL;
    int n;

    assert_non_null(live);
    n = live(last_size);
    dlclose(lib);
    return n;
}

/* GPU memory mapped for the CPU: whole 64 KiB pages from a page-aligned address, all undone. */
static void test_gdrcopy_maps_gpu_memory(void **state)
{
    void *gp = NULL, *cp = NULL, *gp2 = NULL, *cp2 = NULL;
    size_t last = 0;

    (void)state;
    assert_null(gpunetio_gdrcopy_unavailable_reason());
    assert_int_equal(doca_gpu_mem_alloc(gpu, 100, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, &gp, &cp),
                     DOCA_SUCCESS);
    assert_non_null(gp);
    assert_ptr_equal(cp, gp); /* the stand-in maps the fake GPU memory where it is */
    assert_int_equal((uintptr_t)gp % GPUNETIO_GDR_PAGE_SIZE, 0);
    assert_int_equal(gdr_live(&last), 1);
    assert_int_equal(last, GPUNETIO_GDR_PAGE_SIZE);
    assert_true(all_bytes(cp, 0, 100)); /* zeroed, as every GPU allocation */
    memset(cp, 0x5a, 100);
    /* 200 KiB with a 1 MiB alignment: four pages, from a 1 MiB boundary. */
    assert_int_equal(
            doca_gpu_mem_alloc(gpu, 200 * 1024, 1 << 20, DOCA_GPU_MEM_TYPE_GPU_CPU, &gp2, &cp2),
            DOCA_SUCCESS);
    assert_int_equal((uintptr_t)gp2 % (1 << 20), 0);
    assert_int_equal(gdr_live(&last), 2);
    assert_int_equal(last, 4 * GPUNETIO_GDR_PAGE_SIZE);
    assert_true(gpunetio_mem_find(gpu, (char *)gp2 + 1000, 1000, NULL));
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_mem_free(gpu, gp2), DOCA_SUCCESS);
    assert_int_equal(gdr_live(&last), 0);
}

/* Without the gdrdrv module (gdr_open fails) or a pin refused: nothing allocated, one line. */
static void test_gdrcopy_refusals(void **state)
{
    size_t last;

    (void)state;
    setenv("FAKE_GDR_PIN_FAIL", "1", 1);
    alloc_refused(gpu, 4096, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_DRIVER,
                  "gdr_pin_buffer of 65536 bytes of GPU memory");
    unsetenv("FAKE_GDR_PIN_FAIL");
    assert_int_equal(gdr_live(&last), 0);
}

static void test_gdrcopy_not_gdrapi(void **state)
{
    (void)state;
    assert_non_null(gpunetio_gdrcopy_unavailable_reason());
    alloc_refused(gpu, 4096, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_NOT_SUPPORTED,
                  "libc.so.6 has no symbol gdr_open");
}

static void test_gdrcopy_no_driver(void **state)
{
    (void)state;
    alloc_refused(gpu, 4096, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, true, DOCA_ERROR_NOT_SUPPORTED,
                  "gdr_open failed: the gdrdrv kernel module is not loaded");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
            cmocka_unit_test_teardown(test_alloc_refusals, test_teardown),
            cmocka_unit_test_teardown(test_gpu_cpu_needs_gdrcopy, test_teardown),
            cmocka_unit_test_teardown(test_gpu_memory_is_zeroed_and_counted, test_teardown),
            cmocka_unit_test_teardown(test_cpu_gpu_memory_both_addresses, test_teardown),
            cmocka_unit_test_teardown(test_alignment_is_honoured, test_teardown),
            cmocka_unit_test_teardown(test_free_only_takes_its_own_addresses, test_teardown),
            cmocka_unit_test_teardown(test_free_binds_the_context, test_teardown),
            cmocka_unit_test_teardown(test_threads_allocate_and_free, test_teardown),
            cmocka_unit_test_teardown(test_dmabuf_fd, test_teardown),
    };
    const struct CMUnitTest no_dmabuf[] = {
            cmocka_unit_test_teardown(test_dmabuf_not_supported, test_teardown),
    };
    const struct CMUnitTest gdrcopy_disabled[] = {
            cmocka_unit_test_teardown(test_gdrcopy_disabled, test_teardown),
    };
    const struct CMUnitTest gdrcopy_present[] = {
            cmocka_unit_test_teardown(test_gdrcopy_maps_gpu_memory, test_teardown),
            cmocka_unit_test_teardown(test_gdrcopy_refusals, test_teardown),
    };
    const struct CMUnitTest gdrcopy_not_gdrapi[] = {
            cmocka_unit_test_teardown(test_gdrcopy_not_gdrapi, test_teardown),
    };
    const struct CMUnitTest gdrcopy_no_driver[] = {
            cmocka_unit_test_teardown(test_gdrcopy_no_driver, test_teardown),
    };
    const char *mode = argc > 1 ? argv[1] : "all";

    if (strcmp(mode, "all") == 0)
        return cmocka_run_group_tests(all, group_setup, group_teardown);
    if (strcmp(mode, "no-dmabuf") == 0)
        return cmocka_run_group_tests(no_dmabuf, group_setup, group_teardown);
    if (strcmp(mode, "gdrcopy-disabled") == 0)
        return cmocka_run_group_tests(gdrcopy_disabled, group_setup, group_teardown);
    if (strcmp(mode, "gdrcopy-present") == 0)
        return cmocka_run_group_tests(gdrcopy_present, group_setup, group_teardown);
    if (strcmp(mode, "gdrcopy-not-gdrapi") == 0)
        return cmocka_run_group_tests(gdrcopy_not_gdrapi, group_setup, group_teardown);
    if (strcmp(mode, "gdrcopy-no-driver") == 0)
        return cmocka_run_group_tests(gdrcopy_no_driver, group_setup, group_teardown);
    fprintf(stderr, "unknown group %s\n", mode);
    return 2;
}
