/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CREATE_RQT / DESTROY_RQT and CREATE_TIR / DESTROY_TIR (nic/eth.h). An RQT
 * lists RQs; a TIR delivers to one RQ (direct, inline_rqn) or to an RQT's
 * RQ picked by the Toeplitz hash of the outer IPv4 addresses and TCP or UDP
 * ports its rx_hash_field_selector_outer names (indirect; rx_hash_fn none
 * sends everything to the table's first RQ). No LRO, no tunnel offloads, no
 * inner selector, no IPv6 hashing: each is refused with BAD_PARAM.
 */
#include <stdlib.h>
#include <string.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

#define DEVX_HASH_FIELDS                                                          \
    (PRM_RX_HASH_SEL_SRC_IP | PRM_RX_HASH_SEL_DST_IP | PRM_RX_HASH_SEL_L4_SPORT | \
     PRM_RX_HASH_SEL_L4_DPORT)

uint8_t devx_create_rqt(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    const void *rqtc = devx_in_at(c, PRM_CREATE_RQT_IN_RQTC);
    uint32_t n = (uint32_t)PRM_GET(rqtc, PRM_RQTC_RQT_ACTUAL_SIZE);
    uint32_t max = (uint32_t)PRM_GET(rqtc, PRM_RQTC_RQT_MAX_SIZE);
    struct emu_eth_rqt *t;
    int64_t index;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    if (PRM_GET(rqtc, PRM_RQTC_LIST_Q_TYPE) != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_RQT_TYPE,
                         "list_q_type: the table lists RQs (0)");
    if (n == 0 || n > max || max > (1u << EMU_ETH_LOG_MAX_RQT_SZ))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_RQT_SIZE,
                         "rqt_actual_size must be 1..rqt_max_size, and rqt_max_size at most "
                         "1 << log_max_rqt_size");
    if (c->inlen < PRM_CREATE_RQT_IN_RQTC + PRM_RQTC_RQ_NUM + (size_t)n * PRM_RQ_NUM_SIZE)
        return devx_fail(c, PRM_CMD_STAT_BAD_INPUT_LEN, DEVX_SYND_INPUT_LEN,
                         "input mailbox shorter than the RQ list rqt_actual_size names");
    t = calloc(1, sizeof(*t));
    if (t == NULL || (t->rqs = calloc(n, sizeof(*t->rqs))) == NULL) {
        free(t);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    }
    t->n = n;
    t->max = max;
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 0; i < n; i++) {
        const void *e = devx_in_at(c, PRM_CREATE_RQT_IN_RQTC + PRM_RQTC_RQ_NUM +
                                              (size_t)i * PRM_RQ_NUM_SIZE);

        t->rqs[i] = emu_eth_rq_find(d, c->nic, (uint32_t)PRM_GET(e, PRM_RQ_NUM_RQN));
        if (t->rqs[i] == NULL) {
            pthread_mutex_unlock(&d->lock);
            free(t->rqs);
            free(t);
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_RQT_RQ,
                             "an rq_num of the list names no RQ made by CREATE_RQ");
        }
    }
    index = emu_table_insert(&d->rqts, t);
    if (index >= 0) {
        t->rqtn = (uint32_t)index;
        for (uint32_t i = 0; i < n; i++)
            t->rqs[i]->refs++;
    }
    pthread_mutex_unlock(&d->lock);
    if (index < 0) {
        free(t->rqs);
        free(t);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free RQT");
    }
    PRM_SET(c->out, PRM_CREATE_RQT_OUT_RQTN, t->rqtn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_rqt(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t rqtn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_RQT_IN_RQTN);
    struct emu_eth_rqt *t;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    t = emu_eth_rqt_find(d, rqtn);
    if (t == NULL || t->refs != 0) {
        pthread_mutex_unlock(&d->lock);
        return t == NULL ? devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_RQT_UNKNOWN,
                                     "no RQT with this number was made by CREATE_RQT")
                         : devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_ETH_BUSY,
                                     "TIRs still name this RQT; destroy them first");
    }
    for (uint32_t i = 0; i < t->n; i++)
        t->rqs[i]->refs--;
    emu_table_remove(&d->rqts, rqtn);
    pthread_mutex_unlock(&d->lock);
    free(t->rqs);
    free(t);
    return PRM_CMD_STAT_OK;
}

/* Checks the TIR context and fills t (eth lock held). */
static uint8_t devx_tir_check(struct devx_cmd *c, struct eth_dev *d, const void *tirc,
                              struct emu_eth_tir *t)
{
    const void *outer = (const uint8_t *)tirc + PRM_TIRC_RX_HASH_FIELD_OUTER;
    const void *inner = (const uint8_t *)tirc + PRM_TIRC_RX_HASH_FIELD_INNER;
    uint32_t disp = (uint32_t)PRM_GET(tirc, PRM_TIRC_DISP_TYPE);

