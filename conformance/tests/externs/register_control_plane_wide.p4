// Checks: registers wider than 64 bits and narrower than a byte through P4Runtime:
// register_write of a 65-bit and a 7-bit cell is seen by the data plane (f1/f2 = top and
// next 32 bits of r65[0], h1 = its lowest bit, b1 = r7[3]); the packet then writes
// r65[1] = f1 ++ f2 ++ 1 and r7[2] = 0x55, read back by register_read.
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
    register<bit<65>>(2) r65;
    register<bit<7>>(4) r7;
    apply {
        bit<65> w;
        bit<7> s;
        r65.read(w, 0);
        r7.read(s, 3);
        r65.write(1, h.d.f1 ++ h.d.f2 ++ 1w1);
        r7.write(2, 0x55);
        h.d.f1 = w[64:33];
        h.d.f2 = w[32:1];
        h.d.h1 = (bit<16>)w[0:0];
        h.d.b1 = (bit<8>)s;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
