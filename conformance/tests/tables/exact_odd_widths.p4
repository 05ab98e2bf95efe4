// Checks: an exact key made of a 9-bit field (ingress_port) and a 48-bit field (source
// MAC): entries keyed on both; the same MAC on another port misses.
// Expected packets: by hand; set_port writes b2 = 0xAA, miss_port b2 = 0xBB.
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
        key = { sm.ingress_port: exact; h.eth.src: exact; }
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
