// Checks: a control declared at top level, instantiated twice inside ingress and applied
// with a header argument (inout); each application adds 1 to b1 (0x40 -> 0x42), and a
// local table inside the sub-control runs its default action (b2 = 0x5B).
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
control Sub(inout data_t d) {
    action mark() { d.b2 = 0x5b; }
    table t { actions = { mark; } default_action = mark(); }
    apply {
        d.b1 = d.b1 + 1;
        t.apply();
    }
}


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Sub() s1;
    Sub() s2;
    apply {
        s1.apply(h.d);
        s2.apply(h.d);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
