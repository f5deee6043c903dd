/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capability snapshot (doca_gpunetio_cap_snapshot.h): one call records
 * the doca-eth capabilities of every device and the CUDA properties of every
 * GPU; two snapshots compare into the list of what changed.
 *   test_cap_snapshot snapshot    under softmlx5-run -n 2, fake CUDA driver with two GPUs
 *   test_cap_snapshot compare     texts written here: what changed, appeared, went away
 *   test_cap_snapshot refusals    NULL arguments and texts that are not snapshots
 *   test_cap_snapshot no-cuda     without a CUDA driver: the CUDA axis says why
 *   test_cap_snapshot no-rdma     without rdma-core: the DOCA axis says why
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doca_gpunetio_cap_snapshot.h"
#include "gpunetio/cap_snapshot.h"
#include "gpunetio_test.h"

struct member_query {
    const char *path;
    char value[256];
    int found;
};

static void member_find(const char *path, const char *value, void *arg)
{
    struct member_query *q = arg;

    if (strcmp(path, q->path) == 0) {
        snprintf(q->value, sizeof(q->value), "%s", value);
        q->found++;
    }
}

/* The value of one member of a snapshot ("" and a failed check when it is absent). */
static const char *member(const char *json, const char *path)
{
    static struct member_query q;

    q = (struct member_query){.path = path};
    assert_int_equal(cap_snapshot_each(json, member_find, &q), DOCA_SUCCESS);
    if (q.found != 1)
        fail_msg("member %s found %d times", path, q.found);
    return q.value;
}

static void test_snapshot_both_axes(void **state)
{
    char *json = NULL, *report = NULL;

    (void)state;
    assert_int_equal(dgn_cap_snapshot(&json), DOCA_SUCCESS);
    assert_string_equal(member(json, "snapshot_version"), "1");
    /* The DOCA axis: both softmlx5 devices, every queue type asked on both data paths. */
    assert_string_equal(member(json, "doca.available"), "true");
    assert_string_equal(member(json, "doca.devices.mlx5_0.device"), "\"mlx5_0\"");
    assert_string_equal(member(json, "doca.devices.mlx5_1.device"), "\"mlx5_1\"");
    assert_string_equal(member(json, "doca.devices.mlx5_0.rxq.cyclic.gpu"), "\"supported\"");
    assert_string_equal(member(json, "doca.devices.mlx5_0.rxq.regular.gpu"),
                        "\"DOCA_ERROR_NOT_SUPPORTED\"");
    assert_string_equal(member(json, "doca.devices.mlx5_1.txq.regular.gpu"), "\"supported\"");
    member(json, "doca.devices.mlx5_1.rxq.max_packet_size");
    member(json, "doca.devices.mlx5_1.txq.l4_chksum_offload");
    /* The CUDA axis: the fake driver's two GPUs (bus ids upper-case, as CUDA gives them). */
    assert_string_equal(member(json, "cuda.available"), "true");
    assert_string_equal(member(json, "cuda.gpus.0000:8A:00.0.compute_capability"), "\"9.0\"");
    assert_string_equal(member(json, "cuda.gpus.0000:8A:00.0.gpunetio_capable"), "true");
    assert_string_equal(member(json, "cuda.gpus.0000:1B:00.0.compute_capability"), "\"7.5\"");
    assert_string_equal(member(json, "cuda.gpus.0000:1B:00.0.gpunetio_capable"), "false");
    assert_string_equal(member(json, "cuda.gpus.0000:1B:00.0.dma_buf"), "true");
    /* A snapshot compared with itself: nothing changed. */
    assert_int_equal(dgn_cap_snapshot_compare(json, json, &report), DOCA_SUCCESS);
    assert_string_equal(report, "");
    free(report);
    free(json);
}

