/* SPDX-License-Identifier: BSD-3-Clause */
#include "nic/config_names.h"

#include <stdio.h>
#include <string.h>

bool emu_config_names(const char *list, int count, char names[][EMU_NAME_MAX], char *err,
                      size_t errlen)
{
    const char *p = list;
    int given = 0;

    if (errlen > 0)
        err[0] = '\0';
    for (int i = 0; i < count; i++)
        snprintf(names[i], EMU_NAME_MAX, "mlx5_%d", i);
    if (list == NULL || list[0] == '\0')
        return true;
    /* Every entry, empty ones too: "a,,b" has three. */
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

        if (given >= count) {
            int entries = given + 1;

            for (const char *q = p; (q = strchr(q, ',')) != NULL; q++)
                entries++;
            snprintf(err, errlen,
                     "names %d devices but there %s %d: give at most %d name%s, or ask for more "
                     "devices (-n, SOFTMLX5_DEVICES)",
                     entries, count == 1 ? "is" : "are", count, count, count == 1 ? "" : "s");
            return false;
        }
        if (len == 0) {
            snprintf(err, errlen, "has an empty name (entry %d): remove the extra comma",
                     given + 1);
            return false;
        }
        if (len >= EMU_NAME_MAX) {
            snprintf(err, errlen, "has a name of %zu characters (entry %d): at most %d are allowed",
                     len, given + 1, EMU_NAME_MAX - 1);
            return false;
        }
        memcpy(names[given], p, len);
        names[given][len] = '\0';
        given++;
        if (end == NULL)
            break;
        p = end + 1;
    }
    for (int i = 0; i < count; i++) {
        for (int j = 0; j < i; j++) {
            if (strcmp(names[i], names[j]) != 0)
                continue;
            snprintf(err, errlen,
                     "gives devices %d and %d the same name '%s'%s: give each device its own name",
                     j, i, names[i], i >= given ? " (the second is its default name)" : "");
            return false;
        }
    }
    return true;
}
