#!/usr/bin/env bash
# Two hosts and a switch in three network namespaces, joined by veth pairs:
#   PREFIX-a: veth "PREFIX-a0"  <->  PREFIX-sw: "PREFIX-a1" (switch port 1)
#   PREFIX-b: veth "PREFIX-b0"  <->  PREFIX-sw: "PREFIX-b1" (switch port 2)
# usage: netns.sh up PREFIX | down PREFIX
set -euo pipefail
cmd=${1:?up|down}; p=${2:?prefix}
down() {
    for ns in "$p-a" "$p-sw" "$p-b"; do ip netns del "$ns" 2>/dev/null || true; done
}
case $cmd in
up)
    down
    for ns in "$p-a" "$p-sw" "$p-b"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
    ip link add "$p-a0" netns "$p-a" type veth peer name "$p-a1" netns "$p-sw"
    ip link add "$p-b0" netns "$p-b" type veth peer name "$p-b1" netns "$p-sw"
    for pair in "$p-a:$p-a0" "$p-sw:$p-a1" "$p-sw:$p-b1" "$p-b:$p-b0"; do
        ns=${pair%%:*}; dev=${pair#*:}
        ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
        ip -n "$ns" link set "$dev" up
        # Hosts send wire frames (no TSO/GSO super-frames, checksums filled in).
        ip netns exec "$ns" ethtool -K "$dev" tx off tso off gso off gro off >/dev/null 2>&1 || true
    done
    ;;
down) down ;;
*) echo "usage: $0 up|down PREFIX" >&2; exit 2 ;;
esac
