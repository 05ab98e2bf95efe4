"""RFC 2544 measurements over veth, driving the project's paced generator `p4gen`.

`p4gen trial` (switch/p4switch/src/bin/p4gen/) sends UDP frames carrying a sequence
number and a send time at a paced rate from one namespace and receives them in another
(loss, duplicates, reordering, one-way latency percentiles); this module runs one
`p4gen` per flow at once and implements on top of it:
  throughput      binary search for the highest rate whose loss <= tolerance
  latency         one-way latency percentiles of the tagged frames of a trial at the
                  throughput rate (kernel receive time minus send time, same host clock)
  loss curve      frame loss rate at 10 %, 20 %, ... 100 % of the nominal line rate
  back-to-back    longest burst with no loss, frames spaced at the line rate
                  (`p4gen burst --line-mbps`; as fast as the sender can if that is slower)
Frame sizes are Ethernet frames including the 4-byte FCS (64 ... 9216); the generator
is given the size without FCS. Rates in bit/s count frame bits (no preamble/gap),
line rate in frames/s counts the 20 bytes of preamble and gap as RFC 2544 does.
"""
from __future__ import annotations

import re
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import capture
from .netns import BenchError, Host

ROOT = Path(__file__).resolve().parent.parent
P4GEN = ROOT / "target" / "release" / "p4gen"
TRIAL_RE = re.compile(r"trial offered_pps=(\d+) achieved_pps=(\d+) sent=(\d+) tx_refused=(\d+) "
                      r"received=(\d+) lost=(\d+) reordered=(\d+)")
LATENCY_KEYS = ("lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us", "lat_max_us")


def parse_line(out: str, word: str) -> dict[str, float] | None:
    """The numeric `key=value` pairs of p4gen's output line that starts with `word`."""
    for line in out.splitlines():
        if line.startswith(word + " "):
            kv = (p.split("=", 1) for p in line.split()[1:] if "=" in p)
            res = {}
            for k, v in kv:
                try:
                    res[k] = float(v)
                except ValueError:
                    pass
            return res
    return None


def line_rate_pps(frame: int, line_bps: float) -> float:
    return line_bps / ((frame + 20) * 8)


def mbps(pps: float, frame: int) -> float:
    return pps * frame * 8 / 1e6


@dataclass
class Flow:
    src: Host
    dst: Host
    dst_mac: str     # the DUT's MAC when routed, else dst.mac


@dataclass
class Trial:
    offered_pps: float        # total over all flows
    achieved_pps: float
    sent: int
    received: int
    lost: int
    reordered: int
    seconds: float
    duplicates: int = 0
    rx_ring_drops: int = 0             # dropped by our receiver's ring, not by the DUT
    pace_max_dev_pct: float | None = None   # worst 1 s window of the worst flow's sender
    lat_samples: int = 0
    # one-way latency in µs: each percentile is the worst over the flows
    lat_min_us: float | None = None
    lat_p50_us: float | None = None
    lat_p90_us: float | None = None
    lat_p99_us: float | None = None
    lat_p999_us: float | None = None
    lat_max_us: float | None = None

    @property
    def loss_ratio(self) -> float:
        return self.lost / self.sent if self.sent else 1.0


@dataclass
class Settings:
    trial_seconds: float = 10.0
    resolution: float = 0.01          # stop when (hi - lo) <= resolution * hi
    loss_tolerance: float = 0.0       # fraction of frames
    line_bps: float = 1e9             # nominal line rate for the percentages (the studies used 1 GbE)
    max_pps: float = 3e6              # upper bound of the search (generator limits lower)
    pause: float = 0.3


def _gen_args(f: Flow, frame: int) -> list[str]:
    return ["--tx-ns", f.src.name, "--tx", f.src.dev, "--rx-ns", f.dst.name, "--rx", f.dst.dev,
            "--size", str(frame - 4), "--src-mac", f.src.mac, "--dst-mac", f.dst_mac,
            "--src-ip", f.src.addr or "10.0.0.1", "--dst-ip", f.dst.addr or "10.0.0.2"]


