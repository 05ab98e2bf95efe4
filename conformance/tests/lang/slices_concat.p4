// Checks: bit slices as r-values and l-values and concatenation (++): f1[15:8] = b1;
// f2 = b1 ++ b2 ++ h1; h1 = f1[31:16] (read after the slice write);
// b2[3:0] = 4w0xF leaves the top nibble.
// Expected packets: by hand: in f1 = 0x11223344, b1 = 0xAB, b2 = 0x5C, h1 = 0x7788 ->
// f1 = 0x1122AB44, f2 = 0xAB5C7788, h1 = 0x1122, b2 = 0x5F.
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
        h.d.f1[15:8] = h.d.b1;
        h.d.f2 = h.d.b1 ++ h.d.b2 ++ h.d.h1;
        h.d.h1 = h.d.f1[31:16];
        h.d.b2[3:0] = 4w0xf;
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
