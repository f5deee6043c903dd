/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program using the system's librdmacm starts on softmlx5:
 * rdma_create_event_channel (which calls ibv_get_sysfs_path and reads
 * sysfs through softmlx5's libibverbs at initialisation) returns a channel,
 * or fails cleanly with errno set where the machine has no rdma_cm device,
 * and rdma_destroy_event_channel takes it back. librdmacm is loaded with
 * RTLD_NOW, so every libibverbs symbol it needs must resolve. Run under
 * softmlx5-run; exit 77 when librdmacm.so.1 is not installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SKIP 77

typedef void *(*create_channel_fn)(void);
typedef void (*destroy_channel_fn)(void *channel);

int main(void)
{
    void *lib = dlopen("librdmacm.so.1", RTLD_NOW);
    create_channel_fn create;
    destroy_channel_fn destroy;
    void *channel;

    if (lib == NULL) {
        printf("SKIP: librdmacm.so.1 cannot be loaded (%s); install librdmacm1\n", dlerror());
        return SKIP;
    }
    create = (create_channel_fn)dlsym(lib, "rdma_create_event_channel");
    destroy = (destroy_channel_fn)dlsym(lib, "rdma_destroy_event_channel");
    if (create == NULL || destroy == NULL) {
        fprintf(stderr, "librdmacm lacks the event channel calls\n");
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        errno = 0;
        channel = create();
        if (channel != NULL) {
            destroy(channel);
            printf("rdma_create_event_channel: a channel, destroyed\n");
        } else if (errno != 0) {
            printf("rdma_create_event_channel: NULL, %s (no rdma_cm device)\n", strerror(errno));
        } else {
            fprintf(stderr, "rdma_create_event_channel failed without an errno\n");
            return 1;
        }
    }
    dlclose(lib);
    return 0;
}
