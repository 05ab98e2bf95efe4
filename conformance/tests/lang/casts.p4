// Checks: casts: bit<8> -> bit<32> zero-extends (f1 = 0x80); int<8> -> int<32> sign-extends
// and -> bit<32> keeps the bits (f2 = 0xFFFFFF80); bit<32> -> bit<8> truncates
// (b2 = low byte of input f2); bool -> bit<1>; bit<16> -> int<16> -> int<8> truncates
// keeping low bits (b1 = 0x34 from h1 = 0x1234).
// Expected packets: by hand with b1 = 0x80, f2 = 0xCAFEBABE, h1 = 0x1234.
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
        bit<8> orig = h.d.b1;
        h.d.f1 = (bit<32>)orig;
        h.d.b2 = (bit<8>)h.d.f2;
        h.d.f2 = (bit<32>)(int<32>)(int<8>)orig;
        h.d.b1 = (bit<8>)(int<8>)(int<16>)h.d.h1;
        h.d.h1 = (bit<16>)(bit<1>)(orig == 0x80);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
