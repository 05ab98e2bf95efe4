// Checks: a packet recirculated several times: m.x (preserved in field list 1) counts the
// passes; egress recirculates while m.x < 3, so the packet leaves on the third pass with
// f2 = 3 and b1 = instance_type 4; each pass adds 1 to h1 in ingress (deparsed and
// re-parsed each time), so h1 = input + 3.
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
        m.x = m.x + 1;
        h.d.h1 = h.d.h1 + 1;
        h.d.f2 = m.x;
        h.d.b1 = (bit<8>)sm.instance_type;
        sm.egress_spec = 2;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (m.x < 3) {
            recirculate_preserving_field_list(1);
        }
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
