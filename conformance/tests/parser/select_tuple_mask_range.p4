// Checks: select on a tuple (b1, b2) with a mask (&&&), a range (..), don't-care (_),
// exact values and default; the first matching case wins. Each state writes h1 = case no.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.d);
        transition select(h.d.b1, h.d.b2) {
            (8w0x10 &&& 8w0xf0, _): s1;
            (_, 8w5 .. 8w9): s2;
            (8w1, 8w1): s3;
            default: s4;
        }
    }
    state s1 { h.d.h1 = 1; transition accept; }
    state s2 { h.d.h1 = 2; transition accept; }
    state s3 { h.d.h1 = 3; transition accept; }
    state s4 { h.d.h1 = 4; transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
