#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_softmlx5_run_names.sh SOFTMLX5_RUN: the launcher refuses device names
# that cannot all be given (more names than devices, a name twice, an empty
# one) with one line saying what is wrong and what to do, exit code 2, and
# without running the command; good names reach the program.
set -uo pipefail
run=$1
failed=0

# expect_refusal PATTERN ARGS...: exit 2, exactly one line on stderr matching PATTERN.
expect_refusal() {
    local pattern=$1 err rc lines
    shift
    err=$("$run" "$@" -- sh -c 'echo ran' 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$err" | grep -Eq "$pattern"; then
        echo "FAIL: softmlx5-run $* -> exit $rc, stderr: $err (expected exit 2, one line /$pattern/)"
        failed=1
    else
        echo "ok: softmlx5-run $*: $err"
    fi
}

expect_refusal "^softmlx5-run: --names 'a,b' names 2 devices but there is 1: give at most 1 name" -N a,b
expect_refusal "^softmlx5-run: --names 'a,b,c' names 3 devices but there are 2" -n 2 -N a,b,c
# -n after -N counts too.
expect_refusal "names 3 devices but there are 2" -N a,b,c -n 2
expect_refusal "^softmlx5-run: --names 'x,x' gives devices 0 and 1 the same name 'x': give each device its own name" -n 2 -N x,x
expect_refusal "the same name 'mlx5_1' \(the second is its default name\)" -n 2 -N mlx5_1
expect_refusal "empty name \(entry 2\): remove the extra comma" -n 3 -N a,,b
# An inherited SOFTMLX5_NAMES is checked the same way, and named as such.
SOFTMLX5_NAMES=d,d expect_refusal "^softmlx5-run: SOFTMLX5_NAMES 'd,d' gives devices 0 and 1 the same name" -n 2

# Good names run the command with them.
out=$("$run" -n 2 -N left,right -- sh -c 'echo "$SOFTMLX5_DEVICES $SOFTMLX5_NAMES"' 2>&1)
if [ "$out" != "2 left,right" ]; then
    echo "FAIL: softmlx5-run -n 2 -N left,right -> '$out'"
    failed=1
else
    echo "ok: good names reach the program"
fi
exit $failed
