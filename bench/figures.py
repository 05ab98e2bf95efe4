"""Plots for every published figure's axes, ours beside the study's, as PNG and SVG, from a
scenario's results.json alone (no new run needed).

    make("s2", data, out_dir) -> [(title, png path), ...]   (each PNG has an SVG beside it)

S1: throughput by frame size per series (L2, one, two routed flows; the study's CHR VM and
physical switch beside ours). S2: UDP and TCP throughput, jitter and loss by offered load,
one panel per hop count. S3: throughput and CPU per MPLS MTU and null mode. S4: policing
(limit against measured) and CPU (Table 3's send/receive, before and after isolation).
S5: TCP throughput by rule count, NAT off and on.
"""
from __future__ import annotations

from pathlib import Path
from statistics import median

from . import compare, published


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "vrouter-p4"     # the same SVG for the same data: quiet diffs
    import matplotlib.pyplot as plt
    return plt


def _save(fig, out: Path, name: str) -> Path:
    png = out / f"{name}.png"
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    fig.savefig(out / f"{name}.svg", metadata={"Date": None})
    _plt().close(fig)
    return png


def _value(c: dict | None, key: str) -> float | None:
    if not c:
        return None
    reps = c.get(f"{key}_repetitions")
    return median(reps) if reps else c.get(key)


def _errbar(c: dict | None, key: str) -> tuple[float, float]:
    reps = (c or {}).get(f"{key}_repetitions")
    if not reps:
        return (0.0, 0.0)
    m = median(reps)
    return (m - min(reps), max(reps) - m)


def _line(ax, xs, ys, label, pub=False, err=None):
    pts = [(x, y, e) for x, y, e in zip(xs, ys, err or [(0, 0)] * len(xs)) if y is not None]
    if not pts:
        return
    x, y, e = zip(*pts)
    style = dict(linestyle="--", marker="x", markersize=7) if pub else dict(marker="o", markersize=4)
    if any(a or b for a, b in e):
        ax.errorbar(x, y, yerr=list(zip(*e)), capsize=3, label=label, **style)
    else:
        ax.plot(x, y, label=label, **style)


