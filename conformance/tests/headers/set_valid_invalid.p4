// Checks: setValid on a header that was not in the packet inserts it (fields written in
// ingress) at its place in the deparser's emit order; setInvalid removes data_t. The
// deparser emits eth, tag, d in that order.
// Expected packets: by hand: eth + tag(0x7e, 0x0102) + payload.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header tag_t { bit<8> t; bit<16> v; }
struct headers_t { ethernet_t eth; tag_t tag; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.tag.setValid();
        h.tag.t = 0x7e;
        h.tag.v = 0x0102;
        h.d.setInvalid();
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.tag); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
