"""Reconciliation plans, computed without a switch: what is written, in which order, and how little."""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path

import pytest

from p4rt import TableEntry
from vrouter import names as N
from vrouter.config import load, loads
from vrouter.desired import Neighbor, Pw, Runtime, desired_state, learned_station
from vrouter.plan import Canon, Plan, assign_priorities, plan, plan_stations
from vrouter.reconcile import recover_runtime

DATA = Path(__file__).parent / "data"
IP = ipaddress.IPv4Address


def as_read(canon: Canon, items) -> dict:
    """What a switch would return for these items: each entity through the wire form and back."""
    out = {}
    for item in items:
        msg = item.entity if not hasattr(item.entity, "encode") else item.entity.encode(canon.schema)
        back = canon.item_pb(msg)
        assert back is not None and back.key == item.key and back.value == item.value, item
        out[back.key] = back
    return out


def apply_plan(canon: Canon, switch: dict, p: Plan) -> dict:
    """Simulate a switch executing the plan."""
    state = dict(switch)
    for item in p.deletes:
        del state[item.key]
    for item in p.inserts + p.modifies:
        state.update(as_read(canon, [item]))
    return state


def converge(canon: Canon, net, cfg, rt=None, switch=None) -> tuple[Plan, dict]:
    switch = switch or {}
    p = plan(canon, desired_state(net, cfg, rt), switch.values())
    return p, apply_plan(canon, switch, p)


def tables(items) -> dict[str, int]:
    count: dict[str, int] = {}
    for i in items:
        name = i.key[1] if i.key[0] == "table" else i.key[0]
        count[name] = count.get(name, 0) + 1
    return count


@pytest.fixture
def canon(vr_schema) -> Canon:
    return Canon(vr_schema)


@pytest.fixture
def small():
    net = load(DATA / "small.yaml")
    return net, net.switches["s1"]


def test_empty_switch_gets_every_recipe_entry(canon, small) -> None:
    net, cfg = small
    p, _ = converge(canon, net, cfg)
    assert not p.deletes
    assert tables(p.inserts) == {
        N.PORT_CONFIG: 4, N.EGRESS_VLAN_MEMBER: 3 + 3, N.INGRESS_VLAN_MEMBER: 2, "mcast": 3, "clone": 1,
        "digest": 1, N.PORT_POLICER: 1, N.ROUTER_MAC: 2, N.ROUTER_ADDRESS: 2, N.IPV4_ROUTE: 4,
        N.INTERFACE_MTU: 2, N.ACL: 3}
    # meters are always MODIFY (they exist from the start): port 3's and the ACL policer's
    assert sorted(i.key for i in p.modifies) == [("meter", N.ACL_METER, 1), ("meter", N.PORT_METER, 3)]
    by_key = {i.key: i for i in p.inserts}
    mcast = {k[1]: v.value for k, v in by_key.items() if k[0] == "mcast"}
    assert mcast == {10: ((1, 0), (2, 0), (4, 0)), 20: ((3, 0), (4, 0)), 30: ((4, 0),)}
    acl = sorted((i for i in p.inserts if i.key[1:2] == (N.ACL,)), key=lambda i: -i.key[3])
    assert [i.entity.action.name for i in acl] == ["ingress.acl.deny", "ingress.acl.police", "ingress.acl.copy_to_cpu"]
    assert [i.key[3] for i in acl] == [3072, 2048, 1024]


def test_meters_are_configured_by_modify(canon, small) -> None:
    net, cfg = small
    d = desired_state(net, cfg)
    assert {k: (c.cir, c.cburst) for k, c in d.meters.items()} == {
        (N.PORT_METER, 3): (12_500_000, 100_000), (N.ACL_METER, 1): (12_500_000, 100_000)}


def test_second_apply_writes_nothing(canon, small) -> None:
    net, cfg = small
    _, switch = converge(canon, net, cfg)
    again, _ = converge(canon, net, cfg, switch=switch)
    assert len(again) == 0 and again.summary() == "0 inserts, 0 modifies, 0 deletes"


def with_acl(net, cfg, order):
    return dataclasses.replace(cfg, acl=[cfg.acl[i] for i in order])


