/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_common.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- Log ------------------------------------------------------------------------------------ */

static const char *const ex_level_names[8] = {"EMERG",   "ALERT",  "CRIT", "ERR",
                                              "WARNING", "NOTICE", "INFO", "DEBUG"};
static pthread_mutex_t ex_log_lock = PTHREAD_MUTEX_INITIALIZER;

/* The examples' threshold: WARNING, or DOCA_GPUNETIO_LOG when that asks for more. */
static int ex_log_threshold(void)
{
    static int threshold = -1;
    const char *env;
    char *end = NULL;
    long v;

    if (threshold >= 0)
        return threshold;
    threshold = EX_LOG_WARNING;
    env = getenv("DOCA_GPUNETIO_LOG");
    if (env != NULL && env[0] != '\0') {
        v = strtol(env, &end, 10);
        if (*end == '\0' && v > EX_LOG_WARNING && v <= EX_LOG_DEBUG)
            threshold = (int)v;
    }
    return threshold;
}

void ex_log(int level, const char *file, int line, const char *func, const char *fmt, ...)
{
    char stamp[64];
    time_t now = time(NULL);
    struct tm tm;
    FILE *out = level <= EX_LOG_ERR ? stderr : stdout;
    va_list ap;

    pthread_mutex_lock(&ex_log_lock);
    if (level > ex_log_threshold()) {
        pthread_mutex_unlock(&ex_log_lock);
        return;
    }
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S %Y", &tm);
    fprintf(out, "%s [%s] [%s]: %d: %s(): ", stamp, ex_level_names[level & 7], file, line, func);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
    pthread_mutex_unlock(&ex_log_lock);
}

/* ---- Command line --------------------------------------------------------------------------- */

/* "0 (AUTO), 1 (CPU_PROXY), ... or 17 (CPU_PROXY_FREE_FLOW)": the handlers ex accepts. */
static const char *ex_handler_list(const struct ex_info *ex, char *buf, size_t len)
{
    size_t used = 0;
    int left = __builtin_popcount(ex->handlers);

    buf[0] = '\0';
    for (uint32_t h = 0; h < 32 && used < len; h++) {
        if ((ex->handlers & (1u << h)) == 0)
            continue;
        left--;
        used += (size_t)snprintf(buf + used, len - used, "%s%u (%s)",
                                 used == 0   ? ""
                                 : left == 0 ? " or "
                                             : ", ",
                                 h, gdaki_nic_handler_name(h));
    }
    return buf;
}

static void ex_usage(const struct ex_info *ex, FILE *out)
{
    char handlers[256];

    fprintf(out,
            "Usage: %s [options]\n"
            "Without -c it runs as the server; with -c as the client of that server.\n"
            "  -c <IPv4>          the server's address (client)\n"
            "  -d <device>        RDMA device name, e.g. mlx5_0 (default: the first device)\n"
            "  -g <bus id>        GPU PCIe bus id, e.g. 8A:00.0 (default: the first GPU;\n"
            "                     not used with --exec cpu)\n"
            "  -i <iterations>    per message size (default %d; client and server must agree)\n",
            ex->name, EX_DEFAULT_ITERATIONS);
    if (ex->has_exec_scope)
        fprintf(out, "  -e <0|1>           CUDA execution scope: 0 thread (default), 1 warp\n");
    if (ex->has_signal_mode)
        fprintf(out,
                "  -w <0|1>           0: put_signal, a fetch-add on the peer's signal (default);\n"
                "                     1: put_immediate, a write with immediate whose signal\n"
                "                     the peer's service adds to its signal map (both sides)\n");
    if (ex->has_dbr_mode)
        fprintf(out,
                "  -r <1|2>           with -p 10: the send queue's no-DBR mode, 1 the NIC's\n"
                "                     (default), 2 emulated (a CPU thread updates the record)\n");
    fprintf(out,
            "  -p <handler>       NIC handler, default 0 (AUTO); one of\n"
            "                     %s\n"
            "  -l <index>         GID index (default 0)\n"
            "  -z <0|1>           1: register the GPU buffers through the NIC's Data Direct\n"
            "                     device (GPU execution; pass it to both sides)\n"
            "  -P, --port <port>  out-of-band TCP port (default %d; a server given 0 picks\n"
            "                     a free port and prints it)\n"
            "  --exec <gpu|cpu>   data path in CUDA kernels (default) or in CPU threads\n"
            "                     (host memory, no GPU needed)\n"
            "  -h, --help         this text\n",
            ex_handler_list(ex, handlers, sizeof(handlers)), EX_DEFAULT_PORT);
}

