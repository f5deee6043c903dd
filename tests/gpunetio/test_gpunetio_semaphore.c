/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_gpu_semaphore_* on the fake CUDA driver: the lifecycle and its
 * refusals, the CPU's status and custom-info calls, and the kernels' handle
 * driven by the data-path core (impl/gdaki_sem.h) on a CPU thread, which
 * the fake's "GPU memory" (host memory) allows: a producer thread hands
 * batches through the items to the host API, as a persistent kernel hands
 * them to the CPU.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device/impl/gdaki_sem.h"

#define GPU_A "0000:8a:00.0"

#include "gpu_fixture.h"

/* The custom info of the handoff test. */
struct batch_info {
    uint64_t seq;
    uint32_t packets;
};

#define HANDOFF_ITEMS   4u
#define HANDOFF_BATCHES 2000u

/* A started semaphore of items items in mtype, with nbytes of info in info_mtype (nbytes > 0). */
static struct doca_gpu_semaphore *sem_started(uint32_t items, enum doca_gpu_mem_type mtype,
                                              uint32_t nbytes, enum doca_gpu_mem_type info_mtype)
{
    struct doca_gpu_semaphore *sem = NULL;

    assert_int_equal(doca_gpu_semaphore_create(gpu, &sem), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_set_memory_type(sem, mtype), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_set_items_num(sem, items), DOCA_SUCCESS);
    if (nbytes > 0)
        assert_int_equal(doca_gpu_semaphore_set_custom_info(sem, nbytes, info_mtype), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_start(sem), DOCA_SUCCESS);
    return sem;
}

/* The kernels' descriptor, read back from GPU memory. */
static struct doca_gpu_semaphore_gpu sem_desc(struct doca_gpu_semaphore *sem)
{
    struct doca_gpu_semaphore_gpu *handle = NULL, desc;

    assert_int_equal(doca_gpu_semaphore_get_gpu_handle(sem, &handle), DOCA_SUCCESS);
    assert_non_null(handle);
    assert_int_equal(cuda->cuMemcpyDtoH(&desc, (core_cu_deviceptr)(uintptr_t)handle, sizeof(desc)),
                     CORE_CU_SUCCESS);
    return desc;
}

static void test_refusals_before_start(void **state)
{
    struct doca_gpu_semaphore *sem = NULL;
    struct doca_gpu_semaphore_gpu *handle = NULL;
    enum doca_gpu_semaphore_status status;
    void *info;

    (void)state;
    assert_int_equal(doca_gpu_semaphore_create(NULL, &sem), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_create(gpu, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_create(gpu, &sem), DOCA_SUCCESS);
    assert_int_equal(atomic_load(&gpu->users), 1);
    assert_int_equal(doca_gpu_destroy(gpu), DOCA_ERROR_BAD_STATE); /* a semaphore lives */

    assert_int_equal(doca_gpu_semaphore_start(sem), DOCA_ERROR_BAD_STATE); /* no item count */
    assert_int_equal(doca_gpu_semaphore_set_items_num(sem, 0), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_set_memory_type(sem, (enum doca_gpu_mem_type)7),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_set_custom_info(sem, 8, (enum doca_gpu_mem_type) - 1),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_get_gpu_handle(sem, &handle), DOCA_ERROR_BAD_STATE);
    assert_null(handle);
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 0, DOCA_GPU_SEMAPHORE_STATUS_READY),
                     DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 0, &status), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, 0, &info), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_stop(sem), DOCA_ERROR_BAD_STATE);
    assert_int_equal(fake.live_allocations(), 0); /* nothing allocated before start */
    assert_int_equal(doca_gpu_semaphore_destroy(sem), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_cpu_visible(void **state)
{
    struct doca_gpu_semaphore *sem =
            sem_started(8, DOCA_GPU_MEM_TYPE_CPU_GPU, 24, DOCA_GPU_MEM_TYPE_CPU_GPU);
    enum doca_gpu_semaphore_status status;
    uint8_t *info[8];

    (void)state;
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(doca_gpu_semaphore_get_status(sem, i, &status), DOCA_SUCCESS);
        assert_int_equal(status, DOCA_GPU_SEMAPHORE_STATUS_FREE);
        assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, i, (void **)&info[i]),
                         DOCA_SUCCESS);
        for (int b = 0; b < 24; b++)
            assert_int_equal(info[i][b], 0);
        if (i > 0)
            assert_ptr_equal(info[i], info[i - 1] + 24);
        memset(info[i], (int)i + 1, 24);
    }
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 3, DOCA_GPU_SEMAPHORE_STATUS_HOLD),
                     DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 3, &status), DOCA_SUCCESS);
    assert_int_equal(status, DOCA_GPU_SEMAPHORE_STATUS_HOLD);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 2, &status), DOCA_SUCCESS);
    assert_int_equal(status, DOCA_GPU_SEMAPHORE_STATUS_FREE);

    /* Past the items, a status that is none, outputs NULL, a setter once started. */
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 8, &status), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 8, DOCA_GPU_SEMAPHORE_STATUS_FREE),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 0, (enum doca_gpu_semaphore_status)6),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 0, NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, 8, (void **)&info[0]),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_set_items_num(sem, 4), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_set_memory_type(sem, DOCA_GPU_MEM_TYPE_GPU),
                     DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_start(sem), DOCA_ERROR_BAD_STATE);

    /* Stopped, configured again, started again: all FREE and zeroed. */
    assert_int_equal(doca_gpu_semaphore_stop(sem), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 0, &status), DOCA_ERROR_BAD_STATE);
    assert_int_equal(doca_gpu_semaphore_set_items_num(sem, 2), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_start(sem), DOCA_SUCCESS);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 1, &status), DOCA_SUCCESS);
    assert_int_equal(status, DOCA_GPU_SEMAPHORE_STATUS_FREE);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 2, &status), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, 1, (void **)&info[1]),
                     DOCA_SUCCESS);
    assert_int_equal(info[1][0], 0);
    /* Destroyed while started: stopped and freed (the teardown checks). */
    assert_int_equal(doca_gpu_semaphore_destroy(sem), DOCA_SUCCESS);
}

