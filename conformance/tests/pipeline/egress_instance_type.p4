// Checks: instance_type per pipeline: ingress sees 6 in a resubmitted pass (b2 = 1) and
// 4 in a recirculated pass (b2 = 2), 0 for a normal packet (b2 = 0); egress sees 0 for
// all three, because simple_switch sets instance_type back to normal (0) when it queues
// a unicast packet for egress (only clones and multicast copies keep 1, 2 or 5 there).
// Ingress counts passes in m.x (field list 1, preserved) and writes f2 = instance_type;
// egress recirculates only on the first pass of b2 = 2 packets and writes
// h1 = instance_type, b1 = m.x. Expected packets: by hand.
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
        h.d.f2 = (bit<32>)sm.instance_type;
        sm.egress_spec = 2;
        if (h.d.b2 == 1 && m.x == 1) {
            resubmit_preserving_field_list(1);
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.d.b2 == 2 && m.x == 1) {
            recirculate_preserving_field_list(1);
        }
        h.d.h1 = (bit<16>)sm.instance_type;
        h.d.b1 = (bit<8>)m.x;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
