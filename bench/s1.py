"""S1 campus core: RFC 2544 throughput of L2 (one VLAN), L3 one routed flow and L3 two routed flows.

    python -m bench.s1 [--quick|--standard] [--sizes 64,1518,9136] [--cases l2,l3-one,l3-two] [--duts p4switch,linux,ovs]

Each case runs on every DUT in the same run (p4switch with vrouter.p4 configured by the
vrouter controller; the Linux kernel: bridge for L2, namespace routing for L3; OVS
userspace datapath for L2 only), at each frame size: throughput (binary search for the
highest zero-loss rate), round-trip latency at that rate, and for --extras-sizes the
frame-loss curve and the back-to-back burst. The published figures (Marcel, docs/scenarios.md
S1) stand beside ours in the report. Results: bench/results/<stamp>-s1/.

--full (the default): the study's method, 16 sizes on every DUT; after each size's search
(10 s trials, 1 %) 3 runs of 60 s at the rate found, as the study ran each size; the report
gives their median received rate and min-max. --standard: all 16 sizes with 2 s trials and 2 % resolution; each size's search starts
from the previous size's result instead of at line rate, and latency comes from the
search's passing trial at the throughput rate; the loss curve (10, 50, 100 %) and back-to-back only at 64 B; the
baselines (Linux, OVS) run 5 of the sizes (64, 512, 1518, 4016, 9136), p4switch all 16.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from statistics import median

from . import capture, compare, figures, published, report, rfc2544
from .common import (choose, DUTS, Progress, dut_names, main_guard, parser, pick, profile, profile_note,
                     repetitions, say, settings, throughput_from)
from .dut import l3_plan
from .netns import BenchError, Topology

SIZES = [64, 128, 256, 512, 768, 1024, 1280, 1518, 1522, 1600, 1728, 2496, 3584, 4016, 9104, 9136]
QUICK_SIZES = [64, 1518, 9136]
STANDARD_BASELINE_SIZES = [64, 512, 1518, 4016, 9136]   # --standard: the baselines at 5 of the 16 sizes
CASES = {"l2": "L2, one VLAN", "l3-one": "L3, one routed flow", "l3-two": "L3, two routed flows"}
STUDY_REPETITIONS, STUDY_TRIAL_SECONDS = 3, 60.0     # Marcel, Table 1: each size 3 times, 60 s each


def build(case: str, prefix: str, mtu: int) -> Topology:
    t = Topology(prefix, mtu)
    n = 4 if case == "l3-two" else 2
    for i in range(n):
        t.add_host("abcd"[i])
    if case == "l2":
        for i, h in enumerate(t.hosts):
            h.ip = f"10.0.0.{i + 1}/24"
    else:
        l3_plan(t)
    return t


def run_case(case: str, dut_name: str, sizes: list[int], extras: list[int], st, args, workdir: Path,
             known: dict[int, float] | None = None, progress: Progress | None = None, reps: int = 1,
             repeat_seconds: float = 60.0) -> dict:
    """One case on one DUT at every size: the throughput search, then (reps > 1) `reps` runs of
    `repeat_seconds` at the rate found, as the study ran each size (repeat_at). `known`: this
    DUT's results (size -> pps) from earlier cases, the seed of the first size's search under
    --standard (updated with this case's)."""
    known = {} if known is None else known
    mtu = 9200 if max(sizes) > 1518 else 1500
    topo = build(case, args.prefix, mtu)
    out = {"case": case, "dut": dut_name, "sizes": {}}
    with topo:
        dut = DUTS[dut_name](topo, workdir)
        try:
            dut.l2() if case == "l2" else dut.l3()
            out["dut"] = dut.name
            dut.warm_up()
            h = topo.hosts
            pairs = [(h[0], h[1])] + ([(h[2], h[3])] if case == "l3-two" else [])
            flows = [rfc2544.Flow(a, b, b.mac if case == "l2" else dut.gateway_mac(a)) for a, b in pairs]
            seeded = profile(args) == "standard"
            seed = known.get(sizes[0]) if sizes else None
            for k, size in enumerate(sizes):
                if progress:
                    progress.step(f"{case} on {dut.name}, {size} B")
                s = throughput_from(flows, size, st, seed if seeded else None, progress=say)
                seed = s.throughput_pps or None
                if seed:
                    known[size] = seed
                row = {"throughput_pps": s.throughput_pps, "throughput_mbps": s.throughput_mbps,
                       "generator_limited": s.generator_limited, "trials": s.trials}
                if reps > 1 and s.throughput_pps:
                    row.update(repeat_at(flows, size, s.throughput_pps, reps, repeat_seconds))
                if seeded:
                    row["latency"] = latency_of_search(s)
                else:
                    row["latency"] = rfc2544.latency(flows, size, s.throughput_pps, st,
                                                     samples=pick(args, 100, 50, 20))
                if size in extras:
                    steps = pick(args, None, [10, 50, 100], [10, 50, 100])
                    row["loss_curve"] = rfc2544.loss_curve(flows, size, st, steps)
                    row["back_to_back"] = rfc2544.back_to_back(
                        flows, size, st, max_frames=pick(args, 200_000, 50_000, 20_000),
                        iterations=pick(args, 8, 4, 3),
                        ceiling_pps=max(t.get("achieved_pps", 0.0) for t in s.trials))
                out["sizes"][size] = row
        finally:
            dut.stop()
    return out


def repeat_at(flows, size: int, pps: float, reps: int, seconds: float) -> dict:
    """The study's repetitions (Marcel, Table 1: each size 3 times for 60 s): `reps` trials of
    `seconds` at the searched throughput rate; the received rate of each (frames that arrived
    per second, in Mb/s) and their median replace the search's value, with the loss of each."""
    runs = []
    for k in range(reps):
        t = rfc2544.trial(flows, size, pps, seconds)
        runs.append(t)
        say(f"    repetition {k + 1}/{reps}: {seconds:g} s at {pps:.0f} pps, received {t.received}, lost {t.lost}")
    mbps = [rfc2544.mbps(t.received / t.seconds, size) if t.seconds else 0.0 for t in runs]
    return {"throughput_mbps": median(mbps), "throughput_pps": median(t.received / t.seconds for t in runs if t.seconds),
            "throughput_mbps_repetitions": mbps, "repetition_seconds": seconds,
            "repetition_loss_percent": [100 * t.loss_ratio for t in runs], "search_mbps": rfc2544.mbps(pps, size)}


def latency_of_search(s) -> dict:
    """One-way latency of the search's best passing trial: a full trial at the throughput
    rate, so --standard needs no extra trial for it (same keys as rfc2544.latency)."""
    best = max((t for t in s.trials if t.get("passed")), key=lambda t: t["offered_pps"], default=None)
    if best is None or not best.get("lat_samples"):
        return {}
    out = {"method": "one-way, tagged frames of the search's last passing trial at the throughput rate",
           "load_pps": best["offered_pps"], "one_way_samples": best["lat_samples"], "loss_during": 0.0,
           "duplicates": best.get("duplicates", 0), "reordered": best.get("reordered", 0)}
    out.update({k.replace("lat_", "one_way_"): v for k, v in best.items()
                if k.startswith("lat_") and k != "lat_samples"})
    return out


def mark(cell: dict, line_pps: float) -> str:
    if cell["throughput_pps"] >= line_pps * 0.999:
        return " (line)"
    return "*" if cell["generator_limited"] else ""


def write_report(d: Path, data: dict, st) -> None:
    ref = published.load("s1")
    md = [f"# S1 campus core: RFC 2544 throughput ({data['stamp']})", "",
          report.load_note(data["machine"]), "",
          f"{report.machine_line(data['machine'])}. Trials {st.trial_seconds:g} s, resolution {100 * st.resolution:g} %, "
          f"loss tolerance {100 * st.loss_tolerance:g} %"
          + (f"; then {data['repetitions']} runs of {data.get('repeat_seconds', 60):g} s at the rate found per size, "
             "the median received rate and min-max reported" if data.get("repetitions", 1) > 1 else "")
          + f"{data.get('profile_note', '')}.",
          "Throughput = highest offered rate with no loss found by binary search with the `p4gen` "
          "generator over veth pairs; Mb/s count frame bits including FCS. `*` = the generator could "
          "not offer more (the DUT was not the limit); `(line)` = no loss at the nominal line rate, the "
          "search's upper bound. Latency = one-way, from the send time stamp each generated frame "
          "carries to the receiver's kernel time stamp, over one trial at the throughput rate (µs).", ""]
    if data.get("profile") == "standard":
        md += ["Standard profile: each frame size's search starts from the previous size's zero-loss rate "
               f"(first trial there, then up or down in growing steps until a pass and a fail bracket it, "
               f"then bisection to {100 * st.resolution:g} %) instead of a full binary search from line rate, "
               f"{st.trial_seconds:g} s trials instead of the study's 60 s, latency taken from the search's "
               "passing trial at the throughput rate (no extra trial), the frame-loss curve at 10/50/100 % only, and the baselines at "
               f"{', '.join(str(x) for x in data.get('baseline_sizes', []))} B only (p4switch at all sizes). Numbers from a quiet machine and full "
               "trials (`python -m bench.s1`) are the ones to quote.", ""]
    md += [f"Published: {published.citation(ref)}; the CHR VM's series (tables 3, 5, 7) beside ours below, "
           "every published series in \"Published beside ours\".", ""]
    for case, label in CASES.items():
        runs = [r for r in data["runs"] if r["case"] == case]
        if not runs:
            continue
        duts = [r["dut"] for r in runs]
        vm_table = published.table(ref, compare.S1_TABLES[case][0])
        pub = published.series(vm_table, "frame_bytes", "mbps")
        header = ["frame B"] + [f"{n} Mb/s" for n in duts] + [f"published VM Mb/s ({vm_table['source']})"]
        header += [f"{duts[0]}/{n}" for n in duts[1:]] + [f"{duts[0]} latency p50/p99 µs"]
        rows = []
        sizes = sorted({int(s) for r in runs for s in r["sizes"]})
        for size in sizes:
            cells = [r["sizes"].get(size) or r["sizes"].get(str(size)) for r in runs]
            vals = [c["throughput_mbps"] if c else None for c in cells]
            line = rfc2544.line_rate_pps(size, st.line_bps)
            row = [size] + [None if v is None else f"{compare.cell(c, 'throughput_mbps')}{mark(c, line)}"
                            for v, c in zip(vals, cells)]
            row.append(compare.pub(pub.get(size)))
            row += [f"{vals[0] / v:.2f}" if v and vals[0] is not None else None for v in vals[1:]]
            lat = (cells[0] or {}).get("latency") or {}
            if lat.get("one_way_samples"):
                row.append(f"{lat['one_way_p50_us']:.0f}/{lat['one_way_p99_us']:.0f}")
            elif lat.get("samples"):     # results written before p4gen had time stamps: ping round trips
                row.append(f"RTT {1000 * lat['rtt_p50_ms']:.0f}/{1000 * lat['rtt_p99_ms']:.0f}")
            else:
                row.append(None)
            rows.append(row)
        md += [f"## {label}", "", report.md_table(header, rows), ""]
        for r in runs:
            for size, c in r["sizes"].items():
                if "loss_curve" in c:
                    curve = ", ".join(f"{p['percent']} %: {p['loss_percent']:.1f} % (generator sent "
                                      f"{100 * p['achieved_pps'] / p['offered_pps']:.0f} % of it)"
                                      for p in c["loss_curve"])
                    md.append(f"- {r['dut']}, {size} B: frame loss at % of {st.line_bps / 1e6:g} Mb/s line rate "
                              f"(offered): {curve}; back-to-back {c['back_to_back']['burst_frames']} frames "
                              f"({c['back_to_back']['note']})")
        md.append("")
    md += compare.sections("s1", data)
    md += [f"![{label}]({png.name})" for label, png in figures.make("s1", data, d)] + [""]
    report.write_md(d, md, [(f"{e['case']} on {e['dut']}", e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--sizes", help="comma list of frame sizes in bytes incl. FCS (default: the 16 of the study; "
                    "quick: 64,1518,9136)")
    ap.add_argument("--cases", default=",".join(CASES), help="comma list of l2, l3-one, l3-two")
    ap.add_argument("--baseline-sizes", help="sizes measured on the baselines (linux, ovs); default: the same as "
                    "--sizes; standard: " + ",".join(map(str, STANDARD_BASELINE_SIZES)))
    ap.add_argument("--repeat-seconds", type=float,
                    help="length of each repetition at the throughput rate (default 60, the study's)")
    ap.add_argument("--extras-sizes", help="sizes that also get the loss curve and back-to-back (default 64,1518; "
                    "standard and quick: 64)")
    args = ap.parse_args()
    st = settings(args)
    args.repeat_seconds = args.repeat_seconds or STUDY_TRIAL_SECONDS
    try:
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else (QUICK_SIZES if args.quick else SIZES)
        extras = ([int(x) for x in args.extras_sizes.split(",") if x] if args.extras_sizes is not None
                  else pick(args, [64, 1518], [64], [64]))
        if args.baseline_sizes:
            base_sizes = [int(x) for x in args.baseline_sizes.split(",")]
        elif profile(args) == "standard" and not args.sizes:
            base_sizes = STANDARD_BASELINE_SIZES
        else:
            base_sizes = sizes
    except ValueError:
        raise BenchError("--sizes/--baseline-sizes/--extras-sizes take comma-separated integers")
    bad = [s for s in sizes + base_sizes if not 64 <= s <= 9216]
    if bad:
        raise BenchError(f"frame sizes must be 64..9216 bytes (got {bad})")
    cases = choose(args.cases, CASES, "--cases")
    duts = dut_names(args)
    reps = repetitions(args, STUDY_REPETITIONS)
    capture.arm(args.pcap, args.prefix)
    d = report.new_run("s1", args.out)
    data = {"scenario": "S1", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "machine": report.machine(), "repetitions": reps,
            "repeat_seconds": args.repeat_seconds,
            "settings": vars(st), "sizes": sizes, "baseline_sizes": base_sizes, "extras": extras, "runs": []}
    t0 = time.monotonic()
    plan = [(case, name) for case in cases for name in duts if name != "ovs" or case == "l2"]
    known: dict[str, dict[int, float]] = {}
    progress = Progress("S1", sum(len(sizes if name == "p4switch" else base_sizes) for _, name in plan))
    with tempfile.TemporaryDirectory(prefix="h10-s1-") as tmp:
        for k, (case, name) in enumerate(plan):
            run_sizes = sizes if name == "p4switch" else base_sizes
            say(f"S1 case {k + 1} of {len(plan)}: {case} on {name}, {len(run_sizes)} sizes")
            try:
                data["runs"].append(run_case(case, name, run_sizes, extras, st, args, Path(tmp),
                                             known.setdefault(name, {}), progress, reps, args.repeat_seconds))
            except BenchError as e:
                say(f"  {name}: {e}")
                data.setdefault("errors", []).append({"case": case, "dut": name, "error": str(e)})
            report.write_json(d, data)
    report.finish(d, data, t0, "S1", lambda: write_report(d, data, st), args.json)
    return 1 if data.get("errors") and not data["runs"] else 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
