/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sysfs calls librdmacm and other programs make at start-up, on
 * softmlx5: ibv_get_sysfs_path names the mount point (it takes no argument),
 * ibv_read_sysfs_file reads a device's attributes and real files and refuses
 * bad arguments, ibv_get_device_index numbers the devices. Run under
 * softmlx5-run with two devices.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

/* Exported by libibverbs, declared only in rdma-core's private headers. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

static int passed, failed;

#define CHECK(cond, ...)                                 \
    do {                                                 \
        if (cond) {                                      \
            passed++;                                    \
        } else {                                         \
            failed++;                                    \
            fprintf(stderr, "FAIL line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                \
            fprintf(stderr, "\n");                       \
        }                                                \
    } while (0)

int main(void)
{
    struct ibv_device **list;
    const char *sysfs = ibv_get_sysfs_path();
    char buf[64], tiny[4];
    int n = 0, len;

    CHECK(sysfs != NULL && strcmp(sysfs, "/sys") == 0, "ibv_get_sysfs_path: %s",
          sysfs != NULL ? sysfs : "(null)");
    list = ibv_get_device_list(&n);
    CHECK(list != NULL && n == 2, "two devices (%d)", n);
    for (int i = 0; list != NULL && i < n; i++) {
        CHECK(ibv_get_device_index(list[i]) == i, "device %d's index: %d", i,
              ibv_get_device_index(list[i]));
        len = ibv_read_sysfs_file(list[i]->ibdev_path, "node_guid", buf, sizeof(buf));
        CHECK(len == 19 && buf[4] == ':' && buf[9] == ':' && buf[14] == ':',
              "device %d's node_guid: %d bytes, '%s'", i, len, len > 0 ? buf : "");
        len = ibv_read_sysfs_file(list[i]->ibdev_path, "fw_ver", buf, sizeof(buf));
        CHECK(len > 0 && strchr(buf, '.') != NULL, "device %d's fw_ver", i);
        errno = 0;
        CHECK(ibv_read_sysfs_file(list[i]->ibdev_path, "no_such_file", buf, sizeof(buf)) < 0 &&
                      errno == ENOENT,
              "a missing attribute: ENOENT");
    }
    CHECK(ibv_get_device_index(NULL) == -1, "no index for NULL");
    /* A real file, its newline removed. */
    len = ibv_read_sysfs_file("/proc/sys/kernel", "ostype", buf, sizeof(buf));
    CHECK(len == 5 && strcmp(buf, "Linux") == 0, "/proc/sys/kernel/ostype: %d '%s'", len,
          len > 0 ? buf : "");
    /* Contents that do not fit are refused, never left unterminated. */
    errno = 0;
    CHECK(ibv_read_sysfs_file("/proc/sys/kernel", "ostype", tiny, sizeof(tiny)) == -1 &&
                  errno == EOVERFLOW,
          "a buffer too small: EOVERFLOW (errno %d)", errno);
    errno = 0;
    CHECK(ibv_read_sysfs_file(NULL, "x", buf, sizeof(buf)) == -1 && errno == EINVAL,
          "a NULL directory: EINVAL");
    CHECK(ibv_read_sysfs_file("/sys", "x", NULL, 8) == -1 && errno == EINVAL,
          "a NULL buffer: EINVAL");
    ibv_free_device_list(list);
    printf("test_abi_sysfs: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
