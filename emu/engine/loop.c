/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's event loop: one thread per device, started with the first
 * context, that sleeps in epoll on the wire's sockets and a wake fd, and
 * handles what arrives (frames to the responder and completer, writable
 * sockets to stalled send queues), polls UAR doorbells while any QP is rung
 * through one (backing off to 1 ms when idle), runs the retransmit timers
 * while requests are outstanding and re-checks WAIT-stalled send queues
 * when a CQE was written. A thread polling an empty CQ may do the same work
 * inline (emu_engine_poll) when the loop is not doing it; the loop never
 * leaves work to it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "common/emu_thread.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/config.h"
#include "nic/cq.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/uar.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

#define LOOP_IDLE_MAX_NS   1000000ull /* UAR polling backs off to 1 ms */
#define LOOP_BUSY_NS       1000ull    /* and polls again after 1 us while doorbells come */
/*
 * and for this long after the last one: a GPU kernel's next doorbell often
 * waits on the answer to its last (a ping-pong), and a backed-off poll would
 * add its sleep to every round trip.
 */
#define LOOP_HOT_NS        2000000ull
#define LOOP_TIMER_SCAN_NS 2000000ull  /* retransmit and RNR timers are checked every 2 ms */
#define LOOP_HEARTBEAT_NS  10000000ull /* the longest sleep while any QP is connected */
#define LOOP_ACK_HOLD_NS   200000ull   /* a held-back ACK (no EMU_WIRE_F_ACK_REQ) leaves by then */
#define LOOP_EVENTS        32

extern const struct emu_wire_ops engine_wire_ops;

