// Checks: a meter configured and then reset with all four values -1 is unconfigured again,
// so every packet is green (0); index 2, configured with CIR = 1 pkt/s, CBS = 1,
// PIR = 1 pkt/s, PBS = 1 and not reset, gives green then red (Tp empty after one packet).
// b2 = colour. Expected packets: by hand from RFC 2698.
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
    meter(4, MeterType.packets) mt;
    apply {
        bit<2> colour;
        mt.execute_meter((bit<32>)h.d.b1, colour);
        h.d.b2 = (bit<8>)colour;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
