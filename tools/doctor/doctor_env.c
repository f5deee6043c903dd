/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doctor's environment section: the preconditions GPU-initiated
 * networking has of a machine, each on one line saying what was found, what
 * follows from it, and how to fix it where something is wrong: the CUDA
 * driver and toolkit against the CUDA this library was built with, the
 * pkg-config modules agreeing, dma-buf on each GPU, nvidia_peermem, GDRCopy.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "gpunetio/gdrcopy.h"
#include "gpunetio/gpunetio_internal.h"

#ifndef DGN_CUDA_BUILD_VERSION
#define DGN_CUDA_BUILD_VERSION 0
#endif

/* Where the kernel lists loaded modules. */
#define DOCTOR_PEERMEM_SYSFS "/sys/module/nvidia_peermem"

/* The first line a command prints (without its newline), or "" when it prints none. */
static void doctor_run(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");

    out[0] = '\0';
    if (p == NULL)
        return;
    if (fgets(out, (int)len, p) == NULL)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

/* nvcc's release (12040 for "release 12.4"), 0 when there is no nvcc. */
static int doctor_nvcc_version(void)
{
    char line[256];
    const char *r;
    int major = 0, minor = 0;

    doctor_run("{ command -v nvcc >/dev/null 2>&1 && nvcc --version || "
               "/usr/local/cuda/bin/nvcc --version; } 2>/dev/null | grep -o 'release [0-9.]*'",
               line, sizeof(line));
    r = strstr(line, "release ");
    if (r == NULL || sscanf(r, "release %d.%d", &major, &minor) != 2)
        return 0;
    return major * 1000 + minor * 10;
}

static void doctor_env_cuda(int driver_version)
{
    int built = DGN_CUDA_BUILD_VERSION, nvcc = doctor_nvcc_version();
    char d[16], b[16], n[16];

    gpunetio_cuda_version_text(driver_version, d, sizeof(d));
    gpunetio_cuda_version_text(built, b, sizeof(b));
    gpunetio_cuda_version_text(nvcc, n, sizeof(n));
    if (built <= 0)
        printf("  CUDA build: this library was built without the CUDA toolkit: its kernels "
               "(examples, GPU tests) were not compiled; build it where nvcc is\n");
    else if (driver_version <= 0)
        printf("  CUDA build: CUDA %s; no driver to check it against (see above)\n", b);
    else if (driver_version < built)
        printf("  CUDA build: CUDA %s, but the driver supports CUDA %s only: doca_gpu_create "
               "refuses; install an NVIDIA driver for CUDA %s or newer\n",
               b, d, b);
    else
        printf("  CUDA build: CUDA %s, the driver supports CUDA %s: ok\n", b, d);
    if (nvcc <= 0)
        printf("  CUDA toolkit: no nvcc (PATH, /usr/local/cuda/bin): kernels of your own cannot "
               "be built here; install the CUDA toolkit\n");
    else if (driver_version > 0 && nvcc > driver_version)
        printf("  CUDA toolkit: nvcc %s, newer than the driver's CUDA %s: kernels it builds may "
               "not load (CUDA_ERROR_UNSUPPORTED_PTX_VERSION); update the driver or build with "
               "the toolkit of CUDA %s\n",
               n, d, d);
    else
        printf("  CUDA toolkit: nvcc %s%s\n", n,
               built > 0 && nvcc != built ? " (not the one this library was built with: fine "
                                            "while the driver supports both)"
                                          : ": ok");
}

static void doctor_env_pkgconfig(void)
{
    char gpunetio[64], common[64];

    doctor_run("pkg-config --modversion doca-gpunetio 2>/dev/null", gpunetio, sizeof(gpunetio));
    doctor_run("pkg-config --modversion doca-common 2>/dev/null", common, sizeof(common));
    if (gpunetio[0] == '\0' || common[0] == '\0')
        printf("  pkg-config: %s%s%s not found: `pkg-config --cflags --libs doca-gpunetio` "
               "will not build against this library; install it, or add <prefix>/lib/pkgconfig "
               "to PKG_CONFIG_PATH\n",
               gpunetio[0] == '\0' ? "doca-gpunetio" : "",
               gpunetio[0] == '\0' && common[0] == '\0' ? " and " : "",
               common[0] == '\0' ? "doca-common" : "");
    else if (strcmp(gpunetio, common) != 0)
        printf("  pkg-config: doca-gpunetio %s and doca-common %s disagree: a program may "
               "compile against one and link the other; install one version of both, or fix "
               "PKG_CONFIG_PATH\n",
               gpunetio, common);
    else
        printf("  pkg-config: doca-gpunetio and doca-common %s: ok\n", gpunetio);
}

static void doctor_env_memory(const struct doctor_gpus *gpus)
{
    bool peermem = access(DOCTOR_PEERMEM_SYSFS, F_OK) == 0;
    const char *gdr = gpunetio_gdrcopy_unavailable_reason();
    int no_dmabuf = 0;

    for (int i = 0; i < gpus->count; i++) {
        if (!gpus->dmabuf[i])
            no_dmabuf++;
        printf("  dma-buf, GPU %d: %s\n", i,
               gpus->dmabuf[i] ? "yes: GPU memory is registered with the NIC through dma-buf"
               : peermem       ? "no: GPU memory is registered through nvidia_peermem"
                               : "no, and nvidia_peermem is not loaded: GPU memory cannot be "
                                 "registered with a NIC; modprobe nvidia_peermem, or use a "
                                 "driver and kernel with dma-buf (open kernel modules)");
    }
    printf("  nvidia_peermem: %s\n",
           peermem         ? "loaded"
           : no_dmabuf > 0 ? "not loaded: needed by the GPUs without dma-buf above; modprobe "
                             "nvidia_peermem"
                           : "not loaded: not needed while every GPU has dma-buf");
    if (gdr == NULL)
        printf("  GDRCopy: present: DOCA_GPU_MEM_TYPE_GPU_CPU memory and write_lat -r 2 can be "
               "used\n");
    else
        printf("  GDRCopy: absent: DOCA_GPU_MEM_TYPE_GPU_CPU memory and the emulated no-DBR "
               "doorbell (write_lat -r 2) are refused; services and signal maps work without "
               "it; %s\n",
               gdr);
}

void doctor_report_environment(int driver_version, const struct doctor_gpus *gpus)
{
    printf("environment:\n");
    doctor_env_cuda(driver_version);
    doctor_env_pkgconfig();
    doctor_env_memory(gpus);
}
