// Checks: a varbit local variable (spec 7.1.6.2: varbit values can be assigned whole):
// the varbit fields of two headers of different lengths are swapped through it, so each
// header leaves with the other's bytes and length.
// Expected packets: by hand: a.n = 1, a.v = aa; b.n = 3, b.v = 01 02 03. After the swap
// a.v = 01 02 03 and b.v = aa; the length bytes are not touched (they are the input's).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header len_t { bit<8> n; }
header blob_t { varbit<32> v; }
struct headers_t { ethernet_t eth; len_t la; blob_t a; len_t lb; blob_t b; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.la);
        pkt.extract(h.a, (bit<32>)h.la.n * 8);
        pkt.extract(h.lb);
        pkt.extract(h.b, (bit<32>)h.lb.n * 8);
        transition accept;
    }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    varbit<32> tmp;
    apply {
        tmp = h.a.v;
        h.a.v = h.b.v;
        h.b.v = tmp;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
