/* SPDX-License-Identifier: BSD-3-Clause */
#include "nic/xrcd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/emu_log.h"
#include "nic/nic.h"

/* The domain opened on this inode, or NULL (nic->lock held). */
static struct emu_xrcd *xrcd_of_inode(struct emu_nic *nic, dev_t dev, ino_t ino)
{
    for (uint32_t i = 1; i < nic->xrcds.capacity; i++) {
        struct emu_xrcd *x = emu_table_get(&nic->xrcds, i);

        if (x != NULL && x->has_inode && x->dev == dev && x->ino == ino)
            return x;
    }
    return NULL;
}

int emu_xrcd_open(struct emu_nic *nic, int fd, int oflags, struct emu_xrcd **out)
{
    struct emu_xrcd *x = NULL;
    struct stat st;
    int64_t index;

    if (fd >= 0 && fstat(fd, &st) != 0) {
        EMU_LOG_ERR("ibv_open_xrcd: fd %d names no file", fd);
        return EBADF;
    }
    pthread_mutex_lock(&nic->lock);
    if (fd >= 0)
        x = xrcd_of_inode(nic, st.st_dev, st.st_ino);
    if (x != NULL && (oflags & O_EXCL)) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("ibv_open_xrcd: the file of fd %d has an XRC domain already (O_EXCL)", fd);
        return EEXIST;
    }
    if (x != NULL) {
        x->opens++;
        pthread_mutex_unlock(&nic->lock);
        *out = x;
        return 0;
    }
    if (fd >= 0 && !(oflags & O_CREAT)) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("ibv_open_xrcd: the file of fd %d has no XRC domain and O_CREAT is not "
                    "given",
                    fd);
        return EINVAL;
    }
    x = calloc(1, sizeof(*x));
    index = x != NULL ? emu_table_insert(&nic->xrcds, x) : -1;
    if (index < 0) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("ibv_open_xrcd: device %s has no free XRC domain", nic->ibdev.name);
        free(x);
        return ENOMEM;
    }
    x->nic = nic;
    x->xrcdn = (uint32_t)index;
    x->has_inode = fd >= 0;
    if (fd >= 0) {
        x->dev = st.st_dev;
        x->ino = st.st_ino;
    }
    x->opens = 1;
    pthread_mutex_unlock(&nic->lock);
    *out = x;
    return 0;
}

int emu_xrcd_close(struct emu_xrcd *x)
{
    struct emu_nic *nic = x->nic;

    pthread_mutex_lock(&nic->lock);
    if (x->opens == 1 && x->users != 0) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("ibv_close_xrcd: XRC domain %u still has %d SRQs and target QPs; destroy "
                    "them first",
                    x->xrcdn, x->users);
        return EBUSY;
    }
    if (--x->opens > 0) {
        pthread_mutex_unlock(&nic->lock);
        return 0;
    }
    emu_table_remove(&nic->xrcds, x->xrcdn);
    pthread_mutex_unlock(&nic->lock);
    free(x);
    return 0;
}
