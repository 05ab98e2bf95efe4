// Checks: a table mixing lpm, ternary and range keys (a ternary-style table: entries have
// priorities, the largest matching priority wins, the lpm prefix is just a mask here).
// Expected packets: by hand: (f1 in 10/8, b1 low nibble 1, h1 in 100..200) -> port 1
// (prio 30); (f1 in 10.1/16, any b1, h1 in 0..1000) -> port 2 (prio 20); else port 6.
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
    action set_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xaa; }
    action miss_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xbb; }
    table t {
        key = { h.d.f1: lpm; h.d.b1: ternary; h.d.h1: range; }
        actions = { set_port; miss_port; }
        default_action = miss_port(6);
    }
    apply {
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
