// Checks: assigning a whole header (h.copy = h.d) copies fields and validity; a list
// expression assigned to a header sets all fields and makes it valid.
// The deparser emits eth, d, copy, tag.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header tag_t { bit<8> t; bit<16> v; }
struct headers_t { ethernet_t eth; data_t d; data_t copy; tag_t tag; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.copy = h.d;
        h.copy.b1 = 0x99;
        h.tag = { 8w0x5a, 16w0xbeef };
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); pkt.emit(h.copy); pkt.emit(h.tag); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
