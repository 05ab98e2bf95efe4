// Checks: action parameters used in arithmetic with packet fields (f1 += v, wrapping at
// 32 bits; h1 = h1 - d; b1 = b1 ^ m): the control plane's values reach the expressions.
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
    action adjust(bit<32> v, bit<16> d, bit<8> m) {
        h.d.f1 = h.d.f1 + v;
        h.d.h1 = h.d.h1 - d;
        h.d.b1 = h.d.b1 ^ m;
    }
    table t {
        key = { h.d.b2: exact; }
        actions = { adjust; NoAction; }
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
