// Checks: standard_metadata in ingress (ingress_port, instance_type 0, packet_length) and
// in egress (egress_port = the egress_spec ingress chose).
// Ingress: f1 = packet_length, h1 = ingress_port, b1 = instance_type, egress_spec = port + 1.
// Egress: b2 = egress_port, f2 = egress_port (32-bit copy).
// Expected packets: by hand; the packets are 28 bytes long (14 Ethernet + 12 data + 2).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.f1 = sm.packet_length;
        h.d.h1 = (bit<16>)sm.ingress_port;
        h.d.b1 = (bit<8>)sm.instance_type;
        sm.egress_spec = sm.ingress_port + 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.b2 = (bit<8>)sm.egress_port;
        h.d.f2 = (bit<32>)sm.egress_port;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
