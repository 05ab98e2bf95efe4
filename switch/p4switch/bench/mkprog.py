"""Adds const entries to the engine's L3 benchmark programs so the real binary
can run them without a controller: 10,000 routes in MyIngress.ipv4_lpm (the
distribution of the engine's in-process benchmark: 9,000 /24, 800 /16, 150 /32,
50 /8, including 10.0.1.0/24 for the generator's traffic), 256 next hops all
leaving on port 2, and with --acl 10,000 ternary entries in MyIngress.acl that
the generator's UDP traffic does not match. With --count every forwarded frame
also counts itself in one register cell, `n = frames[0]; frames[0] = n + 1` in
the next-hop action: a read-modify-write that every worker does on the same
cell (the worst case for the engine's per-action register lock).

usage: python3 mkprog.py IN.json [--acl] [--count] > OUT.json   (standard library only)
"""
import json
import sys


class Rng:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        m = (1 << 64) - 1
        self.s ^= (self.s << 13) & m
        self.s ^= self.s >> 7
        self.s ^= (self.s << 17) & m
        return self.s


def hexs(b):
    return "0x" + bytes(b).hex()


def routes():
    rng, seen, out = Rng(0x12345678), {((10, 0, 1, 0), 24)}, [((10, 0, 1, 0), 24)]
    while len(out) < 10000:
        r, n = rng.next(), len(out)
        if n < 9000:
            a, p = (10, (r >> 8) & 255, (r >> 16) & 255, 0), 24
        elif n < 9800:
            a, p = (11 + r % 4, (r >> 8) & 255, 0, 0), 16
        elif n < 9950:
            a, p = (12, (r >> 8) & 255, (r >> 16) & 255, (r >> 24) & 255), 32
        else:
            a, p = (20 + r % 200, 0, 0, 0), 8
        if (a, p) in seen:
            continue
        seen.add((a, p))
        out.append((a, p))
    return out


def acl():
    rng, seen, out = Rng(0x9ABCDEF0), set(), []
    while len(out) < 10000:
        r, shape = rng.next(), len(out) % 4
        src = [192, 168, (r >> 8) & 255, (r >> 16) & 255]
        dst = [10, (r >> 24) & 255, (r >> 32) & 255, (r >> 40) & 255]
        sm, dm, pm = [([255, 255, 0, 0], [255] * 4, 255), ([255] * 4, [255, 255, 255, 0], 0),
                      ([255, 0, 0, 0], [255] * 4, 255), ([0] * 4, [255] * 4, 255)][shape]
        sv = [a & m for a, m in zip(src, sm)]
        dv = [a & m for a, m in zip(dst, dm)]
        proto = 6 if shape == 3 else ((6 if r & 1 == 0 else 17) & pm)
        key = (tuple(sv), tuple(dv), proto, shape)
        if key in seen:
            continue
        seen.add(key)
        out.append(([{"match_type": "ternary", "key": hexs(sv), "mask": hexs(sm)},
                     {"match_type": "ternary", "key": hexs(dv), "mask": hexs(dm)},
                     {"match_type": "ternary", "key": hexs([proto]), "mask": hexs([pm])}], len(out) % 1000 + 1))
    return out


def main():
    prog = json.load(open(sys.argv[1]))
    tables = {t["name"]: t for t in prog["pipelines"][0]["tables"]}
    aid = {a["name"]: a["id"] for a in prog["actions"]}
    tables["MyIngress.ipv4_lpm"]["entries"] = [
        {"match_key": [{"match_type": "lpm", "key": hexs(a), "prefix_length": p}],
         "action_entry": {"action_id": aid["MyIngress.set_nhop"], "action_data": [hexs([0, i % 256])]},
         "priority": i + 1}
        for i, (a, p) in enumerate(routes())]
    tables["MyIngress.nexthop"]["entries"] = [
        {"match_key": [{"match_type": "exact", "key": hexs([0, nh])}],
         "action_entry": {"action_id": aid["MyIngress.set_dmac_port"],
                          "action_data": [hexs([2, 0, 0, 0, 0, 0xaa]), hexs([2, 0, 0, 0, 0, 2]), "0x0002"]},
         "priority": nh + 1}
        for nh in range(256)]
    if "--acl" in sys.argv:
        tables["MyIngress.acl"]["entries"] = [
            {"match_key": k, "action_entry": {"action_id": aid["MyIngress.acl_deny"], "action_data": []},
             "priority": p} for k, p in acl()]
    if "--count" in sys.argv:
        prog["header_types"][0]["fields"].append(["count_n", 32, False])
        prog["register_arrays"] = [{"name": "MyIngress.frames", "id": 0, "size": 1, "bitwidth": 32}]
        reg = {"type": "register_array", "value": "MyIngress.frames"}
        n = {"type": "field", "value": ["scalars", "count_n"]}
        plus1 = {"type": "expression", "value": {"type": "expression", "value": {
            "op": "&", "left": {"type": "expression", "value": {"op": "+", "left": n, "right": {"type": "hexstr", "value": "0x1"}}},
            "right": {"type": "hexstr", "value": "0xffffffff"}}}}
        act = next(a for a in prog["actions"] if a["name"] == "MyIngress.set_dmac_port")
        act["primitives"] += [{"op": "register_read", "parameters": [n, reg, {"type": "hexstr", "value": "0x0"}]},
                              {"op": "register_write", "parameters": [reg, {"type": "hexstr", "value": "0x0"}, plus1]}]
    json.dump(prog, sys.stdout)


main()
