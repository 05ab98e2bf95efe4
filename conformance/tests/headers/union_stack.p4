// Checks: a stack of header_unions (spec 8.21; BMv2 header_union_stacks). The parser fills
// elements by constant index, choosing the member from a tag byte (lookahead); setting a
// member of an element valid invalidates the element's other member; assigning one element
// to another copies the valid member (or none); the deparser emits each element's valid
// member in index order and nothing for an element with none.
// Expected packets: by hand from those rules (P4-16 spec, header unions and their stacks).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header v4_t { bit<8> tag; bit<24> a; }
header v6_t { bit<8> tag; bit<56> a; }
header_union ip_u { v4_t v4; v6_t v6; }
struct headers_t { ethernet_t eth; ip_u[2] us; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x1234: first;
            default: accept;
        }
    }
    state first {
        transition select(pkt.lookahead<bit<8>>()) {
            4: first_v4;
            6: first_v6;
            default: accept;
        }
    }
    state first_v4 { pkt.extract(h.us[0].v4); transition second; }
    state first_v6 { pkt.extract(h.us[0].v6); transition second; }
    state second {
        transition select(pkt.lookahead<bit<8>>()) {
            4: second_v4;
            6: second_v6;
            default: accept;
        }
    }
    state second_v4 { pkt.extract(h.us[1].v4); transition accept; }
    state second_v6 { pkt.extract(h.us[1].v6); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.us[0].v4.isValid() && h.us[1].v6.isValid()) {
            sm.egress_spec = 2;
            h.us[1].v4.setValid();          // us[1].v6 becomes invalid
            h.us[1].v4.tag = 4;
            h.us[1].v4.a = 0xaabbcc;
        } else if (h.us[0].v6.isValid()) {
            sm.egress_spec = 3;
            h.us[0] = h.us[1];              // whatever us[1] holds, maybe nothing
        } else {
            sm.egress_spec = 1;
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.us); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
