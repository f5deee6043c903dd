#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs an unmodified server program and its client, each under softmlx5-run, on one host or on
# two test hosts (network namespaces joined by a veth pair, made here, so the devices cannot
# share abstract Unix sockets and must connect over TCP to the address given to the launcher):
#   pair.sh [--netns] [--port PORT] [--expect server|client REGEX COUNT]... RUN \
#           -- SERVER_PROGRAM ARGS... -- CLIENT_PROGRAM ARGS...
# In the arguments @ADDR@ is the server's address (127.0.0.1, or 192.0.2.1 in its namespace) and
# @PORT@ a TCP port (random on one host, 18515 across namespaces, or --port's, for a server
# that listens on a fixed one); the client starts once the server listens on it. Both must exit 0 within PAIR_TIMEOUT seconds each (default 45; a
# side stopped at it exits 124), and each --expect'ed output must hold at least COUNT lines
# matching REGEX (grep -E). Exit 77 (skipped) when a program or the namespaces are
# not available.
set -u
netns=0
fixed_port=
expects=()
while [ $# -gt 0 ]; do
    case $1 in
    --netns) netns=1; shift ;;
    --port) fixed_port=$2; shift 2 ;;
    --expect) expects+=("$2" "$3" "$4"); shift 4 ;;
    *) break ;;
    esac
done
run=$1
shift
[ "${1:-}" = "--" ] || { echo "usage: pair.sh [--netns] [--expect WHO REGEX COUNT]... RUN -- SERVER_CMD... -- CLIENT_CMD..." >&2; exit 2; }
shift
server_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do server_args+=("$1"); shift; done
shift
client_args=("$@")
for program in "${server_args[0]}" "${client_args[0]}"; do
    command -v "$program" >/dev/null || { echo "skipped: $program is not installed"; exit 77; }
done
name=$(basename "${server_args[0]}")

out=$(mktemp -d)
a=dgn$$a
b=dgn$$b
cleanup() {
    if [ "$netns" -eq 1 ]; then
        ip netns del "$a" 2>/dev/null
        ip netns del "$b" 2>/dev/null
    fi
    rm -rf "$out"
}
trap cleanup EXIT

if [ "$netns" -eq 1 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "skipped: network namespaces need root"; exit 77; }
    command -v ip >/dev/null || { echo "skipped: iproute2's ip is missing"; exit 77; }
    ip netns add "$a" && ip netns add "$b" || { echo "skipped: cannot create network namespaces"; exit 77; }
    ip link add "v$a" type veth peer name "v$b" || { echo "skipped: cannot create a veth pair"; exit 77; }
    ip link set "v$a" netns "$a"
    ip link set "v$b" netns "$b"
    ip -n "$a" addr add 192.0.2.1/24 dev "v$a"
    ip -n "$b" addr add 192.0.2.2/24 dev "v$b"
    for ns in "$a" "$b"; do
        ip -n "$ns" link set lo up
    done
    ip -n "$a" link set "v$a" up
    ip -n "$b" link set "v$b" up
    addr=192.0.2.1
    port=18515
    on_server=(ip netns exec "$a" "$run" --addr 192.0.2.1 --)
    on_client=(ip netns exec "$b" "$run" --addr 192.0.2.2 --)
    in_server_ns=(ip netns exec "$a")
    where="across two hosts over TCP"
else
    addr=127.0.0.1
    # Below the kernel's ephemeral range (32768 and up: other tests' outgoing connections), and
    # not taken by another test's socket.
    for _ in $(seq 20); do
        port=$((20000 + RANDOM % 12000))
        ss -tan 2>/dev/null | grep -q ":$port " || break
    done
    on_server=("$run" --)
    on_client=("$run" --)
    in_server_ns=()
    where="under softmlx5"
fi
subst() {
    local arg
    for arg in "$@"; do
        arg=${arg//@ADDR@/$addr}
        printf '%s\n' "${arg//@PORT@/$port}"
    done
}
[ -n "$fixed_port" ] && port=$fixed_port
mapfile -t server_args < <(subst "${server_args[@]}")
mapfile -t client_args < <(subst "${client_args[@]}")

# Each side has a time limit inside ctest's: a side that hangs is stopped, and both outputs show.
limit=${PAIR_TIMEOUT:-45}
"${on_server[@]}" timeout -k 2 "$limit" "${server_args[@]}" >"$out/server" 2>&1 &
server=$!
for _ in $(seq 300); do # a loaded machine may take seconds to start the server
    "${in_server_ns[@]}" ss -ltn 2>/dev/null | grep -q ":$port " && break
    kill -0 "$server" 2>/dev/null || break # it exited (it could not listen): no wait
    sleep 0.1
done
"${on_client[@]}" timeout -k 2 "$limit" "${client_args[@]}" >"$out/client" 2>&1
client_rc=$?
wait "$server"
server_rc=$?
echo "--- server: ${server_args[*]} (exit $server_rc)"; cat "$out/server"
echo "--- client: ${client_args[*]} (exit $client_rc)"; cat "$out/client"
ok=1
[ "$server_rc" -eq 0 ] && [ "$client_rc" -eq 0 ] || ok=0
for ((i = 0; i < ${#expects[@]}; i += 3)); do
    who=${expects[i]}
    count=$(grep -cE "${expects[i + 1]}" "$out/$who")
    if [ "$count" -lt "${expects[i + 2]}" ]; then
        echo "$who: $count lines match '${expects[i + 1]}', ${expects[i + 2]} expected"
        ok=0
    fi
done
if [ "$ok" -eq 1 ]; then
    echo "$name $where: passed"
    exit 0
fi
echo "$name $where: FAILED"
exit 1
