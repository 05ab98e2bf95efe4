// Checks: bool locals, &&, ||, !, == on bools and short-circuit evaluation: the right side
// of && is not evaluated when the left is false (g() would increment b2).
// Bits of b1 out: 7 = a && b, 6 = a || b, 5 = !a, 4 = a == b; a = f1 > 5, b = f2 != 0.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
bool g(inout bit<8> v) { v = v + 1; return true; }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        bool a = h.d.f1 > 5;
        bool b = h.d.f2 != 0;
        h.d.b1 = (bit<1>)(a && b) ++ (bit<1>)(a || b) ++ (bit<1>)(!a) ++ (bit<1>)(a == b) ++ 4w0;
        if (a && g(h.d.b2)) {
            h.d.h1 = 1;
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
