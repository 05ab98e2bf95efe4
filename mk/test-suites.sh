#!/bin/bash
# Run test suites (make targets) in lanes: the suites of one lane one after another, the
# lanes side by side. Each suite's output goes to build/test-logs/SUITE.log and is printed
# in one piece when the suite ends; the last lines are every suite's wall time and result.
#
#   mk/test-suites.sh [--first "build-a build-b"] "[nice:]test-a test-b" "test-c" ...
#
# --first: targets made before the lanes, one after another, output as it comes (the build
# steps, timed like the suites); if one fails, no suite runs.
# Why lanes: most suites wait (switch start-ups, --use-files windows, negative timeouts)
# and leave the 2 cores idle; the Rust test build is the opposite. A target prefixed
# `nice:` runs at a lower priority so that the waiting suites get the CPU when they need it.
# A failing suite does not stop the others (every failure is reported); exit 1 if any failed.
# The caller built everything first: the suites run with MAKE -o for the build targets, so
# no lane takes cargo's lock for a no-op build while another lane compiles.
set -uo pipefail
MAKE=${MAKE:-make}
LOGS=build/test-logs
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log "$LOGS"/times
: > "$LOGS/times"
SKIP_BUILD=(-o build -o setup -o setup-apt -o build-switch -o build-p4 -o .venv/.setup-stamp)
start=$(date +%s)
first=
if [[ ${1:-} == --first ]]; then first=$2; shift 2; fi

lane() {
    local prio suite t0 rc
    for suite in $1; do
        prio=0
        if [[ $suite == nice:* ]]; then prio=5; suite=${suite#nice:}; fi
        t0=$(date +%s)
        nice -n "$prio" "$MAKE" --no-print-directory "${SKIP_BUILD[@]}" "$suite" > "$LOGS/$suite.log" 2>&1
        rc=$?
        # One suite's output at a time, whole.
        {
            flock 9
            echo "== $suite: $(( $(date +%s) - t0 )) s, $( ((rc)) && echo "FAILED (exit $rc)" || echo ok) =="
            cat "$LOGS/$suite.log"
            record "$suite" "$(( $(date +%s) - t0 ))" "$rc"
        } 9>> "$LOGS/.lock"
    done
}

record() { printf '%s %s %s\n' "$1" "$2" "$3" >> "$LOGS/times"; }

done_steps=()   # -o STEP for each step made: a later step does not make it again
for step in $first; do
    t0=$(date +%s)
    "$MAKE" --no-print-directory "${done_steps[@]}" "$step"
    rc=$?
    record "$step" "$(( $(date +%s) - t0 ))" "$rc"
    if ((rc)); then echo "test: $step failed (exit $rc); no suite run"; exit "$rc"; fi
    done_steps+=(-o "$step")
done

# Each lane in its own process group (job control), so that Ctrl-C / SIGTERM can stop a
# lane with everything it started; each suite removes its own veths and switches on SIGTERM.
pids=()
trap 'for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done; wait; exit 130' INT TERM
set -m
for l in "$@"; do lane "$l" & pids+=($!); done
set +m
lanes_failed=0
for p in "${pids[@]}"; do wait "$p" || lanes_failed=1; done

echo
echo "test: wall time per step and suite (lanes: $(printf '[%s] ' "$@"))"
failed=0
while read -r suite secs rc; do
    printf '  %-18s %5d s  %s\n' "$suite" "$secs" "$( ((rc)) && echo FAILED || echo ok)"
    ((rc)) && failed=1
done < "$LOGS/times"
# A suite whose lane died before it recorded a result (killed, out of memory) is a failure.
for l in "$@"; do
    for suite in $l; do
        suite=${suite#nice:}
        grep -q "^$suite " "$LOGS/times" || { printf '  %-18s     -    MISSING (no result)\n' "$suite"; failed=1; }
    done
done
((lanes_failed)) && failed=1
echo "  total              $(( $(date +%s) - start )) s (wall)"
exit $failed
