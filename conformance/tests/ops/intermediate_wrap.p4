// Checks: every intermediate result of a bit<8> expression wraps at 8 bits before the next
// operator (BMv2 JSON values are unbounded, so the compiler must truncate):
// r1 = (a + b) >> 1, r2 = (a * b) >> 4, r3 = (a << 4) >> 4, r5 = (a - b) >> 1,
// r6 = ~a >> 4, r7 = (a + b == 0), while r4 = ((bit<16>)a + (bit<16>)b) >> 1 is widened
// first and keeps the carry; r8 = (int<8>)a >> 1 is an arithmetic shift.
// Expected packets: computed with Python integers, masking to 8 bits after each operator.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header w_t {
    bit<8> a; bit<8> b;
    bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; bit<8> r5; bit<8> r6; bit<8> r7; bit<8> r8;
}
struct headers_t { ethernet_t eth; w_t w; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.w); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.w.r1 = (h.w.a + h.w.b) >> 1;
        h.w.r2 = (h.w.a * h.w.b) >> 4;
        h.w.r3 = (h.w.a << 4) >> 4;
        h.w.r4 = (bit<8>)(((bit<16>)h.w.a + (bit<16>)h.w.b) >> 1);
        h.w.r5 = (h.w.a - h.w.b) >> 1;
        h.w.r6 = ~h.w.a >> 4;
        h.w.r7 = (h.w.a + h.w.b == 0) ? 8w1 : 8w0;
        h.w.r8 = (bit<8>)((int<8>)h.w.a >> 1);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.w); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