def test_moving_one_acl_rule_rewrites_only_that_rule(canon, vr_schema) -> None:
    rules = "\n".join(f"      - {{match: {{protocol: tcp, dst_port: {1000 + i}}}, action: deny}}" for i in range(50))
    net = loads(f"switches:\n  s1:\n    address: 127.0.0.1:1\n    acl:\n{rules}\n", "acl.yaml")
    cfg = net.switches["s1"]
    _, switch = converge(canon, net, cfg)
    order = list(range(50))
    order.insert(10, order.pop(40))          # rule 40 moves up to position 10
    p, switch2 = converge(canon, net, with_acl(net, cfg, order), switch=switch)
    assert (len(p.inserts), len(p.modifies), len(p.deletes)) == (1, 0, 1)
    prios = {i.key[2]: i.key[3] for i in switch2.values() if i.key[1:2] == (N.ACL,)}
    want = [canon.item(e).key[2] for e in desired_state(net, with_acl(net, cfg, order)).acl]
    assert sorted(want, key=lambda k: -prios[k]) == want   # the switch's order is the new list order


def test_new_rule_in_the_middle_is_one_insert(canon) -> None:
    rules = [f"      - {{match: {{protocol: udp, dst_port: {2000 + i}}}, action: deny}}" for i in range(20)]
    head = "switches:\n  s1:\n    address: 127.0.0.1:1\n    acl:\n"
    net = loads(head + "\n".join(rules) + "\n", "a.yaml")
    _, switch = converge(canon, net, net.switches["s1"])
    rules.insert(7, "      - {match: {protocol: udp, dst_port: 53}, action: permit}")
    net2 = loads(head + "\n".join(rules) + "\n", "a.yaml")
    p, _ = converge(canon, net2, net2.switches["s1"], switch=switch)
    assert (len(p.inserts), len(p.modifies), len(p.deletes)) == (1, 0, 0)


@pytest.mark.parametrize("current,order,want", [
    ({}, ["a", "b", "c"], [3072, 2048, 1024]),
    ({"a": [3072], "b": [2048], "c": [1024]}, ["c", "a", "b"], [4096, 3072, 2048]),
    ({"a": [3072], "b": [2048], "c": [1024]}, ["a", "c", "b"], [3072, 2560, 2048]),
    ({"a": [3], "b": [2], "c": [1]}, ["a", "x", "b"], [1024 * 3, 1024 * 2, 1024]),   # no gap: renumber
])
def test_priority_assignment(current, order, want) -> None:
    assert assign_priorities(order, current) == want


def neighbours() -> Runtime:
    rt = Runtime()
    for ip, mac, port, vlan in (("10.0.20.254", "02:00:00:00:00:fe", 3, 20),
                                ("10.0.10.7", "02:00:00:00:00:07", 1, 10)):
        rt.neighbors[IP(ip)] = Neighbor(IP(ip), mac, port, vlan)
    rt.macs[(10, "02:00:00:00:00:07")] = 1
    return rt


def test_resolved_next_hop_turns_route_to_nexthop(canon, small) -> None:
    net, cfg = small
    _, switch = converge(canon, net, cfg)
    rt = neighbours()
    p, switch = converge(canon, net, cfg, rt, switch)
    nid = rt.nexthop_ids[IP("10.0.20.254")]
    assert nid >= N.NEIGHBOR_BASE
    route = [i for i in p.modifies if i.key[1:2] == (N.IPV4_ROUTE,)]
    assert len(route) == 1 and route[0].entity.match == {"ipv4_dst": "10.9.0.0/16"}
    assert route[0].entity.action.params == {"nexthop_id": nid}
    # ordering: members (0) before next-hop entries (2) before routes (3)
    phases = p.updates()
    kinds = [[type(u.entity).__name__ + ":" + getattr(u.entity, "table", "") for u in ph] for ph in phases]
    assert kinds[0][0].startswith("ActionProfileMember")
    assert all(k == f"TableEntry:{N.NEXTHOP}" for k in kinds[1])
    assert tables(p.inserts)[N.L2_LEARNING] == 1


