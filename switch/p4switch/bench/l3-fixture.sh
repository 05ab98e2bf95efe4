# Sourced by the fixture benchmarks (io-sweep.sh, cpu-per-frame.sh): a scratch directory $tmp
# holding the engine's L3 fixture with 10,000 routes ($tmp/l3.json, mkprog.py), the veth pairs
# of netns.sh under prefix $p, and an EXIT trap that stops the switch in $pid and removes both.
# Needs $here (this directory) and $root (the repository) set.
tmp=$(mktemp -d)
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    "$here/netns.sh" down "$p"; rm -rf "$tmp"
}
trap cleanup EXIT
# MKPROG_ARGS: mkprog.py's options (--acl, --count).
# shellcheck disable=SC2086
python3 "$here/mkprog.py" "$root/switch/engine/fixtures/l3.json" ${MKPROG_ARGS:-} > "$tmp/l3.json"
"$here/netns.sh" up "$p"
