/* SPDX-License-Identifier: BSD-3-Clause */
#include "emu_log.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t emu_log_once = PTHREAD_ONCE_INIT;
static int emu_log_level = EMU_LOG_DEFAULT_LEVEL;

static void emu_log_read_env(void)
{
    const char *value = getenv(EMU_LOG_ENV);
    char *end = NULL;
    long level;

    if (value == NULL || value[0] == '\0')
        return;
    level = strtol(value, &end, 10);
    if (end != value && *end == '\0' && level >= LOG_EMERG && level <= LOG_DEBUG) {
        emu_log_level = (int)level;
        return;
    }
    core_log_write(LOG_WARNING, __FILE__, __LINE__, __func__,
                   "softmlx5: %s='%s' is not a log level: use 0 (EMERG) to 7 (DEBUG); keeping %d",
                   EMU_LOG_ENV, value, EMU_LOG_DEFAULT_LEVEL);
}

int emu_log_threshold(void)
{
    pthread_once(&emu_log_once, emu_log_read_env);
    return emu_log_level;
}