def test_forgetting_a_neighbour_deletes_route_before_nexthop_before_member(canon, small) -> None:
    net, cfg = small
    rt = neighbours()
    _, switch = converge(canon, net, cfg, rt)
    rt2 = neighbours()
    rt2.forget(IP("10.0.10.7"))
    rt2.nexthop_ids = {k: v for k, v in rt.nexthop_ids.items() if k != IP("10.0.10.7")}
    p, _ = converge(canon, net, cfg, rt2, switch)
    order = [u.entity.WhichOneof("entity") if hasattr(u.entity, "WhichOneof") else type(u.entity).__name__
             for ph in p.updates() for u in ph if u.type == "DELETE"]
    levels = [i.level for i in sorted(p.deletes, key=lambda i: -i.level)]
    assert levels == [3, 2, 0] and order[-1] == "action_profile_member"


def test_runtime_is_recovered_from_what_the_switch_holds(canon, small) -> None:
    net, cfg = small
    rt = neighbours()
    _, switch = converge(canon, net, cfg, rt)
    back = recover_runtime(canon, list(switch.values()))
    assert back.neighbors == rt.neighbors and back.nexthop_ids == rt.nexthop_ids and back.macs == rt.macs


def test_ecmp_route_uses_a_group_of_resolved_members(canon) -> None:
    net = loads("""
switches:
  s1:
    address: 127.0.0.1:1
    vlans: {10: {interface: {address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}
    ports: {1: {vlan: 10}, 2: {vlan: 10}}
    routes:
      - {prefix: 0.0.0.0/0, via: [10.0.10.2, 10.0.10.3]}
""", "e.yaml")
    cfg = net.switches["s1"]
    rt = Runtime()
    rt.neighbors[IP("10.0.10.2")] = Neighbor(IP("10.0.10.2"), "02:00:00:00:00:02", 1, 10)
    p1, switch = converge(canon, net, cfg, rt)
    route = [i for i in p1.inserts if i.key[1:2] == (N.IPV4_ROUTE,) and i.entity.match["ipv4_dst"] == "0.0.0.0/0"]
    assert route[0].entity.action.params == {"nexthop_id": rt.nexthop_ids[IP("10.0.10.2")]}   # one hop: no group
    rt.neighbors[IP("10.0.10.3")] = Neighbor(IP("10.0.10.3"), "02:00:00:00:00:03", 2, 10)
    p2, switch = converge(canon, net, cfg, rt, switch)
    groups = [i for i in p2.inserts if i.key[0] == "group"]
    assert len(groups) == 1 and len(groups[0].value) == 2
    assert [i.entity.action.params["nexthop_id"] for i in p2.modifies if i.key[1:2] == (N.IPV4_ROUTE,)] == \
        [N.ECMP_NEXTHOP_BASE]


def test_removing_a_policer_resets_its_meter(canon, small) -> None:
    net, cfg = small
    _, switch = converge(canon, net, cfg)
    ports = dict(cfg.ports)
    ports[3] = dataclasses.replace(ports[3], policer=None)
    p, _ = converge(canon, net, dataclasses.replace(cfg, ports=ports), switch=switch)
    assert tables(p.deletes) == {N.PORT_POLICER: 1}
    resets = [i for i in p.modifies if i.key == ("meter", N.PORT_METER, 3)]
    assert resets and resets[0].entity.config.cir == -1


