/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting one of the device's own threads (the engine's loop, the
 * connection manager's progress) with every signal blocked: a NIC never runs
 * the program's signal handlers, so a SIGINT or SIGTERM the program handles
 * reaches one of its own threads, as on rdma-core with a ConnectX.
 */
#ifndef EMU_THREAD_H
#define EMU_THREAD_H

#include <pthread.h>
#include <signal.h>

/* pthread_create's answer; the thread starts with all signals blocked, the caller's mask kept. */
static inline int emu_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                                    void *(*fn)(void *), void *arg)
{
    sigset_t all, saved;
    int err;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    err = pthread_create(thread, attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return err;
}

#endif /* EMU_THREAD_H */