void engine_kick(struct emu_engine *e)
{
    uint64_t one = 1;

    if (e != NULL && write(e->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        EMU_LOG_ERR("device %s: cannot wake the device's loop: %m", e->nic->ibdev.name);
}

void engine_inflight(struct emu_engine *e, int delta)
{
    /*
     * No wake-up: while any QP is connected the loop never sleeps longer
     * than LOOP_HEARTBEAT_NS, so it finds the request's timer in time, and
     * a request is usually answered (waking it) long before.
     */
    __atomic_add_fetch(&e->inflight, delta, __ATOMIC_RELAXED);
}

void engine_peered(struct emu_engine *e, int delta)
{
    /*
     * The first connected QP wakes the loop: it may be asleep with no time
     * limit, and its requests' timers are found only by a loop that wakes
     * (a first request the peer drops, its QP not yet ready, would wait for
     * its retry for ever).
     */
    if (__atomic_fetch_add(&e->peered, delta, __ATOMIC_RELAXED) == 0 && delta > 0)
        engine_kick(e);
}

void engine_each_qp(struct emu_nic *nic, bool (*check)(struct emu_qp *qp, void *arg), void *arg)
{
    for (uint32_t i = 0;; i++) {
        struct emu_qp *qp;
        bool run;

        pthread_mutex_lock(&nic->lock);
        if (i >= nic->qps.capacity) {
            pthread_mutex_unlock(&nic->lock);
            return;
        }
        qp = emu_table_get(&nic->qps, i);
        pthread_mutex_unlock(&nic->lock);
        if (qp == NULL)
            continue;
        /* QPs are freed only after the receive lock (held by the caller) was let go. */
        pthread_mutex_lock(&qp->lock);
        run = check(qp, arg);
        pthread_mutex_unlock(&qp->lock);
        if (run)
            engine_sq_run(qp);
    }
}

static bool loop_tx_check(struct emu_qp *qp, void *arg)
{
    if (!qp->tx_stalled || (arg != NULL && qp->peer != arg))
        return false;
    qp->tx_stalled = false;
    __atomic_sub_fetch(&qp->nic->engine->tx_stalled, 1, __ATOMIC_RELAXED);
    return true;
}

static bool loop_err_rq_check(struct emu_qp *qp, void *arg)
{
    (void)arg;
    if (qp->rq_err_watch && qp->state == PRM_QP_STATE_ERR)
        emu_engine_rq_flush(qp);
    return false;
}

void engine_err_rqs(struct emu_nic *nic)
{
    engine_each_qp(nic, loop_err_rq_check, NULL);
}

/*
 * As ConnectX: a QP whose CQ overran cannot report its completions, so it
 * gets QP_FATAL (after the CQ's CQ_ERR) and enters ERR; the owner resets it.
 * So does a QP that took writes whose GPU copies failed (gpu_defer.c).
 */
static bool loop_cq_error_check(struct emu_qp *qp, void *arg)
{
    bool lost = __atomic_exchange_n(&qp->gpu_write_lost, false, __ATOMIC_ACQ_REL);

    (void)arg;
    if (qp->state == PRM_QP_STATE_RST || qp->state == PRM_QP_STATE_ERR)
        return false;
    if (emu_cq_in_error(qp->p.send_cq) || emu_cq_in_error(qp->p.recv_cq))
        engine_qp_fatal(qp, "its CQ is in error (overrun), so its completions cannot be reported",
                        "reset it and give it a new CQ");
    else if (lost)
        engine_qp_fatal(qp, "the GPU to GPU copy of a write it took failed, so the write is lost",
                        "reset it (the requester's write fails with retry exceeded)");
    return false;
}

void engine_cq_errors(struct emu_nic *nic)
{
    engine_each_qp(nic, loop_cq_error_check, NULL);
}

void engine_tx_resume(struct emu_nic *nic, struct emu_conn *conn)
{
    if (__atomic_load_n(&nic->engine->tx_stalled, __ATOMIC_RELAXED) > 0)
        engine_each_qp(nic, loop_tx_check, conn);
}

/* Timers, held-back ACKs and WAITs that are due (receive lock held). */
static void loop_due(struct emu_engine *e)
{
    uint64_t now = 0;

    if (__atomic_load_n(&e->owed, __ATOMIC_RELAXED) != NULL) {
        now = emu_now_ns();
        engine_acks_due(e, now, LOOP_ACK_HOLD_NS);
    }
    if (__atomic_load_n(&e->inflight, __ATOMIC_RELAXED) > 0) {
        now = emu_now_ns();
        if (now - e->last_timer_ns >= LOOP_TIMER_SCAN_NS) {
            e->last_timer_ns = now;
            engine_timers(e->nic, now);
        }
    }
    if (__atomic_load_n(&e->err_rqs, __ATOMIC_RELAXED) > 0) {
        if (now == 0)
            now = emu_now_ns();
        if (now - e->last_flush_ns >= LOOP_IDLE_MAX_NS) {
            e->last_flush_ns = now;
            engine_err_rqs(e->nic);
        }
    }
    if (__atomic_exchange_n(&e->cq_errors, 0, __ATOMIC_ACQ_REL))
        engine_cq_errors(e->nic);
    if (__atomic_load_n(&e->waiting, __ATOMIC_ACQUIRE) > 0) {
        if (now == 0)
            now = emu_now_ns();
        if (__atomic_exchange_n(&e->wait_signal, 0, __ATOMIC_ACQ_REL) ||
            now - e->last_wait_ns >= LOOP_IDLE_MAX_NS) {
            e->last_wait_ns = now;
            engine_waits(e->nic);
        }
    }
}

/* Handles a batch of epoll events (receive lock held); only the loop takes wake-ups. */
static void loop_events(struct emu_engine *e, const struct epoll_event *evs, int n, bool loop)
{
    for (int i = 0; i < n; i++) {
        if (evs[i].data.ptr == &e->wake_fd) {
            uint64_t v;

            if (loop && read(e->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                EMU_LOG_ERR("device %s: wake fd read failed: %m", e->nic->ibdev.name);
            continue;
        }
        if (e->eth != NULL && evs[i].data.ptr == (void *)e->eth) {
            engine_eth_event(e, evs[i].events);
            continue;
        }
        emu_wire_event(e->wire, evs[i].data.ptr, evs[i].events);
    }
}

static bool loop_ring(struct emu_qp *qp, uint32_t producer)
{
    return emu_engine_sq_doorbell(qp, producer);
}

void emu_engine_poll(struct emu_nic *nic)
{
    struct emu_engine *e = nic->engine;
    struct epoll_event evs[LOOP_EVENTS];
    int n;

    if (e == NULL)
        return;
    if (pthread_mutex_trylock(&e->rx_lock) != 0) {
        /*
         * The loop (or another poller) is at work. The loop may have been
         * preempted holding the lock by this very thread's spinning: give
         * it the CPU rather than spin against it for a time slice.
         */
        sched_yield();
        return;
    }
    engine_cqe_batch_begin(e);
    n = epoll_wait(e->epfd, evs, LOOP_EVENTS, 0);
    if (n > 0)
        loop_events(e, evs, n, false);
    loop_due(e);
    engine_cqe_batch_end(e);
    pthread_mutex_unlock(&e->rx_lock);
}

/* How long epoll may sleep: forever when idle, short while timers, UARs or WAITs need it. */
static int64_t loop_timeout_ns(struct emu_engine *e, bool busy, uint64_t *idle_ns,
                               uint64_t *hot_until_ns)
{
    int64_t timeout = -1;

    if (__atomic_load_n(&e->uar_watchers, __ATOMIC_RELAXED) > 0) {
        uint64_t now = emu_now_ns();

        if (busy) {
            *idle_ns = LOOP_BUSY_NS;
            *hot_until_ns = now + LOOP_HOT_NS;
        } else if (now < *hot_until_ns) {
            *idle_ns = LOOP_BUSY_NS;
        } else {
            *idle_ns = *idle_ns == 0 ? LOOP_BUSY_NS : *idle_ns * 2;
            if (*idle_ns > LOOP_IDLE_MAX_NS)
                *idle_ns = LOOP_IDLE_MAX_NS;
        }
        timeout = (int64_t)*idle_ns;
    }
    if (__atomic_load_n(&e->inflight, __ATOMIC_RELAXED) > 0 &&
        (timeout < 0 || timeout > (int64_t)LOOP_TIMER_SCAN_NS))
        timeout = (int64_t)LOOP_TIMER_SCAN_NS;
    if (__atomic_load_n(&e->owed, __ATOMIC_RELAXED) != NULL &&
        (timeout < 0 || timeout > (int64_t)LOOP_ACK_HOLD_NS))
        timeout = (int64_t)LOOP_ACK_HOLD_NS;
    if (__atomic_load_n(&e->peered, __ATOMIC_RELAXED) > 0 &&
        (timeout < 0 || timeout > (int64_t)LOOP_HEARTBEAT_NS))
        timeout = (int64_t)LOOP_HEARTBEAT_NS;
    if ((__atomic_load_n(&e->waiting, __ATOMIC_RELAXED) > 0 ||
         __atomic_load_n(&e->err_rqs, __ATOMIC_RELAXED) > 0) &&
        (timeout < 0 || timeout > (int64_t)LOOP_IDLE_MAX_NS))
        timeout = (int64_t)LOOP_IDLE_MAX_NS;
    return timeout;
}

#if defined(__SANITIZE_THREAD__)
#define LOOP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOOP_TSAN 1
#endif
#endif

/*
 * Sleeps in epoll for at most timeout_ns (< 0: no limit). ThreadSanitizer
 * does not intercept epoll_pwait2 (GCC 12), so it could not see the order
 * that epoll gives between a socket's set-up and its events: under it the
 * millisecond epoll_wait, which it does know, is used instead.
 */
static int loop_wait(struct emu_engine *e, struct epoll_event *evs, int64_t timeout_ns)
{
#ifdef LOOP_TSAN
    return epoll_wait(e->epfd, evs, LOOP_EVENTS,
                      timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000));
#else
    struct timespec ts = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};

    return epoll_pwait2(e->epfd, evs, LOOP_EVENTS, timeout_ns < 0 ? NULL : &ts, NULL);
#endif
}

/* The loop thread's timer slack at 1 ns, so that its short sleeps are as short as asked. */
static void loop_timer_slack(struct emu_engine *e)
{
    if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0)
        EMU_LOG_INFO("device %s: the device loop keeps its timer slack (%s): its 1 us doorbell "
                     "polls may sleep up to 50 us longer",
                     e->nic->ibdev.name, strerror(errno));
}

/*
 * The loop's scheduling. A woken normal thread does not preempt one that
 * spins in user space (the application waiting on its memory) before the
 * next scheduler tick, milliseconds later, on kernels that preempt lazily;
 * a real-time thread preempts it at once. So, as a NIC's engine does not
 * wait for the host's CPUs, the loop runs at the lowest real-time priority
 * (SCHED_RR 1) where the process may (root, CAP_SYS_NICE or RLIMIT_RTPRIO),
 * unless SOFTMLX5_LOOP_RT=0; otherwise at the process's priority. It never
 * spins (it sleeps at least LOOP_BUSY_NS between doorbell polls) and the
 * kernel keeps 5% of each CPU for normal threads in any case. At normal
 * priority its timer slack is 1 ns: with the default 50 us, each 1 us
 * doorbell poll sleeps up to 51 us (real-time threads have none), which
 * made a one-way write 32 us where plain verbs take 4 (no RT in a container).
 */
static void loop_priority(struct emu_engine *e)
{
    const struct emu_config *cfg = emu_config_get();
    struct sched_param sp = {.sched_priority = 1};
    int err;

    if (!cfg->loop_rt) {
        loop_timer_slack(e);
        EMU_LOG_INFO("device %s: the device loop runs at normal priority (SOFTMLX5_LOOP_RT=0)",
                     e->nic->ibdev.name);
        return;
    }
    err = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
    if (err == 0)
        EMU_LOG_INFO("device %s: the device loop runs at real-time priority (SCHED_RR 1)",
                     e->nic->ibdev.name);
    else {
        loop_timer_slack(e);
        EMU_LOG_INFO("device %s: the device loop runs at normal priority (real-time refused: "
                     "%s); waits that spin on memory may see the data up to a scheduler tick "
                     "late",
                     e->nic->ibdev.name, strerror(err));
    }
}

static void *loop_thread(void *arg)
{
    struct emu_engine *e = arg;
    uint64_t idle_ns = 0, hot_until_ns = 0;
    bool busy = false;

    loop_priority(e);
    for (;;) {
        struct epoll_event evs[LOOP_EVENTS];
        int n = loop_wait(e, evs, loop_timeout_ns(e, busy, &idle_ns, &hot_until_ns));

        pthread_mutex_lock(&e->rx_lock);
        engine_cqe_batch_begin(e);
        if (n > 0)
            loop_events(e, evs, n, true);
        busy = __atomic_load_n(&e->uar_watchers, __ATOMIC_RELAXED) > 0 &&
               emu_uar_poll(e->nic, loop_ring);
        /* Raw Ethernet SQs whose doorbells moved (or that became ready). */
        if (__atomic_load_n(&e->eth_kick, __ATOMIC_RELAXED))
            busy |= engine_eth_tx(e);
        if (n > 0)
            idle_ns = 0;
        loop_due(e);
        engine_cqe_batch_end(e);
        /* Connections dropped so far can no longer be named by an event: free them. */
        emu_wire_reap(e->wire);
        pthread_mutex_unlock(&e->rx_lock);
    }
    return NULL;
}

static pthread_once_t loop_fork_once = PTHREAD_ONCE_INIT;

/*
 * The one fork handler. The child of fork() gets a copy of the devices
 * without their loop threads and with the parent's endpoints. As with
 * rdma-core, what the parent opened is not the child's to use; devices the
 * child opens are new ones, with endpoints of their own.
 */
static void loop_after_fork_in_child(void)
{
    for (int i = 0; i < EMU_MAX_DEVICES; i++) {
        struct emu_nic *nic = emu_nic_get(i);

        if (nic == NULL)
            break;
        if (nic->engine != NULL) {
            emu_wire_abandon(nic->engine->wire);
            close(nic->engine->epfd);
            close(nic->engine->wake_fd);
            /* The grant page itself is not inherited (MADV_DONTFORK). */
            if (nic->engine->direct_fd >= 0)
                close(nic->engine->direct_fd);
            engine_eth_forget(nic->engine);
        }
        emu_nic_reset(nic);
    }
}

static void loop_fork_setup(void)
{
    pthread_atfork(NULL, NULL, loop_after_fork_in_child);
}

static int loop_epoll_add(struct emu_engine *e, int fd, void *ptr)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};

    return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : errno;
}

