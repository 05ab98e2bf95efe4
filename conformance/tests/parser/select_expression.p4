// Checks: select on computed expressions rather than plain fields: the low nibble of b1
// (b1 & 0x0F), and a concatenation b1[7:4] ++ b2[3:0]; states write h1 = case number.
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
        transition select(h.d.b1 & 0x0f) {
            0x3: s1;
            default: second;
        }
    }
    state second {
        transition select(h.d.b1[7:4] ++ h.d.b2[3:0]) {
            0xa5: s2;
            default: s3;
        }
    }
    state s1 { h.d.h1 = 1; transition accept; }
    state s2 { h.d.h1 = 2; transition accept; }
    state s3 { h.d.h1 = 3; transition accept; }
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
