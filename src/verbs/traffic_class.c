/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system-wide RoCE traffic class of a port, which the kernel keeps in
 * <ibdev sysfs>/tc/<port>/traffic_class as a line "Global tclass=N" (set by
 * an administrator; libibverbs lets it override a program's own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "verbs_internal.h"

#define VERBS_TCLASS_KEY "Global tclass="

doca_error_t verbs_parse_traffic_class(const char *text, uint8_t *tclass)
{
    const char *at = strstr(text, VERBS_TCLASS_KEY);
    char *end;
    long v;

    if (at == NULL)
        return DOCA_ERROR_NOT_FOUND;
    at += strlen(VERBS_TCLASS_KEY);
    errno = 0;
    v = strtol(at, &end, 10);
    if (end == at || errno != 0 || v < 0 || v > UINT8_MAX)
        return DOCA_ERROR_NOT_FOUND;
    *tclass = (uint8_t)v;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_query_global_traffic_class(doca_dev_t *net_dev, uint16_t port_num,
                                                   uint8_t *global_traffic_class)
{
    DGN_SDK_ROUTE(doca_verbs_query_global_traffic_class, (net_dev, port_num, global_traffic_class),
                  DOCA_ERROR_NOT_SUPPORTED);

    char path[512], text[256];
    size_t n;
    FILE *f;
    int len;

    if (net_dev == NULL || global_traffic_class == NULL || port_num == 0) {
        DOCA_LOG_ERR("net_dev (%p) and global_traffic_class (%p) must not be NULL and port_num "
                     "(%u) not 0",
                     (void *)net_dev, (void *)global_traffic_class, port_num);
        return DOCA_ERROR_INVALID_VALUE;
    }
    len = snprintf(path, sizeof(path), "%s/tc/%u/traffic_class", net_dev->ctx->device->ibdev_path,
                   port_num);
    if (len < 0 || (size_t)len >= sizeof(path)) {
        DOCA_LOG_ERR("the device's sysfs path is too long");
        return DOCA_ERROR_DRIVER;
    }
    f = fopen(path, "r");
    if (f == NULL) {
        if (errno == EACCES || errno == EPERM) {
            DOCA_LOG_ERR("cannot read %s: %s", path, strerror(errno));
            return DOCA_ERROR_NOT_PERMITTED;
        }
        /* No global traffic class configured (or no such port): not an error worth a line. */
        DOCA_LOG_DBG("no %s: %s", path, strerror(errno));
        return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_OPERATING_SYSTEM;
    }
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    return verbs_parse_traffic_class(text, global_traffic_class);
}
