/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target devx_cmd: softmlx5's DevX command engine (emu/devx/). Every
 * command goes through emu_devx_cmd(), the entry that mlx5dv_devx_general_cmd
 * and mlx5dv_devx_obj_create / modify / query / destroy hand their mailboxes
 * to, on a device opened in this process (input format and device:
 * devx_cmd.h).
 *
 * Besides the sanitizers' findings, an input aborts when:
 *   - the return value and the output mailbox disagree (0 with a failing
 *     status, EREMOTEIO with status OK, anything else), or a mailbox too
 *     short for its header was written;
 *   - a failed command left anything past the header of its output (a
 *     failed command answers only its header);
 *   - a DESTROY succeeded on an object no CREATE of the input made, or a
 *     CREATE answered a number that is in use;
 *   - after the input, an object it made cannot be destroyed, or the device
 *     holds other objects than before it, or a umem is still in use.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devx/devx.h"
#include "devx_cmd.h"
#include "fuzz.h"
#include "nic/nic.h"
#include "nic/uar.h"
#include "nic/umem.h"
#include "prm/prm_bits.h"
#include "prm/prm_cmd.h"
#include "prm/prm_status.h"

/* An object a CREATE of the current input made. */
struct fuzz_obj {
    enum emu_devx_obj type;
    uint32_t id;
};

static struct {
    int state;               /* 0: not set up, 1: ready, 77: this host cannot */
    struct ibv_context *ctx; /* open for the process's life */
    struct emu_nic *nic;
    struct emu_uar *uar;
    struct emu_umem *ring, *dbr;
    uint8_t *ring_mem, *dbr_mem;
    uint32_t pds, cqs, qps, srqs; /* the device's objects before any input */
    struct fuzz_obj objs[DEVX_FUZZ_MAX_CMDS];
    int nobjs;
} fx;

static const char *const fuzz_obj_names[] = {"none", "PD", "CQ", "QP",  "RMP", "DCT",      "TD",
                                             "TIS",  "SQ", "RQ", "RQT", "TIR", "Q counter"};

static void fuzz_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fuzz_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "fuzz_devx_cmd: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}

static const char *fuzz_obj_name(enum emu_devx_obj type)
{
    return (unsigned int)type < sizeof(fuzz_obj_names) / sizeof(fuzz_obj_names[0])
                   ? fuzz_obj_names[type]
                   : "?";
}

/*
 * A network namespace of the process's own: the wire endpoint is then
 * always 1, and an INIT2RTR naming another address or endpoint reaches
 * nothing (no route, no other process's abstract socket).
 */
static int fuzz_private_netns(void)
{
    if (unshare(CLONE_NEWNET) == 0)
        return 0;
    return unshare(CLONE_NEWUSER | CLONE_NEWNET);
}

static struct emu_umem *fuzz_umem(uint8_t **mem, uint32_t size)
{
    struct emu_umem *umem;
    int err;

    *mem = aligned_alloc(4096, size);
    if (*mem == NULL)
        fuzz_die("out of memory");
    memset(*mem, 0, size);
    err = emu_umem_register(fx.nic, (uintptr_t)*mem, size,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                    IBV_ACCESS_REMOTE_READ,
                            false, &umem);
    if (err != 0)
        fuzz_die("emu_umem_register: %s", strerror(err));
    return umem;
}

int devx_fuzz_setup(struct devx_fuzz_device *dev)
{
    struct ibv_device **list;
    int err, n;

    if (fx.state == 0 && fuzz_private_netns() != 0) {
        fprintf(stderr, "skipped: no network namespace of our own (unshare: %s)\n",
                strerror(errno));
        fx.state = 77;
    }
    if (fx.state == 0) {
        setenv("SOFTMLX5_DEVICES", "1", 1);
        setenv("SOFTMLX5_ADDR", "127.0.0.1", 1);
        setenv("SOFTMLX5_LINK", "eth", 1);
        /* Both send doorbell modes reachable; quiet unless asked (refused commands log). */
        setenv("SOFTMLX5_NO_DBR", "1", 1);
        setenv("SOFTMLX5_LOG", "0", 0);
        /* Opened as any program opens it: this is softmlx5's libibverbs.so.1. */
        list = ibv_get_device_list(&n);
        if (list == NULL || n < 1)
            fuzz_die("softmlx5 offers no device");
        fx.ctx = ibv_open_device(list[0]);
        if (fx.ctx == NULL)
            fuzz_die("ibv_open_device: %s", strerror(errno));
        ibv_free_device_list(list);
        fx.nic = emu_nic_of(fx.ctx->device);
        err = emu_uar_alloc(fx.nic, &fx.uar);
        if (err != 0)
            fuzz_die("emu_uar_alloc: %s", strerror(err));
        fx.ring = fuzz_umem(&fx.ring_mem, DEVX_FUZZ_RING_UMEM_SIZE);
        fx.dbr = fuzz_umem(&fx.dbr_mem, DEVX_FUZZ_DBR_UMEM_SIZE);
        fx.pds = fx.nic->pds.count;
        fx.cqs = fx.nic->cqs.count;
        fx.qps = fx.nic->qps.count;
        fx.srqs = fx.nic->srqs.count;
        fx.state = 1;
    }
    if (fx.state != 1)
        return fx.state;
    if (dev != NULL)
        *dev = (struct devx_fuzz_device){fx.uar->page_id, fx.ring->id, fx.dbr->id};
    return 0;
}

