#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A UDP echo end to end across two network namespaces (tests/eth_ns/ns.sh): the echo runs in
# namespace A on the veth end that has no IP address, a plain UDP socket in namespace B sends to
# it and checks every answer byte for byte; then the echo gets SIGINT and its totals line is
# checked against what was sent.
#
#   echo_test.sh [--gpu PROBE] [--count N] [--sizes LIST] [--window W] [--flows K] [--port P]
#                [--flood FLOOD] [--flood-size BYTES] [--flood-window W] [--limit S]
#                -- ECHO_COMMAND...
#
# In ECHO_COMMAND, @IF@ is namespace A's interface, @PORT@ the UDP port, @GPU@ the GPU's bus
# id (with --gpu: PROBE prints it, or "skipped: ..." and exits 77). For example
#   echo_test.sh -- build/bin/softmlx5-run --eth @IF@ -- \
#       build/bin/gpunetio_eth_udp_echo -u @PORT@ -q 2 --exec cpu
#   echo_test.sh -- build/bench/softmlx5_pkt_echo -i @IF@ -u @PORT@
# The echo must print a line containing "ready" once it answers, and at exit
#   Total: RX <n> packets <bytes> bytes, TX <n> packets <bytes> bytes, dropped <n>
#
# Without --flood: tests/eth_ns/udp_echo_client.py sends COUNT (default 1000) datagrams whose
# payload sizes take LIST in turn (default 0,1,7,18,100,512,1472: 18 is a 64-byte frame with
# its FCS, 1472 a full 1500-byte IP packet), at most W (default 16) in flight, round-robin over
# K (default 1) sockets, i.e. K flows for the echo's queues; every one must come back intact,
# and the echo's totals must be exactly COUNT packets and the frames' bytes both ways, nothing
# dropped (or "dropped unknown").
# With --flood: FLOOD (bench/eth/udp_flood.c) sends COUNT datagrams of --flood-size bytes
# (default 18), --flood-window (default 128) in flight: more than a small ring holds, fewer than
# the packet socket under softmlx5's port (or the baseline's) buffers, so that the frames are
# lost in the ring, where they are counted, and not before. Some must be dropped, every answer
# that comes back must be intact, and the echo's RX + dropped must be COUNT.
#
# Exit 0 when it passed, 1 when not, 77 (skipped) without root, ip netns or a GPU (--gpu).
# The namespaces are removed on every exit path.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/eth_ns/ns.sh
. "$here/ns.sh"

probe=
count=1000
sizes=0,1,7,18,100,512,1472
window=16
flows=1
port=5005
flood=
flood_size=18
flood_window=128
limit=120
while [ $# -gt 0 ]; do
    case $1 in
    --gpu) probe=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --flows) flows=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --flood) flood=$2; shift 2 ;;
    --flood-size) flood_size=$2; shift 2 ;;
    --flood-window) flood_window=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "echo_test.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: echo_test.sh [options] -- ECHO_COMMAND..." >&2; exit 2; }

ethns_check
gpu=
if [ -n "$probe" ]; then
    gpu=$("$probe") || { echo "$gpu"; exit $ETHNS_SKIP; }
    gpu=$(echo "$gpu" | head -n 1)
fi

