/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SDK mode (sdk.h): loading NVIDIA's DOCA SDK from DOCA_SDK_LIB_PATH once
 * per process, the log lines that say which implementation serves a
 * creating call, and the look-up of the SDK's functions by name.
 */
#include "sdk.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* What each creating function makes, as the log lines name it: "Use DOCA <kind> SDK". */
static const struct {
    const char *function;
    const char *kind;
} sdk_kinds[] = {
        {"doca_gpu_create", "GPUNetIO"},
        {"doca_verbs_dev_open", "Verbs Dev"},
        {"doca_verbs_umem_create", "Verbs UMEM"},
        {"doca_verbs_uar_create", "Verbs UAR"},
        {"doca_verbs_cq_attr_create", "Verbs CQ Attr"},
        {"doca_verbs_cq_create", "Verbs CQ"},
        {"doca_verbs_comp_channel_create", "Verbs Comp Channel"},
        {"doca_verbs_srq_init_attr_create", "Verbs SRQ Init Attr"},
        {"doca_verbs_srq_create", "Verbs SRQ"},
        {"doca_verbs_ah_attr_create", "Verbs AH Attr"},
        {"doca_verbs_qp_init_attr_create", "Verbs QP Init Attr"},
        {"doca_verbs_qp_attr_create", "Verbs QP Attr"},
        {"doca_verbs_qp_create", "Verbs QP"},
        {"doca_gpu_verbs_create_service", "GPUNetIO Service"},
        {"doca_gpu_net_event_create", "GPUNetIO Net Event"},
        {"doca_gpu_verbs_create_qp_hl", "GPUNetIO QP HL"},
        {"doca_gpu_verbs_create_qp_group_hl", "GPUNetIO QP Group HL"},
        {"doca_gpu_verbs_create_qp_list_hl", "GPUNetIO QP List HL"},
        {"doca_gpu_verbs_create_qp_group_list_hl", "GPUNetIO QP Group List HL"},
        {"doca_gpu_verbs_qp_flat_list_create_hl", "GPUNetIO QP Flat List HL"},
        {"doca_gpu_verbs_signal_map_create", "GPUNetIO Signal Map"},
        {"doca_gpu_semaphore_create", "GPUNetIO Semaphore"},
};

#define SDK_KIND_COUNT   ((int)(sizeof(sdk_kinds) / sizeof(sdk_kinds[0])))
#define SDK_KIND_UNKNOWN (-2)
#define SDK_KIND_NONE    (-1)

/* Written once by sdk_load (under pthread_once), read-only after. */
static struct {
    const char *path; /* DOCA_SDK_LIB_PATH, NULL when unset or empty */
    bool active;      /* all three libraries loaded */
    void *gpunetio;
    void *verbs;
} sdk;

static pthread_once_t sdk_once = PTHREAD_ONCE_INIT;

/* Opens <path>/<lib>; logs which file is missing when it cannot. */
static void *sdk_open(const char *lib, int flags)
{
    size_t len = strlen(sdk.path);
    const char *sep = (len > 0 && sdk.path[len - 1] == '/') ? "" : "/";
    size_t size = len + strlen(sep) + strlen(lib) + 1;
    char *file = malloc(size);
    void *handle;

    if (file == NULL) {
        DOCA_LOG_ERR("out of memory for the path of %s in %s=%s", lib, CORE_SDK_ENV, sdk.path);
        return NULL;
    }
    snprintf(file, size, "%s%s%s", sdk.path, sep, lib);
    handle = dlopen(file, flags);
    if (handle == NULL) {
        const char *why = dlerror();

        DOCA_LOG_ERR("Failed to find %s library %s (%s=%s)", lib, file, CORE_SDK_ENV, sdk.path);
        DOCA_LOG_DBG("dlopen(%s): %s", file, why != NULL ? why : "unknown error");
    }
    free(file);
    return handle;
}

static void sdk_load(void)
{
    const char *path = getenv(CORE_SDK_ENV);
    void *common;

    if (path == NULL || path[0] == '\0')
        return;
    sdk.path = strdup(path);
    if (sdk.path == NULL) {
        DOCA_LOG_ERR("out of memory for %s=%s: the DOCA SDK is not used", CORE_SDK_ENV, path);
        return;
    }
    /* The SDK's libraries find libdoca_common.so's symbols in the global scope. */
    common = sdk_open("libdoca_common.so", RTLD_NOW | RTLD_GLOBAL);
    if (common == NULL)
        return;
    sdk.gpunetio = sdk_open("libdoca_gpunetio.so", RTLD_NOW | RTLD_LOCAL);
    if (sdk.gpunetio != NULL)
        sdk.verbs = sdk_open("libdoca_verbs.so", RTLD_NOW | RTLD_LOCAL);
    if (sdk.verbs == NULL) {
        if (sdk.gpunetio != NULL)
            dlclose(sdk.gpunetio);
        sdk.gpunetio = NULL;
        dlclose(common);
        return;
    }
    sdk.active = true;
}

bool core_sdk_active(void)
{
    pthread_once(&sdk_once, sdk_load);
    return sdk.active;
}

/* The row of sdk_kinds for the site's function, or SDK_KIND_NONE; looked up once per site. */
static int sdk_site_kind(struct core_sdk_site *site)
{
    int kind = atomic_load_explicit(&site->kind, memory_order_relaxed);

    if (kind != SDK_KIND_UNKNOWN)
        return kind;
    kind = SDK_KIND_NONE;
    for (int i = 0; i < SDK_KIND_COUNT; i++) {
        if (strcmp(sdk_kinds[i].function, site->name) == 0) {
            kind = i;
            break;
        }
    }
    atomic_store_explicit(&site->kind, kind, memory_order_relaxed);
    return kind;
}

/* The SDK's function of the site's name (libdoca_verbs first), NULL when it has none. */
static void *sdk_site_fn(struct core_sdk_site *site)
{
    void *fn = atomic_load_explicit(&site->fn, memory_order_acquire);

    if (fn == NULL) {
        fn = dlsym(sdk.verbs, site->name);
        if (fn == NULL)
            fn = dlsym(sdk.gpunetio, site->name);
        if (fn == NULL)
            fn = site;
        atomic_store_explicit(&site->fn, fn, memory_order_release);
    }
    if (fn != site)
        return fn;
    DOCA_LOG_ERR("the DOCA SDK in %s has no %s(); it is not available in SDK mode", sdk.path,
                 site->name);
    return NULL;
}

bool core_sdk_route(struct core_sdk_site *site, void **fn)
{
    int kind;

    *fn = NULL;
    if (!core_sdk_active() && sdk.path == NULL)
        return false;
    kind = sdk_site_kind(site);
    if (sdk.active) {
        if (kind >= 0) {
            DOCA_LOG_WARN("Env var %s set to %s. DOCA SDK is in use", CORE_SDK_ENV, sdk.path);
            DOCA_LOG_INFO("Use DOCA %s SDK", sdk_kinds[kind].kind);
        }
        *fn = sdk_site_fn(site);
        return true;
    }
    if (kind >= 0) {
        DOCA_LOG_WARN("Env var %s set to %s, but DOCA SDK libraries not found. DOCA SDK is not "
                      "in use",
                      CORE_SDK_ENV, sdk.path);
        DOCA_LOG_INFO("Use DOCA %s open", sdk_kinds[kind].kind);
    }
    return false;
}
