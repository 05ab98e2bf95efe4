// Checks: registers of odd widths (bit<7>, bit<65>) wrap on increment like their width:
// r7 counts 0x7E, 0x7F, 0x00; r65 starts from the 65-bit pattern written by the first
// packet's f1 ++ f2 ++ 1 bit and adds 1 each later packet.
// Packets: b1 = 0 initialises r7 = 0x7E and r65 = {f1, f2, 1w1}; later packets increment.
// Out: b2 = r7 (as 8 bits), f1/f2 = r65[64:33] / r65[32:1], h1[0] = r65[0].
// Expected packets: by hand.
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
    register<bit<7>>(1) r7;
    register<bit<65>>(1) r65;
    apply {
        bit<7> a;
        bit<65> b;
        if (h.d.b1 == 0) {
            a = 0x7e;
            b = h.d.f1 ++ h.d.f2 ++ 1w1;
        } else {
            r7.read(a, 0);
            r65.read(b, 0);
            a = a + 1;
            b = b + 1;
        }
        r7.write(0, a);
        r65.write(0, b);
        h.d.b2 = (bit<8>)a;
        h.d.f1 = b[64:33];
        h.d.f2 = b[32:1];
        h.d.h1 = (bit<16>)b[0:0];
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
