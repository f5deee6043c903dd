/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw Ethernet objects of a device, as DevX makes them (PRM "Ethernet
 * offloads"): transport domains, TISes, send queues (SQ), receive queues
 * (RQ), receive queue tables (RQT), TIRs (direct to one RQ, or indirect
 * through an RQT with a Toeplitz hash), Q counters, and the NIC receive
 * steering rules that mlx5dv_create_flow adds (matchers with a priority,
 * rules forwarding to a TIR or dropping). The port (engine/eth_port.c) is
 * the cable: it drives these objects; this file only holds their state.
 *
 * Numbers: SQs and RQs share one table whose indices start at
 * EMU_ETH_WQ_FIRST, so their numbers (endpoint << 16 | index) do not meet
 * the QP numbers a program uses below 32768 QPs, and a UAR doorbell names
 * one object. TIRs, TISes, RQTs and transport domains count from 1, Q
 * counters 1..255 (counter_set_id is 8 bits).
 *
 * Locking: one mutex per device (eth_dev.lock) guards every object and rule;
 * the DevX commands take it, and so does the port while it steers a batch of
 * frames or runs send queues. References (an RQ named by a TIR or an RQT, a
 * TIR named by a rule, a TIS by an SQ, a domain by TIRs and TISes, a CQ by
 * queues) make a destroy answer RESOURCE_BUSY, as ConnectX does.
 */
#ifndef EMU_ETH_H
#define EMU_ETH_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic/table.h"

struct emu_nic;
struct emu_cq;
struct emu_uar;

#define EMU_ETH_WQ_FIRST       0x8000u /* first table index of SQs and RQs */
#define EMU_ETH_WQ_MAX         0x8000u /* SQs and RQs together */
#define EMU_ETH_LOG_MAX_OBJ    15      /* TIRs, TISes, RQTs (advertised log_max_*) */
#define EMU_ETH_LOG_MAX_RQT_SZ 9       /* RQs per RQT: 512 */
#define EMU_ETH_MAX_QCOUNTERS  255
#define EMU_ETH_LOG_MAX_RULES  16   /* steering rules per device */
#define EMU_ETH_KEY_LEN        40   /* Toeplitz key bytes */
#define EMU_ETH_MATCH_LEN      0x40 /* fte_match_set_lyr_2_4: outer headers */

/* Work queue states (PRM: RST 0, RDY 1, ERR 3). */
enum emu_eth_wq_state {
    EMU_ETH_WQ_RST = 0,
    EMU_ETH_WQ_RDY = 1,
    EMU_ETH_WQ_ERR = 3,
};

/* Ring and doorbell record of a work queue: host or GPU memory. */
struct emu_eth_ring {
    uintptr_t ring;
    bool ring_gpu;
    uintptr_t dbrec; /* big-endian words: [0] receive counter, [1] send counter */
    bool dbrec_gpu;
    uint32_t log_size;   /* WQEs (RQ) or 64-byte basic blocks (SQ) */
    uint32_t log_stride; /* bytes per WQE (RQ) or basic block (SQ): 1 << log_stride */
};

/* A work queue's PRM wq context as created: its PD (the port checks keys in it), its ring and
 * doorbell record in their umems (for QUERY_SQ / QUERY_RQ). */
struct emu_eth_wqc {
    uint32_t pdn;
    uint64_t dbr_offset, wq_offset;
    uint32_t dbr_umem_id, wq_umem_id;
};

struct emu_eth_sq {
    struct emu_nic *nic;
    uint32_t sqn;
    uint8_t state; /* enum emu_eth_wq_state (eth lock) */
    struct emu_cq *cq;
    uint32_t cqn;
    uint32_t tisn;
    uint32_t uar_page;
    uint32_t user_index;
    uint8_t min_inline_mode;
    struct emu_eth_ring r;
    struct emu_eth_wqc wqc;
    void *umem_ring, *umem_dbr; /* struct emu_umem held by DevX */
    /* The port's side (eth lock). */
    uint32_t consumer;    /* basic-block counter of the next WQE to execute */
    uint32_t posted;      /* producer from the doorbell (16 bits; atomic) */
    bool kicked;          /* a doorbell came since the last run (atomic) */
    bool stalled;         /* the packet socket was full: runs again when writable */
    bool uar_bound;       /* rung through uar_page (uar.c) */
    uint8_t *ahead;       /* a GPU ring's basic blocks read in one copy */
    uint32_t ahead_start; /* counter of ahead's first basic block */
    uint32_t ahead_count; /* basic blocks in ahead */
    uint64_t tx_packets, tx_bytes, tx_errors;
    struct emu_eth_sq *next; /* the device's SQs (eth lock) */
};

struct emu_eth_rq {
    struct emu_nic *nic;
    uint32_t rqn;
    uint8_t state;
    struct emu_cq *cq;
    uint32_t cqn;
    uint32_t user_index;
    uint8_t counter_set_id; /* 0: none */
    bool vsd;
    struct emu_eth_ring r;
    struct emu_eth_wqc wqc;
    void *umem_ring, *umem_dbr;
    int refs;          /* TIRs and RQTs naming it */
    uint32_t consumer; /* next WQE the port fills (16-bit counter space) */
    uint32_t posted;   /* the doorbell record's receive counter as last read */
    uint8_t *ahead;    /* a GPU ring's posted WQEs read in one copy */
    uint32_t ahead_start, ahead_count;
    uint64_t rx_packets, rx_bytes, rx_no_wqe;
};

struct emu_eth_rqt {
    uint32_t rqtn;
    uint32_t n;
    uint32_t max;
    struct emu_eth_rq **rqs;
    int refs; /* TIRs */
};

struct emu_eth_tir {
    uint32_t tirn;
    uint32_t td;
    bool indirect;
    struct emu_eth_rq *rq;   /* direct */
    struct emu_eth_rqt *rqt; /* indirect */
    uint8_t hash_fn;
    bool l3_ipv6, l4_udp;
    uint32_t hash_fields; /* PRM_RX_HASH_SEL_* */
    uint8_t key[EMU_ETH_KEY_LEN];
    int refs; /* steering rules */
};

struct emu_eth_tis {
    uint32_t tisn;
    uint32_t td;
    int refs; /* SQs */
};

/* One rule of the NIC receive table (mlx5dv_create_flow). */
struct emu_eth_rule {
    struct ibv_flow flow; /* first: the handle ibv_destroy_flow gets */
    struct emu_nic *nic;
    const void *matcher; /* the libmlx5 matcher it was made under */
    uint16_t priority;
    uint64_t seq; /* order of creation within one priority */
    uint8_t mask[EMU_ETH_MATCH_LEN];
    uint8_t value[EMU_ETH_MATCH_LEN]; /* already masked */
    struct emu_eth_tir *tir;          /* NULL: drop */
    struct emu_eth_rule *next;        /* sorted by priority, then seq */
};

/* Port counters (emu_eth_port_counter). */
enum emu_eth_counter {
    EMU_ETH_RX_PACKETS,
    EMU_ETH_RX_BYTES,
    EMU_ETH_RX_NO_RULE,   /* no rule matched */
    EMU_ETH_RX_DROP_RULE, /* a drop rule matched */
    EMU_ETH_RX_NO_WQE,    /* the RQ had no receive WQE (out_of_buffer) */
    EMU_ETH_RX_TOO_LONG,  /* larger than the MTU or the receive buffer */
    EMU_ETH_RX_NOT_READY, /* the RQ was not ready */
    EMU_ETH_RX_BAD_KEY,   /* the receive WQE's key or range was refused */
    EMU_ETH_TX_PACKETS,
    EMU_ETH_TX_BYTES,
    EMU_ETH_TX_ERRORS, /* send WQEs completed in error */
    EMU_ETH_COUNTER_COUNT
};

struct eth_dev {
    pthread_mutex_t lock;
    struct emu_table wqs;  /* struct emu_eth_sq / emu_eth_rq by index (is_sq tells which) */
    bool *wq_is_sq;        /* by index */
    struct emu_table tirs; /* struct emu_eth_tir */
    struct emu_table tiss;
    struct emu_table rqts;
    struct emu_table tds; /* (void *)1 per allocated domain, refs in td_refs */
    int *td_refs;
    uint32_t td_refs_cap;
    uint64_t qcounters[EMU_ETH_MAX_QCOUNTERS + 1]; /* out_of_buffer by id */
    bool qcounter_used[EMU_ETH_MAX_QCOUNTERS + 1];
    struct emu_eth_rule *rules;
    uint32_t nrules;
    uint64_t rule_seq;
    int sqs;                                  /* SQs: the port runs them when doorbells come */
    struct emu_eth_sq *sq_list;               /* every SQ */
    uint64_t counters[EMU_ETH_COUNTER_COUNT]; /* atomic */
    /* The port, once the engine attached it to an interface (SOFTMLX5_ETH). */
    bool attached;
    uint8_t mac[6];
    uint32_t mtu; /* the interface's (IP) MTU */
    int ifindex;
};

/* The device's Ethernet state (made on first use; NULL when out of memory). */
struct eth_dev *emu_eth_dev(struct emu_nic *nic);

/* Objects by number (eth lock held), or NULL. */
struct emu_eth_sq *emu_eth_sq_find(struct eth_dev *d, struct emu_nic *nic, uint32_t sqn);
struct emu_eth_rq *emu_eth_rq_find(struct eth_dev *d, struct emu_nic *nic, uint32_t rqn);
struct emu_eth_tir *emu_eth_tir_find(struct eth_dev *d, uint32_t tirn);
struct emu_eth_tis *emu_eth_tis_find(struct eth_dev *d, uint32_t tisn);
struct emu_eth_rqt *emu_eth_rqt_find(struct eth_dev *d, uint32_t rqtn);
bool emu_eth_td_valid(struct eth_dev *d, uint32_t td);

/* Inserts a new SQ or RQ (eth lock held): its number, or 0 when the table is full. */
uint32_t emu_eth_wq_insert(struct eth_dev *d, struct emu_nic *nic, void *wq, bool is_sq);
void emu_eth_wq_remove(struct eth_dev *d, uint32_t num);

/* A transport domain's references (TIRs, TISes); eth lock held. */
void emu_eth_td_ref(struct eth_dev *d, uint32_t td, int delta);
int emu_eth_td_refs(struct eth_dev *d, uint32_t td);

/* The headers a frame presents to the match (fte_match_set_lyr_2_4 layout), parsed once. */
struct emu_eth_pkt {
    uint8_t match[EMU_ETH_MATCH_LEN];
    bool ipv4, ipv6, udp, tcp;
    uint32_t l3_off, l4_off; /* byte offsets in the frame (0: absent) */
    uint32_t l3_len;         /* the IPv4 header's length */
    uint32_t src_ip, dst_ip; /* network order, as on the wire */
    uint16_t sport, dport;   /* network order */
};
void emu_eth_parse(const uint8_t *frame, uint32_t len, struct emu_eth_pkt *p);

/*
 * Steering (eth lock held): the TIR the first matching rule forwards to;
 * NULL with *drop when a drop rule matched, NULL without when none did.
 * Then the RQ of that TIR for the frame (an indirect TIR's by the hash,
 * also stored in *hash).
 */
struct emu_eth_tir *emu_eth_steer(struct eth_dev *d, const struct emu_eth_pkt *p, bool *drop);
struct emu_eth_rq *emu_eth_tir_rq(const struct emu_eth_tir *t, const struct emu_eth_pkt *p,
                                  uint32_t *hash);

/* The Toeplitz hash of len bytes of input under key (40 bytes covers 32 input bytes). */
uint32_t emu_eth_toeplitz(const uint8_t *key, const uint8_t *in, uint32_t len);

/*
 * Steering rules, made by libmlx5's mlx5dv_create_flow (SOFTMLX5_PRIVATE):
 * mask and value are fte_match_param buffers of len bytes (only the outer
 * headers may be non-zero); tirn 0 drops. Returns the rule's ibv_flow or
 * NULL with errno (EINVAL: unknown TIR; EOPNOTSUPP: a field not matched;
 * ENOMEM). emu_eth_flow_destroy answers ENOENT for a flow it did not make.
 */
struct ibv_flow *emu_eth_flow_create(struct emu_nic *nic, struct ibv_context *ctx,
                                     const void *matcher, uint16_t priority, const void *mask,
                                     size_t mask_len, const void *value, size_t value_len,
                                     uint32_t tirn);
int emu_eth_flow_destroy(struct ibv_flow *flow);
/* Rules made under a matcher (a matcher with rules cannot be destroyed). */
uint32_t emu_eth_flow_count(struct emu_nic *nic, const void *matcher);
/* Whether a mask sets only fields softmlx5 matches (outer dmac, smac, ethertype, ...). */
bool emu_eth_mask_supported(const void *mask, size_t len);

/* For tests (SOFTMLX5_PRIVATE): a port counter of the device (enum emu_eth_counter). */
uint64_t emu_eth_port_counter(struct ibv_device *device, int which);

#endif /* EMU_ETH_H */
