#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's unmodified ibv_rc_pingpong (ibverbs-utils) on softmlx5: server and
# client on this host, each under softmlx5-run, the client's "usec/iter" kept.
#
#   bench/softmlx5/rc_pingpong_bench.sh [BUILD_DIR [CSV]]
#
# Two results, appended to CSV (default bench/results/softmlx5.csv) by
# softmlx5_report in the format of the other softmlx5 benchmarks:
#   ibv_rc_pingpong_100k_vs_1k_iters           polled, 100,000 iterations vs 1,000:
#                                              <= 1.2 (no decay over a long run; the 1,000
#                                              include the start, so they may be slower)
#   ibv_rc_pingpong_events_vs_polled_1k_iters  -e (ibv_get_cq_event) vs polled, 1,000: <= 3.0
# Three rounds, each: polled 1k, polled 100k, events 1k; the best (lowest) of
# each kept. Every run has its own TCP port (-p, from RC_PINGPONG_PORT, default
# 18740) and a time limit (timeout(1); RC_PINGPONG_SHORT_LIMIT, _LONG_LIMIT in
# seconds, default 10 and 25): a run that hangs fails its result, and the
# later rounds of that result are skipped. Exits non-zero when a target
# is missed or a run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
csv=${2:-bench/results/softmlx5.csv}
launcher=$build/bin/softmlx5-run
report=$build/bench/softmlx5_report
port=${RC_PINGPONG_PORT:-18740}
short=1000
long=100000
rounds=3
short_limit=${RC_PINGPONG_SHORT_LIMIT:-10} # seconds a 1,000-iteration run may take
long_limit=${RC_PINGPONG_LONG_LIMIT:-25}   # seconds a 100,000-iteration run may take
budget=45                                  # no long run starts after this many seconds

for f in "$launcher" "$report"; do
    [ -x "$f" ] || { echo "rc_pingpong_bench: $f is missing (build first)" >&2; exit 2; }
done
command -v ibv_rc_pingpong > /dev/null ||
    { echo "rc_pingpong_bench: ibv_rc_pingpong not found (apt-get install ibverbs-utils)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Whether something listens on TCP port $1 (IPv4 or IPv6).
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v p=":$hex\$" '$2 ~ p && $4 == "0A" { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2> /dev/null
}

# One server + client run on TCP port $port: one_run ITERS LIMIT [ARGS...].
# Prints the client's usec/iter on stdout, or returns 1 with the reason in
# $tmp/why. Runs in a subshell ($(...)): the caller moves $port on.
one_run() {
    local iters=$1 limit=$2 spid crc src usec i what
    shift 2
    what="$iters iterations $([ $# -gt 0 ] && echo "$*" || echo polled)"
    : > "$tmp/why"
    timeout -k 2 "$limit" "$launcher" -- ibv_rc_pingpong -g 0 -p "$port" -n "$iters" "$@" \
        > "$tmp/server" 2>&1 &
    spid=$!
    for ((i = 0; i < 100; i++)); do
        listening "$port" && break
        kill -0 "$spid" 2> /dev/null || break
        sleep 0.05
    done
    if ! listening "$port"; then
        kill "$spid" 2> /dev/null
        wait "$spid" 2> /dev/null
        echo "server did not listen on port $port: $(tail -n 1 "$tmp/server")" > "$tmp/why"
        return 1
    fi
    timeout -k 2 "$limit" "$launcher" -- ibv_rc_pingpong -g 0 -p "$port" -n "$iters" "$@" \
        127.0.0.1 > "$tmp/client" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    usec=$(awk '/usec\/iter/ { print $(NF - 1) }' "$tmp/client")
    if [ "$crc" = 124 ] || [ "$crc" = 137 ] || [ "$src" = 124 ] || [ "$src" = 137 ]; then
        echo "timed out after $limit s ($what)" > "$tmp/why"
        return 1
    fi
    if [ "$crc" != 0 ] || [ "$src" != 0 ] || [ -z "$usec" ]; then
        echo "exit $crc/$src ($what): $(tail -n 1 "$tmp/client")" > "$tmp/why"
        return 1
    fi
    echo "$usec"
}

# The lower of two figures, either possibly empty.
best() {
    if [ -z "$1" ]; then echo "$2"; elif [ -z "$2" ]; then echo "$1"; else
        awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 < b + 0) ? a : b }'
    fi
}

polled_short='' polled_long='' events_short=''
long_fail='' events_fail='' short_fail=''
for ((round = 1; round <= rounds; round++)); do
    if [ -z "$short_fail" ]; then
        port=$((port + 1))
        if u=$(one_run "$short" "$short_limit"); then
            polled_short=$(best "$polled_short" "$u")
        else
            short_fail=$(cat "$tmp/why")
        fi
    fi
    if [ -z "$long_fail" ] && [ -z "$short_fail" ] && [ "$SECONDS" -lt "$budget" ]; then
        port=$((port + 1))
        if v=$(one_run "$long" "$long_limit"); then
            polled_long=$(best "$polled_long" "$v")
        else
            long_fail=$(cat "$tmp/why")
        fi
    fi
    if [ -z "$events_fail" ] && [ -z "$short_fail" ]; then
        port=$((port + 1))
        if w=$(one_run "$short" "$short_limit" -e); then
            events_short=$(best "$events_short" "$w")
        else
            events_fail=$(cat "$tmp/why")
        fi
    fi
    echo "  round $round: polled ${short} ${u:-?}, polled ${long} ${v:-?}, events ${short}" \
        "${w:-?} usec/iter"
    u='' v='' w=''
done

rc=0
result() { # result NAME lower|higher TARGET BEST BASELINE FAILURE
    if [ -n "$6" ] || [ -z "$4" ] || [ -z "$5" ]; then
        "$report" --csv "$csv" --failed "${6:-no run finished}" "$1" us/iter "$2" "$3" "${5:-0}"
    else
        "$report" --csv "$csv" "$1" us/iter "$2" "$3" "$5" "$4"
    fi || rc=1
}
result ibv_rc_pingpong_100k_vs_1k_iters lower 1.2 "$polled_long" "$polled_short" \
    "${short_fail:-$long_fail}"
result ibv_rc_pingpong_events_vs_polled_1k_iters lower 3.0 "$events_short" "$polled_short" \
    "${short_fail:-$events_fail}"
exit $rc
