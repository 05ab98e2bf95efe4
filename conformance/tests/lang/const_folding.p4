// Checks: compile-time constants with infinite-precision int arithmetic and width rules:
// A = 8w200 + 8w100 wraps to 44 (0x2C); BIG = 1 << 40, BIG >> 20 = 0x100000; 10 / 3 = 3 and
// 17 % 5 = 2 are folded (h1 = 3 * 16 + 2 = 0x32); (bit<8>)-1 = 0xFF; -4s3 cast to bit<4>
// is 0xD, zero-extended into f2 = 0xD.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
const bit<8> A = 8w200 + 8w100;
const int BIG = 1 << 40;


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.b1 = A;
        h.d.f1 = (bit<32>)(BIG >> 20);
        h.d.h1 = (bit<16>)(10 / 3 * 16 + 17 % 5);
        h.d.b2 = (bit<8>)(-1);
        h.d.f2 = (bit<32>)(bit<4>)(-4s3);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