def _run_p4gen(cmd: str, flows: list[Flow], frame: int, extra: list[str], timeout: float) -> list[dict]:
    """One `p4gen cmd` per flow, all at once; the parsed output line of each."""
    if not P4GEN.exists():
        raise BenchError(f"{P4GEN} is missing: run `make build-switch` first")
    procs = [subprocess.Popen([str(P4GEN), cmd, *_gen_args(f, frame), *extra], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for f in flows]
    rows = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise BenchError(f"p4gen {cmd} did not finish within {timeout:.0f} s") from None
        keys = parse_line(out, cmd)
        if p.returncode != 0 or keys is None or (cmd == "trial" and not TRIAL_RE.search(out)):
            raise BenchError(f"p4gen {cmd} failed (exit {p.returncode}): {(err or out).strip()[:300]}")
        rows.append(keys)
    return rows


def _combine(rows: list[dict], offered_pps: float, seconds: float) -> Trial:
    total = lambda k: int(sum(r.get(k, 0) for r in rows))
    worst = lambda k: max((r[k] for r in rows if k in r), default=None)
    return Trial(offered_pps=offered_pps, achieved_pps=sum(r["achieved_pps"] for r in rows), sent=total("sent"),
                 received=total("received"), lost=total("lost"), reordered=total("reordered"), seconds=seconds,
                 duplicates=total("duplicates"), rx_ring_drops=total("rx_ring_drops"),
                 pace_max_dev_pct=worst("pace_max_dev_pct"), lat_samples=total("lat_samples"),
                 **{k: worst(k) for k in LATENCY_KEYS})


def trial(flows: list[Flow], frame: int, total_pps: float, seconds: float) -> Trial:
    """All flows at once, each at total_pps / len(flows), for `seconds`."""
    per = max(1, int(total_pps / len(flows)))
    with capture.once(f"p4gen trial, {frame} B, {per * len(flows)} frames/s, {seconds:g} s"):
        rows = _run_p4gen("trial", flows, frame, ["--rate", str(per), "--seconds", f"{seconds:g}"], seconds + 60)
    return _combine(rows, per * len(flows), seconds)


def burst(flows: list[Flow], frame: int, frames: int, line_bps: float | None) -> Trial:
    """A burst of `frames` frames from every flow at once, spaced at `line_bps` (frame + 20 B
    preamble and gap), or as fast as the sender can when `line_bps` is None."""
    extra = ["--frames", str(frames)] + ([] if line_bps is None else ["--line-mbps", f"{line_bps / 1e6:g}"])
    pps = line_rate_pps(frame, line_bps) if line_bps else 0.0
    rows = _run_p4gen("burst", flows, frame, extra, (frames / pps if pps else frames / 1e5) + 60)
    return _combine(rows, pps * len(flows), max(r.get("tx_seconds", 0.0) for r in rows))


@dataclass
class Search:
    frame: int
    throughput_pps: float = 0.0
    throughput_mbps: float = 0.0
    generator_limited: bool = False
    trials: list[dict] = field(default_factory=list)


def throughput(flows: list[Flow], frame: int, st: Settings, progress=print) -> Search:
    """Binary search for the highest total rate with loss <= tolerance. A trial whose
    generator fell more than 2 % short of its offered rate does not pass (that rate was
    not really offered); if that happens at the top, the result is marked generator_limited."""
    res = Search(frame)
    lo, hi = 0.0, min(line_rate_pps(frame, st.line_bps), st.max_pps)

    def ok(rate: float) -> bool:
        t = trial(flows, frame, rate, st.trial_seconds)
        short = t.achieved_pps < 0.98 * t.offered_pps
        passed = t.loss_ratio <= st.loss_tolerance and not short
        res.trials.append({**asdict(t), "passed": passed, "generator_short": short})
        progress(f"    {frame:5d} B  {rate:10.0f} pps offered, {t.achieved_pps:10.0f} sent/s, "
                 f"loss {100 * t.loss_ratio:6.2f} %  {'pass' if passed else 'fail'}")
        if short and t.loss_ratio <= st.loss_tolerance:
            res.generator_limited = True
        time.sleep(st.pause)
        return passed

    if ok(hi):
        lo = hi
    elif res.generator_limited:
        # the generator cannot offer line rate: search below what it did send
        hi = res.trials[-1]["achieved_pps"] * 0.97
        if ok(hi):
            lo = hi
    if lo != hi:
        while hi - lo > st.resolution * hi:
            mid = (lo + hi) / 2
            if ok(mid):
                lo = mid
            else:
                hi = mid
    res.throughput_pps = lo
    res.throughput_mbps = mbps(lo, frame)
    return res


def latency(flows: list[Flow], frame: int, pps: float, st: Settings, samples: int = 100) -> dict:
    """One-way latency (RFC 2544 26.2) at `pps` (the throughput rate; at least 100 frames/s):
    every frame of a `trial_seconds` trial carries its send time, the receiver subtracts it
    from the kernel's receive time stamp (same host, same clock). Percentiles in µs are the
    worst over the flows. (`samples` is kept for old callers; every frame is a sample.)"""
    load = max(pps, 100.0)
    t = trial(flows, frame, load, st.trial_seconds)
    out = {"method": "one-way, tagged frames (p4gen send time -> kernel receive time stamp)",
           "load_pps": t.offered_pps, "one_way_samples": t.lat_samples, "loss_during": t.loss_ratio,
           "duplicates": t.duplicates, "reordered": t.reordered}
    if t.lat_samples:
        out.update({k.replace("lat_", "one_way_"): getattr(t, k) for k in LATENCY_KEYS})
    return out


def loss_curve(flows: list[Flow], frame: int, st: Settings, steps: list[int] | None = None) -> list[dict]:
    """Frame loss rate (%) at each percentage of the nominal line rate (RFC 2544 26.3)."""
    out = []
    for pct in steps or list(range(10, 101, 10)):
        rate = line_rate_pps(frame, st.line_bps) * pct / 100
        t = trial(flows, frame, rate, st.trial_seconds)
        out.append({"percent": pct, "offered_pps": t.offered_pps, "achieved_pps": t.achieved_pps,
                    "loss_percent": 100 * t.loss_ratio})
        time.sleep(st.pause)
    return out


def back_to_back(flows: list[Flow], frame: int, st: Settings, max_frames: int = 100_000,
                 iterations: int = 6, ceiling_pps: float = 0.0) -> dict:
    """Longest burst without loss (RFC 2544 26.4): each flow sends a burst with its frames
    spaced at the nominal line rate (`p4gen burst --line-mbps`); the burst length is
    binary-searched between 0 and max_frames. Where the generator cannot reach the line rate
    (small frames on a fast line) it sends as fast as it can, and the result says so.
    (`ceiling_pps` is kept for old callers and not needed any more.)"""
    line_pps = line_rate_pps(frame, st.line_bps)
    lo, hi, best = 0, max_frames, 0
    sent_pps: list[float] = []
    trials = []
    for i in range(iterations):
        n = hi if i == 0 else (lo + hi) // 2
        if n <= lo:
            break
        t = burst(flows, frame, n, st.line_bps)
        sent_pps.append(t.achieved_pps / len(flows))
        ok = t.lost == 0 and t.sent > 0 and t.duplicates == 0
        trials.append({"frames": n, "sent": t.sent, "received": t.received, "lost": t.lost,
                       "duplicates": t.duplicates, "achieved_pps": t.achieved_pps, "passed": ok})
        if ok:
            lo, best = n, max(best, n)
            if i == 0:
                break
        else:
            hi = n
        time.sleep(st.pause)
    reached = min(sent_pps) if sent_pps else 0.0
    limited = reached < 0.98 * line_pps
    note = f"frames spaced at the {st.line_bps / 1e6:g} Mb/s line rate ({line_pps:.0f} frames/s per flow)"
    if limited:
        note += f"; the generator reached only {reached:.0f} frames/s"
    return {"burst_frames": best, "max_frames": max_frames, "line_pps": line_pps, "sender_pps": reached,
            "generator_limited": limited, "trials": trials, "note": note}


def pace_proof(rate: float, seconds: float, size: int = 64, prefix: str = "hgen") -> str:
    """`p4gen pace` over a bare veth pair in two fresh namespaces (removed afterwards): per
    second, what the sender handed over and what the receiving veth's kernel counters saw,
    and the latency floor of the generator itself. Returns p4gen's output."""
    if not P4GEN.exists():
        raise BenchError(f"{P4GEN} is missing: run `make build-switch` first")
    a, b = f"{prefix}-a", f"{prefix}-b"
    for ns in (a, b):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    try:
        for cmd in (["netns", "add", a], ["netns", "add", b],
                    ["link", "add", f"{a}0", "netns", a, "type", "veth", "peer", "name", f"{b}0", "netns", b],
                    ["-n", a, "link", "set", f"{a}0", "up"], ["-n", b, "link", "set", f"{b}0", "up"]):
            p = subprocess.run(["ip", *cmd], capture_output=True, text=True)
            if p.returncode != 0:
                raise BenchError(f"ip {' '.join(cmd)}: {p.stderr.strip()}")
        # as in the benchmark topologies: wire-sized frames, checksums filled in by the
        # kernel -- which also lets p4gen hand over each batch as one UDP GSO buffer
        for ns, dev in ((a, f"{a}0"), (b, f"{b}0")):
            subprocess.run(["ip", "netns", "exec", ns, "ethtool", "-K", dev, "tx", "off", "rx", "off", "tso", "off",
                            "gso", "off", "gro", "off"], capture_output=True)
        with capture.once(f"p4gen pace, {rate:g} frames/s, {size} B, {seconds:g} s"):
            p = subprocess.run([str(P4GEN), "pace", "--tx-ns", a, "--tx", f"{a}0", "--rx-ns", b, "--rx", f"{b}0",
                                "--rate", f"{rate:g}", "--seconds", f"{seconds:g}", "--size", str(size - 4)],
                               capture_output=True, text=True, timeout=seconds + 60)
        if p.returncode != 0:
            raise BenchError(f"p4gen pace failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[:300]}")
        return p.stdout
    finally:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import os
    import sys
    ap = argparse.ArgumentParser(prog="python -m bench.rfc2544",
                                 description="The generator's pacing proof on a bare veth pair (needs root).")
    ap.add_argument("--rate", type=float, default=1e6, help="frames per second (default 1000000)")
    ap.add_argument("--seconds", type=float, default=10.0, help="trial length (default 10)")
    ap.add_argument("--size", type=int, default=64, help="frame size with FCS (default 64)")
    ap.add_argument("--prefix", default="hgen", help="namespace name prefix (default hgen)")
    ap.add_argument("--json", type=Path, metavar="FILE",
                    help="also write the result lines, parsed, with the machine, load average and git revision")
    ap.add_argument("--pcap", type=Path, metavar="DIR", help="capture both ends of the veth pair during the trial")
    args = ap.parse_args(argv)
    if not 64 <= args.size <= 9220 or args.rate < 1 or args.seconds <= 0:
        ap.error("--size must be 64..9220, --rate at least 1 and --seconds positive")
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"# p4gen pace, {args.rate:g} frames/s of {args.size} B for {args.seconds:g} s, "
              f"{os.cpu_count()} CPUs, load average {load}")
        capture.arm(args.pcap, args.prefix)
        out = pace_proof(args.rate, args.seconds, args.size, args.prefix)
        print(out, end="")
        if args.json:
            import json
            from .report import loadavg, machine
            m = machine()
            m["loadavg_end"] = loadavg()
            lines = [dict(kv.split("=", 1) for kv in l.split()[1:] if "=" in kv) | {"kind": l.split()[0]}
                     for l in out.splitlines() if "=" in l]
            args.json.write_text(json.dumps({"benchmark": "p4gen pace", "rate": args.rate, "seconds": args.seconds,
                                             "size": args.size, "machine": m, "lines": lines}, indent=1))
    except BenchError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
