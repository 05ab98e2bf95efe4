"""Ours beside the published, row by row: the Markdown a report gives each study's tables,
and where our method differs, from a scenario's results.json alone (no new run needed).

    sections("s2", data) -> list of Markdown lines
"""
from __future__ import annotations

from statistics import median

from . import published
from .report import md_table

S1_TABLES = {"l2": ("Table 3", "Table 4"), "l3-one": ("Table 5", "Table 6"), "l3-two": ("Table 7", "Table 8")}
S1_LABELS = {"l2": "L2, one VLAN", "l3-one": "L3, one routed flow", "l3-two": "L3, two routed flows"}


def spread(values: list[float]) -> str | None:
    """`median (min–max, n)` of repetitions, or the single value."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    if len(vals) == 1:
        return f"{vals[0]:.1f}"
    return f"{median(vals):.1f} ({min(vals):.1f}–{max(vals):.1f}, n={len(vals)})"


def cell(c: dict | None, key: str, reps_key: str | None = None) -> str | None:
    """A measured value with its spread when the run repeated it (`<key>_repetitions`)."""
    if not c:
        return None
    reps = c.get(reps_key or f"{key}_repetitions")
    if reps:
        return spread(reps)
    v = c.get(key)
    return None if v is None else (f"{v:.3f}" if abs(v) < 1 else f"{v:.1f}")


def pub(v) -> str | None:
    """A published number as the study prints it (no rounding by the table formatter)."""
    return None if v is None else v if isinstance(v, str) else f"{v:g}"


def header(sc: str) -> list[str]:
    ref = published.load(sc)
    m = ref["method"]
    def text(v) -> str:
        if isinstance(v, dict):
            return "; ".join(f"{k}: {text(x)}" for k, x in v.items())
        if isinstance(v, list):
            return ", ".join(str(x) for x in v)
        return str(v)
    bits = [f"{k.replace('_', ' ')}: {text(v)}" for k, v in m.items() if v not in (None, [], {}) and k != "note"]
    return [f"## Published beside ours: {published.citation(ref)}", "",
            "The study's method as published: " + "; ".join(bits) + (f" ({m['note']})" if m.get("note") else "") + ".", ""]


def not_reproduced(sc: str) -> list[str]:
    rows = [[t["source"], t["label"], t["why"]] for t in published.load(sc)["tables"] if not t.get("reproduced", True)]
    return (["Tables of the study not reproduced (kept in bench/reference/):", "",
             md_table(["source", "what", "why not"], rows), ""] if rows else [])


def method_notes(sc: str, data: dict) -> list[str]:
    """Where and why our method differs from the study's, for this run."""
    prof = data.get("profile", "full")
    reps = data.get("repetitions", 1)
    ref = published.load(sc)["method"]
    notes = {
        "s1": [f"we search for the highest zero-loss rate (RFC 2544 throughput) with `p4gen`, the study reports "
               "PassMark's average transfer rate: at small frames ours is the stricter number",
               f"search trials of {data.get('settings', {}).get('trial_seconds', '?')} s"
               + (f", then {reps} runs of {data.get('repeat_seconds', 60):g} s at the rate found (median received "
                  "rate, min-max)" if reps > 1 else ", one search per size")
               + f" (study: {ref['repetitions']} × {ref['trial_seconds']} s per size; `--full` follows it)",
               "veth pairs in namespaces on one host instead of VMs on VMware with 1 GbE NICs; there is no physical "
               "switch, the study's physical series stand beside ours as published"],
        "s2": [f"{data.get('seconds_per_point', '?')} s per point, {reps} repetition(s) "
               f"(study: {ref['repetitions']} repetitions averaged, length not given; `--full` runs 30 × 30 s and "
               "reports the median with min–max)",
               "TCP at each load is iperf3 TCP capped at the offered rate (`-b`), as iperf's bandwidth option does",
               "iperf3 UDP with 1400-byte datagrams; veth links with no line rate instead of QEMU's 1 Gb/s vNICs"],
        "s3": ["the study gives peak VM CPU %; ours is each switch process's average CPU over the run (% of one core) "
               "and CPU seconds per GB; the table shows the busiest switch",
               "iperf3 TCP one stream instead of MikroTik's multi-core bandwidth test; one host, no 10 GbE"],
        "s4": ["the study's host CPU is the hypervisor's; ours is the switch process (the Linux bridge has none: its "
               "work runs in the senders' kernel context), the iperf3 ends' CPU stands for the VMs'",
               "policing by UDP at 1.2 × the limit (the study does not say its offered rate)"],
        "s5": [f"iperf3 TCP with 10 streams for {data.get('tcp_seconds', '?')} s (study: 900 s; "
               "`--full` follows it)",
               "our rule sets are ACL entries (N − 1 that never match, the last one matching); the study's policies "
               "are Fortigate policies whose contents it does not give"],
    }[sc]
    return ["Method differences: " + "; ".join(notes) + f". Profile: {prof}.", ""]


