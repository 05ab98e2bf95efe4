// Checks: copy-in/copy-out: f(inout x, in y) called as f(b1, b1) works on copies, so
// x = y + 1; x = x + y gives 2*b1 + 1 (an aliasing bug would give 2*b1 + 2). Also an
// action with an inout parameter called directly (incr(h1, 5)).
// Expected packets: by hand (b1 = 3 -> 7; h1 = 0x10 -> 0x15).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }
void f(inout bit<8> x, in bit<8> y) {
    x = y + 1;
    x = x + y;
}


parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action incr(inout bit<16> v, bit<16> by) { v = v + by; }
    apply {
        f(h.d.b1, h.d.b1);
        incr(h.d.h1, 5);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
