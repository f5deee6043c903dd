/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device whose port is InfiniBand (softmlx5-run --link ib): no MAC, no
 * interface, and no Ethernet queue type the NIC can expose - each refused
 * with NOT_SUPPORTED (NOT_FOUND for the interface) naming the DOCA axis,
 * at the capability query and at doca_ctx_start alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "eth_test.h"

ET_DEV_GROUP_FIXTURE(d)

static void test_no_ethernet(void **state)
{
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
    char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];

    (void)state;
    expect_refusal(doca_devinfo_get_mac_addr(d.info, mac, sizeof(mac)), DOCA_ERROR_NOT_SUPPORTED,
                   "InfiniBand, not Ethernet");
    expect_refusal(doca_devinfo_get_iface_name(d.info, iface, sizeof(iface)), DOCA_ERROR_NOT_FOUND,
                   "link layer InfiniBand");
    expect_refusal(doca_eth_rxq_cap_is_type_supported(d.info, DOCA_ETH_RXQ_TYPE_CYCLIC,
                                                      DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU),
                   DOCA_ERROR_NOT_SUPPORTED, "DOCA axis");
    expect_refusal(doca_eth_txq_cap_is_type_supported(d.info, DOCA_ETH_TXQ_TYPE_REGULAR,
                                                      DOCA_ETH_TXQ_DATA_PATH_TYPE_GPU),
                   DOCA_ERROR_NOT_SUPPORTED, "DOCA axis");
}

static void test_start_refused(void **state)
{
    struct doca_eth_rxq *rxq = NULL;
    struct doca_eth_txq *txq = NULL;
    struct doca_mmap *m;
    void *mem;

    (void)state;
    m = et_mmap(d.dev, 1 << 20, true, &mem);
    assert_non_null(m);
    assert_int_equal(doca_eth_rxq_create(d.dev, 64, 1500, &rxq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_rxq_set_pkt_buf(rxq, m, 0, 1 << 20), DOCA_SUCCESS);
    assert_int_equal(doca_ctx_set_datapath_on_gpu(doca_eth_rxq_as_doca_ctx(rxq), NULL),
                     DOCA_SUCCESS);
    expect_refusal(doca_ctx_start(doca_eth_rxq_as_doca_ctx(rxq)), DOCA_ERROR_NOT_SUPPORTED,
                   "DOCA axis");
    assert_int_equal(doca_eth_rxq_destroy(rxq), DOCA_SUCCESS);
    assert_int_equal(doca_eth_txq_create(d.dev, 64, &txq), DOCA_SUCCESS);
    assert_int_equal(doca_ctx_set_datapath_on_gpu(doca_eth_txq_as_doca_ctx(txq), NULL),
                     DOCA_SUCCESS);
    expect_refusal(doca_ctx_start(doca_eth_txq_as_doca_ctx(txq)), DOCA_ERROR_NOT_SUPPORTED,
                   "DOCA axis");
    assert_int_equal(doca_eth_txq_destroy(txq), DOCA_SUCCESS);
    et_mmap_free(m, mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_no_ethernet),
            cmocka_unit_test(test_start_refused),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
