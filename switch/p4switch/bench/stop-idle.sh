#!/usr/bin/env bash
# `make bench-stop-idle`: two figures of issue 16/17 "Must 5", on the real binary with
# two veth ports in a network namespace (vrouter.p4 from build/vrouter.json, P4Runtime on):
#  - stop: time from SIGTERM to the process's exit, and whether a new switch binds
#    the same gRPC address at once (RUNS times);
#  - idle: CPU time (user + system, all threads) of the idle switch over IDLE_SECONDS;
#  - attached: the stop time again with a controller attached (the venv's P4Runtime
#    client: primary stream open, vrouter.p4 set with its P4Info, digests configured),
#    and the status its stream ended with (RUNS times; skipped without .venv);
#  - many ports: the stop time with MANY_PORTS veth ports (as many as the campus
#    description has), whose XDP detach the kernel does one port at a time (RUNS times).
# Prints the load average beside them (CPU time of an idle process does not depend on load;
# wall-clock stop times do). Needs root. Environment: RUNS (5), IDLE_SECONDS (10),
# MANY_PORTS (14; 0 skips), SWITCH_ARGS (extra p4switch options, e.g. "--io mmap"). Option: --json FILE also writes the
# figures there under the header every benchmark's --json carries (bench/report.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$root/target/release/p4switch
prog=$root/build/vrouter.json
runs=${RUNS:-5}
many=${MANY_PORTS:-14}
idle_s=${IDLE_SECONDS:-10}
p=${NS_PREFIX:-p4si}
addr=127.0.0.1:${GRPC_PORT:-19559}
json_copy=""
case "${1:-}" in
    "") ;;
    --json) [ $# -ge 2 ] || { echo "stop-idle: --json needs FILE" >&2; exit 2; }
            json_copy=$(realpath -m "$2") ;;
    *) echo "stop-idle: unknown option $1 (options: --json FILE)" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    "$here/netns.sh" down "$p"
    rm -rf "$tmp"
}
trap cleanup EXIT
[ -x "$bin" ] && [ -f "$prog" ] || { echo "stop-idle: run 'make build' first" >&2; exit 1; }
"$here/netns.sh" up "$p"

# The switch's ports: two by default; `many_ports` adds veth pairs inside the switch's namespace.
port_args=(-i "1@$p-a1" -i "2@$p-b1")
many_ports() {
    port_args=()
    for i in $(seq 1 "$1"); do
        ip -n "$p-sw" link add "$p-p$i" type veth peer name "$p-q$i"
        ip -n "$p-sw" link set "$p-q$i" up
        ip -n "$p-sw" link set "$p-p$i" up
        port_args+=(-i "$i@$p-p$i")
    done
}

# Starts a switch in the background; sets $pid once its ready line is out.
start() {
    # Emptied here, not by the background job's redirection, which may run after the first grep
    # and let it find the previous switch's ready line (then SIGTERM hit a switch still starting).
    : > "$tmp/out"
    ip netns exec "$p-sw" "$bin" "${port_args[@]}" ${SWITCH_ARGS:-} "$prog" \
        -- --grpc-server-addr "$addr" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 1 500); do
        grep -q "p4switch ready" "$tmp/out" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$tmp/err" >&2; return 1; }
        sleep 0.01
    done
    echo "stop-idle: no ready line" >&2; return 1
}

# CPU time in ns of process $1, all threads (schedstat: ns on a CPU, finer than clock ticks).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d", s }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$json_copy" ]; then (cd "$root" && python3 -m bench.report machine) > "$tmp/machine.json"; fi
stops=(); readies=(); attached=(); many_stops=()
start
echo "$(cat "$tmp/out")"
sleep 1
t0=$(cpu_ns "$pid"); s0=$(date +%s%N)
sleep "$idle_s"
t1=$(cpu_ns "$pid"); s1=$(date +%s%N)
awk -v t=$((t1 - t0)) -v ns=$((s1 - s0)) \
    'BEGIN { printf "idle: %.1f ms of CPU in %.1f s = %.3f %% of a core\n", t / 1e6, ns / 1e9, 100 * t / ns }'

