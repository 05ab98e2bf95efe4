// Checks: an operand is read before a call to its right runs (spec 8.1: left to right;
// the call's inout copy-out must not change a value already read): `v + f(v)` in an
// assignment, `x == f(x)` in an if condition, `a ++ f(a)` and `a |+| f(a)`.
// Expected packets: by hand; f(inout v) sets v = 0xb6 and returns 2:
//   a: a1 = 0x03 + f(a1) = 3 + 2 = 0x05 (not 0xb6 + 2); a1 itself becomes 0xb6, then is
//      overwritten by the sum -> a1 = 0x05
//   b: b1 = 0x02: (b1 == f(b1)) is 2 == 2 -> true -> flag = 0x01; b1 ends 0xb6
//   c: c16 = c1 ++ f(c1) with c1 = 0x7f -> 0x7f02; c1 ends 0xb6
//   d: d1 = 0xff |+| f(d1) -> saturates at 0xff (not 0xb6 + 2 = 0xb8)
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> a1; bit<8> b1; bit<8> flag; bit<8> c1; bit<16> c16; bit<8> d1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

bit<8> f(inout bit<8> v) { v = 0xb6; return 2; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.a1 = h.d.a1 + f(h.d.a1);
        if (h.d.b1 == f(h.d.b1)) {
            h.d.flag = 1;
        }
        h.d.c16 = h.d.c1 ++ f(h.d.c1);
        h.d.d1 = h.d.d1 |+| f(h.d.d1);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
