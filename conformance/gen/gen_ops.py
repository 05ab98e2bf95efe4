#!/usr/bin/env python3
"""Write tests/ops/{u,s}W_ops.p4 + .stf: every arithmetic/bitwise/comparison operator
of bit<W> and int<W> at the edge widths, with expected results computed here with
Python integers (wrap = mask to W bits; signed = two's complement). No switch is run.

Run from conformance/: python3 gen/gen_ops.py  (rewrites the files; commit them)."""
import os

WIDTHS_U = [1, 7, 8, 9, 31, 32, 33, 48, 64, 65, 128]
WIDTHS_S = [7, 8, 9, 31, 32, 33, 48, 64, 65, 128]
RESULTS = ["r_add", "r_sub", "r_mul", "r_and", "r_or", "r_xor", "r_not", "r_neg",
           "r_shl", "r_shr", "r_shl_rt", "r_shr_rt", "r_sadd", "r_ssub"]
ETH = bytes.fromhex("000000000001" "000000000002" "88b5")
PAYLOAD = bytes.fromhex("dead")


def pack(fields):
    """fields: list of (value, width) MSB first -> bytes (total is a multiple of 8)."""
    acc, n = 0, 0
    for v, w in fields:
        acc = (acc << w) | (v & ((1 << w) - 1))
        n += w
    assert n % 8 == 0, n
    return acc.to_bytes(n // 8, "big")


def expected(a, b, s, w, signed):
    m = (1 << w) - 1

    def sv(x):  # signed view
        x &= m
        return x - (1 << w) if signed and x >> (w - 1) else x
    A, B = sv(a), sv(b)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, m)
    r = {
        "r_add": A + B, "r_sub": A - B, "r_mul": A * B, "r_and": A & B, "r_or": A | B,
        "r_xor": A ^ B, "r_not": ~A, "r_neg": -A, "r_shl": A << 1, "r_shr": A >> 1,
        "r_shl_rt": A << s, "r_shr_rt": A >> s,
        "r_sadd": min(max(A + B, lo), hi), "r_ssub": min(max(A - B, lo), hi),
    }
    cmp = [A == B, A != B, A < B, A <= B, A > B, A >= B]
    flags = 0
    for c in cmp:
        flags = (flags << 1) | int(c)
    flags <<= 2
    return [(r[k] & m, w) for k in RESULTS], flags


def vectors(w, signed):
    m = (1 << w) - 1
    top = 1 << (w - 1)
    pat_a = int(("a5" * 17), 16) & m
    pat_b = int(("3c" * 17), 16) & m
    if signed:
        return [(top - 1, 1, 1),             # max + 1 wraps to min; |+| clamps to max
                (top, 1, w),                  # min - 1 wraps to max; |-| clamps to min
                (m, m - 1, 3 % w),            # -1 and -2
                (pat_a, pat_b, 200),          # shift by more than the width
                (pat_b, pat_b, 0)]            # equal operands
    return [(m, 1, 1),                        # max + 1 wraps to 0; |+| saturates at max
            (0, 1, w),                        # 0 - 1 wraps to max; |-| saturates at 0
            (pat_a, pat_b, 3 % w),
            (pat_b, pat_a, 200),
            (pat_b, pat_b, 0)]


def program(w, signed):
    t = f"int<{w}>" if signed else f"bit<{w}>"
    kind = "signed int" if signed else "unsigned bit"
    note = (", with two's complement wrap and arithmetic >>" if signed
            else f", wrapping modulo 2^{w}")
    fields = "\n".join(f"    {t} {r};" for r in RESULTS)
    return f"""// Checks: {kind} operators at width {w}: + - * & | ^ ~ unary-, << and >> by a
// constant and by a runtime amount (incl. >= width), saturating |+| |-|, and
// == != < <= > >= (packed as bits 7..2 of `cmp`){note}.
// Expected packets: computed by conformance/gen/gen_ops.py with Python integers
// (results masked to {w} bits), independently of any switch.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etype; }}
header ops_t {{
    {t} a;
    {t} b;
    bit<8> s;
{fields}
    bit<8> cmp;
}}
struct headers_t {{ ethernet_t eth; ops_t ops; }}
struct meta_t {{ }}

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(h.eth); pkt.extract(h.ops); transition accept; }}
}}
control VC(inout headers_t h, inout meta_t m) {{ apply {{ }} }}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {{
    apply {{
        h.ops.r_add = h.ops.a + h.ops.b;
        h.ops.r_sub = h.ops.a - h.ops.b;
        h.ops.r_mul = h.ops.a * h.ops.b;
        h.ops.r_and = h.ops.a & h.ops.b;
        h.ops.r_or = h.ops.a | h.ops.b;
        h.ops.r_xor = h.ops.a ^ h.ops.b;
        h.ops.r_not = ~h.ops.a;
        h.ops.r_neg = -h.ops.a;
        h.ops.r_shl = h.ops.a << 1;
        h.ops.r_shr = h.ops.a >> 1;
        h.ops.r_shl_rt = h.ops.a << h.ops.s;
        h.ops.r_shr_rt = h.ops.a >> h.ops.s;
        h.ops.r_sadd = h.ops.a |+| h.ops.b;
        h.ops.r_ssub = h.ops.a |-| h.ops.b;
        h.ops.cmp = (bit<1>)(h.ops.a == h.ops.b) ++ (bit<1>)(h.ops.a != h.ops.b) ++
                    (bit<1>)(h.ops.a < h.ops.b) ++ (bit<1>)(h.ops.a <= h.ops.b) ++
                    (bit<1>)(h.ops.a > h.ops.b) ++ (bit<1>)(h.ops.a >= h.ops.b) ++ 2w0;
        sm.egress_spec = 1;
    }}
}}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t h, inout meta_t m) {{ apply {{ }} }}
control Dep(packet_out pkt, in headers_t h) {{ apply {{ pkt.emit(h.eth); pkt.emit(h.ops); }} }}

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
"""


def stf(w, signed):
    lines = [f"# {'int' if signed else 'bit'}<{w}> operators; see the comment at the top of the .p4.",
             "# Header: a, b, s, then " + " ".join(RESULTS) + ", cmp."]
    for a, b, s in vectors(w, signed):
        res, flags = expected(a, b, s, w, signed)
        zero = [(0, w)] * len(RESULTS)
        inp = ETH + pack([(a, w), (b, w), (s, 8)] + zero + [(0, 8)]) + PAYLOAD
        out = ETH + pack([(a, w), (b, w), (s, 8)] + res + [(flags, 8)]) + PAYLOAD
        lines.append(f"# a={a:#x} b={b:#x} s={s}")
        lines.append(f"packet 0 {inp.hex()}")
        lines.append(f"expect 1 {out.hex()} $")
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "tests", "ops")
    os.makedirs(out, exist_ok=True)
    for signed, widths in ((False, WIDTHS_U), (True, WIDTHS_S)):
        for w in widths:
            name = f"{'s' if signed else 'u'}{w:03d}_ops"
            with open(os.path.join(out, name + ".p4"), "w") as f:
                f.write(program(w, signed))
            with open(os.path.join(out, name + ".stf"), "w") as f:
                f.write(stf(w, signed))


if __name__ == "__main__":
    main()
