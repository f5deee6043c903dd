/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Ethernet tests share: the first device of the devinfo list
 * opened with doca_dev_open (under softmlx5-run, the software NIC; exit 77
 * without one) and the group fixture that opens it for a test file, a
 * started host-memory mmap for packet buffers, and a check that a refused
 * call logged one ERR line naming what to do. Include after cmocka.h.
 */
#ifndef ETH_TEST_H
#define ETH_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doca_buf_array.h"
#include "doca_ctx.h"
#include "doca_dev.h"
#include "doca_eth_rxq.h"
#include "doca_eth_rxq_gpu_data_path.h"
#include "doca_eth_txq.h"
#include "doca_eth_txq_gpu_data_path.h"
#include "doca_gpunetio_eth_flow.h"
#include "doca_mmap.h"
#include "gpunetio_test.h"

#define ETH_TEST_SKIP 77

struct et_dev {
    struct doca_devinfo **list;
    uint32_t n;
    struct doca_devinfo *info;
    struct doca_dev *dev;
};

/* Opens the first device; exits 77 ("skipped: ...") when there is none. */
static inline void et_open(struct et_dev *d)
{
    if (doca_devinfo_create_list(&d->list, &d->n) != DOCA_SUCCESS || d->n == 0) {
        printf("skipped: no RDMA device (run under softmlx5-run)\n");
        exit(ETH_TEST_SKIP);
    }
    d->info = d->list[0];
    if (doca_dev_open(d->info, &d->dev) != DOCA_SUCCESS) {
        fprintf(stderr, "doca_dev_open failed\n");
        exit(1);
    }
}

static inline void et_close(struct et_dev *d)
{
    if (doca_dev_close(d->dev) != DOCA_SUCCESS)
        fprintf(stderr, "doca_dev_close refused: objects leaked by the test\n");
    doca_devinfo_destroy_list(d->list);
}

/*
 * A cmocka group fixture: struct et_dev name, opened (et_open, logs captured) by group_setup and
 * closed by group_teardown.
 */
#define ET_DEV_GROUP_FIXTURE(name)          \
    static struct et_dev name;              \
                                            \
    static int group_setup(void **state)    \
    {                                       \
        (void)state;                        \
        log_setup();                        \
        et_open(&name);                     \
        return 0;                           \
    }                                       \
                                            \
    static int group_teardown(void **state) \
    {                                       \
        (void)state;                        \
        et_close(&name);                    \
        return 0;                           \
    }

/* A host-memory mmap of len bytes (page-aligned) on dev; started when start. */
static inline struct doca_mmap *et_mmap(struct doca_dev *dev, size_t len, bool start, void **mem)
{
    struct doca_mmap *m = NULL;

    *mem = aligned_alloc(4096, len);
    if (*mem == NULL || doca_mmap_create(&m) != DOCA_SUCCESS ||
        doca_mmap_add_dev(m, dev) != DOCA_SUCCESS ||
        doca_mmap_set_memrange(m, *mem, len) != DOCA_SUCCESS ||
        (start && doca_mmap_start(m) != DOCA_SUCCESS))
        return NULL;
    memset(*mem, 0, len);
    return m;
}

static inline void et_mmap_free(struct doca_mmap *m, void *mem)
{
    assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
    free(mem);
}

/* expr answers code and logs exactly one ERR line containing text. */
#define expect_refusal(expr, code, text)        \
    do {                                        \
        doca_error_t et_err_;                   \
        char *et_log_;                          \
        capture_start();                        \
        et_err_ = (expr);                       \
        et_log_ = capture_stop();               \
        assert_int_equal(et_err_, (code));      \
        assert_one_error_line(et_log_, (text)); \
        free(et_log_);                          \
    } while (0)

#endif /* ETH_TEST_H */
