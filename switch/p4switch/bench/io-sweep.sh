#!/usr/bin/env bash
# Compares p4switch's `--io` modes on the engine's L3 fixture (10,000 routes, mkprog.py) over veth
# pairs in network namespaces (netns.sh), every mode in the same run, rounds interleaved so
# background load falls on all modes alike. Per mode and round:
#   zero-loss  p4gen binary search (64-byte frames, TRIAL_SECONDS trials, 2 % precision) and the
#              p99 one-way latency of the passing trial at that rate;
#   overload   a trial offered OVERLOAD_PPS, far above what one worker forwards: frames forwarded
#              per second (the mode's capacity; a queue cannot hide a deficit here) and the
#              switch process's CPU per forwarded frame.
# Prints each round and the median per mode, with the load average at start and end.
# usage: io-sweep.sh [MODE[:ARGS] ...]   (default: xdp mmap socket; ARGS comma-separated
#        switch options, e.g. xdp:--rx-depth,2048). Needs root and `make build`.
# Environment: REPEAT (3), TRIAL_SECONDS (1), OVERLOAD_PPS (800000), HI_PPS (1500000),
# WORKERS (1), NS_PREFIX (p4io).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${BIN:-$root/target/release}
p=${NS_PREFIX:-p4io}
rep=${REPEAT:-3} trial=${TRIAL_SECONDS:-1} over=${OVERLOAD_PPS:-800000} hi=${HI_PPS:-1500000}
cfgs=("$@"); [ ${#cfgs[@]} -gt 0 ] || cfgs=(xdp mmap socket)
. "$here/l3-fixture.sh"
gen=(--tx-ns "$p-a" --tx "$p-a0" --rx-ns "$p-b" --rx "$p-b0" --seconds "$trial")
echo "io-sweep: ${cfgs[*]}; $rep rounds, ${trial} s trials, overload $over pps, $(nproc) cores, kernel $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq "$rep"); do
    for cfg in "${cfgs[@]}"; do
        mode=${cfg%%:*} args=""
        [ "$cfg" != "$mode" ] && args=${cfg#*:} && args=${args//,/ }
        # shellcheck disable=SC2086
        ip netns exec "$p-sw" "$bin/p4switch" --workers "${WORKERS:-1}" --io "$mode" $args \
            -i "1@$p-a1" -i "2@$p-b1" "$tmp/l3.json" -- --no-grpc > "$tmp/sw.out" 2>&1 &
        pid=$!
        for _ in $(seq 100); do grep -q "p4switch ready" "$tmp/sw.out" && break; sleep 0.1; done
        grep -q "p4switch ready" "$tmp/sw.out" || { cat "$tmp/sw.out" >&2; exit 1; }
        srch=$("$bin/p4gen" search "${gen[@]}" --hi "$hi" --precision 0.02)
        zl=$(sed -n 's/^zero_loss_pps=//p' <<< "$srch")
        # p99 one-way latency of the passing trial at the zero-loss rate
        p99=$(awk -v zl="$zl" '$1 == "trial" { delete v; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                                   if (v["offered_pps"] == zl && v["lost"] == 0) p = v["lat_p99_us"] } END { print p + 0 }' <<< "$srch")
        c0=$(cpu_of "$pid")
        line=$("$bin/p4gen" trial "${gen[@]}" --rate "$over")
        c1=$(cpu_of "$pid")
        kill -INT "$pid"; wait "$pid" || true; pid=""
        got=$(sed -n 's/.* received=\([0-9]*\).*/\1/p' <<< "$line")
        awk -v c="$cfg" -v r="$r" -v zl="$zl" -v p99="$p99" -v got="$got" -v t="$trial" -v cpu=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" \
            'BEGIN { printf "round %d  %-24s zero-loss %8d pps   overload: forwarded %8d pps, switch CPU %5.0f ns/frame, p99 at zero-loss %7.0f us\n",
                     r, c, zl, got / t, got ? cpu / hz * 1e9 / got : 0, p99 }' | tee -a "$tmp/rows"
    done
done
echo "median of $rep:"
for cfg in "${cfgs[@]}"; do
    awk -v c="$cfg" '$3 == c { z[++n] = $5; f[n] = $9; u[n] = $13; q[n] = $18 }
        function med(a, n,  i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "  %-24s zero-loss %8d pps (%d-%d)   overload forwarded %8d pps (%d-%d), %5.0f ns/frame, p99 at zero-loss %6.0f us (%d-%d)\n",
              c, med(z, n), z[1], z[n], med(f, n), f[1], f[n], med(u, n), med(q, n), q[1], q[n] }' "$tmp/rows"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
