#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs one example's server and client on this machine under a launcher
# (softmlx5-run) and checks what they print.
#
#   run_pair.sh [options] LAUNCHER EXAMPLE [ARGS...]
#
# ARGS go to both sides; the server gets -P 0 (a free port, which it prints)
# and the client -c 127.0.0.1 -P <that port>.
#   --gpu PROBE          a GPU run: exit 77 ("skipped: no CUDA device") unless PROBE
#                        finds a GPU; its bus id is passed as -g, and both sides run
#                        under the test run's MPS daemon (CUDA_MPS_PIPE_DIRECTORY,
#                        tests/gpu_mps_fixture.sh), else under a private one where it
#                        can start (scripts/mps.sh)
#   --validate           the server must print its validation success line
#   --validate-client L  the client must print the line L (its own validation's success)
#   --sizes "S1 S2 ..."  the client's table must have exactly these rows, sane values
#   --client-args "..."  more arguments for the client only
#   --expect-failure RE  both sides must fail, and RE must appear in both outputs
#   --kill-client RE     SIGKILL the client once RE appears in its output; the server
#                        must then fail without validating
#   --expect-refusal RE  no run: the example, as a server and as a client, must exit
#                        non-zero before listening or connecting, printing RE
#   --signal-server      no client: SIGTERM the server while it waits for one; it must
#                        say so and fail
#   --timeout S          seconds each side may take (default 120)
#   RUN_PAIR_SHOW=1      (environment) print both sides' output on success too
set -u
# shellcheck source=scripts/mps.sh
. "$(dirname "$0")/../../scripts/mps.sh"

gpu_probe=""
validate=0
validate_client=""
sizes=""
client_args=""
expect_failure=""
kill_client=""
signal_server=0
expect_refusal=""
limit=120
while [ $# -gt 0 ]; do
    case "$1" in
    --gpu) gpu_probe=$2; shift 2 ;;
    --validate) validate=1; shift ;;
    --validate-client) validate_client=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --client-args) client_args=$2; shift 2 ;;
    --expect-failure) expect_failure=$2; shift 2 ;;
    --kill-client) kill_client=$2; shift 2 ;;
    --signal-server) signal_server=1; shift ;;
    --expect-refusal) expect_refusal=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "usage: $0 [options] LAUNCHER EXAMPLE [ARGS...]" >&2
    exit 2
fi
launcher=$1
example=$2
shift 2
args=("$@")

tmp=$(mktemp -d)
server_pid=""
client_pid=""
cleanup() {
    [ -n "$client_pid" ] && kill -9 "$client_pid" 2>/dev/null
    [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null
    wait 2>/dev/null
    mps_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    for side in server client; do
        if [ -f "$tmp/$side.log" ]; then
            echo "----- $side output"
            cat "$tmp/$side.log"
        fi
    done
    exit 1
}

if [ -n "$gpu_probe" ]; then
    # The probe's first line is the bus id: no library log lines before it.
    probe_out=$(env -u DOCA_GPUNETIO_LOG "$gpu_probe")
    probe_rc=$?
    if [ $probe_rc -eq 77 ]; then
        echo "$probe_out"
        exit 77
    fi
    [ $probe_rc -eq 0 ] || fail "the GPU probe failed ($probe_rc): $probe_out"
    args+=(-g "$(echo "$probe_out" | head -n 1)")
    if mps_joined; then
        echo "run_pair: server and client under the test run's MPS daemon ($CUDA_MPS_PIPE_DIRECTORY)"
    elif mps_start "$tmp/mps" "$gpu_probe"; then
        echo "run_pair: server and client under a private MPS daemon (GPUNETIO_MPS=0: without)"
    else
        echo "run_pair: no MPS daemon: small puts wait for the other process's GPU time slice"
    fi
fi

if [ -n "$expect_refusal" ]; then
    for side in server client; do
        side_args=()
        [ $side = client ] && side_args=(-c 127.0.0.1 -P 1)
        timeout "$limit" "$launcher" -- "$example" "${args[@]}" "${side_args[@]}" >"$tmp/$side.log" 2>&1
        rc=$?
        cat "$tmp/$side.log"
        [ $rc -ne 0 ] || fail "the $side accepted the command line"
        [ $rc -ne 124 ] || fail "the $side did not exit within $limit s"
        grep -qE -- "$expect_refusal" "$tmp/$side.log" || fail "the $side did not say '$expect_refusal'"
        grep -q "Server listening" "$tmp/$side.log" && fail "the $side started listening"
    done
    echo "PASS: server and client refused the command line with '$expect_refusal'"
    exit 0
fi

# Waits (up to $limit s) for a process to end; its exit status, or 124 if it had to be killed.
wait_for() {
    local pid=$1 waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $waited -ge $((limit * 10)) ]; then
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return 124
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    wait "$pid"
}

