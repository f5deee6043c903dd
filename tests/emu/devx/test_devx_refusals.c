/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands the device refuses, answered as firmware does: status and
 * syndrome in the output mailbox, EREMOTEIO from the call; and calls the
 * DevX interface itself refuses (EINVAL). None of these needs the engine.
 */
#include "devx_test.h"

#define DT_UMEM_SIZE 4096

static void dt_expect(int rc, const uint8_t *out, uint8_t status)
{
    DT_CHECK(rc == EREMOTEIO);
    DT_CHECK(dt_status(out) == status);
    DT_CHECK(dt_syndrome(out) != 0);
}

/* CREATE_CQ that the device must refuse with `status`. */
static void dt_cq_refused(struct ibv_context *ctx, const uint8_t *in, size_t inlen, uint8_t status)
{
    uint8_t out[PRM_CREATE_CQ_OUT_SIZE];

    errno = 0;
    DT_CHECK(mlx5dv_devx_obj_create(ctx, in, inlen, out, sizeof(out)) == NULL);
    dt_expect(errno, out, status);
}

int main(void)
{
    static uint8_t in[PRM_CREATE_CQ_IN_SIZE], cap_out[PRM_QUERY_HCA_CAP_OUT_SIZE];
    struct ibv_context *ctx = dt_open();
    uint8_t hdr[0x10] = {0}, out[0x10];
    struct mlx5dv_devx_umem *umem;
    struct mlx5dv_devx_uar *uar;
    struct dt_cq_args a;
    void *buf;

    /* An opcode the device does not implement. */
    PRM_SET(hdr, PRM_CMD_OPCODE, 0x7ff);
    dt_expect(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), out, sizeof(out)), out,
              PRM_CMD_STAT_BAD_OP);
    /* A command shorter than its layout, and an answer that does not fit. */
    PRM_SET(hdr, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    dt_expect(mlx5dv_devx_general_cmd(ctx, hdr, 8, cap_out, sizeof(cap_out)), cap_out,
              PRM_CMD_STAT_BAD_INPUT_LEN);
    dt_expect(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), out, sizeof(out)), out,
              PRM_CMD_STAT_BAD_OUTPUT_LEN);
    /* A capability query cut to a program's own layout (perftest's: 272 bytes) is answered. */
    {
        static uint8_t cut[0x110 + 8];

        memset(cut, 0xee, sizeof(cut));
        PRM_SET(hdr, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_GENERAL, 1));
        DT_CHECK(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), cap_out, sizeof(cap_out)) == 0);
        DT_CHECK(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), cut, 0x110) == 0);
        DT_CHECK(memcmp(cut, cap_out, 0x110) == 0);
        DT_CHECK(cut[0x110] == 0xee); /* nothing past the mailbox */
        PRM_SET(hdr, PRM_CMD_OP_MOD, 0);
    }
    /* A capability group the device does not have. */
    PRM_SET(hdr, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(PRM_HCA_CAP_TYPE_QOS, 1));
    dt_expect(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), cap_out, sizeof(cap_out)), cap_out,
              PRM_CMD_STAT_BAD_PARAM);
    /* Mailboxes too short for a header never reach the device. */
    DT_CHECK(mlx5dv_devx_general_cmd(ctx, hdr, 4, out, sizeof(out)) == EINVAL);
    /* Object commands do not go through the general command. */
    PRM_SET(hdr, PRM_CMD_OPCODE, PRM_CMD_DESTROY_CQ);
    DT_CHECK(mlx5dv_devx_general_cmd(ctx, hdr, sizeof(hdr), out, sizeof(out)) == EINVAL);
    /* ... and obj_create only creates. */
    errno = 0;
    DT_CHECK(mlx5dv_devx_obj_create(ctx, hdr, sizeof(hdr), out, sizeof(out)) == NULL);
    DT_CHECK(errno == EINVAL);

    uar = mlx5dv_devx_alloc_uar(ctx, 0);
    DT_CHECK(uar != NULL && uar->base_addr != NULL);
    DT_CHECK((uint8_t *)uar->reg_addr == (uint8_t *)uar->base_addr + 0x800);
    DT_CHECK(((uintptr_t)uar->base_addr & 0xfff) == 0);
    DT_CHECK(posix_memalign(&buf, 4096, DT_UMEM_SIZE) == 0);
    umem = mlx5dv_devx_umem_reg(ctx, buf, DT_UMEM_SIZE, IBV_ACCESS_LOCAL_WRITE);
    DT_CHECK(umem != NULL);
    errno = 0;
    DT_CHECK(mlx5dv_devx_umem_reg(ctx, NULL, 0, 0) == NULL && errno == EINVAL);

    a = (struct dt_cq_args){.log_size = 4,
                            .uar_page = uar->page_id,
                            .umem_id = umem->umem_id,
                            .dbr_umem_id = umem->umem_id,
                            .dbr_offset = 64 * 16};
    /* Short input. */
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, 0x20, PRM_CMD_STAT_BAD_INPUT_LEN);
    /* Unknown umem id. */
    a.umem_id = umem->umem_id + 1000;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_RESOURCE);
    a.umem_id = umem->umem_id;
    /* The ring overflows the umem: by size, by offset, by a wrapping offset. */
    a.log_size = 7; /* 8 KiB of CQEs */
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.log_size = 4;
    a.umem_offset = DT_UMEM_SIZE - 512;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.umem_offset = ~0ULL - 8;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.umem_offset = 0;
    /* The doorbell record outside its umem, and misaligned. */
    a.dbr_offset = DT_UMEM_SIZE - 4;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.dbr_offset = 64 * 16 + 4;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.dbr_offset = 64 * 16;
    /* 128-byte CQEs, and a UAR page that was never allocated. */
    dt_build_create_cq(in, &a);
    PRM_SET(PRM_AT(in, PRM_CREATE_CQ_IN_CQC), PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_128);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_PARAM);
    a.uar_page = uar->page_id + 77;
    dt_build_create_cq(in, &a);
    dt_cq_refused(ctx, in, sizeof(in), PRM_CMD_STAT_BAD_RESOURCE);

    /* Failed commands left no use behind: the umem deregisters. */
    DT_CHECK(mlx5dv_devx_umem_dereg(umem) == 0);
    mlx5dv_devx_free_uar(uar);
    free(buf);
    DT_CHECK(ibv_close_device(ctx) == 0);
    printf("ok\n");
    return 0;
}
