// Checks: if/else inside an action body (run from a table and called directly), including a
// nested if and a condition on an action parameter.
// classify(lim): b2 = 1 if f1 > lim, 2 if f1 == lim, else 3 (and h1 = 0xAAAA when f1 is 0).
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
    action classify(bit<32> lim) {
        if (h.d.f1 > lim) {
            h.d.b2 = 1;
        } else if (h.d.f1 == lim) {
            h.d.b2 = 2;
        } else {
            h.d.b2 = 3;
            if (h.d.f1 == 0) { h.d.h1 = 0xaaaa; }
        }
    }
    action mark(bit<8> v) { if (v == 7) { h.d.f2 = 0x77; } else { h.d.f2 = 0x11; } }
    table t {
        actions = { classify; }
        default_action = classify(100);
    }
    apply {
        t.apply();
        mark(h.d.b1);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
