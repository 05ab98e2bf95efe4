// Checks: a byte meter: CIR = 1 B/s, CBS = 60 bytes, PIR = 1 B/s, PBS = 100 bytes; 28-byte
// packets back to back: 1st, 2nd green (Tc 60 -> 32 -> 4), 3rd yellow (Tc 4 < 28; Tp 100
// -> 72 -> 44 -> 16), 4th red (Tp 16 < 28).
// Expected packets: by hand from RFC 2698.
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
    meter(1, MeterType.bytes) mb;
    apply {
        bit<2> colour;
        mb.execute_meter(0, colour);
        h.d.b2 = (bit<8>)colour;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
