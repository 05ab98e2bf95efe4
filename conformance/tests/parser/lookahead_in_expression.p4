// Checks: lookahead used inside expressions in a parser, not only as a select key:
// a header's field (`lookahead<len_t>().len`) in an advance amount, and a bit<8> plus one
// assigned to metadata.
// Expected packets: by hand: after Ethernet, len_t says 3 more bytes follow it (len = 3):
// advance(8 * (1 + 3)) skips len_t and the 3 bytes; the next byte 0x41 is peeked,
// m.y = 0x41 + 1 = 0x42 -> d.b2; d.b1 = 0x41 is extracted.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header len_t { bit<4> kind; bit<4> len; }
header data_t { bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.advance((bit<32>)(8 * (1 + (bit<9>)pkt.lookahead<len_t>().len)));
        m.y = pkt.lookahead<bit<8>>() + 1;
        pkt.extract(h.d);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.b2 = m.y; sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
