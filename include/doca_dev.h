/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA devices (DOCA core, doca_dev.h): the list of local devices and their
 * properties, and opening one. A doca_dev opened here is the same object
 * DOCA Verbs uses (doca_verbs.h's doca_dev_t), opened on a context and a
 * PD of its own; doca_dev_close() releases both.
 *
 * Properties: the interface is the netdev whose MAC equals the device
 * port's permanent address (QUERY_NIC_VPORT_CONTEXT) among the process's
 * interfaces; the IPv4 address is that interface's; the PCI address comes
 * from the RDMA device's sysfs `device` link (softmlx5 devices have none:
 * NOT_FOUND).
 */
#ifndef DOCA_DEV_H
#define DOCA_DEV_H

#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_dev;

#define DOCA_DEVINFO_IPV4_ADDR_SIZE  4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE  16
#define DOCA_DEVINFO_MAC_ADDR_SIZE   6
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
#define DOCA_DEVINFO_PCI_ADDR_SIZE   13 /* "XXXX:XX:XX.X" and the terminator */
#define DOCA_DEVINFO_PCI_BDF_SIZE    8  /* "XX:XX.X" and the terminator */

/*
 * The local devices (every RDMA device libmlx5 drives). NOT_FOUND when
 * there is none; the list is freed by doca_devinfo_destroy_list(), which
 * invalidates its elements (an open doca_dev keeps its own copy).
 */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list,
                                                  uint32_t *nb_devs);
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/* "0000:3a:00.0"; pci_addr_str holds DOCA_DEVINFO_PCI_ADDR_SIZE bytes. NOT_FOUND: no PCI device. */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo,
                                                       char *pci_addr_str);
/* Whether pci_addr_str ("0000:3a:00.0" or "3a:00.0", any case) is the device's address. */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
                                                        const char *pci_addr_str,
                                                        uint8_t *is_equal);
/* The interface's IPv4 address (network order bytes). NOT_FOUND: the interface has none. */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo,
                                                    uint8_t *ipv4_addr, uint32_t size);
/* The port's MAC. NOT_SUPPORTED when the port's link layer is not Ethernet. */
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo,
                                                   uint8_t *mac_addr, uint32_t size);
/* The netdev of the port (see above). NOT_FOUND when no interface has the port's MAC. */
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo,
                                                     char *iface_name, uint32_t size);
/* The RDMA device's name ("mlx5_0"). */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo,
                                                     char *ibdev_name, uint32_t size);

/*
 * Opens the device: its own ibv context and PD, and the DOCA Verbs device on
 * them. NOT_SUPPORTED for a device libmlx5 cannot drive with DevX.
 */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
/*
 * Closes a device doca_dev_open() opened (a device from doca_verbs_dev_open()
 * is closed by doca_verbs_dev_close()). IN_USE while queues, memory maps or
 * flows made on it exist.
 */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);
/* The devinfo of a device doca_dev_open() opened (valid until it closes); NULL otherwise. */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H */