# ---- per scenario ----------------------------------------------------------------------------

def s1(data: dict) -> list[str]:
    ref = published.load("s1")
    out = []
    for case, (vm_src, phys_src) in S1_TABLES.items():
        runs = [r for r in data.get("runs", []) if r["case"] == case]
        if not runs:
            continue
        vm = published.series(published.table(ref, vm_src), "frame_bytes", "mbps")
        phys = published.series(published.table(ref, phys_src), "frame_bytes", "mbps")
        p4 = next((r for r in runs if r["dut"] == "p4switch"), None)
        rows = []
        for size in published.column(published.table(ref, vm_src), "frame_bytes"):
            cells = [r["sizes"].get(str(size)) or r["sizes"].get(size) for r in runs]
            mine = (p4 or {}).get("sizes", {}).get(str(size)) or (p4 or {}).get("sizes", {}).get(size)
            ratio = mine["throughput_mbps"] / vm[size] if mine and mine.get("throughput_mbps") else None
            rows.append([size, *[cell(c, "throughput_mbps") for c in cells], pub(vm[size]), pub(phys[size]),
                         None if ratio is None else f"{ratio:.2f}"])
        out += [f"### {S1_LABELS[case]}: {vm_src} (CHR VM) and {phys_src} (physical switch)", "",
                md_table(["frame B", *[f"{r['dut']} Mb/s" for r in runs], f"published VM ({vm_src})",
                          f"published physical ({phys_src})", "p4switch / VM"], rows), ""]
    return out


def s2_point(run: dict, proto: str, load: float) -> dict | None:
    pts = run.get(proto)
    if isinstance(pts, dict):              # results before TCP ran per load: one uncapped TCP run
        return pts if proto == "tcp" and load == 1000 else None
    return next((p for p in pts or [] if p.get("offered_mbps") == load), None)


