// Checks: clone_preserving_field_list(I2E, 5, 1) keeps the metadata of field list 1 (m.x)
// in the clone and resets the rest (m.y) to 0; the original keeps both.
// Egress: f2 = m.x, b2 = m.y, b1 = instance_type.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { @field_list(1) bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.x = 0x01020304;
        m.y = 0x55;
        sm.egress_spec = 1;
        clone_preserving_field_list(CloneType.I2E, 32w5, 8w1);
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.f2 = m.x;
        h.d.b2 = m.y;
        h.d.b1 = (bit<8>)sm.instance_type;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
