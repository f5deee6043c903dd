/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Options programs probe for, answered as a ConnectX without them: on-demand
 * paging (no ODP capabilities, IBV_ACCESS_ON_DEMAND registrations refused),
 * completion timestamps (no clock, timestamped extended CQs refused with
 * EOPNOTSUPP), memory windows and flow steering (EOPNOTSUPP). Each probe
 * fails cleanly and the device keeps working.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_util.h"

static void probe_odp(struct vu_ctx *c, struct vu_end *e)
{
    struct ibv_device_attr_ex attr;
    struct ibv_mr *mr;

    memset(&attr, 0xff, sizeof(attr));
    VU_CHECK(ibv_query_device_ex(c->ctx, NULL, &attr) == 0, "ibv_query_device_ex");
    VU_CHECK(attr.odp_caps.general_caps == 0 && attr.odp_caps.per_transport_caps.rc_odp_caps == 0 &&
                     attr.odp_caps.per_transport_caps.uc_odp_caps == 0 &&
                     attr.odp_caps.per_transport_caps.ud_odp_caps == 0 && attr.xrc_odp_caps == 0,
             "no ODP capabilities");
    errno = 0;
    mr = ibv_reg_mr(c->pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
    VU_CHECK(mr == NULL && (errno == EINVAL || errno == EOPNOTSUPP),
             "an ON_DEMAND registration is refused (errno %d)", errno);
    if (mr != NULL)
        ibv_dereg_mr(mr);
}

static void probe_timestamps(struct vu_ctx *c)
{
    struct ibv_device_attr_ex attr;
    struct ibv_cq_init_attr_ex ca;
    uint64_t flags[2] = {IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
                         IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK};

    memset(&attr, 0xff, sizeof(attr));
    VU_CHECK(ibv_query_device_ex(c->ctx, NULL, &attr) == 0 && attr.completion_timestamp_mask == 0 &&
                     attr.hca_core_clock == 0,
             "no completion timestamp clock");
    for (int i = 0; i < 2; i++) {
        struct ibv_cq_ex *cq;

        memset(&ca, 0, sizeof(ca));
        ca.cqe = 16;
        ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | flags[i];
        errno = 0;
        cq = ibv_create_cq_ex(c->ctx, &ca);
        VU_CHECK(cq == NULL && errno == EOPNOTSUPP,
                 "a CQ with completion timestamps (0x%lx) is refused with EOPNOTSUPP (errno %d)",
                 (unsigned long)flags[i], errno);
        if (cq != NULL)
            ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
    }
}

static void probe_mw(struct vu_ctx *c)
{
    struct ibv_mw *mw;

    for (int type = IBV_MW_TYPE_1; type <= IBV_MW_TYPE_2; type++) {
        errno = 0;
        mw = ibv_alloc_mw(c->pd, (enum ibv_mw_type)type);
        VU_CHECK(mw == NULL && errno == EOPNOTSUPP,
                 "ibv_alloc_mw type %d refused with EOPNOTSUPP (errno %d)", type, errno);
        if (mw != NULL)
            ibv_dealloc_mw(mw);
    }
}

static void probe_flow(struct vu_end *e)
{
    struct {
        struct ibv_flow_attr attr;
        struct ibv_flow_spec_eth eth;
    } rule;
    struct ibv_flow *flow;

    memset(&rule, 0, sizeof(rule));
    rule.attr.type = IBV_FLOW_ATTR_NORMAL;
    rule.attr.size = sizeof(rule);
    rule.attr.num_of_specs = 1;
    rule.attr.port = 1;
    rule.eth.type = IBV_FLOW_SPEC_ETH;
    rule.eth.size = sizeof(rule.eth);
    memset(rule.eth.mask.dst_mac, 0xff, 6);
    errno = 0;
    flow = ibv_create_flow(e->qp, &rule.attr);
    VU_CHECK(flow == NULL && errno == EOPNOTSUPP,
             "ibv_create_flow refused with EOPNOTSUPP (errno %d)", errno);
    if (flow != NULL)
        ibv_destroy_flow(flow);
}

int main(void)
{
    struct vu_ctx c;
    struct vu_end e;
    struct ibv_cq *cq;

    if (vu_open(&c) != 0 || vu_end_create(&c, &e, 8, 4, 4, IBV_ACCESS_LOCAL_WRITE) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    probe_odp(&c, &e);
    probe_timestamps(&c);
    probe_mw(&c);
    probe_flow(&e);
    /* The device is unharmed: objects are still made. */
    cq = ibv_create_cq(c.ctx, 4, NULL, NULL, 0);
    VU_CHECK(cq != NULL, "a CQ after the probes");
    if (cq != NULL)
        ibv_destroy_cq(cq);
    vu_end_destroy(&e);
    vu_close(&c);
    return vu_summary("test_verbs_absent");
}
