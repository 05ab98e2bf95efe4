// Checks: a slice of a slice as the target of an assignment (spec 8.6: l-values include
// slices; a slice of an l-value slice is an l-value). x[7:4][2:1] is bits 6..5 of x; the
// other bits keep their values. Also through a header field and as an inout argument.
// Expected packets: by hand:
//   a = 0xff; a[7:4][3:0][3:0] = 0          -> 0x0f
//   b = 0x00; b[7:4][2:1] = 2w3             -> bits 6,5 set: 0x60
//   h.d.c = 0xaa (1010 1010); c[3:0][3:2] = 2w1 -> bits 3,2 = 01: 1010 0110 = 0xa6
//   h.d.e[15:8][7:4] passed inout to set_nibble (writes 0x5): 0x1234 -> 0x5234
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<8> a; bit<8> b; bit<8> c; bit<16> e; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_nibble(inout bit<4> n) { n = 4w5; }
    apply {
        bit<8> a = 8w0xff;
        a[7:4][3:0][3:0] = 4w0;
        h.d.a = a;
        bit<8> b = 0;
        b[7:4][2:1] = 2w3;
        h.d.b = b;
        h.d.c[3:0][3:2] = 2w1;
        set_nibble(h.d.e[15:8][7:4]);
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