static void test_gpu_only(void **state)
{
    struct doca_gpu_semaphore *sem = sem_started(4, DOCA_GPU_MEM_TYPE_GPU, 0, 0);
    struct doca_gpu_semaphore_gpu desc = sem_desc(sem);
    enum doca_gpu_semaphore_status status;
    uint32_t words[4];
    void *info;
    char *log;

    (void)state;
    capture_start();
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 0, &status), DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 0, DOCA_GPU_SEMAPHORE_STATUS_EXIT),
                     DOCA_ERROR_NOT_SUPPORTED);
    assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, 0, &info), DOCA_ERROR_BAD_STATE);
    log = capture_stop();
    assert_non_null(strstr(log, "DOCA_GPU_MEM_TYPE_GPU, which the CPU cannot see"));
    assert_non_null(strstr(log, "has no custom info"));
    free(log);
    /* The items are in GPU memory, all FREE; the handle says there is no info. */
    assert_int_equal(desc.num_items, 4);
    assert_int_equal(desc.info_nbytes, 0);
    assert_null(desc.custom_info);
    assert_int_equal(
            cuda->cuMemcpyDtoH(words, (core_cu_deviceptr)(uintptr_t)desc.status, sizeof(words)),
            CORE_CU_SUCCESS);
    for (int i = 0; i < 4; i++)
        assert_int_equal(words[i], DOCA_GPU_SEMAPHORE_STATUS_FREE);
    assert_null(gdaki_sem_custom_info(&desc, 0));
    assert_int_equal(doca_gpu_semaphore_destroy(sem), DOCA_SUCCESS);
}

