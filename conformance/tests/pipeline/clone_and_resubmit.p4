// Checks: an I2E clone and a resubmit requested in the same ingress pass both happen
// (clones are handled first): the clone (instance_type 1 in egress) leaves on session
// 5's port 3, and the resubmitted pass (instance_type 6 in ingress, so it sets port 2)
// reaches egress as a normal unicast packet (instance_type 0, as simple_switch resets it
// when it queues a unicast packet). Egress writes b1 = instance_type.
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
        if (sm.instance_type == 0) {
            clone(CloneType.I2E, 32w5);
            resubmit_preserving_field_list(1);
        } else {
            sm.egress_spec = 2;
        }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.b1 = (bit<8>)sm.instance_type;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
