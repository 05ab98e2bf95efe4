// Checks: a whole header from lookahead<data_t>() compared with == inside an expression
// (spec, lookahead: the lookahead result is an ordinary header value, valid; headers are
// equal when both are valid with equal fields), without consuming the packet.
// Expected packets: by hand: m.x = (lookahead == {1, 2, 0x0003}) ? 1 : 2, then data is
// extracted and ingress writes b2 := m.x.
//   01 02 00 03 -> equal -> b2 = 1;  01 02 00 04 -> not equal -> b2 = 2.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        data_t t = { 1, 2, 3 };
        m.x = (pkt.lookahead<data_t>() == t) ? 8w1 : 8w2;
        pkt.extract(h.d);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.b2 = m.x; sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