    t->td = (uint32_t)PRM_GET(tirc, PRM_TIRC_TRANSPORT_DOMAIN);
    if (!emu_eth_td_valid(d, t->td))
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TD,
                         "transport_domain names no domain made by ALLOC_TRANSPORT_DOMAIN");
    if (PRM_GET(tirc, PRM_TIRC_LRO_ENABLE_MASK) != 0 || PRM_GET(tirc, PRM_TIRC_TUNNELED_OFFLOAD_EN))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_TIR_OFFLOAD,
                         "lro_enable_mask / tunneled_offload_en: the device has neither offload");
    if (disp == PRM_TIRC_DISP_TYPE_DIRECT) {
        t->rq = emu_eth_rq_find(d, c->nic, (uint32_t)PRM_GET(tirc, PRM_TIRC_INLINE_RQN));
        if (t->rq == NULL)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TIR_RQ,
                             "inline_rqn names no RQ made by CREATE_RQ");
        return PRM_CMD_STAT_OK;
    }
    if (disp != PRM_TIRC_DISP_TYPE_INDIRECT)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_TIR_DISP,
                         "disp_type: direct (0) or indirect (1)");
    t->indirect = true;
    t->rqt = emu_eth_rqt_find(d, (uint32_t)PRM_GET(tirc, PRM_TIRC_INDIRECT_TABLE));
    if (t->rqt == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TIR_RQT,
                         "indirect_table names no RQT made by CREATE_RQT");
    t->hash_fn = (uint8_t)PRM_GET(tirc, PRM_TIRC_RX_HASH_FN);
    t->l3_ipv6 = PRM_GET(outer, PRM_RX_HASH_L3_PROT_TYPE) == PRM_RX_HASH_L3_IPV6;
    t->l4_udp = PRM_GET(outer, PRM_RX_HASH_L4_PROT_TYPE) == PRM_RX_HASH_L4_UDP;
    t->hash_fields = (uint32_t)PRM_GET(outer, PRM_RX_HASH_SELECTED_FIELDS);
    if ((t->hash_fn != PRM_RX_HASH_FN_TOEPLITZ && t->hash_fn != PRM_RX_HASH_FN_NONE) ||
        PRM_GET(tirc, PRM_TIRC_RX_HASH_SYMMETRIC) || (t->hash_fields & ~DEVX_HASH_FIELDS) != 0 ||
        (t->l3_ipv6 && t->hash_fields != 0) || prm_load_be32(inner) != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_TIR_HASH,
                         "rx_hash: Toeplitz (or none), not symmetric, over the outer IPv4 "
                         "addresses and L4 ports only");
    memcpy(t->key, (const uint8_t *)tirc + PRM_TIRC_RX_HASH_TOEPLITZ_KEY, EMU_ETH_KEY_LEN);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_create_tir(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    const void *tirc = devx_in_at(c, PRM_CREATE_TIR_IN_TIRC);
    struct emu_eth_tir *t;
    uint8_t status;
    int64_t index;

    if (d == NULL || (t = calloc(1, sizeof(*t))) == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    status = devx_tir_check(c, d, tirc, t);
    if (status != PRM_CMD_STAT_OK) {
        pthread_mutex_unlock(&d->lock);
        free(t);
        return status;
    }
    index = emu_table_insert(&d->tirs, t);
    if (index >= 0) {
        t->tirn = (uint32_t)index;
        if (t->rq != NULL)
            t->rq->refs++;
        if (t->rqt != NULL)
            t->rqt->refs++;
        emu_eth_td_ref(d, t->td, 1);
    }
    pthread_mutex_unlock(&d->lock);
    if (index < 0) {
        free(t);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free TIR");
    }
    PRM_SET(c->out, PRM_CREATE_TIR_OUT_TIRN, t->tirn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_tir(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t tirn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_TIR_IN_TIRN);
    struct emu_eth_tir *t;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    t = emu_eth_tir_find(d, tirn);
    if (t == NULL || t->refs != 0) {
        pthread_mutex_unlock(&d->lock);
        return t == NULL ? devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TIR_UNKNOWN,
                                     "no TIR with this number was made by CREATE_TIR")
                         : devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_ETH_BUSY,
                                     "steering rules still forward to this TIR; destroy them "
                                     "first");
    }
    if (t->rq != NULL)
        t->rq->refs--;
    if (t->rqt != NULL)
        t->rqt->refs--;
    emu_eth_td_ref(d, t->td, -1);
    emu_table_remove(&d->tirs, tirn);
    pthread_mutex_unlock(&d->lock);
    free(t);
    return PRM_CMD_STAT_OK;
}
