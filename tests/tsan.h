/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ThreadSanitizer annotations for tests that run two processes on softmlx5
 * (DGN_SANITIZE=thread; nothing in other builds).
 *
 * The responder process of such a test reads memory its device wrote for
 * the peer's requests (writes, atomics) once the peer says, over the test's
 * own socket, that its requests completed; and the device reads memory the
 * test wrote before it told the peer to start (read sources, atomic targets).
 * That order runs through the other process (the peer's completion, then its
 * message), where TSan cannot follow it, so it reports the device's accesses
 * and the test's as races. DGN_TSAN_PEER_MEMORY marks such a buffer as
 * ordered outside the process.
 */
#ifndef DGN_TESTS_TSAN_H
#define DGN_TESTS_TSAN_H

#include <stddef.h>

#if defined(__SANITIZE_THREAD__)
#define DGN_TESTS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DGN_TESTS_TSAN 1
#endif
#endif

#ifdef DGN_TESTS_TSAN
/* Exported by the TSan runtime (its dynamic annotations). */
void AnnotateBenignRaceSized(const char *file, int line, const volatile void *mem, size_t size,
                             const char *description);
#define DGN_TSAN_PEER_MEMORY(mem, size)                        \
    AnnotateBenignRaceSized(__FILE__, __LINE__, (mem), (size), \
                            "accessed by the device for a peer process, ordered through it")
#else
#define DGN_TSAN_PEER_MEMORY(mem, size) ((void)(mem), (void)(size))
#endif

#endif /* DGN_TESTS_TSAN_H */
