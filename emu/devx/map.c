/* SPDX-License-Identifier: BSD-3-Clause */
/* The DevX object maps: a growable array indexed by object-number table index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx/internal.h"
#include "nic/nic.h"

int devx_map_set(struct devx_map *m, uint32_t index, void *obj)
{
    if (index >= DEVX_MAP_INDEX_LIMIT)
        return EINVAL;
    if (index >= m->capacity) {
        uint32_t capacity = m->capacity ? m->capacity : 64;
        void **slots;

        while (capacity <= index)
            capacity *= 2;
        slots = realloc(m->slots, capacity * sizeof(*slots));
        if (slots == NULL)
            return ENOMEM;
        memset(slots + m->capacity, 0, (capacity - m->capacity) * sizeof(*slots));
        m->slots = slots;
        m->capacity = capacity;
    }
    m->slots[index] = obj;
    return 0;
}

void *devx_map_get(const struct devx_map *m, uint32_t index)
{
    return index < m->capacity ? m->slots[index] : NULL;
}

void devx_map_remove(struct devx_map *m, uint32_t index)
{
    if (index < m->capacity)
        m->slots[index] = NULL;
}
