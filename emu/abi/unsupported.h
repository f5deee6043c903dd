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

#endif /* EMU_ABI_UNSUPPORTED_H */