def test_lsps_and_firewall_entries(canon) -> None:
    net = loads("""
switches:
  s1:
    address: 127.0.0.1:1
    vlans:
      10: {interface: {address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}
      20: {interface: {address: 10.0.20.1/24, mac: "00:00:5e:00:01:14"}}
    ports: {1: {vlan: 10}, 2: {vlan: 20}}
    lsps:
      - {name: to-pe2, role: ingress, fec: 10.50.0.0/16, labels: [100, 200], via: 10.0.20.2, ttl_model: pipe}
      - {name: php, role: transit, in_label: 300, out_label: implicit-null, via: 10.0.20.2}
      - {name: enull, role: transit, in_label: 301, out_label: explicit-null, via: 10.0.20.2}
      - {name: local, role: egress, in_label: 400}
    firewall:
      zones: {inside: [20], outside: [10]}
      pairs: [{trusted: inside, untrusted: outside}]
""", "m.yaml")
    cfg = net.switches["s1"]
    rt = Runtime()
    rt.neighbors[IP("10.0.20.2")] = Neighbor(IP("10.0.20.2"), "02:00:00:00:00:22", 2, 20)
    p, _ = converge(canon, net, cfg, rt)
    labels = {i.entity.match["label"]: (i.entity.action.name.split(".")[-1], i.entity.action.params)
              for i in p.inserts if i.key[1:2] == (N.MPLS_LABEL,)}
    nid = rt.nexthop_ids[IP("10.0.20.2")]
    assert labels == {300: ("php", {"nexthop_id": nid, "ttl_mode": 0}),
                      301: ("swap", {"out_label": 0, "nexthop_id": nid}),
                      400: ("pop_and_route", {"ttl_mode": 0})}
    push = [i.entity for i in p.inserts if i.key[0] == "member" and i.key[2] == N.LSP_NEXTHOP_BASE]
    assert push[0].action.name == "ingress.nexthop.set_nexthop_push2"
    assert push[0].action.params["outer_label"] == 100 and push[0].action.params["ttl_mode"] == 1
    policy = {(i.entity.match["src_zone"], i.entity.match["dst_zone"]): i.entity.action.name.split(".")[-1]
              for i in p.inserts if i.key[1:2] == (N.FW_POLICY,)}
    assert policy == {(1, 2): "track_connection", (2, 1): "allow_established"}   # inside=1, outside=2


def test_full_example_of_the_docs_is_valid_and_plans(canon) -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "controller.md").read_text()
    block = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    net = loads(block, "network.yaml")
    cfg = net.switches["core1"]
    rt = Runtime()
    for ip, port, vlan in (("10.255.0.2", 5, 40), ("10.0.20.251", 2, 20), ("10.0.20.252", 4, 20)):
        rt.neighbors[IP(ip)] = Neighbor(IP(ip), "02:00:00:00:00:01", port, vlan)
    p, switch = converge(canon, net, cfg, rt)
    names = tables(p.inserts)
    assert names[N.MPLS_LABEL] == 4 and names["group"] == 1 and names[N.FW_POLICY] == 2 and names[N.ACL] == 8
    again, _ = converge(canon, net, cfg, rt, switch)
    assert len(again) == 0


def test_tcp_flags_become_a_ternary_match(canon) -> None:
    net = loads("switches:\n  s1:\n    address: 127.0.0.1:1\n    acl:\n"
                "      - {match: {protocol: tcp, tcp_flags: {set: [syn], clear: [ack]}}, action: deny}\n", "f.yaml")
    entry = desired_state(net, net.switches["s1"]).acl[0]
    assert entry.match["tcp_flags"] == (0x02, 0x12)
    assert "tcp_flags=0x02&&&0x12" in canon.describe(canon.item(entry))


def test_redirect_punts_until_its_next_hop_resolves(canon) -> None:
    net = loads("""
switches:
  s1:
    address: 127.0.0.1:1
    vlans: {10: {interface: {address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}}
    ports: {1: {vlan: 10}}
    acl:
      - {match: {protocol: tcp, dst_port: 80}, action: redirect, via: 10.0.10.9}
""", "r.yaml")
    cfg = net.switches["s1"]
    p1, switch = converge(canon, net, cfg)
    assert [i.entity.action.name for i in p1.inserts if i.key[1:2] == (N.ACL,)] == ["ingress.acl.punt_to_cpu"]
    rt = Runtime()
    rt.neighbors[IP("10.0.10.9")] = Neighbor(IP("10.0.10.9"), "02:00:00:00:00:09", 1, 10)
    p2, _ = converge(canon, net, cfg, rt, switch)
    acl = [i for i in p2.inserts + p2.modifies if i.key[1:2] == (N.ACL,)]
    assert [(i.entity.action.name, i.entity.action.params) for i in acl] == [
        ("ingress.acl.redirect_to_nexthop", {"nexthop_id": rt.nexthop_ids[IP("10.0.10.9")]})]
    assert len(acl) == 1 and not p2.deletes   # same match, same priority: one MODIFY


