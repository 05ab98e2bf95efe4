"""Learning limits without a switch: station counts, limits and actions, rate, damping; ARP checks; pacing."""

from __future__ import annotations

import ipaddress
import json

import pytest

from vrouter import packets as pk
from vrouter.config import loads
from vrouter.desired import Pw, Runtime
from vrouter.pacing import Backoff, TokenBucket
from vrouter.stations import LearningGuard, StationTable

DESCRIPTION = """
learning: {learning}
switches:
  s1:
    address: 127.0.0.1:9559
    vlans: {{10: {{}}, 20: {{max_macs: 2}}}}
    ports:
      1: {{vlan: 10}}
      2: {{vlan: 10, max_macs: 1, on_limit: drop}}
      3: {{vlan: 10, on_limit: shutdown}}
      4: {{vlans: [10, 20]}}
"""


LEARNING = {"max_macs_per_port": 3, "max_macs_per_vlan": 5, "rate": 1000, "move_limit": 2, "move_window": "10s",
            "move_hold": "30s"}


def guard(capacity: int = 100, **learning) -> tuple[LearningGuard, Runtime]:
    net = loads(DESCRIPTION.format(learning=json.dumps({**LEARNING, **learning})))
    return LearningGuard(net, net.switches["s1"], capacity), Runtime()


def mac(i: int) -> str:
    return f"02:00:00:00:{i >> 8:02x}:{i & 0xff:02x}"


def learn(g: LearningGuard, rt: Runtime, vlan: int, i: int, port, now: float = 0.0):
    verdict = g.admit(rt, vlan, mac(i), port, now)
    if verdict.reason is None:
        rt.macs[(vlan, mac(i))] = port
    return verdict


def test_station_table_counts_per_port_and_vlan() -> None:
    t = StationTable()
    t[(10, mac(1))] = 1
    t[(10, mac(2))] = 1
    t[(20, mac(1))] = Pw(5001)
    t[(10, mac(1))] = 2                     # a move
    assert t.per_port == {1: 1, 2: 1, Pw(5001): 1} and t.per_vlan == {10: 2, 20: 1}
    del t[(10, mac(2))]
    assert t.pop((20, mac(1))) == Pw(5001)
    assert t.per_port == {2: 1} and t.per_vlan == {10: 1}      # no zero entries left behind
    assert t == {(10, mac(1)): 2} and t.on(2) == [(10, mac(1))]


def test_no_learn_past_the_port_limit_is_counted_and_forwarding_goes_on() -> None:
    g, rt = guard()
    assert [learn(g, rt, 10, i, 1).reason for i in range(5)] == [None, None, None, "port_limit", "port_limit"]
    assert rt.macs.per_port[1] == 3 and g.stats[1].learned == 3 and g.stats[1].refused == {"port_limit": 2}
    assert learn(g, rt, 10, 9, 4).reason is None                    # another port still learns


def test_drop_locks_the_port_when_it_fills_and_shutdown_acts_past_the_limit() -> None:
    g, rt = guard()
    first = learn(g, rt, 10, 1, 2)
    assert (first.reason, first.action) == (None, "drop")           # the one station it may have fills it
    rt.locked_ports.add(2)
    assert learn(g, rt, 10, 2, 2).action is None                    # already locked: nothing more to do
    for i in range(3):
        assert learn(g, rt, 10, 10 + i, 3).action is None
    past = learn(g, rt, 10, 20, 3)
    assert (past.reason, past.action) == ("port_limit", "shutdown")
    rt.shut_ports.add(3)
    assert learn(g, rt, 10, 21, 3).reason == "port_shut"
    del rt.macs[(10, mac(1))]
    assert g.unlock_candidates(rt) == [2]                           # room again: unlock


def test_vlan_limit_and_table_capacity() -> None:
    g, rt = guard()
    assert [learn(g, rt, 20, i, 4).reason for i in range(3)] == [None, None, "vlan_limit"]
    g, rt = guard(capacity=4)
    reasons = [learn(g, rt, 10, i, 1 if i < 3 else 4).reason for i in range(6)]
    assert reasons == [None, None, None, None, "table_full", "table_full"]


