// Checks: == and != on header unions (spec, operations on header unions: equal when no member is valid in either,
// or the same member is valid in both with equal fields), on local unions, unions passed
// to a function as `in` parameters, and stacks of unions (element by element).
// Local unions start with no valid member. Bits of r (written to b1):
//   0x01: x == y with both empty; 0x02: x != y once x.a is valid;
//   0x04: x == y with x.a and y.b valid (never: different members);
//   0x08: x == y with both .a valid, x.a.v = h1 and y.a.v = 0x1234 (when h1 == 0x1234);
//   0x10: the same through same(x, y); 0x20: {x, y} == {x, x} as union stacks (same condition);
// b2 := 1 when y.b is invalid after y.a.setValid() (setting a member valid invalidates the others).
// Expected packets: by hand: h1 = 0x1234 -> r = 0x01|0x02|0x08|0x10|0x20 = 0x3b;
// h1 = 0x0001 -> r = 0x03. b2 = 1 in both.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
header a_t { bit<16> v; }
header b_t { bit<32> w; }
header_union u_t { a_t a; b_t b; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

bool same(in u_t p, in u_t q) { return p == q; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        u_t x;
        u_t y;
        bit<8> r = 0;
        if (x == y) { r = r | 0x01; }
        x.a.setValid();
        x.a.v = h.d.h1;
        if (x != y) { r = r | 0x02; }
        y.b.setValid();
        y.b.w = (bit<32>)h.d.h1;
        if (x == y) { r = r | 0x04; }
        y.a.setValid();
        y.a.v = 0x1234;
        if (x == y) { r = r | 0x08; }
        if (same(x, y)) { r = r | 0x10; }
        u_t[2] s;
        u_t[2] t;
        s[0] = x; s[1] = y;
        t[0] = x; t[1] = x;
        if (s == t) { r = r | 0x20; }
        h.d.b2 = y.b.isValid() ? 8w0 : 8w1;
        h.d.b1 = r;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
