/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA devices: the devinfo list (one per RDMA device libmlx5 drives), the
 * devinfo properties, and doca_dev_open/close. An opened device is the DOCA
 * Verbs device (src/verbs) on a context and a PD of its own, kept in a
 * registry with its devinfo copy and, once a queue needs it, its transport
 * domain. Opening the same device again counts a reference.
 */
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/sdk.h"
#include "eth_internal.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

/* The list doca_devinfo_create_list hands out: the pointer array is `ptrs`. */
struct eth_devinfo_list {
    uint64_t magic;
    struct ibv_device **ibv_list;
    uint32_t n;
    struct doca_devinfo *infos;
    struct doca_devinfo *ptrs[];
};

#define ETH_DEVINFO_LIST_MAGIC 0x646f63616c697374ull

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct eth_dev *registry;

static void devinfo_init(struct doca_devinfo *info, struct ibv_device *ibdev)
{
    memset(info, 0, sizeof(*info));
    info->ibdev = ibdev;
    snprintf(info->ibdev_name, sizeof(info->ibdev_name), "%s", ibdev->name);
    pthread_mutex_init(&info->lock, NULL);
}

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
    DGN_SDK_ROUTE(doca_devinfo_create_list, (dev_list, nb_devs), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    const struct core_mlx5dv_ops *mlx5;
    struct eth_devinfo_list *l;
    struct ibv_device **list;
    doca_error_t err;
    int n = 0;
    uint32_t k = 0;

    if (dev_list == NULL || nb_devs == NULL) {
        DOCA_LOG_ERR("dev_list (%p) and nb_devs (%p) must not be NULL", (void *)dev_list,
                     (void *)nb_devs);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(&ibv, &mlx5);
    if (err != DOCA_SUCCESS)
        return err;
    list = ibv->get_device_list(&n);
    if (list == NULL || n <= 0) {
        if (list != NULL)
            ibv->free_device_list(list);
        DOCA_LOG_ERR("no RDMA device: the machine has no ConnectX NIC (run under softmlx5-run for "
                     "the software NIC)");
        return DOCA_ERROR_NOT_FOUND;
    }
    l = calloc(1, sizeof(*l) + ((size_t)n + 1) * sizeof(l->ptrs[0]));
    if (l != NULL)
        l->infos = calloc((size_t)n, sizeof(*l->infos));
    if (l == NULL || l->infos == NULL) {
        free(l);
        ibv->free_device_list(list);
        DOCA_LOG_ERR("out of memory for a list of %d devices", n);
        return DOCA_ERROR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        if (!mlx5->is_supported(list[i]))
            continue;
        devinfo_init(&l->infos[k], list[i]);
        l->ptrs[k] = &l->infos[k];
        k++;
    }
    if (k == 0) {
        free(l->infos);
        free(l);
        ibv->free_device_list(list);
        DOCA_LOG_ERR("none of the %d RDMA devices is an mlx5 device (ConnectX or softmlx5)", n);
        return DOCA_ERROR_NOT_FOUND;
    }
    l->magic = ETH_DEVINFO_LIST_MAGIC;
    l->ibv_list = list;
    l->n = k;
    *dev_list = l->ptrs;
    *nb_devs = k;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
    DGN_SDK_ROUTE(doca_devinfo_destroy_list, (dev_list), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    struct eth_devinfo_list *l;

    if (dev_list == NULL) {
        DOCA_LOG_ERR("dev_list is NULL: pass the list doca_devinfo_create_list() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    l = (struct eth_devinfo_list *)(void *)((uint8_t *)dev_list -
                                            offsetof(struct eth_devinfo_list, ptrs));
    if (l->magic != ETH_DEVINFO_LIST_MAGIC) {
        DOCA_LOG_ERR("%p is not a list from doca_devinfo_create_list()", (void *)dev_list);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (verbs_rdma(&ibv, NULL) == DOCA_SUCCESS)
        ibv->free_device_list(l->ibv_list);
    for (uint32_t i = 0; i < l->n; i++)
        pthread_mutex_destroy(&l->infos[i].lock);
    l->magic = 0;
    free(l->infos);
    free(l);
    return DOCA_SUCCESS;
}

doca_error_t eth_devinfo_caps(const struct doca_devinfo *devinfo, const struct eth_caps **caps)
{
    struct doca_devinfo *info = (struct doca_devinfo *)devinfo; /* the cache is internal */
    const struct core_ibv_ops *ibv;
    struct ibv_context *ctx;
    doca_error_t err = verbs_rdma(&ibv, NULL);

    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&info->lock);
    if (!info->probed) {
        ctx = ibv->open_device(info->ibdev);
        if (ctx == NULL) {
            DOCA_LOG_ERR("cannot open %s to read its capabilities: %s", info->ibdev_name,
                         strerror(errno));
            info->probe_err = DOCA_ERROR_DRIVER;
        } else {
            info->probe_err = eth_caps_query(ctx, &info->caps);
            ibv->close_device(ctx);
        }
        info->probed = true;
    }
    err = info->probe_err;
    pthread_mutex_unlock(&info->lock);
    if (err == DOCA_SUCCESS)
        *caps = &info->caps;
    return err;
}

/* The devinfo argument of a property call (logs naming call). */
static doca_error_t devinfo_arg(const struct doca_devinfo *devinfo, const void *out, uint32_t size,
                                uint32_t need, const char *call)
{
    if (devinfo == NULL || out == NULL) {
        DOCA_LOG_ERR("%s: devinfo (%p) and the output (%p) must not be NULL", call,
                     (const void *)devinfo, out);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (size < need) {
        DOCA_LOG_ERR("%s: the output holds %u bytes, at least %u are needed", call, size, need);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* "0000:3a:00.0" from the RDMA device's sysfs `device` link; false when it has none. */
static bool devinfo_pci(const struct doca_devinfo *devinfo, char out[DOCA_DEVINFO_PCI_ADDR_SIZE])
{
    char link[PATH_MAX], real[PATH_MAX];
    const char *base;
    unsigned int dom, bus, devn, fn;
    char tail;

    if (snprintf(link, sizeof(link), "%s/device", devinfo->ibdev->ibdev_path) >=
                (int)sizeof(link) ||
        realpath(link, real) == NULL)
        return false;
    base = strrchr(real, '/');
    base = base != NULL ? base + 1 : real;
    if (sscanf(base, "%x:%x:%x.%x%c", &dom, &bus, &devn, &fn, &tail) != 4 || dom > 0xffff ||
        bus > 0xff || devn > 0x1f || fn > 7)
        return false;
    snprintf(out, DOCA_DEVINFO_PCI_ADDR_SIZE, "%04x:%02x:%02x.%x", dom, bus, devn, fn);
    return true;
}

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
    DGN_SDK_ROUTE(doca_devinfo_get_pci_addr_str, (devinfo, pci_addr_str), DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = devinfo_arg(devinfo, pci_addr_str, DOCA_DEVINFO_PCI_ADDR_SIZE,
                                   DOCA_DEVINFO_PCI_ADDR_SIZE, "doca_devinfo_get_pci_addr_str");

    if (err != DOCA_SUCCESS)
        return err;
    if (!devinfo_pci(devinfo, pci_addr_str)) {
        DOCA_LOG_ERR("%s has no PCI address (%s/device is not a PCI device: softmlx5's devices "
                     "are not); name it by doca_devinfo_get_ibdev_name instead",
                     devinfo->ibdev_name, devinfo->ibdev->ibdev_path);
        return DOCA_ERROR_NOT_FOUND;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
                                            const char *pci_addr_str, uint8_t *is_equal)
{
    DGN_SDK_ROUTE(doca_devinfo_is_equal_pci_addr, (devinfo, pci_addr_str, is_equal),
                  DOCA_ERROR_NOT_SUPPORTED);

    char mine[DOCA_DEVINFO_PCI_ADDR_SIZE];
    char theirs[DOCA_DEVINFO_PCI_ADDR_SIZE];
    size_t len;

    if (devinfo == NULL || pci_addr_str == NULL || is_equal == NULL) {
        DOCA_LOG_ERR("devinfo (%p), pci_addr_str (%p) and is_equal (%p) must not be NULL",
                     (const void *)devinfo, (const void *)pci_addr_str, (void *)is_equal);
        return DOCA_ERROR_INVALID_VALUE;
    }
    len = strlen(pci_addr_str);
    if (len != DOCA_DEVINFO_PCI_ADDR_SIZE - 1 && len != DOCA_DEVINFO_PCI_BDF_SIZE - 1) {
        DOCA_LOG_ERR("\"%s\" is not a PCI address: give \"0000:3a:00.0\" or \"3a:00.0\"",
                     pci_addr_str);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (len == DOCA_DEVINFO_PCI_BDF_SIZE - 1) {
        memcpy(theirs, "0000:", 5);
        memcpy(theirs + 5, pci_addr_str, len + 1);
    } else {
        memcpy(theirs, pci_addr_str, len + 1);
    }
    for (char *c = theirs; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    *is_equal = devinfo_pci(devinfo, mine) && strcmp(mine, theirs) == 0;
    return DOCA_SUCCESS;
}

/* The netdev whose hardware address is mac; false when none has it. */
static bool devinfo_iface_of_mac(const uint8_t mac[6], char name[IF_NAMESIZE])
{
    struct ifaddrs *ifs, *i;
    bool found = false;

    if (getifaddrs(&ifs) != 0)
        return false;
    for (i = ifs; i != NULL && !found; i = i->ifa_next) {
        const struct sockaddr_ll *ll = (const struct sockaddr_ll *)(const void *)i->ifa_addr;

        if (ll == NULL || ll->sll_family != AF_PACKET || ll->sll_halen != 6 ||
            memcmp(ll->sll_addr, mac, 6) != 0)
            continue;
        snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
        found = true;
    }
    freeifaddrs(ifs);
    return found;
}

/* The port's netdev (by MAC); logs why not, naming call. */
static doca_error_t devinfo_iface(const struct doca_devinfo *devinfo, char name[IF_NAMESIZE],
                                  const char *call)
{
    const struct eth_caps *caps;
    doca_error_t err = eth_devinfo_caps(devinfo, &caps);

    if (err != DOCA_SUCCESS)
        return err;
    if (!caps->eth_link || !caps->mac_valid) {
        DOCA_LOG_ERR("%s: %s has no Ethernet port MAC (%s): it has no network interface "
                     "(softmlx5: attach a port with softmlx5-run --eth IFNAME)",
                     call, devinfo->ibdev_name,
                     !caps->eth_link ? "link layer InfiniBand" : "QUERY_NIC_VPORT_CONTEXT refused");
        return DOCA_ERROR_NOT_FOUND;
    }
    if (!devinfo_iface_of_mac(caps->mac, name)) {
        DOCA_LOG_ERR("%s: no interface of this network namespace has %s's MAC "
                     "%02x:%02x:%02x:%02x:%02x:%02x",
                     call, devinfo->ibdev_name, caps->mac[0], caps->mac[1], caps->mac[2],
                     caps->mac[3], caps->mac[4], caps->mac[5]);
        return DOCA_ERROR_NOT_FOUND;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
                                         uint32_t size)
{
    DGN_SDK_ROUTE(doca_devinfo_get_iface_name, (devinfo, iface_name, size),
                  DOCA_ERROR_NOT_SUPPORTED);

    char name[IF_NAMESIZE];
    doca_error_t err = devinfo_arg(devinfo, iface_name, size, 1, "doca_devinfo_get_iface_name");

    if (err == DOCA_SUCCESS)
        err = devinfo_iface(devinfo, name, "doca_devinfo_get_iface_name");
    if (err != DOCA_SUCCESS)
        return err;
    if (strlen(name) >= size) {
        DOCA_LOG_ERR("interface name %s does not fit %u bytes", name, size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    snprintf(iface_name, size, "%s", name);
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
                                        uint32_t size)
{
    DGN_SDK_ROUTE(doca_devinfo_get_ipv4_addr, (devinfo, ipv4_addr, size), DOCA_ERROR_NOT_SUPPORTED);

    char name[IF_NAMESIZE];
    struct ifaddrs *ifs, *i;
    doca_error_t err = devinfo_arg(devinfo, ipv4_addr, size, DOCA_DEVINFO_IPV4_ADDR_SIZE,
                                   "doca_devinfo_get_ipv4_addr");

    if (err == DOCA_SUCCESS)
        err = devinfo_iface(devinfo, name, "doca_devinfo_get_ipv4_addr");
    if (err != DOCA_SUCCESS)
        return err;
    if (getifaddrs(&ifs) != 0) {
        DOCA_LOG_ERR("getifaddrs failed: %s", strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    err = DOCA_ERROR_NOT_FOUND;
    for (i = ifs; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
            strcmp(i->ifa_name, name) != 0)
            continue;
        memcpy(ipv4_addr, &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr, 4);
        err = DOCA_SUCCESS;
        break;
    }
    freeifaddrs(ifs);
    if (err != DOCA_SUCCESS)
        DOCA_LOG_ERR("interface %s of %s has no IPv4 address", name, devinfo->ibdev_name);
    return err;
}

doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
                                       uint32_t size)
{
    DGN_SDK_ROUTE(doca_devinfo_get_mac_addr, (devinfo, mac_addr, size), DOCA_ERROR_NOT_SUPPORTED);

    const struct eth_caps *caps;
    doca_error_t err = devinfo_arg(devinfo, mac_addr, size, DOCA_DEVINFO_MAC_ADDR_SIZE,
                                   "doca_devinfo_get_mac_addr");

    if (err == DOCA_SUCCESS)
        err = eth_devinfo_caps(devinfo, &caps);
    if (err != DOCA_SUCCESS)
        return err;
    if (!caps->eth_link || !caps->mac_valid) {
        DOCA_LOG_ERR("%s: %s", devinfo->ibdev_name,
                     !caps->eth_link ? "the port's link layer is InfiniBand, not Ethernet: no MAC"
                                     : "the device refused QUERY_NIC_VPORT_CONTEXT: MAC unknown");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    memcpy(mac_addr, caps->mac, DOCA_DEVINFO_MAC_ADDR_SIZE);
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
                                         uint32_t size)
{
    DGN_SDK_ROUTE(doca_devinfo_get_ibdev_name, (devinfo, ibdev_name, size),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = devinfo_arg(devinfo, ibdev_name, size,
                                   (uint32_t)strlen(devinfo != NULL ? devinfo->ibdev_name : "") + 1,
                                   "doca_devinfo_get_ibdev_name");

    if (err == DOCA_SUCCESS)
        snprintf(ibdev_name, size, "%s", devinfo->ibdev_name);
    return err;
}

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
    DGN_SDK_ROUTE(doca_dev_open, (devinfo, dev), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    struct eth_dev *e;
    doca_error_t err;

    if (devinfo == NULL || dev == NULL) {
        DOCA_LOG_ERR("devinfo (%p) and dev (%p) must not be NULL: pass an element of "
                     "doca_devinfo_create_list()",
                     (void *)devinfo, (void *)dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(&ibv, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&registry_lock);
    for (e = registry; e != NULL; e = e->next) {
        if (strcmp(e->info.ibdev_name, devinfo->ibdev_name) == 0) {
            e->refs++;
            *dev = e->dev;
            pthread_mutex_unlock(&registry_lock);
            return DOCA_SUCCESS;
        }
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        pthread_mutex_unlock(&registry_lock);
        DOCA_LOG_ERR("out of memory for a device");
        return DOCA_ERROR_NO_MEMORY;
    }
    e->ctx = ibv->open_device(devinfo->ibdev);
    if (e->ctx == NULL) {
        DOCA_LOG_ERR("ibv_open_device(%s) failed: %s", devinfo->ibdev_name, strerror(errno));
        err = DOCA_ERROR_NOT_CONNECTED;
        goto fail;
    }
    e->pd = ibv->alloc_pd(e->ctx);
    if (e->pd == NULL) {
        DOCA_LOG_ERR("ibv_alloc_pd(%s) failed: %s", devinfo->ibdev_name, strerror(errno));
        err = DOCA_ERROR_NO_MEMORY;
        goto fail;
    }
    err = doca_verbs_dev_open(e->pd, &e->dev);
    if (err != DOCA_SUCCESS)
        goto fail;
    devinfo_init(&e->info, e->ctx->device);
    snprintf(e->info.ibdev_name, sizeof(e->info.ibdev_name), "%s", devinfo->ibdev_name);
    if (eth_caps_query(e->ctx, &e->info.caps) == DOCA_SUCCESS)
        e->info.probed = true;
    e->refs = 1;
    e->next = registry;
    registry = e;
    pthread_mutex_unlock(&registry_lock);
    *dev = e->dev;
    return DOCA_SUCCESS;

fail:
    if (e->pd != NULL)
        ibv->dealloc_pd(e->pd);
    if (e->ctx != NULL)
        ibv->close_device(e->ctx);
    free(e);
    pthread_mutex_unlock(&registry_lock);
    return err;
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
    DGN_SDK_ROUTE(doca_dev_close, (dev), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    struct eth_dev **p, *e;
    doca_error_t err;
    int users;

    if (dev == NULL) {
        DOCA_LOG_ERR("dev is NULL: pass the device doca_dev_open() gave");
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(&ibv, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    pthread_mutex_lock(&registry_lock);
    for (p = &registry; *p != NULL && (*p)->dev != dev; p = &(*p)->next)
        ;
    e = *p;
    if (e == NULL) {
        pthread_mutex_unlock(&registry_lock);
        DOCA_LOG_ERR("device %p was not opened by doca_dev_open() (close a doca_verbs_dev_open() "
                     "device with doca_verbs_dev_close())",
                     (void *)dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (e->refs > 1) {
        e->refs--;
        pthread_mutex_unlock(&registry_lock);
        return DOCA_SUCCESS;
    }
    users = atomic_load(&dev->users);
    if (users != 0) {
        pthread_mutex_unlock(&registry_lock);
        DOCA_LOG_ERR("device %s still has %d objects (queues, memory maps, flows); destroy them "
                     "before doca_dev_close",
                     e->info.ibdev_name, users);
        return DOCA_ERROR_IN_USE;
    }
    if (e->td != NULL) {
        err = verbs_devx_destroy(e->td, "transport domain", e->tdn);
        if (err != DOCA_SUCCESS) {
            pthread_mutex_unlock(&registry_lock);
            return err;
        }
    }
    err = doca_verbs_dev_close(dev);
    if (err != DOCA_SUCCESS) {
        e->td = NULL;
        pthread_mutex_unlock(&registry_lock);
        return err;
    }
    *p = e->next;
    pthread_mutex_unlock(&registry_lock);
    ibv->dealloc_pd(e->pd);
    ibv->close_device(e->ctx);
    pthread_mutex_destroy(&e->info.lock);
    free(e);
    return DOCA_SUCCESS;
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
    DGN_SDK_ROUTE(doca_dev_as_devinfo, (dev), NULL);

    struct eth_dev *e;

    pthread_mutex_lock(&registry_lock);
    for (e = registry; e != NULL && e->dev != dev; e = e->next)
        ;
    pthread_mutex_unlock(&registry_lock);
    if (e == NULL) {
        DOCA_LOG_ERR("device %p was not opened by doca_dev_open(): it has no devinfo", (void *)dev);
        return NULL;
    }
    return &e->info;
}

struct eth_dev *eth_dev_of(doca_dev_t *dev, const char *call)
{
    struct eth_dev *e;

    pthread_mutex_lock(&registry_lock);
    for (e = registry; e != NULL && e->dev != dev; e = e->next)
        ;
    pthread_mutex_unlock(&registry_lock);
    if (e == NULL)
        DOCA_LOG_ERR("%s: device %p was not opened by doca_dev_open(): open it from a "
                     "doca_devinfo list",
                     call, (void *)dev);
    return e;
}

doca_error_t eth_dev_td(struct eth_dev *edev, uint32_t *tdn)
{
    uint8_t in[PRM_ALLOC_TRANSPORT_DOMAIN_IN_SIZE] = {0};
    uint8_t out[PRM_ALLOC_TRANSPORT_DOMAIN_OUT_SIZE];
    doca_error_t err = DOCA_SUCCESS;

    pthread_mutex_lock(&registry_lock);
    if (edev->td == NULL) {
        PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_ALLOC_TRANSPORT_DOMAIN);
        err = verbs_devx_create(edev->ctx, in, sizeof(in), out, sizeof(out), &edev->td);
        if (err == DOCA_SUCCESS)
            edev->tdn = (uint32_t)PRM_GET(out, PRM_ALLOC_TRANSPORT_DOMAIN_OUT_TD);
    }
    if (err == DOCA_SUCCESS)
        *tdn = edev->tdn;
    pthread_mutex_unlock(&registry_lock);
    return err;
}
