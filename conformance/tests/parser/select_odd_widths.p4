// Checks: select on a tuple of non-byte-aligned fields (3-bit pcp, 12-bit vid) with exact
// values, a mask on the 12-bit field and a range; an assignment with arithmetic in a
// parser state (m.x = vid + 1, reported in f2).
// States write h1: 1 for (5, 100), 2 for (_, vid & 0xF00 == 0x200), 3 for pcp 6..7, 4 else.
// Expected packets: by hand (vlan word = pcp<<13 | cfi<<12 | vid).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> etype; }
struct headers_t { ethernet_t eth; vlan_t vlan; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.vlan);
        m.x = (bit<32>)h.vlan.vid + 1;
        pkt.extract(h.d);
        transition select(h.vlan.pcp, h.vlan.vid) {
            (3w5, 12w100): s1;
            (_, 12w0x200 &&& 12w0xf00): s2;
            (3w6 .. 3w7, _): s3;
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
        h.d.f2 = m.x;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.vlan); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
