/* SPDX-License-Identifier: BSD-3-Clause */
/* The stand-in SDK's libdoca_common.so (fake_sdk.h): the call counter. */
#include <stdatomic.h>

#include "fake_sdk.h"

static atomic_uint calls;

void fake_sdk_count(void)
{
    atomic_fetch_add(&calls, 1);
}

unsigned int fake_sdk_calls(void)
{
    return atomic_load(&calls);
}