static const char before_text[] = "{\n"
                                  "  \"snapshot_version\": 1,\n"
                                  "  \"library\": \"0.1.0\",\n"
                                  "  \"doca\": {\n"
                                  "    \"available\": true,\n"
                                  "    \"devices\": [\n"
                                  "      {\n"
                                  "        \"device\": \"mlx5_0\",\n"
                                  "        \"rxq.cyclic.gpu\": \"supported\",\n"
                                  "        \"rxq.max_burst_size\": 4096\n"
                                  "      },\n"
                                  "      {\n"
                                  "        \"device\": \"mlx5_1\",\n"
                                  "        \"rxq.cyclic.gpu\": \"supported\"\n"
                                  "      }\n"
                                  "    ]\n"
                                  "  },\n"
                                  "  \"cuda\": {\n"
                                  "    \"available\": true,\n"
                                  "    \"gpus\": [\n"
                                  "      {\n"
                                  "        \"bus_id\": \"0000:8a:00.0\",\n"
                                  "        \"dma_buf\": true\n"
                                  "      }\n"
                                  "    ]\n"
                                  "  }\n"
                                  "}\n";

/* The same machine later: devices listed the other way round, one queue type lost, mlx5_1's
 * size query gone, a second GPU, dma-buf off, another library version. */
static const char after_text[] = "{\n"
                                 "  \"snapshot_version\": 1,\n"
                                 "  \"library\": \"0.2.0\",\n"
                                 "  \"doca\": {\n"
                                 "    \"available\": true,\n"
                                 "    \"devices\": [\n"
                                 "      {\n"
                                 "        \"device\": \"mlx5_1\",\n"
                                 "        \"rxq.cyclic.gpu\": \"supported\"\n"
                                 "      },\n"
                                 "      {\n"
                                 "        \"device\": \"mlx5_0\",\n"
                                 "        \"rxq.cyclic.gpu\": \"DOCA_ERROR_NOT_SUPPORTED\"\n"
                                 "      }\n"
                                 "    ]\n"
                                 "  },\n"
                                 "  \"cuda\": {\n"
                                 "    \"available\": true,\n"
                                 "    \"gpus\": [\n"
                                 "      {\n"
                                 "        \"bus_id\": \"0000:8a:00.0\",\n"
                                 "        \"dma_buf\": false\n"
                                 "      },\n"
                                 "      {\n"
                                 "        \"bus_id\": \"0000:8b:00.0\",\n"
                                 "        \"dma_buf\": true\n"
                                 "      }\n"
                                 "    ]\n"
                                 "  }\n"
                                 "}\n";

static void test_compare_names_each_difference(void **state)
{
    char *report = NULL;

    (void)state;
    assert_int_equal(dgn_cap_snapshot_compare(before_text, after_text, &report), DOCA_SUCCESS);
    assert_string_equal(report, "changed doca.devices.mlx5_0.rxq.cyclic.gpu: \"supported\" -> "
                                "\"DOCA_ERROR_NOT_SUPPORTED\"\n"
                                "gone doca.devices.mlx5_0.rxq.max_burst_size: 4096\n"
                                "changed cuda.gpus.0000:8a:00.0.dma_buf: true -> false\n"
                                "new cuda.gpus.0000:8b:00.0.bus_id: \"0000:8b:00.0\"\n"
                                "new cuda.gpus.0000:8b:00.0.dma_buf: true\n");
    free(report);
}

/* A copy of before_text with the first occurrence of from replaced by to. */
static char *edited(const char *from, const char *to)
{
    const char *at = strstr(before_text, from);
    size_t head, len;
    char *text;

    assert_non_null(at);
    head = (size_t)(at - before_text);
    len = head + strlen(to) + strlen(at + strlen(from));
    text = malloc(len + 1);
    assert_non_null(text);
    snprintf(text, len + 1, "%.*s%s%s", (int)head, before_text, to, at + strlen(from));
    return text;
}