/* Creates the engine of nic: epoll set, wake fd, wire, thread (nic->lock held). errno-style. */
static int loop_start(struct emu_nic *nic)
{
    const struct emu_config *cfg = emu_config_get();
    struct emu_engine *e = calloc(1, sizeof(*e));
    struct emu_wire_config wcfg = {
            .name = nic->ibdev.name,
            .ipv4 = nic->ipv4,
            .ops = &engine_wire_ops,
            .user = nic,
            .single_copy = cfg->single_copy,
            .may_set_ptracer = cfg->single_copy_forced,
            .share_fd = -1,
    };
    int err;

    if (e == NULL)
        return ENOMEM;
    pthread_once(&loop_fork_once, loop_fork_setup);
    e->nic = nic;
    pthread_mutex_init(&e->rx_lock, NULL);
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    err = e->epfd < 0 || e->wake_fd < 0 ? errno : loop_epoll_add(e, e->wake_fd, &e->wake_fd);
    if (err != 0) {
        EMU_LOG_ERR("device %s: cannot create the device loop's epoll set or eventfd: %s",
                    nic->ibdev.name, strerror(err));
        goto fail;
    }
    wcfg.epfd = e->epfd;
    e->direct_fd = -1;
    if (cfg->single_copy)
        wcfg.share_fd = engine_direct_init(e);
    err = emu_wire_start(&wcfg, &e->wire, &nic->endpoint_id);
    if (err != 0)
        goto fail;
    /* Device 0's port 1 on a Linux interface (SOFTMLX5_ETH): asked for, it must attach. */
    if (nic->index == 0 && cfg->eth_ifname[0] != '\0' &&
        (err = engine_eth_open(e, cfg->eth_ifname)) != 0) {
        emu_wire_abandon(e->wire);
        nic->endpoint_id = 0;
        goto fail;
    }
    nic->engine = e;
    err = emu_thread_create(&e->thread, NULL, loop_thread, e);
    if (err != 0) {
        EMU_LOG_ERR("device %s: cannot start the device's loop thread: %s", nic->ibdev.name,
                    strerror(err));
        nic->engine = NULL;
        emu_wire_abandon(e->wire);
        nic->endpoint_id = 0;
        goto fail;
    }
    pthread_detach(e->thread);
    return 0;

fail:
    if (e->epfd >= 0)
        close(e->epfd);
    if (e->wake_fd >= 0)
        close(e->wake_fd);
    free(e);
    return err;
}

