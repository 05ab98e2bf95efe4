"""Routes in a file of their own (`routes_file:`, vrouter/routefile.py).

Without a switch: the file's routes join the description's with the same checks, a changed file is
parsed only where it changed, and the route-only plan equals the routes part of a full plan.
With a real switch (`vrouter run` as a child process): the daemon writes only the routes that
changed, refuses a bad file whole and keeps the routes it had, and `vrouter diff` agrees.
"""

from __future__ import annotations

import ipaddress
import time
from pathlib import Path

import pytest

from p4rt import Switch, TableEntry
from netns import Daemon, SwitchProc, vrouter
from vrouter import routefile
from vrouter.config import ConfigError, load
from vrouter.desired import Neighbor, Runtime, desired_state
from vrouter.plan import Canon, plan, plan_routes

DESCRIPTION = """
pipeline: {{p4info: {p4info}, config: {json}}}
switches:
  s1:
    address: {address}
    vlans:
      10: {{interface: {{address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}}
      20: {{interface: {{address: 10.0.20.1/24, mac: "00:00:5e:00:01:14"}}}}
    ports: {{1: {{vlan: 10}}, 2: {{vlan: 20}}}}
    routes:
      - {{prefix: 192.0.2.0/24, via: 10.0.10.2}}
    routes_file: routes.txt
"""
ROUTE = "ingress.routing.ipv4_route"


