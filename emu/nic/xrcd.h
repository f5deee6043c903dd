/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XRC domains. A domain groups XRC SRQs and XRC target QPs: a request that
 * reaches a target QP may name only an SRQ of the target's domain. A domain
 * opened on a file (ibv_open_xrcd's fd) is named by that file's inode on
 * this device: opening the same file again gives the same domain, which
 * then lives until its last opener closes it.
 */
#ifndef EMU_XRCD_H
#define EMU_XRCD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct emu_nic;

struct emu_xrcd {
    struct emu_nic *nic;
    uint32_t xrcdn;
    bool has_inode; /* opened on a file: dev and ino name it */
    dev_t dev;
    ino_t ino;
    int opens; /* openers (guarded by nic->lock) */
    int users; /* XRC SRQs and target QPs in it (guarded by nic->lock) */
};

/*
 * Opens the domain of the file fd (-1: a new domain of no file). With a
 * file: the domain already opened on its inode, unless O_EXCL in oflags
 * (EEXIST); a new one only with O_CREAT (else EINVAL, as the kernel
 * answers). Errno-style.
 */
int emu_xrcd_open(struct emu_nic *nic, int fd, int oflags, struct emu_xrcd **out);

/* One opener closes it; EBUSY when it is the last and SRQs or target QPs are still in it. */
int emu_xrcd_close(struct emu_xrcd *x);

#endif /* EMU_XRCD_H */
