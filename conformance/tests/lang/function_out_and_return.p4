// Checks: a function with an out parameter and a return value used inside an expression:
// split(v, hi) returns the low byte and writes the high byte to hi; the return value and
// the out value are both used (b1 = low + 1, b2 = hi).
// Expected packets: by hand with h1 = 0xABCD: b1 = 0xCE, b2 = 0xAB.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
bit<8> split(in bit<16> v, out bit<8> hi) {
    hi = v[15:8];
    return v[7:0];
}


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        bit<8> hi;
        h.d.b1 = split(h.d.h1, hi) + 1;
        h.d.b2 = hi;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
