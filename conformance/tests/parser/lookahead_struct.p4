// Checks: lookahead<T>() of a struct type (spec 12.8.3: any fixed-width type): as the
// initializer of a struct variable (each field from its offset, the packet not advanced),
// a field of it in select, and as a statement whose value is unused (p4c still reads it,
// so a packet too short for it ends the parser with PacketTooShort on BMv2; p4switch reads
// zeros past the end today, so no packet here is that short).
// Expected packets: by hand:
//   1: after Ethernet, bytes 05 00 0c aa | 01 02 03 04: peek = {kind 0x05, len 0x000c};
//      kind 5 -> state five; the 8-byte peek fits; d = 05 00 0c aa is extracted;
//      d.tag = len + kind = 0x11.  Out on port 1.
//   2: kind 0x07 -> default, d.tag = 0xee.  Out on port 1.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> kind; bit<16> len; bit<8> tag; }
struct peek_t { bit<8> kind; bit<16> len; }
struct wide_t { bit<32> first; bit<32> second; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> sum; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        peek_t p = pkt.lookahead<peek_t>();
        m.sum = p.len[7:0] + p.kind;
        transition select(pkt.lookahead<peek_t>().kind) {
            5: five;
            default: other;
        }
    }
    state five {
        pkt.lookahead<wide_t>();
        pkt.extract(h.d);
        transition accept;
    }
    state other {
        pkt.lookahead<wide_t>();
        pkt.extract(h.d);
        m.sum = 0xee;
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error != error.NoError) {
            mark_to_drop(sm);
            return;
        }
        h.d.tag = m.sum;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
