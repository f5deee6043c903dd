/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device names of SOFTMLX5_NAMES (and softmlx5-run's -N): one rule for
 * the device model (config.c) and the launcher, which checks the names
 * before it runs anything. Nothing here logs: the caller says where the
 * list came from and reports the reason given.
 */
#ifndef EMU_CONFIG_NAMES_H
#define EMU_CONFIG_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "nic/config.h"

/*
 * Names `count` devices from `list`, comma-separated: names[i] is the i-th
 * name of the list, or mlx5_<i> for a device the list does not name (NULL
 * or "" names none). False, with one line in err (NUL terminated, what is
 * wrong and what to do), when the list names more devices than count, has
 * an empty name or one of EMU_NAME_MAX characters or more, or gives two
 * devices the same name (a default one included).
 */
bool emu_config_names(const char *list, int count, char names[][EMU_NAME_MAX], char *err,
                      size_t errlen);

#endif /* EMU_CONFIG_NAMES_H */
