// Checks: the divisions BMv2 can run although it has no division operator (a divisor
// known at compile time that is a power of two; a zero dividend; `% 1`), and that an
// operand the result does not depend on is still evaluated for its side effects
// (spec 8.7: operands are evaluated; 0 / x is 0 whatever x is, x != 0).
// Expected packets: by hand, from the input a = 0x9c (156), b = 0x07:
//   q = a / 8  = 19 = 0x13;   r = a % 16 = 12 = 0x0c;   s = a % 1 = 0
//   z = 0 / touch(b) = 0, and touch sets b to 0x42 (its inout side effect)
//   y = 0 % touch2(c) = 0, and touch2 sets c to 0x43
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> a; bit<8> b; bit<8> c; bit<8> q; bit<8> r; bit<8> s; bit<8> z; bit<8> y; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

bit<8> touch(inout bit<8> v) { v = 0x42; return 3; }
bit<8> touch2(inout bit<8> v) { v = 0x43; return 5; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.q = h.d.a / 8;
        h.d.r = h.d.a % 16;
        h.d.s = h.d.a % 1;
        h.d.z = 8w0 / touch(h.d.b);
        h.d.y = 8w0 % touch2(h.d.c);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
