/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every example shares: its log, its command line, signal handling and
 * a clock. The examples are ordinary users of the library: they include only
 * the public headers and link libdoca_gpunetio.so and libibverbs.
 */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Log ------------------------------------------------------------------------------------ */

/*
 * Syslog levels, as DOCA_GPUNETIO_LOG counts them. The examples always print
 * their ERR and WARNING lines; DOCA_GPUNETIO_LOG=6 adds INFO (and the
 * library's own lines). ERR goes to stderr, everything else to stdout.
 */
enum ex_log_level {
    EX_LOG_ERR = 3,
    EX_LOG_WARNING = 4,
    EX_LOG_INFO = 6,
    EX_LOG_DEBUG = 7,
};

void ex_log(int level, const char *file, int line, const char *func, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

#define EX_ERR(...)  ex_log(EX_LOG_ERR, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define EX_WARN(...) ex_log(EX_LOG_WARNING, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define EX_INFO(...) ex_log(EX_LOG_INFO, __FILE__, __LINE__, __func__, __VA_ARGS__)

/* ---- Command line --------------------------------------------------------------------------- */

#define EX_DEFAULT_ITERATIONS 2048
#define EX_DEFAULT_PORT       2000

/* What an example is, for the command line and the connect-time handshake. */
struct ex_info {
    const char *name;     /* binary name, e.g. "gpunetio_verbs_put_bw" */
    uint32_t id;          /* sent at connect: both peers must run the same example */
    bool has_exec_scope;  /* accepts -e */
    bool has_signal_mode; /* accepts -w (put_signal, or put_immediate with a signal map) */
    bool has_dbr_mode;    /* accepts -r (handler 10's no-DBR mode: hardware or emulated) */
    uint32_t handlers;    /* bit h set: -p h is accepted */
    /* Bit h set: -p h is refused with refused_handler_why (0: the usual line for any other). */
    uint32_t refused_handlers;
    const char *refused_handler_why;
};

enum ex_exec {
    EX_EXEC_GPU = 0, /* CUDA kernels on the GPU of -g */
    EX_EXEC_CPU = 1, /* CPU threads running the same data-path core; host memory only */
};

struct ex_args {
    const char *server_ip;                         /* -c: client of this server; NULL: server */
    const char *dev_name;                          /* -d: RDMA device; NULL: the first one */
    const char *gpu_bus_id;                        /* -g: GPU PCIe bus id; NULL: the first GPU */
    uint32_t iterations;                           /* -i */
    enum doca_gpu_dev_verbs_exec_scope exec_scope; /* -e */
    uint32_t signal_mode; /* -w: 0 put_signal (fetch-add), 1 put_immediate and a signal map */
    uint32_t dbr_mode;    /* -r: 0 the handler's default, 1 hardware no-DBR, 2 emulated */
    enum doca_gpu_dev_verbs_nic_handler nic_handler; /* -p */
    enum ex_exec exec;                               /* --exec */
    uint8_t gid_index;                               /* -l */
    uint16_t port;        /* -P: out-of-band TCP port (server: 0 picks a free one) */
    uint32_t data_direct; /* -z 1: GPU buffers registered through the NIC's Data Direct device */
};

/*
 * Parses argv into a. Returns 0 to run, 1 when the usage was asked for
 * (printed; exit successfully), -1 on a bad command line (reported).
 */
int ex_parse_args(const struct ex_info *ex, int argc, char **argv, struct ex_args *a);

/* The argument s of option opt as a number from min to max; -1 (reported) when it is not one. */
int ex_number(const char *opt, const char *s, unsigned long min, unsigned long max,
              unsigned long *out);

/* --exec's argument: gpu or cpu; -1 (reported) for anything else. */
int ex_parse_exec(const char *s, enum ex_exec *exec);

/* ---- Signals and time ----------------------------------------------------------------------- */

/* Set (to the signal number) by SIGINT or SIGTERM once ex_signals_install() ran. */
extern volatile sig_atomic_t ex_signal;

/* SIGINT and SIGTERM print "Signal N received, preparing to exit!" and set ex_signal. */
void ex_signals_install(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t ex_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* EX_COMMON_H */
