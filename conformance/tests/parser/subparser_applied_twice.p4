// Checks: one sub-parser instance applied from two states of the main parser, with a
// different `out` header each time and an inout counter, and a state of the sub-parser
// (skip_one) reached from both calls (spec 13.8.1: each apply runs the sub-parser from its
// start state; p4c inlines each call site).
// Expected packets: by hand (m.count starts at 0; t1.len is overwritten with it):
//   A: t1 = 02 aa, t2 = 03 bb: both calls run, count = 2       -> t1 = 02 02, t2 = 03 bb, rest cc dd
//   B: t1 = 01 aa (skip 99), t2 = 05 bb: first call skips a byte -> 01 02, 05 bb, rest ee
//   C: t1 = 01 aa (skip 99), t2 = 01 bb (skip 77): both skip      -> 01 02, 01 bb, rest ee
//   D: t1 = 09 aa: the main parser stops after the first call    -> 09 01, rest ff
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header tlv_t { bit<8> kind; bit<8> len; }
struct headers_t { ethernet_t eth; tlv_t t1; tlv_t t2; }
struct meta_t { bit<8> count; }

parser Tlv(packet_in pkt, out tlv_t t, inout bit<8> count) {
    state start {
        pkt.extract(t);
        count = count + 1;
        transition select(t.kind) {
            1: skip_one;
            default: accept;
        }
    }
    state skip_one { pkt.advance(8); transition accept; }
}
parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Tlv() tlv;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x1234: first;
            default: accept;
        }
    }
    state first {
        tlv.apply(pkt, h.t1, m.count);
        transition select(h.t1.kind) {
            1: second;
            2: second;
            default: accept;
        }
    }
    state second {
        tlv.apply(pkt, h.t2, m.count);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.t1.len = m.count;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.t1); pkt.emit(h.t2); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
