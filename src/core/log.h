/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's log. Levels are syslog's (0 EMERG .. 7 DEBUG); a message is
 * written when its level is at or below the threshold taken once from the
 * DOCA_GPUNETIO_LOG environment variable (default 0). Each line goes to
 * stderr and to syslog, in the form
 *   Wed Apr  1 10:42:00 2026 [INFO] [src/file.c]: 255: function(): message
 */
#ifndef CORE_LOG_H
#define CORE_LOG_H

#include <syslog.h>

#define CORE_LOG_ENV           "DOCA_GPUNETIO_LOG"
#define CORE_LOG_DEFAULT_LEVEL LOG_EMERG

/* The threshold in force (reads the environment on first use). */
int core_log_threshold(void);

/* Name of a level ("ERR", "WARNING"...), "?" outside 0..7. */
const char *core_log_level_name(int level);

/* Writes one log line, whatever the threshold. Use DOCA_LOG instead. */
void core_log_write(int level, const char *file, int line, const char *func, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* Re-reads the environment; for tests that change the variable. */
void core_log_reload(void);

#define DOCA_LOG(level, ...)                                                    \
    do {                                                                        \
        if ((level) <= core_log_threshold())                                    \
            core_log_write((level), __FILE__, __LINE__, __func__, __VA_ARGS__); \
    } while (0)

#define DOCA_LOG_EMERG(...) DOCA_LOG(LOG_EMERG, __VA_ARGS__)
#define DOCA_LOG_CRIT(...)  DOCA_LOG(LOG_CRIT, __VA_ARGS__)
#define DOCA_LOG_ERR(...)   DOCA_LOG(LOG_ERR, __VA_ARGS__)
#define DOCA_LOG_WARN(...)  DOCA_LOG(LOG_WARNING, __VA_ARGS__)
#define DOCA_LOG_INFO(...)  DOCA_LOG(LOG_INFO, __VA_ARGS__)
#define DOCA_LOG_DBG(...)   DOCA_LOG(LOG_DEBUG, __VA_ARGS__)

#endif /* CORE_LOG_H */