static int fuzz_obj_find(enum emu_devx_obj type, uint32_t id)
{
    for (int i = 0; i < fx.nobjs; i++)
        if (fx.objs[i].type == type && fx.objs[i].id == id)
            return i;
    return -1;
}

static void fuzz_obj_forget(int i)
{
    fx.objs[i] = fx.objs[--fx.nobjs];
}

/* What a successful command made or unmade. */
static void fuzz_track(const uint8_t *in, const uint8_t *out)
{
    uint16_t opcode = (uint16_t)PRM_GET(in, PRM_CMD_OPCODE);
    struct emu_devx_cmd_info info;
    uint32_t id;
    int i;

    emu_devx_cmd_classify(opcode, &info);
    if (info.kind == EMU_DEVX_CREATE) {
        id = (uint32_t)PRM_GET(out, EMU_DEVX_OBJ_ID);
        if (fuzz_obj_find(info.obj, id) >= 0)
            fuzz_die("%s (0x%x) answered %s 0x%x, which exists already",
                     prm_cmd_opcode_name(opcode), opcode, fuzz_obj_name(info.obj), id);
        if (fx.nobjs == DEVX_FUZZ_MAX_CMDS)
            fuzz_die("more objects than commands");
        fx.objs[fx.nobjs++] = (struct fuzz_obj){info.obj, id};
    } else if (info.kind == EMU_DEVX_DESTROY) {
        id = (uint32_t)PRM_GET(in, EMU_DEVX_OBJ_ID);
        i = fuzz_obj_find(info.obj, id);
        if (i < 0)
            fuzz_die("%s (0x%x) destroyed %s 0x%x, which no command made",
                     prm_cmd_opcode_name(opcode), opcode, fuzz_obj_name(info.obj), id);
        fuzz_obj_forget(i);
    }
}

bool devx_fuzz_cmd(const uint8_t *src, size_t inlen, uint8_t *answer, size_t outlen)
{
    uint8_t *in = malloc(inlen > 0 ? inlen : 1);
    uint8_t *out = malloc(outlen > 0 ? outlen : 1);
    bool ok = false;
    uint8_t status;
    int rc;

    if (in == NULL || out == NULL)
        fuzz_die("out of memory");
    /* Exact-size copies: a read or write past a mailbox is an ASan report. */
    memcpy(in, src, inlen);
    memset(out, 0xa5, outlen);
    rc = emu_devx_cmd(fx.nic, in, inlen, out, outlen);
    if (inlen < PRM_CMD_HDR_IN_SIZE / 2 || outlen < PRM_CMD_HDR_OUT_SIZE / 2) {
        if (rc != EINVAL)
            fuzz_die("%zu-byte input and %zu-byte output mailboxes: returned %d, not EINVAL", inlen,
                     outlen, rc);
        for (size_t k = 0; k < outlen; k++)
            if (out[k] != 0xa5)
                fuzz_die("a refused %zu-byte output mailbox was written", outlen);
        goto done;
    }
    status = (uint8_t)PRM_GET(out, PRM_CMD_STATUS);
    if ((rc != 0 && rc != EREMOTEIO) || (rc == 0) != (status == PRM_CMD_STAT_OK))
        fuzz_die("opcode 0x%x: returned %d with status 0x%x",
                 (unsigned int)PRM_GET(in, PRM_CMD_OPCODE), rc, status);
    if (rc != 0) {
        for (size_t k = PRM_CMD_HDR_OUT_SIZE; k < outlen; k++)
            if (out[k] != 0)
                fuzz_die("opcode 0x%x failed (status 0x%x, syndrome 0x%x) but wrote byte 0x%zx "
                         "of its output (0x%02x): a failed command answers only its header",
                         (unsigned int)PRM_GET(in, PRM_CMD_OPCODE), status,
                         (unsigned int)PRM_GET(out, PRM_CMD_SYNDROME), k, out[k]);
        goto done;
    }
    fuzz_track(in, out);
    ok = true;
done:
    if (answer != NULL)
        memcpy(answer, out, outlen);
    free(in);
    free(out);
    return ok;
}