/* A decimal number in [min, max]; 0 on success. */
int ex_number(const char *opt, const char *s, unsigned long min, unsigned long max,
              unsigned long *out)
{
    char *end = NULL;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min || v > max) {
        EX_ERR("%s '%s': expected a number from %lu to %lu", opt, s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int ex_parse_exec(const char *s, enum ex_exec *exec)
{
    if (strcmp(s, "gpu") == 0) {
        *exec = EX_EXEC_GPU;
    } else if (strcmp(s, "cpu") == 0) {
        *exec = EX_EXEC_CPU;
    } else {
        EX_ERR("--exec '%s': expected gpu or cpu", s);
        return -1;
    }
    return 0;
}

int ex_parse_args(const struct ex_info *ex, int argc, char **argv, struct ex_args *a)
{
    static const struct option longs[] = {
            {"exec", required_argument, NULL, 'x'},
            {"port", required_argument, NULL, 'P'},
            {"help", no_argument, NULL, 'h'},
            {NULL, 0, NULL, 0},
    };
    char shorts[32] = "c:d:g:i:l:p:P:z:h";
    char handlers[256];
    unsigned long v;
    int c;

    if (ex->has_exec_scope)
        strcat(shorts, "e:");
    if (ex->has_signal_mode)
        strcat(shorts, "w:");
    if (ex->has_dbr_mode)
        strcat(shorts, "r:");
    memset(a, 0, sizeof(*a));
    a->iterations = EX_DEFAULT_ITERATIONS;
    a->exec_scope = DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD;
    a->nic_handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO;
    a->exec = EX_EXEC_GPU;
    a->port = EX_DEFAULT_PORT;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        switch (c) {
        case 'c':
            a->server_ip = optarg;
            break;
        case 'd':
            a->dev_name = optarg;
            break;
        case 'g':
            a->gpu_bus_id = optarg;
            break;
        case 'i':
            if (ex_number("-i", optarg, 1, 1u << 30, &v) != 0)
                return -1;
            a->iterations = (uint32_t)v;
            break;
        case 'e':
            if (ex_number("-e", optarg, 0, 1, &v) != 0)
                return -1;
            a->exec_scope = v == 0 ? DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD
                                   : DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP;
            break;
        case 'w':
            if (ex_number("-w", optarg, 0, 1, &v) != 0)
                return -1;
            a->signal_mode = (uint32_t)v;
            break;
        case 'r':
            if (ex_number("-r", optarg, 1, 2, &v) != 0)
                return -1;
            a->dbr_mode = (uint32_t)v;
            break;
        case 'p':
            if (ex_number("-p", optarg, 0, 31, &v) != 0)
                return -1;
            if ((ex->refused_handlers & (1u << v)) != 0) {
                EX_ERR("-p %lu: %s; use %s", v, ex->refused_handler_why,
                       ex_handler_list(ex, handlers, sizeof(handlers)));
                return -1;
            }
            if ((ex->handlers & (1u << v)) == 0) {
                EX_ERR("-p %lu: %s does not support this NIC handler; use %s", v, ex->name,
                       ex_handler_list(ex, handlers, sizeof(handlers)));
                return -1;
            }
            a->nic_handler = (enum doca_gpu_dev_verbs_nic_handler)v;
            break;
        case 'l':
            if (ex_number("-l", optarg, 0, 255, &v) != 0)
                return -1;
            a->gid_index = (uint8_t)v;
            break;
        case 'z':
            if (ex_number("-z", optarg, 0, 1, &v) != 0)
                return -1;
            a->data_direct = (uint32_t)v;
            break;
        case 'P':
            if (ex_number("-P", optarg, 0, 65535, &v) != 0)
                return -1;
            a->port = (uint16_t)v;
            break;
        case 'x':
            if (ex_parse_exec(optarg, &a->exec) != 0)
                return -1;
            break;
        case 'h':
            ex_usage(ex, stdout);
            return 1;
        default:
            ex_usage(ex, stderr);
            return -1;
        }
    }
    if (optind < argc) {
        EX_ERR("unexpected argument '%s' (see --help)", argv[optind]);
        return -1;
    }
    if (a->server_ip != NULL && a->port == 0) {
        EX_ERR("-P 0 (any free port) is for the server; give the client the server's port");
        return -1;
    }
    if (a->exec == EX_EXEC_CPU && a->exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP) {
        EX_ERR("-e 1 (warp execution scope) needs CUDA warps: it cannot run with --exec cpu");
        return -1;
    }
    if (a->dbr_mode == 2 && a->nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF) {
        EX_ERR("-r 2 with -p 6: GPU SM BlueFlame writes the doorbell record from the GPU, which "
               "the emulated no-DBR mode leaves to a CPU thread");
        return -1;
    }
    if (a->dbr_mode != 0 && a->nic_handler != DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR) {
        EX_ERR("-r %u selects the no-DBR mode of -p 10 (GPU SM no DBR): give -p 10", a->dbr_mode);
        return -1;
    }
    if (a->exec == EX_EXEC_CPU && a->gpu_bus_id != NULL)
        EX_INFO("-g %s is not used with --exec cpu", a->gpu_bus_id);
    return 0;
}

/* ---- Signals and time ----------------------------------------------------------------------- */

volatile sig_atomic_t ex_signal;

static void ex_on_signal(int signo)
{
    char msg[64] = "Signal ";
    size_t n = strlen(msg);
    char digits[8];
    int d = 0;
    int v = signo;

    /* Only async-signal-safe calls here: the number is formatted by hand. */
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && d < (int)sizeof(digits));
    while (d > 0)
        msg[n++] = digits[--d];
    memcpy(msg + n, " received, preparing to exit!\n", 31);
    n += 30;
    if (write(STDOUT_FILENO, msg, n) < 0) {
        /* nothing to do: the flag below is what matters */
    }
    ex_signal = signo;
}

void ex_signals_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = ex_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking call returns EINTR and the caller looks */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

uint64_t ex_now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
