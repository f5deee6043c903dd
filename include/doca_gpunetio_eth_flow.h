/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive steering for doca_eth_rxq, and its drop counter: extensions of this library (the dgn_
 * prefix), not a DOCA API. DOCA steers traffic to its queues with DOCA Flow,
 * which this library does not provide; these calls cover what GPUNetIO
 * receive needs: one UDP destination port, or everything, to one queue or
 * spread over several (RSS: Toeplitz hash of the IPv4 addresses and UDP
 * ports over an indirection table).
 *
 * A rule is made with mlx5dv_create_flow_matcher / mlx5dv_create_flow to a
 * DevX TIR: the queue's own TIR for one queue, an indirect TIR over an RQT
 * for several. The queues must be started; a queue a flow steers to cannot
 * be stopped or destroyed (IN_USE) until the flow is destroyed. A UDP rule
 * wins over an "everything" rule.
 */
#ifndef DOCA_GPUNETIO_ETH_FLOW_H
#define DOCA_GPUNETIO_ETH_FLOW_H

#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_eth_rxq;
struct dgn_eth_flow;

/*
 * IPv4 UDP datagrams to udp_dst_port (host order) arriving at dev's port go
 * to rxqs[0] (n = 1) or are spread over rxqs[0..n-1].
 */
DOCA_EXPERIMENTAL doca_error_t dgn_eth_flow_create_udp(struct doca_dev *dev, uint16_t udp_dst_port,
                                                       struct doca_eth_rxq *const rxqs[],
                                                       uint32_t n, struct dgn_eth_flow **flow);
/* Every frame arriving at dev's port (that no UDP rule takes) goes to the queues. */
DOCA_EXPERIMENTAL doca_error_t dgn_eth_flow_create_all(struct doca_dev *dev,
                                                       struct doca_eth_rxq *const rxqs[],
                                                       uint32_t n, struct dgn_eth_flow **flow);
DOCA_EXPERIMENTAL doca_error_t dgn_eth_flow_destroy(struct dgn_eth_flow *flow);

/*
 * Packets the NIC dropped for rxq because it had no free slot (its RQ's Q
 * counter, out_of_buffer), over every start of the queue so far (also after
 * doca_ctx_stop). NOT_SUPPORTED on a started queue of a device without Q
 * counters. Also an extension of this library.
 */
DOCA_EXPERIMENTAL doca_error_t dgn_eth_rxq_get_dropped(struct doca_eth_rxq *eth_rxq,
                                                       uint64_t *dropped);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_ETH_FLOW_H */
