"""Devices under test, each set up in the switch namespace of a `Topology`.

Every adapter offers the same three modes so one scenario can run on all of them
in the same run:
  l2(vlan_of)            hosts in VLANs (dict host -> VLAN id); same VLAN = one broadcast domain
  l3(subnets)            every host in its own routed subnet, the DUT routes between them
and `gateway_mac(host)` (the MAC a routed frame must be addressed to), `pids()`
(processes whose CPU time is the DUT's cost) and `stop()`.

  P4Switch   p4switch (or $SWITCH, e.g. BMv2 simple_switch_grpc) running vrouter.p4,
             configured by `vrouter run` from a generated description
  LinuxKernel  a Linux bridge (vlan_filtering for VLANs) / namespace routing
  OvsNetdev  Open vSwitch, userspace datapath (datapath_type=netdev), private ovsdb
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from .netns import BenchError, Host, Topology, sh

ROOT = Path(__file__).resolve().parent.parent
ROUTER_MAC = "00:00:5e:00:01:{:02x}"


def switch_command() -> list[str]:
    if os.environ.get("SWITCH"):
        return shlex.split(os.environ["SWITCH"])
    return [str(ROOT / "target" / "release" / "p4switch")]


def stop_process(p: subprocess.Popen) -> None:
    """Interrupt a process we started (SIGINT), killing it if it has not exited within 5 s."""
    if p.poll() is None:
        p.send_signal(2)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def l3_plan(topo: Topology, vlan_base: int = 10) -> None:
    """Give host i its own VLAN/subnet 10.0.V.2/24 with the router at .1."""
    for i, h in enumerate(topo.hosts):
        v = vlan_base * (i + 1)
        h.vlan, h.ip, h.gateway = v, f"10.0.{v}.2/24", f"10.0.{v}.1"


class Dut:
    name = "dut"

    def __init__(self, topo: Topology, workdir: Path):
        self.topo, self.workdir = topo, workdir
        self.routed = False

    def gateway_mac(self, h: Host) -> str:
        raise NotImplementedError

    def pids(self) -> list[int]:
        return []

    def stop(self) -> None:
        pass

    def warm_up(self) -> None:
        """Every host pings its peers (and gateway) so every table is resolved and learned."""
        for h in self.topo.hosts:
            if h.gateway:
                sh("ping", "-n", "-c1", "-W1", h.gateway, ns=h.name, check=False)
        for a in self.topo.hosts:
            for b in self.topo.hosts:
                if a is not b and a.ip:
                    sh("ping", "-n", "-c2", "-i0.2", "-W1", b.addr, ns=a.name, check=False)


class LinuxKernel(Dut):
    name = "linux"

    def l2(self, vlan_of: dict[str, int] | None = None) -> "LinuxKernel":
        """One bridge per VLAN (access ports only; this kernel has no bridge VLAN filtering)."""
        sw = self.topo.sw
        vlan_of = vlan_of or {h.name: 0 for h in self.topo.hosts}
        self.bridges = []
        for v in sorted(set(vlan_of.values())):
            br = f"{self.topo.prefix}-br{v}"
            sh("ip", "-n", sw, "link", "add", br, "type", "bridge")
            self.bridges.append(br)
            for h in self.topo.hosts:
                if vlan_of[h.name] == v:
                    sh("ip", "-n", sw, "link", "set", h.peer, "master", br)
            sh("ip", "-n", sw, "link", "set", br, "mtu", str(self.topo.mtu), "up")
        self.name = "linux-bridge"
        time.sleep(0.5)
        return self

    def l3(self) -> "LinuxKernel":
        sw = self.topo.sw
        sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=sw)
        for h in self.topo.hosts:
            sh("ip", "-n", sw, "addr", "add", f"{h.gateway}/24", "dev", h.peer)
        self.routed, self.name = True, "linux-router"
        return self

    def gateway_mac(self, h: Host) -> str:
        out = sh("cat", f"/sys/class/net/{h.peer}/address", ns=self.topo.sw)
        return out.strip()

    def stop(self) -> None:
        for br in getattr(self, "bridges", []):
            sh("ip", "-n", self.topo.sw, "link", "del", br, check=False)
        self.bridges = []


class P4Switch(Dut):
    """p4switch (or $SWITCH) with vrouter.p4, configured by the vrouter daemon in the switch namespace."""

    def __init__(self, topo: Topology, workdir: Path, ctl_args: tuple[str, ...] = (),
                 switch_args: tuple[str, ...] = ()):
        super().__init__(topo, workdir)
        self.name = "bmv2" if "simple_switch" in " ".join(switch_command()) else "p4switch"
        self.proc: subprocess.Popen | None = None
        self.ctl: subprocess.Popen | None = None
        self.ctl_args = ctl_args      # extra `vrouter run` options, e.g. ("--sched", "idle")
        # extra p4switch options, e.g. ("--control-sched", "idle"); not for $SWITCH=simple_switch_grpc
        self.switch_args = switch_args if self.name == "p4switch" else ()
        self.desc: dict = {}

    def _start(self, desc: dict) -> None:
        self.desc = desc
        path = self.workdir / f"{self.name}-vrouter.yaml"
        path.write_text(yaml.safe_dump(desc, sort_keys=False))
        cmd = [*switch_command()] + [a for h in self.topo.hosts for a in ("-i", f"{h.port}@{h.peer}")]
        cmd += self.switch_args
        cmd += ["--no-p4", "--", "--grpc-server-addr", "127.0.0.1:9559", "--cpu-port", "255"]
        log = (self.workdir / f"{self.name}.log").open("w")
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.topo.sw, *cmd], stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        clog = self.workdir / f"{self.name}-vrouter.log"
        vrouter = ROOT / ".venv" / "bin" / "vrouter"
        time.sleep(0.3)
        self.ctl = subprocess.Popen(["ip", "netns", "exec", self.topo.sw, str(vrouter), "run", *self.ctl_args, str(path)],
                                    stdout=clog.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 40
        while "event=reconciled" not in clog.read_text():
            if self.proc.poll() is not None:
                raise BenchError(f"{self.name} exited ({self.proc.returncode}); see {log.name}")
            if self.ctl.poll() is not None and "connect failed" not in clog.read_text():
                tail = [l for l in clog.read_text().splitlines() if "level=INFO" not in l][-3:]
                raise BenchError(f"vrouter run exited: {' | '.join(tail)[-600:]}")
            if time.monotonic() > deadline:
                raise BenchError(f"vrouter did not reconcile within 40 s; see {clog}")
            if self.ctl.poll() is not None:   # switch not listening yet: start the daemon again
                time.sleep(0.3)
                self.ctl = subprocess.Popen(["ip", "netns", "exec", self.topo.sw, str(vrouter), "run", *self.ctl_args, str(path)],
                                            stdout=clog.open("w"), stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
            time.sleep(0.2)

    def _switch(self, vlans: dict, ports: dict, **extra) -> dict:
        return {"mac_aging": "300s", **({"policers": extra.pop("policers")} if "policers" in extra else {}),
                "switches": {"s1": {"address": "127.0.0.1:9559", "device_id": 0, "cpu_port": 255,
                                    "vlans": vlans, "ports": ports, **extra}}}

    def l2(self, vlan_of: dict[str, int] | None = None, policers: dict | None = None,
           port_policer: dict[str, str] | None = None) -> "P4Switch":
        vlan_of = vlan_of or {h.name: 10 for h in self.topo.hosts}
        vlans = {v: {"name": f"v{v}"} for v in sorted(set(vlan_of.values()))}
        ports = {}
        for h in self.topo.hosts:
            # no port MTU: vrouter.p4 checks it only on routed packets (the controller rejects it here)
            ports[h.port] = {"name": h.name, "vlan": vlan_of[h.name]}
            if port_policer and h.name in port_policer:
                ports[h.port]["policer"] = port_policer[h.name]
        statics = [{"vlan": vlan_of[h.name], "mac": h.mac, "port": h.port} for h in self.topo.hosts]
        extra = {"static_macs": statics}
        if policers:
            extra["policers"] = policers
        self._start(self._switch(vlans, ports, **extra))
        return self

    def l3(self, **extra) -> "P4Switch":
        """Every host in its own VLAN with a router interface; `extra` goes into the switch's
        description as is (acl, firewall, routes ...)."""
        vlans, ports = {}, {}
        for h in self.topo.hosts:
            vlans[h.vlan] = {"name": f"v{h.vlan}", "interface": {
                "address": f"{h.gateway}/24", "mac": ROUTER_MAC.format(h.vlan),
                "mtu": min(max(self.topo.mtu, 1500), 9216)}}
            ports[h.port] = {"name": h.name, "vlan": h.vlan, "mtu": min(max(self.topo.mtu, 1500), 9216)}
        self._start(self._switch(vlans, ports, **extra))
        self.routed = True
        return self

    def reconfigure(self, desc: dict) -> None:
        """Rewrite the description; the daemon re-reads it and writes the difference."""
        path = self.workdir / f"{self.name}-vrouter.yaml"
        path.write_text(yaml.safe_dump(desc, sort_keys=False))
        if self.ctl:
            self.ctl.send_signal(1)   # SIGHUP: reload now
        time.sleep(2)

    def gateway_mac(self, h: Host) -> str:
        return ROUTER_MAC.format(h.vlan)

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc else []

    def stop(self) -> None:
        for p in (self.ctl, self.proc):
            if p:
                stop_process(p)
        self.ctl = self.proc = None


class OvsNetdev(Dut):
    """Open vSwitch with the userspace datapath; a private ovsdb/vswitchd under the work directory."""
    name = "ovs-netdev"

    @staticmethod
    def available() -> bool:
        return all(shutil.which(t) for t in ("ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovsdb-tool"))

    def __init__(self, topo: Topology, workdir: Path):
        super().__init__(topo, workdir)
        self.dir = Path(tempfile.mkdtemp(prefix=f"{topo.prefix}-ovs-", dir="/tmp"))
        self.db = f"unix:{self.dir}/db.sock"
        self.br = f"{topo.prefix}-ovs"

    def vsctl(self, *args: str) -> str:
        return sh("ovs-vsctl", f"--db={self.db}", "--timeout=20", *args)

    def _start(self) -> None:
        d = self.dir
        schema = "/usr/share/openvswitch/vswitch.ovsschema"
        sh("ovsdb-tool", "create", f"{d}/conf.db", schema)
        sh("ovsdb-server", f"{d}/conf.db", f"--remote=punix:{d}/db.sock", f"--pidfile={d}/ovsdb.pid",
           f"--unixctl={d}/ovsdb.ctl", "--detach", f"--log-file={d}/ovsdb.log")
        self.vsctl("--no-wait", "init")
        # OVS_RUNDIR: the bridges' OpenFlow management sockets go to our directory too
        sh("env", f"OVS_RUNDIR={d}", "ovs-vswitchd", self.db, f"--pidfile={d}/vswitchd.pid", f"--unixctl={d}/vswitchd.ctl", "--detach",
           f"--log-file={d}/vswitchd.log", ns=self.topo.sw)
        self.vsctl("add-br", self.br, "--", "set", "bridge", self.br, "datapath_type=netdev")

    def l2(self, vlan_of: dict[str, int] | None = None) -> "OvsNetdev":
        self._start()
        for h in self.topo.hosts:
            extra = ["--", "set", "port", h.peer, f"tag={vlan_of[h.name]}"] if vlan_of else []
            self.vsctl("add-port", self.br, h.peer, *extra)
        time.sleep(1)
        return self

    def ofctl(self, cmd: str, bridge: str, *args: str) -> str:
        """ovs-ofctl CMD on a bridge of this private instance (OpenFlow 1.3)."""
        return sh("ovs-ofctl", "-O", "OpenFlow13", cmd, f"unix:{self.dir}/{bridge}.mgmt", *args)

    def police(self, host: Host, kbps: int, burst_kb: int) -> None:
        self.vsctl("set", "interface", host.peer, f"ingress_policing_rate={kbps}",
                   f"ingress_policing_burst={burst_kb}")

    def pids(self) -> list[int]:
        try:
            return [int((self.dir / "vswitchd.pid").read_text())]
        except (OSError, ValueError):
            return []

    def gateway_mac(self, h: Host) -> str:
        raise BenchError("ovs-netdev is only used for L2 here")

    def stop(self) -> None:
        for f in ("vswitchd.pid", "ovsdb.pid"):
            try:
                pid = int((self.dir / f).read_text())
                os.kill(pid, 15)
            except (OSError, ValueError):
                pass
        time.sleep(0.3)
        shutil.rmtree(self.dir, ignore_errors=True)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes and their threads so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(f[11]) + int(f[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total

