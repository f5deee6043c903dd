/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stand-in DOCA SDK the SDK-mode tests load through DOCA_SDK_LIB_PATH:
 * three libraries named as NVIDIA's (libdoca_common.so, libdoca_gpunetio.so,
 * libdoca_verbs.so) implementing a handful of the API:
 *   libdoca_gpunetio.so  doca_gpu_create, doca_gpu_destroy,
 *                        doca_gpu_verbs_get_library_version (FAKE_SDK_VERSION)
 *   libdoca_verbs.so     doca_verbs_cq_attr_create, _set_cq_size, _destroy,
 *                        doca_verbs_qp_init_attr_create, _get_sq_wr
 *                        (FAKE_SDK_SQ_WR), _destroy, doca_verbs_srq_get_wq (void)
 * and deliberately not doca_verbs_qp_attr_create. The objects they return
 * are struct fake_sdk_object with a magic of their kind. Every call counts
 * one in libdoca_common.so, whose fake_sdk_calls() the test finds in the
 * global scope (the other two reach it there as well: it is loaded with
 * RTLD_GLOBAL before them).
 */
#ifndef FAKE_SDK_H
#define FAKE_SDK_H

#include <stdint.h>

#define FAKE_SDK_EXPORT __attribute__((visibility("default")))

#define FAKE_SDK_GPU_MAGIC          0x5d6b6770u /* "SDKgp" */
#define FAKE_SDK_CQ_ATTR_MAGIC      0x5d6b6361u
#define FAKE_SDK_QP_INIT_ATTR_MAGIC 0x5d6b7169u
#define FAKE_SDK_VERSION            0x00abcdefu
#define FAKE_SDK_SQ_WR              4321u
#define FAKE_SDK_SRQ_ENTRIES        77u
#define FAKE_SDK_SRQ_STRIDE         48u

struct fake_sdk_object {
    uint32_t magic;
    uint32_t value; /* what a setter stored */
};

/* libdoca_common.so: counts one call / the calls counted so far. */
typedef unsigned int (*fake_sdk_calls_fn)(void);
FAKE_SDK_EXPORT void fake_sdk_count(void);
FAKE_SDK_EXPORT unsigned int fake_sdk_calls(void);

#endif /* FAKE_SDK_H */
