// Checks: a control with state (a register) instantiated twice: each instance has its own
// register (spec, instantiations: every instantiation is a separate object), and one instance
// applied twice in a packet uses the same register both times. Cnt adds 1 to cell 0 and
// hands the new value out.
// Expected packets: by hand: packet 1: c1 applied twice -> 1 then 2, b1 = 2; c2 once ->
// b2 = 1. Packet 2: c1 -> 3, 4 (b1 = 4); c2 -> 2 (b2 = 2).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<16> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Cnt(inout bit<8> v) {
    register<bit<8>>(1) r;
    apply {
        bit<8> t;
        r.read(t, 0);
        t = t + 1;
        r.write(0, t);
        v = t;
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Cnt() c1;
    Cnt() c2;
    apply {
        c1.apply(h.d.b1);
        c1.apply(h.d.b1);
        c2.apply(h.d.b2);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