def s2(data: dict) -> list[str]:
    ref = published.load("s2")
    t = {k: published.table(ref, k) for k in ("Table V", "Table VI", "unnumbered TCP table (section B3)", "Table VII")}
    jitter1 = published.series(published.table(ref, "Table IV (jitter)"), "offered_mbps", "jitter_ms")
    out = []
    for hops in sorted({r["hops"] for r in data.get("runs", [])}):
        run = next((r for r in data["runs"] if r["hops"] == hops and r["dut"] == "p4switch"), None)
        if not run or hops > 3:
            continue
        col = f"hops{hops}"
        p = {k: {x: pub(y) for x, y in published.series(v, "offered_mbps", col).items()} for k, v in t.items()}
        rows = []
        for load in published.column(t["Table V"], "offered_mbps"):
            u, tc = s2_point(run, "udp", load), s2_point(run, "tcp", load)
            rows.append([load, cell(u, "received_mbps"), p["Table V"][load],
                         cell(u, "jitter_ms"), p["Table VI"][load] if hops > 1 else f"{p['Table VI'][load]} / {pub(jitter1[load])}",
                         cell(u, "lost_percent"), p["Table VII"][load],
                         cell(tc, "received_mbps"), p["unnumbered TCP table (section B3)"][load]])
        out += [f"### {hops} router(s) in the line: p4switch against CSR 1000V", "",
                md_table(["offered Mb/s", "UDP Mb/s", "published (Table V)", "jitter ms",
                          "published (Table VI" + (" / Table IV)" if hops == 1 else ")"), "UDP loss %",
                          "published (Table VII)", "TCP Mb/s", "published TCP (section B3)"], rows), ""]
    if out:
        if any(isinstance(r.get("tcp"), dict) for r in data.get("runs", [])):
            out += ["This run measured TCP once per chain, not capped (it predates TCP at each load): that figure "
                    "stands in the 1000 Mb/s row.", ""]
        out += ["The study's TCP lost nothing at any load (second Table IV); the baselines' rows are in the table "
                "above.", ""]
    return out


def s3(data: dict) -> list[str]:
    ref = published.load("s3")
    rows = []
    for t in ref["tables"]:
        mtu, mode, gbps, cpu = t["rows"][0]
        r = next((r for r in data.get("runs", []) if r.get("dut", "p4switch") == "p4switch" and r["mtu"] == mtu
                  and r["mode"] == mode and r.get("service", "vpls") == "vpls"), None)
        busiest = max((v for v in (r or {}).get("cpu_percent", {}).values() if v is not None), default=None)
        rows.append([mtu, mode, None if not r else f"{r['tcp_mbps'] / 1000:.2f}", pub(gbps),
                     None if busiest is None else f"{busiest:.0f}", pub(cpu), t["source"]])
    return [md_table(["MPLS MTU", "mode", "p4switch VPLS Gb/s", "published Gb/s", "busiest switch CPU %",
                      "published peak VM CPU %", "source"], rows), ""]


S4_VMS = {"VM 1": "a", "VM 2": "b", "VM 3": "c", "VM 4": "d"}


