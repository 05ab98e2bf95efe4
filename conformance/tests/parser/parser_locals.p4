// Checks: a variable declared at parser level keeps its value across states: it is set
// from the Ethernet type in start, adjusted in a second state and copied to metadata in a
// third (m.x = etype + 1), while a state-local variable shadows nothing.
// Expected packets: by hand: f2 = 0x1235 for etype 0x1234.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    bit<32> acc;
    state start {
        pkt.extract(h.eth);
        acc = (bit<32>)h.eth.etype;
        transition bump;
    }
    state bump {
        bit<32> one = 1;
        acc = acc + one;
        transition finish;
    }
    state finish {
        m.x = acc;
        pkt.extract(h.d);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.f2 = m.x;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
