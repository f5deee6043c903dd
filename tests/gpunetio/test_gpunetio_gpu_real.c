/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU context and memory on a real GPU (CTest label `gpu`): the first
 * GPU opened by both bus id forms, every memory type, dma-buf export, and
 * destroy refused while memory lives. Exits 77 with "skipped: no CUDA
 * device (...)" where the driver or a GPU is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>

#include "gpunetio/gpunetio_internal.h"
#include "gpunetio_test.h"

#define SKIP 77
#define MIB  ((size_t)1 << 20)

static const struct core_cuda_ops *cuda;
static char long_id[32];  /* as the driver prints it: "0000:8A:00.0" */
static char short_id[32]; /* "8a:00.0" when the domain is 0, else the long form in lower case */
static char canonical[40];

static void test_create_by_both_forms(void **state)
{
    doca_gpu_t *a = NULL, *b = NULL;

    (void)state;
    assert_int_equal(doca_gpu_create(long_id, &a), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_create(short_id, &b), DOCA_SUCCESS);
    assert_ptr_equal(a, b);
    assert_int_equal(a->refs, 2);
    assert_string_equal(a->bus_id, canonical);
    assert_true(a->cc_major >= 8);
    printf("GPU %s: compute capability %d.%d, dma-buf %s\n", a->bus_id, a->cc_major, a->cc_minor,
           a->dmabuf ? "yes" : "no");
    assert_int_equal(doca_gpu_destroy(b), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(a), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(a), DOCA_ERROR_INVALID_VALUE);
}

static void test_memory_types(void **state)
{
    doca_gpu_t *gpu = NULL;
    void *gp = NULL, *cp = (void *)&cuda, *hp = NULL, *hcp = NULL, *x = NULL, *xc = NULL;
    unsigned char *pattern = malloc(MIB), *back = malloc(MIB);
    unsigned int type = 0;
    int fd = -1;

    (void)state;
    assert_non_null(pattern);
    assert_non_null(back);
    for (size_t i = 0; i < MIB; i++)
        pattern[i] = (unsigned char)(i * 13 + 1);
    assert_int_equal(doca_gpu_create(short_id, &gpu), DOCA_SUCCESS);

    /* GPU memory: aligned, zeroed, device memory to the driver, and it holds data. */
    assert_int_equal(doca_gpu_mem_alloc(gpu, MIB, 65536, DOCA_GPU_MEM_TYPE_GPU, &gp, &cp),
                     DOCA_SUCCESS);
    assert_null(cp);
    assert_int_equal((uintptr_t)gp % 65536, 0);
    assert_int_equal(cuda->cuPointerGetAttribute(&type, CORE_CU_POINTER_ATTR_MEMORY_TYPE,
                                                 (core_cu_deviceptr)(uintptr_t)gp),
                     CORE_CU_SUCCESS);
    assert_int_equal(type, CORE_CU_MEMORYTYPE_DEVICE);
    memset(back, 0xee, MIB);
    assert_int_equal(cuda->cuMemcpyDtoH(back, (core_cu_deviceptr)(uintptr_t)gp, MIB),
                     CORE_CU_SUCCESS);
    for (size_t i = 0; i < MIB; i++)
        assert_int_equal(back[i], 0);
    assert_int_equal(cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)gp, pattern, MIB),
                     CORE_CU_SUCCESS);
    assert_int_equal(cuda->cuMemcpyDtoH(back, (core_cu_deviceptr)(uintptr_t)gp, MIB),
                     CORE_CU_SUCCESS);
    assert_memory_equal(back, pattern, MIB);

    /* Pinned host memory: what the CPU writes the GPU address reads, and back. */
    assert_int_equal(doca_gpu_mem_alloc(gpu, MIB, 0, DOCA_GPU_MEM_TYPE_CPU_GPU, &hp, &hcp),
                     DOCA_SUCCESS);
    assert_non_null(hp);
    assert_non_null(hcp);
    assert_int_equal((uintptr_t)hcp % 4096, 0);
    for (size_t i = 0; i < MIB; i++)
        assert_int_equal(((unsigned char *)hcp)[i], 0);
    memcpy(hcp, pattern, MIB);
    memset(back, 0, MIB);
    assert_int_equal(cuda->cuMemcpyDtoH(back, (core_cu_deviceptr)(uintptr_t)hp, MIB),
                     CORE_CU_SUCCESS);
    assert_memory_equal(back, pattern, MIB);
    memset(back, 0x3c, 4096);
    assert_int_equal(cuda->cuMemcpyHtoD((core_cu_deviceptr)(uintptr_t)hp, back, 4096),
                     CORE_CU_SUCCESS);
    assert_memory_equal(hcp, back, 4096);

    /* GPU memory mapped for the CPU needs GDRCopy: never faked. */
    assert_int_equal(doca_gpu_mem_alloc(gpu, 65536, 0, DOCA_GPU_MEM_TYPE_GPU_CPU, &x, &xc),
                     DOCA_ERROR_NOT_SUPPORTED);
    assert_null(x);

    /* A dma-buf of the GPU memory, where the GPU and driver have them. */
    if (gpu->dmabuf) {
        assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, MIB, &fd), DOCA_SUCCESS);
        assert_true(fd >= 0);
        assert_int_equal(close(fd), 0);
        /* Host memory is not GPU memory. */
        fd = -1;
        assert_int_equal(doca_gpu_dmabuf_fd(gpu, hp, MIB, &fd), DOCA_ERROR_DRIVER);
        assert_int_equal(fd, -1);
    } else {
        assert_int_equal(doca_gpu_dmabuf_fd(gpu, gp, MIB, &fd), DOCA_ERROR_NOT_SUPPORTED);
        printf("dma-buf: not supported by this GPU or driver\n");
    }

    /* Live memory keeps the context. */
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_mem_free(gpu, hcp == hp ? (char *)gp + 1 : hcp),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_mem_free(gpu, gp), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_mem_free(gpu, hp), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_SUCCESS);
    free(pattern);
    free(back);
}

