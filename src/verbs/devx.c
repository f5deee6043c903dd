/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DevX command calls of the verbs layer. Every refused command goes through
 * prm_status here, once: one log line with the command's name, the PRM
 * status and the syndrome, and the status's doca_error_t.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "prm/prm_cmd.h"
#include "prm/prm_status.h"
#include "verbs_internal.h"

doca_error_t verbs_rdma(const struct core_ibv_ops **ibv, const struct core_mlx5dv_ops **mlx5)
{
    const struct core_ibv_ops *i;
    const struct core_mlx5dv_ops *m;
    doca_error_t err = core_rdma_get(&i, &m);

    if (err != DOCA_SUCCESS)
        return err; /* core_rdma_get logged which library or symbol is missing */
    if (ibv != NULL)
        *ibv = i;
    if (mlx5 != NULL)
        *mlx5 = m;
    return DOCA_SUCCESS;
}

/* Turns the outcome of a DevX call (rc: errno-style) into a doca_error_t and a log line. */
static doca_error_t verbs_devx_outcome(const void *in, const void *out, size_t outlen, int rc,
                                       int err_no)
{
    uint16_t opcode = (uint16_t)PRM_GET(in, PRM_CMD_OPCODE);
    uint8_t status = outlen >= PRM_CMD_HDR_OUT_SIZE ? (uint8_t)PRM_GET(out, PRM_CMD_STATUS) : 0;
    char line[160];

    if (rc == 0 && status == PRM_CMD_STAT_OK)
        return DOCA_SUCCESS;
    if (status != PRM_CMD_STAT_OK) {
        prm_cmd_status_describe(line, sizeof(line), opcode, status,
                                (uint32_t)PRM_GET(out, PRM_CMD_SYNDROME));
        DOCA_LOG_ERR("%s", line);
        return prm_cmd_status_to_doca(status);
    }
    /*
     * No status: the DevX interface refused the command before the device
     * saw it (the kernel, or softmlx5's libmlx5, does not take this opcode
     * on this call), or the call itself failed.
     */
    if (err_no == EINVAL || err_no == EOPNOTSUPP || err_no == ENOSYS) {
        DOCA_LOG_ERR("%s (opcode 0x%x) refused by the DevX interface without a command status: "
                     "%s (errno %d); the device does not support it over DevX",
                     prm_cmd_opcode_name(opcode), (unsigned int)opcode, strerror(err_no), err_no);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    DOCA_LOG_ERR("%s (opcode 0x%x) failed without a command status: %s (errno %d)",
                 prm_cmd_opcode_name(opcode), (unsigned int)opcode, strerror(err_no), err_no);
    return err_no == ENOMEM ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_DRIVER;
}

doca_error_t verbs_devx_general(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
                                size_t outlen)
{
    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err = verbs_rdma(NULL, &mlx5);
    int rc;

    if (err != DOCA_SUCCESS)
        return err;
    memset(out, 0, outlen);
    errno = 0;
    rc = mlx5->devx_general_cmd(ctx, in, inlen, out, outlen);
    return verbs_devx_outcome(in, out, outlen, rc, rc != 0 ? (errno != 0 ? errno : rc) : 0);
}

doca_error_t verbs_devx_create(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
                               size_t outlen, struct mlx5dv_devx_obj **obj_out)
{
    const struct core_mlx5dv_ops *mlx5;
    struct mlx5dv_devx_obj *obj;
    doca_error_t err = verbs_rdma(NULL, &mlx5);

    if (err != DOCA_SUCCESS)
        return err;
    memset(out, 0, outlen);
    errno = 0;
    obj = mlx5->devx_obj_create(ctx, in, inlen, out, outlen);
    err = verbs_devx_outcome(in, out, outlen, obj == NULL ? -1 : 0, errno != 0 ? errno : EIO);
    if (err == DOCA_SUCCESS && obj == NULL)
        err = DOCA_ERROR_DRIVER;
    if (err != DOCA_SUCCESS) {
        if (obj != NULL)
            mlx5->devx_obj_destroy(obj);
        return err;
    }
    *obj_out = obj;
    return DOCA_SUCCESS;
}

/* MODIFY and QUERY: one command on an existing object, answered in out. */
static doca_error_t verbs_devx_obj_cmd(bool modify, struct mlx5dv_devx_obj *obj, const void *in,
                                       size_t inlen, void *out, size_t outlen)
{
    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err = verbs_rdma(NULL, &mlx5);
    int rc;

    if (err != DOCA_SUCCESS)
        return err;
    memset(out, 0, outlen);
    errno = 0;
    rc = (modify ? mlx5->devx_obj_modify : mlx5->devx_obj_query)(obj, in, inlen, out, outlen);
    return verbs_devx_outcome(in, out, outlen, rc, rc != 0 ? (errno != 0 ? errno : rc) : 0);
}

doca_error_t verbs_devx_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                               size_t outlen)
{
    return verbs_devx_obj_cmd(true, obj, in, inlen, out, outlen);
}

doca_error_t verbs_devx_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                              size_t outlen)
{
    return verbs_devx_obj_cmd(false, obj, in, inlen, out, outlen);
}

doca_error_t verbs_devx_destroy(struct mlx5dv_devx_obj *obj, const char *what, uint32_t id)
{
    const struct core_mlx5dv_ops *mlx5;
    doca_error_t err = verbs_rdma(NULL, &mlx5);
    int rc;

    if (err != DOCA_SUCCESS)
        return err;
    rc = mlx5->devx_obj_destroy(obj);
    if (rc == 0)
        return DOCA_SUCCESS;
    DOCA_LOG_ERR("destroying %s 0x%x failed: %s (errno %d)", what, id, strerror(rc), rc);
    return rc == EBUSY ? DOCA_ERROR_IN_USE : DOCA_ERROR_DRIVER;
}

const char *verbs_qp_state_name(enum doca_verbs_qp_state state)
{
    switch (state) {
    case DOCA_VERBS_QP_STATE_RST:
        return "RST";
    case DOCA_VERBS_QP_STATE_INIT:
        return "INIT";
    case DOCA_VERBS_QP_STATE_RTR:
        return "RTR";
    case DOCA_VERBS_QP_STATE_RTS:
        return "RTS";
    case DOCA_VERBS_QP_STATE_ERR:
        return "ERR";
    }
    return "?";
}
