"""RFC 2544 measurements over veth, driving the project's paced generator `p4gen`.

`p4gen trial` (switch/p4switch/src/bin/p4gen.rs) sends sequence-numbered UDP frames
at a paced rate from one namespace and counts them in another; this module runs one
`p4gen trial` per flow at once and implements on top of it:
  throughput      binary search for the highest rate whose loss <= tolerance
  latency         round-trip times of ICMP echoes sent through the DUT while
                  the flows run at the throughput rate (p4gen carries no timestamps yet)
  loss curve      frame loss rate at 10 %, 20 %, ... 100 % of the nominal line rate
  back-to-back    longest burst (frames sent at the generator's full speed) with no loss
Frame sizes are Ethernet frames including the 4-byte FCS (64 ... 9216); the generator
is given the size without FCS. Rates in bit/s count frame bits (no preamble/gap),
line rate in frames/s counts the 20 bytes of preamble and gap as RFC 2544 does.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .netns import BenchError, Host, sh

ROOT = Path(__file__).resolve().parent.parent
P4GEN = ROOT / "target" / "release" / "p4gen"
TRIAL_RE = re.compile(r"trial offered_pps=(\d+) achieved_pps=(\d+) sent=(\d+) tx_refused=(\d+) "
                      r"received=(\d+) lost=(\d+) reordered=(\d+)")


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


def trial(flows: list[Flow], frame: int, total_pps: float, seconds: float) -> Trial:
    """All flows at once, each at total_pps / len(flows), for `seconds`."""
    if not P4GEN.exists():
        raise BenchError(f"{P4GEN} is missing: run `make build-switch` first")
    per = max(1, int(total_pps / len(flows)))
    procs = [subprocess.Popen([str(P4GEN), "trial", *_gen_args(f, frame), "--rate", str(per),
                               "--seconds", f"{seconds:g}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for f in flows]
    rows = []
    for p in procs:
        out, err = p.communicate(timeout=seconds + 60)
        m = TRIAL_RE.search(out)
        if p.returncode != 0 or not m:
            raise BenchError(f"p4gen trial failed (exit {p.returncode}): {(err or out).strip()[:300]}")
        rows.append([int(x) for x in m.groups()])
    s = [sum(col) for col in zip(*rows)]
    return Trial(offered_pps=per * len(flows), achieved_pps=s[1], sent=s[2], received=s[4], lost=s[5],
                 reordered=s[6], seconds=seconds)


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


def _ping_rtts(src: Host, dst: Host, count: int, interval: float, size: int) -> list[float]:
    out = sh("ping", "-n", "-c", str(count), "-i", f"{interval:g}", "-W", "1", "-s", str(size), dst.addr,
             ns=src.name, check=False, timeout=count * interval + 30)
    return [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]


def latency(flows: list[Flow], frame: int, pps: float, st: Settings, samples: int = 100) -> dict:
    """RTT percentiles (ms) of echoes from the first flow's source to its destination
    while all flows run at `pps` (RFC 2544 measures one-way latency with tagged frames;
    p4gen has no send timestamps yet, so this is round trip through the DUT twice)."""
    f = flows[0]
    if not f.dst.addr:
        return {}
    interval = max(0.01, st.trial_seconds / samples)
    rtts: list[float] = []
    th = threading.Thread(target=lambda: rtts.extend(
        _ping_rtts(f.src, f.dst, samples, interval, max(16, min(frame, 1500) - 42))))
    th.start()
    load = trial(flows, frame, max(pps, 1), st.trial_seconds + 1) if pps > 0 else None
    th.join()
    if not rtts:
        return {"samples": 0, "loss_during": load.loss_ratio if load else None}
    rtts.sort()
    pick = lambda q: rtts[min(len(rtts) - 1, int(q * len(rtts)))]
    return {"samples": len(rtts), "rtt_p50_ms": pick(0.5), "rtt_p99_ms": pick(0.99), "rtt_max_ms": rtts[-1],
            "rtt_mean_ms": statistics.fmean(rtts), "load_pps": pps}


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
    """Longest burst without loss (RFC 2544 26.4): bursts offered far above what the
    generator can send, so it sends them as fast as it can; the burst length in frames
    is binary-searched between 0 and max_frames."""
    rate = max(ceiling_pps, 1e5) * 10
    lo, hi, best = 0, max_frames, 0
    for i in range(iterations):
        n = hi if i == 0 else (lo + hi) // 2
        if n <= lo:
            break
        t = trial(flows, frame, rate, n / rate)
        if t.lost == 0 and t.sent:
            lo, best = n, max(best, t.sent)
            if i == 0:
                break
        else:
            hi = n
        time.sleep(st.pause)
    return {"burst_frames": best, "max_frames": max_frames,
            "note": "bursts sent at the generator's full speed, not at line rate"}