def write(path: Path, text: str) -> None:
    """As a routing daemon should: a temporary file renamed over the old one."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def lines(first: int, count: int, via: str = "10.0.20.2") -> str:
    base = ipaddress.IPv4Address("172.16.0.0")
    return "".join(f"{base + n}/32 via {via}\n" for n in range(first, first + count))


@pytest.fixture
def desc(tmp_path, vrouter_program):
    def make(routes: str, address: str = "127.0.0.1:1") -> Path:
        path = tmp_path / "net.yaml"
        path.write_text(DESCRIPTION.format(p4info=vrouter_program.p4info, json=vrouter_program.json, address=address))
        write(tmp_path / "routes.txt", routes)
        return path
    return make


def test_file_routes_join_the_description_with_the_same_checks(desc, tmp_path):
    net = load(desc("# routing daemon export\n172.16.0.1/32 via 10.0.20.2   # a host\n\n"
                    "10.9.0.0/16 via 10.0.20.2 10.0.10.2\n198.51.100.0/24 drop\n"))
    sw = net.switches["s1"]
    assert [str(r.prefix) for r in sw.routes] == ["192.0.2.0/24", "172.16.0.1/32", "10.9.0.0/16", "198.51.100.0/24"]
    assert sw.routes[2].via == (ipaddress.IPv4Address("10.0.20.2"), ipaddress.IPv4Address("10.0.10.2"))
    assert sw.routes[3].drop and len(sw.routes_file.lines) == 3
    bad = ("172.16.0.1/32 via 10.0.20.2\n"        # 1 fine
           "172.16.0.300/32 via 10.0.20.2\n"      # 2 not a prefix
           "172.16.0.2/32 via 10.0.30.2\n"        # 3 no interface there
           "172.16.0.3/32 via 10.0.20.1\n"        # 4 the router itself
           "192.0.2.0/24 via 10.0.20.2\n"         # 5 the description routes it
           "172.16.0.1/32 drop\n"                 # 6 routed by line 1
           "10.0.20.0/24 via 10.0.10.2\n"         # 7 connected
           "172.16.0.4/32 10.0.20.2\n"            # 8 no 'via'
           "172.16.0.1/32 via 10.0.20.2\n")       # 9 line 1 again
    with pytest.raises(ConfigError) as err:
        load(desc(bad))
    text = str(err.value)
    for n, why in ((2, "not an IPv4 prefix"), (3, "not in the subnet of any router interface"),
                   (4, "own address"), (5, "already routed by the description (switches.s1.routes)"),
                   (6, "already routed by the line '172.16.0.1/32 via 10.0.20.2'"), (7, "connected subnet"),
                   (8, "expected 'PREFIX via HOP"), (9, "the same route as an earlier line")):
        assert f"routes.txt:{n}: " in text and why in text, (n, text)
    assert "routes.txt:1:" not in text
    (tmp_path / "routes.txt").write_bytes(b"172.16.0.1/32 via 10.0.20.2\n172.16.0.\xff/32 drop\n")
    with pytest.raises(ConfigError, match=r"routes.txt:2: not UTF-8 text \(byte 0xff\)"):
        load(tmp_path / "net.yaml")
    (tmp_path / "routes.txt").unlink()
    with pytest.raises(ConfigError, match="routes.txt: no such file"):
        load(tmp_path / "net.yaml")


def test_check_counts_the_file_routes(desc):
    path = desc(lines(0, 3))
    done = vrouter("check", str(path))
    assert done.returncode == 0 and "4 routes (3 from routes.txt)" in done.stdout, done.stdout + done.stderr


def test_a_changed_file_is_parsed_only_where_it_changed(desc, tmp_path, monkeypatch):
    net = load(desc(lines(0, 1000)))
    sw = net.switches["s1"]
    rf = sw.routes_file
    assert not rf.changed()
    parsed = []
    real = routefile._Parser.route
    monkeypatch.setattr(routefile._Parser, "route", lambda self, n, line: parsed.append(line) or real(self, n, line))
    write(tmp_path / "routes.txt", lines(250, 1000))
    assert rf.changed()
    change = routefile.update(rf, sw)
    assert len(parsed) == 250 and len(change.added) == 250 and len(change.removed) == 250
    assert {str(r.prefix) for r in change.removed} == {f"172.16.0.{n}/32" for n in range(250)}
    assert len(change.new.lines) == 1000 and not change.new.changed() and not change.ecmp_moved(rf)
    # a prefix moved to another next hop is one route out and one in; kept lines still clash with new ones
    write(tmp_path / "routes.txt", lines(250, 999) + "172.16.4.225/32 via 10.0.10.2\n")
    moved = routefile.update(change.new, sw)
    assert [str(r.prefix) for r in moved.added] == [str(r.prefix) for r in moved.removed] == ["172.16.4.225/32"]
    write(tmp_path / "routes.txt", lines(250, 1000) + "172.16.1.0/32 drop\n")
    with pytest.raises(ConfigError, match="routes.txt:1001: 172.16.1.0/32 is already routed by the line"):
        routefile.update(change.new, sw)
    write(tmp_path / "routes.txt", lines(250, 1000) + "10.9.0.0/16 via 10.0.20.2 10.0.10.2\n")
    assert routefile.update(change.new, sw).ecmp_moved(change.new)


def test_route_plan_equals_the_routes_part_of_a_full_plan(desc, tmp_path, vr_schema):
    """Resolved and unresolved next hops, black holes, a prefix a neighbour's host route holds."""
    net = load(desc(lines(0, 50) + "172.16.9.0/24 drop\n10.0.99.0/24 via 10.0.10.2\n"))
    sw = net.switches["s1"]
    rt = Runtime()
    rt.neighbors[ipaddress.IPv4Address("10.0.20.2")] = Neighbor(ipaddress.IPv4Address("10.0.20.2"),
                                                                "02:00:00:00:00:02", 2, 20)
    canon = Canon(vr_schema)
    before = {i.key: i for i in plan(canon, desired_state(net, sw, rt), []).inserts}
    write(tmp_path / "routes.txt", lines(25, 50) + "172.16.9.0/24 via 10.0.20.2\n10.0.20.2/32 drop\n")
    new = load(tmp_path / "net.yaml")
    change = routefile.update(sw.routes_file, sw)
    full = plan(canon, desired_state(new, new.switches["s1"], rt), before.values())
    mine = plan_routes(canon, new.switches["s1"], rt, before, change.added, change.removed)
    def keys(p):
        return sorted((repr(i.key), repr(i.value)) for i in p.inserts), sorted(repr(i.key) for i in p.deletes), \
            sorted((repr(i.key), repr(i.value)) for i in p.modifies)
    assert keys(mine) == keys(full)
    assert sorted(repr(i.entity) for i in mine.inserts) == sorted(repr(i.entity) for i in full.inserts)
    assert (len(mine.inserts), len(mine.modifies), len(mine.deletes)) == (25, 1, 26)


