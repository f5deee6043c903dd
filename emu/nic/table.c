/* SPDX-License-Identifier: BSD-3-Clause */
#include "table.h"

#include <stdlib.h>
#include <string.h>

void emu_table_init(struct emu_table *t, uint32_t objects, uint32_t first_index)
{
    memset(t, 0, sizeof(*t));
    t->limit = first_index + objects;
    t->hint = first_index;
}

void emu_table_fini(struct emu_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

static int table_grow(struct emu_table *t)
{
    uint32_t capacity = t->capacity ? t->capacity * 2 : 64;
    void **slots;

    if (capacity > t->limit)
        capacity = t->limit;
    if (capacity <= t->capacity)
        return -1;
    slots = realloc(t->slots, capacity * sizeof(*slots));
    if (slots == NULL)
        return -1;
    memset(slots + t->capacity, 0, (capacity - t->capacity) * sizeof(*slots));
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

int64_t emu_table_insert(struct emu_table *t, void *obj)
{
    for (;;) {
        for (uint32_t i = t->hint; i < t->capacity; i++) {
            if (t->slots[i] == NULL) {
                t->slots[i] = obj;
                t->count++;
                t->hint = i + 1;
                return i;
            }
        }
        if (table_grow(t) != 0)
            return -1;
    }
}

void *emu_table_get(const struct emu_table *t, uint32_t index)
{
    return index < t->capacity ? t->slots[index] : NULL;
}

void emu_table_remove(struct emu_table *t, uint32_t index)
{
    if (index >= t->capacity || t->slots[index] == NULL)
        return;
    t->slots[index] = NULL;
    t->count--;
    if (index < t->hint)
        t->hint = index;
}
