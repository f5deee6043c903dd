/* SPDX-License-Identifier: BSD-3-Clause */
/* A heap array that grows by doubling, for the lists of objects the library and softmlx5 keep. */
#ifndef CORE_ARRAY_H
#define CORE_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/*
 * items, with room for count + 1 elements of size bytes: the same array
 * when it has room (*capacity elements), else a larger copy (*capacity
 * updated). NULL when out of memory, with items left as they were.
 */
static inline void *core_array_room(void *items, size_t *capacity, size_t count, size_t size)
{
    size_t grown;
    void *p;

    if (count < *capacity)
        return items;
    grown = *capacity != 0 ? 2 * *capacity : 8;
    p = realloc(items, grown * size);
    if (p != NULL)
        *capacity = grown;
    return p;
}

#endif /* CORE_ARRAY_H */
