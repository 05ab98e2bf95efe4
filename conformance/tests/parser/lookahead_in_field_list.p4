// Checks: lookahead<bit<16>>() inside the field list of an extern call in a parser state
// (hash with the identity algorithm: the result is the list's bits), and lookahead of a
// header's field in the same list: both peek at the bytes after Ethernet without consuming
// them, so data_t is then extracted from the same bytes.
// Expected packets: by hand: m.y = identity({ next 16 bits }) = b1 ++ b2; m.x = the low
// byte of identity({ lookahead<data_t>().h1 }) = low byte of h1. Ingress: h1 := m.y,
// b2 := m.x. In: ab cd 12 34 -> out: ab 34 ab cd.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> b1; bit<8> b2; bit<16> h1; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<8> x; bit<16> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        hash(m.y, HashAlgorithm.identity, 16w0, { pkt.lookahead<bit<16>>() }, 32w65536);
        hash(m.x, HashAlgorithm.identity, 8w0, { pkt.lookahead<data_t>().h1 }, 16w256);
        pkt.extract(h.d);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.h1 = m.y; h.d.b2 = m.x; sm.egress_spec = 1; }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