"$launcher" -- "$example" "${args[@]}" -P 0 >"$tmp/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 300); do
    port=$(sed -n 's/^Server listening on TCP port \([0-9]*\).*/\1/p' "$tmp/server.log")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || fail "the server did not start listening"

if [ $signal_server -eq 1 ]; then
    kill -TERM "$server_pid"
    wait_for "$server_pid"
    rc=$?
    server_pid=""
    cat "$tmp/server.log"
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        fail "the server exited $rc after SIGTERM"
    fi
    grep -q "Signal 15 received, preparing to exit!" "$tmp/server.log" ||
        fail "the server did not report the signal"
    grep -q "Validation successful" "$tmp/server.log" && fail "the server validated anyway"
    echo "PASS: the server stopped on SIGTERM without validating"
    exit 0
fi

# shellcheck disable=SC2086 # client_args is a list of words
"$launcher" -- "$example" "${args[@]}" $client_args -c 127.0.0.1 -P "$port" >"$tmp/client.log" 2>&1 &
client_pid=$!
if [ -n "$kill_client" ]; then
    for _ in $(seq $((limit * 20))); do
        grep -qE "$kill_client" "$tmp/client.log" && break
        kill -0 "$client_pid" 2>/dev/null || break
        sleep 0.05
    done
    grep -qE "$kill_client" "$tmp/client.log" || fail "the client never printed '$kill_client'"
    kill -9 "$client_pid"
fi
wait_for "$client_pid"
client_rc=$?
client_pid=""
wait_for "$server_pid"
server_rc=$?
server_pid=""

for side in server client; do
    echo "----- $side output"
    cat "$tmp/$side.log"
done
[ $client_rc -ne 124 ] || fail "the client did not finish within $limit s"
[ $server_rc -ne 124 ] || fail "the server did not finish within $limit s"

if [ -n "$kill_client" ]; then
    [ $server_rc -ne 0 ] || fail "the server succeeded although its client was killed"
    grep -q "Validation successful" "$tmp/server.log" && fail "the server validated anyway"
    grep -q "Validation successful" "$tmp/client.log" && fail "the killed client validated"
    grep -q "closed the connection before reporting" "$tmp/server.log" ||
        fail "the server did not say that the client left before reporting"
    echo "PASS: the server failed without validating once the client was gone"
    exit 0
fi

if [ -n "$expect_failure" ]; then
    if [ $server_rc -eq 0 ] || [ $client_rc -eq 0 ]; then
        fail "expected both sides to fail (server $server_rc, client $client_rc)"
    fi
    grep -qE "$expect_failure" "$tmp/server.log" || fail "the server did not say '$expect_failure'"
    grep -qE "$expect_failure" "$tmp/client.log" || fail "the client did not say '$expect_failure'"
    echo "PASS: both sides failed with '$expect_failure'"
    exit 0
fi

[ $server_rc -eq 0 ] || fail "the server exited $server_rc"
[ $client_rc -eq 0 ] || fail "the client exited $client_rc"
if [ $validate -eq 1 ]; then
    grep -qF "Validation successful! Data received correctly from client." "$tmp/server.log" ||
        fail "no validation line from the server"
fi
if [ -n "$validate_client" ]; then
    grep -qF "$validate_client" "$tmp/client.log" || fail "no validation line from the client"
fi
if [ -n "$sizes" ]; then
    # Table rows: the size, the iterations, then numbers; the last column (a time) must be > 0.
    got=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
                   ok = 1
                   for (i = 3; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) ok = 0
                   if (!ok || $NF + 0 <= 0) { print "bad:" $0; next }
                   printf "%s ", $1
               }' "$tmp/client.log")
    [ "$got" = "$sizes " ] || fail "client table rows: got '$got', expected '$sizes '"
fi
# RUN_PAIR_SHOW=1: both sides' output on success too (the tables, for a note or a bug report).
if [ "${RUN_PAIR_SHOW:-0}" = 1 ]; then
    for side in server client; do
        echo "----- $side output"
        cat "$tmp/$side.log"
    done
fi
echo "PASS"
