// Checks: the same table applied in two branches (two switch cases) that continue to the
// same next statement: one table node reached from both (as fabric-tna's UPF control does).
// Expected packets: by hand: b1 = 1 or 2 takes a branch that applies t (b2 := 0xaa on a
// hit of h1), b1 = 3 takes neither; every packet then gets f2 := 7.
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
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action mark() { h.d.b2 = 0xaa; }
    action pick1() { m.y = 1; }
    action pick2() { m.y = 2; }
    table choose {
        key = { h.d.b1: exact; }
        actions = { pick1; pick2; NoAction; }
        const entries = { 1: pick1(); 2: pick2(); }
        default_action = NoAction();
    }
    table t {
        key = { h.d.h1: exact; }
        actions = { mark; NoAction; }
        default_action = NoAction();
    }
    apply {
        switch (choose.apply().action_run) {
            pick1: { h.d.f1 = 1; t.apply(); }
            pick2: { h.d.f1 = 2; t.apply(); }
        }
        h.d.f2 = 7;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
