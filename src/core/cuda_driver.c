/* SPDX-License-Identifier: BSD-3-Clause */
#include "cuda_driver.h"

#include <pthread.h>
#include <stdio.h>

#include "dl.h"
#include "log.h"

static struct core_cuda_ops cuda_ops;

#define CUDA_ENTRY(member, symbol, params)    {symbol, (void **)&cuda_ops.member, false},
#define CUDA_OPTIONAL(member, symbol, params) {symbol, (void **)&cuda_ops.member, true},
static const struct core_dl_symbol cuda_symbols[] = {
        CORE_CUDA_SYMBOLS(CUDA_ENTRY) CORE_CUDA_OPTIONAL_SYMBOLS(CUDA_OPTIONAL)};
#undef CUDA_ENTRY
#undef CUDA_OPTIONAL

static const struct core_dl_library cuda_library = {
        .what = "CUDA driver",
        .soname = "libcuda.so.1",
        .env = CORE_LIBCUDA_ENV,
        .remedy = "install the NVIDIA driver (libcuda.so.1) on a machine with a GPU",
        .symbols = cuda_symbols,
        .symbol_count = sizeof(cuda_symbols) / sizeof(cuda_symbols[0]),
};

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static doca_error_t cuda_status;
static char cuda_reason[512];
static struct core_cuda_probe cuda_probe_result = {
        .status = DOCA_ERROR_NOT_SUPPORTED,
        .init_result = CORE_CU_SUCCESS,
        .init_error_name = "?",
        .init_error_text = "?",
        .driver_version = 0,
};

static void cuda_load(void)
{
    void *handle = NULL;
    const char *name = "?";
    const char *text = "?";
    core_cu_result rc;

    cuda_status = core_dl_load(&cuda_library, &handle, cuda_reason, sizeof(cuda_reason));
    cuda_probe_result.status = cuda_status;
    if (cuda_status != DOCA_SUCCESS)
        return;
    /* The driver answers its version before (and without) a successful cuInit. */
    if (cuda_ops.cuDriverGetVersion(&cuda_probe_result.driver_version) != CORE_CU_SUCCESS)
        cuda_probe_result.driver_version = 0;
    rc = cuda_ops.cuInit(0);
    cuda_probe_result.init_result = rc;
    if (rc == CORE_CU_SUCCESS)
        return;
    if (cuda_ops.cuGetErrorName(rc, &name) != CORE_CU_SUCCESS || name == NULL)
        name = "?";
    if (cuda_ops.cuGetErrorString(rc, &text) != CORE_CU_SUCCESS || text == NULL)
        text = "?";
    cuda_probe_result.init_error_name = name;
    cuda_probe_result.init_error_text = text;
    snprintf(cuda_reason, sizeof(cuda_reason),
             "CUDA driver %s failed to initialise: cuInit returned %d (%s: %s); check that a GPU "
             "is present and that the driver matches the kernel module",
             core_dl_file(&cuda_library), rc, name, text);
    cuda_status = DOCA_ERROR_DRIVER;
    cuda_probe_result.status = cuda_status;
}

doca_error_t core_cuda_get(const struct core_cuda_ops **cuda_out)
{
    pthread_once(&cuda_once, cuda_load);
    if (cuda_status != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s", cuda_reason);
        return cuda_status;
    }
    *cuda_out = &cuda_ops;
    return DOCA_SUCCESS;
}

const char *core_cuda_unavailable_reason(void)
{
    pthread_once(&cuda_once, cuda_load);
    return cuda_status == DOCA_SUCCESS ? NULL : cuda_reason;
}

void core_cuda_probe(struct core_cuda_probe *probe)
{
    pthread_once(&cuda_once, cuda_load);
    *probe = cuda_probe_result;
}
