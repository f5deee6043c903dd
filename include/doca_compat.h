/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symbol visibility for the public API. The library is built with hidden
 * visibility; only functions marked here are exported.
 */
#ifndef DOCA_COMPAT_H
#define DOCA_COMPAT_H

#if defined(__GNUC__) || defined(__clang__)
#define DOCA_STABLE       __attribute__((visibility("default")))
#define DOCA_EXPERIMENTAL __attribute__((visibility("default")))
#else
#define DOCA_STABLE
#define DOCA_EXPERIMENTAL
#endif

#endif /* DOCA_COMPAT_H */