int emu_engine_open(struct emu_nic *nic)
{
    int err = 0;

    pthread_mutex_lock(&nic->lock);
    /* Started once; the device lives on with its endpoint, as a NIC outlives its contexts. */
    if (nic->engine == NULL)
        err = loop_start(nic);
    pthread_mutex_unlock(&nic->lock);
    return err;
}

/* The engine of one of our devices, or NULL (not ours, or never opened). */
static const struct emu_engine *loop_engine_of(struct ibv_device *device)
{
    if (device == NULL || !emu_nic_owns_device(device))
        return NULL;
    return emu_nic_of(device)->engine;
}

static const struct emu_wire *loop_wire_of(struct ibv_device *device)
{
    const struct emu_engine *e = loop_engine_of(device);

    return e != NULL ? e->wire : NULL;
}

/* Exported for tests: bytes the device copied GPU to GPU from peers' GPU references. */
uint64_t emu_gpu_ref_bytes(struct ibv_device *device)
{
    const struct emu_engine *e = loop_engine_of(device);

    return e != NULL ? __atomic_load_n(&e->gpu_ref_bytes, __ATOMIC_RELAXED) : 0;
}

/* Exported for tests (SOFTMLX5_PRIVATE): malformed frames received by the device. */
uint64_t emu_wire_rejected_frames(struct ibv_device *device)
{
    const struct emu_wire *wire = loop_wire_of(device);

    return wire != NULL ? emu_wire_rejected(wire) : 0;
}

