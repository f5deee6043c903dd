/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A table of objects addressed by a small index (QP, CQ, SRQ and memory-key
 * numbers are built from it). Not locked: the owner holds its own lock.
 */
#ifndef EMU_TABLE_H
#define EMU_TABLE_H

#include <stdint.h>

struct emu_table {
    void **slots;
    uint32_t capacity; /* slots allocated */
    uint32_t limit;    /* most slots ever allowed: first_index + the objects it holds */
    uint32_t count;
    uint32_t hint; /* where the next free-slot search starts */
};

/*
 * A table of `objects` objects at indices first_index .. first_index +
 * objects - 1 (index 0 can be kept unused with first_index 1): exactly
 * `objects` inserts succeed, so a limit the device advertises is the count.
 */
void emu_table_init(struct emu_table *t, uint32_t objects, uint32_t first_index);
void emu_table_fini(struct emu_table *t);

/* Stores obj in a free slot; returns its index, or -1 when full or out of memory. */
int64_t emu_table_insert(struct emu_table *t, void *obj);

/* The object at index, or NULL. */
void *emu_table_get(const struct emu_table *t, uint32_t index);

void emu_table_remove(struct emu_table *t, uint32_t index);

#endif /* EMU_TABLE_H */
