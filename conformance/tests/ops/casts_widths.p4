// Checks: casts and concatenation at edge widths: zero-extension bit<8> -> bit<16> (z16),
// sign-extension int<8> -> int<16> (s16), truncation bit<64> -> bit<7> (t7), bit<48>
// (lo48), concatenation to 128 bits (w128 = big ++ big), and a 33-bit expression
// (big[31:0] ++ 1w1 computed as ((bit<33>)big[31:0] << 1) + 1).
// Expected packets: computed with Python integers.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header c_t {
    bit<8> a; bit<64> big;
    bit<16> z16; bit<16> s16; bit<7> t7; bit<1> pad; bit<128> w128; bit<33> w33; bit<7> pad2;
    bit<48> lo48;
}
struct headers_t { ethernet_t eth; c_t c; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.c); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.c.z16 = (bit<16>)h.c.a;
        h.c.s16 = (bit<16>)(int<16>)(int<8>)h.c.a;
        h.c.t7 = (bit<7>)h.c.big;
        h.c.w128 = h.c.big ++ h.c.big;
        h.c.w33 = ((bit<33>)h.c.big[31:0] << 1) + 1;
        h.c.lo48 = (bit<48>)h.c.big;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.c); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
