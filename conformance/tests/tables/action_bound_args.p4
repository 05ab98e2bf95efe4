// Checks: actions listed in a table with their directional (out/inout) arguments bound in
// the actions list (set_byte(h.d.b1) in one table, set_byte(h.d.b2) in another, bump(h.d.h1)
// with an inout), while the control plane supplies only the directionless parameter.
// Expected packets: by hand: t1 hit writes b1 = 0x11, t2 hit writes b2 = 0x22, t3 hit adds
// the entry's step to h1.
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
    action set_byte(out bit<8> dst, bit<8> val) { dst = val; }
    action bump(inout bit<16> v, bit<16> step) { v = v + step; }
    table t1 {
        key = { h.d.f1: exact; }
        actions = { set_byte(h.d.b1); NoAction; }
        default_action = NoAction();
    }
    table t2 {
        key = { h.d.f1: exact; }
        actions = { set_byte(h.d.b2); NoAction; }
        default_action = NoAction();
    }
    table t3 {
        key = { h.d.f1: exact; }
        actions = { bump(h.d.h1); NoAction; }
        default_action = NoAction();
    }
    apply {
        t1.apply();
        t2.apply();
        t3.apply();
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
