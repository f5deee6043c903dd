/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/config_names.h"

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
    char err[256];

    if (!emu_config_names(value, config.device_count, config.names, err, sizeof(err))) {
        EMU_LOG_ERR("SOFTMLX5_NAMES='%s' %s; no device is offered", value, err);
        return false;
    }
    return true;
}

/* Yama's ptrace_scope, or EMU_YAMA_ABSENT / EMU_YAMA_UNREADABLE. */
static int config_yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope;

    if (f == NULL)
        return errno == ENOENT ? EMU_YAMA_ABSENT : EMU_YAMA_UNREADABLE;
    if (fscanf(f, "%d", &scope) != 1 || scope < 0 || scope > 3)
        scope = EMU_YAMA_UNREADABLE;
    fclose(f);
    return scope;
}

void emu_config_single_copy(const struct emu_single_copy_inputs *in, struct emu_config *cfg,
                            char *why, size_t n)
{
    cfg->single_copy_forced = in->setting == 1;
    cfg->single_copy = false;
    if (in->setting == 0) {
        snprintf(why, n, "single copy off: SOFTMLX5_SINGLE_COPY=0");
        return;
    }
    if (in->setting == 1) {
        cfg->single_copy = true;
        if (in->dumpable != 1)
            snprintf(why, n,
                     "single copy on: SOFTMLX5_SINGLE_COPY=1, but the process is not dumpable "
                     "(PR_GET_DUMPABLE %d): peers cannot read it and use the socket",
                     in->dumpable);
        else if (in->yama_scope >= 2)
            snprintf(why, n,
                     "single copy on: SOFTMLX5_SINGLE_COPY=1, but Yama ptrace_scope=%d lets only "
                     "CAP_SYS_PTRACE read other processes: peers without it use the socket",
                     in->yama_scope);
        else
            snprintf(why, n,
                     "single copy on: SOFTMLX5_SINGLE_COPY=1 (any process of this user may read "
                     "this one: PR_SET_PTRACER_ANY)");
        return;
    }
    if (in->dumpable != 1) {
        snprintf(why, n,
                 "single copy off: the process is not dumpable (PR_GET_DUMPABLE %d), so its peers "
                 "may not read it",
                 in->dumpable);
    } else if (in->yama_scope == EMU_YAMA_UNREADABLE) {
        snprintf(why, n,
                 "single copy off: Yama's ptrace_scope cannot be read; set SOFTMLX5_SINGLE_COPY=1 "
                 "to allow it");
    } else if (in->yama_scope >= 2) {
        snprintf(why, n,
                 "single copy off: Yama ptrace_scope=%d lets only CAP_SYS_PTRACE read other "
                 "processes",
                 in->yama_scope);
    } else if (in->yama_scope == 1) {
        snprintf(why, n,
                 "single copy off: Yama ptrace_scope=1; set SOFTMLX5_SINGLE_COPY=1 to allow it");
    } else {
        cfg->single_copy = true;
        if (in->yama_scope == EMU_YAMA_ABSENT)
            snprintf(why, n, "single copy on: Yama absent");
        else
            snprintf(why, n, "single copy on: Yama ptrace_scope=0");
    }
}

/* SOFTMLX5_ETH: the interface device 0's port 1 is attached to (an Ethernet link). */
static bool config_eth(const char *ifname)
{
    if (ifname == NULL || ifname[0] == '\0')
        return true;
    if (strlen(ifname) >= sizeof(config.eth_ifname) || strchr(ifname, '/') != NULL) {
        EMU_LOG_ERR("SOFTMLX5_ETH='%s' is not a network interface name (at most %zu characters, "
                    "no '/'); no device is offered",
                    ifname, sizeof(config.eth_ifname) - 1);
        return false;
    }
    if (config.link != EMU_LINK_ETH) {
        EMU_LOG_ERR("SOFTMLX5_ETH='%s' needs an Ethernet link, not SOFTMLX5_LINK=ib; no device "
                    "is offered",
                    ifname);
        return false;
    }
    snprintf(config.eth_ifname, sizeof(config.eth_ifname), "%s", ifname);
    return true;
}

static bool config_parse(void)
{
    long devices = 1, ports = 1, retry_ms = 2000, single_copy = -1, loop_rt = 1, gpu_ipc = 1;
    struct emu_single_copy_inputs sc;
    char why[256];
    const char *addr = getenv("SOFTMLX5_ADDR");
    const char *link = getenv("SOFTMLX5_LINK");
    const char *names = getenv("SOFTMLX5_NAMES");
    struct in_addr in;

    if (!config_int("SOFTMLX5_DEVICES", 1, EMU_MAX_DEVICES, &devices) ||
        !config_int("SOFTMLX5_PORTS", 1, EMU_MAX_PORTS, &ports) ||
        !config_int("SOFTMLX5_RETRY_TIMEOUT_MS", 1, 600000, &retry_ms) ||
        !config_int("SOFTMLX5_SINGLE_COPY", 0, 1, &single_copy) ||
        !config_int("SOFTMLX5_LOOP_RT", 0, 1, &loop_rt) ||
        !config_int("SOFTMLX5_GPU_IPC", 0, 1, &gpu_ipc))
        return false;
    config.loop_rt = loop_rt != 0;
    config.gpu_ipc = gpu_ipc != 0;
    config.device_count = (int)devices;
    config.port_count = (int)ports;
    config.retry_timeout_ms = (unsigned int)retry_ms;
    if (!config_names(names))
        return false;
    /*
     * One copy beats the socket's two on two CPUs as on sixteen
     * (bench/README.md); the OS decides whether peers may read the process.
     */
    sc.setting = single_copy;
    sc.yama_scope = config_yama_scope();
    sc.dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    emu_config_single_copy(&sc, &config, why, sizeof(why));
    EMU_LOG_INFO("%s", why);

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
    return config_eth(getenv("SOFTMLX5_ETH"));
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
