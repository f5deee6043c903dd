/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ibv_query_device advertises is what can be made: exactly max_pd
 * protection domains and max_mr memory regions, and the one after the last
 * fails cleanly (NULL, errno ENOMEM) and leaves the device usable. The
 * counts are powers of two, as ConnectX's are (1 << QUERY_HCA_CAP's
 * log_max_*; test_devx_hca_cap checks that both views agree).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

static bool power_of_two(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static void test_pds(struct ibv_context *ctx, int max_pd)
{
    struct ibv_pd **pds = calloc((size_t)max_pd + 1, sizeof(*pds));
    int made = 0;

    while (made <= max_pd && (pds[made] = ibv_alloc_pd(ctx)) != NULL)
        made++;
    VU_CHECK(made == max_pd, "%d protection domains made; max_pd is %d", made, max_pd);
    VU_CHECK(made > max_pd || errno == ENOMEM, "the one after the last: ENOMEM (errno %d)", errno);
    /* One freed, one more can be made, and again not two. */
    if (made > 0) {
        VU_CHECK(ibv_dealloc_pd(pds[made / 2]) == 0, "free one");
        pds[made / 2] = ibv_alloc_pd(ctx);
        VU_CHECK(pds[made / 2] != NULL, "a freed number is made again");
        VU_CHECK(ibv_alloc_pd(ctx) == NULL, "and no more");
    }
    for (int i = 0; i < made; i++)
        if (pds[i] != NULL)
            ibv_dealloc_pd(pds[i]);
    free(pds);
}

static void test_mrs(struct ibv_context *ctx, int max_mr)
{
    struct ibv_mr **mrs = calloc((size_t)max_mr + 1, sizeof(*mrs));
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    void *buf = aligned_alloc(4096, 4096);
    int made = 0;

    VU_CHECK(pd != NULL && buf != NULL, "a PD and a buffer");
    while (made <= max_mr &&
           (mrs[made] = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE)) != NULL)
        made++;
    VU_CHECK(made == max_mr, "%d memory regions made; max_mr is %d", made, max_mr);
    VU_CHECK(made > max_mr || errno == ENOMEM, "the one after the last: ENOMEM (errno %d)", errno);
    {
        int zero = 0;

        for (int i = 0; i < made; i++)
            zero += mrs[i]->lkey == 0 || mrs[i]->rkey == 0;
        VU_CHECK(zero == 0, "no memory region has key 0 (%d do)", zero);
    }
    for (int i = 0; i < made; i++)
        ibv_dereg_mr(mrs[i]);
    ibv_dealloc_pd(pd);
    free(buf);
    free(mrs);
}

int main(void)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_device_attr a;
    struct ibv_context *ctx;

    if (list == NULL || n == 0)
        return 2;
    ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (ctx == NULL || ibv_query_device(ctx, &a) != 0)
        return 2;
    VU_CHECK(power_of_two(a.max_pd) && power_of_two(a.max_mr) && power_of_two(a.max_cq) &&
                     power_of_two(a.max_qp) && power_of_two(a.max_srq),
             "limits are powers of two (pd %d, mr %d, cq %d, qp %d, srq %d)", a.max_pd, a.max_mr,
             a.max_cq, a.max_qp, a.max_srq);
    test_pds(ctx, a.max_pd);
    test_mrs(ctx, a.max_mr);
    ibv_close_device(ctx);
    return vu_summary("test_verbs_limits");
}
