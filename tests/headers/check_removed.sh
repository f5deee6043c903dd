#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_removed.sh INCLUDE_DIR CC CXX: a call written for the DOCA 2.0
# generation stops the build with the replacement named, and a 3.0 call that
# leans on a C++ default argument (doca_verbs_qp_query with three) builds.
set -euo pipefail
inc=$1 cc=$2 cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-I"$inc" -I"$inc/device" -c -o /dev/null)

cat >"$work/old.c" <<'SRC'
#include "doca_verbs.h"
void f(doca_verbs_qp_init_attr_t *attr) { (void)doca_verbs_qp_init_attr_get_pd(attr); }
SRC
if "$cc" -std=c11 "${flags[@]}" "$work/old.c" 2>"$work/err"; then
    echo "FAIL: a call of the removed doca_verbs_qp_init_attr_get_pd() compiled"
    exit 1
fi
grep -q "removed in DOCA 3.0: keep the doca_dev_t given to doca_verbs_qp_init_attr_set_pd" \
    "$work/err" || { echo "FAIL: the error does not name the replacement:"; cat "$work/err"; exit 1; }

cat >"$work/old_atomic.cpp" <<'SRC'
#include "doca_verbs.h"
void f(doca_verbs_qp_attr_t *attr) { doca_verbs_qp_attr_set_allow_remote_atomic(attr, 1); }
SRC
if "$cxx" -std=c++17 "${flags[@]}" "$work/old_atomic.cpp" 2>"$work/err"; then
    echo "FAIL: a call of the removed doca_verbs_qp_attr_set_allow_remote_atomic() compiled"
    exit 1
fi
grep -q "use doca_verbs_qp_attr_set_atomic_mode" "$work/err" ||
    { echo "FAIL: the error does not name the replacement:"; cat "$work/err"; exit 1; }

cat >"$work/query.cpp" <<'SRC'
#include "doca_verbs.h"
doca_error_t f(doca_verbs_qp_t *qp, doca_verbs_qp_attr_t *a, doca_verbs_qp_init_attr_t *i)
{
    return doca_verbs_qp_query(qp, a, i);
}
SRC
"$cxx" -std=c++17 -Wall -Werror "${flags[@]}" "$work/query.cpp"
echo "removed calls stop the build with their replacement; qp_query's default builds"
