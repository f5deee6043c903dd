/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NIC receive steering: a frame's outer headers laid out as the PRM's
 * fte_match_set_lyr_2_4, the rules mlx5dv_create_flow adds (a mask, a
 * value, a priority and a TIR or drop), the first matching rule in priority
 * order (lower value first, as on mlx5; rules of one priority in the order
 * they were made), and the RQ a TIR picks (an indirect TIR's by the Toeplitz
 * hash of the fields its selector names, over its RQT).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "prm/prm_eth.h"

#define ETH_HLEN_    14
#define ETH_P_IPV4_  0x0800
#define ETH_P_IPV6_  0x86dd
#define ETH_P_VLAN_  0x8100
#define IPPROTO_UDP_ 17
#define IPPROTO_TCP_ 6

void emu_eth_parse(const uint8_t *f, uint32_t len, struct emu_eth_pkt *p)
{
    uint8_t *m = p->match;
    uint32_t off = ETH_HLEN_;
    uint16_t type;

    memset(p, 0, sizeof(*p));
    if (len < ETH_HLEN_)
        return;
    /* dmac, smac and ethertype as the match layout holds them (big-endian words). */
    memcpy(m + 0x08, f, 6);     /* dmac_47_16, dmac_15_0 */
    memcpy(m + 0x00, f + 6, 6); /* smac_47_16, smac_15_0 */
    type = (uint16_t)(f[12] << 8 | f[13]);
    if (type == ETH_P_VLAN_ && len >= ETH_HLEN_ + 4) {
        PRM_SET(m, PRM_FTE_L24_CVLAN_TAG, 1);
        PRM_SET(m, PRM_FTE_L24_FIRST_VID, ((f[14] << 8) | f[15]) & 0xfff);
        type = (uint16_t)(f[16] << 8 | f[17]);
        off += 4;
    }
    PRM_SET(m, PRM_FTE_L24_ETHERTYPE, type);
    if (type == ETH_P_IPV4_ && len >= off + 20 && (f[off] >> 4) == 4) {
        uint32_t ihl = (f[off] & 0xfu) * 4u;

        if (ihl < 20 || len < off + ihl)
            return;
        p->ipv4 = true;
        p->l3_off = off;
        p->l3_len = ihl;
        PRM_SET(m, PRM_FTE_L24_IP_VERSION, 4);
        PRM_SET(m, PRM_FTE_L24_IP_PROTOCOL, f[off + 9]);
        memcpy(&p->src_ip, f + off + 12, 4);
        memcpy(&p->dst_ip, f + off + 16, 4);
        memcpy(m + 0x2c, f + off + 12, 4);
        memcpy(m + 0x3c, f + off + 16, 4);
        /* Ports only in the first fragment. */
        if ((((f[off + 6] << 8) | f[off + 7]) & 0x1fff) != 0)
            return;
        off += ihl;
        if (f[p->l3_off + 9] == IPPROTO_UDP_ && len >= off + 8) {
            p->udp = true;
            p->l4_off = off;
            memcpy(m + 0x1c, f + off, 4); /* udp_sport, udp_dport */
        } else if (f[p->l3_off + 9] == IPPROTO_TCP_ && len >= off + 20) {
            p->tcp = true;
            p->l4_off = off;
            memcpy(m + 0x18, f + off, 4); /* tcp_sport, tcp_dport */
        }
        if (p->l4_off != 0) {
            memcpy(&p->sport, f + off, 2);
            memcpy(&p->dport, f + off + 2, 2);
        }
    } else if (type == ETH_P_IPV6_ && len >= off + 40) {
        p->ipv6 = true;
        p->l3_off = off;
        PRM_SET(m, PRM_FTE_L24_IP_VERSION, 6);
        PRM_SET(m, PRM_FTE_L24_IP_PROTOCOL, f[off + 6]);
    }
}

/* The bits of the outer-header match softmlx5 compares. */
static void eth_supported_mask(uint8_t *m)
{
    memset(m, 0, EMU_ETH_MATCH_LEN);
    memset(m + 0x00, 0xff, 14); /* smac, ethertype, dmac */
    PRM_SET(m, PRM_FTE_L24_CVLAN_TAG, 1);
    PRM_SET(m, PRM_FTE_L24_FIRST_VID, 0xfff);
    PRM_SET(m, PRM_FTE_L24_IP_PROTOCOL, 0xff);
    PRM_SET(m, PRM_FTE_L24_IP_VERSION, 0xf);
    memset(m + 0x18, 0xff, 8); /* tcp and udp ports */
    memset(m + 0x2c, 0xff, 4); /* src_ipv4 */
    memset(m + 0x3c, 0xff, 4); /* dst_ipv4 */
}

bool emu_eth_mask_supported(const void *mask, size_t len)
{
    const uint8_t *b = mask;
    uint8_t ok[EMU_ETH_MATCH_LEN];

    eth_supported_mask(ok);
    for (size_t i = 0; i < len; i++)
        if ((b[i] & ~(i < EMU_ETH_MATCH_LEN ? ok[i] : 0)) != 0)
            return false;
    return true;
}

static bool eth_rule_matches(const struct emu_eth_rule *r, const struct emu_eth_pkt *p)
{
    for (unsigned int i = 0; i < EMU_ETH_MATCH_LEN; i++)
        if ((p->match[i] & r->mask[i]) != r->value[i])
            return false;
    return true;
}

struct emu_eth_tir *emu_eth_steer(struct eth_dev *d, const struct emu_eth_pkt *p, bool *drop)
{
    *drop = false;
    for (const struct emu_eth_rule *r = d->rules; r != NULL; r = r->next) {
        if (!eth_rule_matches(r, p))
            continue;
        if (r->tir == NULL)
            *drop = true;
        return r->tir;
    }
    return NULL;
}