@pytest.mark.parametrize("change,want", [
    ("learn", (2, 0, 0)),        # l2_learning + l2_unicast
    ("move", (1, 1, 1)),         # new l2_learning, l2_unicast to the new port, old l2_learning gone
    ("age", (0, 0, 2)),
])
def test_station_changes_write_only_their_entries_and_match_a_full_plan(canon, small, change, want) -> None:
    net, cfg = small
    rt = Runtime(macs={(10, "02:00:00:00:00:01"): 1, (10, "02:00:00:00:00:02"): 2})
    _, switch = converge(canon, net, cfg, rt)
    station = (10, "02:00:00:00:00:09")
    if change == "learn":
        rt.macs[station], old = 1, None
    elif change == "move":
        station, old = (10, "02:00:00:00:00:01"), 1
        rt.macs[station] = 2
    else:
        station, old = (10, "02:00:00:00:00:02"), 2
        del rt.macs[station]
    p = plan_stations(canon, net, cfg, rt.macs, switch, {station: old})
    assert (len(p.inserts), len(p.modifies), len(p.deletes)) == want
    assert {i.key[1] for i in p.inserts + p.modifies + p.deletes} <= {N.L2_LEARNING, N.L2_UNICAST}
    after = apply_plan(canon, switch, p)
    assert len(plan(canon, desired_state(net, cfg, rt), after.values())) == 0   # same as re-planning everything


def test_station_on_a_port_without_its_vlan_or_a_static_mac_is_not_written(canon) -> None:
    net = loads((DATA / "small.yaml").read_text().replace(
        "    routes:", "    static_macs: [{vlan: 10, mac: '02:00:00:00:00:05', port: 1}]\n    routes:"))
    cfg = net.switches["s1"]
    assert learned_station(net, cfg, 20, "02:00:00:00:00:07", 1) == []       # port 1 is access VLAN 10
    assert learned_station(net, cfg, 10, "02:00:00:00:00:05", 2) == []       # static
    assert len(learned_station(net, cfg, 10, "02:00:00:00:00:07", 1)) == 2


VPLS = """
switches:
  pe1:
    address: 127.0.0.1:1
    vlans:
      10: {}
      40: {interface: {address: 10.255.1.1/30, mac: "00:00:5e:00:01:28"}}
    ports: {1: {vlan: 10}, 3: {vlans: [10]}, 2: {vlan: 40}}
    lsps:
      - {name: to-pe2, role: ingress, labels: [1001], via: 10.255.1.2}
    vpls:
      blue:
        vlan: 10
        pseudowires: [{peer: pe2, lsp: to-pe2, in_label: 5001, out_label: 5002, macs: ["02:00:00:00:00:0b"]}]
"""


