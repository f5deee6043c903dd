/* SPDX-License-Identifier: BSD-3-Clause */
#include "dl.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

const char *core_dl_file(const struct core_dl_library *lib)
{
    const char *file = lib->env ? getenv(lib->env) : NULL;

    return (file != NULL && file[0] != '\0') ? file : lib->soname;
}

static void dl_clear_slots(const struct core_dl_library *lib)
{
    for (size_t i = 0; i < lib->symbol_count; i++)
        *lib->symbols[i].slot = NULL;
}

/* The path the dynamic linker actually opened, for messages. */
static const char *dl_loaded_path(void *handle, const char *fallback)
{
    struct link_map *map = NULL;

    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name[0] != '\0')
        return map->l_name;
    return fallback;
}

doca_error_t core_dl_load(const struct core_dl_library *lib, void **handle_out, char *reason,
                          size_t reason_size)
{
    const char *file = core_dl_file(lib);
    void *handle;

    dl_clear_slots(lib);
    handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        if (reason != NULL)
            snprintf(reason, reason_size, "%s library %s cannot be loaded (%s): %s", lib->what,
                     file, dlerror(), lib->remedy);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    for (size_t i = 0; i < lib->symbol_count; i++) {
        const struct core_dl_symbol *sym = &lib->symbols[i];

        *sym->slot = dlsym(handle, sym->name);
        if (*sym->slot == NULL && !sym->optional) {
            if (reason != NULL)
                snprintf(reason, reason_size,
                         "%s library %s has no symbol %s: it is older than this library needs; "
                         "%s",
                         lib->what, dl_loaded_path(handle, file), sym->name, lib->remedy);
            dl_clear_slots(lib);
            dlclose(handle);
            return DOCA_ERROR_NOT_SUPPORTED;
        }
    }
    *handle_out = handle;
    return DOCA_SUCCESS;
}
