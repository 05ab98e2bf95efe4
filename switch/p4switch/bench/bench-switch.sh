#!/usr/bin/env bash
# `make bench-switch`: where p4switch's time goes, with the kernel measured in the same run.
#  (a) in-process: the engine alone on the L3 fixture (p4engine's bench_l3 example);
#  (v) vrouter.p4 as the vrouter controller configures it (vrouter_veth.py): in-process ns per
#      packet (bench_vrouter, each execution path the engine has), then over veth for L2
#      bridged, L3 routed, L3 + 10,000 ACL rules and MPLS push, 1/2/4 flows x 1/2 workers and
#      the Linux bridge/router: zero-loss pps (median of 3 searches, spread), CPU per forwarded
#      packet (switch threads + the machine's softirqs), p50/p99/p99.9 latency at 10/50/90 % of
#      the zero-loss rate, the generator's ceiling and softirq floor;
#  (b), (c) full runs only: the engine's L3 fixture with 10,000 routes (and + 10,000 ternary
#      ACL entries) over veth against a Linux bridge, as measured since 2026-11-21.
# Results: bench/results/switch-<UTC stamp>.{txt,json}. Needs root, `make build`.
# Option: --json FILE also writes the results there under the header every benchmark's --json
# carries (machine, load average at start and end, git revision: bench/report.py); --pcap DIR
# captures every port of the first vrouter.p4 trial (bench/capture.py).
# Environment: TRIAL_SECONDS (2), HI_PPS (1500000), NS_PREFIX (p4sb), SKIP_INPROCESS=1,
# WORKERS (1: the fixture runs), VR_WORKERS (1,2), VR_FLOWS (1,2,4), VR_CASES
# (l2,l3,l3_acl,mpls_push), REPEAT (3), QUICK=1 (a smoke run of every step the test checks in
# about a minute: 0.3 s trials, a coarse search, one search per point, each worker and flow
# count once; its numbers mean nothing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
json_copy=""
pcap_dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --json) [ $# -ge 2 ] || { echo "bench-switch: --json needs FILE" >&2; exit 2; }
                json_copy=$(realpath -m "$2"); shift 2 ;;
        --pcap) [ $# -ge 2 ] || { echo "bench-switch: --pcap needs DIR" >&2; exit 2; }
                pcap_dir=$(realpath -m "$2"); shift 2 ;;
        *) echo "bench-switch: unknown option $1 (options: --json FILE, --pcap DIR)" >&2; exit 2 ;;
    esac
done
cargo=${CARGO:-cargo}
out=$root/bench/results
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
txt=$out/switch-$stamp.txt
json=$out/switch-$stamp.json
quick=${QUICK:-0}
trial_s=${TRIAL_SECONDS:-2}
precision=0.02
inproc_s=2
if [ "$quick" = 1 ]; then trial_s=0.3; precision=0.5; inproc_s=0.3; fi
hi=${HI_PPS:-1500000}
workers=${WORKERS:-1}
p=${NS_PREFIX:-p4sb}
tmp=$(mktemp -d)
swpid=""

cleanup() {
    if [ -n "$swpid" ]; then kill -INT "$swpid" 2>/dev/null || true; wait "$swpid" 2>/dev/null || true; fi
    "$here/netns.sh" down "$p"
    rm -rf "$tmp"
}
trap cleanup EXIT

log() { echo "$*" | tee -a "$txt"; }

nice "$cargo" build --release -p p4switch --quiet
bin=$root/target/release
log "p4switch benchmark $stamp"
log "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
(cd "$root" && python3 -m bench.report machine) > "$tmp/machine.json"     # --json's header, at start
log "load average at start: $load0"
awk -v l="${load0%% *}" 'BEGIN { exit !(l > 0.5) }' &&
    log "WARNING: load average $load0 at start (> 0.5): other work shares the cores, do not quote these numbers"
[ "$quick" = 1 ] && log "QUICK=1: smoke run, coarse and short; do not quote these numbers"

inproc="null"
if [ "${SKIP_INPROCESS:-0}" != 1 ]; then
    log "(a) in-process engine, L3 program, 64-byte frames, one thread:"
    nice "$cargo" run --release --quiet -p p4engine --example bench_l3 -- --seconds "$inproc_s" --out "$tmp/inproc.json" | tee -a "$txt"
    inproc=$(cat "$tmp/inproc.json")
fi

