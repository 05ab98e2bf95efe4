"""The network description: good files load into the typed schema; bad ones give pinned messages."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from vrouter.config import ConfigError, load, loads
from vrouter.units import BadValue, parse_duration, parse_rate, parse_size

HERE = Path(__file__).parent
BAD = sorted((HERE / "bad").glob("*.yaml"))
TOPO = Path(__file__).resolve().parents[3] / "topo"


def expected(path: Path) -> list[str]:
    """The `# expect: ...` lines at the top of a bad description."""
    return [line.split("# expect: ", 1)[1].rstrip("\n") for line in path.read_text().splitlines()
            if line.startswith("# expect: ")]


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_description_is_refused_with_pinned_messages(path: Path) -> None:
    want = expected(path)
    assert want, f"{path.name} pins no message"
    with pytest.raises(ConfigError) as info:
        load(path)
    assert info.value.problems == want


def test_corpus_covers_the_issue_example() -> None:
    assert "vlan_out_of_range.yaml: switches.s1.ports.3.vlans[2]: 5000 is not a VLAN id (1-4094)" in \
        expected(HERE / "bad" / "vlan_out_of_range.yaml")


def test_small_description_loads_into_typed_objects() -> None:
    net = load(HERE / "data" / "small.yaml")
    s1 = net.switches["s1"]
    assert s1.address == "127.0.0.1:50051" and s1.cpu_port == 255
    assert s1.ports[1].mode == "access" and s1.ports[1].access_vlan == 10
    trunk = s1.ports[4]
    assert (trunk.mode, trunk.vlans, trunk.native) == ("trunk", (10, 20), 30)
    assert s1.vlans[20].interface.address == ipaddress.IPv4Interface("10.0.20.1/24")
    assert s1.vlans[20].interface.mtu == 9000
    assert net.policers["guest"].cir == 100_000_000 and net.policers["guest"].cburst == 100_000
    assert [r.action for r in s1.acl] == ["deny", "permit", "copy"]
    assert s1.acl[0].match.dst_port == (23, 23) and s1.acl[0].match.protocol == 6
    assert s1.routes[1].drop and s1.routes[0].via == (ipaddress.IPv4Address("10.0.20.254"),)
    assert net.mac_aging == 300


def test_campus_description_is_valid() -> None:
    net = load(TOPO / "campus.yaml")
    s1 = next(iter(net.switches.values()))
    assert len([v for v in s1.vlans.values() if v.interface]) >= 6


def test_s3_vpls_example_is_valid() -> None:
    net = load(TOPO / "s3-vpls.yaml")
    pe1, pe2 = net.switches["pe1"], net.switches["pe2"]
    blue1, blue2 = pe1.vpls["blue"], pe2.vpls["blue"]
    assert (blue1.vlan, blue1.pseudowires[0].out_label) == (10, blue2.pseudowires[0].in_label)
    assert pe1.lsps[0].fec is None and pe1.lsps[0].labels == (1001,)


@pytest.mark.parametrize("text,value", [("100mbit", 100_000_000), ("1.5gbit", 1_500_000_000), ("64kbit", 64_000),
                                        (1000, 1000), ("10 Mbps", 10_000_000)])
def test_rates(text, value) -> None:
    assert parse_rate(text) == value


@pytest.mark.parametrize("text,value", [("1500", 1500), ("64kb", 64_000), ("1mib", 1 << 20), (9000, 9000)])
def test_sizes(text, value) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize("text,value", [("300s", 300.0), ("5m", 300.0), ("500ms", 0.5), (30, 30.0)])
def test_durations(text, value) -> None:
    assert parse_duration(text) == value


@pytest.mark.parametrize("bad", ["fast", "-1", True, "10 parsecs"])
def test_bad_rates(bad) -> None:
    with pytest.raises(BadValue):
        parse_rate(bad)


def test_several_problems_are_all_reported() -> None:
    with pytest.raises(ConfigError) as info:
        loads("switches:\n  s1:\n    address: x\n    ports: {1: {vlan: 0}}\n", "t.yaml")
    assert info.value.problems == [
        "t.yaml: switches.s1.address: 'x' is not a gRPC address (host:port)",
        "t.yaml: switches.s1.ports.1.vlan: 0 is not a VLAN id (1-4094)",
    ]


def test_unreadable_file() -> None:
    with pytest.raises(ConfigError) as info:
        load(HERE / "no-such-file.yaml")
    assert str(info.value) == "no-such-file.yaml: cannot read: No such file or directory"


def test_cpu_port_zero_and_device_id_are_kept() -> None:
    net = loads("switches:\n  s1: {address: '127.0.0.1:1', cpu_port: 0, device_id: 7}\n", "z.yaml")
    assert (net.switches["s1"].cpu_port, net.switches["s1"].device_id) == (0, 7)


PORT_MTU = """
switches:
  s1:
    address: 127.0.0.1:9559
    vlans:
      10: {interface: {address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}
      20: {interface: {address: 10.0.20.1/24, mac: "00:00:5e:00:01:14"}}
      30: {interface: {address: 10.0.30.1/24, mac: "00:00:5e:00:01:1e", mtu: 1280}}
      40: {interface: {address: 10.0.40.1/24, mac: "00:00:5e:00:01:28"}}
    ports:
      1: {vlan: 10, mtu: 1400}
      2: {vlan: 10}
      3: {vlan: 20, mtu: 9000}
      4: {mode: trunk, vlans: [20, 30], mtu: 9000}
"""


def test_port_mtu_becomes_the_interface_mtu_of_its_vlans() -> None:
    vlans = loads(PORT_MTU).switches["s1"].vlans
    # smallest MTU of the ports carrying the VLAN; an explicit interface MTU wins; no port: 1500
    assert {v: vlans[v].interface.mtu for v in vlans} == {10: 1400, 20: 9000, 30: 1280, 40: 1500}