def s1(data: dict, out: Path) -> list[tuple[str, Path]]:
    plt, ref, made = _plt(), published.load("s1"), []
    for case, (vm_src, phys_src) in compare.S1_TABLES.items():
        runs = [r for r in data.get("runs", []) if r["case"] == case]
        if not runs:
            continue
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for r in runs:
            sizes = sorted(int(s) for s in r["sizes"])
            cells = [r["sizes"].get(str(s)) or r["sizes"].get(s) for s in sizes]
            _line(ax, sizes, [_value(c, "throughput_mbps") for c in cells], f"ours: {r['dut']}",
                  err=[_errbar(c, "throughput_mbps") for c in cells])
        for src in (vm_src, phys_src):
            t = published.table(ref, src)
            _line(ax, published.column(t, "frame_bytes"), published.column(t, "mbps"),
                  f"published: {t['label']} ({src})", pub=True)
        ax.set_xscale("log")
        ax.set(title=f"S1 {compare.S1_LABELS[case]}: throughput by frame size", xlabel="frame size (bytes)",
               ylabel="Mb/s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        made.append((f"S1 {compare.S1_LABELS[case]}", _save(fig, out, f"s1-{case}")))
    return made


S2_METRICS = (("throughput", "received Mb/s", "received_mbps", {"udp": "Table V", "tcp": "unnumbered TCP table (section B3)"}),
              ("jitter", "UDP jitter (ms)", "jitter_ms", {"udp": "Table VI"}),
              ("loss", "UDP loss (%)", "lost_percent", {"udp": "Table VII"}))


def s2(data: dict, out: Path) -> list[tuple[str, Path]]:
    plt, ref, made = _plt(), published.load("s2"), []
    runs = data.get("runs", [])
    hops = sorted({r["hops"] for r in runs})
    if not hops:
        return made
    for name, ylabel, key, tables in S2_METRICS:
        fig, axes = plt.subplots(1, len(hops), figsize=(4.2 * len(hops), 4), squeeze=False, sharey=True)
        for ax, h in zip(axes[0], hops):
            for r in (r for r in runs if r["hops"] == h):
                for proto in tables:
                    pts = r.get(proto)
                    pts = [pts] if isinstance(pts, dict) else (pts or [])
                    pts = [p for p in pts if p.get("offered_mbps")]
                    _line(ax, [p["offered_mbps"] for p in pts], [_value(p, key) for p in pts],
                          f"ours: {r['dut']} {proto.upper()}", err=[_errbar(p, key) for p in pts])
            if h <= 3:
                for proto, src in tables.items():
                    t = published.table(ref, src)
                    _line(ax, published.column(t, "offered_mbps"), published.column(t, f"hops{h}"),
                          f"published: CSR 1000V {proto.upper()} ({src.split(' (')[0]})", pub=True)
            ax.set(title=f"{h} router(s)", xlabel="offered load (Mb/s)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=6)
        axes[0][0].set_ylabel(ylabel)
        fig.suptitle(f"S2 router chain: {name} by offered load and hop count")
        made.append((f"S2 {name}", _save(fig, out, f"s2-{name}")))
    return made


def _bars(ax, labels: list[str], groups: dict[str, list], ylabel: str, title: str) -> None:
    n = max(len(groups), 1)
    width = 0.8 / n
    for i, (name, vals) in enumerate(groups.items()):
        ax.bar([x + i * width for x in range(len(labels))], [v or 0 for v in vals], width, label=name,
               hatch="//" if name.startswith("published") else None)
    ax.set_xticks([x + width * (n - 1) / 2 for x in range(len(labels))], labels, fontsize=8)
    ax.set(title=title, ylabel=ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def s3(data: dict, out: Path) -> list[tuple[str, Path]]:
    plt, ref = _plt(), published.load("s3")
    runs = data.get("runs", [])
    keys = [(t["rows"][0][0], t["rows"][0][1]) for t in ref["tables"]]
    mtus = sorted({r["mtu"] for r in runs} | {m for m, _ in keys})
    modes = ["implicit-null", "explicit-null"]
    labels = [f"{m}\n{mode}" for m in mtus for mode in modes]
    pub = {(t["rows"][0][0], t["rows"][0][1]): t["rows"][0] for t in ref["tables"]}

    def ours(dut: str, f) -> list:
        vals = []
        for m in mtus:
            for mode in modes:
                r = next((r for r in runs if r.get("dut", "p4switch") == dut and r["mtu"] == m
                          and r["mode"] in (mode, "no MPLS") and r.get("service", "vpls") in ("vpls", "ip", "-")), None)
                vals.append(f(r) if r else None)
        return vals
    duts = list(dict.fromkeys(r.get("dut", "p4switch") for r in runs))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    thr = {f"ours: {d}": ours(d, lambda r: r["tcp_mbps"] / 1000) for d in duts}
    thr["published: CHR VPLS"] = [pub.get((m, mode), [0, 0, None])[2] for m in mtus for mode in modes]
    _bars(a1, labels, thr, "Gb/s", "throughput per MPLS MTU and null mode")
    cpu = {f"ours: {d} (busiest switch)": ours(d, lambda r: max((v for v in r.get("cpu_percent", {}).values()
                                                                 if v is not None), default=None)) for d in duts}
    cpu["published: CHR peak VM CPU"] = [pub.get((m, mode), [0, 0, 0, None])[3] for m in mtus for mode in modes]
    _bars(a2, labels, cpu, "CPU %", "CPU per MPLS MTU and null mode")
    fig.suptitle("S3 MPLS PE - P - PE with VPLS")
    return [("S3 throughput and CPU", _save(fig, out, "s3-mpls"))]


def s4(data: dict, out: Path) -> list[tuple[str, Path]]:
    plt, ref, made = _plt(), published.load("s4"), []
    pol = data.get("policing", {})
    if pol:
        t = published.table(ref, "Figure 7 and text")
        limits = [None] + published.column(t, "configured_mbps")
        labels = ["unpoliced"] + [f"{m} Mb/s" for m in limits[1:]]
        groups = {}
        for r in pol.values():
            vals = []
            for m in limits:
                x = next((x for x in r["runs"] if (m is None and x["run"] == "unpoliced")
                          or (x["run"] == "three tenants" and x["configured_mbps"] == m)), None)
                vals.append(_value(x, "received_mbps"))
            groups[f"ours: {r['dut']}"] = vals
        groups["published: OVS (Figure 7)"] = [published.table(ref, "Figure 7 and text (unpoliced)")["rows"][0][0]] + \
            published.column(t, "measured_mbps")
        groups["configured limit"] = [None] + limits[1:]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        _bars(ax, labels, groups, "Mb/s", "S4 ingress policing: limit against measured rate")
        made.append(("S4 policing", _save(fig, out, "s4-policing")))
    cp = data.get("cpu", {})
    if cp:
        host = published.table(ref, "Table 3 (host)")
        cols = host["columns"]
        labels = [f"{p.upper()} {d}" for p in ("tcp", "udp") for d in ("send", "receive")]
        groups = {}
        for r in cp.values():
            for phase in ("before", "after"):
                vals = []
                for p in ("tcp", "udp"):
                    x = next((x for x in r["runs"] if x["protocol"] == p and x.get("phase", "before") == phase), None)
                    vals += [_value(x, "sender_cpu_percent"), _value(x, "receiver_cpu_percent")]
                if any(v is not None for v in vals):
                    groups[f"ours: {r['dut']} iperf3 ends, {phase} isolation"] = vals
        for sw in ("linux_bridge", "ovs"):
            groups[f"published: host, {sw.replace('_', ' ')} (Table 3)"] = [
                row[cols.index(f"{p}_{sw}")] for p in ("tcp", "udp") for row in host["rows"]]
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [3, 2]})
        _bars(a1, labels, groups, "CPU %", "CPU for TCP and UDP send / receive")
        sw = {}
        for r in cp.values():
            sw[f"ours: {r['dut']}"] = [_value(next((x for x in r["runs"] if x["protocol"] == p
                                                     and x.get("phase", "before") == ph), None), "dut_cpu_percent")
                                        for p in ("tcp", "udp") for ph in ("before", "after")]
        _bars(a2, [f"{p.upper()} {ph}" for p in ("tcp", "udp") for ph in ("before", "after")], sw, "CPU %",
              "switch process CPU, before / after isolation")
        fig.suptitle("S4 CPU (Table 3, Figure 6)")
        made.append(("S4 CPU", _save(fig, out, "s4-cpu")))
    return made


def s5(data: dict, out: Path) -> list[tuple[str, Path]]:
    plt, ref = _plt(), published.load("s5")
    runs = data.get("runs", [])
    if not runs:
        return []
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for dut in dict.fromkeys(r["dut"] for r in runs):
        for stateful, nat in ((False, False), (True, False), (True, True)):
            pts = sorted((r["rules"], _value(r, "tcp10_mbps")) for r in runs if r["dut"] == dut
                         and r["stateful"] == stateful and bool(r.get("nat")) == nat)
            if pts:
                _line(ax, [p[0] for p in pts], [p[1] for p in pts],
                      f"ours: {dut}, stateful {'on' if stateful else 'off'}, NAT {'on' if nat else 'off'}")
    t = published.table(ref, "Table 11")
    for col, label in (("no_nat_mbps", "NAT off"), ("nat_mbps", "NAT on")):
        _line(ax, published.column(t, "policies"), published.column(t, col), f"published: Fortigate-VM, {label} (Table 11)",
              pub=True)
    ax.set_xscale("log")
    ax.set(title="S5 firewall: iperf3 TCP (10 streams) by rule count, NAT off and on", xlabel="rules (policies)",
           ylabel="Mb/s")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return [("S5 rules x NAT", _save(fig, out, "s5-rules-nat"))]


def make(sc: str, data: dict, out: Path) -> list[tuple[str, Path]]:
    out.mkdir(parents=True, exist_ok=True)
    return {"s1": s1, "s2": s2, "s3": s3, "s4": s4, "s5": s5}[sc](data, out)
