/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How softmlx5's librdmacm fails a call: one log line naming the call (at
 * ERR, softmlx5's default threshold), errno set, -1 returned. Free of
 * rdma-core's headers, so that unsupported.c can define entry points without
 * their prototypes.
 */
#ifndef EMU_RDMACM_CM_LOG_H
#define EMU_RDMACM_CM_LOG_H

int cm_refuse(int err, const char *file, int line, const char *call, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
#define CM_REFUSE(err, ...)          cm_refuse((err), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* The same from a helper, naming the call it works for. */
#define CM_REFUSE_AS(call, err, ...) cm_refuse((err), __FILE__, __LINE__, (call), __VA_ARGS__)

#endif /* EMU_RDMACM_CM_LOG_H */
