// Checks: a control type applied directly (`sub.apply(h)`, no instance declared) from
// ingress and from egress: each call site is an instance of its own (spec: direct type
// invocation), named after the type (Ing.sub.t, Eg.sub.t), with its own table entries.
// Expected packets: by hand: b1 = 1 hits both tables, b2 = 0 + 0x10 + 0x01 = 0x11;
// b1 = 2 hits only the egress instance, b2 = 0x01.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control sub(inout headers_t h) {
    action add_b2(bit<8> x) { h.d.b2 = h.d.b2 + x; }
    table t {
        key = { h.d.b1: exact; }
        actions = { add_b2; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sub.apply(h);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { sub.apply(h); }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
