// Checks: an action whose directionless parameter comes from the control plane and whose
// `in` parameter is bound in the table's actions list to an expression (h.d.b2 + 1): the
// bound value is evaluated when the table runs.
// Expected packets: by hand: f2 = (b2 + 1) * 0x100 + entry's v.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action mix(in bit<8> x, bit<8> v) { h.d.f2 = (bit<32>)(x ++ v); }
    table t {
        key = { h.d.f1: exact; }
        actions = { mix(h.d.b2 + 1); NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
