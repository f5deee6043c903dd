/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XRC domains of the standard verbs: ibv_open_xrcd / ibv_close_xrcd (the
 * verbs_context operations). Each open gives its own handle on the device's
 * domain (nic/xrcd.h): opening the file of another open's fd again, in this
 * process, gives the same domain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/nic.h"
#include "nic/xrcd.h"

/* One ibv_open_xrcd: the handle the program holds, and the device's domain. */
struct emu_verbs_xrcd {
    struct ibv_xrcd ibv; /* first: ibv_xrcd pointers lead back here */
    struct emu_xrcd *x;
};

struct emu_xrcd *emu_verbs_xrcd_of(struct ibv_xrcd *xrcd)
{
    return xrcd == NULL ? NULL : ((struct emu_verbs_xrcd *)xrcd)->x;
}

static struct ibv_xrcd *xrcd_open(struct ibv_context *context, struct ibv_xrcd_init_attr *attr)
{
    const uint32_t known = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
    struct emu_verbs_xrcd *h;
    int err;

    if (attr == NULL || (attr->comp_mask & known) != known || (attr->comp_mask & ~known) ||
        (attr->oflags & ~(O_CREAT | O_EXCL))) {
        EMU_LOG_ERR("ibv_open_xrcd: comp_mask must be IBV_XRCD_INIT_ATTR_FD | _OFLAGS and "
                    "oflags O_CREAT and/or O_EXCL (comp_mask 0x%x, oflags 0x%x)",
                    attr != NULL ? attr->comp_mask : 0, attr != NULL ? attr->oflags : 0);
        errno = EINVAL;
        return NULL;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    err = emu_xrcd_open(emu_nic_of_ctx(context), attr->fd, attr->oflags, &h->x);
    if (err != 0) {
        free(h);
        errno = err;
        return NULL;
    }
    h->ibv.context = context;
    return &h->ibv;
}

static int xrcd_close(struct ibv_xrcd *xrcd)
{
    int err;

    if (xrcd == NULL)
        return EINVAL;
    err = emu_xrcd_close(emu_verbs_xrcd_of(xrcd));
    if (err == 0)
        free(xrcd);
    return err;
}

void emu_xrcd_ops_init(struct emu_context *ectx)
{
    ectx->vctx.open_xrcd = xrcd_open;
    ectx->vctx.close_xrcd = xrcd_close;
}
