/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DevX commands: mlx5dv_devx_general_cmd, mlx5dv_devx_obj_create / modify /
 * query / destroy, mlx5dv_devx_query_eqn. As with the kernel's DevX
 * interface, general commands may not create, change or destroy objects,
 * and an object handle only accepts commands on its own object; a command
 * the device fails returns EREMOTEIO with status and syndrome in `out`.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/emu_log.h"
#include "devx/devx.h"
#include "dv/dv.h"
#include "prm/prm_cmd.h"
#include "prm/prm_status.h"

static int dv_mailboxes_ok(const char *call, const void *in, size_t inlen, void *out, size_t outlen)
{
    if (in == NULL || out == NULL || inlen < PRM_CMD_HDR_IN_SIZE / 2 ||
        outlen < PRM_CMD_HDR_OUT_SIZE / 2) {
        EMU_LOG_ERR("%s: input (%zu bytes) and output (%zu bytes) mailboxes must hold their "
                    "headers",
                    call, inlen, outlen);
        return 0;
    }
    return 1;
}

static uint16_t dv_opcode(const void *in)
{
    return (uint16_t)PRM_GET(in, PRM_CMD_OPCODE);
}

DV_EXPORT int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen,
                                      void *out, size_t outlen)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_devx_general_cmd");
    struct emu_devx_cmd_info info;

    if (nic == NULL || !dv_mailboxes_ok("mlx5dv_devx_general_cmd", in, inlen, out, outlen))
        return errno = EINVAL;
    emu_devx_cmd_classify(dv_opcode(in), &info);
    if (info.kind != EMU_DEVX_GENERAL) {
        EMU_LOG_ERR("mlx5dv_devx_general_cmd: %s acts on an object; use mlx5dv_devx_obj_*",
                    prm_cmd_opcode_name(dv_opcode(in)));
        return errno = EINVAL;
    }
    return errno = emu_devx_cmd(nic, in, inlen, out, outlen);
}

DV_EXPORT struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *context,
                                                         const void *in, size_t inlen, void *out,
                                                         size_t outlen)
{
    struct emu_nic *nic = dv_nic_of(context, "mlx5dv_devx_obj_create");
    struct emu_devx_cmd_info info;
    struct mlx5dv_devx_obj *obj;
    int err;

    if (nic == NULL || !dv_mailboxes_ok("mlx5dv_devx_obj_create", in, inlen, out, outlen)) {
        errno = EINVAL;
        return NULL;
    }
    emu_devx_cmd_classify(dv_opcode(in), &info);
    if (info.kind != EMU_DEVX_CREATE) {
        EMU_LOG_ERR("mlx5dv_devx_obj_create: opcode 0x%x (%s) does not create an object",
                    dv_opcode(in), prm_cmd_opcode_name(dv_opcode(in)));
        errno = EINVAL;
        return NULL;
    }
    obj = calloc(1, sizeof(*obj));
    if (obj == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    err = emu_devx_cmd(nic, in, inlen, out, outlen);
    if (err != 0) {
        free(obj);
        errno = err;
        return NULL;
    }
    obj->context = context;
    obj->nic = nic;
    obj->type = info.obj;
    obj->id = (uint32_t)PRM_GET(out, EMU_DEVX_OBJ_ID);
    return obj;
}

/* A modify or query command on the handle's own object. */
static int dv_obj_cmd(const char *call, enum emu_devx_kind kind, struct mlx5dv_devx_obj *obj,
                      const void *in, size_t inlen, void *out, size_t outlen)
{
    struct emu_devx_cmd_info info;

    if (obj == NULL || !dv_mailboxes_ok(call, in, inlen, out, outlen))
        return errno = EINVAL;
    emu_devx_cmd_classify(dv_opcode(in), &info);
    if (info.kind != kind || info.obj != obj->type ||
        (inlen >= PRM_CMD_HDR_IN_SIZE && emu_devx_cmd_obj_id(in, inlen) != obj->id)) {
        EMU_LOG_ERR("%s: %s does not apply to this object (type %d, number 0x%x)", call,
                    prm_cmd_opcode_name(dv_opcode(in)), (int)obj->type, obj->id);
        return errno = EINVAL;
    }
    return errno = emu_devx_cmd(obj->nic, in, inlen, out, outlen);
}

DV_EXPORT int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
                                     void *out, size_t outlen)
{
    return dv_obj_cmd("mlx5dv_devx_obj_modify", EMU_DEVX_MODIFY, obj, in, inlen, out, outlen);
}

DV_EXPORT int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
                                    void *out, size_t outlen)
{
    return dv_obj_cmd("mlx5dv_devx_obj_query", EMU_DEVX_QUERY, obj, in, inlen, out, outlen);
}

DV_EXPORT int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
    int err;

    if (obj == NULL)
        return errno = EINVAL;
    err = emu_devx_obj_destroy(obj->nic, obj->type, obj->id);
    if (err != 0)
        return errno = err;
    free(obj);
    return 0;
}

DV_EXPORT int mlx5dv_devx_query_eqn(struct ibv_context *context, uint32_t vector, uint32_t *eqnp)
{
    if (dv_nic_of(context, "mlx5dv_devx_query_eqn") == NULL || eqnp == NULL)
        return errno = EINVAL;
    if (vector >= (uint32_t)context->num_comp_vectors) {
        EMU_LOG_ERR("mlx5dv_devx_query_eqn: vector %u, the device has %d", vector,
                    context->num_comp_vectors);
        return errno = EINVAL;
    }
    *eqnp = 0; /* one event queue serves every vector */
    return 0;
}
