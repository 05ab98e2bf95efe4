// Checks: parser select on etype with several paths: 0x0800 -> ipv4, 0x8100 -> vlan ->
// (0x0800 -> ipv4), anything else -> accept. Ingress sends ipv4-in-vlan to 3, ipv4 to 2,
// vlan-only to 4, other to 1.
// Expected packets: by hand; output = input.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> etype; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { ethernet_t eth; vlan_t vlan; ipv4_t ip; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x0800: parse_ip;
            0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(h.vlan);
        transition select(h.vlan.etype) {
            0x0800: parse_ip;
            default: accept;
        }
    }
    state parse_ip { pkt.extract(h.ip); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.vlan.isValid() && h.ip.isValid()) { sm.egress_spec = 3; }
        else if (h.ip.isValid()) { sm.egress_spec = 2; }
        else if (h.vlan.isValid()) { sm.egress_spec = 4; }
        else { sm.egress_spec = 1; }
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.vlan); pkt.emit(h.ip); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
