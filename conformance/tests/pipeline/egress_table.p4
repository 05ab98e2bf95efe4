// Checks: a table applied in egress keyed on egress_port (set by ingress from b1) rewrites
// the source MAC per output port; multicast copies each get their port's MAC.
// Expected packets: by hand.
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
        if (h.d.b1 == 0xff) { sm.mcast_grp = 1; } else { sm.egress_spec = (bit<9>)h.d.b1; }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_smac(bit<48> mac) { h.eth.src = mac; }
    table smac {
        key = { sm.egress_port: exact; }
        actions = { set_smac; NoAction; }
        default_action = NoAction();
    }
    apply {
        smac.apply();
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
