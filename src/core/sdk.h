/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SDK mode: with DOCA_SDK_LIB_PATH set (non-empty), the public host calls go
 * to NVIDIA's DOCA SDK in that folder (libdoca_common.so, then
 * libdoca_gpunetio.so and libdoca_verbs.so) instead of this library's own
 * ("open") implementation.
 *
 * The decision is made once per process, at the first public call, and
 * holds for every call after it: all routed calls go to the SDK, or none
 * does. Setting or changing the variable afterwards changes nothing.
 * Objects the SDK returns are the SDK's own and are only ever passed back
 * to it.
 *
 * Every public function starts with DGN_SDK_ROUTE (or DGN_SDK_ROUTE_VOID),
 * before it checks its arguments: in SDK mode the SDK checks its own.
 */
#ifndef CORE_SDK_H
#define CORE_SDK_H

#include <stdatomic.h>
#include <stdbool.h>

#define CORE_SDK_ENV "DOCA_SDK_LIB_PATH"

/* One per call site: the function's name and, once looked up, its address in the SDK. */
struct core_sdk_site {
    const char *name;
    void *_Atomic fn; /* NULL until looked up; the site itself when the SDK lacks it */
    atomic_int kind;  /* -2 until looked up; -1 not a creating function; else its row */
};

#define CORE_SDK_SITE(name_text) \
    {                            \
        (name_text), NULL, -2    \
    }

/* True when the public calls go to the SDK (decides on the first call). */
bool core_sdk_active(void);

/*
 * The routing decision for one call of the site's function: false, the call
 * runs here; true, it goes to the SDK, whose function is in *fn (NULL, with
 * one ERR line, when the SDK has none). A creating function (one of the
 * table in sdk.c) also logs which implementation serves it, whenever
 * DOCA_SDK_LIB_PATH is set.
 */
bool core_sdk_route(struct core_sdk_site *site, void **fn);

/*
 * First line of every public function: in SDK mode, returns the SDK's
 * `name` called with `args` (a parenthesized list), or `fallback` when the
 * SDK has no such function.
 */
#define DGN_SDK_ROUTE(name, args, fallback)                                                 \
    do {                                                                                    \
        static struct core_sdk_site dgn_sdk_site_ = CORE_SDK_SITE(#name);                   \
        void *dgn_sdk_fn_;                                                                  \
        if (core_sdk_route(&dgn_sdk_site_, &dgn_sdk_fn_))                                   \
            return dgn_sdk_fn_ != NULL ? ((__typeof__(&name))dgn_sdk_fn_)args : (fallback); \
    } while (0)

/* The same for a function returning void. */
#define DGN_SDK_ROUTE_VOID(name, args)                                    \
    do {                                                                  \
        static struct core_sdk_site dgn_sdk_site_ = CORE_SDK_SITE(#name); \
        void *dgn_sdk_fn_;                                                \
        if (core_sdk_route(&dgn_sdk_site_, &dgn_sdk_fn_)) {               \
            if (dgn_sdk_fn_ != NULL)                                      \
                ((__typeof__(&name))dgn_sdk_fn_) args;                    \
            return;                                                       \
        }                                                                 \
    } while (0)

#endif /* CORE_SDK_H */