out=$(mktemp -d)
echo_pid=
cleanup() {
    if [ -n "$echo_pid" ] && kill -0 "$echo_pid" 2> /dev/null; then
        kill -KILL "$echo_pid" 2> /dev/null
        wait "$echo_pid" 2> /dev/null
    fi
    ethns_cleanup
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ethns_setup || { echo "echo_test.sh: FAILED: could not set up the namespaces"; exit 1; }
cmd=()
for arg in "$@"; do
    arg=${arg//@IF@/$ETHNS_IF_A}
    arg=${arg//@PORT@/$port}
    cmd+=("${arg//@GPU@/$gpu}")
done
echo "namespaces $ETHNS_A ($ETHNS_IF_A, $ETHNS_MAC_A, no IP) and $ETHNS_B ($ETHNS_IF_B," \
    "$ETHNS_IP_B); the echo answers for $ETHNS_IP_ECHO:$port"
echo "echo: ${cmd[*]}"

# timeout passes our SIGINT on to the echo (ip netns exec and softmlx5-run exec theirs); not
# through a shell function, whose subshell would get the signal instead.
ip netns exec "$ETHNS_A" timeout -k 5 "$limit" "${cmd[@]}" > "$out/echo" 2>&1 &
echo_pid=$!
ready=0
for _ in $(seq 300); do
    grep -q ready "$out/echo" && { ready=1; break; }
    kill -0 "$echo_pid" 2> /dev/null || break
    sleep 0.1
done

client_rc=0
if [ "$ready" = 1 ]; then
    if [ -z "$flood" ]; then
        ethns_b python3 "$here/udp_echo_client.py" --addr "$ETHNS_IP_ECHO" --port "$port" \
            --count "$count" --sizes "$sizes" --window "$window" --flows "$flows" \
            > "$out/client" 2>&1
        client_rc=$?
    else
        ethns_b "$flood" -a "$ETHNS_IP_ECHO" -u "$port" -n "$count" -w "$flood_window" \
            -s "$flood_size" -l 1000 > "$out/client" 2>&1
        client_rc=$?
    fi
    kill -INT "$echo_pid" 2> /dev/null
elif kill -0 "$echo_pid" 2> /dev/null; then
    echo "the echo did not say it was ready within 30 s" > "$out/client"
    kill -INT "$echo_pid" 2> /dev/null
else
    echo "the echo exited before it was ready" > "$out/client"
fi
# A clean stop takes well under 10 s; then it is killed.
for _ in $(seq 100); do
    kill -0 "$echo_pid" 2> /dev/null || break
    sleep 0.1
done
kill -0 "$echo_pid" 2> /dev/null && echo "the echo did not stop within 10 s of SIGINT" >> "$out/client"
kill -KILL "$echo_pid" 2> /dev/null
wait "$echo_pid"
echo_rc=$?
echo_pid=

echo "--- echo (exit $echo_rc)"
cat "$out/echo"
echo "--- client (exit $client_rc)"
cat "$out/client"

ok=1
fail() {
    echo "check: $*"
    ok=0
}
[ "$echo_rc" = 0 ] || fail "the echo exited $echo_rc"
total=$(grep -E '^Total: RX [0-9]+ packets [0-9]+ bytes, TX [0-9]+ packets [0-9]+ bytes, dropped ([0-9]+|unknown)' \
    "$out/echo" | tail -n 1)
if [ -z "$total" ]; then
    fail "no totals line (Total: RX n packets b bytes, TX n packets b bytes, dropped n)"
else
    read -r rx rx_bytes tx tx_bytes dropped < <(echo "$total" |
        sed -E 's/^Total: RX ([0-9]+) packets ([0-9]+) bytes, TX ([0-9]+) packets ([0-9]+) bytes, dropped ([0-9]+|unknown).*/\1 \2 \3 \4 \5/')
fi
if [ -z "$flood" ]; then
    [ "$client_rc" = 0 ] || fail "the client exited $client_rc"
    grep -q "^udp_echo_client: sent $count echoed $count lost 0 bad 0" "$out/client" ||
        fail "not every datagram came back intact"
    if [ -n "$total" ]; then
        # The frames' bytes: payload + UDP, IPv4 and Ethernet headers (42 bytes), no FCS.
        bytes=$(python3 -c "import sys; s=[int(x) for x in sys.argv[2].split(',')];
n=int(sys.argv[1]); print(sum(s[i % len(s)] + 42 for i in range(n)))" "$count" "$sizes")
        [ "$rx" = "$count" ] || fail "the echo counted $rx packets received, $count were sent"
        [ "$tx" = "$count" ] || fail "the echo counted $tx packets sent, $count were sent to it"
        [ "$rx_bytes" = "$bytes" ] || fail "the echo counted $rx_bytes bytes received, $bytes expected"
        [ "$tx_bytes" = "$bytes" ] || fail "the echo counted $tx_bytes bytes sent, $bytes expected"
        [ "$dropped" = 0 ] || [ "$dropped" = unknown ] ||
            fail "the echo counted $dropped drops in a run without loss"
    fi
else
    # Loss is expected; a wrong answer or none at all is not.
    [ "$client_rc" = 0 ] || fail "the flood exited $client_rc (1: a bad answer, 3: no answer)"
    sent=$(sed -n 's/^udp_flood: sent \([0-9]*\) .*/\1/p' "$out/client")
    [ "$sent" = "$count" ] || fail "the flood sent ${sent:-nothing}, $count expected"
    if [ -n "$total" ] && [ "$dropped" = unknown ]; then
        fail "the echo cannot say how many packets its receive queues dropped"
    elif [ -n "$total" ]; then
        [ "$dropped" -gt 0 ] || fail "nothing was dropped: the ring never filled"
        [ $((rx + dropped)) = "$count" ] ||
            fail "RX $rx + dropped $dropped = $((rx + dropped)), $count were sent"
        [ "$tx" = "$rx" ] || fail "the echo answered $tx of the $rx packets it received"
    fi
fi
name=$(basename "${cmd[0]}")
for ((i = 1; i < ${#cmd[@]} - 1; i++)); do
    [ "${cmd[i]}" = -- ] && { name="$(basename "${cmd[i + 1]}") under $name"; break; }
done
if [ "$ok" = 1 ]; then
    echo "$name across namespaces: passed"
    exit 0
fi
echo "$name across namespaces: FAILED"
exit 1
