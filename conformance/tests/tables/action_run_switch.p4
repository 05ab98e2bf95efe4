// Checks: switch on table.apply().action_run picks the case of the action that ran
// (a1 -> b1 = 0x11, a2 -> b1 = 0x22, default label for NoAction -> b1 = 0xDD).
// Expected packets: by hand.
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
    action a1() { h.d.h1 = 1; }
    action a2() { h.d.h1 = 2; }
    table t {
        key = { h.d.f1: exact; }
        actions = { a1; a2; NoAction; }
        default_action = NoAction();
        const entries = {
            32w1: a1();
            32w2: a2();
        }
    }
    apply {
        switch (t.apply().action_run) {
            a1: { h.d.b1 = 0x11; }
            a2: { h.d.b1 = 0x22; }
            default: { h.d.b1 = 0xdd; }
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