log "(v) vrouter.p4 as the controller configures it:"
vargs=(--out "$tmp/vrouter.json" --prefix "$p-v" --workers "${VR_WORKERS:-1,2}" --flows "${VR_FLOWS:-1,2,4}"
       --cases "${VR_CASES:-l2,l3,l3_acl,mpls_push}" --repeat "${REPEAT:-3}" --trial-seconds "$trial_s"
       --hi "$hi" --resolution "$precision" --inprocess-seconds "$inproc_s")
[ "$quick" = 1 ] && vargs+=(--quick)
[ -n "$pcap_dir" ] && vargs+=(--pcap "$pcap_dir")
[ "${SKIP_INPROCESS:-0}" = 1 ] && vargs+=(--skip-inprocess)
"$root/.venv/bin/python" "$here/vrouter_veth.py" "${vargs[@]}" 2>&1 | tee -a "$txt"
vrouter=$(cat "$tmp/vrouter.json")

ceiling=0 bridge=0 l3=0 acl=0
if [ "$quick" != 1 ]; then
python3 "$here/mkprog.py" "$root/switch/engine/fixtures/l3.json" > "$tmp/l3.json"
python3 "$here/mkprog.py" "$root/switch/engine/fixtures/l3_acl.json" --acl > "$tmp/l3_acl.json"
"$here/netns.sh" up "$p"
gen=(--tx-ns "$p-a" --tx "$p-a0" --rx-ns "$p-b" --rx "$p-b0" --seconds "$trial_s")

search() { # label -> prints the zero-loss rate
    "$bin/p4gen" search "${gen[@]}" --hi "$hi" --precision "$precision" > "$tmp/search.txt"
    sed "s/^/  [$1] /" "$tmp/search.txt" >> "$txt"
    sed -n 's/^zero_loss_pps=//p' "$tmp/search.txt"
}

# Generator ceiling: nothing forwards, so the rate is the sender's alone.
ceiling=$("$bin/p4gen" trial "${gen[@]}" --rate 5000000 | sed -n 's/.*achieved_pps=\([0-9]*\).*/\1/p')
log "generator ceiling (veth, nothing forwarding): $ceiling pps"

ip -n "$p-sw" link add "$p-br" type bridge
ip -n "$p-sw" link set "$p-a1" master "$p-br"
ip -n "$p-sw" link set "$p-b1" master "$p-br"
ip -n "$p-sw" link set "$p-br" up
sleep 1
bridge=$(search bridge)
log "linux bridge: zero-loss $bridge pps"
ip -n "$p-sw" link del "$p-br"

run_switch() { # label json -> zero-loss rate
    ip netns exec "$p-sw" "$bin/p4switch" --workers "$workers" -i "1@$p-a1" -i "2@$p-b1" "$2" -- --no-grpc \
        > "$tmp/sw.out" 2>&1 &
    swpid=$!
    for _ in $(seq 100); do grep -q "p4switch ready" "$tmp/sw.out" && break; sleep 0.1; done
    grep -q "p4switch ready" "$tmp/sw.out" || { cat "$tmp/sw.out" >&2; exit 1; }
    local r; r=$(search "$1")
    kill -INT "$swpid"; wait "$swpid" || true; swpid=""
    echo "$r"
}
l3=$(run_switch p4switch-l3 "$tmp/l3.json")
log "p4switch L3 (10,000 routes, $workers worker(s)): zero-loss $l3 pps"
acl=$(run_switch p4switch-acl "$tmp/l3_acl.json")
log "p4switch L3 + ACL (10,000 ternary entries, $workers worker(s)): zero-loss $acl pps"
fi
log "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

cat > "$json" <<JSON
{"stamp": "$stamp", "quick": $([ "$quick" = 1 ] && echo true || echo false), "workers": $workers, "cores": $(nproc), "kernel": "$(uname -r)", "trial_seconds": $trial_s,
 "frame_bytes": 64, "method": "p4gen binary search, zero loss, veth pairs in network namespaces",
 "generator_ceiling_pps": ${ceiling:-0}, "linux_bridge_pps": ${bridge:-0},
 "p4switch_l3_pps": ${l3:-0}, "p4switch_l3_acl_pps": ${acl:-0}, "in_process": $inproc,
 "load_average_start": "$load0", "load_average_end": "$(cut -d' ' -f1-3 /proc/loadavg)",
 "vrouter": $vrouter}
JSON
log "results: $txt, $json"
if [ -n "$json_copy" ]; then
    (cd "$root" && python3 -m bench.report save "$json_copy" --machine "$tmp/machine.json" --data "$json") >/dev/null
    log "results also in $json_copy"
fi
