/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's version and the range of device code (kernels built with
 * the device headers) and host code it works with: [minimum compatible,
 * this library's], versions packed as (major << 16) | (minor << 8) | patch.
 */
#include <stdio.h>

#include "core/sdk.h"
#include "gpunetio_internal.h"

/* "5.0.0" */
static const char *version_text(uint32_t version, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u", (unsigned)(version >> DOCA_GPUNETIO_VERSION_MAJOR_SHIFT),
             (unsigned)((version >> DOCA_GPUNETIO_VERSION_MINOR_SHIFT) & 0xff),
             (unsigned)((version >> DOCA_GPUNETIO_VERSION_PATCH_SHIFT) & 0xff));
    return buf;
}

static doca_error_t version_check(const char *what, uint32_t version, uint32_t minimum)
{
    char given[24], low[24], high[24];

    if (version >= minimum && version <= DOCA_GPUNETIO_VERSION)
        return DOCA_SUCCESS;
    DOCA_LOG_ERR(
            "%s version %s is not supported: this library (%s) works with %s versions %s "
            "to %s; build it with the headers of this library, or use the library it was built for",
            what, version_text(version, given, sizeof(given)),
            version_text(DOCA_GPUNETIO_VERSION, high, sizeof(high)), what,
            version_text(minimum, low, sizeof(low)), high);
    return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_STABLE doca_error_t doca_gpu_verbs_get_library_version(uint32_t *version)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_get_library_version, (version), DOCA_ERROR_NOT_SUPPORTED);

    if (version == NULL) {
        DOCA_LOG_ERR("version is NULL: pass where to put the library version");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *version = DOCA_GPUNETIO_VERSION;
    return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t
doca_gpu_verbs_check_device_code_compatibility(uint32_t device_code_version)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_check_device_code_compatibility, (device_code_version),
                  DOCA_ERROR_NOT_SUPPORTED);

    return version_check("device code", device_code_version,
                         DOCA_GPUNETIO_MIN_COMPAT_DEVICE_CODE_VERSION);
}

DOCA_STABLE doca_error_t doca_gpu_verbs_check_host_code_compatibility(uint32_t host_code_version)
{
    DGN_SDK_ROUTE(doca_gpu_verbs_check_host_code_compatibility, (host_code_version),
                  DOCA_ERROR_NOT_SUPPORTED);

    return version_check("host code", host_code_version,
                         DOCA_GPUNETIO_MIN_COMPAT_HOST_CODE_VERSION);
}
