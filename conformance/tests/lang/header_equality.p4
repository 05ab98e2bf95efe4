// Checks: == and != on whole headers: equal when both are valid with equal fields (or both
// invalid). copy = d, then (b2 == 1) changes copy.b1; both comparisons are taken before any write:
// b1 out = (d == copy), h1 = (d != copy).
// The deparser does not emit copy. Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; data_t copy; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.copy = h.d;
        if (h.d.b2 == 1) { h.copy.b1 = h.copy.b1 + 1; }
        bool eq = h.d == h.copy;
        bool ne = h.d != h.copy;
        h.d.b1 = eq ? 8w1 : 8w0;
        h.d.h1 = ne ? 16w1 : 16w0;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