static void refuse(const char *after, const char *log_part)
{
    char *report = (char *)"untouched";
    char *log;

    capture_start();
    assert_int_equal(dgn_cap_snapshot_compare(before_text, after, &report),
                     DOCA_ERROR_INVALID_VALUE);
    log = capture_stop();
    assert_string_equal(report, "untouched");
    if (strstr(log, log_part) == NULL)
        fail_msg("expected '%s' in the log, got: %s", log_part, log);
    free(log);
}

static void test_refusals(void **state)
{
    static const struct {
        const char *from, *to, *log;
    } cases[] = {
            {"\"snapshot_version\": 1", "\"snapshot_version\": 2", "not a snapshot of version 1"},
            {"\"snapshot_version\": 1,\n", "", "its snapshot_version is absent"},
            {"\"dma_buf\": true", "\"dma_buf\" true", "line 23: not a member"},
            {"    ]\n  },\n  \"cuda\"", "  },\n  \"cuda\"", "ends inside an object"},
            {"\"device\": \"mlx5_1\"", "\"device\": \"mlx5_0\"", "appears twice"},
            {"      {\n        \"bus_id\"", "      [\n        \"bus_id\"", "line 21: not a member"},
    };
    char *report = NULL;

    (void)state;
    log_setup();
    assert_int_equal(dgn_cap_snapshot(NULL), DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(dgn_cap_snapshot_compare(NULL, before_text, &report),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(dgn_cap_snapshot_compare(before_text, NULL, &report),
                     DOCA_ERROR_INVALID_VALUE);
    assert_int_equal(dgn_cap_snapshot_compare(before_text, before_text, NULL),
                     DOCA_ERROR_INVALID_VALUE);
    assert_null(report);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = edited(cases[i].from, cases[i].to);

        refuse(text, cases[i].log);
        free(text);
    }
    refuse("", "is not a snapshot of version 1");
    refuse("}\n", "closes more than was opened");
}

static void test_no_cuda(void **state)
{
    char *json = NULL;

    (void)state;
    assert_int_equal(dgn_cap_snapshot(&json), DOCA_SUCCESS);
    assert_string_equal(member(json, "cuda.available"), "false");
    if (strstr(member(json, "cuda.reason"), "libdgn-missing-cuda.so.1") == NULL)
        fail_msg("the CUDA axis does not say why: %s", member(json, "cuda.reason"));
    free(json);
}

static void test_no_rdma(void **state)
{
    char *json = NULL;

    (void)state;
    assert_int_equal(dgn_cap_snapshot(&json), DOCA_SUCCESS);
    assert_string_equal(member(json, "doca.available"), "false");
    assert_string_equal(member(json, "doca.reason"), "\"DOCA_ERROR_NOT_SUPPORTED\"");
    free(json);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest snapshot[] = {cmocka_unit_test(test_snapshot_both_axes)};
    const struct CMUnitTest compare[] = {cmocka_unit_test(test_compare_names_each_difference)};
    const struct CMUnitTest refusals[] = {cmocka_unit_test(test_refusals)};
    const struct CMUnitTest no_cuda[] = {cmocka_unit_test(test_no_cuda)};
    const struct CMUnitTest no_rdma[] = {cmocka_unit_test(test_no_rdma)};
    const char *which = argc > 1 ? argv[1] : "";

    if (strcmp(which, "snapshot") == 0)
        return cmocka_run_group_tests(snapshot, NULL, NULL);
    if (strcmp(which, "compare") == 0)
        return cmocka_run_group_tests(compare, NULL, NULL);
    if (strcmp(which, "refusals") == 0)
        return cmocka_run_group_tests(refusals, NULL, NULL);
    if (strcmp(which, "no-cuda") == 0)
        return cmocka_run_group_tests(no_cuda, NULL, NULL);
    if (strcmp(which, "no-rdma") == 0)
        return cmocka_run_group_tests(no_rdma, NULL, NULL);
    fprintf(stderr, "usage: %s snapshot|compare|refusals|no-cuda|no-rdma\n", argv[0]);
    return 2;
}