uint32_t emu_eth_toeplitz(const uint8_t *key, const uint8_t *in, uint32_t len)
{
    uint32_t hash = 0;
    /* The 32 key bits aligned with the input bit being consumed. */
    uint32_t window =
            (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];

    for (uint32_t i = 0; i < len; i++) {
        uint8_t next = i + 4 < EMU_ETH_KEY_LEN ? key[i + 4] : 0;

        for (int b = 7; b >= 0; b--) {
            if (in[i] & (1u << b))
                hash ^= window;
            window = (window << 1) | ((next >> b) & 1u);
        }
    }
    return hash;
}

struct emu_eth_rq *emu_eth_tir_rq(const struct emu_eth_tir *t, const struct emu_eth_pkt *p,
                                  uint32_t *hash)
{
    uint8_t in[12];
    uint32_t n = 0;
    bool l4;

    *hash = 0;
    if (!t->indirect)
        return t->rq;
    if (t->rqt == NULL || t->rqt->n == 0)
        return NULL;
    l4 = t->l4_udp ? p->udp : p->tcp;
    if (t->hash_fn == PRM_RX_HASH_FN_TOEPLITZ && p->ipv4 && !t->l3_ipv6) {
        if (t->hash_fields & PRM_RX_HASH_SEL_SRC_IP) {
            memcpy(in + n, &p->src_ip, 4);
            n += 4;
        }
        if (t->hash_fields & PRM_RX_HASH_SEL_DST_IP) {
            memcpy(in + n, &p->dst_ip, 4);
            n += 4;
        }
        if (l4 && (t->hash_fields & PRM_RX_HASH_SEL_L4_SPORT)) {
            memcpy(in + n, &p->sport, 2);
            n += 2;
        }
        if (l4 && (t->hash_fields & PRM_RX_HASH_SEL_L4_DPORT)) {
            memcpy(in + n, &p->dport, 2);
            n += 2;
        }
        *hash = emu_eth_toeplitz(t->key, in, n);
    }
    return t->rqt->rqs[*hash % t->rqt->n];
}

struct ibv_flow *emu_eth_flow_create(struct emu_nic *nic, struct ibv_context *ctx,
                                     const void *matcher, uint16_t priority, const void *mask,
                                     size_t mask_len, const void *value, size_t value_len,
                                     uint32_t tirn)
{
    struct eth_dev *d = emu_eth_dev(nic);
    struct emu_eth_rule *r, **at;
    size_t n = mask_len < EMU_ETH_MATCH_LEN ? mask_len : EMU_ETH_MATCH_LEN;
    size_t nv = value_len < EMU_ETH_MATCH_LEN ? value_len : EMU_ETH_MATCH_LEN;

    if (d == NULL || (r = calloc(1, sizeof(*r))) == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    if (!emu_eth_mask_supported(mask, mask_len)) {
        free(r);
        errno = EOPNOTSUPP;
        return NULL;
    }
    memcpy(r->mask, mask, n);
    if (value != NULL)
        memcpy(r->value, value, nv);
    for (unsigned int i = 0; i < EMU_ETH_MATCH_LEN; i++)
        r->value[i] &= r->mask[i];
    r->nic = nic;
    r->matcher = matcher;
    r->priority = priority;
    r->flow.context = ctx;
    pthread_mutex_lock(&d->lock);
    if (d->nrules >= (1u << EMU_ETH_LOG_MAX_RULES)) {
        pthread_mutex_unlock(&d->lock);
        free(r);
        errno = ENOMEM;
        return NULL;
    }
    if (tirn != 0) {
        r->tir = emu_eth_tir_find(d, tirn);
        if (r->tir == NULL) {
            pthread_mutex_unlock(&d->lock);
            free(r);
            errno = EINVAL;
            return NULL;
        }
        r->tir->refs++;
    }
    r->seq = d->rule_seq++;
    r->flow.handle = (uint32_t)r->seq;
    for (at = &d->rules; *at != NULL && (*at)->priority <= priority; at = &(*at)->next)
        ;
    r->next = *at;
    *at = r;
    d->nrules++;
    pthread_mutex_unlock(&d->lock);
    return &r->flow;
}

int emu_eth_flow_destroy(struct ibv_flow *flow)
{
    struct emu_nic *nic;
    struct eth_dev *d;

    if (flow == NULL)
        return ENOENT;
    /* Only rules found in some device's list are ours: the pointer is never trusted. */
    for (int i = 0; (nic = emu_nic_get(i)) != NULL; i++) {
        d = __atomic_load_n(&nic->eth, __ATOMIC_ACQUIRE);
        if (d == NULL)
            continue;
        pthread_mutex_lock(&d->lock);
        for (struct emu_eth_rule **at = &d->rules; *at != NULL; at = &(*at)->next) {
            struct emu_eth_rule *r = *at;

            if (&r->flow != flow)
                continue;
            *at = r->next;
            d->nrules--;
            if (r->tir != NULL)
                r->tir->refs--;
            pthread_mutex_unlock(&d->lock);
            free(r);
            return 0;
        }
        pthread_mutex_unlock(&d->lock);
    }
    return ENOENT;
}

uint32_t emu_eth_flow_count(struct emu_nic *nic, const void *matcher)
{
    struct eth_dev *d = __atomic_load_n(&nic->eth, __ATOMIC_ACQUIRE);
    uint32_t n = 0;

    if (d == NULL)
        return 0;
    pthread_mutex_lock(&d->lock);
    for (const struct emu_eth_rule *r = d->rules; r != NULL; r = r->next)
        n += r->matcher == matcher;
    pthread_mutex_unlock(&d->lock);
    return n;
}
