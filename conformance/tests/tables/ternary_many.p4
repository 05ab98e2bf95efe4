// Checks: a ternary table with many entries added over P4Runtime; overlapping value/mask entries; the largest priority wins.
// Expected packets: computed by conformance/gen/gen_tables.py by brute force over the
// entries (seeded random), independently of any switch. set_port writes b2 = 0xAA,
// the default action sends to port 15 with b2 = 0xBB.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xaa; }
    action miss_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xbb; }
    table t {
        key = { h.d.f1: ternary; }
        actions = { set_port; miss_port; }
        default_action = miss_port(15);
        size = 1024;
    }
    apply { t.apply(); }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