def test_vpls_pseudowire_entries(canon) -> None:
    net = loads(VPLS, "vpls.yaml")
    cfg = net.switches["pe1"]
    # Before the LSP's next hop resolves: the incoming label only; group 10 has the local ports only.
    p, _ = converge(canon, net, cfg)
    got = tables(p.inserts)
    assert got[N.PW_TERMINATION] == 1 and N.PW_FLOOD not in got
    groups = {i.entity.group_id: sorted((r.port, r.instance) for r in i.entity.replicas)
              for i in p.inserts if i.key[0] == "mcast"}
    assert groups == {10: [(1, 0), (3, 0)], 40: [(2, 0)], 4096 + 10: [(1, 0), (3, 0)]}
    # Resolved: push member (transport on top, PW label below, pipe), static station, flood copy.
    rt = Runtime()
    rt.neighbors[IP("10.255.1.2")] = Neighbor(IP("10.255.1.2"), "02:00:00:00:01:02", 2, 40)
    p, _ = converge(canon, net, cfg, rt)
    ents = [i.entity for i in p.inserts]
    member = next(e for e in ents if getattr(e, "member_id", None) == N.PW_NEXTHOP_BASE and hasattr(e, "action")
                  and e.action is not None and e.action.name.endswith("push2"))
    assert member.action.params == {"port": 2, "vlan_id": 40, "dst_mac": "02:00:00:00:01:02",
                                    "src_mac": "00:00:5e:00:01:28", "outer_label": 1001, "inner_label": 5002,
                                    "ttl_mode": 1}
    by_table = {(e.table, e.action.name.split(".")[-1]): (e.match, e.action.params)
                for e in ents if isinstance(e, TableEntry) and e.action is not None}
    assert by_table[(N.L2_UNICAST, "to_pseudowire")] == ({"vlan_id": 10, "dst_mac": "02:00:00:00:00:0b"},
                                                         {"nexthop_id": N.PW_NEXTHOP_BASE})
    assert by_table[(N.PW_TERMINATION, "terminate_pseudowire")] == ({"label": 5001}, {"vlan_id": 10})
    # The static remote station is known behind its pseudowire: no learning digest for it.
    assert by_table[(N.PW_LEARNING, "pw_station_known")] == (
        {"vlan_id": 10, "src_mac": "02:00:00:00:00:0b", "pw_label": 5001}, {})
    assert by_table[(N.PW_FLOOD, "pw_flood_push2")] == ({"egress_rid": 1}, {
        "vlan_id": 40, "dst_mac": "02:00:00:00:01:02", "src_mac": "00:00:5e:00:01:28",
        "transport_label_out": 1001, "pw_label_out": 5002})
    groups = {i.entity.group_id: sorted((r.port, r.instance) for r in i.entity.replicas)
              for i in p.inserts if i.key[0] == "mcast"}
    assert groups[10] == [(1, 0), (2, 1), (3, 0)] and groups[4096 + 10] == [(1, 0), (3, 0)]
    # An ingress LSP without fec routes nothing.
    assert not [e for e in ents if isinstance(e, TableEntry) and e.table == N.IPV4_ROUTE
                and e.action.params.get("nexthop_id") == N.LSP_NEXTHOP_BASE]
    # The remote station is never written as learned on a local port.
    assert learned_station(net, cfg, 10, "02:00:00:00:00:0b", 1) == []
    # Idempotent.
    _, state = converge(canon, net, cfg, rt)
    again = plan(canon, desired_state(net, cfg, rt), state.values())
    assert not (again.inserts or again.modifies or again.deletes)


def test_station_learned_behind_a_pseudowire(canon) -> None:
    net = loads(VPLS, "vpls.yaml")
    cfg = net.switches["pe1"]
    rt = Runtime()
    rt.neighbors[IP("10.255.1.2")] = Neighbor(IP("10.255.1.2"), "02:00:00:00:01:02", 2, 40)
    mac = "02:00:00:00:00:0c"
    rt.macs[(10, mac)] = 1                      # first seen on local port 1
    _, switch = converge(canon, net, cfg, rt)
    # It moves behind the pseudowire (digest pw_learn_digest_t with label 5001).
    rt.macs[(10, mac)] = Pw(5001)
    p = plan_stations(canon, net, cfg, rt.macs, switch, {(10, mac): 1})
    assert (len(p.inserts), len(p.modifies), len(p.deletes)) == (1, 1, 1), p.summary()
    assert p.inserts[0].entity.table == N.PW_LEARNING and p.inserts[0].entity.match == {
        "vlan_id": 10, "src_mac": mac, "pw_label": 5001} and p.inserts[0].entity.idle_timeout_ns == 300 * 10**9
    assert p.modifies[0].entity.action.name == "ingress.bridge.to_pseudowire"
    assert p.modifies[0].entity.action.params == {"nexthop_id": N.PW_NEXTHOP_BASE}
    assert p.deletes[0].key[1] == N.L2_LEARNING
    state = apply_plan(canon, switch, p)
    full = plan(canon, desired_state(net, cfg, rt), state.values())
    assert not (full.inserts or full.modifies or full.deletes)     # same end state as a full plan
    assert recover_runtime(canon, list(state.values())).macs == {(10, mac): Pw(5001)}
    # A label that is no pseudowire of the VLAN, and a static remote MAC, are never written.
    assert learned_station(net, cfg, 10, mac, Pw(7777)) == []
    assert learned_station(net, cfg, 10, "02:00:00:00:00:0b", Pw(5001)) == []


