// Checks: a header's validity as an exact table key (tag.isValid()), with a second key:
// tagged packets (etype 0x8888) and untagged ones hit different entries.
// Expected packets: by hand; output = input.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header data_t { bit<32> f1; bit<32> f2; bit<16> h1; bit<8> b1; bit<8> b2; }
header tag_t { bit<8> t; }
struct headers_t { ethernet_t eth; tag_t tag; data_t d; }
struct meta_t { bit<32> x; bit<8> y; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.etype) {
            0x8888: parse_tag;
            default: parse_d;
        }
    }
    state parse_tag { pkt.extract(h.tag); transition parse_d; }
    state parse_d { pkt.extract(h.d); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xaa; }
    action miss_port(bit<9> port) { sm.egress_spec = port; h.d.b2 = 0xbb; }
    table t {
        key = { h.tag.isValid(): exact; h.d.b1: exact; }
        actions = { set_port; miss_port; }
        default_action = miss_port(6);
    }
    apply {
        t.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.tag); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
