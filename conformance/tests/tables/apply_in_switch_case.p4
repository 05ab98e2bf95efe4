// Checks: tables applied inside the cases of a switch on another table's action_run:
// t's action a1 leads to u (b2 = 0x11 on u's hit), a2 to w (b2 = 0x22); u and w are only
// applied on their path (h1 counts applications: +1 for u, +0x10 for w).
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
    action a1() { }
    action a2() { }
    action mark_u(bit<8> v) { h.d.b2 = v; h.d.h1 = h.d.h1 + 1; }
    action mark_w(bit<8> v) { h.d.b2 = v; h.d.h1 = h.d.h1 + 0x10; }
    table t {
        key = { h.d.b1: exact; }
        actions = { a1; a2; NoAction; }
        default_action = NoAction();
    }
    table u {
        key = { h.d.f1: exact; }
        actions = { mark_u; NoAction; }
        default_action = NoAction();
    }
    table w {
        key = { h.d.f1: exact; }
        actions = { mark_w; NoAction; }
        default_action = NoAction();
    }
    apply {
        switch (t.apply().action_run) {
            a1: { u.apply(); }
            a2: { w.apply(); }
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