def test_learning_rate_per_port() -> None:
    g, rt = guard(max_macs_per_port=1000, max_macs_per_vlan=5000, rate=10)
    reasons = [learn(g, rt, 10, i, 1, now=0.0).reason for i in range(15)]
    assert reasons.count(None) == 10 and reasons.count("rate") == 5
    assert learn(g, rt, 10, 99, 4, now=0.0).reason is None          # other ports have their own bucket
    assert learn(g, rt, 10, 100, 1, now=0.5).reason is None         # 5 tokens back after 0.5 s


def test_a_flapping_station_is_held_where_it_was() -> None:
    g, rt = guard(max_macs_per_port=100)
    learn(g, rt, 10, 1, 1, now=0.0)
    assert learn(g, rt, 10, 1, 4, now=1.0).reason is None           # move 1
    assert learn(g, rt, 10, 1, 1, now=2.0).reason is None           # move 2
    assert learn(g, rt, 10, 1, 4, now=3.0).reason == "flapping"     # a third move within 10 s: held
    assert rt.macs[(10, mac(1))] == 1
    assert learn(g, rt, 10, 1, 4, now=20.0).reason == "flapping"    # still held (30 s)
    g.expire(40.0)
    assert learn(g, rt, 10, 1, 4, now=40.0).reason is None          # hold over
    g.forget((10, mac(1)), 4)
    assert not g.moves and not g.held


def test_memory_stays_bounded_under_a_flood() -> None:
    g, rt = guard(max_macs_per_port=50, max_macs_per_vlan=5000, rate=100000)
    for i in range(20_000):
        learn(g, rt, 10, i, 1, now=i * 1e-4)
    assert len(rt.macs) == 50 and g.stats[1].refused["port_limit"] == 19_950
    assert len(g.moves) == 0 and len(g.buckets) == 1


ROUTER = ipaddress.IPv4Interface("10.0.10.1/24")


@pytest.mark.parametrize("sender_mac, frame_src, sender_ip, problem", [
    ("02:00:00:00:00:01", "02:00:00:00:00:01", "10.0.10.7", None),
    ("01:00:5e:00:00:01", "01:00:5e:00:00:01", "10.0.10.7", "multicast_sender_mac"),
    ("ff:ff:ff:ff:ff:ff", "ff:ff:ff:ff:ff:ff", "10.0.10.7", "multicast_sender_mac"),
    ("00:00:00:00:00:00", "00:00:00:00:00:00", "10.0.10.7", "zero_sender_mac"),
    ("02:00:00:00:00:01", "02:00:00:00:00:99", "10.0.10.7", "sender_mac_not_frame_source"),
    ("02:00:00:00:00:01", "02:00:00:00:00:01", "10.0.20.7", "sender_outside_subnet"),
    ("02:00:00:00:00:01", "02:00:00:00:00:01", "10.0.10.255", "sender_outside_subnet"),
    ("02:00:00:00:00:01", "02:00:00:00:00:01", "10.0.10.1", "sender_is_router"),
], ids=["ok", "multicast", "broadcast", "zero", "spoofed-source", "other-subnet", "broadcast-ip", "router"])
def test_arp_checks(sender_mac, frame_src, sender_ip, problem) -> None:
    arp = pk.Arp(2, sender_mac, ipaddress.IPv4Address(sender_ip), "00:00:5e:00:01:0a", ROUTER.ip)
    assert pk.arp_problem(arp, frame_src, ROUTER) == problem


def test_token_bucket_and_backoff() -> None:
    b = TokenBucket(2, 4, now=0.0)
    assert [b.take(0.0) for _ in range(5)] == [True] * 4 + [False]
    assert b.take(0.5) and not b.take(0.5)
    back = Backoff(0.5, 4.0)
    delays = [back.next() for _ in range(6)]
    assert 0.45 <= delays[0] <= 0.55 and all(3.6 <= d <= 4.4 for d in delays[3:])
    back.reset()
    assert back.next() <= 0.55
