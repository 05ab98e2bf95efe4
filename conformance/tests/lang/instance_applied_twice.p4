// Checks: one control instance applied from two places: each apply runs the body again
// with its own copy-in/copy-out, and a local variable starts fresh each time. (A table
// inside such an instance would be reached from two places with different continuations:
// BMv2 cannot express that; p4c and p4compile refuse it.)
// Expected packets: by hand: b2 = 0 + (1 + b1) + (1 + b1), b1 = 1 -> 4, b1 = 2 -> 6.
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
control bump(inout bit<8> v, in bit<8> k) {
    apply {
        bit<8> local = 1;
        v = v + local + k;
        local = local + 5;
    }
}
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    bump() b;
    apply {
        b.apply(h.d.b2, h.d.b1);
        b.apply(h.d.b2, h.d.b1);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
