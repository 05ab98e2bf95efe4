// Checks: exit inside a nested control ends the whole ingress control, not only the nested
// one: after s.apply() ingress would set b1 = 2, which must not happen when the
// sub-control exits (b2 == 1); egress still runs (h1 = 0xE).
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
control Sub(inout data_t d) {
    apply {
        d.b1 = 1;
        if (d.b2 == 1) {
            exit;
        }
    }
}


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Sub() s;
    apply {
        sm.egress_spec = 1;
        s.apply(h.d);
        h.d.b1 = 2;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.h1 = 0xe;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