/* Exported for tests: bytes the device read from peers' memory by single copy. */
uint64_t emu_wire_pulled_bytes(struct ibv_device *device)
{
    const struct emu_wire *wire = loop_wire_of(device);

    return wire != NULL ? emu_wire_pulled(wire) : 0;
}

/* Exported for tests: bytes the device wrote into peers' memory (direct writes). */
uint64_t emu_wire_pushed_bytes(struct ibv_device *device)
{
    const struct emu_wire *wire = loop_wire_of(device);

    return wire != NULL ? emu_wire_pushed(wire) : 0;
}

/* Exported for tests: requests the device dropped without an answer, for reason `why`. */
uint64_t emu_rx_dropped(struct ibv_device *device, int why)
{
    struct emu_nic *nic;

    if (device == NULL || !emu_nic_owns_device(device) || why < 0 || why >= EMU_DROP_COUNT)
        return 0;
    nic = emu_nic_of(device);
    return nic->engine != NULL ? __atomic_load_n(&nic->engine->dropped[why], __ATOMIC_RELAXED) : 0;
}

/* Exported for tests: the device's next `frames` data requests are lost on the wire. */
int emu_wire_lose_frames(struct ibv_device *device, uint32_t frames)
{
    struct emu_nic *nic;

    if (device == NULL || !emu_nic_owns_device(device))
        return EINVAL;
    nic = emu_nic_of(device);
    if (nic->engine == NULL)
        return EINVAL;
    emu_wire_lose(nic->engine->wire, frames);
    return 0;
}
