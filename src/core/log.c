/* SPDX-License-Identifier: BSD-3-Clause */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const level_names[] = {"EMERG",   "ALERT",  "CRIT", "ERR",
                                          "WARNING", "NOTICE", "INFO", "DEBUG"};

#define LEVEL_COUNT ((int)(sizeof(level_names) / sizeof(level_names[0])))

/* -1 until the environment has been read. */
static int log_threshold = -1;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

const char *core_log_level_name(int level)
{
    if (level < 0 || level >= LEVEL_COUNT)
        return "?";
    return level_names[level];
}

/* Parses the variable; a bad value is reported once (here) and the default is kept. */
static int log_threshold_from_env(void)
{
    const char *value = getenv(CORE_LOG_ENV);
    char *end = NULL;
    long level;

    if (value == NULL || value[0] == '\0')
        return CORE_LOG_DEFAULT_LEVEL;
    errno = 0;
    level = strtol(value, &end, 10);
    if (errno == 0 && end != value && *end == '\0' && level >= 0 && level < LEVEL_COUNT)
        return (int)level;
    core_log_write(LOG_WARNING, __FILE__, __LINE__, __func__,
                   "%s='%s' is not a log level: use 0 (EMERG) to 7 (DEBUG); keeping %d (%s)",
                   CORE_LOG_ENV, value, CORE_LOG_DEFAULT_LEVEL,
                   level_names[CORE_LOG_DEFAULT_LEVEL]);
    return CORE_LOG_DEFAULT_LEVEL;
}

int core_log_threshold(void)
{
    int level = __atomic_load_n(&log_threshold, __ATOMIC_ACQUIRE);

    if (level >= 0)
        return level;
    pthread_mutex_lock(&log_lock);
    if (log_threshold < 0)
        __atomic_store_n(&log_threshold, log_threshold_from_env(), __ATOMIC_RELEASE);
    level = log_threshold;
    pthread_mutex_unlock(&log_lock);
    return level;
}

void core_log_reload(void)
{
    pthread_mutex_lock(&log_lock);
    __atomic_store_n(&log_threshold, log_threshold_from_env(), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&log_lock);
}

void core_log_write(int level, const char *file, int line, const char *func, const char *fmt, ...)
{
    char stamp[32] = "";
    char message[1024];
    time_t now = time(NULL);
    struct tm tm;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);

    /* asctime's layout without its newline: "Wed Apr  1 10:42:00 2026". */
    if (localtime_r(&now, &tm) != NULL)
        strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S %Y", &tm);

    /* One fprintf per line keeps lines of concurrent threads whole. */
    fprintf(stderr, "%s [%s] [%s]: %d: %s(): %s\n", stamp, core_log_level_name(level), file, line,
            func, message);
    syslog(level < 0 || level >= LEVEL_COUNT ? LOG_ERR : level, "[%s]: %d: %s(): %s", file, line,
           func, message);
}
