/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void core_strbuf_printf(struct core_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (sb->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return;
    }
    if (sb->len + (size_t)n + 1 > sb->cap) {
        size_t cap = sb->cap != 0 ? sb->cap : 256;
        char *grown;

        while (cap < sb->len + (size_t)n + 1)
            cap *= 2;
        grown = realloc(sb->text, cap);
        if (grown == NULL) {
            sb->failed = true;
            return;
        }
        sb->text = grown;
        sb->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *core_strbuf_take(struct core_strbuf *sb)
{
    char *text = sb->text;

    if (sb->failed) {
        free(text);
        text = NULL;
    } else if (text == NULL) {
        text = calloc(1, 1);
    }
    *sb = (struct core_strbuf){0};
    return text;
}
