// Checks: exit inside an action called from a table and directly: the rest of the action
// and of ingress is skipped (b1 stays 1, b2 stays at its input), egress still runs
// (h1 = 0xE).
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
    action stop() { h.d.b1 = 1; exit; h.d.b2 = 0x55; }
    table t {
        actions = { stop; }
        default_action = stop();
    }
    apply {
        sm.egress_spec = 1;
        if (h.d.f1 == 1) {
            t.apply();
        } else {
            stop();
        }
        h.d.b1 = 2;
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.h1 = 0xe;
    }
}
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.eth); pkt.emit(h.d); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
