/* SPDX-License-Identifier: BSD-3-Clause */
#include "watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rc_pair.h"

#define MAX_CHILDREN 8

/* One cache line per process: slot 0 the parent, slot 1 its children. */
struct tick_slot {
    volatile uint64_t ticks;
    char pad[56];
};

static struct tick_slot *slots;
static int my_slot;
static pid_t children[MAX_CHILDREN];
static char phase_buf[2][96];
static const char *volatile current_phase = "start-up";
static const char *wd_prog;
static const char *wd_csv;
static struct bench_metric *wd_metrics;
static int wd_nmetrics;
static double wd_stall_s, wd_total_s;

void bench_tick(void)
{
    if (slots != NULL)
        slots[my_slot].ticks++;
}

void bench_watchdog_phase(const char *fmt, ...)
{
    static int which;
    va_list ap;

    /* Two buffers: the watchdog may be reading the current one. */
    which ^= 1;
    va_start(ap, fmt);
    vsnprintf(phase_buf[which], sizeof(phase_buf[which]), fmt, ap);
    va_end(ap);
    __atomic_store_n(&current_phase, phase_buf[which], __ATOMIC_RELEASE);
}

static void watchdog_fire(const char *why)
{
    char reason[160];

    snprintf(reason, sizeof(reason), "%s during %s", why, current_phase);
    fprintf(stderr, "%s: FAILED: %s (progress ticks: this process %llu, peer %llu); giving up\n",
            wd_prog, reason, (unsigned long long)slots[0].ticks,
            (unsigned long long)slots[1].ticks);
    for (int i = 0; i < MAX_CHILDREN; i++) {
        pid_t pid = __atomic_load_n(&children[i], __ATOMIC_ACQUIRE);

        if (pid > 0)
            kill(pid, SIGKILL);
    }
    for (int i = 0; i < wd_nmetrics; i++) {
        struct bench_metric *m = &wd_metrics[i];

        if (!m->reported) {
            m->reported = 1;
            bench_report_failed(wd_csv, m->name, m->unit, m->baseline, m->target, m->sense, reason);
        }
    }
    fflush(stdout);
    _exit(BENCH_EXIT_STALLED);
}

static void *watchdog_main(void *arg)
{
    const struct timespec step = {0, 50 * 1000 * 1000};
    double start = bench_now_sec(), moved = start;
    uint64_t last = 0;
    char why[64];

    (void)arg;
    for (;;) {
        uint64_t sum;
        double now;

        nanosleep(&step, NULL);
        sum = slots[0].ticks + slots[1].ticks;
        now = bench_now_sec();
        if (sum != last) {
            last = sum;
            moved = now;
        }
        if (now - moved >= wd_stall_s) {
            snprintf(why, sizeof(why), "no progress for %.0f s", wd_stall_s);
            watchdog_fire(why);
        }
        if (now - start >= wd_total_s) {
            snprintf(why, sizeof(why), "run time over the %.0f s limit", wd_total_s);
            watchdog_fire(why);
        }
    }
    return NULL;
}

int bench_watchdog_start(const char *prog, double stall_s, double total_s, const char *csv,
                         struct bench_metric *metrics, int n)
{
    pthread_t thread;

    slots = mmap(NULL, 2 * sizeof(*slots), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                 0);
    if (slots == MAP_FAILED) {
        slots = NULL;
        perror("mmap");
        return -1;
    }
    wd_prog = prog;
    wd_csv = csv;
    wd_metrics = metrics;
    wd_nmetrics = n;
    wd_stall_s = stall_s;
    wd_total_s = total_s;
    if (pthread_create(&thread, NULL, watchdog_main, NULL) != 0) {
        fprintf(stderr, "%s: cannot start the watchdog thread\n", prog);
        return -1;
    }
    pthread_detach(thread);
    return 0;
}

pid_t bench_fork(void)
{
    pid_t parent = getpid();
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        my_slot = 1;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        for (int i = 0; i < MAX_CHILDREN; i++)
            children[i] = 0;
        return 0;
    }
    if (pid > 0) {
        for (int i = 0; i < MAX_CHILDREN; i++) {
            if (children[i] == 0) {
                __atomic_store_n(&children[i], pid, __ATOMIC_RELEASE);
                break;
            }
        }
    }
    return pid;
}

int bench_wait(pid_t pid)
{
    int status = 0;

    if (pid <= 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            __atomic_store_n(&children[i], 0, __ATOMIC_RELEASE);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

pid_t bench_spawn(int (*peer)(int fd, void *arg), void *arg, int *fd)
{
    int fds[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds)) {
        perror("socketpair");
        return -1;
    }
    pid = bench_fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(peer(fds[1], arg) ? 1 : 0);
    }
    close(fds[1]);
    if (pid < 0) {
        perror("fork");
        close(fds[0]);
        return -1;
    }
    *fd = fds[0];
    return pid;
}

int bench_finish(pid_t pid, int fd, int ok)
{
    close(fd);
    if (!ok)
        kill(pid, SIGKILL);
    return bench_wait(pid) == 0 && ok ? 0 : -1;
}
