/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comparing two capability snapshots (doca_gpunetio_cap_snapshot.h). A
 * snapshot has one member per line (cap_snapshot.c writes it so), which
 * this flattens into "path = value" pairs: an object member's path is its
 * parents' names joined by dots, and an element of an array of objects is
 * named by its first member's value (the device's name, the GPU's bus id),
 * so that a device that moved in the list is still the same device. Only
 * that shape is read: anything else is refused with the line it is on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "doca_gpunetio_cap_snapshot.h"
#include "gpunetio/cap_snapshot.h"

#define CMP_MAX_DEPTH 8
#define CMP_MAX_NAME  128
#define CMP_MAX_LINE  1024

struct cmp_entry {
    char *path;
    char *value;
};

struct cmp_flat {
    struct cmp_entry *items;
    size_t count, cap;
};

struct cmp_parser {
    const char *which; /* "before" or "after", for the log */
    int line;
    int depth;
    char names[CMP_MAX_DEPTH][CMP_MAX_NAME];
    bool unnamed[CMP_MAX_DEPTH]; /* an array element not yet named by its first member */
    bool in_array[CMP_MAX_DEPTH];
    int elements[CMP_MAX_DEPTH]; /* elements seen in the array at this depth */
};

static void cmp_flat_free(struct cmp_flat *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free(f->items[i].path);
        free(f->items[i].value);
    }
    free(f->items);
}

static bool cmp_flat_add(struct cmp_flat *f, const char *path, const char *value, size_t vlen)
{
    struct cmp_entry *items = core_array_room(f->items, &f->cap, f->count, sizeof(*items));

    if (items == NULL)
        return false;
    f->items = items;
    items[f->count].path = strdup(path);
    items[f->count].value = strndup(value, vlen);
    if (items[f->count].path == NULL || items[f->count].value == NULL) {
        free(items[f->count].path);
        free(items[f->count].value);
        return false;
    }
    f->count++;
    return true;
}

static const struct cmp_entry *cmp_flat_find(const struct cmp_flat *f, const char *path)
{
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(f->items[i].path, path) == 0)
            return &f->items[i];
    return NULL;
}

static doca_error_t cmp_refuse(const struct cmp_parser *p, const char *what)
{
    DOCA_LOG_ERR("dgn_cap_snapshot_compare: the %s text, line %d: %s; give two texts that "
                 "dgn_cap_snapshot wrote",
                 p->which, p->line, what);
    return DOCA_ERROR_INVALID_VALUE;
}

/* The path of a member key under the open objects. */
static void cmp_path(const struct cmp_parser *p, const char *key, size_t klen, char *out,
                     size_t outlen)
{
    size_t n = 0;

    out[0] = '\0';
    for (int d = 0; d < p->depth && n < outlen; d++)
        if (p->names[d][0] != '\0')
            n += (size_t)snprintf(out + n, outlen - n, "%s.", p->names[d]);
    if (n < outlen)
        snprintf(out + n, outlen - n, "%.*s", (int)klen, key);
}

static doca_error_t cmp_push(struct cmp_parser *p, const char *name, size_t len, bool array)
{
    if (p->depth >= CMP_MAX_DEPTH)
        return cmp_refuse(p, "nested too deeply");
    snprintf(p->names[p->depth], CMP_MAX_NAME, "%.*s", (int)len, name);
    p->in_array[p->depth] = array;
    p->unnamed[p->depth] = false;
    p->elements[p->depth] = 0;
    p->depth++;
    return DOCA_SUCCESS;
}

