/* SPDX-License-Identifier: BSD-3-Clause */
/* A heap string that grows as text is appended, for texts the library hands out (JSON, reports). */
#ifndef CORE_STRBUF_H
#define CORE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct core_strbuf {
    char *text; /* NUL-terminated once anything was appended; NULL before */
    size_t len;
    size_t cap;
    bool failed; /* an append ran out of memory: the text is incomplete */
};

/* Appends printf-style; on failure sets sb->failed and leaves the text as it was. */
void core_strbuf_printf(struct core_strbuf *sb, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/*
 * The finished text, handed to the caller (free() it), or NULL when an
 * append failed (everything freed). An empty buffer gives "".
 */
char *core_strbuf_take(struct core_strbuf *sb);

#endif /* CORE_STRBUF_H */
