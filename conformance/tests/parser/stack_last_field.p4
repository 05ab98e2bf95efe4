// Checks: a parser assignment from a field of the stack's last element (m.y = h.mpls.last.ttl,
// read in every loop iteration, so it ends as the bottom label's ttl): BMv2 takes the
// source as an expression. b1 = m.y, b2 = mpls[1].ttl.
// Expected packets: by hand (MPLS label words packed label<<12 | tc<<9 | bos<<8 | ttl).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header mpls_t { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
struct headers_t { ethernet_t eth; mpls_t[4] mpls; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x8847: parse_mpls;
            default: parse_d;
        }
    }
    state parse_mpls {
        pkt.extract(h.mpls.next);
        m.y = h.mpls.last.ttl;
        transition select(h.mpls.last.bos) {
            1: parse_d;
            default: parse_mpls;
        }
    }
    state parse_d { pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.b1 = m.y;
        h.d.b2 = h.mpls[1].ttl;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.mpls); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
