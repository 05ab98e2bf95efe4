// Checks: lpm on a 128-bit key (IPv6-like destination): /32, /48 and /64 prefixes, the
// longest wins; a /128 host entry; misses go to the default port 6.
// Expected packets: by hand; output = input.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header v6_t { bit<128> src; bit<128> dst; }
struct headers_t { ethernet_t eth; v6_t ip; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.ip); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; }
    table t {
        key = { h.ip.dst: lpm; }
        actions = { set_port; }
        default_action = set_port(6);
    }
    apply {
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.ip); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
