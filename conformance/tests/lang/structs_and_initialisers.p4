// Checks: struct locals with a named-field initialiser, struct copy, swapping through a
// struct; a tuple local passed to hash (identity) as its data list.
// b1/b2 are swapped; h1 = identity hash of { b1, b2 } (before the swap) = b1 << 8 | b2.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
struct pair_t { bit<8> a; bit<8> b; }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        pair_t p = { a = h.d.b1, b = h.d.b2 };
        pair_t q = p;
        h.d.b1 = q.b;
        h.d.b2 = q.a;
        tuple<bit<8>, bit<8>> t = { p.a, p.b };
        hash(h.d.h1, HashAlgorithm.identity, 16w0, t, 32w0x10000);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
