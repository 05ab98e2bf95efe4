"""`vrouter run --nice`: the daemon goes below the data plane (priority.py), every thread of it."""

import subprocess
import sys

CHILD = r"""
import json, os, threading
from vrouter import priority
early = threading.Event()
t = threading.Thread(target=early.wait, name="early")        # started before: changed too
t.start()
effect = priority.lower(STEPS, "POLICY")
late = threading.Thread(target=early.wait, name="late")      # started after: inherits
late.start()
rows = []
for tid in os.listdir("/proc/self/task"):
    stat = open(f"/proc/self/task/{tid}/stat").read()
    f = stat[stat.rindex(")") + 2:].split()
    rows.append((int(f[16]), int(f[38])))                    # nice (field 19), policy (field 41)
early.set()
print(json.dumps({"effect": effect, "threads": rows}))
"""


def child(steps: int, policy: str = "batch") -> dict:
    import json
    code = CHILD.replace("STEPS", str(steps)).replace("POLICY", policy)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, timeout=30)
    return json.loads(out.stdout)


def test_every_thread_goes_to_the_nice_value_as_batch_never_above_where_it_started():
    got = child(15)
    was = got["effect"]["was"]
    want = max(was, 15)
    assert got["effect"] == {"nice": want, "was": was, "policy": "batch"}
    assert len(got["threads"]) == 3
    assert all(t == [want, 3] for t in got["threads"]), got      # 3 = SCHED_BATCH


def test_zero_leaves_it_as_started():
    got = child(0)
    assert got["effect"] is None
    assert len({tuple(t) for t in got["threads"]}) == 1 and got["threads"][0][1] == 0, got


def test_the_cli_defaults_to_ten_and_refuses_out_of_range(tmp_path):
    from vrouter import cli
    assert cli.DEFAULT_NICE == 10
    r = subprocess.run([sys.executable, "-c", "import sys; from vrouter.cli import main; sys.exit(main())", "run",
                        str(tmp_path / "x.yaml"), "--nice", "20"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "--nice" in r.stderr


def test_idle_puts_every_thread_under_sched_idle():
    got = child(15, "idle")
    assert got["effect"]["policy"] == "idle"
    assert len(got["threads"]) == 3
    assert all(t[1] == 5 for t in got["threads"]), got           # 5 = SCHED_IDLE, the late thread too


def test_idle_applies_at_nice_zero_too():
    got = child(0, "idle")             # `--nice 0 --sched idle`: asked for idle, gets idle
    assert got["effect"]["policy"] == "idle" and got["effect"]["nice"] == got["effect"]["was"]
    assert all(t[1] == 5 for t in got["threads"]), got


def test_the_cli_takes_sched_idle_and_refuses_other_policies(tmp_path):
    def run(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "import sys; from vrouter.cli import main; sys.exit(main())",
                               "run", str(tmp_path / "missing.yaml"), *extra], capture_output=True, text=True, timeout=30)
    taken = run("--sched", "idle")          # gets past the options, to the missing file
    assert "--sched" not in taken.stderr and "missing.yaml" in taken.stdout + taken.stderr, taken.stderr
    refused = run("--sched", "fifo")
    assert refused.returncode == 2 and "--sched" in refused.stderr
