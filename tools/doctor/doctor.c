/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca-gpunetio-doctor: says what this machine offers GPU-initiated
 * networking. It loads rdma-core and the CUDA driver the way the library does,
 * lists RDMA devices and GPUs, names what is missing and why, checks the
 * machine's preconditions (doctor_env.c) and prints the capability snapshot
 * of both axes (doctor_caps.c).
 *
 *   doca-gpunetio-doctor [--require-rdma] [--require-cuda] [--snapshot FILE] [--compare FILE]
 *
 * --snapshot FILE saves the snapshot as JSON; --compare FILE says what
 * changed since a saved one. Exit status: 0 when everything required is
 * usable (and a snapshot asked for was saved or compared), 1 otherwise, 2 on
 * a bad command line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/cuda_driver.h"
#include "core/log.h"
#include "core/rdma.h"
#include "doctor.h"

static void doctor_usage(FILE *out)
{
    fprintf(out, "usage: doca-gpunetio-doctor [--require-rdma] [--require-cuda] [--snapshot FILE] "
                 "[--compare FILE]\n");
}

static void doctor_report_rdma_devices(const struct core_ibv_ops *ibv,
                                       const struct core_mlx5dv_ops *mlx5)
{
    int count = 0;
    struct ibv_device **list = ibv->get_device_list(&count);

    if (list == NULL || count == 0) {
        printf("  devices: none (no RDMA device here; softmlx5-run provides a software one)\n");
        if (list != NULL)
            ibv->free_device_list(list);
        return;
    }
    for (int i = 0; i < count; i++)
        printf("  device %s: mlx5 direct verbs %s\n", ibv->get_device_name(list[i]),
               mlx5->is_supported(list[i]) ? "supported" : "not supported");
    ibv->free_device_list(list);
}

static bool doctor_report_rdma(void)
{
    const struct core_ibv_ops *ibv;
    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err = core_rdma_get(&ibv, &mlx5);

    if (err != DOCA_SUCCESS) {
        printf("rdma-core: unavailable, %s: %s\n", doca_error_get_name(err),
               core_rdma_unavailable_reason());
        return false;
    }
    printf("rdma-core: loaded\n");
    doctor_report_rdma_devices(ibv, mlx5);
    return true;
}

static void doctor_report_gpu(const struct core_cuda_ops *cuda, int ordinal,
                              struct doctor_gpus *gpus)
{
    core_cu_device dev;
    char name[128] = "?";
    char bus_id[32] = "?";
    int major = 0, minor = 0, dmabuf = 0;

    if (cuda->cuDeviceGet(&dev, ordinal) != CORE_CU_SUCCESS) {
        printf("  GPU %d: cannot be opened\n", ordinal);
        return;
    }
    cuda->cuDeviceGetName(name, sizeof(name), dev);
    cuda->cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), dev);
    cuda->cuDeviceGetAttribute(&major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR, dev);
    cuda->cuDeviceGetAttribute(&minor, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR, dev);
    cuda->cuDeviceGetAttribute(&dmabuf, CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED, dev);
    printf("  GPU %d: %s, bus id %s, compute capability %d.%d%s, dma-buf %s\n", ordinal, name,
           bus_id, major, minor, major >= 8 ? "" : " (below 8.0: not supported)",
           dmabuf ? "yes" : "no");
    if (gpus->count < DOCTOR_MAX_GPUS)
        gpus->dmabuf[gpus->count++] = dmabuf != 0;
}

static bool doctor_report_cuda(int *version_out, struct doctor_gpus *gpus)
{
    const struct core_cuda_ops *cuda;
    doca_error_t err = core_cuda_get(&cuda);
    int version = 0, count = 0;

    if (err != DOCA_SUCCESS) {
        printf("CUDA driver: unavailable, %s: %s\n", doca_error_get_name(err),
               core_cuda_unavailable_reason());
        return false;
    }
    cuda->cuDriverGetVersion(&version);
    cuda->cuDeviceGetCount(&count);
    printf("CUDA driver: loaded, version %d.%d, %d GPU(s)\n", version / 1000, (version % 1000) / 10,
           count);
    for (int i = 0; i < count; i++)
        doctor_report_gpu(cuda, i, gpus);
    *version_out = version;
    return count > 0;
}

int main(int argc, char **argv)
{
    bool require_rdma = false, require_cuda = false;
    const char *snapshot_path = NULL, *compare_path = NULL;
    struct doctor_gpus gpus = {0};
    int driver_version = 0;
    bool rdma_ok, cuda_ok, caps_ok;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--require-rdma") == 0) {
            require_rdma = true;
        } else if (strcmp(argv[i], "--require-cuda") == 0) {
            require_cuda = true;
        } else if (strcmp(argv[i], "--snapshot") == 0 && i + 1 < argc) {
            snapshot_path = argv[++i];
        } else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc) {
            compare_path = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            doctor_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "doca-gpunetio-doctor: unknown option '%s'\n", argv[i]);
            doctor_usage(stderr);
            return 2;
        }
    }
    printf("doca-gpunetio-open %s\n", DGN_VERSION_STRING);
    printf("log threshold: %d (%s), from %s\n", core_log_threshold(),
           core_log_level_name(core_log_threshold()), CORE_LOG_ENV);
    rdma_ok = doctor_report_rdma();
    cuda_ok = doctor_report_cuda(&driver_version, &gpus);
    doctor_report_environment(driver_version, &gpus);
    caps_ok = doctor_report_capabilities(snapshot_path, compare_path);
    if ((require_rdma && !rdma_ok) || (require_cuda && !cuda_ok)) {
        printf("result: a required component is unavailable\n");
        return 1;
    }
    if (!caps_ok) {
        printf("result: the capability snapshot failed (its lines above say why)\n");
        return 1;
    }
    printf("result: ok\n");
    return 0;
}