void devx_fuzz_begin(void)
{
    if (devx_fuzz_setup(NULL) != 0)
        exit(77);
    if (fx.nobjs != 0)
        fuzz_die("an input began before the last one ended");
    memset(fx.ring_mem, 0, DEVX_FUZZ_RING_UMEM_SIZE);
    memset(fx.dbr_mem, 0, DEVX_FUZZ_DBR_UMEM_SIZE);
}

/* Destroys what the input left, dependents first; then the device must be as before it. */
void devx_fuzz_end(void)
{
    /* A TIR names an RQ or an RQT, an RQT RQs, an SQ a TIS; queues name CQs, Q counters, PDs. */
    static const enum emu_devx_obj order[] = {
            EMU_DEVX_OBJ_TIR, EMU_DEVX_OBJ_RQT, EMU_DEVX_OBJ_QP,        EMU_DEVX_OBJ_DCT,
            EMU_DEVX_OBJ_SQ,  EMU_DEVX_OBJ_RQ,  EMU_DEVX_OBJ_SRQ,       EMU_DEVX_OBJ_CQ,
            EMU_DEVX_OBJ_TIS, EMU_DEVX_OBJ_TD,  EMU_DEVX_OBJ_Q_COUNTER, EMU_DEVX_OBJ_PD};
    struct emu_nic *nic = fx.nic;
    int err;

    for (size_t t = 0; t < sizeof(order) / sizeof(order[0]); t++)
        for (int i = 0; i < fx.nobjs;)
            if (fx.objs[i].type == order[t] &&
                emu_devx_obj_destroy(nic, fx.objs[i].type, fx.objs[i].id) == 0)
                fuzz_obj_forget(i);
            else
                i++;
    if (fx.nobjs > 0) {
        err = emu_devx_obj_destroy(nic, fx.objs[0].type, fx.objs[0].id);
        fuzz_die("%s 0x%x made by the input cannot be destroyed after it: %s",
                 fuzz_obj_name(fx.objs[0].type), fx.objs[0].id, strerror(err));
    }
    if (nic->pds.count != fx.pds || nic->cqs.count != fx.cqs || nic->qps.count != fx.qps ||
        nic->srqs.count != fx.srqs)
        fuzz_die("after the input the device holds %u PDs, %u CQs, %u QPs and %u SRQs "
                 "(%u, %u, %u and %u before)",
                 nic->pds.count, nic->cqs.count, nic->qps.count, nic->srqs.count, fx.pds, fx.cqs,
                 fx.qps, fx.srqs);
    if (fx.ring->users != 0 || fx.dbr->users != 0)
        fuzz_die("after the input the umems have %d and %d users", fx.ring->users, fx.dbr->users);
}

int devx_fuzz_run(const uint8_t *data, size_t size)
{
    int failed = 0;

    devx_fuzz_begin();
    for (int n = 0; n < DEVX_FUZZ_MAX_CMDS && size >= DEVX_FUZZ_REC_HDR; n++) {
        size_t inlen = ((size_t)data[0] << 8) | data[1];
        size_t outlen = ((size_t)data[2] << 8) | data[3];

        data += DEVX_FUZZ_REC_HDR;
        size -= DEVX_FUZZ_REC_HDR;
        if (inlen > size)
            inlen = size;
        if (outlen > DEVX_FUZZ_MAX_MAILBOX)
            outlen = DEVX_FUZZ_MAX_MAILBOX;
        failed += !devx_fuzz_cmd(data, inlen, NULL, outlen);
        data += inlen;
        size -= inlen;
    }
    devx_fuzz_end();
    return failed;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int rc = devx_fuzz_setup(NULL);

    if (rc != 0)
        exit(rc);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    devx_fuzz_run(data, size);
    return 0;
}
