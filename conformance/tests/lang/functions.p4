// Checks: a function declaration with in parameters and a return value, the ?: operator,
// and nested calls: b1 = max(b1, b2), h1 = max(b1, b2) + min(b1, b2) (computed in 16 bits).
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
bit<8> max8(in bit<8> a, in bit<8> b) { return a > b ? a : b; }
bit<8> min8(in bit<8> a, in bit<8> b) { if (a < b) { return a; } return b; }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.h1 = (bit<16>)max8(h.d.b1, h.d.b2) + (bit<16>)min8(h.d.b1, h.d.b2);
        h.d.b1 = max8(h.d.b1, h.d.b2);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
