"""S2 router chain: throughput, jitter and loss as switch-routers are added in a line.

    python -m bench.s2 [--quick|--standard] [--hops 1,2,3] [--loads 100,200,...,1000] [--duts p4switch,linux,ovs]

Host a (10.0.10.2) - s1 - s2 - ... - sN - host b (10.0.20.2). Every switch is a p4switch
(or $SWITCH) running vrouter.p4 in one switch namespace, all configured by one
`vrouter run` daemon from a generated description: two routed VLANs per switch, /30
subnets between neighbours, static routes to both host subnets. Per hop count: iperf3
UDP at each offered load (received rate, jitter, loss) and iperf3 TCP capped at the same
load (the study ran both at each of its ten loads). Baselines: the same
line of Linux router namespaces, and of Open vSwitch bridges (userspace datapath) whose
OpenFlow rules do each hop's MAC rewrite and TTL decrement. Published: Larasati et al.,
docs/scenarios.md S2. --full (the default): the study's 10 loads, 30 runs of 1 s per point
(its "30 attempts every second"), median and min-max. --standard: the 10 loads once, 3 s per point. --quick: 100, 500, 1000.
Results: bench/results/<stamp>-s2/.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from statistics import median

from . import capture, compare, figures, iperf, published, report
from .common import Progress, dut_names, main_guard, parser, pick, profile, profile_note, repetitions, say, settings
from .dut import ROOT, OvsNetdev, stop_process, switch_command
from .netns import BenchError, Host, Topology, sh

STUDY_REPETITIONS = 30      # Larasati et al.: each test 30 times, averaged
LOADS = [100.0 * i for i in range(1, 11)]


class Chain:
    """N p4switches in one namespace, joined by veth pairs, hosts a and b at the ends."""

    def __init__(self, prefix: str, n: int, workdir: Path):
        self.p, self.n, self.wd = prefix, n, workdir
        self.sw = f"{prefix}-sw"
        self.a = Host(f"{prefix}-a", f"{prefix}-a0", f"{prefix}-s1p1", 1, "02:20:00:00:00:0a",
                      "10.0.10.2/24", "10.0.10.1", 100)
        self.b = Host(f"{prefix}-b", f"{prefix}-b0", f"{prefix}-s{n}p2", 2, "02:20:00:00:00:0b",
                      "10.0.20.2/24", "10.0.20.1", 200)
        self.procs: list[subprocess.Popen] = []
        self.host_mtu = self.core_mtu = 1500     # IP MTU of the host links / the links between switches

    def _veth(self, a: str, ns_a: str, b: str, ns_b: str, mac: str | None = None, mtu: int = 1500) -> None:
        sh("ip", "link", "add", a, "netns", ns_a, *(["address", mac] if mac else []), "type", "veth",
           "peer", "name", b, "netns", ns_b)
        for ns, dev in ((ns_a, a), (ns_b, b)):
            sh("sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1", ns=ns, check=False)
            sh("ip", "-n", ns, "link", "set", dev, "mtu", str(mtu), "up")
            sh("ethtool", "-K", dev, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off",
               ns=ns, check=False)

    def up(self) -> "Chain":
        self.down()
        for ns in (self.sw, self.a.name, self.b.name):
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        self._veth(self.a.dev, self.a.name, self.a.peer, self.sw, self.a.mac, self.host_mtu)
        for k in range(1, self.n):
            self._veth(f"{self.p}-s{k}p2", self.sw, f"{self.p}-s{k + 1}p1", self.sw, mtu=self.core_mtu)
        self._veth(self.b.dev, self.b.name, self.b.peer, self.sw, self.b.mac, self.host_mtu)
        for h in (self.a, self.b):
            sh("ip", "-n", h.name, "addr", "add", h.ip, "dev", h.dev)
            sh("ip", "-n", h.name, "route", "add", "default", "via", h.gateway)
        return self

    def description(self) -> dict:
        switches = {}
        for k in range(1, self.n + 1):
            west = "10.0.10.1/24" if k == 1 else f"10.255.{k - 1}.2/30"
            east = "10.0.20.1/24" if k == self.n else f"10.255.{k}.1/30"
            routes = []
            if k < self.n:
                routes.append({"prefix": "10.0.20.0/24", "via": f"10.255.{k}.2"})
            if k > 1:
                routes.append({"prefix": "10.0.10.0/24", "via": f"10.255.{k - 1}.1"})
            switches[f"s{k}"] = {
                "address": f"127.0.0.1:{9559 + k}", "device_id": 0, "cpu_port": 255,
                "vlans": {100: {"name": "west", "interface": {"address": west, "mac": f"00:00:5e:00:{k:02x}:01",
                                                              "mtu": max(self.core_mtu, self.host_mtu)}},
                          200: {"name": "east", "interface": {"address": east, "mac": f"00:00:5e:00:{k:02x}:02",
                                                              "mtu": max(self.core_mtu, self.host_mtu)}}},
                "ports": {1: {"name": "west", "vlan": 100, "mtu": max(self.core_mtu, self.host_mtu)},
                          2: {"name": "east", "vlan": 200, "mtu": max(self.core_mtu, self.host_mtu)}},
                **({"routes": routes} if routes else {})}
        return {"mac_aging": "300s", "switches": switches}

    def start(self) -> None:
        for k in range(1, self.n + 1):
            cmd = [*switch_command(), "-i", f"1@{self.p}-s{k}p1", "-i", f"2@{self.p}-s{k}p2", "--no-p4", "--",
                   "--grpc-server-addr", f"127.0.0.1:{9559 + k}", "--cpu-port", "255"]
            log = (self.wd / f"s{k}.log").open("w")
            self.procs.append(subprocess.Popen(["ip", "netns", "exec", self.sw, *cmd], stdout=log,
                                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        desc = self.wd / "chain.yaml"
        desc.write_text(yaml.safe_dump(self.description(), sort_keys=False))
        self.description_file = desc
        clog = self.wd / "vrouter.log"
        time.sleep(1.0)
        ctl = subprocess.Popen(["ip", "netns", "exec", self.sw, str(ROOT / ".venv" / "bin" / "vrouter"), "run",
                                str(desc)], stdout=clog.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.append(ctl)
        deadline = time.monotonic() + 60
        while clog.read_text().count("event=reconciled") < self.n:
            if ctl.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"vrouter did not configure the chain; log:\n{clog.read_text()[-1500:]}")
            time.sleep(0.3)
        for _ in range(5):   # the controllers resolve next hops hop by hop
            r = sh("ping", "-n", "-c1", "-W1", self.b.addr, ns=self.a.name, check=False)
            if " 0% packet loss" in r:
                return
            time.sleep(0.5)
        raise BenchError(f"a cannot reach b through {self.n} switches; see {clog}")

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs[:-1]]

    def down(self) -> None:
        for p in reversed(self.procs):
            stop_process(p)
        self.procs = []
        for ns in (self.sw, self.a.name, self.b.name):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


class LinuxChain(Chain):
    """The same line of routers as Linux namespaces PREFIX-r1..rN with IP forwarding."""

    def up(self) -> "LinuxChain":
        self.down()
        rs = [f"{self.p}-r{k}" for k in range(1, self.n + 1)]
        for ns in (self.a.name, self.b.name, *rs):
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        for ns in rs:
            sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=ns)
        self._veth(self.a.dev, self.a.name, f"{self.p}-s1p1", rs[0], self.a.mac, self.host_mtu)
        for k in range(1, self.n):
            self._veth(f"{self.p}-s{k}p2", rs[k - 1], f"{self.p}-s{k + 1}p1", rs[k], mtu=self.core_mtu)
        self._veth(self.b.dev, self.b.name, f"{self.p}-s{self.n}p2", rs[-1], self.b.mac, self.host_mtu)
        for h in (self.a, self.b):
            sh("ip", "-n", h.name, "addr", "add", h.ip, "dev", h.dev)
            sh("ip", "-n", h.name, "route", "add", "default", "via", h.gateway)
        for k, ns in enumerate(rs, 1):
            west = "10.0.10.1/24" if k == 1 else f"10.255.{k - 1}.2/30"
            east = "10.0.20.1/24" if k == self.n else f"10.255.{k}.1/30"
            sh("ip", "-n", ns, "addr", "add", west, "dev", f"{self.p}-s{k}p1")
            sh("ip", "-n", ns, "addr", "add", east, "dev", f"{self.p}-s{k}p2")
            if k < self.n:
                sh("ip", "-n", ns, "route", "add", "10.0.20.0/24", "via", f"10.255.{k}.2")
            if k > 1:
                sh("ip", "-n", ns, "route", "add", "10.0.10.0/24", "via", f"10.255.{k - 1}.1")
        return self

    def start(self) -> None:
        r = sh("ping", "-n", "-c2", "-W1", self.b.addr, ns=self.a.name, check=False)
        if " 0% packet loss" not in r and " 50% packet loss" not in r:
            raise BenchError(f"a cannot reach b through {self.n} Linux routers")

    def down(self) -> None:
        for ns in (self.a.name, self.b.name, *[f"{self.p}-r{k}" for k in range(1, self.n + 1)]):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


class OvsChain(Chain):
    """The same line as N Open vSwitch bridges (userspace datapath, one ovs-vswitchd), joined
    by the same veth pairs, each acting as a router with OpenFlow rules: per direction, IPv4
    to the far subnet gets its source MAC set to the bridge's own port MAC, its destination
    MAC to the next hop's, its TTL decremented, and leaves by the other port (what each
    vrouter.p4 hop does). No ARP: the hosts have static neighbour entries for their gateway
    MACs, and everything else is dropped."""

    def mac(self, dev: str) -> str:
        return sh("cat", f"/sys/class/net/{dev}/address", ns=self.sw).strip()

    def bridge(self, k: int) -> str:
        return f"{self.p}-ovs" if k == 1 else f"{self.p}-ovs{k}"

    def hop_flows(self, k: int) -> list[str]:
        """OpenFlow rules of bridge k (port 1 west, port 2 east)."""
        east_next = self.mac(f"{self.p}-s{k + 1}p1") if k < self.n else self.b.mac
        west_next = self.mac(f"{self.p}-s{k - 1}p2") if k > 1 else self.a.mac
        me_w, me_e = self.mac(f"{self.p}-s{k}p1"), self.mac(f"{self.p}-s{k}p2")
        return [f"priority=100,in_port=1,ip,nw_dst=10.0.20.0/24,actions=mod_dl_src:{me_e},mod_dl_dst:{east_next},"
                "dec_ttl,output:2",
                f"priority=100,in_port=2,ip,nw_dst=10.0.10.0/24,actions=mod_dl_src:{me_w},mod_dl_dst:{west_next},"
                "dec_ttl,output:1"]

    def start(self) -> None:
        if not OvsNetdev.available():
            raise BenchError("Open vSwitch is not installed")
        self.ovs = OvsNetdev(Topology(self.p), self.wd)
        self.ovs._start()                                     # ovsdb + ovs-vswitchd + bridge 1
        for k in range(1, self.n + 1):
            br = self.bridge(k)
            if k > 1:
                self.ovs.vsctl("add-br", br, "--", "set", "bridge", br, "datapath_type=netdev")
            for port in (1, 2):
                dev = f"{self.p}-s{k}p{port}"
                self.ovs.vsctl("add-port", br, dev, "--", "set", "interface", dev, f"ofport_request={port}")
            self.ovs.vsctl("set", "bridge", br, "protocols=OpenFlow10,OpenFlow13")
            self.ovs.ofctl("del-flows", br)
            for f in self.hop_flows(k):
                self.ovs.ofctl("add-flow", br, f)
        sh("ip", "-n", self.a.name, "neigh", "replace", self.a.gateway, "lladdr", self.mac(f"{self.p}-s1p1"),
           "dev", self.a.dev, "nud", "permanent")
        sh("ip", "-n", self.b.name, "neigh", "replace", self.b.gateway, "lladdr",
           self.mac(f"{self.p}-s{self.n}p2"), "dev", self.b.dev, "nud", "permanent")
        time.sleep(1)
        for _ in range(5):
            r = sh("ping", "-n", "-c1", "-W1", self.b.addr, ns=self.a.name, check=False)
            if " 0% packet loss" in r:
                return
            time.sleep(0.5)
        raise BenchError(f"a cannot reach b through {self.n} OVS bridges; see {self.ovs.dir}/vswitchd.log")

    def pids(self) -> list[int]:
        return self.ovs.pids() if getattr(self, "ovs", None) else []

    def down(self) -> None:
        if getattr(self, "ovs", None):
            self.ovs.stop()
            self.ovs = None
        super().down()


def repeated(runs: list[dict], keys: tuple[str, ...]) -> dict:
    """One point from repeated runs: the median of each key, the runs' values in KEY_repetitions."""
    out = dict(runs[len(runs) // 2])
    for k in keys:
        vals = [r[k] for r in runs if r.get(k) is not None]
        if vals:
            out[k] = median(vals)
            if len(runs) > 1:
                out[f"{k}_repetitions"] = vals
    out["repetitions"] = len(runs)
    return out


def sweep(a: Host, b: Host, loads: list[float], secs: float, reps: int = 1, progress: Progress | None = None,
          what: str = "") -> dict:
    """At each offered load: iperf3 UDP (received rate, loss, jitter) and iperf3 TCP capped at
    the load, each `reps` times."""
    out = {"udp": [], "tcp": []}
    for load in loads:
        if progress:
            progress.step(f"{what}, {load:g} Mb/s offered")
        udp = [iperf.start([(a, b, load)], secs)[0] for _ in range(reps)]
        tcp = [iperf.start([(a, b, None)], secs, tcp_mbps=load)[0] for _ in range(reps)]
        u = repeated(udp, ("received_mbps", "lost_percent", "jitter_ms", "sent_mbps"))
        t = repeated(tcp, ("received_mbps", "sent_mbps"))
        out["udp"].append(u)
        out["tcp"].append(t)
        say(f"    {load:g} Mb/s offered: UDP {u['received_mbps']:.1f} received, loss {u['lost_percent']:.2f} %, "
            f"jitter {u['jitter_ms']:.3f} ms; TCP {t['received_mbps']:.1f}" + (f" (medians of {reps})" if reps > 1 else ""))
    return out


def write_report(d: Path, data: dict) -> None:
    m = data["machine"]
    md = [f"# S2 router chain ({data['stamp']})", "",
          report.load_note(m), "",
          f"{report.machine_line(m)}{data.get('profile_note', '')}. iperf3 UDP 1400-byte datagrams and TCP capped at the "
          f"offered load, {data['seconds_per_point']:g} s per point, {data.get('repetitions', 1)} run(s) each "
          "(median; min-max below when more).", "",
          f"Published: {published.citation(published.load('s2'))}: every table beside ours below.", "",
          "Baselines: `linux-router` = one namespace per hop with IP forwarding; `ovs-openflow` = one Open vSwitch "
          "bridge per hop (userspace datapath, all in one ovs-vswitchd, joined by the same veths), whose OpenFlow "
          "rules rewrite the MACs and decrement the TTL as a router hop does; its hosts have static neighbour "
          "entries for their gateways (no ARP responder).", ""]
    rows = []
    for r in data["runs"]:
        tcp = {t["offered_mbps"]: t for t in r["tcp"]} if isinstance(r["tcp"], list) else {}
        for u in r["udp"]:
            rows.append([r["dut"], r["hops"], u["offered_mbps"], compare.cell(u, "received_mbps"),
                         compare.cell(u, "lost_percent"), compare.cell(u, "jitter_ms"),
                         compare.cell(tcp.get(u["offered_mbps"]), "received_mbps")])
        if isinstance(r["tcp"], dict):          # results before TCP ran at each load
            rows.append([r["dut"], r["hops"], "TCP", r["tcp"]["received_mbps"], None, None, None])
    md += [report.md_table(["DUT", "hops", "offered Mb/s", "UDP received Mb/s", "UDP loss %", "jitter ms",
                            "TCP Mb/s"], rows), ""]
    p4 = {r["hops"]: r for r in data["runs"] if r["dut"] == "p4switch"}
    ratios = []
    for r in data["runs"]:
        mine = p4.get(r["hops"])
        if r["dut"] == "p4switch" or not mine:
            continue
        udp_top = lambda x: max((u["received_mbps"] for u in x["udp"]), default=0.0)
        tcp_top = lambda x: (max((t["received_mbps"] for t in x["tcp"]), default=0.0) if isinstance(x["tcp"], list)
                             else x["tcp"]["received_mbps"])
        ratios.append([r["hops"], r["dut"], tcp_top(mine) / tcp_top(r) if tcp_top(r) else None,
                       udp_top(mine) / udp_top(r) if udp_top(r) else None])
    if ratios:
        md += ["Ratios, p4switch / baseline at the same hop count (highest TCP and UDP received rate of the sweep):", "",
               report.md_table(["hops", "baseline", "TCP ratio", "UDP ratio"], ratios), ""]
    md += compare.sections("s2", data)
    md += [f"![{label}]({png.name})" for label, png in figures.make("s2", data, d)] + [""]
    report.write_md(d, md, [(e["what"], e["error"]) for e in data.get("errors", [])])


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--hops", default="1,2,3", help="comma list of chain lengths (default 1,2,3)")
    ap.add_argument("--loads", help="offered loads in Mb/s, UDP and TCP at each (default and standard: 100..1000 "
                    "step 100, the study's ten; quick 100,500,1000)")
    args = ap.parse_args()
    settings(args)
    try:
        hops = [int(x) for x in args.hops.split(",")]
        loads = ([float(x) for x in args.loads.split(",")] if args.loads
                 else pick(args, LOADS, LOADS, [100.0, 500.0, 1000.0]))
    except ValueError:
        raise BenchError("--hops/--loads take comma-separated numbers")
    if any(h < 1 or h > 8 for h in hops):
        raise BenchError("--hops: 1..8 switches")
    # the study: "30 attempts every second" per point, averaged: read as 30 runs of 1 s
    secs = args.trial_seconds or pick(args, 1.0, 3.0, 2.0)
    duts = dut_names(args)
    reps = repetitions(args, STUDY_REPETITIONS)
    capture.arm(args.pcap, args.prefix)
    d = report.new_run("s2", args.out)
    data = {"scenario": "S2", "stamp": d.name, "quick": args.quick, "profile": profile(args),
            "profile_note": profile_note(args), "machine": report.machine(), "seconds_per_point": secs,
            "repetitions": reps, "loads": loads, "runs": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="h10-s2-") as tmp:
        wd = Path(tmp)
        kinds = [(n, c, label) for n, c, label in (("p4switch", Chain, "p4switch"), ("linux", LinuxChain, "linux-router"),
                                                   ("ovs", OvsChain, "ovs-openflow")) if n in duts]
        progress = Progress("S2", len(hops) * len(kinds) * len(loads))
        for n in hops:
            for _, cls, label in kinds:
                say(f"S2 chain of {n} x {label}")
                chain = cls(args.prefix, n, wd)
                try:
                    chain.up()
                    chain.start()
                    data["runs"].append({"dut": label, "hops": n, **sweep(chain.a, chain.b, loads, secs, reps, progress,
                                                                          f"{n} x {label}")})
                except BenchError as e:
                    say(f"  {e}")
                    data.setdefault("errors", []).append({"what": f"{label} chain of {n}", "error": str(e)})
                finally:
                    chain.down()
                report.write_json(d, data)
    report.finish(d, data, t0, "S2", lambda: write_report(d, data), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
