/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calls softmlx5 does not implement fail cleanly: one log line naming the
 * call, errno EOPNOTSUPP, and the call's error value (NULL, or EOPNOTSUPP for
 * calls that return an int).
 */
#ifndef EMU_ABI_UNSUPPORTED_H
#define EMU_ABI_UNSUPPORTED_H

/* Logs "<call> is not supported by softmlx5" and sets errno to EOPNOTSUPP. */
void emu_unsupported(const char *call);

/*
 * Defines an exported entry point `name` that fails cleanly, returning
 * `value` as `type`. The definitions live in files that do not include
 * rdma-core's prototypes: callers' arguments are ignored.
 */
#define EMU_UNSUPPORTED_CALL(type, name, value)             \
    __attribute__((visibility("default"))) type name(void); \
    type name(void)                                         \
    {                                                       \
        emu_unsupported(#name);                             \
        return value;                                       \
    }

#define EMU_UNSUPPORTED_VOID_CALL(name)                     \
    __attribute__((visibility("default"))) void name(void); \
    void name(void)                                         \
    {                                                       \
        emu_unsupported(#name);                             \
    }

#endif /* EMU_ABI_UNSUPPORTED_H */