/* The kernels' side (the C core) and the CPU's see the same items. */
static void test_handle_core(void **state)
{
    struct doca_gpu_semaphore *sem =
            sem_started(4, DOCA_GPU_MEM_TYPE_CPU_GPU, 16, DOCA_GPU_MEM_TYPE_CPU_GPU);
    struct doca_gpu_semaphore_gpu desc = sem_desc(sem);
    enum doca_gpu_semaphore_status status;
    uint32_t s = 99;
    void *info;

    (void)state;
    assert_int_equal(desc.num_items, 4);
    assert_int_equal(desc.info_nbytes, 16);
    assert_int_equal(gdaki_sem_set_status(&desc, 1, DOCA_GPU_SEMAPHORE_STATUS_READY), 0);
    assert_int_equal(doca_gpu_semaphore_get_status(sem, 1, &status), DOCA_SUCCESS);
    assert_int_equal(status, DOCA_GPU_SEMAPHORE_STATUS_READY);
    assert_int_equal(doca_gpu_semaphore_set_status(sem, 2, DOCA_GPU_SEMAPHORE_STATUS_EXIT),
                     DOCA_SUCCESS);
    assert_int_equal(gdaki_sem_get_status(&desc, 2, &s), 0);
    assert_int_equal(s, DOCA_GPU_SEMAPHORE_STATUS_EXIT);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, i, &info), DOCA_SUCCESS);
        assert_ptr_equal(gdaki_sem_custom_info(&desc, i), info); /* one address space here */
    }
    assert_int_equal(gdaki_sem_get_status(&desc, 4, &s), -1);
    assert_int_equal(gdaki_sem_set_status(&desc, 4, 0), -1);
    assert_null(gdaki_sem_custom_info(&desc, 4));
    assert_int_equal(doca_gpu_semaphore_destroy(sem), DOCA_SUCCESS);
}

/* A persistent kernel's loop, on a CPU thread: each batch into the next FREE item, then READY. */
static void *handoff_producer(void *arg)
{
    const struct doca_gpu_semaphore_gpu *desc = arg;

    for (uint64_t seq = 0; seq < HANDOFF_BATCHES; seq++) {
        uint32_t idx = (uint32_t)(seq % desc->num_items), s;
        struct batch_info *b = gdaki_sem_custom_info(desc, idx);

        do {
            if (gdaki_sem_get_status(desc, idx, &s) != 0)
                return (void *)1;
        } while (s != DOCA_GPU_SEMAPHORE_STATUS_FREE);
        b->seq = seq;
        b->packets = (uint32_t)(seq * 7 + 1);
        gdaki_sem_set_status(desc, idx, DOCA_GPU_SEMAPHORE_STATUS_READY);
    }
    return NULL;
}

static void test_handoff(void **state)
{
    struct doca_gpu_semaphore *sem =
            sem_started(HANDOFF_ITEMS, DOCA_GPU_MEM_TYPE_CPU_GPU, sizeof(struct batch_info),
                        DOCA_GPU_MEM_TYPE_CPU_GPU);
    struct doca_gpu_semaphore_gpu desc = sem_desc(sem);
    enum doca_gpu_semaphore_status status;
    pthread_t producer;
    void *rc = NULL;
    unsigned int wrong = 0;

    (void)state;
    assert_int_equal(pthread_create(&producer, NULL, handoff_producer, &desc), 0);
    for (uint64_t seq = 0; seq < HANDOFF_BATCHES; seq++) {
        uint32_t idx = (uint32_t)(seq % HANDOFF_ITEMS);
        struct batch_info *b;

        do
            assert_int_equal(doca_gpu_semaphore_get_status(sem, idx, &status), DOCA_SUCCESS);
        while (status != DOCA_GPU_SEMAPHORE_STATUS_READY);
        assert_int_equal(doca_gpu_semaphore_get_custom_info_addr(sem, idx, (void **)&b),
                         DOCA_SUCCESS);
        wrong += b->seq != seq || b->packets != (uint32_t)(seq * 7 + 1);
        assert_int_equal(doca_gpu_semaphore_set_status(sem, idx, DOCA_GPU_SEMAPHORE_STATUS_FREE),
                         DOCA_SUCCESS);
    }
    assert_int_equal(pthread_join(producer, &rc), 0);
    assert_null(rc);
    assert_int_equal(wrong, 0);
    assert_int_equal(doca_gpu_semaphore_destroy(sem), DOCA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test_teardown(test_refusals_before_start, test_teardown),
            cmocka_unit_test_teardown(test_cpu_visible, test_teardown),
            cmocka_unit_test_teardown(test_gpu_only, test_teardown),
            cmocka_unit_test_teardown(test_handle_core, test_teardown),
            cmocka_unit_test_teardown(test_handoff, test_teardown),
    };

    return cmocka_run_group_tests_name("gpunetio semaphores", tests, group_setup, group_teardown);
}
