/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5-run: runs a program on the software ConnectX NIC.
 *
 *   softmlx5-run [options] -- COMMAND [ARGS...]
 *
 * It puts softmlx5's libibverbs.so.1 and libmlx5.so.1 first on the library
 * path, describes the devices in SOFTMLX5_* variables, and executes COMMAND,
 * which then cannot tell the software NIC from rdma-core and a ConnectX card.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic/config_names.h"

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: softmlx5-run [options] -- COMMAND [ARGS...]\n"
            "  -n, --devices N          number of devices, 1..8 (default 1)\n"
            "  -p, --ports N            ports per device, 1..2 (default 1)\n"
            "  -N, --names A,B,...      device names (default mlx5_0, mlx5_1, ...)\n"
            "  -a, --addr IPV4          address the devices use on the wire (default "
            "127.0.0.1);\n"
            "                           GIDs are its IPv4-mapped form\n"
            "  -l, --link eth|ib        link layer: RoCE v2 (default) or InfiniBand with LIDs\n"
            "  -e, --eth IFNAME         attach device 0's port 1 to this network interface:\n"
            "                           raw Ethernet queues send and receive its frames\n"
            "                           (a packet socket: needs CAP_NET_RAW)\n"
            "  -t, --retry-timeout MS   time before an unanswered request completes with a\n"
            "                           retry-exceeded error (default 2000)\n"
            "  -v, --log LEVEL          softmlx5 log level, 0 (EMERG) .. 7 (DEBUG), default 3\n"
            "  -h, --help               this text\n");
}

/* Checks an integer option and exports it. */
static int run_set_int(const char *var, const char *opt, const char *value, long min, long max)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "softmlx5-run: %s '%s' is not a number in %ld..%ld\n", opt, value, min,
                max);
        return -1;
    }
    return setenv(var, value, 1);
}

/* build/bin/softmlx5-run -> build/lib/softmlx5 (the same layout when installed). */
static int run_library_dir(char *dir, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n < 0) {
        perror("softmlx5-run: cannot find its own path");
        return -1;
    }
    exe[n] = '\0';
    if (snprintf(dir, size, "%s/../lib/softmlx5", dirname(exe)) >= (int)size)
        return -1;
    if (access(dir, R_OK) != 0) {
        fprintf(stderr, "softmlx5-run: the software NIC libraries are not in %s\n", dir);
        return -1;
    }
    return 0;
}

/*
 * The device names the program will see, checked by the rule softmlx5
 * applies (nic/config_names.h): from -N or an inherited SOFTMLX5_NAMES,
 * for the devices of -n or SOFTMLX5_DEVICES (1 when neither is set).
 */
static int run_check_names(bool names_given)
{
    const char *list = getenv("SOFTMLX5_NAMES");
    const char *devices = getenv("SOFTMLX5_DEVICES");
    char names[EMU_MAX_DEVICES][EMU_NAME_MAX];
    char err[256];
    char *end = NULL;
    long count = 1;

    if (list == NULL || list[0] == '\0')
        return 0;
    if (devices != NULL && devices[0] != '\0') {
        errno = 0;
        count = strtol(devices, &end, 10);
        if (errno != 0 || *end != '\0' || count < 1 || count > EMU_MAX_DEVICES)
            return 0; /* softmlx5 reports the bad SOFTMLX5_DEVICES itself */
    }
    if (emu_config_names(list, (int)count, names, err, sizeof(err)))
        return 0;
    fprintf(stderr, "softmlx5-run: %s '%s' %s\n", names_given ? "--names" : "SOFTMLX5_NAMES", list,
            err);
    return -1;
}

static int run_prepend_library_path(const char *dir)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    char value[PATH_MAX * 4];

    if (old != NULL && old[0] != '\0')
        snprintf(value, sizeof(value), "%s:%s", dir, old);
    else
        snprintf(value, sizeof(value), "%s", dir);
    return setenv("LD_LIBRARY_PATH", value, 1);
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
            {"devices", required_argument, NULL, 'n'},
            {"ports", required_argument, NULL, 'p'},
            {"names", required_argument, NULL, 'N'},
            {"addr", required_argument, NULL, 'a'},
            {"link", required_argument, NULL, 'l'},
            {"eth", required_argument, NULL, 'e'},
            {"retry-timeout", required_argument, NULL, 't'},
            {"log", required_argument, NULL, 'v'},
            {"help", no_argument, NULL, 'h'},
            {NULL, 0, NULL, 0},
    };
    char libdir[PATH_MAX];
    struct in_addr in;
    bool names_given = false;
    int opt, rc = 0;

    while ((opt = getopt_long(argc, argv, "+n:p:N:a:l:e:t:v:h", options, NULL)) != -1) {
        switch (opt) {
        case 'n':
            rc = run_set_int("SOFTMLX5_DEVICES", "--devices", optarg, 1, EMU_MAX_DEVICES);
            break;
        case 'p':
            rc = run_set_int("SOFTMLX5_PORTS", "--ports", optarg, 1, 2);
            break;
        case 'N':
            rc = setenv("SOFTMLX5_NAMES", optarg, 1);
            names_given = true;
            break;
        case 'a':
            if (inet_pton(AF_INET, optarg, &in) != 1) {
                fprintf(stderr, "softmlx5-run: --addr '%s' is not an IPv4 address\n", optarg);
                return 2;
            }
            rc = setenv("SOFTMLX5_ADDR", optarg, 1);
            break;
        case 'l':
            if (strcmp(optarg, "eth") != 0 && strcmp(optarg, "ib") != 0) {
                fprintf(stderr, "softmlx5-run: --link '%s' must be 'eth' or 'ib'\n", optarg);
                return 2;
            }
            rc = setenv("SOFTMLX5_LINK", optarg, 1);
            break;
        case 'e':
            if (optarg[0] == '\0' || strlen(optarg) >= IF_NAMESIZE || if_nametoindex(optarg) == 0) {
                fprintf(stderr,
                        "softmlx5-run: --eth '%s': no network interface of that name in this "
                        "network namespace (ip link lists them)\n",
                        optarg);
                return 2;
            }
            rc = setenv("SOFTMLX5_ETH", optarg, 1);
            break;
        case 't':
            rc = run_set_int("SOFTMLX5_RETRY_TIMEOUT_MS", "--retry-timeout", optarg, 1, 600000);
            break;
        case 'v':
            rc = run_set_int("SOFTMLX5_LOG", "--log", optarg, 0, 7);
            break;
        case 'h':
            run_usage(stdout);
            return 0;
        default:
            run_usage(stderr);
            return 2;
        }
        if (rc != 0)
            return 2;
    }
    if (optind >= argc) {
        fprintf(stderr, "softmlx5-run: no command given\n");
        run_usage(stderr);
        return 2;
    }
    if (run_check_names(names_given) != 0)
        return 2;
    if (run_library_dir(libdir, sizeof(libdir)) != 0 || run_prepend_library_path(libdir) != 0)
        return 2;
    execvp(argv[optind], &argv[optind]);
    fprintf(stderr, "softmlx5-run: cannot run '%s': %s\n", argv[optind], strerror(errno));
    return 127;
}
