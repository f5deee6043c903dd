/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's log: the project's log line format, with its own threshold taken
 * once from SOFTMLX5_LOG (syslog levels 0..7, default 3 = ERR, so that refused
 * calls and wire faults are visible the way a kernel driver would print them).
 */
#ifndef EMU_LOG_H
#define EMU_LOG_H

#include "core/log.h"

#define EMU_LOG_ENV           "SOFTMLX5_LOG"
#define EMU_LOG_DEFAULT_LEVEL LOG_ERR

int emu_log_threshold(void);

#define EMU_LOG(level, ...)                                                                  \
    do {                                                                                     \
        if ((level) <= emu_log_threshold())                                                  \
            core_log_write((level), __FILE__, __LINE__, __func__, "softmlx5: " __VA_ARGS__); \
    } while (0)

#define EMU_LOG_ERR(...)  EMU_LOG(LOG_ERR, __VA_ARGS__)
#define EMU_LOG_WARN(...) EMU_LOG(LOG_WARNING, __VA_ARGS__)
#define EMU_LOG_INFO(...) EMU_LOG(LOG_INFO, __VA_ARGS__)
#define EMU_LOG_DBG(...)  EMU_LOG(LOG_DEBUG, __VA_ARGS__)

#endif /* EMU_LOG_H */