/* NULL when the tests can run; otherwise why not. */
static const char *find_first_gpu(void)
{
    static char why[160];
    struct core_cuda_probe probe;
    core_cu_device dev = 0;
    int count = 0, major = 0, minor = 0;
    const char *p;
    size_t n = 0;

    if (core_cuda_get(&cuda) != DOCA_SUCCESS) {
        p = core_cuda_unavailable_reason();
        return p != NULL ? p : "the CUDA driver is unusable";
    }
    if (cuda->cuDeviceGetCount(&count) != CORE_CU_SUCCESS || count < 1 ||
        cuda->cuDeviceGet(&dev, 0) != CORE_CU_SUCCESS ||
        cuda->cuDeviceGetPCIBusId(long_id, (int)sizeof(long_id), dev) != CORE_CU_SUCCESS)
        return "the CUDA driver lists no GPU";
    cuda->cuDeviceGetAttribute(&major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR, dev);
    cuda->cuDeviceGetAttribute(&minor, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR, dev);
    if (major < 8) {
        snprintf(why, sizeof(why), "GPU %s has compute capability %d.%d, below 8.0", long_id, major,
                 minor);
        return why;
    }
    core_cuda_probe(&probe);
    if (DGN_CUDA_BUILD_VERSION > 0 && probe.driver_version < DGN_CUDA_BUILD_VERSION) {
        snprintf(why, sizeof(why), "the driver (%d) is older than the build's CUDA (%d)",
                 probe.driver_version, DGN_CUDA_BUILD_VERSION);
        return why;
    }
    p = strncmp(long_id, "0000:", 5) == 0 ? long_id + 5 : long_id;
    for (; *p && n + 1 < sizeof(short_id); p++, n++)
        short_id[n] = (char)tolower((unsigned char)*p);
    short_id[n] = '\0';
    snprintf(canonical, sizeof(canonical), "%s%s",
             strchr(short_id, ':') == strrchr(short_id, ':') ? "0000:" : "", short_id);
    printf("first GPU: %s (given as \"%s\" and \"%s\")\n", canonical, long_id, short_id);
    return NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_create_by_both_forms),
            cmocka_unit_test(test_memory_types),
    };
    const char *why;

    log_setup();
    why = find_first_gpu();
    if (why != NULL) {
        printf("skipped: no CUDA device (%s)\n", why);
        return SKIP;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
