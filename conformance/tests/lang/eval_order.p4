// Checks: left-to-right evaluation of side effects in an expression: g(inout v) increments
// v and returns it; b2 = g(b1) - g(b1) with b1 = 3 is 4 - 5 = 0xFF and b1 ends at 5.
// Also out-parameter copy-out order: set2(a, a) leaves the value of the last out.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
bit<8> g(inout bit<8> v) { v = v + 1; return v; }
void set2(out bit<16> a, out bit<16> b) { a = 0x1111; b = 0x2222; }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.b2 = g(h.d.b1) - g(h.d.b1);
        set2(h.d.h1, h.d.h1);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
