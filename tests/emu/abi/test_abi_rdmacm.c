/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program loading librdmacm.so.1 at run time gets softmlx5's (the
 * launcher's library path) and starts on softmlx5: loaded with RTLD_NOW
 * (every libibverbs symbol it needs resolves), rdma_create_event_channel
 * returns a channel twice, rdma_destroy_event_channel takes it back, and
 * the library survives dlclose (its devices' threads keep running). Run
 * under softmlx5-run; exit 77 when no librdmacm.so.1 can be loaded.
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
        if (channel == NULL) {
            fprintf(stderr, "rdma_create_event_channel: NULL, %s\n", strerror(errno));
            return 1;
        }
        destroy(channel);
        printf("rdma_create_event_channel: a channel, destroyed\n");
    }
    dlclose(lib);
    return 0;
}