def s4(data: dict) -> list[str]:
    ref = published.load("s4")
    out = []
    iso = data.get("isolation", {})
    if iso:
        rows = []
        for phase in ("before", "after"):
            t = published.table(ref, f"Table 2 ({phase})")
            for row in t["rows"]:
                src = S4_VMS[row[0]]
                for dst_vm, ok in zip(t["columns"][1:], row[1:]):
                    if ok is None:
                        continue
                    pair = f"{src}->{S4_VMS[dst_vm]}"
                    ours = ["yes" if r[phase]["matrix"].get(pair) else "no" for r in iso.values()]
                    rows.append([phase, f"{row[0]} → {dst_vm} ({pair})", "yes" if ok else "no", *ours])
        out += ["### VLAN isolation: Table 2, pair by pair", "",
                md_table(["phase", "pair", "published", *[r.get("dut", n) for n, r in iso.items()]], rows), ""]
    pol = data.get("policing", {})
    if pol:
        t = published.table(ref, "Figure 7 and text")
        unpol = published.table(ref, "Figure 7 and text (unpoliced)")["rows"][0][0]
        rows = [["none", pub(unpol), *[cell(next((x for x in r["runs"] if x["run"] == "unpoliced"), None), "received_mbps")
                                  for r in pol.values()]]]
        for conf, meas in t["rows"]:
            rows.append([conf, pub(meas), *[cell(next((x for x in r["runs"] if x["run"] == "three tenants"
                                                  and x["configured_mbps"] == conf), None), "received_mbps")
                                       for r in pol.values()]])
        out += ["### Policing: Figure 7 (configured limit against measured rate)", "",
                md_table(["limit Mb/s", "published Mb/s", *[f"{r['dut']} Mb/s" for r in pol.values()]], rows), ""]
    cp = data.get("cpu", {})
    if cp:
        vm = {r[0]: r for r in published.table(ref, "Table 3 (VM)")["rows"]}
        host = {r[0]: r for r in published.table(ref, "Table 3 (host)")["rows"]}
        cols = published.table(ref, "Table 3 (VM)")["columns"]
        rows = []
        for proto in ("tcp", "udp"):
            for direction, key in (("send", "sender_cpu_percent"), ("receive", "receiver_cpu_percent")):
                ours = []
                for r in cp.values():
                    x = next((x for x in r["runs"] if x["protocol"] == proto and x.get("phase", "before") == "before"), None)
                    ours += [cell(x, key), cell(x, "dut_cpu_percent") if direction == "send" else None]
                rows.append([proto.upper(), direction,
                             *[pub(t[direction][cols.index(f"{proto}_{sw}")]) for t in (vm, host)
                               for sw in ("linux_bridge", "ovs")], *ours])
        hdr = [h for r in cp.values() for h in (f"{r['dut']}: iperf3 end CPU %", f"{r['dut']}: switch process CPU %")]
        out += ["### CPU: Table 3 (VM and host CPU, Linux bridge against OVS)", "",
                md_table(["proto", "direction", "published VM, Linux bridge", "published VM, OVS",
                          "published host, Linux bridge", "published host, OVS", *hdr], rows), ""]
        fig6 = published.table(ref, "Figure 6 and text")
        rows = []
        for r in cp.values():
            for proto in ("tcp", "udp"):
                b = next((x for x in r["runs"] if x["protocol"] == proto and x.get("phase", "before") == "before"), None)
                a = next((x for x in r["runs"] if x["protocol"] == proto and x.get("phase") == "after"), None)
                if b and a:
                    rows.append([r["dut"], proto.upper(), cell(b, "dut_cpu_percent"), cell(a, "dut_cpu_percent"),
                                 cell(b, "sender_cpu_percent"), cell(a, "sender_cpu_percent")])
        if rows:
            out += ["### CPU before and after VLAN isolation (Figure 6)", "",
                    f"Published (text beside Figure 6): isolation lowered the host's CPU by "
                    f"{fig6['rows'][0][1]} % (send) and {fig6['rows'][0][2]} % (receive), the VMs' by {fig6['rows'][1][1]} %.", "",
                    md_table(["DUT", "proto", "switch CPU % before", "after", "sender CPU % before", "after"], rows), ""]
    return out


def s5(data: dict) -> list[str]:
    ref = published.load("s5")
    t11 = {r[0]: r for r in published.table(ref, "Table 11")["rows"]}
    runs = data.get("runs", [])
    duts = list(dict.fromkeys(r["dut"] for r in runs))
    rows = []
    for rules in sorted({r["rules"] for r in runs} | set(t11)):
        for nat in (False, True):
            published_row = t11.get(rules)
            ours = [cell(next((r for r in runs if r["dut"] == d and r["rules"] == rules and r["stateful"]
                               and bool(r.get("nat")) == nat), None), "tcp10_mbps") for d in duts]
            rows.append([rules, "on" if nat else "off", None if not published_row else pub(published_row[2 if nat else 1]),
                         *ours])
    base = [published.table(ref, "Table 9")["rows"][0][0], published.table(ref, "Table 10")["rows"][0][0]]
    return ["### Stateful firewall by policy count, NAT off and on: Table 11", "",
            md_table(["rules", "NAT", "published Mb/s (Table 11)", *[f"{d} stateful Mb/s" for d in duts]], rows), "",
            f"Published baselines: server to server {base[0]:g} Mb/s (Table 9), VM to VM {base[1]:g} Mb/s (Table 10).", ""]


def sections(sc: str, data: dict) -> list[str]:
    body = {"s1": s1, "s2": s2, "s3": s3, "s4": s4, "s5": s5}[sc](data)
    return header(sc) + body + method_notes(sc, data) + not_reproduced(sc)
