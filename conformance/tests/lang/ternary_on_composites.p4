// Checks: `?:` whose branches are headers or structs (spec, conditional operator: the conditional operator
// works on any type; only the chosen branch is evaluated), as an assignment's right side
// and as a declaration's initialiser, including a branch that is an invalid header (the
// target then becomes invalid).
// Expected packets: by hand. x = {1, 2, 0x0003}; y never valid; p = {b1, b2}; q = {9, 9}.
//   r = (h1 == 0) ? p : q;  h.d = (b1 == 1) ? x : h.d;  z = (h.d.b2 == 2) ? y : x;
//   h1 := 0xffff if z is invalid; b2 := r.a.
//   in 01 02 00 00: r = p = {1, 2}; h.d = x = 01 02 00 03; z = y (invalid) -> h1 = ffff;
//     b2 = 1 -> out 01 01 ff ff.
//   in 05 07 00 10: r = q; h.d unchanged; z = x (valid) -> h1 stays; b2 = 9 -> 05 09 00 10.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct pair_t { bit<8> a; bit<8> b; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        data_t x = { 1, 2, 3 };
        data_t y;
        pair_t p = { h.d.b1, h.d.b2 };
        pair_t q = { 9, 9 };
        pair_t r = h.d.h1 == 0 ? p : q;
        h.d = h.d.b1 == 1 ? x : h.d;
        data_t z = h.d.b2 == 2 ? y : x;
        if (!z.isValid()) { h.d.h1 = 0xffff; }
        h.d.b2 = r.a;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
