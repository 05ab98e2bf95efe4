"""`vrouter run` below the data plane: the daemon lowers its own CPU priority at start.

On a machine whose cores forward packets (p4switch's workers, a software switch beside it), a
burst of route writes must delay the controller, not the packets. So `vrouter run --nice N`
(default 10) puts every thread of the process at nice N (never above where it was started: one
started under `nice -n 15` stays at 15), as SCHED_BATCH (its wake-ups do not preempt a running
thread), the way p4switch runs its own control threads (`--control-nice`,
switch/p4switch/README.md). Absolute, as systemd's Nice=: started niced on a shared machine, it
does not sink further below other niced work. At nice 10 against 0 it keeps ~10 % of a
CPU the data plane keeps busy, more than a 1,000 routes/s churn needs, so it slows down but never
starves. Linux keeps both per thread and a new thread inherits its creator's: every thread that
exists now is changed, and the threads started later (routers, gRPC's) inherit it. Neither
needs privilege (only raising priority does).
"""

from __future__ import annotations

import os


POLICIES = {"batch": os.SCHED_BATCH, "idle": os.SCHED_IDLE}


def lower(to: int, policy: str = "batch") -> dict[str, object] | None:
    """Put every thread of this process at nice `to` (or where it is, if that is lower priority)
    under `policy`: SCHED_BATCH, or SCHED_IDLE (`vrouter run --sched idle`: CPU only when a core
    has nothing else to run, and preempted at once when it has; the 14:37 and 15:39 soaks of
    2026-11-28 in bench/README.md are why it exists, and why it is not the default: on a machine
    saturated by other work it can wait indefinitely).

    Returns what is in effect, for the log (None for 0: left as started). Raises OSError if the
    kernel refuses (it does not for lowering).
    """
    if to <= 0 and policy == "batch":
        return None             # --nice 0: left as started; --sched idle still applies
    was = os.getpriority(os.PRIO_PROCESS, 0)        # on Linux, the calling thread's
    nice = max(was, min(to, 19))
    param = os.sched_param(0)
    for tid in sorted(int(t) for t in os.listdir("/proc/self/task")):
        try:
            os.sched_setscheduler(tid, POLICIES[policy], param)
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except ProcessLookupError:      # a thread that ended meanwhile
            continue
    return {"nice": nice, "was": was, "policy": policy}
