// Checks: recirculate_preserving_field_list(1) in egress sends the deparsed packet back to
// ingress (the first pass's header writes are kept: h1 = 0x1111), instance_type 4 in the
// second pass's ingress, m.x and m.y preserved. m.y counts passes so egress recirculates
// once: simple_switch sets instance_type back to 0 when it queues a unicast packet for
// egress, so egress cannot tell the passes apart by instance_type.
// Second pass: b1 = instance_type (ingress), f2 = m.x, port 2.
// Expected packets: by hand.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { @field_list(1) bit<32> x; @field_list(1) bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.y = m.y + 1;
        if (sm.instance_type == 0) {
            m.x = 0x00c0ffee;
            h.d.h1 = 0x1111;
            sm.egress_spec = 1;
        } else {
            h.d.b1 = (bit<8>)sm.instance_type;
            h.d.f2 = m.x;
            sm.egress_spec = 2;
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (m.y == 1) {
            recirculate_preserving_field_list(1);
        }
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
