/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm's calls softmlx5 does not implement: rsockets (the r* socket
 * calls: errno ENOSYS), multicast and ECE (errno EOPNOTSUPP, as a device
 * without them). Each fails with one log line naming the call and returns
 * -1 (rdma_leave_multicast and the rsocket calls return an int, ssize_t or
 * off_t: -1 in each). Defined without rdma-core's prototypes (this file
 * includes no rdma header): callers' arguments are ignored.
 */
#include <errno.h>

#include "rdmacm/cm_log.h"

#define CM_UNSUPPORTED(name, err, what)                          \
    __attribute__((visibility("default"))) long name(void);      \
    long name(void)                                              \
    {                                                            \
        return cm_refuse((err), __FILE__, __LINE__, #name, "%s", \
                         what " is not supported by softmlx5");  \
    }

#define RSOCKET(name) CM_UNSUPPORTED(name, ENOSYS, "rsockets")

RSOCKET(raccept)
RSOCKET(rbind)
RSOCKET(rclose)
RSOCKET(rconnect)
RSOCKET(rfcntl)
RSOCKET(rgetpeername)
RSOCKET(rgetsockname)
RSOCKET(rgetsockopt)
RSOCKET(riomap)
RSOCKET(riounmap)
RSOCKET(riowrite)
RSOCKET(rlisten)
RSOCKET(rpoll)
RSOCKET(rread)
RSOCKET(rreadv)
RSOCKET(rrecv)
RSOCKET(rrecvfrom)
RSOCKET(rrecvmsg)
RSOCKET(rselect)
RSOCKET(rsend)
RSOCKET(rsendmsg)
RSOCKET(rsendto)
RSOCKET(rsetsockopt)
RSOCKET(rshutdown)
RSOCKET(rsocket)
RSOCKET(rwrite)
RSOCKET(rwritev)

CM_UNSUPPORTED(rdma_join_multicast, EOPNOTSUPP, "multicast (UD)")
CM_UNSUPPORTED(rdma_join_multicast_ex, EOPNOTSUPP, "multicast (UD)")
CM_UNSUPPORTED(rdma_leave_multicast, EOPNOTSUPP, "multicast (UD)")
CM_UNSUPPORTED(rdma_set_local_ece, EOPNOTSUPP, "enhanced connection establishment")
CM_UNSUPPORTED(rdma_get_remote_ece, EOPNOTSUPP, "enhanced connection establishment")