/* One trimmed line of a snapshot. */
static doca_error_t cmp_line(struct cmp_parser *p, struct cmp_flat *f, const char *s, size_t len)
{
    const char *key, *value;
    size_t klen, vlen;
    char path[CMP_MAX_DEPTH * CMP_MAX_NAME];

    if (len > 0 && s[len - 1] == ',')
        len--;
    if (len == 1 && (s[0] == '}' || s[0] == ']')) {
        if (p->depth == 0)
            return cmp_refuse(p, "closes more than was opened");
        p->depth--;
        return DOCA_SUCCESS;
    }
    if (len == 1 && s[0] == '{') {
        /* The document itself, or an element of an array of objects. */
        if (p->depth == 0 && f->count == 0)
            return cmp_push(p, "", 0, false);
        if (p->depth == 0 || !p->in_array[p->depth - 1])
            return cmp_refuse(p, "an object outside an array");
        {
            char index[16];
            int n = snprintf(index, sizeof(index), "#%d", p->elements[p->depth - 1]++);
            doca_error_t err = cmp_push(p, index, (size_t)n, false);

            if (err == DOCA_SUCCESS)
                p->unnamed[p->depth - 1] = true;
            return err;
        }
    }
    if (len < 4 || s[0] != '"')
        return cmp_refuse(p, "not a member (\"key\": value)");
    key = s + 1;
    value = memchr(key, '"', len - 1);
    if (value == NULL || (size_t)(value - s) + 3 > len || value[1] != ':' || value[2] != ' ')
        return cmp_refuse(p, "not a member (\"key\": value)");
    klen = (size_t)(value - key);
    if (klen == 0 || klen >= CMP_MAX_NAME)
        return cmp_refuse(p, "a member name empty or too long");
    value += 3;
    vlen = len - (size_t)(value - s);
    if (p->depth == 0)
        return cmp_refuse(p, "a member outside the document's object");
    if (vlen == 1 && (value[0] == '{' || value[0] == '['))
        return cmp_push(p, key, klen, value[0] == '[');
    if (p->unnamed[p->depth - 1]) {
        /* The first member names the element: "mlx5_0", not "#0". */
        const char *name = value;
        size_t nlen = vlen;

        if (nlen >= 2 && name[0] == '"' && name[nlen - 1] == '"') {
            name++;
            nlen -= 2;
        }
        if (nlen == 0 || nlen >= CMP_MAX_NAME)
            return cmp_refuse(p, "an element whose first member cannot name it");
        snprintf(p->names[p->depth - 1], CMP_MAX_NAME, "%.*s", (int)nlen, name);
        p->unnamed[p->depth - 1] = false;
    }
    cmp_path(p, key, klen, path, sizeof(path));
    if (cmp_flat_find(f, path) != NULL)
        return cmp_refuse(p, "a member that appears twice");
    return cmp_flat_add(f, path, value, vlen) ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

static doca_error_t cmp_flatten(const char *text, const char *which, struct cmp_flat *f)
{
    struct cmp_parser p = {.which = which};
    const struct cmp_entry *version;
    doca_error_t err = DOCA_SUCCESS;

    while (*text != '\0' && err == DOCA_SUCCESS) {
        const char *end = strchr(text, '\n');
        size_t len = end != NULL ? (size_t)(end - text) : strlen(text);
        const char *s = text;
        size_t n = len;

        p.line++;
        while (n > 0 && (*s == ' ' || *s == '\t')) {
            s++;
            n--;
        }
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            n--;
        if (len > CMP_MAX_LINE)
            err = cmp_refuse(&p, "a line longer than a snapshot writes");
        else if (n > 0)
            err = cmp_line(&p, f, s, n);
        text = end != NULL ? end + 1 : text + len;
    }
    if (err != DOCA_SUCCESS)
        return err;
    if (p.depth != 0)
        return cmp_refuse(&p, "the text ends inside an object (cut short?)");
    version = cmp_flat_find(f, "snapshot_version");
    if (version == NULL || strtol(version->value, NULL, 10) != CAP_SNAPSHOT_VERSION) {
        DOCA_LOG_ERR("dgn_cap_snapshot_compare: the %s text is not a snapshot of version %d (its "
                     "snapshot_version is %s)",
                     which, CAP_SNAPSHOT_VERSION, version != NULL ? version->value : "absent");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* The differences, one line each, in the order of each text. */
static void cmp_report(const struct cmp_flat *before, const struct cmp_flat *after,
                       struct core_strbuf *sb)
{
    for (size_t i = 0; i < before->count; i++) {
        const struct cmp_entry *b = &before->items[i];
        const struct cmp_entry *a = cmp_flat_find(after, b->path);

        if (strcmp(b->path, "library") == 0)
            continue;
        if (a == NULL)
            core_strbuf_printf(sb, "gone %s: %s\n", b->path, b->value);
        else if (strcmp(a->value, b->value) != 0)
            core_strbuf_printf(sb, "changed %s: %s -> %s\n", b->path, b->value, a->value);
    }
    for (size_t i = 0; i < after->count; i++)
        if (cmp_flat_find(before, after->items[i].path) == NULL)
            core_strbuf_printf(sb, "new %s: %s\n", after->items[i].path, after->items[i].value);
}

doca_error_t cap_snapshot_each(const char *json,
                               void (*fn)(const char *path, const char *value, void *arg),
                               void *arg)
{
    struct cmp_flat f = {0};
    doca_error_t err = cmp_flatten(json, "snapshot", &f);

    for (size_t i = 0; err == DOCA_SUCCESS && i < f.count; i++)
        fn(f.items[i].path, f.items[i].value, arg);
    cmp_flat_free(&f);
    return err;
}

doca_error_t dgn_cap_snapshot_compare(const char *before, const char *after, char **report_out)
{
    struct cmp_flat fb = {0}, fa = {0};
    struct core_strbuf sb = {0};
    doca_error_t err;

    if (before == NULL || after == NULL || report_out == NULL) {
        DOCA_LOG_ERR("dgn_cap_snapshot_compare: before (%p), after (%p) and report_out (%p) must "
                     "not be NULL",
                     (const void *)before, (const void *)after, (void *)report_out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = cmp_flatten(before, "before", &fb);
    if (err == DOCA_SUCCESS)
        err = cmp_flatten(after, "after", &fa);
    if (err == DOCA_SUCCESS) {
        char *report;

        cmp_report(&fb, &fa, &sb);
        report = core_strbuf_take(&sb);
        if (report == NULL)
            err = DOCA_ERROR_NO_MEMORY;
        else
            *report_out = report;
    }
    if (err == DOCA_ERROR_NO_MEMORY)
        DOCA_LOG_ERR("dgn_cap_snapshot_compare: out of memory");
    cmp_flat_free(&fb);
    cmp_flat_free(&fa);
    return err;
}
