// Checks: lookahead<bit<8>>() peeks without consuming: a first byte of 0x01 selects a
// one-byte tag header before data, otherwise data starts right away. Ingress: port 2 if
// the tag is valid else 1; h1 = f1[15:0] shows data was parsed at the right offset.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header tag_t { bit<8> t; }
struct headers_t { ethernet_t eth; tag_t tag; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(pkt.lookahead<bit<8>>()) {
            0x01: parse_tag;
            default: parse_d;
        }
    }
    state parse_tag { pkt.extract(h.tag); transition parse_d; }
    state parse_d { pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.h1 = h.d.f1[15:0];
        if (h.tag.isValid()) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.tag); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