@pytest.mark.integration
def test_daemon_writes_only_changed_routes_and_refuses_a_bad_file(desc, tmp_path):
    switch = SwitchProc({}, tmp_path / "switch.log").start()
    daemon = None
    try:
        path = desc(lines(0, 300) + "198.51.100.0/24 drop\n", switch.address)
        daemon = Daemon(path, tmp_path / "vrouter.log")
        daemon.wait_for("event=reconciled", timeout=60)

        def routes_on_switch() -> dict[str, str]:
            with Switch(switch.address, election_id=2) as sw:
                sw.load_schema()
                return {str(ipaddress.IPv4Network(e.match["ipv4_dst"])): e.action.name.split(".")[-1]
                        for e in sw.read(TableEntry(ROUTE))}

        def expect() -> None:
            want = {str(r.prefix) for r in load(path).switches["s1"].routes} | {"10.0.10.0/24", "10.0.20.0/24"}
            assert set(routes_on_switch()) == want
            assert vrouter("diff", str(path)).stdout.strip().splitlines()[-1] == "s1: in sync, nothing to write"

        expect()
        # 100 routes out, 100 in, a black hole now forwarded: 201 writes, nothing else planned
        start = len(daemon.text())
        write(tmp_path / "routes.txt", lines(100, 300) + "198.51.100.0/24 via 10.0.20.2\n")
        line = daemon.wait_for("reason=routes", start=start)
        assert "added=101 removed=101 writes=201" in line and "100 inserts, 1 modify, 100 deletes" in line, line
        expect()
        assert routes_on_switch()["198.51.100.0/24"] == "route_to_cpu"     # next hop not resolved yet
        # a bad line: the whole file is refused (each problem logged), the switch keeps the routes it had
        start = len(daemon.text())
        write(tmp_path / "routes.txt", lines(200, 300) + "172.17.0.0/16 via 10.0.30.2\n")
        daemon.wait_for("event=routes_refused", start=start)
        daemon.wait_for("routes.txt:301: next hop 10.0.30.2 is not in the subnet", start=start)
        time.sleep(0.5)
        assert "reason=routes" not in daemon.text()[start:]
        assert "172.16.0.100/32" in routes_on_switch() and "172.16.1.243/32" not in routes_on_switch()
        diff = vrouter("diff", str(path))
        assert diff.returncode != 0 and "routes.txt:301:" in diff.stderr      # diff reads the same truth
        # a file gone is refused once too (an empty file means no routes)
        start = len(daemon.text())
        (tmp_path / "routes.txt").unlink()
        daemon.wait_for("event=routes_refused", start=start)
        time.sleep(0.5)
        assert daemon.text()[start:].count("event=routes_refused") == 1
        # fixed (with an ECMP route: the full plan numbers its group): taken
        start = len(daemon.text())
        write(tmp_path / "routes.txt", lines(200, 300) + "172.17.0.0/16 via 10.0.20.2 10.0.10.2\n")
        line = daemon.wait_for("reason=routes", start=start)
        assert "added=101 removed=101" in line, line
        expect()
    finally:
        if daemon is not None:
            assert daemon.stop() == 0
        switch.stop()


@pytest.mark.parametrize("text", ["10.0.0.0/8", "10.0.0.1/8", "1.2.3.4/32", "0.0.0.0/0", "0.0.0.0/00", "01.2.3.4/32",
                                  "1.2.3.4/33", "1.2.3.4", "1.2.3/24", "256.1.1.1/32", "1.2.3.4/-1", "1.2.3.4/+8",
                                  "10.0.0.0/08", "10.0.0.0/\u0668", "10.0.0.0/255.0.0.0", "1.2.3.4/", "/8", "a.b.c.d/8"])
def test_a_line_prefix_is_read_as_ipaddress_reads_it(text):
    """The routes file's fast prefix reader (inet_pton, then (int, len)) takes and refuses what IPv4Network does."""
    try:
        expected = ipaddress.IPv4Network(text)
    except ValueError:
        expected = None
    assert routefile._prefix(text) == expected


def test_a_take_by_difference_ends_where_a_full_read_does(desc, tmp_path):
    """The lines that came and went give the routes, prefixes and changes a line-by-line read gives,
    through moves, edits in the middle, comments, blank lines, spacing, a bad line and ECMP."""
    net = load(desc(lines(0, 300)))
    sw = net.switches["s1"]
    rf = sw.routes_file
    body = lines(0, 300).splitlines()
    edits = [body[50:] + body[:50],                                           # same routes, another order
             body[:100] + ["# a comment", "", "172.17.0.0/16 drop"] + body[100:],
             body[:100] + ["", "", "172.17.0.0/16   drop   # spaced"] + body[150:],
             [line.replace("10.0.20.2", "10.0.10.2") if i % 7 == 0 else line for i, line in enumerate(body)],
             body[:10] + ["172.16.0.3/32 drop"] + body[10:],                   # clashes with a kept line
             body + ["10.9.0.0/16 via 10.0.20.2 10.0.10.2"],                   # ECMP: the full pass
             body[200:] + ["10.9.0.0/16 via 10.0.20.2 10.0.10.2"]]
    for text in edits:
        write(tmp_path / "routes.txt", "\n".join(text) + "\n")
        try:
            full = routefile.update(rf, sw, full=True)
        except ConfigError as exc:
            with pytest.raises(ConfigError) as got:
                routefile.update(rf, sw)
            assert got.value.problems == exc.problems
            continue
        change = routefile.update(rf, sw)
        assert change.new.lines == full.new.lines and change.new.prefixes == full.new.prefixes
        assert change.new.ecmp == full.new.ecmp and change.new.raw == full.new.raw
        before = set(rf.lines.values())
        assert set(change.added) == set(full.new.lines.values()) - before
        assert set(change.removed) == before - set(full.new.lines.values())
        rf = change.new
