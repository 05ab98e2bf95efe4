#!/usr/bin/env bash
# The switch's own cost per forwarded frame at FIXED offered rates (not at its limit): on the
# engine's L3 fixture (10,000 routes, mkprog.py) over veth pairs in network namespaces
# (netns.sh), 64-byte frames, one flow per generator (FLOWS generators of RATE/FLOWS each, with
# different source addresses, so `--spread flow` can share them among the workers). Per
# configuration and rate, one `p4gen trial` of TRIAL_SECONDS with, over the trial:
#   cpu     the switch's threads' run time (/proc/PID/task/*/schedstat) per forwarded frame;
#   ustime  utime + stime of the process (/proc/PID/stat, clock ticks) per forwarded frame;
#   sirq    the machine's softirq time (/proc/stat; generator and veth included, the same
#           traffic in every configuration) per forwarded frame;
#   sys     the switch's system calls per forwarded frame (perf stat raw_syscalls:sys_enter),
#           with the busiest calls (ppoll, sendto, recvmmsg, sendmmsg, getsockopt, futex);
#   sleeps  voluntary context switches of the switch's threads per forwarded frame (wake-ups);
#   loss    frames offered and not received; p50/p99 one-way latency of the first generator;
#   workers each worker thread's share of the workers' run time (how the flows were spread).
# Configurations alternate within each round, so background load falls on all alike.
# usage: cpu-per-frame.sh [MODE[:ARGS] ...]   (default: xdp mmap socket; ARGS comma-separated
#        switch options, NAME=VALUE environment settings or SWITCH=PATH (another p4switch binary,
#        e.g. the one before a change), e.g. xdp:--workers,2 xdp:SWITCH=/tmp/old/p4switch). Needs root and `make build`, perf.
# Environment: RATES (50000 100000), REPEAT (2), TRIAL_SECONDS (3), FLOWS (1), NS_PREFIX (p4cf),
# BIN (target/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${BIN:-$root/target/release}
p=${NS_PREFIX:-p4cf}
rep=${REPEAT:-2} trial=${TRIAL_SECONDS:-3} flows=${FLOWS:-1}
read -ra rates <<< "${RATES:-50000 100000}"
cfgs=("$@"); [ ${#cfgs[@]} -gt 0 ] || cfgs=(xdp mmap socket)
. "$here/l3-fixture.sh"
echo "cpu-per-frame: ${cfgs[*]}; rates ${rates[*]} pps, $flows flow(s), $rep rounds, ${trial} s trials, $(nproc) cores, kernel $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
hz=$(getconf CLK_TCK)
runtime_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
ustime() { awk '{print $14 + $15}' "/proc/$1/stat"; }
sleeps() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {s += $2} END {print s}'; }
workers_ns() { for t in /proc/"$1"/task/*; do [[ $(cat "$t/comm") == p4switch-w* ]] && cut -d' ' -f1 "$t/schedstat"; done | paste -sd' '; }
softirq() { awk '$1 == "cpu" {print $8}' /proc/stat; }
events=raw_syscalls:sys_enter
for s in ppoll sendto recvmmsg sendmmsg getsockopt futex; do events+=,syscalls:sys_enter_$s; done
for r in $(seq "$rep"); do
    for rate in "${rates[@]}"; do
        for cfg in "${cfgs[@]}"; do
            mode=${cfg%%:*} args=() envs=() swbin=$bin/p4switch
            if [ "$cfg" != "$mode" ]; then
                IFS=, read -ra toks <<< "${cfg#*:}"
                for t in "${toks[@]}"; do if [[ $t =~ ^SWITCH= ]]; then swbin=${t#SWITCH=}; elif [[ $t =~ ^[A-Z_0-9]+= ]]; then envs+=("$t"); else args+=("$t"); fi; done
            fi
            ip netns exec "$p-sw" env "${envs[@]}" "$swbin" --io "$mode" "${args[@]}" \
                -i "1@$p-a1" -i "2@$p-b1" "$tmp/l3.json" -- --no-grpc > "$tmp/sw.out" 2>&1 &
            pid=$!
            for _ in $(seq 100); do grep -q "p4switch ready" "$tmp/sw.out" && break; sleep 0.1; done
            grep -q "p4switch ready" "$tmp/sw.out" || { cat "$tmp/sw.out" >&2; exit 1; }
            sleep 0.3
            perf stat -x, -e "$events" -p "$pid" -o "$tmp/perf" &
            perfpid=$!
            sleep 0.2
            t0=$(runtime_ns "$pid") u0=$(ustime "$pid") v0=$(sleeps "$pid") s0=$(softirq) w0=$(workers_ns "$pid")
            for f in $(seq "$flows"); do
                "$bin/p4gen" trial --tx-ns "$p-a" --tx "$p-a0" --rx-ns "$p-b" --rx "$p-b0" --seconds "$trial" \
                    --rate $((rate / flows)) --src-ip "10.1.0.$f" > "$tmp/gen$f" 2>&1 &
            done
            wait $(jobs -p | grep -vx "$pid" | grep -vx "$perfpid") 2>/dev/null || true
            t1=$(runtime_ns "$pid") u1=$(ustime "$pid") v1=$(sleeps "$pid") s1=$(softirq) w1=$(workers_ns "$pid")
            split=$(awk -v a="$w0" -v b="$w1" 'BEGIN { n = split(a, x, " "); split(b, y, " "); for (i = 1; i <= n; i++) { d[i] = y[i] - x[i]; t += d[i] }
                    for (i = 1; i <= n; i++) printf "%s%.0f%%", (i > 1 ? "/" : ""), t ? 100 * d[i] / t : 0 }')
            kill -INT "$perfpid"; wait "$perfpid" 2>/dev/null || true
            kill -INT "$pid"; wait "$pid" || true; pid=""
            p50=$(sed -n 's/.* lat_p50_us=\([0-9.]*\).*/\1/p' "$tmp/gen1") p99=$(sed -n 's/.* lat_p99_us=\([0-9.]*\).*/\1/p' "$tmp/gen1")
            got=0 sent=0
            for f in $(seq "$flows"); do
                g=$(sed -n 's/.* received=\([0-9]*\).*/\1/p' "$tmp/gen$f"); got=$((got + ${g:-0}))
                s=$(sed -n 's/.* sent=\([0-9]*\).*/\1/p' "$tmp/gen$f"); sent=$((sent + ${s:-0}))
            done
            [ "$got" -gt 0 ] || { cat "$tmp/gen1" >&2; }
            sys=$(awk -F, -v n="$got" '{ split($3, e, ":"); name = e[2]; sub("sys_enter_", "", name); if (name == "sys_enter") name = "all";
                   if ($1 ~ /^[0-9]+$/ && n > 0 && ($1 > 0 || name == "all")) printf "%s %.2f ", name, $1 / n }' "$tmp/perf")
            awk -v c="$cfg" -v r="$r" -v rate="$rate" -v got="$got" -v sent="$sent" -v t=$((t1 - t0)) -v u=$((u1 - u0)) -v hz="$hz" \
                -v v=$((v1 - v0)) -v s=$((s1 - s0)) -v sys="$sys" -v p50="${p50:-0}" -v p99="${p99:-0}" -v wsplit="$split" \
                'BEGIN { n = got ? got : 1
                         printf "round %d %7d pps %-22s fwd %8d loss %6d  cpu %6.0f ns  ustime %6.0f ns  sirq %6.0f ns  sleeps %5.2f  p50/p99 %s/%s us  workers %s  sys/frame: %s\n",
                                r, rate, c, got, sent - got, t / n, u / hz * 1e9 / n, s / hz * 1e9 / n, v / n, p50, p99, wsplit, sys }'
        done
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
