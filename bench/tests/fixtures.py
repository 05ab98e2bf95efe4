"""Small recorded-looking results of each scenario (the keys the scenario scripts write), so
the reports and plots can be tested without running traffic."""
from __future__ import annotations

SIZES = [64, 128, 256, 512, 768, 1024, 1280, 1518, 1522, 1600, 1728, 2496, 3584, 4016, 9104, 9136]
MACHINE = {"cores": 2, "cpu": "test CPU", "kernel": "6.1", "loadavg": ["0.10", "0.20", "0.30"], "git": "abc1234",
           "ovs": None, "switch": "target/release/p4switch"}


def s1() -> dict:
    def sizes(scale):
        return {str(s): {"throughput_pps": 1000.0 * scale, "throughput_mbps": 100.0 * scale + s / 100,
                         "throughput_mbps_repetitions": [99.0 * scale + s / 100, 100.0 * scale + s / 100,
                                                         101.0 * scale + s / 100],
                         "generator_limited": False, "trials": [], "latency": {}} for s in SIZES}
    runs = [{"case": c, "dut": d, "sizes": sizes(k)} for c in ("l2", "l3-one", "l3-two")
            for k, d in ((1.5, "p4switch"), (2.0, "linux-bridge" if c == "l2" else "linux-router"))]
    return {"scenario": "S1", "stamp": "20260101T000000Z-s1", "profile": "full", "repetitions": 3, "machine": MACHINE,
            "settings": {"trial_seconds": 60.0, "resolution": 0.01, "loss_tolerance": 0.0, "line_bps": 1e9},
            "sizes": SIZES, "runs": runs}


def s2() -> dict:
    loads = [100.0 * i for i in range(1, 11)]
    runs = []
    for hops in (1, 2, 3):
        for dut in ("p4switch", "linux-router"):
            runs.append({"dut": dut, "hops": hops,
                         "udp": [{"protocol": "udp", "offered_mbps": l, "received_mbps": l * 0.97,
                                  "received_mbps_repetitions": [l * 0.96, l * 0.97, l * 0.98],
                                  "lost_percent": 0.5 * hops, "jitter_ms": 0.011 * hops} for l in loads],
                         "tcp": [{"protocol": "tcp", "offered_mbps": l, "received_mbps": l * 0.99} for l in loads]})
    return {"scenario": "S2", "stamp": "20260101T000000Z-s2", "profile": "full", "repetitions": 3,
            "machine": MACHINE, "seconds_per_point": 30.0, "runs": runs}


def s3() -> dict:
    runs = [{"dut": "p4switch", "service": "vpls", "mtu": m, "mode": mode, "tcp_mbps": 900.0 + m / 10,
             "cpu_s_per_gb": {"pe1": 10.0, "p": 5.0, "pe2": 9.0}, "cpu_s_per_gb_all": 24.0,
             "cpu_percent": {"pe1": 77.0, "p": 40.0, "pe2": 70.0}, "pw_frames_at_pe2": 1000}
            for m in (1530, 9000) for mode in ("implicit-null", "explicit-null")]
    runs += [{"dut": "linux-router", "service": "-", "mtu": m, "mode": "no MPLS", "tcp_mbps": 2000.0,
              "cpu_s_per_gb": {}, "cpu_s_per_gb_all": None, "cpu_percent": {}} for m in (1530, 9000)]
    return {"scenario": "S3", "stamp": "20260101T000000Z-s3", "profile": "standard", "machine": MACHINE,
            "seconds_per_run": 10.0, "runs": runs}


def s4() -> dict:
    pairs = [f"{a}->{b}" for a in "abcd" for b in "abcd" if a != b]
    same = lambda p: (p[0] in "ac") == (p[-1] in "ac")
    iso = {d: {"dut": n, "before": {"matrix": {p: True for p in pairs}, "unexpected": []},
               "after": {"matrix": {p: same(p) for p in pairs}, "unexpected": []}}
           for d, n in (("p4switch", "p4switch"), ("linux", "linux-bridge"))}
    pol = {d: {"dut": n, "runs": [{"run": "unpoliced", "host": "a", "configured_mbps": None, "received_mbps": 950.0,
                                   "error_percent": None},
                                  *[{"run": "three tenants", "host": h, "configured_mbps": m, "received_mbps": m * 0.98, "error_percent": -2.0}
                                    for h, m in (("a", 100), ("b", 200), ("c", 300))]]}
           for d, n in (("p4switch", "p4switch"), ("linux", "linux-bridge"))}
    cpu = {d: {"dut": n, "runs": [{"protocol": p, "phase": ph, "offered_mbps": 200.0 if p == "udp" else None,
                                   "received_mbps": 199.0, "dut_cpu_percent": 30.0 if ph == "before" else 25.0, "dut_cpu_seconds_per_gb": 5.0,
                                   "sender_cpu_percent": 12.0, "receiver_cpu_percent": 9.0}
                                  for p in ("udp", "tcp") for ph in ("before", "after")]}
           for d, n in (("p4switch", "p4switch"), ("linux", "linux-bridge"))}
    return {"scenario": "S4", "stamp": "20260101T000000Z-s4", "profile": "full", "machine": MACHINE,
            "seconds_per_run": 30, "isolation": iso, "policing": pol, "cpu": cpu}


def s5() -> dict:
    runs = [{"dut": d, "rules": n, "stateful": st, "nat": nat, "tcp10_mbps": 1800.0 - n / 10,
             "rfc2544_64_pps": 150000.0, "rfc2544_64_mbps": 76.8, "firewall_as_expected": True,
             "decoy_flow": None, "rule_counters": {"ok": True}}
            for d in ("p4switch", "linux-router") for n in (1, 100, 1000)
            for st, nat in ((False, False), (True, False), (True, True))]
    return {"scenario": "S5", "stamp": "20260101T000000Z-s5", "profile": "full", "machine": MACHINE,
            "tcp_seconds": 30, "runs": runs}


ALL = {"s1": s1, "s2": s2, "s3": s3, "s4": s4, "s5": s5}
