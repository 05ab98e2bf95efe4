// Checks: digest<learn_t>(1, {f1, ingress_port}) sends one digest message per packet that
// calls it (b1 == 1) to the P4Runtime client, and does not disturb forwarding.
// Expected: by hand: 2 of the 3 packets call digest -> 2 digest data items, carrying
// (f1, ingress_port) = (0xa, 0) and (0xc, 0).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
struct learn_t { bit<32> f1; bit<9> port; }


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.d.b1 == 1) {
            digest<learn_t>(1, { h.d.f1, sm.ingress_port });
        }
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