for i in $(seq 1 "$runs"); do
    a=$(date +%s%N)
    kill -TERM "$pid"
    wait "$pid" || { echo "stop-idle: exit status $?" >&2; exit 1; }
    b=$(date +%s%N)
    pid=""
    start
    c=$(date +%s%N)
    echo "stop $i: exit $(( (b - a) / 1000000 )) ms after SIGTERM; a new switch ready on $addr $(( (c - b) / 1000000 )) ms later"
    stops+=($(( (b - a) / 1000000 ))); readies+=($(( (c - b) / 1000000 )))
done

py=$root/.venv/bin/python
if [ -x "$py" ]; then
    # A controller in the switch's namespace (switch/runtime/tools/primary.py, the set-up
    # smoke_check.py uses too): touches $tmp/ready once set up, then prints how its stream ended.
    for i in $(seq 1 "$runs"); do
        rm -f "$tmp/ready"
        ip netns exec "$p-sw" "$py" "$root/switch/runtime/tools/primary.py" "$addr" "$prog" "${prog%.json}.p4info.txtpb" \
            --digests --ready "$tmp/ready" >"$tmp/ctl" 2>&1 &
        ctl=$!
        for _ in $(seq 1 1000); do [ -e "$tmp/ready" ] && break; kill -0 "$ctl" 2>/dev/null || break; sleep 0.01; done
        [ -e "$tmp/ready" ] || { echo "stop-idle: the controller did not set up: $(cat "$tmp/ctl")" >&2; exit 1; }
        a=$(date +%s%N)
        kill -TERM "$pid"
        wait "$pid" || { echo "stop-idle: exit status $?" >&2; exit 1; }
        b=$(date +%s%N)
        pid=""
        wait "$ctl" || true
        start
        echo "attached $i: exit $(( (b - a) / 1000000 )) ms after SIGTERM, controller's $(cat "$tmp/ctl")"
        attached+=($(( (b - a) / 1000000 )))
    done
fi
kill -TERM "$pid"; wait "$pid"; pid=""
if [ "$many" -gt 0 ]; then
    many_ports "$many"
    for i in $(seq 1 "$runs"); do
        start
        sleep 1
        a=$(date +%s%N)
        kill -TERM "$pid"
        wait "$pid" || { echo "stop-idle: exit status $?" >&2; exit 1; }
        b=$(date +%s%N)
        pid=""
        # Nothing left behind: an XDP program still attached would keep the port from the kernel.
        if ip -n "$p-sw" link show | grep -q "prog/xdp"; then
            echo "stop-idle: an XDP program is still attached after the exit" >&2; exit 1
        fi
        echo "$many ports $i: exit $(( (b - a) / 1000000 )) ms after SIGTERM ($(grep -o 'io [^,]*' "$tmp/out"))"
        many_stops+=($(( (b - a) / 1000000 )))
    done
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$json_copy" ]; then
    join() { local IFS=,; echo "$*"; }
    cat > "$tmp/data.json" <<JSON
{"benchmark": "bench-stop-idle", "switch_args": "${SWITCH_ARGS:-}", "idle_seconds": $idle_s,
 "idle_cpu_ns": $((t1 - t0)), "idle_wall_ns": $((s1 - s0)),
 "stop_ms": [$(join "${stops[@]}")], "new_switch_ready_ms": [$(join "${readies[@]}")],
 "attached_stop_ms": [$(join "${attached[@]}")],
 "many_ports": $many, "many_ports_stop_ms": [$(join "${many_stops[@]}")]}
JSON
    (cd "$root" && python3 -m bench.report save "$json_copy" --machine "$tmp/machine.json" --data "$tmp/data.json") >/dev/null
    echo "results also in $json_copy"
fi
