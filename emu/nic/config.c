/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/emu_log.h"

static struct emu_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* Reads an integer variable in [min, max]; absent keeps *out. */
static bool config_int(const char *name, long min, long max, long *out)
{
    const char *value = getenv(name);
    char *end = NULL;
    long v;

    if (value == NULL || value[0] == '\0')
        return true;
    errno = 0;
    v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < min || v > max) {
        EMU_LOG_ERR("%s='%s' is not a number in %ld..%ld: fix the variable (or the launcher "
                    "option); no device is offered",
                    name, value, min, max);
        return false;
    }
    *out = v;
    return true;
}

static bool config_names(const char *value)
{
    char copy[EMU_MAX_DEVICES * EMU_NAME_MAX];
    char *save = NULL;
    int i = 0;

    if (strlen(value) >= sizeof(copy)) {
        EMU_LOG_ERR("SOFTMLX5_NAMES is too long; no device is offered");
        return false;
    }
    strcpy(copy, value);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (i >= config.device_count || strlen(tok) >= EMU_NAME_MAX) {
            EMU_LOG_ERR("SOFTMLX5_NAMES='%s' names more devices than SOFTMLX5_DEVICES=%d, or a "
                        "name longer than %d characters; no device is offered",
                        value, config.device_count, EMU_NAME_MAX - 1);
            return false;
        }
        strcpy(config.names[i++], tok);
    }
    return true;
}

static bool config_parse(void)
{
    long devices = 1, ports = 1, retry_ms = 2000;
    /*
     * Default: single copy on hosts of more than two CPUs. With two, the
     * socket path's two copies (sender and receiver) run in parallel and were
     * measured faster; with more, the kernel's socket path is the bottleneck
     * and one copy wins (bench/README.md).
     */
    long single_copy = sysconf(_SC_NPROCESSORS_ONLN) > 2;
    const char *addr = getenv("SOFTMLX5_ADDR");
    const char *link = getenv("SOFTMLX5_LINK");
    const char *names = getenv("SOFTMLX5_NAMES");
    struct in_addr in;

    if (!config_int("SOFTMLX5_DEVICES", 1, EMU_MAX_DEVICES, &devices) ||
        !config_int("SOFTMLX5_PORTS", 1, EMU_MAX_PORTS, &ports) ||
        !config_int("SOFTMLX5_RETRY_TIMEOUT_MS", 1, 600000, &retry_ms) ||
        !config_int("SOFTMLX5_SINGLE_COPY", 0, 1, &single_copy))
        return false;
    config.single_copy = single_copy != 0;
    config.device_count = (int)devices;
    config.port_count = (int)ports;
    config.retry_timeout_ms = (unsigned int)retry_ms;
    for (int i = 0; i < config.device_count; i++)
        snprintf(config.names[i], EMU_NAME_MAX, "mlx5_%d", i);
    if (names != NULL && names[0] != '\0' && !config_names(names))
        return false;

    if (addr == NULL || addr[0] == '\0')
        addr = "127.0.0.1";
    if (inet_pton(AF_INET, addr, &in) != 1) {
        EMU_LOG_ERR("SOFTMLX5_ADDR='%s' is not an IPv4 address; no device is offered", addr);
        return false;
    }
    config.ipv4 = ntohl(in.s_addr);

    if (link == NULL || link[0] == '\0' || strcmp(link, "eth") == 0) {
        config.link = EMU_LINK_ETH;
    } else if (strcmp(link, "ib") == 0) {
        config.link = EMU_LINK_IB;
    } else {
        EMU_LOG_ERR("SOFTMLX5_LINK='%s' is neither 'eth' nor 'ib'; no device is offered", link);
        return false;
    }
    return true;
}

static void config_load(void)
{
    config.valid = config_parse();
    if (!config.valid)
        config.device_count = 0;
}

const struct emu_config *emu_config_get(void)
{
    pthread_once(&config_once, config_load);
    return &config;
}
