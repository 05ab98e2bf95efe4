// Checks: tuple indexing with a constant index (spec 8.11: `t[i]` reads and writes a
// tuple's element), on a local tuple built from header fields.
// Expected packets: by hand, input a = 0x11, b = 0x2233:
//   t = { a, b }; t[0] = t[0] + 1 -> 0x12; t[1] = t[1] ^ 0xffff -> 0xddcc;
//   a = t[0] = 0x12; b = t[1] = 0xddcc; c = (bit<8>)t[1] = 0xcc.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> a; bit<16> b; bit<8> c; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        tuple<bit<8>, bit<16>> t = { h.d.a, h.d.b };
        t[0] = t[0] + 1;
        t[1] = t[1] ^ 0xffff;
        h.d.a = t[0];
        h.d.b = t[1];
        h.d.c = (bit<8>)t[1];
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
