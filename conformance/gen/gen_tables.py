#!/usr/bin/env python3
"""Write tests/tables/{exact,lpm,ternary,range}_many.p4 + .stf: tables with many
control-plane entries and packets whose expected port is computed here by brute force
over the entries (exact: equality; lpm: longest matching prefix; ternary/range: the
matching entry with the largest priority), independently of any switch.

Run from conformance/: python3 gen/gen_tables.py  (rewrites the files; commit them)."""
import os
import random

ETH = "000000000001" "000000000002" "1234"


def data(f1):
    return f"{f1:08x}" + "00000000" + "0000" + "00" + "00"


def program(kind, comment):
    return f"""// Checks: a {kind} table with many entries added over P4Runtime; {comment}
// Expected packets: computed by conformance/gen/gen_tables.py by brute force over the
// entries (seeded random), independently of any switch. set_port writes b2 = 0xAA,
// the default action sends to port 15 with b2 = 0xBB.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etype; }}
header data_t {{ bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }}
struct headers_t {{ ethernet_t eth; data_t d; }}
struct meta_t {{ }}

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(h.eth); pkt.extract(h.d); transition accept; }}
}}
control VC(inout headers_t h, inout meta_t m) {{ apply {{ }} }}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {{
    action set_port(bit<9> port) {{ sm.egress_spec = port; h.d.b2 = 0xaa; }}
    action miss_port(bit<9> port) {{ sm.egress_spec = port; h.d.b2 = 0xbb; }}
    table t {{
        key = {{ h.d.f1: {kind}; }}
        actions = {{ set_port; miss_port; }}
        default_action = miss_port(15);
        size = 1024;
    }}
    apply {{ t.apply(); }}
}}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t h, inout meta_t m) {{ apply {{ }} }}
control Dep(packet_out pkt, in headers_t h) {{ apply {{ pkt.emit(h.eth); pkt.emit(h.d); }} }}

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
"""


def out_pkt(f1, port):
    tail = "aa" if port != 15 else "bb"
    return ETH + data(f1)[:-2] + tail + "cafe"


def gen_exact(rng):
    keys = rng.sample(range(1 << 32), 200)
    ents = [(k, rng.randrange(0, 15)) for k in keys]
    adds = [f"add t f1:{k:#010x} set_port(port:{p})" for k, p in ents]
    probes = [k for k, _ in rng.sample(ents, 20)] + [rng.randrange(1 << 32) for _ in range(5)]
    table = dict(ents)
    res = [(f, table.get(f, 15)) for f in probes]
    return adds, res


def gen_lpm(rng):
    ents = {}
    base = [rng.randrange(1 << 32) for _ in range(12)]
    while len(ents) < 150:
        b = rng.choice(base)
        plen = rng.randrange(4, 33)
        pre = (b ^ rng.randrange(1 << max(0, 32 - plen - 2) or 1)) & (((1 << plen) - 1) << (32 - plen))
        ents[(pre, plen)] = rng.randrange(0, 15)
    adds = [f"add t f1:{v:#010x}/{n} set_port(port:{p})" for (v, n), p in ents.items()]
    probes = [rng.choice(base) ^ rng.randrange(1 << rng.randrange(1, 33)) for _ in range(30)]

    def look(f):
        best = None
        for (v, n), p in ents.items():
            mask = ((1 << n) - 1) << (32 - n)
            if f & mask == v and (best is None or n > best[0]):
                best = (n, p)
        return best[1] if best else 15
    return adds, [(f, look(f)) for f in probes]


def gen_ternary(rng):
    ents = []
    prios = rng.sample(range(1, 10000), 120)
    for prio in prios:
        mask = 0
        for _ in range(rng.randrange(1, 5)):
            mask |= 0xFF << (8 * rng.randrange(4))
        mask &= rng.choice([0xFFFFFFFF, 0xF0F0F0F0, 0xFFFF0000, 0x00FFFF00, 0xFFFFFFFF])
        if mask == 0:
            mask = 0xFF000000
        val = rng.choice([0x0A000000, 0x0A0B0000, 0xC0A80000, 0x12345678]) & mask
        ents.append((val, mask, prio, rng.randrange(0, 15)))
    seen, uniq = set(), []
    for e in ents:  # identical (value, mask) would be a duplicate entry
        if (e[0], e[1]) not in seen:
            seen.add((e[0], e[1]))
            uniq.append(e)
    adds = [f"add t {pr} f1:{v:#010x}&&&{m:#010x} set_port(port:{p})" for v, m, pr, p in uniq]
    probes = [rng.choice([0x0A000000, 0x0A0B0000, 0xC0A80000, 0x12345678]) | rng.randrange(1 << 16)
              for _ in range(30)] + [rng.randrange(1 << 32) for _ in range(5)]

    def look(f):
        hits = [(pr, p) for v, m, pr, p in uniq if f & m == v]
        return max(hits)[1] if hits else 15
    return adds, [(f, look(f)) for f in probes]


def gen_range(rng):
    ents = []
    prios = rng.sample(range(1, 10000), 80)
    for prio in prios:
        lo = rng.randrange(1 << 20)
        hi = lo + rng.randrange(1 << rng.randrange(4, 18))
        ents.append((lo, min(hi, (1 << 32) - 1), prio, rng.randrange(0, 15)))
    adds = [f"add t {pr} f1:{lo:#x}->{hi:#x} set_port(port:{p})" for lo, hi, pr, p in ents]
    probes = [rng.randrange(1 << 20) for _ in range(30)] + [ents[0][0], ents[0][1], ents[1][1] + 1]

    def look(f):
        hits = [(pr, p) for lo, hi, pr, p in ents if lo <= f <= hi]
        return max(hits)[1] if hits else 15
    return adds, [(f, look(f)) for f in probes]


CASES = {
    "exact": (gen_exact, "200 entries; hits and misses."),
    "lpm": (gen_lpm, "150 nested prefixes of lengths 4..32; the longest matching prefix wins."),
    "ternary": (gen_ternary, "overlapping value/mask entries; the largest priority wins."),
    "range": (gen_range, "80 overlapping ranges; the largest priority wins, bounds inclusive."),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "tests", "tables")
    os.makedirs(out, exist_ok=True)
    for kind, (fn, comment) in CASES.items():
        rng = random.Random(f"p4stf-{kind}")
        adds, res = fn(rng)
        lines = [f"# {kind} table, generated by gen/gen_tables.py; see the .p4 comment"] + adds
        for f1, port in res:
            lines.append(f"packet 0 {ETH + data(f1) + 'cafe'}")
        for f1, port in res:
            lines.append(f"expect {port} {out_pkt(f1, port)} $")
        with open(os.path.join(out, f"{kind}_many.p4"), "w") as f:
            f.write(program(kind, comment))
        with open(os.path.join(out, f"{kind}_many.stf"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