def test_masquerading_interface_entries(canon) -> None:
    net = loads("""
switches:
  s1:
    address: 127.0.0.1:1
    vlans:
      10: {interface: {address: 10.0.10.1/24, mac: "00:00:5e:00:01:0a"}}
      20: {interface: {address: 192.0.2.7/24, mac: "00:00:5e:00:01:14", nat: masquerade}}
      30: {interface: {address: 10.0.30.1/24, mac: "00:00:5e:00:01:1e", nat: none}}
    ports: {1: {vlan: 10}, 2: {vlan: 20}, 3: {vlan: 30}}
""", "m.yaml")
    cfg = net.switches["s1"]
    assert cfg.vlans[20].interface.masquerade and not cfg.vlans[10].interface.masquerade
    p, switch = converge(canon, net, cfg, Runtime())
    nat = {(i.key[1], i.entity.match["vlan_id"]): (i.entity.action.name, i.entity.action.params)
           for i in p.inserts if i.key[1:2] in ((N.NAT_INBOUND,), (N.NAT_OUTBOUND,))}
    assert nat == {(N.NAT_INBOUND, 20): ("ingress.nat_in.reverse_masquerade", {"addr": "192.0.2.7"}),
                   (N.NAT_OUTBOUND, 20): ("ingress.nat_out.masquerade", {"addr": "192.0.2.7"})}
    # Switching NAT off removes both entries.
    vlans = dict(cfg.vlans)
    vlans[20] = dataclasses.replace(vlans[20], interface=dataclasses.replace(vlans[20].interface, masquerade=False))
    p, _ = converge(canon, net, dataclasses.replace(cfg, vlans=vlans), Runtime(), switch=switch)
    assert tables(p.deletes) == {N.NAT_INBOUND: 1, N.NAT_OUTBOUND: 1}
    assert not p.inserts


def wire(update, schema) -> bytes:
    from p4.v1 import p4runtime_pb2
    msg = p4runtime_pb2.Update()
    update.encode_into(schema, msg)
    return msg.SerializeToString(deterministic=True)


def test_entries_encoded_from_the_canonical_form_are_the_bytes_of_their_entities(canon, small) -> None:
    """The daemon writes table entries from their canonical integers (Canon.filler): every entry of a
    description with routes, neighbours, stations, ACL ranges and masks gives the same Update bytes
    as encoding the entity itself, inserted, modified or deleted."""
    from p4rt import Update
    from vrouter.plan import _deletion
    net, cfg = small
    p, _ = converge(canon, net, cfg, neighbours())
    filled = 0
    for item in p.inserts:
        fill = canon.filler(item)
        assert fill is not None or item.key[0] != "table", item
        if fill is None:
            continue
        for kind in ("INSERT", "MODIFY"):
            assert wire(Update(kind, item.entity, fill), canon.schema) == wire(Update(kind, item.entity), canon.schema)
        gone = _deletion(item)
        assert wire(Update("DELETE", gone.entity, canon.filler(gone, True)), canon.schema) \
            == wire(Update("DELETE", gone.entity), canon.schema)
        filled += 1
    kinds = {part[1] for item in p.inserts if item.key[0] == "table" for part in item.key[2]}
    assert filled > 30 and kinds >= {"exact", "lpm", "ternary", "range"}, (filled, kinds)


def test_routes_that_come_and_go_are_one_write_but_a_moved_acl_rule_is_made_before_broken(canon, small) -> None:
    net, cfg = small
    _, switch = converge(canon, net, cfg)
    routes = [r for r in cfg.routes if not r.drop and len(r.via) == 1]
    moved = dataclasses.replace(cfg, routes=[dataclasses.replace(routes[0], prefix=ipaddress.IPv4Network("10.99.0.0/16")),
                                             *[r for r in cfg.routes if r is not routes[0]]])
    p, _ = converge(canon, net, moved, None, switch)
    assert (len(p.inserts), len(p.deletes)) == (1, 1)
    assert [[u.type for u in phase] for phase in p.updates(canon)] == [["INSERT", "DELETE"]]
    # reordered ACL rules move to new priorities: each new one is written before its old one goes
    p, _ = converge(canon, net, dataclasses.replace(cfg, acl=cfg.acl[::-1]), None, switch)
    phases = [[u.type for u in phase] for phase in p.updates(canon)]
    assert p.deletes and all(len(set(phase)) == 1 for phase in phases) and phases[-1][0] == "DELETE", phases
