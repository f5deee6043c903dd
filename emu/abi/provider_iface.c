/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core's provider interface (IBVERBS_PRIVATE_34): what a provider
 * library such as libefa.so.1 calls into libibverbs. softmlx5 is its own
 * provider, so another provider loaded into the process is never used: its
 * registration at load time is accepted and ignored, so that a program linked
 * with it starts; the calls that would build a context for it fail cleanly.
 * Defined without rdma-core's private prototypes (driver.h is not installed):
 * arguments softmlx5 does not read are not declared.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/unsupported.h"
#include "common/emu_log.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* A flag providers read: whether destroying objects of a disassociated device is allowed. */
EMU_EXPORT bool verbs_allow_disassociate_destroy;

/* A provider's constructor registers its device operations; the first field is its name. */
struct emu_foreign_provider {
    const char *name;
};

EMU_EXPORT void verbs_register_driver_34(const struct emu_foreign_provider *ops);
EMU_EXPORT void verbs_register_driver_34(const struct emu_foreign_provider *ops)
{
    EMU_LOG_DBG("provider %s registered itself; softmlx5 drives the devices, it is not used",
                ops != NULL && ops->name != NULL ? ops->name : "(unnamed)");
}

/* The IBVERBS_1.1 registration of providers built for libibverbs before rdma-core. */
EMU_EXPORT void compat_register_driver_1_1(const char *name);
EMU_EXPORT void compat_register_driver_1_1(const char *name)
{
    EMU_LOG_DBG("provider %s (the IBVERBS_1.1 interface) registered itself; it is not used",
                name != NULL ? name : "(unnamed)");
}
__asm__(".symver compat_register_driver_1_1, ibv_register_driver@IBVERBS_1.1");

/* A provider's log line (ctx, its level, a format): written to softmlx5's log at debug level. */
EMU_EXPORT void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
EMU_EXPORT void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
{
    char line[256];
    va_list ap;

    (void)ctx, (void)level;
    if (fmt == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    EMU_LOG_DBG("provider: %s", line);
}

/*
 * The attribute count of an ioctl command buffer chain. The command is never
 * executed (execute_ioctl fails), so the caller's own count is enough to size
 * the buffer it builds.
 */
EMU_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, void *link);
EMU_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, void *link)
{
    (void)link;
    return num_attrs;
}

#define UNSUPPORTED_PTR(name)  EMU_UNSUPPORTED_CALL(void *, name, NULL)
#define UNSUPPORTED_INT(name)  EMU_UNSUPPORTED_CALL(int, name, EOPNOTSUPP)
#define UNSUPPORTED_NEG(name)  EMU_UNSUPPORTED_CALL(int, name, -1)
#define UNSUPPORTED_VOID(name) EMU_UNSUPPORTED_VOID_CALL(name)

/* Contexts of a foreign provider: never made. */
UNSUPPORTED_PTR(_verbs_init_and_alloc_context)
UNSUPPORTED_PTR(verbs_open_device)
UNSUPPORTED_VOID(verbs_set_ops)
UNSUPPORTED_VOID(verbs_uninit_context)
UNSUPPORTED_INT(verbs_init_cq)
/* A provider's sysfs reads: -1, errno EOPNOTSUPP. */
UNSUPPORTED_NEG(ibv_read_ibdev_sysfs_file)
