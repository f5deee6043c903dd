/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target devx_cmd (fuzz_devx_cmd.c) and its seeds (devx_cmd_seeds.c):
 * the input format and the device the commands run on.
 *
 * An input is a sequence of records, each one command:
 *
 *   bytes 0..1  length of the input mailbox (big-endian; what is left of the
 *               input when that is shorter)
 *   bytes 2..3  length of the output mailbox (big-endian, at most
 *               DEVX_FUZZ_MAX_MAILBOX)
 *   bytes 4..   the input mailbox (PRM layout, src/prm/)
 *
 * at most DEVX_FUZZ_MAX_CMDS of them; a trailing fragment shorter than a
 * record header is ignored.
 *
 * The device is mlx5_0 of softmlx5, opened in the fuzzing process alone in
 * a network namespace of its own (so that its wire endpoint is always the
 * first one, and an INIT2RTR reaches no other process and no network), with
 * one UAR page and two umems registered before the first input: one for
 * rings, one for doorbell records, both zeroed before every input. Every
 * input starts on the same device: what an input made is destroyed after it,
 * so the numbers its commands are answered with are the same on each run.
 */
#ifndef DGN_FUZZ_DEVX_CMD_H
#define DGN_FUZZ_DEVX_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEVX_FUZZ_REC_HDR        4
#define DEVX_FUZZ_MAX_CMDS       64
#define DEVX_FUZZ_MAX_MAILBOX    0x2000
#define DEVX_FUZZ_RING_UMEM_SIZE (256u * 1024)
#define DEVX_FUZZ_DBR_UMEM_SIZE  4096u

/* What inputs can name besides the objects they make. */
struct devx_fuzz_device {
    uint32_t uar_page;
    uint32_t ring_umem; /* DEVX_FUZZ_RING_UMEM_SIZE bytes */
    uint32_t dbr_umem;  /* DEVX_FUZZ_DBR_UMEM_SIZE bytes */
};

/*
 * Opens the device (once; later calls only fill dev). 0, or 77 with a line
 * on stderr when this host cannot give it a network namespace of its own.
 */
int devx_fuzz_setup(struct devx_fuzz_device *dev);

/*
 * One input, command by command: devx_fuzz_begin(), devx_fuzz_cmd() for
 * each (true when it answered status OK; out, when not NULL, receives the
 * outlen bytes of the answer), devx_fuzz_end(), which destroys what the
 * input left and checks the device is as before it. Any inconsistency
 * aborts (fuzz_devx_cmd.c says which).
 */
void devx_fuzz_begin(void);
bool devx_fuzz_cmd(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen);
void devx_fuzz_end(void);

/* One input in the record format; how many of its commands did not answer OK. */
int devx_fuzz_run(const uint8_t *data, size_t size);

#endif /* DGN_FUZZ_DEVX_CMD_H */
