// Checks: a table keyed on a serializable enum (enum bit<8> Kind) and on a new type
// (type bit<16> tag_t); the control plane writes them as plain numbers.
// Expected packets: by hand; set_port writes b2 = 0xAA, miss_port b2 = 0xBB.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
struct headers_t { ethernet_t eth; data_t d; }
enum bit<8> Kind { A = 1, B = 2 }
type bit<16> tag_t;
struct meta_t { Kind kind; tag_t tag; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xaa; }
    action miss_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xbb; }
    table t {
        key = { m.kind: exact; m.tag: exact; }
        actions = { set_port; miss_port; }
        default_action = miss_port(6);
    }
    apply {
        m.kind = (Kind)h.d.b1;
        m.tag = (tag_t)h.d.h1;
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
